"""One build, start to end (`build_site`): reports -> settle -> site pages -> write, each stage a
function of the build context (context.py) over one store (buildstore.py). Front ends (CLI,
preview, MkDocs) call this through the API.

A one-shot build makes a store and drops it; `Builder` keeps one between builds (the preview's
case), so a rebuild after one edit redoes only what the edit touched. Cold builds of many reports
fork workers (workers.py).
"""
from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable

from site_gen.building.assembly import history_nav, relations_settled
from site_gen.building.buildstore import BuildStore
from site_gen.building.context import BuildContext, Early, Progress
from site_gen.building.dependencies import Dependencies
from site_gen.building.environment import ReportRecord
from site_gen.building.results import BuildResult
from site_gen.building.site import site_pages, write
from site_gen.building.store import Store
from site_gen.building.workers import Pending, prefill, weight, weights, workers_for
from site_gen.building.write import Staging, check_site_dir, site_inputs
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import report_folders
from site_gen.render.assets import theme_assets
from site_gen.render.docs import DocsPages
from site_gen.render.environment import refresh as refresh_templates
from site_gen.render.related import relations_again

# Below this many reports (weighed by size: workers.weight), forking workers costs more than it saves.
# Cold builds on 2 cores, forked against one process: copies of a 28 kB receipt even at 8, 0.89x at 12;
# of the 225 kB one (1.7 each) 0.90x at 4 and 6; the example (12 reports, weight 17) 1.42 s against
# 1.54 s. SITEGEN_PARALLEL_MIN_REPORTS sets it.
PARALLEL_MIN_REPORTS = int(os.environ.get("SITEGEN_PARALLEL_MIN_REPORTS") or 8)
# A build beside a previous site whose listing it keeps, most reports' records in its store, links
# their files, a few milliseconds a report whatever its size: forking pays only for many. One receipt
# changed: the example (12 reports) 1.05 s forked against 0.94 s in one process; 1,000 reports
# 2.5-2.7 s against 2.8-2.9 s. Counted in reports (SITEGEN_PARALLEL_MIN_WARM_REPORTS).
PARALLEL_MIN_WARM_REPORTS = int(os.environ.get("SITEGEN_PARALLEL_MIN_WARM_REPORTS") or 48)


class Builder:
    """A config and the store its builds run over (buildstore.py), kept from one build to the next:
    the live preview's (`api.live_builder`), told of changed files (`changed`). Every `build()`
    runs the same stages as a one-shot build (`build_site`) and returns the whole site, the same
    bytes a fresh `build_files` gives."""

    def __init__(self, config: Config, *, progress: Progress | None = None, watched: bool = False,
                 persist: Store | None = None):
        self.config = config
        self.progress = progress
        self.store = BuildStore(config, watched=watched, persist=persist)

    @property
    def stats(self) -> dict[str, int]:
        """What the last build did (contexts made, pages rendered, reports loaded or analysed...)."""
        return self.store.stats

    def changed(self, paths) -> None:
        """Marks files as changed (the preview's watcher calls this); the next `build()` rereads them."""
        self.store.changed(paths)

    def dependencies(self, output: str) -> Dependencies | None:
        """The record an output (a page URL, or `report:ID`) was last made from."""
        return self.store.dependencies(output)

    def build(self, *, out: Staging | None = None, early: Early | None = None) -> BuildResult:
        return build_site(self.config, self.store, out=out, early=early, progress=self.progress)


def build_site(config: Config, store: BuildStore, *, out: Staging | None = None, early: Early | None = None,
               progress: Progress | None = None) -> BuildResult:
    """One build, as a sequence of stages over one store: reports -> settle -> site pages -> write.
    Every file of the site, in memory; raises SitegenError on bad input; writes nothing unless `out`.

    With `out`, a one-shot build for publishing: each report's files are written to `out` as soon as
    they are made and are not kept, so memory does not grow with the number of pages; the site-wide
    files are written at the end, and `files` holds only those. `early` (open_pages, show): the
    preview's open pages are shown first (site.py `show_early`)."""
    start = time.perf_counter()
    store.stats.clear()
    refresh_templates()  # a template edited since the last build is compiled again
    pending: Pending | None = None
    try:
        # 1. Reports: each folder's record (loaded, checked, analysed), by forked workers for a cold
        # build of many (inside the try: Ctrl-C while their items are taken leaves no round running).
        pending, prefilled = made_by_workers(config, store, out, progress)
        records = [store.reports.record_of(e) for e in store.reports.entries()]
        # 2. Settle: newest first, supersedes, the navigation, the links between reports.
        records, nav = settle(store, records)
        docs = store.docs_for(records)
        ctx = BuildContext.of(config, records, docs.nav + nav, theme_assets(config), store, out=out, early=early,
                              progress=progress, prefilled=prefilled)
        # 3. Site pages: each report's files, home, History, docs pages, 404 and sitemap, rendered
        # (takes the workers' second round, and stops it whatever happens).
        pending, running = None, pending
        site = site_pages(ctx, docs, running)
        # 4. Write: the site-wide files into `out` (the caller swaps it into place).
        write(ctx, site)
    except SitegenError:
        if pending is not None:  # bad input found before the site pages: said once the round is over
            pending.finish()
        raise
    finally:
        if pending is not None:  # a step before the site pages failed: no worker is left running
            pending.close()
    store.forget(records, site.files)
    names = site.written if out is not None else site.files
    return BuildResult(files=site.files, pages=sum(1 for f in names if f.endswith(".html")), reports=len(records),
                       warnings=site.warnings, seconds=time.perf_counter() - start)


def made_by_workers(config: Config, store: BuildStore, out: Staging | None,
                    progress: Progress | None) -> tuple[Pending | None, bool]:
    """Loads, analyses and renders the reports' own pages in forked workers, filling the store: only
    for a fresh store with many reports; the build then renders just the site-wide pages. With
    `out`, workers write each report's files straight into it, and send back their records. Returns
    the workers' second round, still running (`workers.Pending`), and whether workers made the reports."""
    if store.reports.loaded:
        return None, False
    try:
        folders = report_folders(config.data_dir)
    except SitegenError:
        return None, False
    sizes = weights(folders)
    warm = out is not None and bool(out.previous) and store.reports.mostly_stored(folders)
    workers = (workers_for(len(folders), PARALLEL_MIN_WARM_REPORTS) if warm
               else workers_for(weight(sizes), PARALLEL_MIN_REPORTS))
    if not workers:
        return None, False
    from site_gen.analysis import changes  # numpy's: loaded here, when reports are made at all

    if not warm and len(folders) >= changes.MIN_POINTS:
        # A site with enough reports for a series searches it for change points (ruptures, which
        # loads scipy.stats), and its studies adjust p-values (statsmodels, which loads scipy.stats
        # too): loaded once here, before the fork, rather than by each worker and this process
        # after them (~0.5 s of CPU each; the example's cold build took ~1.1 s less CPU). Not in a
        # warm build: its workers analyse few reports, and the change points of the series no
        # edit touched are in the store (an edit of 1,000 reports' site loaded neither).
        changes.prepare()
    docs = DocsPages(config, []) if config.docs_dir.is_dir() else None
    nav = (docs.nav if docs else []) + ([history_nav()] if len(folders) > 1 else [])
    step = progress or (lambda what, done, total: None)
    items, pending = prefill(config, folders, sizes, nav, out, workers, step, type(store), store.persist,
                             warm, functools.partial(relations_settled, store.settled, store.relations),
                             docs.named([f.name for f in folders]) if docs else frozenset(), out is not None)
    try:
        store.adopt(items)
    except SitegenError:
        if pending is not None:
            pending.finish()
        raise
    except BaseException:
        if pending is not None:
            pending.close()
        raise
    return pending, True  # the reports were made by the workers: this process takes their files


def settle(store: BuildStore, records: list[ReportRecord]) -> tuple[list[ReportRecord], list[dict]]:
    """The records newest first and checked (supersedes), their navigation entries, and which
    reports link to which: searched again when a record's part that says so changed (made from the
    receipt alone, never the lede: a prose edit keeps them all)."""
    records, nav = store.settled(records)
    store.env = {r.id: r for r in records}
    store.related = relations_again(records, store.relations)
    store.links_memo = {}
    return records, nav


def build_files(config: Config, *, progress: Progress | None = None) -> BuildResult:
    """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing."""
    return Builder(config, progress=progress).build()


def build(config: Config, *, progress: Progress | None = None, clean: bool = False, persist: Store | None = None,
          accept: Callable[[list[Diagnostic]], None] | None = None) -> BuildResult:
    """Builds the site into site_dir (see `Staging`); `clean` deletes files there that no build wrote.
    `accept(warnings)`, called before anything is put in place, may refuse the build (a front end's
    `--strict`): the previous site is then left as it was."""
    check_site_dir(config.site_dir, site_inputs(config))
    with Staging(config.site_dir, clean=clean, remember=persist is not None and persist.on) as out:
        result = Builder(config, progress=progress, persist=persist).build(out=out)
        if accept is not None:
            accept(result.warnings)
        out.commit()
    result.warnings.extend(out.warnings)
    result.listing = out.listing
    return result
