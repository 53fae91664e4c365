"""One `Builder.build()`: the steps that make the site's files, and what they share while it runs.

Each report's files are taken whole while its record holds, else made again (or, publishing,
written straight out); then the site-wide pages (home, history, docs), the rendering of every page
made in this build, and the files that follow from all of them (404, sitemap, share cards).
"""
from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Callable, Iterable

from site_gen.build.environment import ReportRecord
from site_gen.build.workers import lighten, write_report
from site_gen.build.dependencies import Dependencies, content_hash
from site_gen.build.manifest import file_and_folder
from site_gen.core import collector
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.render import dashboard, publish
from site_gen.render.contexts import HomeContext, as_context
from site_gen.render.docs import DocsPages
from site_gen.render.pages import Page
from site_gen.render.where import HISTORY_URL, REPORTS_DIR, report_base

if TYPE_CHECKING:
    from site_gen.build.builder import Builder
    from site_gen.build.results import Made


def history_shell(receipts: Dependencies, context: dict | None = None, charts: bool = False) -> Page:
    """The History page as the site places it: its context made by the builder, or its HTML taken
    from the store (`SiteBuild.home_and_history`)."""
    page = Page(url=HISTORY_URL, title="History", template="history.html", context=context or {}, charts=charts)
    page.deps = receipts
    return page


class SiteBuild:
    """One `Builder.build()`: the site's files as they are made, and the state the steps share."""

    def __init__(self, builder: Builder, records: list[ReportRecord], site_nav: list[dict], assets: dict, out,
                 early: tuple[Callable[[], Iterable[str]], Callable[[dict[str, bytes]], None]] | None = None):
        self.b, self.records, self.site_nav, self.assets, self.out = builder, records, site_nav, assets, out
        # The preview's (open_pages, show): the open pages this build remakes are shown as soon as they are made.
        self.open = set(early[0]()) if early else set()
        self.show = early[1] if early else None
        self.shown: set[str] = set()
        # The reports with a page open in the preview, when this build shows pages early.
        self._open_reports = {url.split("/")[1] for url in self.open if url.startswith(f"{REPORTS_DIR}/")
                              and url.count("/") >= 2} if self.show is not None and out is None else set()
        self.asset_urls = {k: v[0] for k, v in assets.items()}
        self.site = builder.site_hash(site_nav, self.asset_urls)
        self.receipts = Dependencies(receipts=tuple((r.id, r.sha256) for r in records))
        self.files: dict[str, bytes] = {}
        self.warnings: list[str] = []
        self.pages: list[Page] = []
        self.cached: set[int] = set()   # ids of pages that may be taken from the render cache
        self.written: set[str] = set()  # files already in `out`
        self.docs_names: list[str] = []  # the docs' pages and files (`docs_pages`)
        self.charts = False
        self.remade: list[tuple[str, Made]] = []  # reports whose files were made (or looked at) in this build
        self._later: list[tuple[ReportRecord, int]] = []  # (a report left for `_linked`, where its warnings go)
        self._templates_current: dict[tuple, bool] = {}  # a record's templates -> whether each is unchanged
        self.history_key: str | None = None  # the store's name for the history page (`home_and_history`)
        self.history_made: Page | None = None  # the history page when made here, to keep under that name

    def run(self, docs: DocsPages) -> None:
        """The build's steps in order. The reports the workers are still making again with their
        links (workers.Pending) are taken once the site-wide pages are made, which this process
        makes meanwhile: in the example, ~0.07 s of its time against the 0.07 s of that second round."""
        pending, self.b.pending = self.b.pending, None
        try:
            self.reports(later=set(pending.ids) if pending is not None else set())
            self.home_and_history()
            self.early(docs)
            self.docs_pages(docs)
            if pending is not None:
                self._linked(pending.wait())
        except SitegenError:
            if pending is not None:
                pending.wait()  # a report's own error first, as one process says it (it makes them first)
            raise
        finally:
            if pending is not None:
                pending.close()
        self.render()
        self.extra()

    def _linked(self, items: list[tuple]) -> None:
        """The reports a second round made again (their links known), each with its warnings in
        its place in folder order."""
        self.b._adopt(items)
        for r, at in reversed(self._later):
            before = len(self.warnings)
            self._stream(r)
            added = self.warnings[before:]
            del self.warnings[before:]
            self.warnings[at:at] = added
            if r.id not in self.b.kept:
                self.b.store.drop(r.id)

    def reports(self, later: set[str] = frozenset()) -> None:
        """Each report's own files: taken whole when nothing they are made from changed. `later`:
        reports (written out by a one-shot build) left for `_linked`."""
        # The preview's open pages first: a report with an open page is remade (and that page shown)
        # before the others are looked at (at a thousand reports, walking the records before it took
        # ~20 ms). The rest is done in folder order as always, so the site is the same.
        first = {r.id: self._make(r) for r in self.records if r.id in self._open_reports and self._reusable(r) is None}
        # One count a step, never back: where workers made the reports (their "reports" count is done),
        # this loop takes their files, a step of its own; it ends at its total.
        what = "files" if self.b.prefilled else "reports"
        for i, r in enumerate(self.records):
            if i % 10 == 0:
                self.b.step(what, i, len(self.records))
            self.warnings.extend(r.warnings)
            if self.out is not None and r.id in later:
                self._later.append((r, len(self.warnings)))
            elif self.out is not None:
                self._stream(r)
                if r.id not in self.b.kept:  # written out: the record is all the rest of the build needs
                    self.b.store.drop(r.id)
            elif r.id in first or not self._reuse(r):
                a, made = first.pop(r.id, None) or self._make(r)
                self.pages.extend(made.pages)
                self.cached.update(id(p) for p in made.pages)
                self.files.update(made.files)
                self.warnings.extend(made.warnings)
                self.remade.append((r.id, made))
                if a is not None and a.report.raw:  # analysed and published: keep the analysis, drop the records
                    self.b.store.keep(lighten(a))
            collector.between()  # what this report's work left in cycles (core/collector.py)
        if self.records:
            self.b.step(what, len(self.records), len(self.records))

    def _reusable(self, r: ReportRecord) -> tuple | None:
        """A report's files, warnings and charts flag as last made, if its record still holds."""
        recorded, done = self.b.records.get(f"report:{r.id}"), self.b.report_done.get(r.id)
        if recorded is None or done is None:
            return None
        now = self.b.report_deps(r)
        if (now.receipts, now.ledes, now.links, self.site) != (recorded.receipts, recorded.ledes, recorded.links, recorded.site):
            return None
        # Whether its templates are as they were: asked once per build for each set of them (a
        # thousand reports share a few).
        current = self._templates_current.get(recorded.templates)
        if current is None:
            current = all(self.b.templates.hash(name) == h for name, h in recorded.templates)
            self._templates_current[recorded.templates] = current
        return done if current else None

    def _make(self, r: ReportRecord) -> tuple:
        """(analysis or None, made): a report's pages made again, its open ones shown first. Pages a
        forked worker made from what they are still made from need no analysis here."""
        a, made = None, self._unchanged_pages(r)
        if made is None:
            a = self.b.store.analysis_of(r.id)
            self._first(a)
            made = self.b.report_pages(a, self.site_nav)
        return a, made

    def _unchanged_pages(self, r: ReportRecord) -> Made | None:
        """A report's pages and files as last made (here, or by a worker), if still current: no analysis needed."""
        whole = self.b._report_whole.get(r.id)
        return whole[1] if whole is not None and whole[0] == self.b.report_deps(r) else None

    def _stream(self, r: ReportRecord) -> None:
        made = self.b.streamed.pop(r.id, None)
        related = self.b.related.get(r.id)
        # What a worker wrote with other links than this build found (none, say) is written again.
        if made is None or made.sha256 != r.sha256 or made.related != related:
            made = write_report(self.b, r, self.site_nav, self.asset_urls, self.out, related)
        self.written.update(made.names)
        self.out.hashes.update(made.hashes)  # a worker's files: written there, hashed there
        self.out.stats.update(made.stats)
        self.warnings.extend(made.warnings)
        self.charts |= made.charts

    def _reuse(self, r: ReportRecord) -> bool:
        """Takes a report's files whole if its record still holds, without even looking at its pages
        (a thousand reports are nine thousand pages)."""
        done = self._reusable(r)
        if done is None:
            return False
        self.files.update(done[0])
        self.warnings.extend(done[1])
        self.charts |= done[2]
        return True

    def _first(self, a) -> None:
        """A remade report's open pages, made (their contexts kept for `report_pages`) and shown
        before its other pages: the overview of a report whose receipt was just saved, say."""
        wanted = {url for url in self.open if url.startswith(report_base(a.report.id))}
        if wanted and self.show is not None:
            self._show(self.b.report_pages(a, self.site_nav, only=wanted).pages)

    def _show(self, pages: list[Page]) -> None:
        """Renders `pages` now and hands them to the preview; `render()` then takes them from the
        render cache (the same page objects, the same records): the same bytes, rendered once."""
        pages = [page for page in pages if page.url not in self.shown]
        if pages and self.show is not None:
            self.cached.update(id(page) for page in pages)
            self.shown.update(page.url for page in pages)
            self.show({page.url: self.b.render(page, self.site, self.site_nav, self.asset_urls, cache=True)
                       for page in pages})

    def early(self, docs: DocsPages) -> None:
        """The open pages made so far (the home and history pages too) shown before the docs pages
        are expanded and the rest rendered."""
        made = self.pages if docs.has_home else [*self.pages, self.b.home[1]]
        self._show([page for page in made if page.url in self.open])

    def home_and_history(self) -> None:
        """The home page (docs/index.md's blocks may show its dashboard) and the history page."""
        b = self.b
        # Both made again only when some receipt (or the rows' macro) changed: the same page object
        # is then rendered from the render cache (at a thousand reports, ~50 ms of every preview rebuild).
        made_from = (self.receipts, b.templates.record("_macros.html")[0])
        if b.home is None or b.home[0] != made_from:
            home = Page(url="index.html", title=b.config.site_name, template="home.html",
                        context=as_context(HomeContext(dashboard.split(b.dashboard_rows(self.records)))))
            home.deps = self.receipts
            b.home = (made_from, home)
        if len(self.records) > 1:
            # Publishing with the store on: the page's HTML as an earlier build made it from the same
            # rows, given to the render cache (so it is placed, and checked against the docs, as if made).
            self.history_key = b.history_key(self.records, self.site) if self.out is not None and b.persist.on else None
            stored = b.persist.page(self.history_key) if self.history_key else None
            if stored is not None:
                history = history_shell(self.receipts, charts=stored[1])
                b.seed(history, self.site, stored[0])
            else:
                history = b.history_page(self.records, self.receipts)
                self.history_made = history if self.history_key else None
            self.pages.append(history)
            self.cached.add(id(history))

    def docs_pages(self, docs: DocsPages) -> None:
        """The docs pages and files (docs/index.md, when there is one, is the home page)."""
        b = self.b
        if b.docs[2] is None:
            b.docs = (b.docs[0], docs, docs.files())
        docs.warnings = []
        docs_pages, docs_files = docs.pages(b.home[1], b.docs_pages), b.docs[2]
        # Checked against the site's folders (`extra`); the generated home page, in the list when docs
        # has no index.md, is the site's fixed layout.
        self.docs_names = [p.url for p in docs_pages if p is not b.home[1]] + list(docs_files)
        self.pages.extend(docs_pages)  # docs/index.md, when there is one, is the home page
        self.cached.update(id(p) for p in docs_pages)
        self.files.update(docs_files)
        self.warnings.extend(docs.warnings)
        for page in self.pages:  # a generated page wins over a docs file of its name: say so
            if page.url in docs_files:
                self.warnings.append(Diagnostic(f"is dropped: the page '{page.title}' is generated as {page.url}; "
                                                "rename the file", docs.static[page.url]))

    def render(self) -> None:
        b = self.b
        for n, page in enumerate(self.pages, 1):
            self.files[page.url] = b.render(page, self.site, self.site_nav, self.asset_urls,
                                             cache=id(page) in self.cached)
            self.charts |= page.charts
            if page is self.history_made:  # made in this build, under `history_key`
                b.persist.put_page(self.history_key, self.files[page.url], page.charts)
            if n % 50 == 0 or n == len(self.pages):
                b.step("pages", n, len(self.pages))
            collector.between()
        for rid, made in self.remade:
            html = {p.url: self.files[p.url] for p in made.pages}
            b.report_done[rid] = ({**made.files, **html}, made.warnings, any(p.charts for p in made.pages))
            # The report's record: everything its pages were made from.
            b.records.record(f"report:{rid}", functools.reduce(operator.or_, (b.records.get(p.url) for p in made.pages),
                                                              Dependencies(site=self.site)))
        for key, (path, data) in self.assets.items():
            if key not in ("plotly", "plotly_charts") or self.charts:
                self.files[path] = data

    def extra(self) -> None:
        """404.html and sitemap.xml: their file names follow from the reports, docs pages and
        templates, so they are remade only when one of those changed."""
        b = self.b
        names = set(self.files).union(self.written)
        deps = Dependencies(self.receipts.receipts, (), b.templates.record("*")[0], b.docs[0].docs,
                            content_hash(f"{b.docs[0].site}:{len(names)}"))
        if b.extra_files is None or b.extra_files[0] != deps:
            b.extra_files = (deps, publish.extra_files(b.config, self.records, names))
        self.files.update(b.extra_files[1])
        names.update(b.extra_files[1])  # every name of the site
        # The docs' pages and files (what the build generates never clashes, a fixed layout): none may
        # need another name as a folder, nor lie in one. Only those are looked at: a preview edit at
        # a thousand reports would otherwise go through 20,000 names.
        clash = file_and_folder(names, self.docs_names)
        if clash is not None:
            raise SitegenError(f"the site would hold both a file and a folder named {clash[0]} ({clash[1]} lies in it); "
                               "rename the docs file that makes one of them", b.config.docs_dir)
        if self.out is not None:
            self.out.write(self.files)
            self.written.update(self.files)
