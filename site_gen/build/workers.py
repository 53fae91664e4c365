"""A cold build of many reports on every core: forked workers load, analyse and render the reports.

Each worker runs a `Builder` of its own over a share of the report folders and sends back what
the main builder keeps (the loaded report, its light analysis, its pages or the names of the
files it wrote, the summaries of the site-wide pages). What a worker made under other inputs than
the main build's (a record that does not match) is simply made again, so the bytes are the same.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from site_gen.build import report_cache
from site_gen.analysis import history as history_rows
from site_gen.analysis.parts import analysis_of
from site_gen.analysis.report import Analysis, deferred, set_aside, with_report
from site_gen.build.assembly import report_url
from site_gen.core.config import Config
from site_gen.core.errors import SitegenError
from site_gen.render import dashboard, publish
from site_gen.render.assets import theme_assets
from site_gen.render.related import NONE as NO_RELATED, Related
from site_gen.render.pages import ReportPages, render_page
from site_gen.build.reports import Loaded, folder_stamp
from site_gen.sections import all_sections
from site_gen.build.write import Staging


def _record_lists() -> list[tuple[str, str]]:
    """(section, record list) of the lists only the analysis reads (`Section.light`): once a report is
    analysed and its files are made, the builder keeps the analysis, not these (on a site of a
    thousand reports they are most of the memory)."""
    return [(s.name, s.records) for s in all_sections() if s.light]


def lighten(a: Analysis) -> Analysis:
    """The analysis with its report's record lists and raw bytes dropped (the receipt file keeps them),
    and what each section's result holds for its analysis only (`lighten` of its analysis module)."""
    if set_aside(a):  # its results still unread (from a worker): the report's part only
        return with_report(a, _light_report(a.report)) if a.report.raw else a
    lightened = {}
    for s in all_sections():
        module = analysis_of(s)
        light = getattr(module, "lighten", None) if module is not None else None
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


@dataclass
class Streamed:
    """What a one-shot build wrote for one report: file names, page warnings, whether a page draws charts."""
    sha256: str
    names: list[str]
    warnings: list
    charts: bool
    hashes: dict[str, str] = dataclasses.field(default_factory=dict)  # each file's sha256, as written


def write_report(a: Analysis, config: Config, strict: bool, nav: list[dict[str, str]], asset_urls: dict[str, str],
                 out: Staging, related: Related | None = None) -> Streamed:
    """Every file of one report, rendered and written to `out` at once, nothing kept."""
    related = related or NO_RELATED
    name = report_cache.key(a, config, strict, nav, asset_urls, related.receipts)
    if (cached := report_cache.get(name)) is not None:  # made by an earlier build, from the same inputs
        out.write(cached[0])
        return Streamed(a.report.sha256, sorted(cached[0]), *cached[1:], hashes={n: out.hashes[n] for n in cached[0]})
    rp = ReportPages(a, config, nav, strict=strict, related=related)
    pages = rp.pages()
    files = rp.files()
    for page in pages:
        files[page.url] = render_page(page, config, nav, asset_urls)
    if publish.site_root(config):  # its link-preview card, drawn here too (in a worker, on every core)
        files[rp.base + publish.CARD] = publish.share_card(a, config)
    out.write(files)
    report_cache.put(name, files, rp.warnings, any(p.charts for p in pages))
    return Streamed(a.report.sha256, sorted(files), rp.warnings, any(p.charts for p in pages), {n: out.hashes[n] for n in files})


def prefill(config: Config, strict: bool, folders: list[Path], nav: list[dict[str, str]], out: Staging | None,
            workers: int, progress, builder: type) -> list[tuple]:
    """Every folder's share, done by `workers` forked processes; raises the first folder's error, in folder order."""
    import multiprocessing

    numbered = list(enumerate(folders))
    # Small interleaved shares: the work stays balanced, results stream back (less memory held at
    # once), and progress can be shown as shares finish.
    size = max(4, min(16, len(folders) // (workers * 8) or 4))
    chunks = [numbered[i:i + size] for i in range(0, len(numbered), size)]
    results, done = [], 0
    with multiprocessing.get_context("fork").Pool(workers, initializer=_worker_start) as pool:
        for result in pool.imap(_prefill_chunk, [(builder, config, strict, chunk, nav, out) for chunk in chunks]):
            results.append(result)
            done += len(result[1]) if result[0] == "ok" else 0
            progress("reports", done, len(folders))
    errors = [r[1] for r in results if r[0] == "error"]
    if errors:
        index, message, file, where = min(errors, key=lambda e: e[0])
        raise SitegenError(message, file, where)
    return [item for _, items in results for item in items]


def _worker_start() -> None:
    # What the worker inherited is never garbage: keep the collector off it. Each share collects
    # once at its end instead of every few thousand allocations (pandas allocates a great many).
    gc.freeze()
    gc.disable()
    # The builder process answers Ctrl-C and SIGTERM, and stops the pool; a worker just stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _prefill_chunk(args) -> tuple:
    """In a forked worker: one share of the report folders, loaded, analysed and rendered."""
    builder, config, strict, folders, nav, stream = args
    try:
        return _prefill_share(builder, config, strict, folders, nav, stream)
    finally:
        gc.collect()


def _prefill_share(builder: type, config, strict, folders, nav, stream: Staging | None) -> tuple:
    b = builder(config, strict=strict)  # the main process's kind of builder, one of its own
    asset_urls = {k: v[0] for k, v in theme_assets(config).items()}
    out = []
    for index, folder in folders:
        try:
            stamp = folder_stamp(folder)
            report = b.store.load(folder)
            a = b.store.analysis(report)
            if stream is not None:
                made = write_report(a, config, strict, nav, asset_urls, stream)
            else:
                made = b.report_made(a, nav, asset_urls)
        except SitegenError as exc:
            return ("error", (index, exc.message, exc.file, exc.where))  # the folder's place in the whole list
        light = lighten(a)
        a = with_report(light, light.report, displayed={})  # its pages are made: not worth sending back
        b.store.analyses.clear()
        # The site-wide pages' share of the work, done here on every core rather than after.
        summaries = (dashboard.row(a, url=report_url(report.id)), history_rows.report_rows(a))
        out.append((folder, Loaded.of(a.report, stamp), deferred(a), made, summaries))
    return ("ok", out)


def workers_for(folders: int, minimum: int) -> int:
    """How many workers a cold build of `folders` reports forks: none below `minimum`, at most four."""
    workers = min(os.cpu_count() or 1, 4)
    return workers if workers >= 2 and hasattr(os, "fork") and folders >= minimum else 0
