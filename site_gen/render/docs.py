"""Author pages: the markdown (and other files) of `docs_dir`, found, read and made site pages.

The block language they use is `blocks`; front matter and titles follow MkDocs (`frontmatter`).
"""
from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from site_gen.core import collector
from site_gen.core.config import Config
from site_gen.core.records import Dependencies, content_hash
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.core.files import leads_out, read_limited
from site_gen.render import markdown as md, sitenav
from site_gen.render.contexts import DocsPageContext, as_context
# The block language and MkDocs' title rules, re-exported for the plugin and the tests.
from site_gen.render.blocks import COMMON_OPTIONS, AuthorBlocks, Expanded, all_blocks
from site_gen.render.frontmatter import file_title, split_front_matter, title_of
from site_gen.render.pages import Page, rel, report_base
from site_gen.render.where import HISTORY_URL

__all__ = ["COMMON_OPTIONS", "MARKDOWN_SUFFIXES", "AuthorBlocks", "DocsPages", "Expanded", "all_blocks", "file_title",
           "split_front_matter", "title_of"]

MARKDOWN_SUFFIXES = (".md", ".markdown")
# A file of docs_dir other than a page is copied into the site whole (GitHub Pages refuses larger files).
DOCS_MAX_FILE_BYTES = 100 << 20
# A report named as the one a page's blocks or figures draw on (see DocsPages.named).
_REPORT_NAMED = re.compile(r"\breport\s*[:=]\s*[\"']?([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass
class _Source:
    src: str        # path inside docs_dir, '/'-separated
    path: Path
    url: str        # site path of the output
    text: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    offset: int = 0
    title: str = ""


class DocsPages:
    """`sitegen build`'s side: the markdown pages (and other files) of `docs_dir`, as site pages.

    `docs/guide.md` becomes `guide.html`, `docs/a/index.md` becomes `a/index.html`; every other file
    is copied as it is. `docs/index.md` is the home page: its text, then the table of reports unless
    the page places that itself with a `dashboard` block. Pages join the site navigation.
    """

    def __init__(self, config: Config, records: list, analysis_of=None):
        """`records`: the reports' records (site_gen/building/environment.py); `analysis_of(id)`: a
        report's analysis, asked for only where a block or a figure shows it."""
        self.config = config
        self.records = records
        self.analysis_of = analysis_of
        self.warnings: list[Diagnostic] = []
        self.sources: dict[str, _Source] = {}
        self.static: dict[str, Path] = {}
        self._discover()
        for s in self.sources.values():
            self._read(s)
        # The site's own entries: `nav:` of the config (render/sitenav.py), else every page but the home page.
        self.nav_warnings: list[Diagnostic] = []
        if config.nav:
            pages = {s.src: (s.url, s.title) for s in self.sources.values()}
            self.nav, self.nav_warnings = sitenav.docs_nav(config.nav, pages, config.config_file,
                                                           [r.id for r in records] if records else None)
        else:
            self.nav = [{"title": s.title, "url": s.url, "report": None}
                        for s in sorted(self.sources.values(), key=lambda s: s.src) if s.url != "index.html"]

    def named(self, ids: list[str], most: int = 32) -> frozenset[str]:
        """The first `most` of `ids` that a page names as the report of its blocks or figures
        (`report: ID` in its front matter or a block, `report=ID` in a figure): the reports whose
        analyses they will likely ask for. A `page:` link needs no analysis, only the report's record."""
        said = {m.group(1) for s in self.sources.values() for m in _REPORT_NAMED.finditer(s.text)}
        return frozenset([rid for rid in ids if rid in said][:most])

    @property
    def has_home(self) -> bool:
        return any(s.url == "index.html" for s in self.sources.values())

    def _discover(self) -> None:
        root = self.config.docs_dir
        if not root.is_dir():
            return
        reserved = tuple(report_base(r.id) for r in self.records) + ("assets/",)
        # The History page of a site of several reports: a docs page or file of its name would
        # replace it (a page silently, being rendered after it).
        generated = {HISTORY_URL} if len(self.records) > 1 else set()
        found: list[tuple[str, Path]] = []
        for path in sorted(root.rglob("*")):
            rel_path = path.relative_to(root).as_posix()
            parts = rel_path.split("/")
            if any(p.startswith(".") for p in parts) or parts[0] == "templates":
                continue
            if path.is_symlink() and (out := leads_out(path, root)) is not None:
                # /etc/passwd or /proc/self/environ would be published (and a link to a folder outside, listed).
                raise SitegenError(f"is a link that leads out of docs_dir {root} (to {out}); sitegen publishes only "
                                   "files inside docs_dir: copy the file in, or remove the link", path)
            if not path.is_file():
                continue
            try:
                rel_path.encode("utf-8")
            except UnicodeEncodeError:
                # A name that is not UTF-8 (Python reads its bytes as surrogates) can be no URL.
                shown = os.fsencode(path).decode("utf-8", "backslashreplace")
                raise SitegenError("file name is not UTF-8; rename the file", shown) from None
            found.append((rel_path, path))
        md_srcs = {s for s, _ in found if s.lower().endswith(MARKDOWN_SUFFIXES)}
        for src, path in found:
            if src in md_srcs:
                folder, name = posixpath.split(src)
                stem = posixpath.splitext(name)[0]
                if stem == "README" and posixpath.join(folder, "index.md") in md_srcs:
                    continue  # MkDocs' rule: README.md is the index only where there is no index.md
                url = posixpath.join(folder, "index.html" if stem in ("index", "README") else stem + ".html")
                dest = url
            else:
                dest = src
            if dest.startswith(reserved) or dest in generated:
                raise SitegenError(f"would replace a file sitegen generates ({dest}); move it elsewhere in docs", path)
            if src in md_srcs:
                if any(s.url == dest for s in self.sources.values()):
                    raise SitegenError(f"two pages would both become {dest}", path)
                self.sources[src] = _Source(src=src, path=path, url=dest)
            else:
                self.static[dest] = path

    def _read(self, s: _Source) -> None:
        raw = read_limited(s.path, md.DOCS_MAX_PAGE_BYTES, "docs page", "split it into pages")
        try:
            s.text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise SitegenError("not UTF-8 text", s.path) from None
        s.meta, s.body, s.offset = split_front_matter(s.text, s.path)
        try:
            md.check_docs_markdown(s.body)
        except md.InlineError as exc:
            raise SitegenError(str(exc), s.path, f"line {s.offset + md.line_of(s.body, exc.offset)}") from None
        fallback = self.config.site_name if s.url == "index.html" else file_title(s.src)
        s.title = title_of(s.meta, s.body, fallback)

    def _extensions(self) -> list:
        exts = list(md.AUTHOR_EXTENSIONS)
        for name in self.config.markdown_extensions:
            if name not in exts:
                exts.append(name)
        return exts

    def pages(self, home: Page, cache: dict | None = None) -> list[Page]:
        """Every docs page; `home` (the dashboard) is kept only when docs has no index.md.

        With `cache` (kept by the caller between builds), a page is remade only when the record of
        what it was made from (its text, the reports it draws on) changed: a receipt edit remakes
        the pages that show that report (and a page with the dashboard), not every page of docs.
        """
        blocks = AuthorBlocks(self.records, self.analysis_of, self.config, dashboard=home.context.get("reports", []))
        # A report's lede shows only on its overview, which no block draws on. (Asked only of a site
        # with docs pages: the blocks are declared in the sections' views, which import pandas.)
        lede = bool(self.sources) and any(spec.section == "overview" for spec in all_blocks().values())
        versions = {r.id: (r.sha256, r.lede if lede else None, r.file) for r in self.records}
        ids = content_hash(repr(sorted(versions)))
        self.warnings.extend(self.nav_warnings)
        out = [] if self.has_home else [home]
        live = {}
        for s in sorted(self.sources.values(), key=lambda s: s.src):
            hit = cache.get(s.src) if cache is not None else None
            if hit is not None and hit[0] == self._record(s, [rid for rid, _ in hit[0].receipts], versions, ids):
                page, warnings = hit[1], hit[2]
            else:
                blocks.used, blocks.used_all = set(), False
                warned = len(self.warnings)
                page = self._page(s, blocks)
                used = sorted(versions) if blocks.used_all else sorted(blocks.used)
                page.deps = self._record(s, used, versions, ids)
                warnings = self.warnings[warned:]
                self.warnings = self.warnings[:warned]
            self.warnings.extend(warnings)
            live[s.src] = (page.deps, page, warnings)
            out.append(page)
            collector.between()  # a page's markdown converter refers to itself: core/collector.py
        if cache is not None:
            cache.clear()
            cache.update(live)
        return out

    @staticmethod
    def _record(s: _Source, used: list[str], versions: dict[str, tuple], ids: str) -> Dependencies:
        """What a docs page is made from: its text, where it goes among which reports, the reports it draws on."""
        mine = [(rid, versions[rid]) for rid in used if rid in versions]
        return Dependencies(receipts=tuple((rid, v[0]) for rid, v in mine),
                            ledes=tuple((rid, v[1]) for rid, v in mine if v[1] is not None),
                            docs=((s.src, content_hash(s.text)),), site=content_hash(f"{s.url}\0{ids}"),
                            files=frozenset([os.path.realpath(s.path), *(v[2] for _, v in mine)]))

    def _page(self, s: _Source, blocks: AuthorBlocks) -> Page:
        """One docs page made: blocks expanded, markdown converted, links between pages resolved."""
        by_id = {r.id: r for r in self.records}
        default = s.meta.get("report") if isinstance(s.meta.get("report"), str) else None

        def resolve_page(target: str) -> str | None:
            report, _, section = target.rpartition("/")
            report = report or default or (next(iter(by_id)) if len(by_id) == 1 else "")
            url = blocks.report_url(report, section or "overview")
            return rel(s.url, url) if url else None

        def resolve_link(target: str) -> str | None:
            path, hash_, anchor = target.partition("#")
            if not path.lower().endswith(MARKDOWN_SUFFIXES):
                return None
            src = posixpath.normpath(posixpath.join(posixpath.dirname(s.src), path))
            if src not in self.sources:
                self.warnings.append(Diagnostic(f"links to '{path}', which is not a page in {self.config.docs_dir.name}/", s.path))
                return None
            return rel(s.url, self.sources[src].url) + hash_ + anchor

        expanded = blocks.expand(s.body, file=s.path, page_path=s.url, meta=s.meta, line_offset=s.offset,
                                 home=s.url == "index.html")
        self.warnings.extend(expanded.warnings)
        try:
            converter = md.author_markdown(resolve_page, resolve_link, self._extensions())
        except (ImportError, AttributeError, TypeError, ValueError) as exc:
            raise SitegenError(f"a markdown extension could not be loaded: {exc}", self.config.config_file,
                               "markdown_extensions") from None
        html = expanded.restore(converter.convert(expanded.markdown))
        return Page(url=s.url, title=s.title, template="page.html", charts=expanded.charts,
                    context=as_context(DocsPageContext(Markup(html), {"src": s.src}, "dashboard" in expanded.blocks)))

    def files(self) -> dict[str, bytes]:
        return {out: read_limited(path, DOCS_MAX_FILE_BYTES, "docs file", "a site's file is published whole")
                for out, path in self.static.items()}
