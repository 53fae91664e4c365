"""sitegen's part of a site another generator builds (an MkDocs site, through the plugin): each
report's pages rendered as content for the host's theme, its files, the History page, the assets,
and the blocks and figures of the host's own markdown pages.

Made from the same build environment as `sitegen build` (site_gen/building/reports.py: each
report's record, its receipt loaded and analysed only when its pages must be made), kept from one
host rebuild to the next (`mkdocs serve`) and in the persistent store: a build whose receipts
folder, options, theme and sitegen are an earlier build's takes every report's part from the
store without importing pandas (the plugin's fixed cost on a small site).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_gen.building import cache
from site_gen.building.store import Store, Unsuitable, hash_tree
from site_gen.core.config import Config
from site_gen.core.diagnostics import from_data
from site_gen.render.tokens import Expanded
from site_gen.render.where import report_base

if TYPE_CHECKING:
    from site_gen.building.reports import ReportStore
    from site_gen.render.blocks import AuthorBlocks
    from site_gen.render.pages import Page

# Its entries in the persistent store: each report's part of the site under a hash of all it is
# made from; the list of them (and the History page) under a hash of the receipts folder; a host
# page's blocks and figures under that hash, its markdown and place.
_REPORT_KIND, _SET_KIND, _PAGES_KIND = "mkdocs-report", "mkdocs-reports", "mkdocs-pages"
_PAGE_FIELDS = {"src": str, "url": str, "title": str, "nav": str, "charts": bool, "content": str, "pages_nav": str}
_REPORT_FIELDS = {"id": str, "title": str, "version": list, "pages": list, "files": list, "warnings": list,
                  "load_warnings": list}


def _valid_page(p: object) -> bool:
    return (isinstance(p, dict) and all(isinstance(p.get(k), t) for k, t in _PAGE_FIELDS.items())
            and isinstance(p.get("section"), (str, type(None))))


def _valid_record(r: object, files: dict[str, bytes]) -> bool:
    """Whether a report's entry has the shape this module reads (the HMAC guards its bytes, not an
    older sitegen's layout)."""
    return (isinstance(r, dict) and all(isinstance(r.get(k), t) for k, t in _REPORT_FIELDS.items())
            and all(map(_valid_page, r["pages"])) and from_data(r["warnings"]) is not None
            and from_data(r["load_warnings"]) is not None and all(isinstance(f, str) and f in files for f in r["files"]))


def _cached_report(name: str | None) -> tuple[dict, dict[str, bytes]] | None:
    entry = cache.unpack(cache.read(_REPORT_KIND, name) if name else None)
    if entry is None or not _valid_record(entry[0].get("record"), entry[1]):
        return None
    record = entry[0]["record"]
    return {**record, "warnings": from_data(record["warnings"]), "load_warnings": from_data(record["load_warnings"])}, entry[1]


def _packed(record: dict) -> dict:
    """A report's record as its store entry keeps it: each warning with its parts."""
    return {**record, "warnings": [w.as_data() for w in record["warnings"]],
            "load_warnings": [w.as_data() for w in record["load_warnings"]]}


def _expansion(data: bytes | None) -> tuple[Expanded, tuple[set[str], bool]] | None:
    """A host page's expansion kept by an earlier build, and the reports it drew on; None if unreadable."""
    if data is None:
        return None
    try:
        kept = json.loads(data)
        used, used_all = kept.pop("used"), kept.pop("used_all")
        warnings = from_data(kept.pop("warnings"))
        expanded = Expanded(**kept, warnings=warnings or [])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    strings = [expanded.markdown, expanded.marker, *expanded.pieces, *expanded.blocks, *used]
    if not (all(isinstance(s, str) for s in strings) and warnings is not None and isinstance(expanded.charts, bool)
            and isinstance(used_all, bool)
            and all(isinstance(f, list) and len(f) == 2 and isinstance(f[0], int) and isinstance(f[1], str)
                    for f in expanded.failed)):
        return None
    expanded.failed = [(f[0], f[1]) for f in expanded.failed]
    return expanded, (set(used), used_all)


class HostedSite:
    """The reports' part of a host site: `records` (newest first: each report's id, title, version,
    pages {src, url, title, nav, section, charts, content}, file names and warnings), `files` (their
    bytes), `history` (the History page's record, with two reports or more) and `changed` (the
    reports whose version changed since the last `refresh`)."""

    def __init__(self) -> None:
        self.sg: Config | None = None
        self.material = False
        self.records: list[dict] = []
        self.files: dict[str, bytes] = {}
        self.history: dict | None = None
        self.set_key: str | None = None   # the store's name for them (None: not kept)
        self.changed: set[str] = set()
        self.blocks: AuthorBlocks | None = None
        # Kept from one host rebuild to the next: the build environment, each report's record while
        # its version holds, and the asset URLs its pages were rendered with.
        self.store: ReportStore | None = None
        self._store_env: str | None = None
        self._environment: list | None = None
        self.made: dict[str, tuple[tuple, dict, dict[str, bytes]]] = {}
        self.asset_urls: dict[str, str] = {}

    # -- the reports ------------------------------------------------------------------------------
    def refresh(self, sg: Config, material: bool, asset_urls: dict[str, str], any_folder: bool) -> None:
        """The reports' records: the last build's when nothing they are made from changed (in this
        process, or in the store), else made again, reusing every report whose receipt and lede did
        not change."""
        self.sg, self.material, self.asset_urls = sg, material, asset_urls
        self.blocks, self._environment = None, None
        # A template edited since the last rebuild is compiled again (Jinja checks no file on its
        # own: render/environment.py). Only if this process has templates to check: a rebuild whose
        # every report comes from the store imports no Jinja.
        rendering = sys.modules.get("site_gen.render.environment")
        if rendering is not None:
            rendering.refresh()
        before = {r["id"]: r["version"] for r in self.records}
        base = self._base() if any_folder else None
        key = self._set_key(base)
        if not any_folder:
            self.records, self.files, self.history = [], {}, None
        elif key is None or key != self.set_key:
            if not self._from_store(key):
                names = self._make(base)
                if key and None not in names:
                    cache.write(_SET_KIND, key, json.dumps({"reports": names, "history": self.history}).encode("utf-8"))
        self.set_key = key
        after = {r["id"]: r["version"] for r in self.records}
        self.changed = {rid for rid in before.keys() | after.keys() if before.get(rid) != after.get(rid)}

    def _env(self) -> str:
        """What every record is made under besides the receipts: the options, the theme."""
        assert self.sg is not None
        return repr((dataclasses.replace(self.sg, site_dir=Path(".")), self.material))

    def _base(self) -> str | None:
        """What every entry of this build is made under besides its receipts (`Store.name`: the
        build's environment), with the theme; None when the store is off or cannot tell."""
        assert self.sg is not None
        return Store(self.sg, enabled=True).name("mkdocs", self.material)

    def _set_key(self, base: str | None) -> str | None:
        """The name of the list of reports: a hash of the receipts folder under `base`; None when it
        cannot be hashed (a symbolic link)."""
        if base is None:
            return None
        assert self.sg is not None
        h = hashlib.sha256()
        try:
            hash_tree(self.sg.data_dir, h)
        except (Unsuitable, OSError):
            return None
        return cache.key(_SET_KIND, base, h.hexdigest())

    def _from_store(self, key: str | None) -> bool:
        """Takes the records of an earlier build with the same inputs, if the store holds them all."""
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
    def environment(self) -> list:
        """The reports' records (the same `ReportStore` and `settle` as `sitegen build` and `serve`),
        newest first; computed only when a build needs them."""
        if self._environment is None:
            from site_gen.building.assembly import settle
            from site_gen.building.reports import ReportStore

            assert self.sg is not None
            if self.store is None or self._store_env != self._env():
                self.store = ReportStore(self.sg, watched=False, stats={})
                self._store_env, self.made = self._env(), {}
            self._environment = settle([self.store.record_of(e) for e in self.store.entries()])
        return self._environment

    def _make(self, base: str | None) -> list[str | None]:
        """The records, each report's kept while its version holds (in this process, or in the
        store); the names of their entries."""
        from site_gen.render.related import NONE, relations

        records = self.environment
        assert self.store is not None  # made with the records
        related = relations(records)
        self.records, self.files, names = [], {}, []
        for r in records:
            links = related.get(r.id, NONE)
            # Its pages show the reports it links to: their receipts are part of its version.
            version = [r.sha256, r.lede, [list(pair) for pair in links.receipts]]
            name = cache.key(_REPORT_KIND, base, r.id, version) if base else None
            made = self.made.get(r.id)
            # (A custom_dir edit under `mkdocs serve` changes `base`: the pages are made again.)
            if made is None or made[0] != (base, version):
                got = _cached_report(name)
                if got is None or got[0]["id"] != r.id or got[0]["version"] != version:
                    got = self._record(self.store.analysis_of(r.id), version, links)
                    if name:
                        cache.write(_REPORT_KIND, name, cache.pack({"record": _packed(got[0])}, got[1]))
                made = self.made[r.id] = ((base, version), *got)
            self.records.append(made[1])
            self.files.update(made[2])
            names.append(name)
        for rid in set(self.made) - {r.id for r in records}:
            del self.made[rid]
        self.history = self._history_page(records) if len(records) > 1 else None
        return names

    def _record(self, a, version: list, links) -> tuple[dict, dict[str, bytes]]:
        """One report's pages, rendered as the host shows them, and its files."""
        from site_gen.render.pages import ReportPages

        assert self.sg is not None
        rp = ReportPages(a, self.sg, [], related=links)
        pages = [self._page(report_base(a.report.id) + posixpath.splitext(name)[0] + ".md", rp.page(key, title, name),
                            f"{title} — {a.report.title}", title) for key, title, name in rp.sections]
        files = rp.files()
        record = {"id": a.report.id, "title": a.report.title, "version": version, "pages": pages, "files": sorted(files),
                  "warnings": list(rp.warnings), "load_warnings": list(a.report.warnings)}
        return record, files

    def _history_page(self, records: list) -> dict:
        from site_gen.building.assembly import report_url
        from site_gen.render import history as history_view
        from site_gen.render.pages import Page

        assert self.sg is not None
        page = Page(url=history_view.HISTORY_URL, title="History", template="history.html",
                    context={"history": history_view.context(records, self.sg.noise_band, self.sg.ratio_scale, report_url)})
        return self._page("history.md", page, "History", "History")

    def _page(self, src: str, page: Page, title: str, nav_title: str) -> dict[str, Any]:
        """A sitegen page's record: its content rendered by sitegen's templates for inside the theme.
        `title` names it in the browser's tab and in search results (where a bare "Speed" would not
        tell one report from another); the nav, where the report's folder says which report it is,
        takes the short `nav_title`."""
        from site_gen.render.embed import admonition, searchable
        from site_gen.render.pages import render_content, render_report_pages

        assert self.sg is not None
        content = searchable(render_content(page, self.sg, [], self.asset_urls), page_title=True)
        # Material lists a report's pages in its sidebar (or drawer); other themes get them on the page.
        return {"src": src, "url": page.url, "title": title, "nav": nav_title, "section": page.section,
                "charts": page.charts, "content": admonition(content) if self.material else content,
                "pages_nav": "" if self.material else render_report_pages(page, self.sg)}

    # -- the host's own pages ---------------------------------------------------------------------
    def expand(self, markdown: str, *, where: str, dest_uri: str, meta: dict, offset: int,
               home: bool) -> tuple[Expanded, tuple[set[str], bool]]:
        """A host page's markdown with its blocks and figures made (`Expanded`), and the reports it
        drew on (ids, and whether it drew on every report): from the store when an earlier build
        expanded the same markdown at the same place among the same reports."""
        key = cache.key(_PAGES_KIND, self.set_key, markdown, str(where), dest_uri, repr(meta), offset,
                        home) if self.set_key else None
        kept = _expansion(cache.read(_PAGES_KIND, key) if key else None)
        if kept is not None:
            return kept
        blocks = self._author_blocks()
        blocks.used, blocks.used_all = set(), False
        expanded = blocks.expand(markdown, file=where, page_path=dest_uri, meta=meta, line_offset=offset, home=home)
        uses = (set(blocks.used), blocks.used_all)
        if key:
            cache.write(_PAGES_KIND, key, json.dumps({**dataclasses.asdict(expanded), "used": sorted(blocks.used),
                                                      "warnings": [w.as_data() for w in expanded.warnings],
                                                      "used_all": blocks.used_all}).encode("utf-8"))
        return expanded, uses

    def report_page(self, target: str, default: str | None) -> str | None:
        """The site path of a `page:` link's report page (`page:speed` of the page's report, or of the
        only one; `page:REPORT/speed`; `page:REPORT/` its overview), None when there is none: the
        same answer as on a page of `sitegen build` (render/docs.py)."""
        blocks = self._author_blocks()
        report, _, section = target.rpartition("/")
        report = report or default or (next(iter(blocks.records)) if len(blocks.records) == 1 else "")
        return blocks.report_url(report, section or "overview")

    def _author_blocks(self) -> AuthorBlocks:
        """The blocks of host pages, drawn from the records and, where one shows a report, its
        analysis (made on the first page that needs them)."""
        if self.blocks is None:
            from site_gen.render.blocks import AuthorBlocks

            assert self.sg is not None
            records = self.environment if self.records else []
            if records:
                assert self.store is not None  # made with the records
                from site_gen.building.assembly import dashboard_rows

                # The rows `sitegen build`'s home page has, each series' newest change on its newest
                # report's row (finding them loads the detector: only for a page with the dashboard).
                self.blocks = AuthorBlocks(records, self.store.analysis_of, self.sg,
                                           dashboard=lambda: dashboard_rows(records))
            else:
                self.blocks = AuthorBlocks([], None, self.sg)  # says "unknown report" where the page names one
        return self.blocks
