"""The pipeline: load -> analyse -> render -> files. Front ends (CLI, preview, MkDocs) call this.

`Builder` keeps what it made between builds (the preview's case): reports and analyses in a
`ReportStore`, and every output with the `Dependencies` it was made from (see dependencies.py), so
a rebuild after one edit redoes only what the edit touched. Cold builds of many reports fork
workers (workers.py).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import time
from pathlib import Path
from typing import Callable

from site_gen.analysis.report import Analysis
from site_gen.build.assembly import Settled, history_nav, relations_settled, report_url
from site_gen.build.site import SiteBuild, history_shell
from site_gen.build.workers import Pending, Streamed, prefill, weight, weights, workers_for
from site_gen.core.config import Config
from site_gen.build.dependencies import Dependencies, DependencyIndex, Templates, content_hash, tree_stamp
from site_gen.build.environment import ReportRecord, collect, encoded
from site_gen.build.store import Store
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import report_folders
from site_gen.render.related import NONE as NO_RELATED, Memo as RelationsMemo, relations_again
from site_gen.render.assets import theme_assets
from site_gen.render.contexts import HistoryContext, as_context
from site_gen.render.docs import DocsPages
from site_gen.render import history as history_view
from site_gen.render.environment import refresh as refresh_templates
from site_gen.render.pages import Page, ReportPages, all_pages, render_page, template_dirs
from site_gen.build.reports import ReportStore
from site_gen.build.results import BuildResult, Made
from site_gen.build.rows import DashboardRows
from site_gen.sections import generation
from site_gen.build.write import Staging, check_site_dir, site_inputs

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
    """`build_files` that remembers what it computed, for the live preview.

    Every output is kept with the `Dependencies` it was made from and reused while the record made
    for it now is equal: a receipt edit remakes its own report's files (and the dashboard), a
    report's prose file its overview, a template the pages whose closure holds it. Every `build()`
    still returns the whole site, the same bytes a fresh `build_files` gives.
    """

    def __init__(self, config: Config, *, progress=None, watched: bool = False, persist: Store | None = None):
        self.config = config
        self.progress = progress  # progress(what, done, total), e.g. a terminal progress bar
        self.stats: dict[str, int] = {}
        # The persistent store (off unless the front end turns it on), and the reports: each
        # folder's record (the build environment), loaded receipt and analysis.
        self.persist = persist or Store(config)
        self.store = ReportStore(config, watched=watched, stats=self.stats, persist=self.persist)
        self.env: dict[str, ReportRecord] = {}  # this build's record of each report, by id
        self.templates = Templates(config.custom_dir)
        # Every kept output by name: a page's URL, `report:ID` for a report's whole set of files.
        self.records = DependencyIndex()
        self._pages: dict[tuple[str, str], tuple[Dependencies, Page, list]] = {}  # (report id, page key)
        self._report_files: dict[str, tuple[str, dict[str, bytes]]] = {}  # report id -> (sha256, CSVs and receipt)
        self._report_whole: dict[str, tuple[Dependencies, Made]] = {}
        self._rendered: dict[str, tuple[Page, bytes]] = {}     # URL -> (the page rendered, its HTML)
        self.report_done: dict[str, tuple[dict[str, bytes], list, bool]] = {}  # id -> (files, warnings, charts)
        self.streamed: dict[str, Streamed] = {}  # report id -> what a worker wrote for it (one-shot builds)
        self.kept: set[str] = set()  # ids of reports whose light analysis a worker sent back (docs pages name them)
        self.pending: Pending | None = None  # the workers' second round, while a one-shot build goes on
        self.prefilled = False  # whether forked workers made this build's reports (`_prefill`)
        self._docs_gen = 0  # bumped when a file under docs_dir changes
        self._resolved: tuple | None = None  # (sections' generation, what `_roots` found)
        self._ids: set[str] | None = None  # the reports of the last build (`_forget`)
        self.docs: tuple[Dependencies, DocsPages, dict[str, bytes] | None] | None = None
        self.docs_pages: dict = {}        # DocsPages.pages' cache
        self.extra_files: tuple[Dependencies, dict[str, bytes]] | None = None  # 404.html, sitemap.xml, share cards
        self._history: tuple[Dependencies, Page] | None = None
        self._relations = RelationsMemo()
        self._settled = Settled()  # the records settled and their navigation, while they are the same
        self.home: tuple[tuple, Page] | None = None  # (the receipts and row macro it was made from, the home page)
        self._history_rows: dict = {}     # each report's history rows, by receipt (analysis/history.py `frames`)
        self._history_memo: dict = {}     # the history page's frames, rows and charts, by what they are made from
        self.dashboard_rows = DashboardRows(config, self.templates, self.persist)  # rows(records): the table's rows
        self._site_key: tuple | None = None       # (ids of nav and assets, their hash, the objects kept alive)
        self.related: dict = {}  # report id -> its links to other reports (site_gen/render/related.py), this build's
        self._links_memo: dict = {}    # id of a Related of this build -> (it, the hash of what it shows)

    # -- what changed -------------------------------------------------------------------------
    def template_roots(self) -> list[Path]:
        return template_dirs(self.config.custom_dir)

    def _roots(self) -> tuple[Path, Path, list[Path]]:
        """data_dir, docs_dir, the template folders: resolved once per registry of sections (a folder
        replaced by a link makes the preview start a new builder: serve.py)."""
        if self._resolved is None or self._resolved[0] != generation():
            c, roots = self.config, [r.resolve() for r in self.template_roots()]
            self._resolved = (generation(), (c.data_dir.resolve(), c.docs_dir.resolve(), roots))
        return self._resolved[1]

    def changed(self, paths) -> None:
        """Marks files as changed (the preview's watcher calls this); the next `build()` rereads them.

        Changes are also noticed without it, from file sizes and times, but a second save within
        the file system's timestamp granularity can look unchanged: the watcher's word settles it.
        """
        data, docs, roots = self._roots()
        templates: set[str] = set()
        real = [Path(os.path.realpath(p)) for p in paths]  # not resolve(): a path in a symlink loop raises there
        for path in real:
            if data == path or data in path.parents:
                self.store.changed(path)
                continue
            if docs == path or docs in path.parents:
                self._docs_gen += 1
            for root in roots:
                if root in path.parents:
                    templates.add(path.relative_to(root).as_posix())
                    break
        self.templates.changed(templates)
        self.records.invalidate(real)

    # -- records ------------------------------------------------------------------------------
    def site_hash(self, site_nav: list[dict], asset_urls: dict[str, str]) -> str:
        """Hash of what a page draws besides its own context: the navigation's site entries (page_context
        draws no report entries, so adding a report leaves the others' pages as they were) and asset URLs."""
        base = (id(site_nav), id(asset_urls))
        if self._site_key is None or self._site_key[0] != base:
            nav = [item for item in site_nav if not item.get("report")]
            self._site_key = (base, content_hash(repr(nav) + repr(sorted(asset_urls.items()))), site_nav, asset_urls)
        return self._site_key[1]

    def report_deps(self, r: ReportRecord, *, lede: bool = True) -> Dependencies:
        """A report's receipt (and lede) as a record's inputs, with what its pages show of the reports they link to."""
        files = r.inputs if lede else r.inputs[:1]
        return Dependencies(receipts=((r.id, r.sha256),), ledes=((r.id, r.lede),) if lede else (),
                            files=frozenset(files), links=self._links(r.id))

    def _links(self, report_id: str) -> str:
        """The hash of what a report's pages show of other reports: its `Related` (relations() finds it
        again each build, from every receipt) without the receipts it was found from."""
        related = self.related.get(report_id)
        if related is None:
            return ""
        key = id(related)
        if key not in self._links_memo:
            shown = dataclasses.replace(related, receipts=(), files=frozenset())
            self._links_memo[key] = (related, content_hash(repr(shown)))  # `related` kept: its id stays its own
        return self._links_memo[key][1]

    def _page_deps(self, page: Page, site: str) -> Dependencies:
        """What a page's HTML is made from: its context's own record, its template closure, the site's part."""
        templates, files = self.templates.record(page.template)
        own = page.deps if page.deps is not None else Dependencies()
        return Dependencies(own.receipts, own.ledes, templates, own.docs, site, own.files | files, own.links)

    def dependencies(self, output: str) -> Dependencies | None:
        """The record an output (a page URL, or `report:ID`) was last made from."""
        return self.records.get(output)

    # -- a report's files ---------------------------------------------------------------------
    def report_pages(self, a: Analysis, site_nav: list[dict[str, str]], only: set[str] | None = None) -> Made:
        """A report's pages (their contexts) and files; `only`: just its pages of these URLs, first (the preview's open ones)."""
        r = a.report
        record = self.env.get(r.id) or collect(a)
        deps = self.report_deps(record)
        whole = self._report_whole.get(r.id)
        if whole is not None and whole[0] == deps and only is None:
            return whole[1]  # nothing of this report changed: skip even listing its sections
        rp = ReportPages(a, self.config, site_nav, related=self.related.get(r.id, NO_RELATED))
        made = Made([], {}, [])
        for key, title, file in rp.sections:
            if only is not None and rp.base + file not in only:
                continue
            # A page's context depends on the receipt only; the overview's also on the lede.
            version = deps if key == "overview" else self.report_deps(record, lede=False)
            cached = self._pages.get((r.id, key))
            if cached is None or cached[0] != version:
                before = len(rp.warnings)
                page = rp.page(key, title, file)
                page.deps = version
                cached = self._pages[(r.id, key)] = (version, page, rp.warnings[before:])
                self.stats["contexts"] = self.stats.get("contexts", 0) + 1
            made.pages.append(cached[1])
            made.warnings.extend(cached[2])
        if only is not None:
            return made
        present = {key for key, _, _ in rp.sections}
        for key, _, _ in all_pages():
            if key not in present:
                self._pages.pop((r.id, key), None)  # a section the receipt no longer has
        files = self._report_files.get(r.id)
        if files is None or files[0] != r.sha256:
            files = self._report_files[r.id] = (r.sha256, rp.files())
        made.files = files[1]
        self._report_whole[r.id] = (deps, made)
        return made

    def render(self, page: Page, site: str, site_nav: list[dict[str, str]], asset_urls: dict[str, str],
                cache: bool) -> bytes:
        deps = self._page_deps(page, site)
        cached = self._rendered.get(page.url)
        if cache and cached and cached[0] is page and self.records.get(page.url) == deps:
            return cached[1]
        html = render_page(page, self.config, site_nav, asset_urls)
        self.stats["rendered"] = self.stats.get("rendered", 0) + 1
        self._rendered[page.url] = (page, html)
        self.records.record(page.url, deps)
        return html

    def seed(self, page: Page, site: str, html: bytes) -> None:
        """Gives the render cache a page's HTML made by an earlier build from what `page` is made from."""
        self._rendered[page.url] = (page, html)
        self.records.record(page.url, self._page_deps(page, site))

    def report_made(self, a: Analysis, nav: list[dict[str, str]], asset_urls: dict[str, str]) -> tuple:
        """A report's pages made and rendered (a worker's share), as `adopt` takes them back."""
        made = self.report_pages(a, nav)
        site = self.site_hash(nav, asset_urls)
        for page in made.pages:
            self.render(page, site, nav, asset_urls, cache=False)
        rid = a.report.id
        return ({k: v for k, v in self._pages.items() if k[0] == rid}, self._report_files[rid],
                {p.url: (self._rendered[p.url], self.records.get(p.url)) for p in made.pages}, self._report_whole[rid])

    def _adopt(self, items: list[tuple]) -> None:
        """Keeps what the workers made, as if this builder had made it: each report's record (its
        receipt loaded again only if need be), its files or pages, and a light analysis sent back."""
        for folder, loaded, made, light in items:
            self.store.loaded[folder] = loaded
            rid = loaded.record.id
            if light is not None:  # for the docs pages: kept as a published report's is
                self.store.keep(light)
                self.kept.add(rid)
            if isinstance(made, Streamed):
                self.streamed[rid] = made
                continue
            pages, files, rendered, whole = made
            self._pages.update(pages)
            self._report_files[rid] = files
            self._report_whole[rid] = whole  # kept while its links are those it was made with
            for url, (html, deps) in rendered.items():
                self._rendered[url] = html
                self.records.record(url, deps)

    def _prefill(self, out: Staging | None = None) -> None:
        """Loads, analyses and renders the reports' own pages in forked workers, filling the caches:
        only for a fresh builder with many reports; `build()` then renders just the site-wide pages.
        With `out`, workers write each report's files straight into it, and send back their records."""
        if self.store.loaded:
            return
        try:
            folders = report_folders(self.config.data_dir)
        except SitegenError:
            return
        sizes = weights(folders)
        warm = out is not None and bool(out.previous) and self.store.mostly_stored(folders)
        workers = (workers_for(len(folders), PARALLEL_MIN_WARM_REPORTS) if warm
                   else workers_for(weight(sizes), PARALLEL_MIN_REPORTS))
        if not workers:
            return
        docs = DocsPages(self.config, []) if self.config.docs_dir.is_dir() else None
        nav = (docs.nav if docs else []) + ([history_nav()] if len(folders) > 1 else [])
        items, self.pending = prefill(self.config, folders, sizes, nav, out, workers, self.step, type(self), self.persist,
                                      warm, functools.partial(relations_settled, self._settled, self._relations),
                                      docs.named([f.name for f in folders]) if docs else frozenset(), out is not None)
        self._adopt(items)
        self.prefilled = True  # the reports were made by the workers: this process takes their files

    # -- the site-wide pages ------------------------------------------------------------------
    def history_page(self, records: list[ReportRecord], receipts: Dependencies) -> Page:
        """The history page; its context is remade only when some receipt changed."""
        if self._history is None or self._history[0] != receipts:
            ctx = history_view.context(records, self.config.noise_band, self.config.ratio_scale, report_url,
                                       self._history_rows, self._history_memo)
            self._history = (receipts, history_shell(receipts, context=as_context(HistoryContext(ctx))))
        return self._history[1]

    def history_key(self, records: list[ReportRecord], site: str) -> str:
        """The persistent store's name for the history page's HTML: what its context is made from
        (render/history.py `made_from`), its template closure and the site's part. Found without
        pandas: a build whose edits leave the page as it was never loads it (~0.3 s of a build of a
        thousand reports with one changed)."""
        c = self.config
        return content_hash(encoded((history_view.made_from(records), c.noise_band, list(c.ratio_scale),
                                     self.templates.record("history.html")[0], site)))

    def _docs_for(self, records: list[ReportRecord]) -> DocsPages:
        """docs_dir's pages, found and read again when docs, the set of reports or a template changed;
        each page remade only when it or a report it draws on changed (see DocsPages.pages)."""
        ids = content_hash(repr(sorted(r.id for r in records)) + f":{self._docs_gen}")
        deps = Dependencies(docs=tree_stamp(self.config.docs_dir), templates=self.templates.record("*")[0], site=ids)
        if self.docs is None or self.docs[0] != deps:
            self.docs = (deps, DocsPages(self.config, records, self.store.analysis_of), None)
            self.docs_pages = {}
        docs = self.docs[1]
        docs.records = records
        return docs

    def step(self, what: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(what, done, total)

    # -- the whole site -----------------------------------------------------------------------
    def build(self, *, out: Staging | None = None, early: tuple[Callable, Callable] | None = None) -> BuildResult:
        """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing.

        With `out`, a one-shot build for publishing: each report's files are written to `out` as soon as
        they are made and are not kept, so memory does not grow with the number of pages; the site-wide
        files are written at the end, and `files` holds only those. `early` (open_pages, show): the
        preview's open pages are shown first (SiteBuild.early)."""
        start = time.perf_counter()
        self.stats.clear()
        self.prefilled = False
        refresh_templates()  # a template edited since the last build is compiled again
        try:
            # Inside: Ctrl-C while the first round's items are taken leaves no second round running.
            self._prefill(out)
            records, nav = self._settled([self.store.record_of(e) for e in self.store.entries()])
            self.env = {r.id: r for r in records}
            # Which reports link to which: searched again when a record's part that says so changed
            # (made from the receipt alone, never the lede: a prose edit keeps them all).
            self.related = relations_again(records, self._relations)
            self._links_memo = {}
            docs = self._docs_for(records)
            site = SiteBuild(self, records, docs.nav + nav, theme_assets(self.config), out, early)
            site.run(docs)  # takes the workers' second round (`pending`), and stops it whatever happens
        finally:
            if self.pending is not None:  # a step before `run` failed: no worker is left running
                self.pending.close()
                self.pending = None
        self._forget(site)
        names = site.written if out is not None else site.files
        return BuildResult(files=site.files, pages=sum(1 for f in names if f.endswith(".html")), reports=len(records),
                           warnings=site.warnings, seconds=time.perf_counter() - start)

    def _forget(self, site: SiteBuild) -> None:
        """Forgets what no longer exists (a deleted or renamed report, a section gone). The reports'
        caches are swept only when the set of reports changed (at a thousand reports each sweep
        walks tens of thousands of entries: most of a preview edit's time)."""
        ids = {r.id for r in site.records}
        gone = [url for url in self._rendered if url not in site.files]
        for url in gone:
            del self._rendered[url]
        if ids == self._ids:
            self.records.forget(gone)
            return
        self._ids = ids
        self.store.forget(ids)
        for cache in (self._report_files, self._report_whole, self.report_done):
            for rid in set(cache) - ids:
                del cache[rid]
        for k in [k for k in self._pages if k[0] not in ids]:
            del self._pages[k]
        self.records.forget({*gone, *(o for o in self.records.outputs() if o.startswith("report:") and o[7:] not in ids)})


def build_files(config: Config, *, progress=None) -> BuildResult:
    """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing."""
    return Builder(config, progress=progress).build()


def build(config: Config, *, progress=None, clean: bool = False, persist: Store | None = None,
          accept: Callable[[list], None] | None = None) -> BuildResult:
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
