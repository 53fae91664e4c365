"""The site-pages stage of a build (builder.py `build_site`): the site's files made from the build
context (context.py), and the write stage that puts them in `out`.

Each report's files are taken whole while its record holds, else made again (or, publishing,
written straight out); then the site-wide pages (home, history, docs), the rendering of every page
made in this build, and the files that follow from all of them (404, sitemap, share cards). Every
step reads the context and adds to the stage's output (`SiteFiles`); what is kept for the next
build goes in the context's store.
"""
from __future__ import annotations

import functools
import operator
from collections.abc import Collection

from site_gen.building.buildstore import history_shell
from site_gen.building.context import BuildContext, SiteFiles
from site_gen.building.dependencies import Dependencies, content_hash
from site_gen.building.environment import ReportRecord
from site_gen.building.manifest import file_and_folder
from site_gen.building.workers import Pending, lighten, write_report
from site_gen.core import collector
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.render import dashboard, publish
from site_gen.render.contexts import HomeContext, as_context
from site_gen.render.docs import DocsPages
from site_gen.render.pages import Page
from site_gen.render.where import report_base


def site_pages(ctx: BuildContext, docs: DocsPages, pending: Pending | None) -> SiteFiles:
    """The site's files, in order: each report's, the home and History pages, the open pages shown
    early, the docs pages; then every page rendered, and 404 and sitemap. The reports the workers
    are still making again with their links (workers.Pending) are taken once the site-wide pages are
    made, which this process makes meanwhile: in the example, ~0.07 s of its time against the
    0.07 s of that second round. The pool is stopped whatever happens."""
    site = SiteFiles()
    try:
        report_files(ctx, site, later=set(pending.ids) if pending is not None else set())
        home_and_history(ctx, site)
        show_early(ctx, site, docs)
        docs_pages(ctx, site, docs)
        if pending is not None:
            linked(ctx, site, pending.wait())
    except SitegenError:
        if pending is not None:
            pending.wait()  # a report's own error first, as one process says it (it makes them first)
        raise
    finally:
        if pending is not None:
            pending.close()
    render(ctx, site)
    extra(ctx, site)
    return site


def write(ctx: BuildContext, site: SiteFiles) -> None:
    """The write stage of a one-shot build: the site-wide files into `out` (each report's went there
    as it was made); the swap into place is the caller's (builder.py `build`)."""
    if ctx.out is not None:
        ctx.out.write(site.files)
        site.written.update(site.files)


def linked(ctx: BuildContext, site: SiteFiles, items: list[tuple]) -> None:
    """The reports a second round made again (their links known), each with its warnings in its
    place in folder order."""
    ctx.store.adopt(items)
    for r, at in reversed(site.later):
        before = len(site.warnings)
        stream(ctx, site, r)
        added = site.warnings[before:]
        del site.warnings[before:]
        site.warnings[at:at] = added
        if r.id not in ctx.store.kept:
            ctx.store.reports.drop(r.id)


def report_files(ctx: BuildContext, site: SiteFiles, later: Collection[str] = frozenset()) -> None:
    """Each report's own files: taken whole when nothing they are made from changed. `later`:
    reports (written out by a one-shot build) left for `linked`."""
    store = ctx.store
    # The preview's open pages first: a report with an open page is remade (and that page shown)
    # before the others are looked at (at a thousand reports, walking the records before it took
    # ~20 ms). The rest is done in folder order as always, so the site is the same.
    first = {r.id: make(ctx, site, r) for r in ctx.records if r.id in ctx.open_reports and reusable(ctx, site, r) is None}
    # One count a step, never back: where workers made the reports (their "reports" count is done),
    # this loop takes their files, a step of its own; it ends at its total.
    what = "files" if ctx.prefilled else "reports"
    for i, r in enumerate(ctx.records):
        if i % 10 == 0:
            ctx.step(what, i, len(ctx.records))
        site.warnings.extend(r.warnings)
        if ctx.out is not None and r.id in later:
            site.later.append((r, len(site.warnings)))
        elif ctx.out is not None:
            stream(ctx, site, r)
            if r.id not in store.kept:  # written out: the record is all the rest of the build needs
                store.reports.drop(r.id)
        elif r.id in first or not reuse(ctx, site, r):
            a, made = first.pop(r.id, None) or make(ctx, site, r)
            site.pages.extend(made.pages)
            site.cached.update(id(p) for p in made.pages)
            site.files.update(made.files)
            site.warnings.extend(made.warnings)
            site.remade.append((r.id, made))
            if a is not None and a.report.raw:  # analysed and published: keep the analysis, drop the records
                store.reports.keep(lighten(a))
        collector.between()  # what this report's work left in cycles (core/collector.py)
    if ctx.records:
        ctx.step(what, len(ctx.records), len(ctx.records))


def reusable(ctx: BuildContext, site: SiteFiles, r: ReportRecord) -> tuple | None:
    """A report's files, warnings and charts flag as last made, if its record still holds."""
    store = ctx.store
    recorded, done = store.records.get(f"report:{r.id}"), store.report_done.get(r.id)
    if recorded is None or done is None:
        return None
    now = store.report_deps(r)
    if (now.receipts, now.ledes, now.links, ctx.site) != (recorded.receipts, recorded.ledes, recorded.links, recorded.site):
        return None
    # Whether its templates are as they were: asked once per build for each set of them (a
    # thousand reports share a few).
    current = site.templates_current.get(recorded.templates)
    if current is None:
        current = all(store.templates.hash(name) == h for name, h in recorded.templates)
        site.templates_current[recorded.templates] = current
    return done if current else None


def make(ctx: BuildContext, site: SiteFiles, r: ReportRecord) -> tuple:
    """(analysis or None, made): a report's pages made again, its open ones shown first. Pages a
    forked worker made from what they are still made from need no analysis here."""
    a, made = None, ctx.store.unchanged_pages(r)
    if made is None:
        a = ctx.store.reports.analysis_of(r.id)
        show_first(ctx, site, a)
        made = ctx.store.report_pages(a, ctx.nav)
    return a, made


def stream(ctx: BuildContext, site: SiteFiles, r: ReportRecord) -> None:
    """A report's files written to `out`: as a worker wrote them, when made with the links this
    build found, else made and written now."""
    assert ctx.out is not None
    made = ctx.store.streamed.pop(r.id, None)
    related = ctx.store.related.get(r.id)
    # What a worker wrote with other links than this build found (none, say) is written again.
    if made is None or made.sha256 != r.sha256 or made.related != related:
        made = write_report(ctx.store, r, ctx.nav, ctx.asset_urls, ctx.out, related)
    site.written.update(made.names)
    ctx.out.hashes.update(made.hashes)  # a worker's files: written there, hashed there
    ctx.out.stats.update(made.stats)
    site.warnings.extend(made.warnings)
    site.charts |= made.charts


def reuse(ctx: BuildContext, site: SiteFiles, r: ReportRecord) -> bool:
    """Takes a report's files whole if its record still holds, without even looking at its pages
    (a thousand reports are nine thousand pages)."""
    done = reusable(ctx, site, r)
    if done is None:
        return False
    site.files.update(done[0])
    site.warnings.extend(done[1])
    site.charts |= done[2]
    return True


def show_first(ctx: BuildContext, site: SiteFiles, a) -> None:
    """A remade report's open pages, made (their contexts kept for `report_pages`) and shown
    before its other pages: the overview of a report whose receipt was just saved, say."""
    wanted = {url for url in ctx.open if url.startswith(report_base(a.report.id))}
    if wanted and ctx.show is not None:
        show(ctx, site, ctx.store.report_pages(a, ctx.nav, only=wanted).pages)


def show(ctx: BuildContext, site: SiteFiles, pages: list[Page]) -> None:
    """Renders `pages` now and hands them to the preview; `render()` then takes them from the
    render cache (the same page objects, the same records): the same bytes, rendered once."""
    pages = [page for page in pages if page.url not in site.shown]
    if pages and ctx.show is not None:
        site.cached.update(id(page) for page in pages)
        site.shown.update(page.url for page in pages)
        ctx.show({page.url: ctx.store.render(page, ctx.site, ctx.nav, ctx.asset_urls, cache=True) for page in pages})


def show_early(ctx: BuildContext, site: SiteFiles, docs: DocsPages) -> None:
    """The open pages made so far (the home and history pages too) shown before the docs pages
    are expanded and the rest rendered."""
    home = ctx.store.home
    assert home is not None
    made = site.pages if docs.has_home else [*site.pages, home[1]]
    show(ctx, site, [page for page in made if page.url in ctx.open])


def home_and_history(ctx: BuildContext, site: SiteFiles) -> None:
    """The home page (docs/index.md's blocks may show its dashboard) and the history page."""
    store = ctx.store
    # Both made again only when some receipt (or the rows' macro) changed: the same page object
    # is then rendered from the render cache (at a thousand reports, ~50 ms of every preview rebuild).
    made_from = (ctx.receipts, store.templates.record("_macros.html")[0])
    if store.home is None or store.home[0] != made_from:
        home = Page(url="index.html", title=ctx.config.site_name, template="home.html",
                    context=as_context(HomeContext(dashboard.split(store.dashboard_rows(ctx.records)))))
        home.deps = ctx.receipts
        store.home = (made_from, home)
    if len(ctx.records) > 1:
        # Publishing with the store on: the page's HTML as an earlier build made it from the same
        # rows, given to the render cache (so it is placed, and checked against the docs, as if made).
        site.history_key = store.history_key(ctx.records, ctx.site) if ctx.out is not None and store.persist.on else None
        stored = store.persist.page(site.history_key) if site.history_key else None
        if stored is not None:
            history = history_shell(ctx.receipts, charts=stored[1])
            store.seed(history, ctx.site, stored[0])
        else:
            history = store.history_page(ctx.records, ctx.receipts)
            site.history_made = history if site.history_key else None
        site.pages.append(history)
        site.cached.add(id(history))


def docs_pages(ctx: BuildContext, site: SiteFiles, docs: DocsPages) -> None:
    """The docs pages and files (docs/index.md, when there is one, is the home page)."""
    store = ctx.store
    assert store.docs is not None and store.home is not None
    if store.docs[2] is None:
        store.docs = (store.docs[0], docs, docs.files())
    docs.warnings = []
    home = store.home[1]
    docs_pages, docs_files = docs.pages(home, store.docs_pages), store.docs[2]
    assert docs_files is not None
    # Checked against the site's folders (`extra`); the generated home page, in the list when docs
    # has no index.md, is the site's fixed layout.
    site.docs_names = [p.url for p in docs_pages if p is not home] + list(docs_files)
    site.pages.extend(docs_pages)  # docs/index.md, when there is one, is the home page
    site.cached.update(id(p) for p in docs_pages)
    site.files.update(docs_files)
    site.warnings.extend(docs.warnings)
    for page in site.pages:  # a generated page wins over a docs file of its name: say so
        if page.url in docs_files:
            site.warnings.append(Diagnostic(f"is dropped: the page '{page.title}' is generated as {page.url}; "
                                            "rename the file", docs.static[page.url]))


def render(ctx: BuildContext, site: SiteFiles) -> None:
    """Every page of this build rendered (from the render cache where it may), and each remade
    report's record of what its files were made from."""
    store = ctx.store
    for n, page in enumerate(site.pages, 1):
        site.files[page.url] = store.render(page, ctx.site, ctx.nav, ctx.asset_urls, cache=id(page) in site.cached)
        site.charts |= page.charts
        if page is site.history_made and site.history_key:  # made in this build, under `history_key`
            store.persist.put_page(site.history_key, site.files[page.url], page.charts)
        if n % 50 == 0 or n == len(site.pages):
            ctx.step("pages", n, len(site.pages))
        collector.between()
    for rid, made in site.remade:
        html = {p.url: site.files[p.url] for p in made.pages}
        store.report_done[rid] = ({**made.files, **html}, made.warnings, any(p.charts for p in made.pages))
        # The report's record: everything its pages were made from.
        store.records.record(f"report:{rid}", functools.reduce(operator.or_, (store.records.get(p.url) for p in made.pages),
                                                               Dependencies(site=ctx.site)))
    for key, (path, data) in ctx.assets.items():
        if key not in ("plotly", "plotly_charts") or site.charts:
            site.files[path] = data


def extra(ctx: BuildContext, site: SiteFiles) -> None:
    """404.html and sitemap.xml: their file names follow from the reports, docs pages and
    templates, so they are remade only when one of those changed."""
    store = ctx.store
    assert store.docs is not None
    names = set(site.files).union(site.written)
    deps = Dependencies(ctx.receipts.receipts, (), store.templates.record("*")[0], store.docs[0].docs,
                        content_hash(f"{store.docs[0].site}:{len(names)}"))
    if store.extra_files is None or store.extra_files[0] != deps:
        store.extra_files = (deps, publish.extra_files(ctx.config, ctx.records, names))
    site.files.update(store.extra_files[1])
    names.update(store.extra_files[1])  # every name of the site
    # The docs' pages and files (what the build generates never clashes, a fixed layout): none may
    # need another name as a folder, nor lie in one. Only those are looked at: a preview edit at
    # a thousand reports would otherwise go through 20,000 names.
    clash = file_and_folder(names, site.docs_names)
    if clash is not None:
        raise SitegenError(f"the site would hold both a file and a folder named {clash[0]} ({clash[1]} lies in it); "
                           "rename the docs file that makes one of them", ctx.config.docs_dir)

