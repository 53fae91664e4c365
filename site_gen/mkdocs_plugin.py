"""`sitegen` inside `mkdocs build` and `mkdocs serve`: a thin adapter over the pipeline.

    plugins:
      - sitegen:
          data_dir: data

- on_config: each report's part of the site (its pages rendered, its files), made from the
  receipts loaded and analysed by the same `ReportStore` and `settle` as `sitegen build` and
  `sitegen serve`. Under `mkdocs serve` (on_startup keeps the instance) a report whose receipt
  and lede did not change keeps its part; and a build whose receipts folder, options, theme and
  sitegen are those of an earlier build takes every part from the persistent cache
  (site_gen/build/cache.py), without importing pandas: the plugin's fixed cost on a small site.
- on_files: adds every report page as a generated page at the path `sitegen build` gives it
  (`reports/ID/speed.html`), the History page (two reports or more), the receipts and CSVs, the
  stylesheet and the scripts, and a home page with the table of reports when the docs have no
  index.md; under `serve --dirty`, marks for rebuilding the docs pages that drew on a changed report.
- on_page_markdown / on_page_content: sitegen blocks and `{{ … }}` figures of markdown pages
  become HTML (the same `AuthorBlocks` as `sitegen build`; a page expanded by an earlier build
  from the same markdown and reports is taken from the persistent cache); a report page's content
  is the report page's own HTML, rendered by the same templates.
- on_post_page: the chart script on the pages that draw a chart, the dashboard's on the pages
  with the table of reports; on every page when the theme swaps pages in place (Material's
  `navigation.instant`), where the scripts draw each new page on Material's `document$`.

Works with MkDocs 1.6 and ProperDocs (which serves `mkdocs.*` imports itself), with the default
theme and with Material for MkDocs. `sitegen build` stays the main product: MkDocs 2.0 drops
plugins, and Zensical ignores third-party ones.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
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

from site_gen.build import cache
from site_gen.core.config import PLUGIN_OPTIONS, Config, Option, check_keys, check_url, receipt_bytes
from site_gen.core.errors import SitegenError
from site_gen.render.tokens import Expanded
from site_gen.render.where import rel, report_base

if TYPE_CHECKING:
    from site_gen.analysis.report import Analysis
    from site_gen.render.docs import AuthorBlocks
    from site_gen.render.pages import Page
    from site_gen.build.reports import ReportStore

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


_BRACE = re.compile(r"[{}]")


def _blocks(css: str) -> list[tuple[str, str]]:
    """Top-level `prelude { body }` pairs of a stylesheet (comments removed)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out, i, depth, start = [], 0, 0, 0
    for m in _BRACE.finditer(css):
        if m[0] == "{":
            depth += 1
            if depth == 1:
                start = m.start()
        elif depth:
            depth -= 1
            if not depth:
                out.append((css[i:start].strip(), css[start + 1:m.start()]))
                i = m.end()
    if depth:  # an unclosed block runs to the end (its last character aside, as before)
        out.append((css[i:start].strip(), css[start + 1:len(css) - 1]))
    return out


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
    from site_gen.render.where import theme_dir

    path = config.custom_dir / name if config.custom_dir and (config.custom_dir / name).is_file() else theme_dir("static") / name
    return path.read_text(encoding="utf-8")


# The overview's note on where the data comes from, as Material shows a note: an admonition.
_ABOUT = re.compile(r'<p class="illustrative" id="illustrative"><strong>(About the data):</strong> (.*?)</p>', re.S)


def _admonition(m: re.Match) -> str:
    return f'<div class="admonition info" id="illustrative">\n<p class="admonition-title">{m[1]}</p>\n<p>{m[2]}</p>\n</div>'


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


# The plugin's own entries in the persistent cache (site_gen/build/cache.py): each report's part of the
# site under a hash of all it is made from; the list of them (and the History page) under a hash of
# the receipts folder; a docs page's blocks and figures under that hash, its markdown and place.
_REPORT_KIND, _SET_KIND, _PAGES_KIND = "mkdocs-report", "mkdocs-reports", "mkdocs-pages"
_PAGE_FIELDS = {"src": str, "url": str, "title": str, "nav": str, "charts": bool, "content": str}
_REPORT_FIELDS = {"id": str, "title": str, "version": list, "pages": list, "files": list, "warnings": list,
                  "load_warnings": list}


def _valid_page(p: object) -> bool:
    return (isinstance(p, dict) and all(isinstance(p.get(k), t) for k, t in _PAGE_FIELDS.items())
            and isinstance(p.get("section"), (str, type(None))))


def _valid_record(r: object, files: dict[str, bytes]) -> bool:
    """Whether a report's cache entry has the shape the plugin reads (a checksum guards its bytes,
    not an older sitegen's layout)."""
    return (isinstance(r, dict) and all(isinstance(r.get(k), t) for k, t in _REPORT_FIELDS.items())
            and all(map(_valid_page, r["pages"])) and all(isinstance(w, str) for w in r["warnings"] + r["load_warnings"])
            and all(isinstance(f, str) and f in files for f in r["files"]))


def _cached_report(name: str | None) -> tuple[dict, dict[str, bytes]] | None:
    entry = cache.unpack(cache.read(_REPORT_KIND, name) if name else None)
    if entry is None or not _valid_record(entry[0].get("record"), entry[1]):
        return None
    return entry[0]["record"], entry[1]


class SitegenPlugin(BasePlugin[SitegenPluginConfig]):
    """The sitegen report pages and blocks inside an MkDocs (or ProperDocs) site."""

    def __init__(self) -> None:
        self.sg: Config | None = None
        # Each report's part of the site, newest first: its id, title and version (receipt and
        # lede hashes), its pages ({src, url, title, nav, section, charts, content}: the content
        # rendered), the names of its files (receipt, CSVs) and its warnings. `files` holds their bytes.
        self.records: list[dict] = []
        self.files: dict[str, bytes] = {}
        self.history: dict | None = None
        self.set_key: str | None = None   # the persistent cache's name for them (None: not cached)
        self.page_of: dict[str, dict] = {}  # src_uri -> its page record
        self.blocks: AuthorBlocks | None = None
        self.expanded: dict[str, Expanded] = {}
        self.charts: set[str] = set()                 # src_uri of pages that draw a chart
        self.dashboards: set[str] = set()             # src_uri of pages with the table of reports
        self.assets: dict[str, tuple[str, bytes]] = {}
        self.material = False
        # Kept from one `mkdocs serve` rebuild to the next (see on_startup): the loads and analyses
        # (the ReportStore `sitegen serve` uses), each report's record while its version holds, and
        # what each docs page drew on.
        self.store: ReportStore | None = None
        self._store_env: str | None = None
        self._analyses: list[Analysis] | None = None
        self.made: dict[str, tuple[tuple, dict, dict[str, bytes]]] = {}
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
        self.page_of, self.expanded, self.charts, self.dashboards = {}, {}, set(), set()
        self.blocks, self.assets, self._analyses = None, {}, None
        self.material = config.theme.name == "material"
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
                headline_input=opts["headline_input"], slo=opts["slo"])
            check_keys(self.sg.extra, "extra", file)
            cache.refuse_inside([self.sg.site_dir, self.sg.docs_dir, self.sg.data_dir,
                                 *([self.sg.custom_dir] if self.sg.custom_dir else [])])
            for note in cache.notes:
                log.warning(note)
            from site_gen.receipts.load import report_folders

            folders = report_folders(self.sg.data_dir)
            if folders:
                self._assets(config)
            self._reports(bool(folders))
        except SitegenError as exc:
            raise PluginError(f"sitegen: {exc}") from None
        for r in self.records:
            for message in r["load_warnings"]:
                log.warning(message)
        if not self.records:
            log.info(f"no reports in {self.sg.data_dir} yet")
        return config

    def _assets(self, config) -> None:
        """The stylesheet (sitegen's, scoped to its blocks) and the scripts, as site files."""
        from site_gen.render.assets import asset_name, theme_assets

        assert self.sg is not None
        themed = theme_assets(self.sg)
        css = embed_css(themed["css"][1].decode("utf-8"))
        if self.material:
            css += _static_text(self.sg, MATERIAL_CSS)
        data = css.encode("utf-8")
        self.assets = {"css": (asset_name(EMBED_CSS, data), data)}
        self.assets.update({k: v for k, v in themed.items() if k != "css"})
        config.extra_css.append(self.assets["css"][0])

    def _env(self) -> str:
        """What every record is made under besides the receipts: the options, the theme."""
        assert self.sg is not None
        return repr((dataclasses.replace(self.sg, site_dir=Path(".")), self.material))

    def _reports(self, any_folder: bool) -> None:
        """The reports' records: the last build's when nothing they are made from changed (in this
        process, or in the persistent cache), else made again, reusing every report whose receipt
        and lede did not change. `self.changed` names the reports whose version changed."""
        before = {r["id"]: r["version"] for r in self.records}
        base = self._cache_base() if any_folder else None
        key = self._set_key(base)
        if not any_folder:
            self.records, self.files, self.history = [], {}, None
        elif key is None or key != self.set_key:
            if not self._from_cache(key):
                names = self._make(base)
                if key and None not in names:
                    cache.write(_SET_KIND, key, json.dumps({"reports": names, "history": self.history}).encode("utf-8"))
        self.set_key = key
        after = {r["id"]: r["version"] for r in self.records}
        self.changed = {rid for rid in before.keys() | after.keys() if before.get(rid) != after.get(rid)}

    def _cache_base(self) -> str | None:
        """What every cache entry of this build is made under besides its receipts: sitegen's code
        and theme, the custom_dir's files, the installed packages, the options; None when the cache
        is off or one of them cannot be told (a symbolic link, a section from outside sitegen)."""
        from site_gen.build import report_cache, site_cache
        code = report_cache.code_hash()
        if code is None or cache.folder() is None:
            return None
        assert self.sg is not None
        h = hashlib.sha256()
        try:
            site_cache.hash_tree(self.sg.custom_dir, h)
            site_cache.check_sections()
        except (site_cache.Unsuitable, OSError):
            return None
        return cache.key("mkdocs", code, h.hexdigest(), site_cache.packages(), self._env())

    def _set_key(self, base: str | None) -> str | None:
        """The name of the list of reports: a hash of the receipts folder under `base`; None when
        it cannot be hashed (a symbolic link)."""
        from site_gen.build import site_cache
        if base is None:
            return None
        assert self.sg is not None
        h = hashlib.sha256()
        try:
            site_cache.hash_tree(self.sg.data_dir, h)
        except (site_cache.Unsuitable, OSError):
            return None
        return cache.key(_SET_KIND, base, h.hexdigest())

    def _from_cache(self, key: str | None) -> bool:
        """Takes the records of an earlier build with the same inputs, if the cache holds them all."""
        try:
            head = json.loads(cache.read(_SET_KIND, key) or b"null") if key else None
        except ValueError:
            return False
        if not (isinstance(head, dict) and isinstance(head.get("reports"), list)
                and (head.get("history") is None or _valid_page(head["history"]))):
            return False
        records, files = [], {}
        for name in head["reports"]:
            got = _cached_report(name) if isinstance(name, str) else None
            if got is None:
                return False
            records.append(got[0])
            files.update(got[1])
        self.records, self.files, self.history = records, files, head["history"]
        return True

    @property
    def analyses(self) -> list[Analysis]:
        """The reports loaded and analysed (the same `ReportStore` and `settle` as `sitegen build`
        and `serve`), newest first; computed only when a build needs them: records from the cache
        and docs pages expanded before do not."""
        if self._analyses is None:
            from site_gen.build.assembly import settle
            from site_gen.build.reports import ReportStore

            if self.store is None or self._store_env != self._env():
                self.store = ReportStore(self.sg, strict=False, watched=False, stats={})
                self._store_env, self.made = self._env(), {}
            self._analyses = settle([self.store.analysis(r) for r in self.store.reports()])
        return self._analyses

    def _make(self, base: str | None) -> list[str | None]:
        """The records from the analyses, each report's kept while its version holds (in this
        process, or in the persistent cache); the names of their cache entries."""
        from site_gen.render.related import NONE, relations

        analyses = self.analyses
        related = relations(analyses)
        self.records, self.files, names = [], {}, []
        for a in analyses:
            r = a.report
            links = related.get(r.id, NONE)
            # Its pages show the reports it links to: their receipts are part of its version.
            version = [r.sha256, hashlib.sha256(r.lede.encode("utf-8", "surrogatepass")).hexdigest(),
                       [list(pair) for pair in links.receipts]]
            name = cache.key(_REPORT_KIND, base, r.id, version) if base else None
            made = self.made.get(r.id)
            # (A custom_dir edit under `mkdocs serve` changes `base`: the pages are made again.)
            if made is None or made[0] != (base, version):
                got = _cached_report(name)
                if got is None or got[0]["id"] != r.id or got[0]["version"] != version:
                    got = self._record(a, version, links)
                    if name:
                        cache.write(_REPORT_KIND, name, cache.pack({"record": got[0]}, got[1]))
                made = self.made[r.id] = ((base, version), *got)
            self.records.append(made[1])
            self.files.update(made[2])
            names.append(name)
        for rid in set(self.made) - {a.report.id for a in analyses}:
            del self.made[rid]
        self.history = self._history_page(analyses) if len(analyses) > 1 else None
        return names

    def _record(self, a: Analysis, version: list, links) -> tuple[dict, dict[str, bytes]]:
        """One report's pages, rendered as the plugin shows them, and its files."""
        from site_gen.render.pages import ReportPages

        rp = ReportPages(a, self.sg, [], strict=False, related=links)
        pages = [self._page(report_base(a.report.id) + posixpath.splitext(name)[0] + ".md", rp.page(key, title, name),
                            f"{title} — {a.report.title}", title) for key, title, name in rp.sections]
        files = rp.files()
        record = {"id": a.report.id, "title": a.report.title, "version": version, "pages": pages, "files": sorted(files),
                  "warnings": list(rp.warnings), "load_warnings": list(a.report.warnings)}
        return record, files

    def _history_page(self, analyses: list[Analysis]) -> dict:
        from site_gen.build.assembly import report_url
        from site_gen.render import history as history_view
        from site_gen.render.pages import Page

        page = Page(url=history_view.HISTORY_URL, title="History", template="history.html",
                    context={"history": history_view.context(analyses, report_url)})
        return self._page("history.md", page, "History", "History")

    def _page(self, src: str, page: Page, title: str, nav_title: str) -> dict:
        """A sitegen page's record: its content rendered by sitegen's templates for inside the theme.
        `title` names it in the browser's tab and in search results (where a bare "Speed" would
        not tell one report from another); the nav, where the report's folder says which report
        it is, takes the short `nav_title`."""
        from site_gen.render.pages import render_content

        asset_urls = {k: v[0] for k, v in self.assets.items()}
        content = searchable(render_content(page, self.sg, [], asset_urls), page_title=True)
        return {"src": src, "url": page.url, "title": title, "nav": nav_title, "section": page.section,
                "charts": page.charts, "content": _ABOUT.sub(_admonition, content) if self.material else content}

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
                self._add(files, config, path, self.files[path])
        if self.history is not None:
            self._add_page(files, config, self.history)
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

    def _add_page(self, files: Files, config, p: dict) -> None:
        """A sitegen page as a generated MkDocs page (its content comes in on_page_content)."""
        meta = yaml.safe_dump({"title": escape(p["title"])}, allow_unicode=True)  # themes print titles raw
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
                    item.title = escape(titles[rid])  # themes print nav titles raw, and this one is a receipt's
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
            page.title = escape(self.page_of[src]["nav"])  # the meta title stays the full one
            return markdown
        if not self.records and "sitegen" not in markdown and "{{" not in markdown:
            return markdown  # no reports, and nothing on the page asks for one
        source = page.file.content_string if page.file.generated_by is None else markdown
        offset = source.count("\n", 0, len(source) - len(markdown)) if source.endswith(markdown) else 0
        where = page.file.abs_src_path or src
        home = src in ("index.md", "README.md")
        key = cache.key(_PAGES_KIND, self.set_key, markdown, str(where), page.file.dest_uri, repr(page.meta), offset,
                        home) if self.set_key else None
        kept = _expansion(cache.read(_PAGES_KIND, key) if key else None)
        if kept is not None:
            expanded, self.uses[src] = kept
        else:
            try:
                blocks = self._author_blocks()
                blocks.used, blocks.used_all = set(), False
                expanded = blocks.expand(markdown, file=where, page_path=page.file.dest_uri, meta=page.meta,
                                         line_offset=offset, home=home)
            except SitegenError as exc:
                raise PluginError(f"sitegen: {exc}") from None
            self.uses[src] = (set(blocks.used), blocks.used_all)
            if key:
                cache.write(_PAGES_KIND, key, json.dumps({**dataclasses.asdict(expanded), "used": sorted(blocks.used),
                                                          "used_all": blocks.used_all}).encode("utf-8"))
        for message in expanded.warnings:
            log.warning(message)
        self.expanded[src] = expanded
        if expanded.charts:
            self.charts.add(src)
        if "dashboard" in expanded.blocks:
            self.dashboards.add(src)
        return expanded.markdown

    def _author_blocks(self) -> AuthorBlocks:
        """The blocks of docs pages, drawn from the analyses (made on the first page that needs them)."""
        if self.blocks is None:
            from site_gen.render.docs import AuthorBlocks

            analyses = self.analyses if self.records else []
            if analyses:
                from site_gen.build.assembly import Site

                self.blocks = AuthorBlocks(analyses, self.sg, dashboard=Site(analyses).dashboard())
            else:
                self.blocks = AuthorBlocks([], self.sg)  # says "unknown report" where the page names one
        return self.blocks

    def on_page_content(self, html: str, page, config, files):
        src = page.file.src_uri
        p = self.page_of.get(src)
        if p is not None:
            if p["charts"]:
                self.charts.add(src)
            page.toc = _toc(p["content"], page.meta["title"])
            return f'<div class="sitegen-block sitegen-page page-{p["section"] or "site"}">\n{p["content"]}\n</div>\n'
        expanded = self.expanded.pop(src, None)
        if not expanded:
            return html
        expanded.pieces = [searchable(piece) for piece in expanded.pieces]
        return expanded.restore(html)

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
        keys.sort(key=lambda k: k != "plotly")  # a library before its user
        scripts = "".join(f'<script src="{rel(page.file.dest_uri, self.assets[k][0])}" defer></script>' for k in keys)
        at = output.rfind("</body>")
        return output[:at] + scripts + "\n" + output[at:] if at >= 0 else output + scripts


def _expansion(data: bytes | None) -> tuple[Expanded, tuple[set[str], bool]] | None:
    """A docs page's expansion kept by an earlier build, and the reports it drew on; None if unreadable."""
    try:
        kept = json.loads(data) if data is not None else None
        used, used_all = kept.pop("used"), kept.pop("used_all")
        expanded = Expanded(**kept)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    strings = [expanded.markdown, expanded.marker, *expanded.pieces, *expanded.blocks, *expanded.warnings, *used]
    if not (all(isinstance(s, str) for s in strings) and isinstance(expanded.charts, bool) and isinstance(used_all, bool)):
        return None
    expanded.failed = [tuple(f) for f in expanded.failed]
    return expanded, (set(used), used_all)


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
