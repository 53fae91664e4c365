"""Author pages: markdown in `docs_dir` with report blocks and inline figures from the receipts.

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

import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml
from html import unescape
from markupsafe import Markup

from site_gen.analyse import figures as figs
from site_gen.analyse.report import Analysis
from site_gen.config import Config
from site_gen.errors import SitegenError
from site_gen.load import check_report_id
from site_gen.render import markdown as md
from site_gen.render.pages import Page, ReportPages, environment, present_sections, rel, report_base
from site_gen.sections import BlockSpec, all_sections

MARKDOWN_SUFFIXES = (".md", ".markdown")


_IMPORT = '{% from "_macros.html" import precision_headline, precision_table, speed_summary, speed_cells, speed_chart, memory_table, long_table, versions_table, tool_summary, dashboard_table with context %}'

# The site-wide blocks; each section brings its own (`Section.blocks`).
_SITE_BLOCKS = {
    "dashboard": BlockSpec(None, None, (), "{{ dashboard_table(reports) }}", "the table of every report (site-wide, no report)",
                           "reports"),
}


def all_blocks() -> dict[str, BlockSpec]:
    """Every block by name: the sections' in their order, then the site-wide ones."""
    return {**{name: spec for s in all_sections() for name, spec in s.blocks.items()}, **_SITE_BLOCKS}


COMMON_OPTIONS = ("block", "report", "id")

# A ```sitegen fenced block: its body is `key: value` lines.
_SITEGEN_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*sitegen[ \t]*(?:\n|\Z)", re.M)
_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.S)
_H1 = re.compile(r"^#[ \t](.+)$", re.M)
FRONT_MATTER_DEPTH = 50


class _FrontMatterLoader(yaml.SafeLoader):
    """SafeLoader that refuses nesting deeper than FRONT_MATTER_DEPTH: PyYAML composes nodes by
    recursion, so a deep enough page would end in RecursionError."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > FRONT_MATTER_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {FRONT_MATTER_DEPTH} levels",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def split_front_matter(text: str, file: str | Path) -> tuple[dict[str, Any], str, int]:
    """YAML front matter (as MkDocs reads it), the body, and how many lines came before the body."""
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text, 0
    try:
        meta = yaml.load(m.group(1), Loader=_FrontMatterLoader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SitegenError(f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}", file,
                           f"line {mark.line + 2}" if mark else "line 1") from None
    if not isinstance(meta, dict):
        meta = {}
    body = text[m.end():].lstrip("\n")
    return meta, body, text.count("\n", 0, len(text) - len(body))


@dataclass
class Expanded:
    """An author page's markdown with blocks and figures swapped for tokens, and their HTML."""

    markdown: str
    pieces: list[str] = field(default_factory=list)
    marker: str = "SITEGEN0Z"  # a placeholder prefix that the page's text does not contain
    charts: bool = False
    blocks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)  # (line, message) of contradicted statements

    def token(self, i: int) -> str:
        return f"{self.marker}{i}Z"

    def restore(self, html: str) -> str:
        """Puts each piece where its token ended up; a block's token stands alone in a paragraph.
        One pass: receipt text inside a piece is never taken for a token."""
        return md.put_back(html, self.marker, self.pieces, paragraph=True)


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


class AuthorBlocks:
    """Renders report blocks and inline figures for author pages, from a set of analysed reports."""

    def __init__(self, analyses: list[Analysis], config: Config, *, dashboard: list[dict[str, str]] | None = None):
        self.config = config
        self.analyses = {a.report.id: a for a in analyses}
        self.dashboard = dashboard or []
        self._pages: dict[tuple[str, str], ReportPages] = {}
        self._contexts: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._templates: dict[str, Any] = {}
        # What the page being expanded drew on: report ids, or every report (the dashboard).
        self.used: set[str] = set()
        self.used_all = False

    # -- where things are ---------------------------------------------------------------------
    def report_url(self, report_id: str, section: str = "overview") -> str | None:
        """Site path of a report's page (`reports/ID/speed.html`), or None if the report lacks it."""
        a = self.analyses.get(report_id)
        if a is None:
            return None
        self.used.add(report_id)
        for key, _, file in present_sections(a):
            if key == section:
                return report_base(report_id) + file
        return None

    def _report(self, name: str | None, default: str | None, file, line: int, what: str) -> Analysis:
        rid = name or default
        if rid is None:
            if len(self.analyses) == 1:
                a = next(iter(self.analyses.values()))
                self.used.add(a.report.id)
                return a
            raise SitegenError(f"{what} needs a report: add report=ID (or 'report: ID' in the page's front matter); "
                               f"reports: {', '.join(sorted(self.analyses)) or 'none'}", file, f"line {line}")
        if rid not in self.analyses:
            check_report_id(rid, file, f"line {line}")  # a name that could climb out says so plainly
            raise SitegenError(f"unknown report '{rid}'; reports: {', '.join(sorted(self.analyses)) or 'none'}",
                               file, f"line {line}")
        self.used.add(rid)
        return self.analyses[rid]

    def _context(self, a: Analysis, section: str, page_path: str) -> dict[str, Any]:
        """The report page context of a section, with links relative to the author page."""
        folder = posixpath.dirname(page_path)
        key = (a.report.id, section, folder)
        if key not in self._contexts:
            rp = self._pages.get((a.report.id, folder))
            if rp is None:
                # One per report and folder: receipt notes inside views link relative to the page.
                rp = self._pages[(a.report.id, folder)] = ReportPages(a, self.config, [], strict=False)
            self._contexts[key] = rp.context(section, page_path)
        return self._contexts[key]

    def _template(self, name: str):
        if name not in self._templates:
            env = environment(str(self.config.custom_dir) if self.config.custom_dir else None)
            self._templates[name] = env.from_string(_IMPORT + all_blocks()[name].template)
        return self._templates[name]

    # -- one block ----------------------------------------------------------------------------
    def block(self, options: dict[str, tuple[str, int]], *, file, line: int, page_path: str,
              default_report: str | None, used_ids: set[str]) -> tuple[str, bool]:
        """HTML of one block from its options {key: (value, line)}; and whether it draws a chart."""
        blocks = all_blocks()
        if "block" not in options:
            raise SitegenError(f"a sitegen block needs 'block: NAME'; blocks: {', '.join(blocks)}", file, f"line {line}")
        name, name_line = options["block"]
        if name not in blocks:
            raise SitegenError(f"unknown block '{name}'{_suggest(name, blocks)}; blocks: {', '.join(blocks)}",
                               file, f"line {name_line}")
        spec = blocks[name]
        known = COMMON_OPTIONS + spec.options if spec.section else ("block", "id")
        for key, (_, key_line) in options.items():
            if key not in known:
                raise SitegenError(f"unknown option '{key}' for block '{name}'{_suggest(key, known)}; "
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
            ctx: dict[str, Any] = {"reports": [_dashboard_row_at(r, page_path) for r in self.dashboard]}
            report_id = ""
            ident = ident or spec.default_id
        else:
            a = self._report(opt.get("report"), default_report, file, at.get("report", line), f"block '{name}'")
            report_id = a.report.id
            ctx = dict(self._context(a, spec.section, page_path))
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
        html = self._template(name).render(ctx).strip()
        wrapper = Markup('<div class="sitegen-block" data-block="{}"{}>\n').format(
            name, Markup(' data-report="{}"').format(report_id) if report_id else "")
        return str(wrapper) + html + "\n</div>", charts

    # -- a whole page -------------------------------------------------------------------------
    def expand(self, text: str, *, file, page_path: str, meta: dict[str, Any] | None = None, line_offset: int = 0,
               strict: bool = False, home: bool = False,
               resolve_page: Callable[[str], str | None] | None = None) -> Expanded:
        """Swaps every sitegen block and `{{ … }}` of an author page's markdown for a token.

        `page_path` is the site path of the page's HTML file (`guide/index.html`): links inside
        blocks are made relative to it. Errors name `file` and the line (plus `line_offset`, the
        lines of front matter above `text`). A contradicted checked statement raises under
        `strict`, and otherwise is shown marked and listed in `warnings`.
        """
        meta = meta or {}
        default = meta.get("report")
        if default is not None and not isinstance(default, str):
            raise SitegenError("front matter 'report' must be a report id", file, "line 1")
        if default is not None and default not in self.analyses:
            check_report_id(default, file, "line 1")
            raise SitegenError(f"unknown report '{default}' in front matter; reports: {', '.join(sorted(self.analyses)) or 'none'}",
                               file, "line 1")
        out = Expanded(markdown=text, marker=md.unused_marker("SITEGEN", text))
        used_ids: set[str] = set()
        edits: list[tuple[int, int, str]] = []
        line_of = md.line_finder(text)
        line_at = lambda offset: line_of(offset) + line_offset

        def add_block(options, line: int, indent: str) -> str:
            html, charts = self.block(options, file=file, line=line, page_path=page_path, default_report=default,
                                      used_ids=used_ids)
            out.pieces.append(html)
            out.charts |= charts
            out.blocks.append(options["block"][0])
            return f"\n{indent}{out.token(len(out.pieces) - 1)}\n"

        for start, end, indent, body_at, body in _sitegen_fences(text, file, line_at):
            options: dict[str, tuple[str, int]] = {}
            first = line_at(body_at)
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
            edits.append((start, end, add_block(options, line_at(start), indent)))

        code = md.code_ranges(text)

        def resolve_figure(name: str, args: dict[str, str], offset: int):
            a = self._report(args.pop("report", None), default, file, line_at(offset), f"figure '{name}'")
            try:
                return figs.resolve(a, name, args)
            except figs.FigureError as exc:
                raise SitegenError(str(exc), file, f"line {line_at(offset)}") from None

        for at, after, expr in md.inline_figures(text):
            if at in code:
                continue
            if expr.split()[:1] == ["block"]:
                start = text.rfind("\n", 0, at) + 1
                end = text.find("\n", after)
                end = len(text) if end < 0 else end
                if text[start:at].strip() or text[after:end].strip():
                    raise SitegenError("a {{ block … }} directive must stand on a line of its own", file,
                                       f"line {line_at(at)}")
                tokens = expr.split()[1:]
                if not tokens or "=" in tokens[0]:
                    raise SitegenError(f"expected {{{{ block NAME key=value … }}}}; blocks: {', '.join(all_blocks())}", file,
                                       f"line {line_at(at)}")
                try:
                    args = md._args(tokens[1:], at)
                except md.InlineError as exc:
                    raise SitegenError(str(exc), file, f"line {line_at(at)}") from None
                line = line_at(at)
                options = {"block": (tokens[0], line), **{k: (v, line) for k, v in args.items()}}
                if "block" in args:
                    raise SitegenError("name the block once, right after 'block'", file, f"line {line}")
                edits.append((start, end, add_block(options, line, text[start:at])))
                continue
            try:
                piece = md.render_inline(expr, at, resolve_figure)
            except md.InlineError as exc:
                raise SitegenError(str(exc), file, f"line {line_at(exc.offset)}") from None
            if piece.failed:
                if strict:
                    raise SitegenError(piece.failed, file, f"line {line_at(at)}")
                out.failed.append((line_at(at), piece.failed))
                out.warnings.append(f"{file}: line {line_at(at)}: {piece.failed}")
            out.pieces.append(f'<span class="sitegen-inline">{piece.html}</span>')
            edits.append((at, after, out.token(len(out.pieces) - 1)))

        if home and "dashboard" not in out.blocks:
            html, _ = self.block({"block": ("dashboard", 0)}, file=file, line=0, page_path=page_path, default_report=None,
                                 used_ids=used_ids)
            out.pieces.append(html)
            out.blocks.append("dashboard")
            edits.append((len(text), len(text), f"\n\n{out.token(len(out.pieces) - 1)}\n"))

        parts, pos = [], 0
        for start, end, replacement in sorted(edits):
            parts.append(text[pos:start])
            parts.append(replacement)
            pos = end
        parts.append(text[pos:])
        out.markdown = "".join(parts)
        return out


def _sitegen_fences(text: str, file, line_at: Callable[[int], int]):
    """Each ```sitegen block as (start, end, indent, where its body starts, body), in linear time:
    one search for each block's closing fence, from its opening line on."""
    pos = 0
    while (m := _SITEGEN_OPEN.search(text, pos)) is not None:
        fence = m.group("fence")
        close = re.compile(rf"^[ \t]*{re.escape(fence)}[`~]*[ \t]*$", re.M).search(text, m.end())
        if close is None:
            raise SitegenError("sitegen block is not closed: end it with the same fence", file, f"line {line_at(m.start())}")
        yield m.start(), close.end(), m.group("indent"), m.end(), text[m.end():close.start()]
        pos = close.end()


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")


def _suggest(key: str, known) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def title_of(meta: dict[str, Any], body: str, fallback: str) -> str:
    """The page title as MkDocs picks it: front matter, else the first `# heading`, else the file name."""
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        return meta["title"].strip()
    code = md.code_ranges(body)
    for m in _H1.finditer(body):
        if m.start() not in code:
            import markdown as _markdown

            # The closing #s and blanks of an ATX heading are not its text (string methods: a
            # regex for them backtracks over a long run of #).
            heading = m.group(1).lstrip(" \t")
            words = heading.rstrip(" \t").rstrip("#").rstrip(" \t") or heading[:1]
            html = _markdown.markdown(md.without_inline(words))
            return unescape(re.sub(r"<[^>]+>", "", html)).strip() or fallback
    return fallback


def file_title(src: str) -> str:
    """`getting-started.md` -> `Getting started` (MkDocs' rule for a page without a heading)."""
    stem = posixpath.splitext(posixpath.basename(src))[0]
    if stem in ("index", "README"):
        stem = posixpath.basename(posixpath.dirname(src)) or "Home"
    title = stem.replace("-", " ").replace("_", " ")
    return title[:1].upper() + title[1:] if title[:1].islower() else title


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

    def __init__(self, config: Config, analyses: list[Analysis], *, strict: bool = False):
        self.config = config
        self.strict = strict
        self.analyses = analyses
        self.warnings: list[str] = []
        self.sources: dict[str, _Source] = {}
        self.static: dict[str, Path] = {}
        self._discover()
        for s in self.sources.values():
            self._read(s)
        self.nav = [{"title": s.title, "url": s.url, "report": None}
                    for s in sorted(self.sources.values(), key=lambda s: s.src) if s.url != "index.html"]

    @property
    def has_home(self) -> bool:
        return any(s.url == "index.html" for s in self.sources.values())

    def _discover(self) -> None:
        root = self.config.docs_dir
        if not root.is_dir():
            return
        reserved = tuple(report_base(a.report.id) for a in self.analyses) + ("assets/",)
        found: list[tuple[str, Path]] = []
        for path in sorted(root.rglob("*")):
            rel_path = path.relative_to(root).as_posix()
            parts = rel_path.split("/")
            if any(p.startswith(".") for p in parts) or parts[0] == "templates" or not path.is_file():
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
                out = url
            else:
                out = src
            if out.startswith(reserved):
                raise SitegenError(f"would replace a file sitegen generates ({out}); move it elsewhere in docs", path)
            if src in md_srcs:
                if any(s.url == out for s in self.sources.values()):
                    raise SitegenError(f"two pages would both become {out}", path)
                self.sources[src] = _Source(src=src, path=path, url=out)
            else:
                self.static[out] = path

    def _read(self, s: _Source) -> None:
        try:
            s.text = s.path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise SitegenError("not UTF-8 text", s.path) from None
        s.meta, s.body, s.offset = split_front_matter(s.text, s.path)
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

        With `cache` (kept by the caller between builds), a page is remade only when its text or a
        report it draws on changed: a receipt edit remakes the pages that show that report (and a
        page with the dashboard), not every page of docs.
        """
        blocks = AuthorBlocks(self.analyses, self.config, dashboard=home.context.get("reports", []))
        by_id = {a.report.id: a for a in self.analyses}
        # A report's lede shows only on its overview, which no block draws on.
        lede = any(spec.section == "overview" for spec in all_blocks().values())
        versions = {a.report.id: (a.report.sha256, a.report.lede if lede else None) for a in self.analyses}
        every = tuple(sorted(versions.items()))
        ids = tuple(sorted(versions))
        out = [] if self.has_home else [home]
        exts = self._extensions()
        live = {}
        for s in sorted(self.sources.values(), key=lambda s: s.src):
            if cache is not None:
                hit = cache.get(s.src)
                if hit is not None:
                    (text, url, had, used, used_all, seen), page, warnings = hit
                    now = every if used_all else tuple((rid, versions.get(rid)) for rid in used)
                    if (text, url, had) == (s.text, s.url, ids) and now == seen:
                        live[s.src] = hit
                        out.append(page)
                        self.warnings.extend(warnings)
                        continue
            blocks.used, blocks.used_all = set(), False
            warned = len(self.warnings)
            default = s.meta.get("report") if isinstance(s.meta.get("report"), str) else None

            def resolve_page(target: str, s=s, default=default) -> str | None:
                report, _, section = target.rpartition("/")
                report = report or default or (next(iter(by_id)) if len(by_id) == 1 else "")
                url = blocks.report_url(report, section or "overview")
                return rel(s.url, url) if url else None

            def resolve_link(target: str, s=s) -> str | None:
                path, hash_, anchor = target.partition("#")
                if not path.lower().endswith(MARKDOWN_SUFFIXES):
                    return None
                src = posixpath.normpath(posixpath.join(posixpath.dirname(s.src), path))
                if src not in self.sources:
                    message = f"{s.path}: links to '{path}', which is not a page in {self.config.docs_dir.name}/"
                    if self.strict:
                        raise SitegenError(f"links to '{path}', which is not a page in {self.config.docs_dir.name}/", s.path)
                    self.warnings.append(message)
                    return None
                return rel(s.url, self.sources[src].url) + hash_ + anchor

            expanded = blocks.expand(s.body, file=s.path, page_path=s.url, meta=s.meta, line_offset=s.offset,
                                     strict=self.strict, home=s.url == "index.html")
            self.warnings.extend(expanded.warnings)
            try:
                converter = md.author_markdown(resolve_page, resolve_link, exts)
            except (ImportError, AttributeError, TypeError, ValueError) as exc:
                raise SitegenError(f"a markdown extension could not be loaded: {exc}", self.config.config_file,
                                   "markdown_extensions") from None
            html = expanded.restore(converter.convert(expanded.markdown))
            page = Page(url=s.url, title=s.title, template="page.html", charts=expanded.charts,
                        context={"content": Markup(html), "doc": {"src": s.src},
                                 "dashboard": "dashboard" in expanded.blocks})
            out.append(page)
            if cache is not None:
                used = tuple(sorted(blocks.used))
                seen = every if blocks.used_all else tuple((rid, versions.get(rid)) for rid in used)
                live[s.src] = ((s.text, s.url, ids, used, blocks.used_all, seen), page,
                               self.warnings[warned:])
        if cache is not None:
            cache.clear()
            cache.update(live)
        return out

    def files(self) -> dict[str, bytes]:
        return {out: path.read_bytes() for out, path in self.static.items()}
