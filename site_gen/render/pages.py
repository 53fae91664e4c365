"""The site's pages: which exist, where they live, and their HTML (jinja2)."""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

import site_gen
from site_gen.analyse import figures as figs
from site_gen.analyse.report import Analysis, own
from site_gen.config import Config
from site_gen.diagnostics import warning
from site_gen.errors import SitegenError
from site_gen.load import Engine
from site_gen.render import format as fmt, markdown as md, views
from site_gen.render.contexts import BaseContext, NavItem, PageInfo, SiteInfo, as_context
from site_gen.render import publish
from site_gen.render.provenance import Fig, attach_origins, collect, origins
from site_gen.render.template_cache import TemplateCache
from site_gen.related import NONE as NO_RELATED, Related
from site_gen.render.where import rel, report_base, theme_dir  # noqa: F401 (their home before where.py)
from site_gen.sections import Section, all_sections
from site_gen.sections import section as section_of

# The report-wide pages around the sections' own (site_gen/sections): (key, nav title, file name).
OVERVIEW = ("overview", "Overview", "index.html")
NUMBERS = ("numbers", "Numbers", "numbers.html")


def all_pages() -> list[tuple[str, str, str]]:
    """Every page a report can have, in navigation order."""
    return [OVERVIEW, *((s.key, s.title, s.file) for s in all_sections()), NUMBERS]


def _section_of_view(name: str) -> Section:
    return next(s for s in all_sections() if s.view_key == name)


# What `x.name` finds on a plain dict before its items: its methods (`d.get`, `d.items`).
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's environment, with `view.key` looked up as an item first on a plain dict whose
    attributes do not include `key`, where Jinja's own order (an attribute, then the item) can only
    end with the item: the same value, without the failed attribute lookup (thousands a page)."""

    def _load_template(self, name, globals):
        # A template of custom_dir that does not compile, or is no text, is the user's input: one
        # error naming its file and line, as bad input is (jinja's own errors would be sitegen's).
        try:
            return super()._load_template(name, globals)
        except jinja2.TemplateSyntaxError as exc:
            raise SitegenError(f"template does not compile: {exc.message}", exc.filename or name,
                               f"line {exc.lineno}" if exc.lineno else None) from None
        except NotText as exc:
            raise SitegenError("is not UTF-8 text, so it cannot be a template (a template includes or extends it)",
                               exc.filename) from None

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class NotText(jinja2.TemplateError):
    """A file where a template is looked for that is not UTF-8 text (an image in custom_dir): no template."""

    def __init__(self, name: str, filename: str):
        super().__init__(f"{name} is not UTF-8 text")
        self.name, self.filename = name, filename


class _Loader(jinja2.FileSystemLoader):
    """Templates are UTF-8 text: any other file found (custom_dir may hold images beside its
    templates) is refused as a template, never decoded as one."""

    def get_source(self, environment, template):
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError:
            found = next((Path(p, *template.split("/")) for p in self.searchpath if Path(p, *template.split("/")).is_file()), None)
            raise NotText(template, str(found or template)) from None


@lru_cache(maxsize=8)
def environment(custom_dir: str | None) -> jinja2.Environment:
    paths = ([custom_dir] if custom_dir else []) + [str(theme_dir("templates"))]
    options = dict(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env = _Environment(loader=_Loader(paths), undefined=jinja2.StrictUndefined,
                             bytecode_cache=TemplateCache(sorted(options.items())), **options)
    env.filters.update(fmt.FILTERS)
    env.filters["json_attribute"] = json_attribute
    env.globals["version"] = site_gen.__version__
    return env


def json_attribute(value: Any) -> Markup:
    """JSON for a single-quoted HTML attribute (a chart's `data-spec`): no `'`, `&`, `<` or `>` in
    it, so the attribute needs no entity and JSON.parse reads it as it is; and JSON that JSON.parse
    accepts (a NaN would stop the chart, so it stops the build instead). The data sits on the element
    the chart draws into rather than in a `<script type="application/json">`: a host page that swaps
    its content and re-creates inline scripts (Material for MkDocs' instant navigation drops their
    type and id) would run such data as code; an attribute survives any copy, and no search index
    takes it for text."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    for char in "<>&'":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@dataclass
class Page:
    url: str
    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    report: str | None = None
    section: str | None = None
    charts: bool = False
    # What the page's context was made from (site_gen.dependencies.Dependencies); the builder adds
    # its template closure and the site's part when it records the page's HTML.
    deps: Any = field(default=None, compare=False, repr=False)


def present_sections(a: Analysis) -> list[tuple[str, str, str]]:
    """The report's pages: (key, title, file name) of the overview, each section it has, the numbers."""
    return [OVERVIEW, *((s.key, s.title_for(a), s.file) for s in all_sections() if s.present(a)), NUMBERS]


# Every break str.splitlines knows: a CSV reader starts a row at \r or \n, a naive one at any of them.
_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# A line of a cell (its start, or after a break) that a spreadsheet could read as a formula:
# = + - @ after spaces, or a tab or carriage return.
_FORMULA = re.compile(rf"(?:^|(?<=[{_BREAKS}]))(?=[\t\r]|[^\S{_BREAKS}]*[=+\-@])")
# Breaks the CSV writer does not quote (it quotes only its own line terminator, \n).
_UNQUOTED_BREAK = re.compile(rf"[{_BREAKS.replace(chr(10), '')}]")


def _defuse(value: Any) -> Any:
    return _FORMULA.sub("'", value) if isinstance(value, str) else value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV with numbers as measured (fmt.csv_number) and spreadsheet formulas defused: each line of a text cell that starts a formula gets a
    leading quote; a table whose text holds a line break other than \n quotes every text cell, so
    that no reader takes the break for the end of a row."""
    cells, changed, quoting, plain = _csv_cells(frame)
    if plain and quoting == csv.QUOTE_MINIMAL:
        # The cells straight to the writer pandas would use, with the same dialect: pandas spends
        # most of a small table's time preparing them.
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n", quoting=quoting)
        writer.writerow(list(cells))
        writer.writerows(zip(*(_written(items) for items in cells.values())))
        return buffer.getvalue().encode("utf-8")
    return pandas_csv(frame, cells, changed, quoting)


def pandas_csv(frame: pd.DataFrame, cells: dict[str, list], changed: list[str], quoting: int) -> bytes:
    """The CSV pandas writes of `frame` with its `changed` columns' cells replaced (`_csv_cells`)."""
    out = frame
    if changed:  # a table with no text to defuse and no float is not copied
        out = frame.copy()
        for column in changed:
            numbers = pd.api.types.is_float_dtype(frame[column])
            out[column] = pd.Series(cells[column], index=frame.index, dtype=object) if numbers else cells[column]
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n", quoting=quoting)
    return buffer.getvalue().encode("utf-8")


def _csv_cells(frame: pd.DataFrame) -> tuple[dict[str, list], list[str], int, bool]:
    """Each column's cells (numbers as measured, text defused), the columns whose cells
    changed, the quoting the table needs, and whether the csv module prints every cell as pandas
    does: text, numbers and booleans under named columns (pandas has its own text for dates and
    its nullable types)."""
    cells, changed = {}, []
    quoting = csv.QUOTE_MINIMAL
    names = frame.columns.tolist()
    plain = bool(names) and frame.columns.is_unique and all(isinstance(n, str) for n in names)
    for column, values in zip(names, views.arrays(frame) if frame.columns.is_unique else (frame[c] for c in names)):
        items = values.tolist()
        if pd.api.types.is_float_dtype(values):
            # Python numbers, not text: the writer never quotes them, whatever the quoting.
            items = [fmt.csv_number(v) for v in items]
            changed.append(column)
        elif values.dtype == object or pd.api.types.is_string_dtype(values):
            texts = [v for v in items if isinstance(v, str)]
            if any(_FORMULA.search(v) for v in texts):
                items = [_defuse(v) for v in items]
                changed.append(column)
            if any(_UNQUOTED_BREAK.search(v) for v in texts):
                quoting = csv.QUOTE_NONNUMERIC
        cells[column] = items
        plain = plain and (isinstance(values.dtype, np.dtype) and values.dtype.kind in "iubfO"
                           or isinstance(values.dtype, pd.StringDtype) and values.dtype.na_value is not pd.NA)
    return cells, changed, quoting, plain


def _written(items: list) -> list:
    """A column's cells with each missing one empty, as pandas writes it."""
    return ["" if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v) else v for v in items]


def _own(a: Analysis, s: Section) -> Analysis:
    """What a section's view and tables are given: a named section's own part of the analysis (so
    they come out the same whatever else changed, and a live builder keeps them: report_store.py)."""
    return own(a, s.name) if s.name else a


def section_tables(a: Analysis, s: Section) -> dict[str, pd.DataFrame]:
    """One section's CSV tables, made once per analysis."""
    key = ("csv", s.key)
    if key not in a.displayed:
        a.displayed[key] = s.csv(_own(a, s)) if s.csv else {}
    return a.displayed[key]


def csv_tables(a: Analysis) -> dict[str, pd.DataFrame]:
    """Every section's CSV tables, by name (`csv/<name>.csv`)."""
    return {name: table for s in all_sections() if s.csv for name, table in section_tables(a, s).items()}


def csv_files(a: Analysis, base: str) -> dict[str, bytes]:
    """Every section's CSV files under `base`, each section's made once per analysis."""
    out = {}
    for s in all_sections():
        if s.csv:
            key = ("csv bytes", s.key)
            if key not in a.displayed:
                a.displayed[key] = {name: csv_bytes(table) for name, table in section_tables(a, s).items()}
            out.update((base + f"csv/{name}.csv", data) for name, data in a.displayed[key].items())
    return out


def receipt_texts(r) -> Iterator[tuple[str, str]]:
    """Every markdown text of a receipt with its JSON path: the lede, what was tested and not covered, notes."""
    yield "$.report.lede", r.lede or ""
    for i, t in enumerate(r.meta.get("tested", [])):
        yield f"$.report.tested[{i}].text", t["text"]
    for i, t in enumerate(r.meta.get("not_covered", [])):
        yield f"$.report.not_covered[{i}]", t
    for name in ("precision", "long_outputs", "tool_calling", "versions"):
        section = r.data.get(name)
        if isinstance(section, dict):
            yield f"$.{name}.note", section.get("note") or ""
            for i, e in enumerate(section.get("explanations", [])):
                yield f"$.{name}.explanations[{i}].text", e["text"]


class ReportPages:
    """Builds every page of one report from its analysis."""

    def __init__(self, a: Analysis, config: Config, site_nav: list[dict[str, str]], strict: bool = False,
                 related: Related = NO_RELATED):
        self.a = a
        self.related = related  # the other reports its pages link to (site_gen/related.py)
        self.config = config
        self.strict = strict
        self.base = report_base(a.report.id)
        self.sections = present_sections(a)
        self.site_nav = site_nav
        self.warnings: list[str] = []
        self._views: dict[str, Any] = {}
        self._share_meta: dict[str, Any] | None = None
        self._tables: dict[str, pd.DataFrame] | None = None
        md.check_receipt_budget(receipt_texts(a.report), a.report.file)

    def url(self, key: str) -> str | None:
        for k, _, file in self.sections:
            if k == key:
                return self.base + file
        return None

    def _markdown(self, text: str, page_url: str, where: str, *, inline: bool = False, lede: bool = False) -> Markup:
        """Receipt markdown: raw HTML off, `page:` links resolved, inline figures from this report."""
        file = self.a.report.folder / self.a.report.meta["lede"] if lede and str(self.a.report.meta.get("lede", "")).endswith(".md") else self.a.report.file
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
            self.warnings.append(warning(message, file, f"line {md.line_of(text, offset)}" if lede else where,
                                         strict=self.strict))
        return result.html

    @property
    def share(self) -> dict[str, Any]:
        """Link-preview tags, the same on every page of the report (made on first use)."""
        if self._share_meta is None:
            self._share_meta = publish.share_meta(self.a, self.config)
        return self._share_meta

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The report's CSV tables, made once: every page links them, the numbers page lists them."""
        if self._tables is None:
            self._tables = csv_tables(self.a)
        return self._tables

    def view(self, name: str, mdx: Callable[..., Markup]) -> Any:
        """A section's display data, computed once per report and shared by every page that shows it.

        Receipt markdown in it is rendered once too: all pages of a report sit in one folder, so
        its relative links are the same from each of them.
        """
        if name in self._views:
            return self._views[name]
        section = _section_of_view(name)
        if not section.present(self.a):
            return None  # its views need not handle a receipt without their part
        if name not in self.a.displayed:
            self.a.displayed[name] = section.view(_own(self.a, section))
            attach_origins(self.a.displayed[name], origins(self.a.report.data))
        view = self.a.displayed[name]
        if isinstance(view, dict):
            view = dict(view)  # the receipt's markdown below is linked from this folder: this copy's own
            if "note" in view:  # a receipt may leave its note out
                view["note_html"] = mdx(view["note"], f"$.{name}.note") if view["note"] else ""
            if section.markup:
                section.markup(view, mdx)
        self._views[name] = view
        return view

    def links(self, page_url: str) -> dict[str, Any]:
        """Links to the other reports that the receipt names (site_gen/related.py), for the templates."""
        rl = self.related

        def link(target, key: str = OVERVIEW[0]) -> dict[str, str] | None:
            url = target.url(key) if target else None
            return {"title": target.title, "label": target.label, "url": rel(page_url, url)} if url else None

        previous = (self.a.report.section("versions") or {}).get("previous")
        return {
            "previous": link(rl.engine(previous["name"], previous["version"])) if previous else None,
            "engines": {Engine(name, version).label: found for (name, version), _ in rl.engines
                        if (found := link(rl.engine(name, version)))},
            "compared_by": [found for rid in rl.compared_by if (found := link(rl.target(rid), "versions"))],
            "supersedes": link(rl.target(rl.supersedes)),
            "superseded_by": link(rl.target(rl.superseded_by)),
        }

    def provenance(self, mdx: Callable[..., Markup]) -> list[dict[str, Any]]:
        """Every figure the report's pages show, once, with its source, grouped by section."""
        out, seen = [], set()
        for section in all_sections():
            if not section.provenance:
                continue
            found: list[Fig] = []
            collect(self.view(section.view_key, mdx), found)
            for f in found:
                if (f.text, f.source) not in seen and (f.path or f.how):
                    seen.add((f.text, f.source))
                    out.append({"section": section.title, "text": f.text, "source": f.source})
        return out

    def context(self, key: str, page_url: str) -> dict[str, Any]:
        a, r = self.a, self.a.report
        mdx: Callable[..., Markup] = lambda text, where, inline=False: self._markdown(text, page_url, where, inline=inline)
        nav = [{"key": k, "title": t, "url": rel(page_url, self.base + f), "current": k == key} for k, t, f in self.sections]
        ctx: dict[str, Any] = {
            "report": {"id": r.id, "title": r.title, "date": r.date, "sha256": r.sha256, "illustrative": r.data.get("illustrative", ""),
                       "hardware": r.meta.get("hardware", ""), "size": r.size,
                       "attribution": r.meta.get("attribution", ""), "differs": r.meta.get("differs", []),
                       "comparison": r.meta.get("comparison")},
            "engines": views.engines(a),
            "nav": nav,
            "links": {k: rel(page_url, self.base + f) for k, _, f in self.sections},
            "summary_json": rel(page_url, self.base + "SUMMARY.json"),
            "csv": {name: rel(page_url, self.base + f"csv/{name}.csv") for name in self.tables},
            "band": f"\u00b1{a.band * 100:g}%",
            "scale": fmt.number_range(a.scale[0], a.scale[1], 1, "x"),
            "number_word": views.number_word,
            "share": self.share,  # link previews: Open Graph, Twitter card
            "related": self.links(page_url),
        }
        if key in ("overview",):
            lede = r.lede
            ctx["lede"] = self._markdown(lede, page_url, "$.report.lede", lede=True) if lede else Markup("")
            ctx["tested"] = [{"label": t["label"], "html": mdx(t["text"], f"$.report.tested[{i}].text", True)}
                             for i, t in enumerate(r.meta.get("tested", []))]
            ctx["not_covered"] = [mdx(t, f"$.report.not_covered[{i}]", True) for i, t in enumerate(r.meta.get("not_covered", []))]
        section = section_of(key)
        if key == OVERVIEW[0]:  # the overview shows every section of the receipt
            needs = tuple(s.view_key for s in all_sections() if s.name)
            # Its part of each, in the registry's order: templates/overview/<key>.html, where one exists.
            ctx["section_keys"] = [s.key for s in all_sections()]
        else:
            needs = (section.view_key, *section.needs) if section else ()
        for name in needs:
            ctx[name] = self.view(name, mdx)
        if section and section.page_context:
            section.page_context(a, ctx)
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
        out.update(csv_files(self.a, self.base))
        return out


def render_page(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> bytes:
    env = environment(str(config.custom_dir) if config.custom_dir else None)
    template = env.get_template(page.template)
    return template.render(page_context(page, config, site_nav, assets)).encode("utf-8")


@lru_cache(maxsize=8)
def content_environment(custom_dir: str | None) -> jinja2.Environment:
    """The page templates with a bare `base.html`: a page renders as its `content` block only."""
    env = environment(custom_dir)
    bare = jinja2.DictLoader({"base.html": '{% include "_illustrative.html" %}{% block content %}{% endblock %}'})
    return env.overlay(loader=jinja2.ChoiceLoader([bare, env.loader]))


def render_content(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> str:
    """Only the `content` block of a page (what the MkDocs plugin puts inside another theme)."""
    env = content_environment(str(config.custom_dir) if config.custom_dir else None)
    return env.get_template(page.template).render(page_context(page, config, site_nav, assets))


def page_context(page: Page, config: Config, site_nav: list[dict[str, str]], assets: dict[str, str]) -> dict[str, Any]:
    root = rel(page.url, "index.html")
    ctx = dict(page.context)
    ctx.update(as_context(BaseContext(
        page=PageInfo(page.url, page.title, page.section, page.charts),
        site=SiteInfo(config.site_name, config.site_description, config.site_url, config.charts, config.copyright,
                      config.extra, root),
        # Only the site's own pages show in the top bar (reports are reached from the dashboard):
        # linking every report from every page would make a site of n reports cost n² links.
        site_nav=[NavItem(item["title"], rel(page.url, item["url"]), item.get("report"), item["url"] == page.url)
                  for item in site_nav if not item.get("report")],
        asset={name: rel(page.url, path) for name, path in assets.items()},
        canonical=(config.site_url.rstrip("/") + "/" + page.url) if config.site_url else "",
    )))
    return ctx
