"""A cold build of many reports on every core: forked workers load, analyse and render the reports.

Each worker runs a store of its own (buildstore.py) over a share of the report folders and sends
back what the main build keeps (the loaded report, its light analysis, its pages or the names of the
files it wrote, the summaries of the site-wide pages). What a worker made under other inputs than
the main build's (a record that does not match) is simply made again, so the bytes are the same.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import signal
from pathlib import Path

from site_gen.analysis.parts import analysis_part
from site_gen.analysis.report import Analysis
from site_gen.core import collector
from site_gen.core.config import Config
from site_gen.core.errors import SitegenError
from site_gen.render.assets import theme_assets
from site_gen.render.related import NONE as NO_RELATED, Related
from site_gen.render.pages import ReportPages, render_page
from site_gen.render.parts import view_part
from site_gen.building import cache
from site_gen.building.buildstore import BuildStore
from site_gen.building.environment import ReportRecord
from site_gen.building.streamed import Streamed
from site_gen.building.reports import Loaded, folder_stamp
from site_gen.receipts.load import SUMMARY
from site_gen.receipts.validate import prepare_checker
from site_gen.sections import all_sections
from site_gen.building.write import Staging


def _record_lists() -> list[tuple[str, str]]:
    """(section, record list) of the lists only the analysis reads (`Section.light`): once a report is
    analysed and its files are made, the builder keeps the analysis, not these (on a site of a
    thousand reports they are most of the memory)."""
    return [(s.name, s.records) for s in all_sections() if s.light and s.name is not None and s.records is not None]


def lighten(a: Analysis) -> Analysis:
    """The analysis with its report's record lists and raw bytes dropped (the receipt file keeps them),
    and what each section's result holds for its analysis only (`lighten` of its analysis module)."""
    lightened = {}
    for s in all_sections():
        hooks = analysis_part(s)
        light = hooks.lighten if hooks is not None else None
        if light is not None and s.name in a.results:
            lightened[s.name] = light(a.results[s.name])
    if not a.report.raw and all(a.results[k] is v for k, v in lightened.items()):
        return a
    return dataclasses.replace(a, report=_light_report(a.report), results={**a.results, **lightened})


def _light_report(report):
    data = dict(report.data)
    for section, key in _record_lists():
        if isinstance(data.get(section), dict) and data[section].get(key):
            data[section] = {**data[section], key: []}
    return dataclasses.replace(report, data=data, raw=b"")


def files_inputs(store: BuildStore, r: ReportRecord, nav: list[dict[str, str]], asset_urls: dict[str, str]) -> tuple:
    """What a report's files are made from besides the build's environment: its receipt and lede,
    the site's own navigation entries (page_context draws no report entries), the assets' names and
    what its pages show of the reports they link to: the persistent store's name for its files."""
    return (r.id, r.sha256, r.lede, _site_nav(nav)[1], sorted(asset_urls.items()), store.report_deps(r).links)


_shown: tuple[list, list[dict[str, str]], str] | None = None  # (a build's navigation, its site entries, their repr)


def _site_nav(nav: list[dict[str, str]]) -> tuple[list[dict[str, str]], str]:
    """The navigation's site entries and their repr, once per build (it lists every report: a
    thousand entries). A report's pages show only these (sitenav.shown): given them alone, its nine
    pages no longer pass over every report's entry each (at 1,000 reports, ~0.5 ms a report)."""
    global _shown
    if _shown is None or _shown[0] is not nav:
        entries = [item for item in nav if not item.get("report")]
        _shown = (nav, entries, repr(entries))
    return _shown[1], _shown[2]


def write_report(store: BuildStore, r: ReportRecord, nav: list[dict[str, str]], asset_urls: dict[str, str], out: Staging,
                 related: Related | None = None) -> Streamed:
    """Every file of one report, rendered and written to `out` at once, nothing kept: taken from the
    persistent store when an earlier build made them from the same inputs."""
    inputs = files_inputs(store, r, nav, asset_urls)
    # Made before from the same inputs, and still in the previous site as written: linked, unread.
    if out.previous and (index := store.persist.files_index(*inputs)) is not None and out.link_previous(index[0]):
        hashes = index[0]
        return Streamed(r.sha256, sorted(hashes), index[1], index[2], hashes, _stats(out, hashes), related)
    if (cached := store.persist.files(*inputs)) is not None:
        out.write(cached[0])
        hashes = {n: out.hashes[n] for n in cached[0]}
        store.persist.put_files(*cached, *inputs, hashes=hashes, index_only=True)
        return Streamed(r.sha256, sorted(cached[0]), *cached[1:], hashes, _stats(out, hashes), related)
    a = store.reports.analysis_of(r.id)
    rp = ReportPages(a, store.config, nav, related=related or NO_RELATED)
    pages = rp.pages()
    files = rp.files()
    site_nav = _site_nav(nav)[0]  # all a page shows of the navigation
    for page in pages:
        files[page.url] = render_page(page, store.config, site_nav, asset_urls)
    out.write(files)
    charts = any(p.charts for p in pages)
    hashes = {n: out.hashes[n] for n in files}
    store.persist.put_files(files, rp.warnings, charts, *inputs, hashes=hashes)
    return Streamed(r.sha256, sorted(files), rp.warnings, charts, hashes, _stats(out, hashes), related)


def _stats(out: Staging, names) -> dict[str, tuple]:
    return {n: out.stats[n] for n in names if n in out.stats}


def shares(folders: list[Path], sizes: list[float], workers: int) -> list[list[tuple[int, Path]]]:
    """The folders, numbered in folder order, cut into the shares the workers take one at a time,
    heaviest first (`sizes`: each folder's weight)."""
    numbered = list(enumerate(folders))
    # Small interleaved shares: the work stays balanced, results stream back (less memory held at
    # once), and progress can be shown as shares finish. A few heavy reports (receipts with
    # per-request rows, forked for their weight) go one a share: 20 in shares of four left one
    # worker 12 and the other 8 (10.6 s; one a share, 9.0-9.6 s).
    size = max(1, min(16, len(folders) // (workers * 8)))
    chunks = [numbered[i:i + size] for i in range(0, len(numbered), size)]
    # The heaviest first (a stable sort: shares of equal weight keep folder order), so that no
    # worker starts a heavy report when the others are nearly done: in the example, the three
    # largest receipts come last in folder order, and one worker spent its last 0.2 s on one alone.
    chunks.sort(key=lambda chunk: -sum(sizes[i] for i, _ in chunk))
    return chunks


def prefill(config: Config, folders: list[Path], sizes: list[float], nav: list[dict[str, str]],
            out: Staging | None, workers: int, progress, make_store: type[BuildStore], persist, warm: bool = False,
            relate=None, keep: frozenset[str] = frozenset(), later: bool = False) -> tuple[list[tuple], Pending | None]:
    """Every folder's share (`sizes`: their `weights`), done by `workers` forked processes; raises
    the first folder's error, in folder order. `warm`: most reports are linked from the previous
    site, so few workers analyse anything and nothing is prepared for them before the fork.

    `relate(records)`: each report's links to the others (render/related.py), found from every
    record. A worker makes a report without the others; the reports that link to another are made
    again by the workers, with their links, once every record is back. `keep`: the ids of reports
    whose light analysis comes back too (docs pages draw on them). `later`: the second round is
    left running, and returned (`Pending`), while the builder makes the site-wide pages.

    Each item: (folder, its `Loaded`, what was made for it, its light analysis or None)."""
    import multiprocessing

    chunks = shares(folders, sizes, workers)
    if not warm:
        _warm()
    # The staging folder goes to each worker once, at its fork (not pickled with every share: it
    # carries the previous site's listing, thousands of entries).
    urls = {k: v[0] for k, v in theme_assets(config).items()}  # the same for every share
    pool: multiprocessing.pool.Pool | None = multiprocessing.get_context("fork").Pool(
        workers, initializer=_worker_start, initargs=(out, urls, keep))
    try:
        items = _round(pool, [(make_store, persist, config, chunk, nav, None) for chunk in chunks], len(folders), progress)
        related = relate([item[1].record for item in items]) if relate is not None else {}
        # items[i] is folders[i]'s. A worker made each report without the others: those that link
        # to another are made again whole, with their links (a worker keeps nothing of a report
        # between shares), in shares as the first round's, heaviest first. In the example, a
        # version report and the one before it: ~0.1 s of the builder's own time when it made them
        # again alone after the workers.
        again = [i for i, item in enumerate(items) if item[1].record.id in related]
        tasks = [(make_store, persist, config, chunk, nav,
                  {items[i][1].record.id: related[items[i][1].record.id] for i, _ in chunk})
                 for chunk in _renumbered(shares([folders[i] for i in again], [sizes[i] for i in again], workers), again)]
        if tasks and later:
            pending, pool = Pending(pool, tasks, [items[i][1].record.id for i in again]), None
            return items, pending
        for i, item in zip(again, _round(pool, tasks, None, progress) if tasks else []):
            items[i] = item
        return items, None
    finally:
        if pool is not None:
            pool.terminate()


class Pending:
    """A second round still running in the pool (`prefill`'s `later`): `wait` gives its items, in
    folder order, or raises the first folder's error; `close` stops the pool either way."""

    def __init__(self, pool, tasks: list[tuple], ids: list[str]):
        self.pool, self.tasks, self.ids = pool, tasks, ids
        self._async = pool.map_async(_prefill_chunk, tasks)
        self._done: tuple | None = None  # ("ok", items) or ("error", the SitegenError)

    def wait(self) -> list[tuple]:
        if self._done is None:
            try:
                self._done = ("ok", _collected(list(zip(self.tasks, self._async.get()))))
            except BaseException as exc:  # a bad report, or the pool stopped (Ctrl-C): said again if asked again
                self._done = ("error", exc)
            finally:
                self.close()
        if self._done[0] == "error":
            raise self._done[1]
        return self._done[1]

    def close(self) -> None:
        self.pool.terminate()

    def finish(self) -> None:
        """The round waited for to its end, then the pool stopped: for a build that found bad input
        while the round runs (its error is said once the round is over; the round's own items and
        errors are not taken). Stopping a pool while a worker writes its result can hang for ever:
        `Pool.terminate()` kills the worker holding the result queue's lock, and the pool's own
        shutdown then waits for that lock (a test run saw it once). Idle workers stop cleanly."""
        try:
            self._async.wait()
        finally:
            self.close()


def _renumbered(chunks: list[list[tuple[int, Path]]], numbers: list[int]) -> list[list[tuple[int, Path]]]:
    """Shares of a subset of the folders, numbered by their place in the whole list."""
    return [[(numbers[j], folder) for j, folder in chunk] for chunk in chunks]


def _round(pool, tasks: list[tuple], total: int | None, progress) -> list[tuple]:
    """The tasks' results, in folder order; raises the first folder's error. `total`: the number of
    folders, for progress (None: shown by an earlier round)."""
    results, done = [], 0
    for task, result in zip(tasks, pool.imap(_prefill_chunk, tasks)):
        results.append((task, result))
        done += len(result[1]) if result[0] == "ok" else 0
        if total is not None:
            progress("reports", done, total)
    return _collected(results)


def _collected(results: list[tuple]) -> list[tuple]:
    """(task, result) pairs as one list of items in folder order; raises the first folder's error."""
    results = [result for _, result in sorted(results, key=lambda r: r[0][3][0][0])]  # back in folder order
    errors = [r[1] for r in results if r[0] == "error"]
    if errors:
        index, message, file, where = min(errors, key=lambda e: e[0])
        raise SitegenError(message, file, where)
    return [item for _, items in results for item in items]


def _light_if_viewed(a: Analysis) -> Analysis | None:
    """The light analysis of a report whose pages this worker made (each present section's view
    made), else None: a report whose files were taken from the store has no views yet, and a light
    analysis cannot make some of them (tool calling reads the runs `lighten` drops)."""
    viewed = all(s.view_key in a.displayed for s in all_sections() if s.present(a))
    return lighten(a) if viewed else None


def _warm() -> None:
    """What every worker would otherwise do for itself on its first report, done once before the
    fork so that each inherits it: the sections' analysis and view modules imported, the receipt
    checker of the current schema version written and compiled."""
    for s in all_sections():
        analysis_part(s)
        view_part(s)
    prepare_checker()


_out: Staging | None = None  # in a worker: the staging folder its shares write into
_asset_urls: dict[str, str] = {}  # and the theme's assets' names
_keep: frozenset[str] = frozenset()  # and the reports whose light analysis goes back (`prefill`)


def _worker_start(out: Staging | None, asset_urls: dict[str, str], keep: frozenset[str]) -> None:
    global _out, _asset_urls, _keep
    _out, _asset_urls, _keep = out, asset_urls, keep
    # What the worker inherited is never garbage: keep the collector off it. Shares collect at
    # their end instead of every few thousand allocations (pandas allocates a great many): core/collector.py.
    gc.freeze()
    collector.take_over(settled=True)
    # The builder process answers Ctrl-C and SIGTERM, and stops the pool; a worker just stops,
    # though not half-way through a store entry.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    cache.hold_while_writing(frozenset({signal.SIGTERM}))


def _prefill_chunk(args) -> tuple:
    """In a forked worker: one share of the report folders, loaded, analysed and rendered."""
    make_store, persist, config, folders, nav, related = args
    try:
        store = make_store(config, persist=persist)
        store.related = related or {}
        return _prefill_share(store, folders, nav, _out)
    finally:
        collector.between(full=True)


def _prefill_share(store: BuildStore, folders, nav, stream: Staging | None) -> tuple:
    """One worker's folders (`store`: a store of its own, of the main process's kind, with the
    links found for them in a second round): each report's record, and its files written to
    `stream` or its pages made; what goes back is plain data (records), the pages, and the light
    analysis of a report the docs pages name (`_keep`)."""
    asset_urls = _asset_urls
    out = []
    for index, folder in folders:
        try:
            entry = store.reports.known(folder, folder_stamp(folder))
            record = store.reports.record_of(entry)
            store.env[record.id] = record
            if stream is not None:
                made: Streamed | tuple = write_report(store, record, nav, asset_urls, stream, store.related.get(record.id))
            else:
                made = store.report_made(store.reports.analysis_of(record.id), nav, asset_urls)
            light = _light_if_viewed(store.reports.analysis_of(record.id)) if record.id in _keep else None
        except SitegenError as exc:
            return ("error", (index, exc.message, exc.file, exc.where))  # the folder's place in the whole list
        store.reports.drop(record.id)
        out.append((folder, Loaded.of(None, entry.stamp, record, entry.content), made, light))
    return ("ok", out)


# A report counts as one, or as its receipt's bytes in units of this many when larger: a receipt
# with per-request rows costs in proportion to its size (20 serving receipts of 0.5 MB, 4 units
# each, took 0.8 s apiece where the example's reports take 0.15 s), so a few such reports are
# worth forking for, as many small ones are (builder.PARALLEL_MIN_REPORTS).
REPORT_BYTES = 128 << 10


def weights(folders: list[Path]) -> list[float]:
    """Each report in `folders` as so many reports of the example's size (`REPORT_BYTES`), at least one."""
    out = []
    for folder in folders:
        try:
            size = (folder / SUMMARY).stat().st_size
        except OSError:
            size = 0  # the build itself says what is wrong with it
        out.append(max(1.0, size / REPORT_BYTES))
    return out


def weight(sizes: list[float]) -> float:
    """Reports of these `weights` as so many reports of the example's size; a single report counts
    as one whatever its size (one worker would do all the work)."""
    return float(len(sizes)) if len(sizes) < 2 else sum(sizes)


def workers_for(reports: float, minimum: int) -> int:
    """How many workers a cold build of `reports` (weighed by size: `weight`) forks:
    none below `minimum`, at most four."""
    workers = min(os.cpu_count() or 1, 4)
    return workers if workers >= 2 and hasattr(os, "fork") and reports >= minimum else 0
