"""The block language of author pages: report blocks and inline figures from the receipts.

An author embeds a block with a fenced block (or the one-line directive `{{ block NAME key=value }}`)

    ```sitegen
    report: my-report
    block: speed-cells
    checkpoint: Q4
    ```

and a figure or a checked statement inline: `{{ kv_ratio report=my-report checkpoint=Q4 }}`,
`{{ check looped_replies == 0 : no reply looped }}`. The report may be left out when the page
names one in its front matter (`report: ID`) or when there is only one.

`AuthorBlocks.expand` turns blocks and figures into HTML pieces, leaving a placeholder token in the
markdown; `Expanded.restore` puts the pieces back into the HTML. Any markdown processor can run in
between: python-markdown here (`DocsPages`, for `sitegen build`), MkDocs' own in the plugin. The
blocks render through the same jinja macros and page contexts as the report pages, so a number in
a block is the number on the report page.
"""
from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Any
from collections.abc import Callable

from markupsafe import Markup

from site_gen.analysis import figures as figs
from site_gen.analysis.report import Analysis
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError, suggest
from site_gen.receipts.load import check_report_id
from site_gen.render.codeblocks import Fence, code_blocks
from site_gen.render import markdown as md, parts
from site_gen.render.pages import ReportPages, environment, rel, report_base
from site_gen.render.tokens import Expanded
from site_gen.sections import BlockSpec, all_sections


def _imports() -> str:
    """The macros every block may call: each section's own (`MACROS` of its view) and the dashboard's."""
    return "".join(f'{{% from "{template}" import {", ".join(names)} with context %}}' for template, names in parts.macros()) \
        + '{% from "_macros.html" import dashboard_table %}'


# The site-wide blocks; each section brings its own (`BLOCKS` of its view).
_SITE_BLOCKS = {
    "dashboard": BlockSpec(None, None, (), "{{ dashboard_table(reports) }}", "the table of every report (site-wide, no report)",
                           "reports"),
    "series": BlockSpec(None, None, ("series", "figure"),
                        '{% from "_series.html" import series_chart %}{% for s in series %}'
                        '{{ series_chart(s, id ~ ("-" ~ loop.index if loop.length > 1 else "")) }}{% endfor %}',
                        "a series across reports, its change points marked, with its table (site-wide: series=NAME, "
                        "figure=LABEL, as the History page names them)", "series"),
}


def all_blocks() -> dict[str, BlockSpec]:
    """Every block by name: the sections' in their order, then the site-wide ones."""
    return {**{name: spec for s in all_sections() for name, spec in parts.blocks(s).items()}, **_SITE_BLOCKS}


COMMON_OPTIONS = ("block", "report", "id")



def _dashboard_row_at(row: dict[str, Any], page_path: str) -> dict[str, Any]:
    """A dashboard row with its links made relative to another page (and without the home page's
    rendered HTML of the row, whose links are relative to the site root)."""
    url = rel(page_path, row["url"])
    if url == row["url"]:
        return row  # a page at the site's root: the row (and its rendered HTML) as the home page has it
    out = {k: v for k, v in row.items() if k != "row_html"}
    out["url"] = url
    if row.get("superseded_by"):
        out["superseded_by"] = {**row["superseded_by"], "url": rel(page_path, row["superseded_by"]["url"])}
    return out


# A block renders through one template that imports every section's macros (`_imports`) and then
# includes the block's own template, which sees them in its context: the imports compile once per
# environment, not once per block a build draws (~1.5 ms each of the docs pages' time).
_BODY = "_sitegen_block_body"


@lru_cache(maxsize=64)
def _compiled(env, source: str):
    """A block's template, compiled once per environment: its macros are imported from `env` when it
    renders, so a compiled copy stays right after a template edit (a preview rebuild need not
    compile it again)."""
    return env.from_string(source)


class AuthorBlocks:
    """Renders report blocks and inline figures for author pages, from a set of analysed reports."""

    def __init__(self, records: list, analysis_of, config: Config, *,
                 dashboard: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]] | None = None):
        """`records`: the reports' records (site_gen/building/environment.py); `analysis_of(id)`: a
        report's analysis, asked for only when a block or a figure shows that report; `dashboard`:
        the dashboard's rows, or what makes them when a page first draws the dashboard."""
        self.config = config
        self.records = {r.id: r for r in records}
        self.analysis_of = analysis_of
        self._dashboard = dashboard
        self._pages: dict[tuple[str, str], ReportPages] = {}
        self._contexts: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._templates: dict[str, Any] = {}
        # What the page being expanded drew on: report ids, or every report (the dashboard).
        self.used: set[str] = set()
        self.used_all = False

    @property
    def dashboard(self) -> list[dict[str, Any]]:
        if callable(self._dashboard):
            self._dashboard = self._dashboard()
        return self._dashboard or []

    # -- where things are ---------------------------------------------------------------------
    def report_url(self, report_id: str, section: str = "overview") -> str | None:
        """Site path of a report's page (`reports/ID/speed.html`), or None if the report lacks it."""
        r = self.records.get(report_id)
        if r is None:
            return None
        self.used.add(report_id)
        for key, _, file in r.pages:
            if key == section:
                return report_base(report_id) + file
        return None

    def _report(self, name: str | None, default: str | None, file, line: int, what: str) -> Analysis:
        rid = name or default
        if rid is None:
            if len(self.records) == 1:
                only = next(iter(self.records))
                self.used.add(only)
                return self.analysis_of(only)
            raise SitegenError(f"{what} needs a report: add report=ID (or 'report: ID' in the page's front matter); "
                               f"reports: {', '.join(sorted(self.records)) or 'none'}", file, f"line {line}")
        if rid not in self.records:
            check_report_id(rid, file, f"line {line}")  # a name that could climb out says so plainly
            raise SitegenError(f"unknown report '{rid}'; reports: {', '.join(sorted(self.records)) or 'none'}",
                               file, f"line {line}")
        self.used.add(rid)
        return self.analysis_of(rid)

    def _context(self, a: Analysis, section: str, page_path: str) -> dict[str, Any]:
        """The report page context of a section, with links relative to the author page."""
        folder = posixpath.dirname(page_path)
        key = (a.report.id, section, folder)
        if key not in self._contexts:
            rp = self._pages.get((a.report.id, folder))
            if rp is None:
                # One per report and folder: receipt notes inside views link relative to the page.
                rp = self._pages[(a.report.id, folder)] = ReportPages(a, self.config, [])
            self._contexts[key] = rp.context(section, page_path)
        return self._contexts[key]

    def _render(self, name: str, ctx: dict[str, Any]) -> str:
        """Block `name` drawn from `ctx`."""
        if name not in self._templates:
            env = environment(str(self.config.custom_dir) if self.config.custom_dir else None)
            self._templates[name] = (_compiled(env, _imports() + "{% include " + _BODY + " %}"),
                                     _compiled(env, all_blocks()[name].template))
        frame, body = self._templates[name]
        return frame.render(ctx, **{_BODY: body})

    # -- one block ----------------------------------------------------------------------------
    def block(self, options: dict[str, tuple[str, int]], *, file, line: int, page_path: str,
              default_report: str | None, used_ids: set[str]) -> tuple[str, bool]:
        """HTML of one block from its options {key: (value, line)}; and whether it draws a chart."""
        blocks = all_blocks()
        if "block" not in options:
            raise SitegenError(f"a sitegen block needs 'block: NAME'; blocks: {', '.join(blocks)}", file, f"line {line}")
        name, name_line = options["block"]
        if name not in blocks:
            raise SitegenError(f"unknown block '{name}'{suggest(name, blocks)}; blocks: {', '.join(blocks)}",
                               file, f"line {name_line}")
        spec = blocks[name]
        known = COMMON_OPTIONS + spec.options if spec.section else ("block", "id", *spec.options)
        for key, (_, key_line) in options.items():
            if key not in known:
                raise SitegenError(f"unknown option '{key}' for block '{name}'{suggest(key, known)}; "
                                   f"options: {', '.join(known)}", file, f"line {key_line}")
        opt = {k: v for k, (v, _) in options.items()}
        at = {k: ln for k, (_, ln) in options.items()}
        ident = opt.get("id")
        if ident is not None and (not re.fullmatch(r"[A-Za-z][\w-]*", ident) or ident in used_ids):
            raise SitegenError(f"id '{ident}' is " + ("already used on this page" if ident in used_ids else
                               "not a valid HTML id (a letter, then letters, digits, - or _)"), file, f"line {at['id']}")
        charts = False
        if spec.section is None:
            self.used_all = True
            ctx: dict[str, Any] = ({"series": self._series(opt, at, page_path, file, name_line)} if name == "series" else
                                   {"reports": [_dashboard_row_at(r, page_path) for r in self.dashboard]})
            report_id = ""
            ident = ident or spec.default_id
        else:
            a = self._report(opt.get("report"), default_report, file, at.get("report", line), f"block '{name}'")
            report_id = a.report.id
            ctx = dict(self._context(a, spec.section, page_path))
            assert spec.view is not None  # a block of a section names the view it shows
            if not ctx.get(spec.view):
                raise SitegenError(f"report '{report_id}' has no {spec.view.replace('_', ' ')} results for block '{name}'",
                                   file, f"line {name_line}")
            ctx.update({"headline": False, "chart": False})
            if spec.apply:
                ctx.update(spec.apply(a, ctx, opt, at, file, line))
            charts = bool(ctx.get("chart"))
            base = spec.default_id + (f"-{_slug(ctx['checkpoint'])}" if spec.id_by_checkpoint else "")
            ident = ident or base
        if ident in used_ids:
            n = 2
            while f"{ident}-{n}" in used_ids:
                n += 1
            ident = f"{ident}-{n}"
        used_ids.add(ident)
        ctx["id"] = ident
        html = self._render(name, ctx).strip()
        wrapper = Markup('<div class="sitegen-block" data-block="{}"{}>\n').format(
            name, Markup(' data-report="{}"').format(report_id) if report_id else "")
        return str(wrapper) + html + "\n</div>", charts

    def _series(self, opt: dict[str, str], at: dict[str, int], page_path: str, file, line: int) -> list[dict[str, Any]]:
        """The `series` block's series, from the records' history rows (no analysis loaded), as the
        History page draws them; its points link to their reports from this page."""
        from site_gen.analysis import history
        from site_gen.render import history as history_view
        from site_gen.render import series as series_view

        records = list(self.records.values())
        shown = history.shown(records, history_view.MAX_POINTS)
        try:
            return series_view.block_series(records, shown, opt.get("series"), opt.get("figure"),
                                            lambda rid: rel(page_path, report_base(rid) + "index.html"))
        except KeyError as exc:
            what, given, there = exc.args[0]
            named = f" {given!r}" if given is not None else ""
            raise SitegenError(f"no {what}{named} of at least {_min_points()} reports{suggest(given or '', there)}; "
                               f"{what}: {', '.join(there) or 'none'}", file, f"line {at.get(what, line)}") from None

    # -- a whole page -------------------------------------------------------------------------
    def expand(self, text: str, *, file, page_path: str, meta: dict[str, Any] | None = None, line_offset: int = 0,
               home: bool = False,
               resolve_page: Callable[[str], str | None] | None = None) -> Expanded:
        """Swaps every sitegen block and `{{ … }}` of an author page's markdown for a token.

        `page_path` is the site path of the page's HTML file (`guide/index.html`): links inside
        blocks are made relative to it. Errors name `file` and the line (plus `line_offset`, the
        lines of front matter above `text`). A contradicted checked statement is shown marked and
        listed in `warnings`.
        """
        default = self._default_report(meta or {}, file)
        page = _Expansion(self, text, file, page_path, default, md.line_finder(text), line_offset)
        fences, indented = code_blocks(text)
        for start, end, indent, body_at, body in _sitegen_fences(text, fences, file, page.line_at):
            options = _fence_options(body, page.line_at(body_at), file)
            page.edits.append((start, end, page.add_block(options, page.line_at(start), indent)))
        code = md.code_ranges(text, indented)  # a figure in indented code is shown as typed, too
        for at, after, expr in md.inline_figures(text):
            if at in code:
                continue
            if expr.split()[:1] == ["block"]:
                page.directive(at, after, expr)
            else:
                page.inline(at, after, expr)
        if home and "dashboard" not in page.out.blocks:
            html, _ = self.block({"block": ("dashboard", 0)}, file=file, line=0, page_path=page_path, default_report=None,
                                 used_ids=page.used_ids)
            page.out.pieces.append(html)
            page.out.blocks.append("dashboard")
            page.edits.append((len(text), len(text), f"\n\n{page.out.token(len(page.out.pieces) - 1)}\n"))
        return page.finish()

    def _default_report(self, meta: dict[str, Any], file) -> str | None:
        """The report a page's front matter names (`report: ID`), checked; None when it names none."""
        default = meta.get("report")
        if default is not None and not isinstance(default, str):
            raise SitegenError("front matter 'report' must be a report id", file, "line 1")
        if default is not None and default not in self.records:
            check_report_id(default, file, "line 1")
            raise SitegenError(f"unknown report '{default}' in front matter; reports: {', '.join(sorted(self.records)) or 'none'}",
                               file, "line 1")
        return default


def _fence_options(body: str, first: int, file) -> dict[str, tuple[str, int]]:
    """A ```sitegen block's `key: value` lines as {key: (value, line)}; `first` is its body's first line."""
    options: dict[str, tuple[str, int]] = {}
    for i, raw in enumerate(body.split("\n")):
        content = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not content:
            continue
        key, sep, value = content.partition(":")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise SitegenError(f"expected 'key: value' in a sitegen block, got {content!r}", file, f"line {first + i}")
        if key in options:
            raise SitegenError(f"option '{key}' given twice", file, f"line {first + i}")
        options[key] = (value.strip().strip("\"'"), first + i)
    return options


class _Expansion:
    """One page being expanded: its pieces so far, the ids it used, and the edits to its markdown."""

    def __init__(self, blocks: AuthorBlocks, text: str, file, page_path: str, default: str | None,
                 line_of: Callable[[int], int], line_offset: int):
        self.blocks, self.text, self.file, self.page_path, self.default = blocks, text, file, page_path, default
        self.line_at = lambda offset: line_of(offset) + line_offset
        self.out = Expanded(markdown=text, marker=md.unused_marker("SITEGEN", text))
        self.used_ids: set[str] = set()
        self.edits: list[tuple[int, int, str]] = []

    def add_block(self, options, line: int, indent: str) -> str:
        html, charts = self.blocks.block(options, file=self.file, line=line, page_path=self.page_path,
                                         default_report=self.default, used_ids=self.used_ids)
        self.out.pieces.append(html)
        self.out.charts |= charts
        self.out.blocks.append(options["block"][0])
        return f"\n{indent}{self.out.token(len(self.out.pieces) - 1)}\n"

    def directive(self, at: int, after: int, expr: str) -> None:
        """A one-line `{{ block NAME key=value … }}`: a block, as if fenced."""
        text, file, line = self.text, self.file, self.line_at(at)
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", after)
        end = len(text) if end < 0 else end
        if text[start:at].strip() or text[after:end].strip():
            raise SitegenError("a {{ block … }} directive must stand on a line of its own", file, f"line {line}")
        tokens = expr.split()[1:]
        if not tokens or "=" in tokens[0]:
            raise SitegenError(f"expected {{{{ block NAME key=value … }}}}; blocks: {', '.join(all_blocks())}", file,
                               f"line {line}")
        try:
            args = md.block_args(tokens[1:], at)
        except md.InlineError as exc:
            raise SitegenError(str(exc), file, f"line {line}") from None
        options = {"block": (tokens[0], line), **{k: (v, line) for k, v in args.items()}}
        if "block" in args:
            raise SitegenError("name the block once, right after 'block'", file, f"line {line}")
        self.edits.append((start, end, self.add_block(options, line, text[start:at])))

    def figure(self, name: str, args: dict[str, str], offset: int):
        a = self.blocks._report(args.pop("report", None), self.default, self.file, self.line_at(offset), f"figure '{name}'")
        try:
            return figs.resolve(a, name, args)
        except figs.FigureError as exc:
            raise SitegenError(str(exc), self.file, f"line {self.line_at(offset)}") from None

    def inline(self, at: int, after: int, expr: str) -> None:
        """An inline figure or checked statement; a contradicted statement is a warning."""
        try:
            piece = md.render_inline(expr, at, self.figure)
        except md.InlineError as exc:
            raise SitegenError(str(exc), self.file, f"line {self.line_at(exc.offset)}") from None
        if piece.failed:
            self.out.warnings.append(Diagnostic(piece.failed, self.file, f"line {self.line_at(at)}"))
            self.out.failed.append((self.line_at(at), piece.failed))
        self.out.pieces.append(f'<span class="sitegen-inline">{piece.html}</span>')
        self.edits.append((at, after, self.out.token(len(self.out.pieces) - 1)))

    def finish(self) -> Expanded:
        parts, pos = [], 0
        for start, end, replacement in sorted(self.edits):
            parts.append(self.text[pos:start])
            parts.append(replacement)
            pos = end
        parts.append(self.text[pos:])
        self.out.markdown = "".join(parts)
        return self.out


def _sitegen_fences(text: str, fences: list[Fence], file, line_at: Callable[[int], int]):
    """Each ```sitegen block of the page's `fences` (render/codeblocks.py: found in linear time)
    as (start, end, indent, where its body starts, body). One inside another fenced block (a page
    showing how a block is written, in ````markdown) or inside indented code is code, shown as typed."""
    for f in fences:
        if f.info != "sitegen":
            continue
        if not f.closed:
            raise SitegenError("sitegen block is not closed: end it with the same fence", file, f"line {line_at(f.start)}")
        yield f.start, f.end, f.indent, f.body, text[f.body:f.body_end]


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")


def _min_points() -> int:
    from site_gen.analysis.changes import MIN_POINTS

    return MIN_POINTS
