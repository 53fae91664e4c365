"""The store a build runs over, in memory and on disk: what one build keeps for the next.

`BuildStore` holds each report's record, loaded receipt and analysis (`ReportStore`), and every
output a build made with the `Dependencies` it was made from (see dependencies.py): a report's
page contexts and files, each page's HTML, the home, History and docs pages, 404 and sitemap. The
persistent half (`persist`, store.py) keeps records and files between processes. A one-shot build
makes one and drops it; the preview keeps one (`api.live_builder`), so a rebuild after one edit
redoes only what the edit touched. The build's stages (builder.py `build_site`) read and fill it
through the build context (context.py); nothing here refers back to a builder.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from site_gen.analysis.report import Analysis
from site_gen.building.assembly import Settled, report_url
from site_gen.building.dependencies import Dependencies, DependencyIndex, Templates, content_hash, tree_stamp
from site_gen.building.environment import ReportRecord, collect, encoded
from site_gen.building.reports import ReportStore
from site_gen.building.results import Made
from site_gen.building.streamed import Streamed
from site_gen.building.rows import DashboardRows
from site_gen.building.store import Store
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.render import history as history_view
from site_gen.render.contexts import HistoryContext, as_context
from site_gen.render.docs import DocsPages
from site_gen.render.pages import Page, ReportPages, all_pages, render_page, template_dirs
from site_gen.render.related import NONE as NO_RELATED, Memo as RelationsMemo
from site_gen.render.where import HISTORY_URL
from site_gen.sections import generation


def history_shell(receipts: Dependencies, context: dict | None = None, charts: bool = False) -> Page:
    """The History page as the site places it: its context made here, or its HTML taken from the
    store (site.py `home_and_history`)."""
    page = Page(url=HISTORY_URL, title="History", template="history.html", context=context or {}, charts=charts)
    page.deps = receipts
    return page


class BuildStore:
    """Every output a build made, kept with the `Dependencies` it was made from and reused while the
    record made for it now is equal: a receipt edit remakes its own report's files (and the
    dashboard), a report's prose file its overview, a template the pages whose closure holds it."""

    def __init__(self, config: Config, *, watched: bool = False, persist: Store | None = None):
        self.config = config
        self.stats: dict[str, int] = {}
        # The persistent store (off unless the front end turns it on), and the reports: each
        # folder's record (the build environment), loaded receipt and analysis.
        self.persist = persist or Store(config)
        self.reports = ReportStore(config, watched=watched, stats=self.stats, persist=self.persist)
        self.env: dict[str, ReportRecord] = {}  # this build's record of each report, by id
        self.templates = Templates(config.custom_dir)
        # Every kept output by name: a page's URL, `report:ID` for a report's whole set of files.
        self.records = DependencyIndex()
        self.pages: dict[tuple[str, str], tuple[Dependencies, Page, list[Diagnostic]]] = {}  # (report id, page key)
        self.report_files: dict[str, tuple[str, dict[str, bytes]]] = {}  # report id -> (sha256, CSVs and receipt)
        self.report_whole: dict[str, tuple[Dependencies, Made]] = {}
        self.rendered: dict[str, tuple[Page, bytes]] = {}     # URL -> (the page rendered, its HTML)
        self.report_done: dict[str, tuple[dict[str, bytes], list[Diagnostic], bool]] = {}  # id -> (files, warnings, charts)
        self.streamed: dict[str, Streamed] = {}  # report id -> what a worker wrote for it (one-shot builds)
        self.kept: set[str] = set()  # ids of reports whose light analysis a worker sent back (docs pages name them)
        self.docs_gen = 0  # bumped when a file under docs_dir changes
        self.resolved: tuple | None = None  # (sections' generation, what `roots` found)
        self.ids: set[str] | None = None  # the reports of the last build (`forget`)
        self.docs: tuple[Dependencies, DocsPages, dict[str, bytes] | None] | None = None
        self.docs_pages: dict = {}        # DocsPages.pages' cache
        self.extra_files: tuple[Dependencies, dict[str, bytes]] | None = None  # 404.html, sitemap.xml, share cards
        self.history: tuple[Dependencies, Page] | None = None
        self.relations = RelationsMemo()
        self.settled = Settled()  # the records settled and their navigation, while they are the same
        self.home: tuple[tuple, Page] | None = None  # (the receipts and row macro it was made from, the home page)
        self.history_rows: dict = {}     # each report's history rows, by receipt (analysis/history.py `frames`)
        self.history_memo: dict = {}     # the history page's frames, rows and charts, by what they are made from
        self.dashboard_rows = DashboardRows(config, self.templates, self.persist)  # rows(records): the table's rows
        self.site_key: tuple | None = None       # (ids of nav and assets, their hash, the objects kept alive)
        self.related: dict = {}  # report id -> its links to other reports (site_gen/render/related.py), this build's
        self.links_memo: dict = {}    # id of a Related of this build -> (it, the hash of what it shows)

    # -- what changed -------------------------------------------------------------------------
    def roots(self) -> tuple[Path, Path, list[Path]]:
        """data_dir, docs_dir, the template folders: resolved once per registry of sections (a folder
        replaced by a link makes the preview start a new builder: serve.py)."""
        if self.resolved is None or self.resolved[0] != generation():
            c, roots = self.config, [r.resolve() for r in template_dirs(self.config.custom_dir)]
            self.resolved = (generation(), (c.data_dir.resolve(), c.docs_dir.resolve(), roots))
        return self.resolved[1]

    def changed(self, paths) -> None:
        """Marks files as changed (the preview's watcher calls this); the next build rereads them.

        Changes are also noticed without it, from file sizes and times, but a second save within
        the file system's timestamp granularity can look unchanged: the watcher's word settles it.
        """
        data, docs, roots = self.roots()
        templates: set[str] = set()
        real = [Path(os.path.realpath(p)) for p in paths]  # not resolve(): a path in a symlink loop raises there
        for path in real:
            if data == path or data in path.parents:
                self.reports.changed(path)
                continue
            if docs == path or docs in path.parents:
                self.docs_gen += 1
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
        if self.site_key is None or self.site_key[0] != base:
            nav = [item for item in site_nav if not item.get("report")]
            self.site_key = (base, content_hash(repr(nav) + repr(sorted(asset_urls.items()))), site_nav, asset_urls)
        return self.site_key[1]

    def report_deps(self, r: ReportRecord, *, lede: bool = True) -> Dependencies:
        """A report's receipt (and lede) as a record's inputs, with what its pages show of the reports they link to."""
        files = r.inputs if lede else r.inputs[:1]
        return Dependencies(receipts=((r.id, r.sha256),), ledes=((r.id, r.lede),) if lede else (),
                            files=frozenset(files), links=self.links(r.id))

    def links(self, report_id: str) -> str:
        """The hash of what a report's pages show of other reports: its `Related` (relations() finds it
        again each build, from every receipt) without the receipts it was found from."""
        related = self.related.get(report_id)
        if related is None:
            return ""
        key = id(related)
        if key not in self.links_memo:
            shown = dataclasses.replace(related, receipts=(), files=frozenset())
            self.links_memo[key] = (related, content_hash(repr(shown)))  # `related` kept: its id stays its own
        return self.links_memo[key][1]

    def page_deps(self, page: Page, site: str) -> Dependencies:
        """What a page's HTML is made from: its context's own record, its template closure, the site's part."""
        templates, files = self.templates.record(page.template)
        own = page.deps if page.deps is not None else Dependencies()
        return Dependencies(own.receipts, own.ledes, templates, own.docs, site, own.files | files, own.links)

    def dependencies(self, output: str) -> Dependencies | None:
        """The record an output (a page URL, or `report:ID`) was last made from."""
        return self.records.get(output)

    def unchanged_pages(self, r: ReportRecord) -> Made | None:
        """A report's pages and files as last made (here, or by a worker), if still current: no analysis needed."""
        whole = self.report_whole.get(r.id)
        return whole[1] if whole is not None and whole[0] == self.report_deps(r) else None

    # -- a report's files ---------------------------------------------------------------------
    def report_pages(self, a: Analysis, site_nav: list[dict[str, str]], only: set[str] | None = None) -> Made:
        """A report's pages (their contexts) and files; `only`: just its pages of these URLs, first (the preview's open ones)."""
        r = a.report
        record = self.env.get(r.id) or collect(a)
        deps = self.report_deps(record)
        whole = self.report_whole.get(r.id)
        if whole is not None and whole[0] == deps and only is None:
            return whole[1]  # nothing of this report changed: skip even listing its sections
        rp = ReportPages(a, self.config, site_nav, related=self.related.get(r.id, NO_RELATED))
        made = Made([], {}, [])
        for key, title, file in rp.sections:
            if only is not None and rp.base + file not in only:
                continue
            # A page's context depends on the receipt only; the overview's also on the lede.
            version = deps if key == "overview" else self.report_deps(record, lede=False)
            cached = self.pages.get((r.id, key))
            if cached is None or cached[0] != version:
                before = len(rp.warnings)
                page = rp.page(key, title, file)
                page.deps = version
                cached = self.pages[(r.id, key)] = (version, page, rp.warnings[before:])
                self.stats["contexts"] = self.stats.get("contexts", 0) + 1
            made.pages.append(cached[1])
            made.warnings.extend(cached[2])
        if only is not None:
            return made
        present = {key for key, _, _ in rp.sections}
        for key, _, _ in all_pages():
            if key not in present:
                self.pages.pop((r.id, key), None)  # a section the receipt no longer has
        files = self.report_files.get(r.id)
        if files is None or files[0] != r.sha256:
            files = self.report_files[r.id] = (r.sha256, rp.files())
        made.files = files[1]
        self.report_whole[r.id] = (deps, made)
        return made

    def render(self, page: Page, site: str, site_nav: list[dict[str, str]], asset_urls: dict[str, str],
               cache: bool) -> bytes:
        deps = self.page_deps(page, site)
        cached = self.rendered.get(page.url)
        if cache and cached and cached[0] is page and self.records.get(page.url) == deps:
            return cached[1]
        html = render_page(page, self.config, site_nav, asset_urls)
        self.stats["rendered"] = self.stats.get("rendered", 0) + 1
        self.rendered[page.url] = (page, html)
        self.records.record(page.url, deps)
        return html

    def seed(self, page: Page, site: str, html: bytes) -> None:
        """Gives the render cache a page's HTML made by an earlier build from what `page` is made from."""
        self.rendered[page.url] = (page, html)
        self.records.record(page.url, self.page_deps(page, site))

    def report_made(self, a: Analysis, nav: list[dict[str, str]], asset_urls: dict[str, str]) -> tuple:
        """A report's pages made and rendered (a worker's share), as `adopt` takes them back."""
        made = self.report_pages(a, nav)
        site = self.site_hash(nav, asset_urls)
        for page in made.pages:
            self.render(page, site, nav, asset_urls, cache=False)
        rid = a.report.id
        return ({k: v for k, v in self.pages.items() if k[0] == rid}, self.report_files[rid],
                {p.url: (self.rendered[p.url], self.records.get(p.url)) for p in made.pages}, self.report_whole[rid])

    def adopt(self, items: list[tuple]) -> None:
        """Keeps what the workers made, as if this store had made it: each report's record (its
        receipt loaded again only if need be), its files or pages, and a light analysis sent back."""
        for folder, loaded, made, light in items:
            self.reports.loaded[folder] = loaded
            rid = loaded.record.id
            if light is not None:  # for the docs pages: kept as a published report's is
                self.reports.keep(light)
                self.kept.add(rid)
            if isinstance(made, Streamed):
                self.streamed[rid] = made
                continue
            pages, files, rendered, whole = made
            self.pages.update(pages)
            self.report_files[rid] = files
            self.report_whole[rid] = whole  # kept while its links are those it was made with
            for url, (html, deps) in rendered.items():
                self.rendered[url] = html
                self.records.record(url, deps)

    # -- the site-wide pages ------------------------------------------------------------------
    def history_page(self, records: list[ReportRecord], receipts: Dependencies) -> Page:
        """The history page; its context is remade only when some receipt changed."""
        if self.history is None or self.history[0] != receipts:
            ctx = history_view.context(records, self.config.noise_band, self.config.ratio_scale, report_url,
                                       self.history_rows, self.history_memo)
            self.history = (receipts, history_shell(receipts, context=as_context(HistoryContext(ctx))))
        return self.history[1]

    def history_key(self, records: list[ReportRecord], site: str) -> str:
        """The persistent store's name for the history page's HTML: what its context is made from
        (render/history.py `made_from`), its template closure and the site's part. Found without
        pandas: a build whose edits leave the page as it was never loads it (~0.3 s of a build of a
        thousand reports with one changed)."""
        c = self.config
        return content_hash(encoded((history_view.made_from(records), c.noise_band, list(c.ratio_scale),
                                     self.templates.record("history.html")[0], site)))

    def docs_for(self, records: list[ReportRecord]) -> DocsPages:
        """docs_dir's pages, found and read again when docs, the set of reports or a template changed;
        each page remade only when it or a report it draws on changed (see DocsPages.pages)."""
        ids = content_hash(repr(sorted(r.id for r in records)) + f":{self.docs_gen}")
        deps = Dependencies(docs=tree_stamp(self.config.docs_dir), templates=self.templates.record("*")[0], site=ids)
        if self.docs is None or self.docs[0] != deps:
            self.docs = (deps, DocsPages(self.config, records, self.reports.analysis_of), None)
            self.docs_pages = {}
        docs = self.docs[1]
        docs.records = records
        return docs

    # -- after a build ------------------------------------------------------------------------
    def forget(self, records: list[ReportRecord], files: dict[str, bytes]) -> None:
        """Forgets what no longer exists (a deleted or renamed report, a section gone). The reports'
        caches are swept only when the set of reports changed (at a thousand reports each sweep
        walks tens of thousands of entries: most of a preview edit's time)."""
        ids = {r.id for r in records}
        gone = [url for url in self.rendered if url not in files]
        for url in gone:
            del self.rendered[url]
        if ids == self.ids:
            self.records.forget(gone)
            return
        self.ids = ids
        self.reports.forget(ids)
        for cache in (self.report_files, self.report_whole, self.report_done):
            for rid in set(cache) - ids:
                del cache[rid]
        for k in [k for k in self.pages if k[0] not in ids]:
            del self.pages[k]
        self.records.forget({*gone, *(o for o in self.records.outputs() if o.startswith("report:") and o[7:] not in ids)})
