"""`sitegen` inside `mkdocs build` and `mkdocs serve`: a thin adapter over the pipeline.

    plugins:
      - sitegen:
          data_dir: data

- on_config: loads and analyses the receipts (the same `load` and `analyse` as `sitegen build`);
  under `mkdocs serve` (on_startup keeps the instance) a report whose folder did not change is
  the last build's analysis.
- on_files: adds every report page as a generated page at the path `sitegen build` gives it
  (`reports/ID/speed.html`), the History page (two reports or more), the receipts and CSVs, the
  stylesheet and the scripts, and a home page with the table of reports when the docs have no
  index.md; under `serve --dirty`, marks for rebuilding the docs pages that drew on a changed report.
- on_page_markdown / on_page_content: sitegen blocks and `{{ … }}` figures of markdown pages
  become HTML (the same `AuthorBlocks` as `sitegen build`); a report page's content is the
  report page's own HTML, rendered by the same templates.
- on_post_page: the chart script on the pages that draw a chart, the dashboard's on the pages
  with the table of reports; on every page when the theme swaps pages in place (Material's
  `navigation.instant`), where the scripts draw each new page on Material's `document$`.

Works with MkDocs 1.6 and ProperDocs (which serves `mkdocs.*` imports itself), with the default
theme and with Material for MkDocs. `sitegen build` stays the main product: MkDocs 2.0 drops
plugins, and Zensical ignores third-party ones.
"""
from __future__ import annotations

import hashlib
import os
import posixpath
import re
from html import escape, unescape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from mkdocs.config import base
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files

from site_gen.config import PLUGIN_OPTIONS, Config, Option, check_keys, check_url, receipt_bytes
from site_gen.errors import SitegenError

if TYPE_CHECKING:
    from site_gen.analyse.report import Analysis
    from site_gen.render.docs import AuthorBlocks, Expanded
    from site_gen.render.pages import Page

# The rest of sitegen (pandas, the schema validator, the templates) is imported when a build has
# reports to show: a site without any pays for none of it.

log = get_plugin_logger("sitegen")

EMBED_CSS = "sitegen-embed.css"
MATERIAL_CSS = "sitegen-material.css"  # added to it when Material for MkDocs is the theme
# Variables that follow the host theme where it has them (Material), else sitegen's light values.
_HOST_VARS = {"--bg": "--md-default-bg-color", "--fg": "--md-default-fg-color", "--muted": "--md-default-fg-color--light",
              "--line": "--md-default-fg-color--lightest", "--soft": "--md-code-bg-color",
              "--accent": "--md-typeset-a-color", "--font": "--md-text-font-family", "--mono": "--md-code-font-family"}
# Rules of the stand-alone theme that style the page around the content: left to the host theme.
_CHROME = re.compile(r"^(\*|html|body|a|code|h1|h2|h2 a|h2 a:hover|:target|:focus-visible)$|"
                     r"^(\.skip|\.topbar|\.brand|\.crumb[\w-]*|\.layout|\.sidenav|\.sitenav|\.content|\.page-site|"
                     r"\.footer|\.doc)(?![\w-])")
_SCOPES = (".sitegen-block", ".sitegen-inline")  # blocks, and figures inside the author's sentences
_ROOT = ", ".join(_SCOPES)
_DARK = ('[data-md-color-scheme="slate"]', '[data-bs-theme="dark"]')


def _blocks(css: str) -> list[tuple[str, str]]:
    """Top-level `prelude { body }` pairs of a stylesheet (comments removed)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out, i = [], 0
    while True:
        j = css.find("{", i)
        if j < 0:
            return out
        depth, k = 1, j + 1
        while depth and k < len(css):
            depth += {"{": 1, "}": -1}.get(css[k], 0)
            k += 1
        out.append((css[i:j].strip(), css[j + 1:k - 1]))
        i = k


def _declarations(body: str) -> dict[str, str]:
    out = {}
    for part in body.split(";"):
        name, sep, value = part.partition(":")
        if sep and name.strip():
            out[name.strip()] = value.strip()
    return out


def _scope_rules(css: str) -> list[str]:
    out = []
    for prelude, body in _blocks(css):
        if prelude.startswith("@media"):
            if "prefers-color-scheme" in prelude:
                continue  # the host theme decides light or dark: see the variables
            inner = _scope_rules(body)
            if inner:
                out.append(prelude + " {\n" + "\n".join("  " + r for r in inner) + "\n}")
            continue
        if prelude.startswith("@"):
            continue
        selectors = [s.strip() for s in prelude.split(",")]
        kept = [f"{scope} {s}" for s in selectors if s and not s.startswith(":root") and not _CHROME.match(s)
                for scope in _SCOPES]
        if kept:
            out.append(", ".join(kept) + " { " + body.strip() + " }")
    return out


def embed_css(css: str) -> str:
    """The stand-alone stylesheet, for inside another theme: every rule scoped to `.sitegen-block`
    (and `.sitegen-inline`),
    the page chrome left out, colours following Material's palette (or the default theme's dark mode)."""
    light: dict[str, str] = {}
    dark: dict[str, str] = {}
    for prelude, body in _blocks(css):
        if prelude == ":root":
            light.update(_declarations(body))
        elif prelude.startswith("@media") and "prefers-color-scheme: dark" in prelude:
            for inner, inner_body in _blocks(body):
                if inner == ":root":
                    dark.update(_declarations(inner_body))
    light = {k: v for k, v in light.items() if k.startswith("--")}
    dark = {k: v for k, v in dark.items() if k.startswith("--")}
    lines = ["/* sitegen blocks inside an MkDocs theme: generated from sitegen.css by the sitegen plugin. */"]
    lines.append(_ROOT + " { " + " ".join(
        f"{k}: var({_HOST_VARS[k]}, {v});" if k in _HOST_VARS else f"{k}: {v};" for k, v in light.items()) + " }")
    if dark:
        for scheme, skip in zip(_DARK, (_HOST_VARS, ())):
            lines.append(", ".join(f"{scheme} {s}" for s in _SCOPES) + " { " +
                         " ".join(f"{k}: {v};" for k, v in dark.items() if k not in skip) + " }")
    lines.append(".sitegen-block { color: var(--fg); }")
    # Host themes style bare elements inside their content (Material centres figures, makes tables blocks).
    lines.append(".sitegen-block table.data { display: table; } .sitegen-block figure { display: block; width: auto; max-width: none; }")
    lines.append(".sitegen-block figcaption { max-width: none; margin: 0 0 0.4em; font-style: normal; text-align: left; }")
    # Sizes relative to the text around the block: host themes set their own root size (Material: 20px).
    lines.extend(re.sub(r"(\d*\.?\d+)rem\b", r"\1em", rule) for rule in _scope_rules(css))
    return "\n".join(lines) + "\n"


def _static_text(config: Config, name: str) -> str:
    """A file of sitegen's static/ (or the user's custom_dir override of it)."""
    from site_gen.render.pages import theme_dir

    path = config.custom_dir / name if config.custom_dir and (config.custom_dir / name).is_file() else theme_dir("static") / name
    return path.read_text(encoding="utf-8")


# The overview's note on where the data comes from, as Material shows a note: an admonition.
_ABOUT = re.compile(r'<p class="illustrative" id="illustrative"><strong>(About the data):</strong> (.*?)</p>', re.S)


def _admonition(m: re.Match) -> str:
    return f'<div class="admonition info" id="illustrative">\n<p class="admonition-title">{m[1]}</p>\n<p>{m[2]}</p>\n</div>'


def _digest(folder: Path) -> str:
    """sha256 of the names and bytes of a report folder's files (its receipt and lede)."""
    h = hashlib.sha256()
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.is_file():
            with open(entry.path, "rb") as f:
                h.update(entry.name.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(f.read()).digest())
    return h.hexdigest()


class _Option(base.BaseConfigOption):
    """An option of sitegen's table inside MkDocs: checked by the same rule as `sitegen build`, so a
    bad value is one line from MkDocs with sitegen's words (no traceback)."""

    def __init__(self, name: str, option: Option) -> None:
        super().__init__()
        self.name, self.option = name, option
        self.default = option.default

    def run_validation(self, value: object) -> Any:
        try:
            return self.option.check(value, self.name, None)
        except SitegenError as exc:
            raise base.ValidationError(exc.message if exc.where == self.name else str(exc)) from None


SitegenPluginConfig = type("SitegenPluginConfig", (base.Config,),
                           {name: _Option(name, option) for name, option in PLUGIN_OPTIONS.items()})


class SitegenPlugin(BasePlugin[SitegenPluginConfig]):
    """The sitegen report pages and blocks inside an MkDocs (or ProperDocs) site."""

    def __init__(self) -> None:
        self.sg: Config | None = None
        self.analyses: list[Analysis] = []
        self.blocks: AuthorBlocks | None = None
        self.report_pages: dict[str, Page] = {}      # src_uri -> sitegen page
        self.nav_titles: dict[str, str] = {}
        self.expanded: dict[str, Expanded] = {}
        self.charts: set[str] = set()                 # src_uri of pages that draw a chart
        self.dashboards: set[str] = set()             # src_uri of pages with the table of reports
        self.assets: dict[str, tuple[str, bytes]] = {}
        self.material = False
        # Kept from one `mkdocs serve` rebuild to the next (see on_startup): each report analysed,
        # by folder name, with the digest of its folder's files; what each docs page drew on.
        self.cache: dict[str, tuple[tuple, Analysis]] = {}
        self.pages_of: dict[str, tuple[tuple, list, dict[str, bytes], list[str]]] = {}
        self.rendered: dict[str, tuple[tuple, str]] = {}
        self.uses: dict[str, tuple[set[str], bool]] = {}
        self.changed: set[str] = set()
        self.dirty = False

    def on_startup(self, *, command, dirty):
        """(Its being defined keeps this instance across `mkdocs serve` rebuilds, and so the cache.)"""
        self.dirty = dirty

    # -- configuration and receipts -------------------------------------------------------------
    def on_config(self, config):
        file = Path(config.config_file_path or "mkdocs.yml").resolve()
        opts = self.config
        try:
            root = file.parent
            self.sg = Config(
                config_file=file, site_name=config.site_name, site_dir=Path(config.site_dir),
                docs_dir=Path(config.docs_dir), data_dir=root / opts["data_dir"],
                # MkDocs takes any URL with a scheme and a host (javascript://x/%0a...): sitegen's rule on top.
                site_url=check_url(config.site_url, "site_url", file), site_description=config.site_description or "",
                copyright=config.copyright or "", repo_url=check_url(config.repo_url, "repo_url", file),
                extra=dict(config.extra or {}),
                noise_band=opts["noise_band"], ratio_scale=opts["ratio_scale"],
                max_receipt_bytes=receipt_bytes(opts["max_receipt_mb"]),
                custom_dir=(root / opts["custom_dir"]) if opts["custom_dir"] else None, charts=opts["charts"],
                headline_input=opts["headline_input"])
            check_keys(self.sg.extra, "extra", file)
            self.analyses, warnings = self._reports()
        except SitegenError as exc:
            raise PluginError(f"sitegen: {exc}") from None
        for message in warnings:
            log.warning(message)
        self.report_pages, self.expanded, self.charts, self.dashboards = {}, {}, set(), set()
        self.blocks, self.assets = None, {}
        if not self.analyses:
            log.info(f"no reports in {self.sg.data_dir} yet")
            return config
        from site_gen.assembly import Site
        from site_gen.render.assets import asset_name, theme_assets
        from site_gen.render.docs import AuthorBlocks

        self.blocks = AuthorBlocks(self.analyses, self.sg, dashboard=Site(self.analyses).dashboard())
        themed = theme_assets(self.sg)
        css = embed_css(themed["css"][1].decode("utf-8"))
        self.material = config.theme.name == "material"
        if self.material:
            css += _static_text(self.sg, MATERIAL_CSS)
        css = css.encode("utf-8")
        self.assets = {"css": (asset_name(EMBED_CSS, css), css)}
        self.assets.update({k: v for k, v in themed.items() if k != "css"})
        config.extra_css.append(self.assets["css"][0])
        return config

    def _reports(self) -> tuple[list[Analysis], list[str]]:
        """The reports of data_dir, loaded and analysed as `sitegen build` does, newest first, and
        their warnings. A report whose folder's files are byte for byte those of the last build
        (under the same options) is the last build's analysis; `self.changed` names the others."""
        from site_gen.load import report_folders

        sg = self.sg
        assert sg is not None
        folders = report_folders(sg.data_dir)
        cache: dict[str, tuple[tuple, Analysis]] = {}
        if folders:
            from site_gen.analyse.report import analyse
            from site_gen.load import load_report

            options = (sg.noise_band, tuple(sg.ratio_scale), sg.headline_input, sg.max_receipt_bytes)
            for folder in folders:
                key = (options, _digest(folder))
                hit = self.cache.get(folder.name)
                if hit is None or hit[0] != key:
                    hit = (key, analyse(load_report(folder, sg.data_dir, max_bytes=sg.max_receipt_bytes),
                                        sg.noise_band, sg.ratio_scale, sg.headline_input))
                cache[folder.name] = hit
        key_of = lambda c, rid: c[rid][0] if rid in c else None  # noqa: E731
        self.changed = {rid for rid in cache.keys() | self.cache.keys() if key_of(cache, rid) != key_of(self.cache, rid)}
        self.cache = cache
        if not cache:
            return [], []
        from site_gen.assembly import settle

        return settle([a for _, a in cache.values()]), [w for _, a in cache.values() for w in a.report.warnings]

    def on_serve(self, server, config, builder):
        assert self.sg is not None
        server.watch(str(self.sg.data_dir))
        if self.sg.custom_dir:
            server.watch(str(self.sg.custom_dir))
        return server

    # -- the files of the site ------------------------------------------------------------------
    def _add(self, files: Files, config, src_uri: str, content: str | bytes, dest_uri: str | None = None) -> File:
        existing = files.get_file_from_path(src_uri)
        if existing is not None and existing.generated_by is None:
            raise PluginError(f"sitegen: {existing.src_uri} in the docs would replace a page sitegen generates; "
                              "move or rename it")
        if existing is not None:
            files.remove(existing)
        f = File.generated(config, src_uri, content=content)
        if dest_uri is not None:
            f.dest_uri = dest_uri
            folder, name = posixpath.split(dest_uri)
            f.url = (folder + "/" if folder else "./") if name == "index.html" and config.use_directory_urls else dest_uri
        files.append(f)
        return f

    def on_files(self, files: Files, config):
        assert self.sg is not None
        if not self.analyses:
            return files
        from site_gen.related import NONE, relations
        from site_gen.render.pages import ReportPages, report_base

        related = relations(self.analyses)
        for a in self.analyses:
            links = related.get(a.report.id, NONE)
            key = (self.cache[a.report.id][0], links.receipts)  # its pages show the reports it links to
            made = self.pages_of.get(a.report.id)
            if made is None or made[0] != key:
                rp = ReportPages(a, self.sg, [], strict=False, related=links)
                pages = [(report_base(a.report.id) + posixpath.splitext(name)[0] + ".md", rp.page(key_, title, name), title)
                         for key_, title, name in rp.sections]
                made = self.pages_of[a.report.id] = (key, pages, rp.files(), list(rp.warnings))
            for message in made[3]:
                log.warning(message)
            for src, page, title in made[1]:
                self._add_page(files, config, src, page, f"{title} — {a.report.title}", title)
            for path, data in made[2].items():
                self._add(files, config, path, data)
        for rid in set(self.pages_of) - {a.report.id for a in self.analyses}:
            del self.pages_of[rid]
        if len(self.analyses) > 1:
            from site_gen.assembly import report_url
            from site_gen.render import history as history_view
            from site_gen.render.pages import Page

            page = Page(url=history_view.HISTORY_URL, title="History", template="history.html",
                        context={"history": history_view.context(self.analyses, report_url)})
            self._add_page(files, config, "history.md", page, "History", "History")
        for path, data in self.assets.values():
            self._add(files, config, path, data)
        if not any(files.get_file_from_path(n) for n in ("index.md", "README.md")):
            heading = f"# {self.sg.site_name}\n\n" + (f"{self.sg.site_description}\n\n" if self.sg.site_description else "")
            self._add(files, config, "index.md", heading + "```sitegen\nblock: dashboard\n```\n")
        self._refresh(files)
        return files

    def _refresh(self, files: Files) -> None:
        """Under `mkdocs serve --dirty` MkDocs rebuilds only the pages whose markdown changed: a docs
        page whose blocks or figures drew on a report that changed is rebuilt too."""
        if not self.dirty or not self.changed:
            return
        for f in files.documentation_pages():
            used, used_all = self.uses.get(f.src_uri, (set(), False))
            if used_all or used & self.changed:
                f.is_modified = lambda: True  # type: ignore[method-assign]

    def _add_page(self, files: Files, config, src: str, page: Page, title: str, nav_title: str) -> None:
        """A sitegen page as a generated MkDocs page. `title` names it in the browser's tab and in
        search results (where a bare "Speed" would not tell one report from another); the nav,
        where the report's folder says which report it is, takes the short `nav_title`."""
        meta = yaml.safe_dump({"title": escape(title)}, allow_unicode=True)  # themes print titles raw
        self._add(files, config, src, f"---\n{meta}---\n\n<!-- sitegen: {src} -->\n", page.url)
        self.report_pages[src] = page
        self.nav_titles[src] = escape(nav_title)

    def on_nav(self, nav, config, files):
        """In an automatic nav, each report's folder is titled with the report and lists its pages in
        sitegen's order; a nav written in mkdocs.yml is left as it is."""
        if config.nav or not self.analyses:
            return nav
        from site_gen.render.pages import all_pages

        order = {posixpath.splitext(name)[0]: i for i, (_, _, name) in enumerate(all_pages())}
        titles = {a.report.id: a.report.title for a in self.analyses}
        newest = {a.report.id: i for i, a in enumerate(self.analyses)}

        def report_of(item) -> str | None:
            if item.is_page and item.file.src_uri in self.report_pages and "/" in item.file.src_uri:
                return item.file.src_uri.split("/")[1]  # reports/ID/page.md (not the history page)
            if item.is_section:
                ids = {report_of(child) for child in item.children}
                return ids.pop() if len(ids) == 1 else None
            return None

        def walk(items) -> None:
            for item in items:
                if not item.is_section:
                    continue
                rid = report_of(item)
                if rid is not None and all(ch.is_page for ch in item.children):
                    item.title = escape(titles[rid])  # themes print nav titles raw, and this one is a receipt's
                    item.children.sort(key=lambda p: order.get(posixpath.splitext(posixpath.basename(p.file.src_uri))[0], 99))
                else:
                    walk(item.children)
                    if item.children and all(ch.is_section and report_of(ch) for ch in item.children):
                        item.children.sort(key=lambda s: newest.get(report_of(s), 99))
        walk(nav.items)
        return nav

    # -- pages ----------------------------------------------------------------------------------
    def on_page_markdown(self, markdown: str, page, config, files):
        src = page.file.src_uri
        if src in self.report_pages:
            page.title = self.nav_titles[src]  # the meta title stays the full one
            return markdown
        source = page.file.content_string if page.file.generated_by is None else markdown
        offset = source.count("\n", 0, len(source) - len(markdown)) if source.endswith(markdown) else 0
        where = page.file.abs_src_path or src
        if self.blocks is None:
            if "sitegen" not in markdown and "{{" not in markdown:
                return markdown  # no reports, and nothing on the page asks for one
            from site_gen.render.docs import AuthorBlocks

            self.blocks = AuthorBlocks([], self.sg)  # says "unknown report" where the page names one
        self.blocks.used, self.blocks.used_all = set(), False
        try:
            expanded = self.blocks.expand(markdown, file=where, page_path=page.file.dest_uri, meta=page.meta,
                                          line_offset=offset, home=src in ("index.md", "README.md"))
        except SitegenError as exc:
            raise PluginError(f"sitegen: {exc}") from None
        for message in expanded.warnings:
            log.warning(message)
        self.uses[src] = (set(self.blocks.used), self.blocks.used_all)
        self.expanded[src] = expanded
        if expanded.charts:
            self.charts.add(src)
        if "dashboard" in expanded.blocks:
            self.dashboards.add(src)
        return expanded.markdown

    def on_page_content(self, html: str, page, config, files):
        src = page.file.src_uri
        if src in self.report_pages:
            assert self.sg is not None
            sg_page = self.report_pages[src]
            content = self._content(src, sg_page)
            if sg_page.charts:
                self.charts.add(src)
            page.toc = _toc(content, page.meta["title"])
            section = sg_page.section or "site"
            return f'<div class="sitegen-block sitegen-page page-{section}">\n{content}\n</div>\n'
        expanded = self.expanded.pop(src, None)
        if not expanded:
            return html
        expanded.pieces = [searchable(piece) for piece in expanded.pieces]
        return expanded.restore(html)

    def _content(self, src: str, sg_page: Page) -> str:
        """A sitegen page's HTML, as the last build made it when its reports did not change."""
        from site_gen.render.pages import render_content

        asset_urls = {k: v[0] for k, v in self.assets.items()}
        reports = [sg_page.report] if sg_page.report else sorted(self.cache)
        key = (tuple(self.cache[r][0] for r in reports), tuple(sorted(asset_urls.items())), self.material)
        hit = self.rendered.get(src)
        if hit is None or hit[0] != key:
            content = searchable(render_content(sg_page, self.sg, [], asset_urls), page_title=True)
            hit = self.rendered[src] = (key, _ABOUT.sub(_admonition, content) if self.material else content)
        return hit[1]

    def on_post_page(self, output: str, page, config):
        src = page.file.src_uri
        if swaps_content(config):
            # The theme swaps each page's content in place without loading the page (Material's
            # instant navigation): the page a reader lands on must bring every script the pages
            # reached from it will need.
            keys = [k for k in self.assets if k != "css"]
        else:
            keys = [k for k in self.assets if k not in ("css", "dashboard")] if src in self.charts else []
            keys += ["dashboard"] if src in self.dashboards else []
        if not keys:
            return output
        from site_gen.render.pages import rel

        keys.sort(key=lambda k: k != "plotly")  # a library before its user
        scripts = "".join(f'<script src="{rel(page.file.dest_uri, self.assets[k][0])}" defer></script>' for k in keys)
        at = output.rfind("</body>")
        return output[:at] + scripts + "\n" + output[at:] if at >= 0 else output + scripts


def swaps_content(config) -> bool:
    """Whether the theme replaces the page's content in place on an in-site link click."""
    theme = config.theme
    return theme.name == "material" and "navigation.instant" in (theme.get("features") or [])


_CELL_END = re.compile(r"</(t[dh])>(?=<t[dh][\s>])")
_ROW_END = re.compile(r"</tr>(?=<tr[\s>])")


def searchable(html: str, *, page_title: bool = False) -> str:
    """sitegen's HTML as MkDocs' search plugins read it. Their index takes an element's text with
    nothing between elements: adjacent table cells get a space ("Engine NewEngine", not
    "EngineNewEngine"). Material's leaves out a heading's permalink only when its class is exactly
    `headerlink` (the host themes style that class too). With `page_title`, the page's h1 is left
    out of the index, so that Material's search titles the page with its full title (the meta
    title, which names the report) rather than a bare "Speed"."""
    html = _ROW_END.sub("</tr>\n", _CELL_END.sub(r"</\1> ", html))
    html = html.replace('<a class="anchor" href="#', '<a class="headerlink" href="#')
    return html.replace('<h1 id="top">', '<h1 id="top" data-search-exclude>', 1) if page_title else html


_HEADING = re.compile(r'<h([12])\s+id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)


def _toc(html: str, title: str):
    """The table of contents of a report page (its h1 and h2), for the theme's sidebar. The h1 is
    named with the page's full `title` (already escaped): MkDocs' own search titles its result so."""
    from mkdocs.structure.toc import get_toc

    tokens: list[dict[str, Any]] = []
    for level, ident, inner in _HEADING.findall(html):
        inner = re.sub(r'<a class="headerlink".*?</a>', "", inner, flags=re.S)
        # MkDocs themes print toc titles unescaped (autoescape is off there): keep the text escaped,
        # so a report title from a receipt stays text in the sidebar.
        name = title if level == "1" else escape(unescape(re.sub(r"<[^>]+>", "", inner)).strip())
        token = {"level": int(level), "id": ident, "name": name, "html": name, "data-toc-label": "", "children": []}
        if int(level) == 1 or not tokens:
            tokens.append(token)
        else:
            tokens[-1]["children"].append(token)
    return get_toc(tokens)
