"""The site's pages: which exist, where they live, and their HTML (jinja2)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from markupsafe import Markup

from site_gen.analysis import figures as figs
from site_gen.analysis.report import Analysis
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import Engine
from site_gen.render import format as fmt, markdown as md, views
from site_gen.render.contexts import BaseContext, PageInfo, SiteInfo, as_context
from site_gen.render import opening, publish, sitenav
from site_gen.render.provenance import Fig, attach_origins, collect, origin_of, origins
from site_gen.render.related import NONE as NO_RELATED, Related
from site_gen.render.where import rel, report_base, template_dirs, theme_dir  # noqa: F401 (their home before where.py)
from site_gen.render.pagelist import NUMBERS, OVERVIEW, section_of_view, all_pages, present_sections, receipt_texts  # noqa: F401
from site_gen.render.environment import content_environment, environment, rendered  # noqa: F401 (site_gen.render.pages.environment: the builder's)
from site_gen.render.parts import own_part, view_part
from site_gen.sections import all_sections, previous_version
from site_gen.sections import section as section_of

if TYPE_CHECKING:
    import pandas as pd

@dataclass
class Page:
    url: str
    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    report: str | None = None
    section: str | None = None
    charts: bool = False
    # What the page's context was made from (site_gen.building.dependencies.Dependencies); the builder adds
    # its template closure and the site's part when it records the page's HTML.
    deps: Any = field(default=None, compare=False, repr=False)


class ReportPages:
    """Builds every page of one report from its analysis."""

    def __init__(self, a: Analysis, config: Config, site_nav: list[dict[str, str]],
                 related: Related = NO_RELATED):
        self.a = a
        self.related = related  # the other reports its pages link to (site_gen/render/related.py)
        self.config = config
        self.base = report_base(a.report.id)
        self.sections = present_sections(a)
        self.site_nav = site_nav
        self.warnings: list[Diagnostic] = []
        self._views: dict[str, Any] = {}
        self._share_meta: dict[str, Any] | None = None
        self._tables: dict[str, pd.DataFrame] | None = None
        self._engines: dict[str, Any] | None = None
        md.check_receipt_budget(receipt_texts(a.report), a.report.file)

    def url(self, key: str) -> str | None:
        for k, _, file in self.sections:
            if k == key:
                return self.base + file
        return None

    def _markdown(self, text: str, page_url: str, where: str, *, inline: bool = False, lede: bool = False) -> Markup:
        """Receipt markdown: raw HTML off, `page:` links resolved, inline figures from this report."""
        report = self.a.report
        file = report.folder / report.meta["lede"] if lede and str(report.meta.get("lede", "")).endswith(".md") else report.file
        lede = lede and file != self.a.report.file  # lines count in a lede file; an inline lede is at `where`

        def resolve_page(name: str) -> str | None:
            other, slash, key = name.rpartition("/")  # `page:REPORT/NAME`: another report's page
            if slash and other != self.a.report.id:
                found = self.related.target(other)
                target = found.url(key or OVERVIEW[0]) if found else None
            else:
                target = self.url(key or OVERVIEW[0]) if slash else self.url(name)
            return rel(page_url, target) if target else None

        def resolve_figure(name: str, args: dict[str, str], offset: int):
            try:
                return figs.resolve(self.a, name, args)
            except figs.FigureError as exc:
                raise SitegenError(str(exc), file, f"line {md.line_of(text, offset)}" if lede else where) from None

        try:
            result = md.render(text, resolve_page=resolve_page, resolve_figure=resolve_figure, inline=inline)
        except md.InlineError as exc:
            raise SitegenError(str(exc), file, f"line {md.line_of(text, exc.offset)}" if lede else where) from None
        for offset, message in result.failed_checks:
            self.warnings.append(Diagnostic(message, file, f"line {md.line_of(text, offset)}" if lede else where))
        return result.html

    @property
    def share(self) -> dict[str, Any]:
        """Link-preview tags, the same on every page of the report (made on first use)."""
        if self._share_meta is None:
            self._share_meta = publish.share_meta(self.a, self.config)
        return self._share_meta

    @property
    def engines(self) -> dict[str, Any]:
        """How every page of the report names its two sides (made on first use)."""
        if self._engines is None:
            self._engines = views.engines(self.a)
        return self._engines

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The report's CSV tables, made once: every page links them, the numbers page lists them."""
        if self._tables is None:
            from site_gen.render.csv import csv_tables  # with pandas: see `files`

            self._tables = csv_tables(self.a)
        return self._tables

    def view(self, name: str, mdx: Callable[..., Markup]) -> Any:
        """A section's display data, computed once per report and shared by every page that shows it.

        Receipt markdown in it is rendered once too: all pages of a report sit in one folder, so
        its relative links are the same from each of them.
        """
        if name in self._views:
            return self._views[name]
        section = section_of_view(name)
        if not section.present(self.a):
            return None  # its views need not handle a receipt without their part
        if name not in self.a.displayed:
            make = view_part(section).view
            assert make is not None  # a view is named by the section whose view part makes it
            self.a.displayed[name] = make(own_part(self.a, section))
            attach_origins(self.a.displayed[name], origins(self.a.report.data))
        view = self.a.displayed[name]
        if isinstance(view, dict):
            view = dict(view)  # the receipt's markdown below is linked from this folder: this copy's own
            if "note" in view:  # a receipt may leave its note out
                view["note_html"] = mdx(view["note"], f"$.{name}.note") if view["note"] else ""
            markup = view_part(section).markup
            if markup:
                markup(view, mdx)
        self._views[name] = view
        return view

    def links(self, page_url: str) -> dict[str, Any]:
        """Links to the other reports that the receipt names (site_gen/render/related.py), for the templates."""
        rl = self.related

        def link(target, key: str = OVERVIEW[0]) -> dict[str, str] | None:
            url = target.url(key) if target else None
            return {"title": target.title, "label": target.label, "url": rel(page_url, url)} if url else None

        named = previous_version(self.a.report.data)
        previous = named[1] if named else None
        # A report whose previous version this candidate is compares the two on its page of the
        # section that names a previous version.
        compared_on = next((s.key for s in all_sections() if s.previous is not None), OVERVIEW[0])
        return {
            "previous": link(rl.engine(previous["name"], previous["version"])) if previous else None,
            "engines": {Engine(name, version).label: found for (name, version), _ in rl.engines
                        if (found := link(rl.engine(name, version)))},
            "compared_by": [found for rid in rl.compared_by if (found := link(rl.target(rid), compared_on))],
            "supersedes": link(rl.target(rl.supersedes)),
            "superseded_by": link(rl.target(rl.superseded_by)),
        }

    def provenance(self, mdx: Callable[..., Markup]) -> list[dict[str, Any]]:
        """Every figure the report's pages show, once, with its source, grouped by section: a place
        in SUMMARY.json (and the original file's lines, by the source's id: the table of original
        files above gives each one's name and SHA-256), or how it was computed."""
        short = {s["id"]: s["id"] for s in (self.a.report.data.get("provenance") or {}).get("sources", [])}
        at = {f["path"]: f"{short[f['source']]}, {f['at']}" for f in (self.a.report.data.get("provenance") or {}).get("figures", [])}
        out, seen = [], set()
        for section in all_sections():
            if not section.provenance:
                continue
            found: list[Fig] = []
            collect(self.view(section.view_key, mdx), found)
            rows = []
            for f in found:
                if not (f.path or f.how):
                    continue
                key = (f.text, f.source)  # its text and source made once (a report shows thousands of figures)
                if key not in seen:
                    seen.add(key)
                    where = origin_of(f.path, at) if f.path and at else None
                    rows.append({"text": f.text, "source": f.path or key[1], "date": f.date,
                                 "origin": where})
            if rows:
                out.append({"section": section.title, "rows": rows})
        return out

    def context(self, key: str, page_url: str) -> dict[str, Any]:
        a, r = self.a, self.a.report
        mdx: Callable[..., Markup] = lambda text, where, inline=False: self._markdown(text, page_url, where, inline=inline)
        nav = [{"key": k, "title": t, "url": rel(page_url, self.base + f), "current": k == key} for k, t, f in self.sections]
        ctx: dict[str, Any] = {
            "report": {"id": r.id, "title": r.title, "date": r.date, "sha256": r.sha256, "illustrative": r.data.get("illustrative", ""),
                       "illustrative_short": views.first_sentence(r.data.get("illustrative", "")),
                       "imported": bool(r.data.get("provenance")),
                       "hardware": r.meta.get("hardware", ""), "size": r.size,
                       "attribution": r.meta.get("attribution", ""), "differs": r.meta.get("differs", []),
                       "comparison": r.meta.get("comparison")},
            "engines": self.engines,
            "nav": nav,
            "links": {k: rel(page_url, self.base + f) for k, _, f in self.sections},
            "summary_json": rel(page_url, self.base + "SUMMARY.json"),
            "csv": {name: rel(page_url, self.base + f"csv/{name}.csv") for name in self.tables},
            "band": f"\u00b1{a.band * 100:g}%",
            "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
            "number_word": views.number_word,
            "share": self.share,  # link previews: Open Graph, Twitter card
            "related": self.links(page_url),
            # The colour legend where colours say better or worse: the overview, and the pages that colour by direction.
            "legend": key == OVERVIEW[0] or bool((own := section_of(key)) and own.legend),
        }
        if key in ("overview",):
            ctx["opening"] = opening.sentence(a, named=False)  # under the title, which names the two sides
            lede = r.lede
            ctx["lede"] = self._markdown(lede, page_url, "$.report.lede", lede=True) if lede else Markup("")
            ctx["tested"] = [{"label": t["label"], "html": mdx(t["text"], f"$.report.tested[{i}].text", True)}
                             for i, t in enumerate(r.meta.get("tested", []))]
            ctx["not_covered"] = [mdx(t, f"$.report.not_covered[{i}]", True) for i, t in enumerate(r.meta.get("not_covered", []))]
        section = section_of(key)
        if key == OVERVIEW[0]:  # the overview shows every section of the receipt
            needs = tuple(s.view_key for s in all_sections() if s.name or s.overview)
            # Its part of each, in the registry's order: templates/overview/<key>.html, where one exists.
            ctx["section_keys"] = [s.key for s in all_sections()]
        else:
            needs = (section.view_key, *section.needs) if section else ()
        for name in needs:
            ctx[name] = self.view(name, mdx)
        page_context = view_part(section).page_context if section else None
        if page_context:
            page_context(a, ctx)
        if key == NUMBERS[0]:
            ctx["provenance"] = self.provenance(mdx)
            ctx["receipt"] = {"file": "SUMMARY.json", "sha256": r.sha256, "size": fmt.thousands(r.size)}
            ctx["sources"] = (r.data.get("provenance") or {}).get("sources", [])
            ctx["tables"] = [{"name": n, "url": ctx["csv"][n], "rows": len(t), "columns": ", ".join(map(str, t.columns))}
                             for n, t in self.tables.items()]
        return ctx

    def page(self, key: str, title: str, file: str) -> Page:
        """One section's page (its context computed now); `pages()` is every present section's."""
        url = self.base + file
        section = section_of(key)
        return Page(url=url, title=title, template=f"{key}.html", report=self.a.report.id, section=key,
                    charts=bool(section and section.charts), context=self.context(key, url))

    def pages(self) -> list[Page]:
        return [self.page(key, title, file) for key, title, file in self.sections]

    def files(self) -> dict[str, bytes]:
        # The bytes that were validated and hashed, not a second read that may differ.
        out = {self.base + "SUMMARY.json": self.a.report.raw or self.a.report.file.read_bytes()}
        # The CSV writer (and pandas) imported when a report's files are made: a build that takes
        # them all from the store never loads it.
        from site_gen.render.csv import csv_files

        out.update(csv_files(self.a, self.base))
        out.update(publish.card_file(self.a, self.config))  # its link-preview card, with site_url
        return out


def render_page(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> bytes:
    env = environment(str(config.custom_dir) if config.custom_dir else None)
    template = env.get_template(page.template)
    return rendered(template, page_context(page, config, site_nav, assets)).encode("utf-8")


def render_content(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> str:
    """Only the `content` block of a page (what the MkDocs plugin puts inside another theme)."""
    env = content_environment(str(config.custom_dir) if config.custom_dir else None)
    return env.get_template(page.template).render(page_context(page, config, site_nav, assets))


def render_report_pages(page: Page, config: Config) -> str:
    """A report page's list of its report's pages, for a host theme that shows them nowhere beside
    the page ("" for a page of no report)."""
    env = content_environment(str(config.custom_dir) if config.custom_dir else None)
    return env.get_template("_report_pages.html").render(page_context(page, config, [], {})).strip()


def page_context(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> dict[str, Any]:
    root = rel(page.url, "index.html")
    ctx = dict(page.context)
    ctx.update(as_context(BaseContext(
        page=PageInfo(page.url, page.title, page.section, page.charts),
        site=SiteInfo(config.site_name, config.site_description, config.site_url, config.charts, config.copyright,
                      config.extra, root),
        # Only the site's own pages show in the top bar (render/sitenav.py).
        site_nav=sitenav.shown(site_nav, page.url),
        asset={name: rel(page.url, path) for name, path in assets.items()},
        canonical=(config.site_url.rstrip("/") + "/" + page.url) if config.site_url else "",
    )))
    return ctx
