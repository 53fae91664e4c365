"""`sitegen` inside `mkdocs build` and `mkdocs serve`: MkDocs' events, each handed to sitegen's
public API (site_gen/api.py), which is all of sitegen this module uses.

    plugins:
      - sitegen:
          data_dir: data

- on_config: each report's part of the site (its pages rendered, its files), made from the
  receipts loaded and analysed by the same `ReportStore` and `settle` as `sitegen build` and
  `sitegen serve`. Under `mkdocs serve` (on_startup keeps the instance) a report whose receipt
  and lede did not change keeps its part; and a build whose receipts folder, options, theme and
  sitegen are those of an earlier build takes every part from the persistent store, without
  importing pandas: the plugin's fixed cost on a small site (site_gen/building/hosted.py makes them).
- on_files: adds every report page as a generated page at the path `sitegen build` gives it
  (`reports/ID/speed.html`), the History page (two reports or more), the receipts and CSVs, the
  stylesheet and the scripts, and a home page with the table of reports when the docs have no
  index.md; under `serve --dirty`, marks for rebuilding the docs pages that drew on a changed report.
- on_page_markdown / on_page_content: sitegen blocks and `{{ … }}` figures of markdown pages
  become HTML (the same `AuthorBlocks` as `sitegen build`; a page expanded by an earlier build
  from the same markdown and reports is taken from the persistent cache); a report page's content
  is the report page's own HTML, rendered by the same templates.
- scripts: one small script (`page.js`, with the names of the others before it) on every page of
  the host, its 404 page too (MkDocs' `extra_javascript`): the "where a number comes from"
  tooltips and the scroll hints of wide tables, on each page and on each page a theme swaps in
  (Material's `navigation.instant`); it loads the chart drawer (or Plotly) where a chart appears
  and the dashboard's sort where the table of reports does, so no page carries a script it does
  not use, and a page reached by instant navigation from any page has what it needs.

Works with MkDocs 1.6 and ProperDocs (which serves `mkdocs.*` imports itself), with the default
theme and with Material for MkDocs. `sitegen build` stays the main product: MkDocs 2.0 drops
plugins, and Zensical ignores third-party ones.
"""
from __future__ import annotations

import json
import posixpath
import re
from html import escape, unescape
from pathlib import Path
from typing import Any, cast

import yaml
from mkdocs.config import base
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc

from site_gen import api

log = get_plugin_logger("sitegen")


class _Option(base.BaseConfigOption):
    """An option of sitegen's table inside MkDocs: checked by the same rule as `sitegen build`, so a
    bad value is one line from MkDocs with sitegen's words (no traceback)."""

    def __init__(self, name: str, option: api.Option) -> None:
        super().__init__()
        self.name, self.option = name, option
        self.default = option.default

    def run_validation(self, value: object) -> Any:
        try:
            return self.option.check(value, self.name, None)
        except api.SitegenError as exc:
            raise base.ValidationError(exc.message if exc.where == self.name else str(exc)) from None


SitegenPluginConfig = type("SitegenPluginConfig", (base.Config,),
                           {name: _Option(name, option) for name, option in api.PLUGIN_OPTIONS.items()})


# (A class made at import from api.PLUGIN_OPTIONS: its options are not declared for the type checker.)
class SitegenPlugin(BasePlugin[SitegenPluginConfig]):  # type: ignore[valid-type]
    """The sitegen report pages and blocks inside an MkDocs (or ProperDocs) site."""

    def __init__(self) -> None:
        self.sg: api.Config | None = None
        # sitegen's part of the site (reports' pages and files, History, blocks of docs pages):
        # kept from one `mkdocs serve` rebuild to the next (see on_startup).
        self.site = api.hosted_site()
        self.page_of: dict[str, dict] = {}  # src_uri -> its page record
        self.expanded: dict[str, Any] = {}
        self._titles: dict[str, tuple[str, list]] = {}  # a page's own titles while search reads it
        self.assets: dict[str, tuple[str, bytes]] = {}
        self.material = False
        self.uses: dict[str, tuple[set[str], bool]] = {}  # what each docs page drew on
        self.dirty = False

    @property
    def records(self) -> list[dict]:
        return self.site.records

    @property
    def environment(self) -> list:
        return self.site.environment

    def on_startup(self, *, command, dirty):
        """(Its being defined keeps this instance across `mkdocs serve` rebuilds, and so the cache.)"""
        self.dirty = dirty

    # -- configuration and receipts -------------------------------------------------------------
    def on_config(self, config):
        file = Path(config.config_file_path or "mkdocs.yml").resolve()
        opts = self.config
        self.page_of, self.expanded = {}, {}
        self.assets = {}
        self.material = config.theme.name == "material"
        try:
            root = file.parent
            self.sg = api.Config(
                config_file=file, site_name=config.site_name, site_dir=Path(config.site_dir),
                docs_dir=Path(config.docs_dir), data_dir=root / opts["data_dir"],
                # MkDocs takes any URL with a scheme and a host (javascript://x/%0a...): sitegen's rule on top.
                site_url=api.check_url(config.site_url, "site_url", file), site_description=config.site_description or "",
                copyright=config.copyright or "", repo_url=api.check_url(config.repo_url, "repo_url", file),
                extra=dict(config.extra or {}),
                noise_band=opts["noise_band"], ratio_scale=opts["ratio_scale"],
                max_receipt_bytes=api.receipt_bytes(opts["max_receipt_mb"]),
                custom_dir=(root / opts["custom_dir"]) if opts["custom_dir"] else None, charts=opts["charts"],
                headline_input=opts["headline_input"], slo=opts["slo"])
            api.check_keys(self.sg.extra, "extra", file)
            api.check_site_dir(self.sg)  # before MkDocs clears site_dir: it may be the data folder
            api.refuse_cache_inside([self.sg.site_dir, self.sg.docs_dir, self.sg.data_dir,
                                     *([self.sg.custom_dir] if self.sg.custom_dir else [])])
            for note in api.cache_notes():
                log.warning(note)
            folders = api.report_folders(self.sg)
            if folders:
                self._assets(config)
            self.site.refresh(self.sg, self.material, {k: v[0] for k, v in self.assets.items()}, bool(folders))
        except api.SitegenError as exc:
            raise PluginError(f"sitegen: {exc}") from None
        for r in self.records:
            for message in r["load_warnings"]:
                log.warning(message)
        if not self.records:
            log.info(f"no reports in {self.sg.data_dir} yet")
        return config

    def _assets(self, config) -> None:
        """The stylesheet (sitegen's, scoped to its blocks) and the scripts, as site files: `page.js`
        on every page (with the names of the scripts it loads where content needs them)."""
        assert self.sg is not None
        themed = api.theme_assets(self.sg)
        css = api.embed_css(themed["css"][1].decode("utf-8"))
        if self.material:
            css += api.static_text(self.sg, api.MATERIAL_CSS)
        else:
            css += api.static_text(self.sg, api.OTHER_THEMES_CSS)
        data = css.encode("utf-8")
        self.assets = {"css": (api.asset_name(api.EMBED_CSS, data), data)}
        self.assets.update({k: v for k, v in themed.items() if k not in ("css", "page")})
        # Names relative to page.js, which sits beside them (a library before its user).
        charts = [k for k in ("plotly", "plotly_charts", "js") if k in themed]
        names = {"charts": [posixpath.basename(themed[k][0]) for k in charts],
                 "dashboard": posixpath.basename(themed["dashboard"][0])}
        page = (f"window.sitegenAssets = {json.dumps(names, sort_keys=True)};\n").encode() + themed["page"][1]
        self.assets["page"] = (api.asset_name("page.js", page), page)
        config.extra_css.append(self.assets["css"][0])
        config.extra_javascript.append(self.assets["page"][0])

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
        if not self.records:
            return files
        for r in self.records:
            for message in r["warnings"]:
                log.warning(message)
            for p in r["pages"]:
                self._add_page(files, config, p)
            for path in r["files"]:
                self._add(files, config, path, self.site.files[path])
        if self.site.history is not None:
            self._add_page(files, config, self.site.history)
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
        if not self.dirty or not self.site.changed:
            return
        for f in files.documentation_pages():
            used, used_all = self.uses.get(f.src_uri, (set(), False))
            if used_all or used & self.site.changed:
                f.is_modified = lambda: True  # type: ignore[method-assign]

    def _add_page(self, files: Files, config, p: dict) -> None:
        """A sitegen page as a generated MkDocs page (its content comes in on_page_content)."""
        meta = yaml.safe_dump({"title": as_text(p["title"])}, allow_unicode=True)  # themes print titles raw
        self._add(files, config, p["src"], f"---\n{meta}---\n\n<!-- sitegen: {p['src']} -->\n", p["url"])
        self.page_of[p["src"]] = p

    def on_nav(self, nav, config, files):
        """In an automatic nav, each report's folder is titled with the report and lists its pages in
        sitegen's order; a nav written in mkdocs.yml is left as it is."""
        if config.nav or not self.records:
            return nav
        order = {p["src"]: i for r in self.records for i, p in enumerate(r["pages"])}
        titles = {r["id"]: r["title"] for r in self.records}
        newest = {r["id"]: i for i, r in enumerate(self.records)}

        def report_of(item) -> str | None:
            if item.is_page and item.file.src_uri in self.page_of and "/" in item.file.src_uri:
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
                    item.title = as_text(titles[rid])  # themes print nav titles raw, and this one is a receipt's
                    item.children.sort(key=lambda p: order.get(p.file.src_uri, 99))
                else:
                    walk(item.children)
                    if item.children and all(ch.is_section and report_of(ch) for ch in item.children):
                        item.children.sort(key=lambda s: newest.get(report_of(s), 99))
        walk(nav.items)
        return nav

    # -- pages ----------------------------------------------------------------------------------
    def on_page_markdown(self, markdown: str, page, config, files):
        src = page.file.src_uri
        if src in self.page_of:
            # The nav's short title (the meta title stays the full one), unless the author's nav
            # names the page (`- GPQA: reports/…/index.md`: MkDocs 1.6 sets it on the instance).
            if "title" not in vars(page):
                page.title = as_text(self.page_of[src]["nav"])
            return markdown
        if not self.records and "sitegen" not in markdown and "{{" not in markdown:
            return markdown  # no reports, and nothing on the page asks for one
        source = page.file.content_string if page.file.generated_by is None else markdown
        offset = source.count("\n", 0, len(source) - len(markdown)) if source.endswith(markdown) else 0
        where = page.file.abs_src_path or src
        try:
            expanded, self.uses[src] = self.site.expand(markdown, where=str(where), dest_uri=page.file.dest_uri,
                                                        meta=page.meta, offset=offset, home=False)
        except api.SitegenError as exc:
            raise PluginError(f"sitegen: {exc}") from None
        for message in expanded.warnings:
            log.warning(message)
        self.expanded[src] = expanded
        return expanded.markdown

    def on_page_content(self, html: str, page, config, files):
        src = page.file.src_uri
        p = self.page_of.get(src)
        if p is not None:
            page.toc = get_toc(cast(Any, api.toc_tokens(p["content"], page.meta["title"])))  # markdown's toc tokens
            # The list of the report's pages (a theme other than Material's) goes in once the search
            # has read the page (on_post_page): it is the page's way around, not its text.
            nav = f"{_PAGES_NAV}\n" if p.get("pages_nav") else ""
            return f'<div class="sitegen-block sitegen-page page-{p["section"] or "site"}">\n{nav}{p["content"]}\n</div>\n'
        html = self._page_links(html, page, files)
        expanded = self.expanded.pop(src, None)
        if not expanded:
            return html
        expanded.pieces = [api.searchable(piece) for piece in expanded.pieces]
        return expanded.restore(html)

    def _page_links(self, html: str, page, files) -> str:
        """The page's own `page:` links made links to the report pages as MkDocs places them (under
        use_directory_urls too), as `sitegen build` makes them; one to no page is no link, as there."""
        if 'href="page:' not in html or not self.records:
            return html
        src_of = {p["url"]: src for src, p in self.page_of.items()}
        default = page.meta.get("report") if isinstance(page.meta.get("report"), str) else None

        def link(m: re.Match) -> str:
            name, _, anchor = unescape(m.group(1)).partition("#")
            url = self.site.report_page(name, default)
            found = files.get_file_from_path(src_of[url]) if url in src_of else None
            if found is None:
                return 'class="broken-link"'
            return 'href="{}"'.format(escape(found.url_relative_to(page.file) + (f"#{anchor}" if anchor else "")))
        return _PAGE_LINK.sub(link, html)


    def on_post_page(self, output: str, page, config):
        p = self.page_of.get(page.file.src_uri)
        if p is not None and p.get("pages_nav"):
            output = output.replace(_PAGES_NAV, p["pages_nav"], 1)
        return output

    # -- search entries -------------------------------------------------------------------------
    # MkDocs' own search (the default theme's, and most themes') lists each page and each of its
    # sections under its title alone: "Each objective at each load" four times over, one per serving
    # report. While it reads a report page (its on_page_context), the page goes by its whole title and
    # each section by its heading and the page's whole title; then the page takes back its titles for
    # the theme (its nav and table of contents, where the report's folder says which report). Material's
    # search shows each section under its page's whole title already.
    @event_priority(50)
    def _search_titles(self, context, page, config, nav):
        p = self.page_of.get(page.file.src_uri)
        if p is None or self.material:
            return context
        whole = page.meta.get("title") or page.title
        items, todo = [], list(page.toc)
        while todo:
            item = todo.pop(0)
            items.append((item, item.title))
            todo[:0] = item.children
        self._titles[page.file.src_uri] = (page.title, items)
        page.title = whole
        for item, title in items:
            if title != whole:
                item.title = f"{title} · {whole}"
        return context

    @event_priority(-50)
    def _own_titles(self, context, page, config, nav):
        kept = self._titles.pop(page.file.src_uri, None)
        if kept is not None:
            page.title = kept[0]
            for item, title in kept[1]:
                item.title = title
        return context

    on_page_context = CombinedEvent(_search_titles, _own_titles)


_PAGE_LINK = re.compile(r'href="page:([^"]*)"')
_PAGES_NAV = "<!-- sitegen: the report's pages -->"


def as_text(s: str) -> str:
    """Receipt text where a theme prints it raw (titles in the nav, the page, the search index):
    escaped as MkDocs escapes a heading's text, so an apostrophe stays one (search finds
    "tpurtell's") and a double quote cannot end an attribute."""
    return escape(s, quote=False).replace('"', "&quot;")
