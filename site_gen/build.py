"""The pipeline: load -> analyse -> render -> files. Front ends (CLI, preview, MkDocs) call this."""
from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
import signal
import time
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta

from site_gen.analyse import history as history_rows
from site_gen.analyse.report import Analysis, analyse
from site_gen.assembly import history_nav, report_nav, report_url, settle
from site_gen.config import Config
from site_gen.errors import SitegenError, shown_path
from site_gen.load import SUMMARY, Report, load_report, load_reports, read_lede, report_folders
from site_gen.render import dashboard, publish
from site_gen.render import history as history_view
from site_gen.render.docs import DocsPages
from site_gen.sections import all_sections
from site_gen.render.pages import Page, ReportPages, all_pages, environment, render_page, theme_dir
from site_gen.write import Staging, check_site_dir


@dataclass
class BuildResult:
    files: dict[str, bytes]
    pages: int
    reports: int
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


@lru_cache(maxsize=1)
def plotly_js() -> bytes:
    """Plotly's full bundle as the plotly package ships it (used only with `charts: plotly`)."""
    return resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


def _asset(name: str, data: bytes) -> tuple[str, bytes]:
    stem, dot, ext = name.rpartition(".")
    return f"assets/{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{ext}", data


def theme_assets(config: Config) -> dict[str, tuple[str, bytes]]:
    """Stylesheet and script of the theme (a user's custom_dir may override either)."""
    out = {}
    chart_script = ("plotly_charts", "plotly-charts.js") if config.charts == "plotly" else ("js", "sitegen.js")
    names = [("css", "sitegen.css"), chart_script, ("dashboard", "dashboard.js"), ("page", "page.js")]
    for key, name in names:
        path = theme_dir("static") / name
        if config.custom_dir and (config.custom_dir / name).is_file():
            path = config.custom_dir / name
        out[key] = _asset(name, path.read_bytes())
    if config.charts == "plotly":
        # Plotly's own bundle from the plotly package, served from the site (never a CDN).
        import plotly

        out["plotly"] = (f"assets/plotly-{plotly.__version__}.min.js", plotly_js())
    return out


def _stamp(folder: Path) -> tuple:
    """Names, sizes and modification times of a report folder's files: a changed receipt or prose file changes it."""
    out = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ()
    for entry in entries:
        try:
            st = entry.stat()
        except OSError:
            continue
        out.append((entry.name, st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(out)


def _has_links(folder: Path) -> bool:
    """Whether a report folder is, or holds, a symbolic link."""
    if os.path.islink(folder):
        return True
    try:
        with os.scandir(folder) as entries:
            return any(e.is_symlink() for e in entries)
    except OSError:
        return False


@dataclass
class _Loaded:
    report: Report
    stamp: tuple
    summary: tuple  # the SUMMARY.json part of `stamp`


@dataclass
class _Rendered:
    page: Page
    key: tuple
    html: bytes


class Builder:
    """`build_files` that remembers what it computed, for the live preview.

    Loaded receipts, analyses, page contexts and rendered HTML are kept and reused until something
    they were made from changes, so a rebuild after one edit redoes only what that edit touched:
    a receipt reloads and re-renders its own report (plus the dashboard), a report's prose file
    re-renders its overview, a template re-renders the pages that use it. Every `build()` still
    returns the whole site, the same bytes a fresh `build_files` gives.
    """

    def __init__(self, config: Config, *, strict: bool = False, progress=None, watched: bool = False):
        self.config = config
        self.strict = strict
        self.progress = progress  # progress(what, done, total), e.g. a terminal progress bar
        # Watched (the preview): every change under data_dir is reported through `changed()`, so a
        # rebuild looks only at the report folders it names instead of every folder of the site.
        self.watched = watched
        self._folders: list[Path] | None = None  # report folders as last listed
        self._linked: set[Path] = set()           # ... those that are, or hold, a symbolic link
        self._rescan = True
        self._loaded: dict[Path, _Loaded] = {}
        self._reload: set[Path] = set()      # report folders whose SUMMARY.json changed
        self._reprose: set[Path] = set()     # report folders where another file changed
        self._analyses: dict[str, tuple[str, Analysis]] = {}  # report id -> (sha256, analysis)
        self._pages: dict[tuple[str, str], tuple[tuple, Page, list[str]]] = {}
        self._report_files: dict[str, tuple[str, dict[str, bytes]]] = {}
        self._rendered: dict[str, _Rendered] = {}
        self._template_gen: dict[str, int] = {}
        self._closures: dict[str, tuple[str, ...]] = {}
        self._any_template = 0
        self._docs_gen = 0  # bumped when a file under docs_dir changes
        self._docs: tuple | None = None    # (key, DocsPages, its static files or None)
        self._docs_pages: dict = {}        # DocsPages.pages' cache
        self._extra: tuple | None = None   # (key, publishing files)
        self.stats: dict[str, int] = {}
        self._rows: dict[tuple[str, str], dict] = {}
        self._row_macro: tuple | None = None      # (generation of _macros.html, its dashboard_row macro)
        self._row_html: dict[tuple[str, str], Any] = {}
        self._history: tuple | None = None
        self._history_rows: dict = {}
        self._key_base: tuple | None = None       # (ids of nav and assets, their reprs, the objects kept alive)
        self._template_keys: dict[str, tuple] = {}  # template -> generations of it and what it uses
        self._report_whole: dict[str, tuple] = {}  # report id -> ((sha256, lede), (pages, files, warnings))
        self._streamed: dict[str, _Streamed] = {}  # report id -> what a worker wrote for it (one-shot builds)
        self._report_done: dict[str, tuple] = {}  # report id -> (key, every file of it, warnings, draws charts)

    # -- what changed -------------------------------------------------------------------------
    def template_roots(self) -> list[Path]:
        return ([self.config.custom_dir] if self.config.custom_dir else []) + [theme_dir("templates")]

    def changed(self, paths) -> None:
        """Marks files as changed (the preview's watcher calls this); the next `build()` rereads them.

        Changes are also noticed without it, from file sizes and times, but a second save within
        the file system's timestamp granularity can look unchanged: the watcher's word settles it.
        """
        data = self.config.data_dir.resolve()
        docs = self.config.docs_dir.resolve()
        roots = [r.resolve() for r in self.template_roots()]
        templates: set[str] = set()
        for path in paths:
            path = Path(os.path.realpath(path))  # not resolve(): a path in a symlink loop raises there
            if data == path:
                self._rescan = True
                continue
            if data in path.parents:
                parts = path.relative_to(data).parts
                folder = self.config.data_dir / parts[0]
                (self._reload if len(parts) == 1 or parts[1] == SUMMARY else self._reprose).add(folder)
                continue
            if docs == path or docs in path.parents:
                self._docs_gen += 1
            for root in roots:
                if root in path.parents:
                    name = path.relative_to(root).as_posix()
                    self._template_gen[name] = self._template_gen.get(name, 0) + 1
                    templates.add(name)
                    break
        if templates:
            self._any_template += 1
            self._template_keys = {}
            self._closures = {k: v for k, v in self._closures.items() if not templates & set(v)}
            # Drop the changed templates from jinja's cache (the others stay compiled): its own
            # check of modification times can miss a save within the timestamp granularity.
            env = environment(str(self.config.custom_dir) if self.config.custom_dir else None)
            if env.cache is not None:
                for key in list(env.cache.keys()):
                    if isinstance(key, tuple) and key[-1] in templates:
                        del env.cache[key]

    # -- the steps, each cached ---------------------------------------------------------------
    def _report_folders(self) -> tuple[list[Path], set[Path] | None]:
        """The report folders, and which of them may have changed (None: any of them)."""
        if not self.watched or self._folders is None or self._rescan:
            self._rescan = False
            self._folders = report_folders(self.config.data_dir)
            self._linked = {f for f in self._folders if _has_links(f)}
            return self._folders, None
        named = self._reload | self._reprose
        listed = set(self._folders)
        for folder in named:
            # A folder the watcher named may have gained or lost its receipt, or come or gone whole.
            if os.path.isdir(folder) and os.path.lexists(folder / SUMMARY):
                listed.add(folder)
            else:
                listed.discard(folder)
            (self._linked.add if _has_links(folder) else self._linked.discard)(folder)
        if len(listed) != len(self._folders) or not listed.issuperset(self._folders):
            self._folders = sorted(listed, key=lambda f: f.name)
        # The watcher names a link's target, never the link: a folder that is or holds a link is
        # looked at on every build (by its files' sizes and times).
        return self._folders, named | self._linked

    def _load(self) -> list[Report]:
        folders, named = self._report_folders()
        if not folders:
            return load_reports(self.config.data_dir, max_bytes=self.config.max_receipt_bytes, strict=self.strict)
        reports = []
        for folder in folders:
            cached = self._loaded.get(folder)
            if named is not None and cached is not None and folder not in named:
                reports.append(cached.report)  # the watcher said nothing of it: unchanged
                continue
            stamp = _stamp(folder)
            summary = tuple(s for s in stamp if s[0] == SUMMARY)
            cached = self._loaded.get(folder)
            # A folder leaves _reload / _reprose only once it loaded: one that failed stays marked,
            # so the next build tries it again (and fails again) however few folders the watcher names.
            if cached and folder not in self._reload and cached.summary == summary:
                if cached.stamp != stamp or folder in self._reprose:
                    report = self._reread_prose(cached.report)
                    cached = self._loaded[folder] = _Loaded(report, stamp, summary)
                    self._reprose.discard(folder)
                reports.append(cached.report)
                continue
            report = load_report(folder, self.config.data_dir, max_bytes=self.config.max_receipt_bytes, strict=self.strict)
            self._reload.discard(folder)
            self._reprose.discard(folder)
            self.stats["loaded"] = self.stats.get("loaded", 0) + 1
            self._loaded[folder] = _Loaded(report, stamp, summary)
            reports.append(report)
        for gone in set(self._loaded) - set(folders):
            del self._loaded[gone]
        return reports

    def _reread_prose(self, report: Report) -> Report:
        """Only a file beside SUMMARY.json changed: reread the lede, keep the parsed receipt."""
        lede = read_lede(report.folder, report.meta.get("lede", ""), self.config.data_dir, self.config.max_receipt_bytes)
        return report if lede == report.lede else dataclasses.replace(report, lede=lede)

    def _analysis(self, report: Report) -> Analysis:
        cached = self._analyses.get(report.id)
        if cached and cached[0] == report.sha256:
            a = cached[1]
            if a.report is not report:
                a = dataclasses.replace(a, report=report)
                self._analyses[report.id] = (report.sha256, a)
            return a
        a = analyse(report, self.config.noise_band, self.config.ratio_scale)
        self.stats["analysed"] = self.stats.get("analysed", 0) + 1
        self._analyses[report.id] = (report.sha256, a)
        return a

    def _report_pages(self, a: Analysis, site_nav: list[dict[str, str]]) -> tuple[list[Page], dict[str, bytes], list[str]]:
        r = a.report
        whole = self._report_whole.get(r.id)
        if whole is not None and whole[0] == (r.sha256, r.lede):
            return whole[1]  # nothing of this report changed: skip even listing its sections
        rp = ReportPages(a, self.config, site_nav, strict=self.strict)
        pages, warnings = [], []
        for key, title, file in rp.sections:
            # A page's context depends on the receipt only; the overview's also on the lede.
            version = (r.sha256, title, r.lede if key == "overview" else None)
            cached = self._pages.get((r.id, key))
            if cached is None or cached[0] != version:
                before = len(rp.warnings)
                page = rp.page(key, title, file)
                cached = self._pages[(r.id, key)] = (version, page, rp.warnings[before:])
                self.stats["contexts"] = self.stats.get("contexts", 0) + 1
            pages.append(cached[1])
            warnings.extend(cached[2])
        present = {key for key, _, _ in rp.sections}
        for key, _, _ in all_pages():
            if key not in present:
                self._pages.pop((r.id, key), None)  # a section the receipt no longer has
        files = self._report_files.get(r.id)
        if files is None or files[0] != r.sha256:
            files = self._report_files[r.id] = (r.sha256, rp.files())
        result = (pages, files[1], warnings)
        self._report_whole[r.id] = ((r.sha256, r.lede), result)
        return result

    def _docs_stamp(self) -> tuple:
        root = self.config.docs_dir
        if not root.is_dir():
            return ()
        out = []
        for path in sorted(root.rglob("*")):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((path.as_posix(), st.st_mtime_ns, st.st_size))
        return tuple(out)

    def _closure(self, name: str) -> tuple[str, ...]:
        """A template and every template it extends, includes or imports."""
        if name not in self._closures:
            env = environment(str(self.config.custom_dir) if self.config.custom_dir else None)
            seen: set[str] = set()
            todo = [name]
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                try:
                    refs = _references(env.loader.get_source(env, n)[0])
                except jinja2.TemplateError:
                    continue
                for ref in refs:
                    todo.append(ref if ref is not None else "*")  # "*": a name computed at render time
            self._closures[name] = tuple(sorted(seen))
        return self._closures[name]

    def _render(self, page: Page, site_nav: list[dict[str, str]], asset_urls: dict[str, str], cache: bool) -> bytes:
        closure = self._closure(page.template)
        templates = self._template_keys.get(page.template)
        if templates is None:
            templates = tuple((t, self._template_gen.get(t, 0)) for t in closure)
            if "*" in closure:
                templates += (("*", self._any_template),)
            self._template_keys[page.template] = templates
        # Report entries of the navigation are not drawn on pages (see page_context): leaving them out
        # of the key keeps pages cached when another report is added, and lets workers prefill.
        base = (id(site_nav), id(asset_urls))
        if self._key_base is None or self._key_base[0] != base:
            nav = [item for item in site_nav if not item.get("report")]
            self._key_base = (base, (repr(nav), repr(sorted(asset_urls.items()))), site_nav, asset_urls)
        key = self._key_base[1] + (templates,)
        cached = self._rendered.get(page.url)
        if cache and cached and cached.page is page and cached.key == key:
            return cached.html
        html = render_page(page, self.config, site_nav, asset_urls)
        self.stats["rendered"] = self.stats.get("rendered", 0) + 1
        self._rendered[page.url] = _Rendered(page, key, html)
        return html

    def _dashboard_row(self, a: Analysis) -> dict:
        """A report's dashboard row, kept until its receipt changes."""
        key = (a.report.id, a.report.sha256)
        if key not in self._rows:
            self._rows[key] = dashboard.row(a, url=report_url(a.report.id))
        return dict(self._rows[key])

    def _dashboard_rows(self, analyses: list[Analysis]) -> list[dict]:
        """Every report's row, each with its HTML (`row_html`) when the theme's own macro draws it.

        A thousand rows take ~40 ms to render; kept per receipt, a preview rebuild after one edit
        renders one. A custom_dir that overrides the macros is rendered whole, as it may use the
        page's context.
        """
        rows = [self._dashboard_row(a) for a in analyses]
        if self.config.custom_dir and (self.config.custom_dir / "_macros.html").exists():
            return rows
        generation = self._template_gen.get("_macros.html", 0)
        if self._row_macro is None or self._row_macro[0] != generation:
            env = environment(None)
            self._row_macro = (generation, getattr(env.get_template("_macros.html").module, "dashboard_row", None))
            self._row_html = {}
        macro = self._row_macro[1]
        if macro is None:
            return rows
        live = {}
        for a, row in zip(analyses, rows):
            key = (a.report.id, a.report.sha256)
            live[key] = self._row_html.get(key) or macro(row)
            row["row_html"] = live[key]
        self._row_html = live
        return rows

    def _history_page(self, analyses: list[Analysis], data_key: tuple) -> Page:
        """The history page; its context is remade only when some receipt changed."""
        if self._history is None or self._history[0] != data_key:
            ctx = history_view.context(analyses, report_url, self._history_rows)
            self._history = (data_key, Page(url=history_view.HISTORY_URL, title="History", template="history.html",
                                            context={"history": ctx}))
        return self._history[1]

    def _progress(self, what: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(what, done, total)

    # -- a cold build of many reports, on every core -------------------------------------------
    def _prefill(self, out: Staging | None = None) -> None:
        """Loads, analyses and renders the reports' own pages in forked workers, filling the caches.

        Only for a fresh builder with many reports. `build()` then finds every report cached and
        renders just the site-wide pages; whatever a worker made under other assumptions (a cache
        key that does not match) is simply made again, so the output is the same bytes either way.
        With `out`, workers write each report's files straight into it and send back only the
        light analysis, so neither they nor this process ever hold the site's pages.
        """
        workers = min(os.cpu_count() or 1, 4)
        if self._loaded or workers < 2 or not hasattr(os, "fork"):
            return
        try:
            folders = report_folders(self.config.data_dir)
        except SitegenError:
            return
        if len(folders) < PARALLEL_MIN_REPORTS:
            return
        import multiprocessing

        nav = DocsPages(self.config, [], strict=self.strict).nav if self.config.docs_dir.is_dir() else []
        if len(folders) > 1:
            nav = nav + [history_nav()]
        numbered = list(enumerate(folders))
        # Small interleaved shares: the work stays balanced, results stream back (less memory held at
        # once), and progress can be shown as shares finish.
        size = max(4, min(16, len(folders) // (workers * 8) or 4))
        chunks = [numbered[i:i + size] for i in range(0, len(numbered), size)]
        results, done = [], 0
        with multiprocessing.get_context("fork").Pool(workers, initializer=_worker_start) as pool:
            for result in pool.imap(_prefill_chunk, [(self.config, self.strict, chunk, nav, out) for chunk in chunks]):
                results.append(result)
                done += len(result[1]) if result[0] == "ok" else 0
                self._progress("reports", done, len(folders))
        errors = [r[1] for r in results if r[0] == "error"]
        if errors:
            index, message, file, where = min(errors, key=lambda e: e[0])
            raise SitegenError(message, file, where)
        for _, items in results:
            for folder, loaded, analysis, made, summaries in items:
                self._loaded[folder] = loaded
                self._analyses[loaded.report.id] = (loaded.report.sha256, analysis)
                key = (loaded.report.id, loaded.report.sha256)
                self._rows[key], self._history_rows[key] = summaries
                if isinstance(made, _Streamed):
                    self._streamed[loaded.report.id] = made
                    continue
                pages, files, rendered = made
                self._pages.update(pages)
                self._report_files[loaded.report.id] = files
                self._rendered.update(rendered)

    # -- the whole site -----------------------------------------------------------------------
    def build(self, *, out: Staging | None = None) -> BuildResult:
        """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing.

        With `out`, a one-shot build for publishing: each report's files are written to `out` as
        soon as they are made and are not kept, so memory does not grow with the number of pages;
        the site-wide files are written at the end, and `files` holds only those.
        """
        start = time.perf_counter()
        self.stats = {}
        config = self.config
        self._prefill(out)
        reports = self._load()
        analyses = settle([self._analysis(r) for r in reports])
        site_nav = report_nav(analyses)
        # Markdown pages of docs_dir: found and read again when docs, the set of reports or a template
        # changed; each page remade only when it or a report it draws on changed (see DocsPages.pages).
        data_key = tuple((a.report.id, a.report.sha256) for a in analyses)
        docs_key = (self._docs_stamp(), self._docs_gen, tuple(sorted(a.report.id for a in analyses)), self._any_template)
        if self._docs is None or self._docs[0] != docs_key:
            self._docs = (docs_key, DocsPages(config, analyses, strict=self.strict), None)
            self._docs_pages = {}
        docs = self._docs[1]
        docs.analyses = analyses
        site_nav = docs.nav + site_nav
        assets = theme_assets(config)
        asset_urls = {k: v[0] for k, v in assets.items()}
        files: dict[str, bytes] = {}
        warnings: list[str] = []
        pages: list[Page] = []
        cached_pages: set[int] = set()
        written: list[str] = []  # files already in `out`
        uses_charts = False
        remade: list[tuple] = []  # reports whose files were made (or looked at) in this build
        # What a report page is rendered with besides its own context (page_context draws no report
        # entries of the navigation, so adding a report leaves the others' pages as they were).
        render_key = (repr([item for item in site_nav if not item.get("report")]), repr(sorted(asset_urls.items())),
                      self._any_template)
        for i, a in enumerate(analyses):
            if i % 10 == 0:
                self._progress("reports", i, len(analyses))
            warnings.extend(a.report.warnings)
            if out is not None:
                made = self._streamed.pop(a.report.id, None)
                if made is None or made.sha256 != a.report.sha256:
                    made = _write_report(a, config, self.strict, site_nav, asset_urls, out)
                written.extend(made.names)
                warnings.extend(made.warnings)
                uses_charts |= made.charts
            else:
                done = self._report_done.get(a.report.id)
                if done is not None and done[0] == (a.report.sha256, a.report.lede, render_key):
                    # Nothing this report's files are made from changed: take them whole, without
                    # even looking at its pages (a thousand reports are nine thousand pages).
                    files.update(done[1])
                    warnings.extend(done[2])
                    uses_charts |= done[3]
                else:
                    report_pages, report_files, report_warnings = self._report_pages(a, site_nav)
                    pages.extend(report_pages)
                    cached_pages.update(id(p) for p in report_pages)
                    files.update(report_files)
                    warnings.extend(report_warnings)
                    remade.append(((a.report.sha256, a.report.lede, render_key), a.report.id, report_pages, report_files,
                                   report_warnings))
            if a.report.raw:  # analysed and published: keep the analysis, drop the records
                analyses[i] = a = _lighten(a)
                self._analyses[a.report.id] = (a.report.sha256, a)
                loaded = self._loaded.get(a.report.folder)
                if loaded is not None and loaded.report.sha256 == a.report.sha256:
                    self._loaded[a.report.folder] = dataclasses.replace(loaded, report=a.report)
        home = Page(url="index.html", title=config.site_name, template="home.html",
                    context={"reports": dashboard.split(self._dashboard_rows(analyses))})
        if len(analyses) > 1:
            pages.append(self._history_page(analyses, data_key))
        if self._docs[2] is None:
            self._docs = (self._docs[0], docs, docs.files())
        docs.warnings = []
        docs_pages, docs_files, docs_warnings = docs.pages(home, self._docs_pages), self._docs[2], docs.warnings
        pages.extend(docs_pages)  # docs/index.md, when there is one, is the home page
        cached_pages.update(id(p) for p in docs_pages)
        files.update(docs_files)
        warnings.extend(docs_warnings)
        for page in pages:  # a generated page wins over a docs file of its name: say so
            if page.url in docs_files:
                message = f"is dropped: the page '{page.title}' is generated as {page.url}; rename the file"
                if self.strict:
                    raise SitegenError(message, docs.static[page.url])
                warnings.append(f"{shown_path(docs.static[page.url])}: {message}")
        for n, page in enumerate(pages, 1):
            files[page.url] = self._render(page, site_nav, asset_urls, cache=id(page) in cached_pages)
            uses_charts |= page.charts
            if n % 50 == 0 or n == len(pages):
                self._progress("pages", n, len(pages))
        for key, rid, report_pages, report_files, report_warnings in remade:
            self._report_done[rid] = (key, {**report_files, **{p.url: files[p.url] for p in report_pages}},
                                      report_warnings, any(p.charts for p in report_pages))
        for key, (path, data) in assets.items():
            if key not in ("plotly", "plotly_charts") or uses_charts:
                files[path] = data
        names = set(files).union(written)
        # The site's file names follow from its reports, docs pages and templates: no need to list them.
        extra_key = (data_key, self._any_template, self._docs[0], len(names))
        if self._extra is None or self._extra[0] != extra_key:
            self._extra = (extra_key, publish.extra_files(config, analyses, names))  # 404.html, sitemap.xml, share cards
        files.update(self._extra[1])
        if out is not None:
            out.write(files)
            names.update(files)
        # Forget what no longer exists (a deleted or renamed report, a section gone).
        ids = {a.report.id for a in analyses}
        for rid in set(self._analyses) - ids:
            del self._analyses[rid]
        for rid in set(self._report_files) - ids:
            del self._report_files[rid]
        for rid in set(self._report_whole) - ids:
            del self._report_whole[rid]
        for rid in set(self._report_done) - ids:
            del self._report_done[rid]
        for k in [k for k in self._pages if k[0] not in ids]:
            del self._pages[k]
        for url in set(self._rendered) - set(files):
            del self._rendered[url]
        pages_made = sum(1 for f in (names if out is not None else files) if f.endswith(".html"))
        return BuildResult(files=files, pages=pages_made, reports=len(reports), warnings=warnings,
                           seconds=time.perf_counter() - start)


@lru_cache(maxsize=256)
def _references(source: str) -> tuple[str | None, ...]:
    """The templates a template's source names. Parsing is most of a small build's time, and every
    Builder (each `sitegen check`, each build of the MkDocs plugin) asks again for the same sources."""
    return tuple(jinja2.meta.find_referenced_templates(environment(None).parse(source)))


# Below this many reports, forking workers costs more than it saves. The tests lower it (the
# environment variable reaches the CLI they run too) to take the forked path with a few reports.
PARALLEL_MIN_REPORTS = int(os.environ.get("SITEGEN_PARALLEL_MIN_REPORTS") or 48)


def _record_lists() -> list[tuple[str, str]]:
    """(section, record list) of the lists only the analysis reads (`Section.light`): once a report is
    analysed and its files are made, the builder keeps the analysis, not these (on a site of a
    thousand reports they are most of the memory)."""
    return [(s.name, s.records) for s in all_sections() if s.light]


def _lighten(a: Analysis) -> Analysis:
    """The analysis with its report's record lists and raw bytes dropped (the receipt file keeps them),
    and the per-scenario points frame that only the analysis itself reads."""
    if not a.report.raw and a.tool_points is None:
        return a
    data = dict(a.report.data)
    for section, key in _record_lists():
        if isinstance(data.get(section), dict) and data[section].get(key):
            data[section] = {**data[section], key: []}
    return dataclasses.replace(a, report=dataclasses.replace(a.report, data=data, raw=b""), tool_points=None)


@dataclass
class _Streamed:
    """What a one-shot build wrote for one report: file names, page warnings, whether a page draws charts."""
    sha256: str
    names: list[str]
    warnings: list[str]
    charts: bool


def _write_report(a: Analysis, config: Config, strict: bool, nav: list[dict[str, str]], asset_urls: dict[str, str],
                  out: Staging) -> _Streamed:
    """Every file of one report, rendered and written to `out` at once, nothing kept."""
    rp = ReportPages(a, config, nav, strict=strict)
    pages = rp.pages()
    files = rp.files()
    for page in pages:
        files[page.url] = render_page(page, config, nav, asset_urls)
    if publish.site_root(config):  # its link-preview card, drawn here too (in a worker, on every core)
        files[rp.base + publish.CARD] = publish.share_card(a, config)
    out.write(files)
    return _Streamed(a.report.sha256, sorted(files), rp.warnings, any(p.charts for p in pages))


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
    config, strict, folders, nav, stream = args
    try:
        return _prefill_share(config, strict, folders, nav, stream)
    finally:
        gc.collect()


def _prefill_share(config, strict, folders, nav, stream: Staging | None) -> tuple:
    b = Builder(config, strict=strict)
    asset_urls = {k: v[0] for k, v in theme_assets(config).items()}
    out = []
    for index, folder in folders:
        try:
            stamp = _stamp(folder)
            report = load_report(folder, config.data_dir, max_bytes=config.max_receipt_bytes, strict=strict)
            a = b._analysis(report)
            if stream is not None:
                made = _write_report(a, config, strict, nav, asset_urls, stream)
            else:
                pages, _, _ = b._report_pages(a, nav)
                for page in pages:
                    b._render(page, nav, asset_urls, cache=False)
        except SitegenError as exc:
            return ("error", (index, exc.message, exc.file, exc.where))  # the folder's place in the whole list
        a = dataclasses.replace(_lighten(a), displayed={})  # its pages are made: not worth sending back
        loaded = _Loaded(a.report, stamp, tuple(x for x in stamp if x[0] == SUMMARY))
        if stream is None:
            mine = {k: v for k, v in b._pages.items() if k[0] == report.id}
            made = (mine, b._report_files[report.id], {p.url: b._rendered[p.url] for p in pages})
        b._analyses.clear()
        # The site-wide pages' share of the work, done here on every core rather than after.
        summaries = (dashboard.row(a, url=report_url(report.id)), history_rows.report_rows(a))
        out.append((folder, loaded, a, made, summaries))
    return ("ok", out)


def build_files(config: Config, *, strict: bool = False, progress=None) -> BuildResult:
    """Every file of the site, in memory. Raises SitegenError on bad input; writes nothing."""
    return Builder(config, strict=strict, progress=progress).build()


def build(config: Config, *, strict: bool = False, progress=None, clean: bool = False) -> BuildResult:
    """Builds the site into site_dir (see `Staging`); `clean` deletes files there that no build wrote."""
    check_site_dir(config.site_dir, [config.config_file.parent / "mkdocs.yml", config.data_dir, config.docs_dir,
                                     config.config_file, *([config.custom_dir] if config.custom_dir else [])])
    with Staging(config.site_dir, clean=clean) as out:
        result = Builder(config, strict=strict, progress=progress).build(out=out)
        out.commit()
    result.warnings.extend(out.warnings)
    return result
