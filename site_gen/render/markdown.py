"""Markdown for receipts (raw HTML off, unsafe links dropped) and for author pages, with
inline figures `{{ name key=value }}` and checked statements `{{ check name < 100 : text }}`.
"""
from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as etree
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterator

import markdown
from markupsafe import Markup

from site_gen.errors import SitegenError
from site_gen.render import format as fmt
from site_gen.render.tokens import put_back

_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
SAFE_SCHEMES = ("http:", "https:", "mailto:")
FORMAT_ARGS = ("digits",)

# Receipt text is untrusted, and python-markdown reads some shapes of text in quadratic time: each
# '[' scans to its ']' (or the paragraph's end) for every link pattern, and a paragraph of many
# short lines is split again at each heading or rule in it. Within these bounds the slowest text
# takes about a second, a real one milliseconds (real notes and ledes are a few hundred characters).
RECEIPT_MAX_CHARS = 8_000
RECEIPT_MAX_PARAGRAPH = 2_000
RECEIPT_MAX_BRACKETS = 32
# All of a receipt's markdown together: the bounds above hold each text to about a second at worst, and
# a receipt may list thousands of texts.
RECEIPT_MAX_TOTAL = 32_000
RECEIPT_MAX_DEPTH = 16  # lists and quotes inside each other (python-markdown recurses per level)


class InlineError(ValueError):
    """A malformed or failing inline figure; `offset` is where it starts in the source."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


@dataclass
class Inline:
    """What an inline expression resolved to: HTML to show, and a failed check if any."""

    html: Markup
    failed: str | None = None


@dataclass
class MarkdownResult:
    html: Markup
    failed_checks: list[tuple[int, str]] = field(default_factory=list)


def _link_fixer(resolve_page: Callable[[str], str | None], allow_relative: bool,
                resolve_link: Callable[[str], str | None] | None = None):
    class Fixer(markdown.treeprocessors.Treeprocessor):
        def run(self, root: etree.Element) -> None:
            for el in root.iter():
                attr = {"a": "href", "img": "src"}.get(el.tag)
                if attr is None or attr not in el.attrib:
                    continue
                target = el.attrib[attr].strip()
                lowered = target.lower()
                if lowered.startswith("page:"):
                    name, _, anchor = target[5:].partition("#")
                    url = resolve_page(name)
                    if url is None:
                        del el.attrib[attr]
                        el.set("class", "broken-link")
                    else:
                        el.set(attr, url + (f"#{anchor}" if anchor else ""))
                elif lowered.startswith(SAFE_SCHEMES) or lowered.startswith("#"):
                    continue
                elif allow_relative and ":" not in lowered.split("/")[0]:
                    if resolve_link is not None:
                        fixed = resolve_link(target)
                        if fixed is not None:
                            el.set(attr, fixed)
                    continue
                else:
                    del el.attrib[attr]
    return Fixer


AUTHOR_EXTENSIONS = ["tables", "fenced_code", "footnotes", "attr_list", "admonition", "sane_lists", "toc"]


def _markdown(resolve_page, trusted: bool, extensions: list | None = None,
              resolve_link: Callable[[str], str | None] | None = None) -> markdown.Markdown:
    exts = (extensions or AUTHOR_EXTENSIONS) if trusted else ["sane_lists"]
    md = markdown.Markdown(extensions=exts, output_format="html")
    if not trusted:
        # Receipts are data: their HTML is shown as text, never passed through.
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_link_fixer(resolve_page, trusted, resolve_link if trusted else None)(md), "sitegen_links", 0)
    return md


_RECEIPT = threading.local()


def _receipt_markdown(resolve_page: Callable[[str], str | None]) -> markdown.Markdown:
    """The receipt converter, reused: making one costs more than converting a note with it, and a
    report has a dozen notes. Receipt converters differ only in the page resolver, which is swapped."""
    md = getattr(_RECEIPT, "md", None)
    if md is not None and md.sitegen_holder.get("busy"):
        return _markdown(resolve_page, False)  # re-entered (a resolver that renders markdown): one of its own
    if md is None:
        holder: dict[str, Callable[[str], str | None]] = {}
        md = _markdown(lambda name: holder["resolve"](name), False)
        md.sitegen_holder = holder
        _RECEIPT.md = md
    md.sitegen_holder["resolve"] = resolve_page
    md.reset()
    return md


def author_markdown(resolve_page, resolve_link=None, extensions: list | None = None) -> markdown.Markdown:
    """Markdown for pages the site's author writes: trusted, raw HTML allowed, relative links kept."""
    return _markdown(resolve_page, True, extensions, resolve_link)


_FENCE = re.compile(r"^[ \t]*+(`{3,}+|~{3,}+)[^\n]*\n.*?(?:^[ \t]*\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"(?=\n[ \t]*\n)")  # every start, overlapping: a code span crosses none


class CodeRanges:
    """Where fenced code blocks and inline code spans sit: `{{ … }}` there is shown as written.

    `offset in ranges` is a binary search: ranges may nest (a span around a fence), so each start
    keeps the furthest end reached by it or any range before it.
    """

    def __init__(self, ranges: list[tuple[int, int]]):
        self.ranges = sorted(ranges)
        self._starts = [a for a, _ in self.ranges]
        self._reach, furthest = [], -1
        for _, b in self.ranges:
            furthest = max(furthest, b)
            self._reach.append(furthest)

    def __contains__(self, offset: int) -> bool:
        i = bisect_right(self._starts, offset) - 1
        return i >= 0 and self._reach[i] > offset


def _code_spans(text: str) -> Iterator[tuple[int, int]]:
    r"""Backtick runs closed by the next run of the same length before a blank line, left to right.

    The same spans as the regex (?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\1(?!`), found in
    linear time: that regex reads to the paragraph's end from every run left open.
    """
    runs = [(m.start(), m.end() - m.start()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = defaultdict(list)
    for start, n in runs:
        by_length[n].append(start)
    blanks = [m.start() for m in _BLANK_LINE.finditer(text)]
    resume = 0
    for start, n in runs:
        if start < resume:
            continue
        same = by_length[n]
        k = bisect_right(same, start)
        if k == len(same):
            continue
        close = same[k]
        b = bisect_left(blanks, start + n)
        if b < len(blanks) and blanks[b] < close:
            continue
        yield start, close + n
        resume = close + n


def code_ranges(text: str) -> CodeRanges:
    fences = [m.span() for m in _FENCE.finditer(text)]
    fenced = CodeRanges(fences)
    return CodeRanges(fences + [span for span in _code_spans(text) if span[0] not in fenced])


def inline_figures(text: str) -> Iterator[tuple[int, int, str]]:
    r"""Each `{{ … }}` as (start, end, expression): the first `}}` after a `{{` closes it.

    A scan with str.find, linear: the regex \{\{\s*(.+?)\s*\}\} read to the end of the text from
    every `{{` left open.
    """
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        end = text.find("}}", start + 3)  # the expression has at least one character
        if end < 0:
            return  # no `}}` after this `{{`: none after any later one either
        yield start, end + 2, text[start + 2:end].strip()
        pos = end + 2


def without_inline(text: str) -> str:
    """The text with every `{{ … }}` taken out."""
    parts, pos = [], 0
    for start, end, _ in inline_figures(text):
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def unused_marker(prefix: str, *texts: str) -> str:
    """`prefix` + a number that no text contains: placeholders that the text cannot forge.

    A placeholder is the marker, an index, and `Z` (`SGINLINE0Z3Z`); the marker has no border (no
    end of it starts it), so no placeholder can arise where text meets a placeholder. The number is
    the first free one, not a random one: the same text gives the same HTML on every build.
    """
    taken = {int(n) for text in texts for n in re.findall(re.escape(prefix) + r"(\d+)Z", text)}
    return f"{prefix}{next(n for n in range(len(taken) + 1) if n not in taken)}Z"


_LINE_DEPTH = re.compile(r"^(?:[ \t]|>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))*", re.M)
_MARKER = re.compile(r"[-*+]|\d+[.)]")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def check_receipt_budget(texts, file) -> None:
    """Refuses a receipt whose markdown texts together pass RECEIPT_MAX_TOTAL, at the text that passes it."""
    total = 0
    for where, text in texts:
        total += min(len(text), RECEIPT_MAX_CHARS)  # a text past its own bound is refused as such when rendered
        if total > RECEIPT_MAX_TOTAL:
            raise SitegenError(f"a receipt's markdown (lede, tested, not covered, notes) is limited to {RECEIPT_MAX_TOTAL:,} "
                               f"characters in all; this text brings it to {total:,}", file, where)


def check_receipt_markdown(text: str) -> None:
    """Refuses receipt markdown beyond the bounds above (InlineError at the place), in linear time."""
    if len(text) > RECEIPT_MAX_CHARS:
        raise InlineError(f"receipt markdown is limited to {RECEIPT_MAX_CHARS:,} characters; this text has "
                          f"{len(text):,} (longer prose belongs in a docs page)", RECEIPT_MAX_CHARS)
    if text.count("[") > RECEIPT_MAX_BRACKETS:
        at = -1
        for _ in range(RECEIPT_MAX_BRACKETS + 1):
            at = text.find("[", at + 1)
        raise InlineError(f"receipt markdown is limited to {RECEIPT_MAX_BRACKETS} '['; this text has {text.count('['):,}", at)
    start = 0
    for m in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = m.start() if m else len(text)
        if end - start > RECEIPT_MAX_PARAGRAPH:
            raise InlineError(f"a paragraph of receipt markdown is limited to {RECEIPT_MAX_PARAGRAPH:,} characters; this one "
                              f"has {end - start:,} (separate paragraphs with a blank line)", start)
        start = m.end() if m else end
    for m in _LINE_DEPTH.finditer(text):
        prefix = m.group(0)
        # Each quote mark and list marker opens a level, and so does each indent of four columns
        # (besides the one blank that may follow each mark).
        marks = prefix.count(">") + len(_MARKER.findall(prefix))
        depth = marks + max(0, prefix.count(" ") + 4 * prefix.count("\t") - marks) // 4
        if depth > RECEIPT_MAX_DEPTH:
            raise InlineError(f"lists and quotes in receipt markdown nest at most {RECEIPT_MAX_DEPTH} deep; this line "
                              f"nests {depth:,}", m.start())


# Docs pages are the author's and have no size bound, but python-markdown reads some shapes of text in
# quadratic time, or recurses once per level of nesting, and the preview converts a page at each save
# of it. The guard below estimates, in linear time, what each known shape makes python-markdown read
# and refuses a page past a bound (calibrated so that the slowest page within every bound converts in
# about a second; a real page is thousands of times below them):
DOCS_MAX_DEPTH = 50                 # lists, quotes and indented blocks inside each other
DOCS_MAX_BRACKET_READ = 2_000_000   # characters its link patterns read to match each '[' with its ']'
DOCS_MAX_PAREN_READ = 4_000_000     # characters read to match each link's '(' with its ')'
DOCS_MAX_TAG_READ = 8_000_000       # characters read past each '<' + letter to the '>' that ends the tag
DOCS_MAX_SPLIT_READ = 8_000_000     # characters read again at each heading or rule line inside a paragraph

_ESCAPED = re.compile(r"\\[\\\[\]()<>]")
_BRACKETS = re.compile(r"[\[\]()]")
_TAG_OPEN = re.compile(r"<[A-Za-z]|>")
_SPLIT_LINE = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$|(?:[-*_][ \t]*){3,}$)", re.M)


def _skipped(text: str) -> CodeRanges:
    """Where python-markdown reads no markup: fenced and inline code, escaped characters."""
    ranges = list(code_ranges(text).ranges) + [m.span() for m in _ESCAPED.finditer(text)]
    return CodeRanges(ranges)


def _chunks(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of lines between blank lines: what python-markdown reads as one block
    or more (an upper bound of the text one inline pass sees)."""
    start = 0
    for m in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = m.start() if m else len(text)
        if end > start:
            yield start, end
        start = m.end() if m else end


def _bracket_reads(text: str, start: int, end: int, skip: CodeRanges) -> tuple[int, int, int, int]:
    """(characters read to match '[', the first '[' left open or matched farthest, the same for a
    link's '(' and where) in text[start:end]: each '[' is read to its ']' or the block's end, and so
    is each '(' right after a ']' to its ')'."""
    squares: list[int] = []
    parens: list[tuple[int, bool]] = []
    square_read = paren_read = 0
    square_at = paren_at = -1
    square_far = paren_far = -1
    for m in _BRACKETS.finditer(text, start, end):
        pos, ch = m.start(), m.group()
        if pos in skip:
            continue
        if ch == "[":
            squares.append(pos)
        elif ch == "]":
            if squares:
                opened = squares.pop()
                square_read += pos - opened
                if pos - opened > square_far:
                    square_far, square_at = pos - opened, opened
        elif ch == "(":
            parens.append((pos, pos > start and text[pos - 1] == "]"))
        elif parens:
            opened, link = parens.pop()
            if link:
                paren_read += pos - opened
                if pos - opened > paren_far:
                    paren_far, paren_at = pos - opened, opened
    for opened in squares:
        square_read += end - opened
    for opened, link in parens:
        if link:
            paren_read += end - opened
    if squares:
        square_at = squares[0]
    open_links = [p for p, link in parens if link]
    if open_links:
        paren_at = open_links[0]
    return square_read, square_at, paren_read, paren_at


def check_docs_markdown(text: str) -> None:
    """Refuses a docs page that python-markdown would take too long to read, or recurse too deep on
    (InlineError at the place), in linear time."""
    skip = _skipped(text)
    fences = CodeRanges([m.span() for m in _FENCE.finditer(text)])
    for m in _LINE_DEPTH.finditer(text):
        prefix = m.group(0)
        if len(prefix) <= DOCS_MAX_DEPTH or m.start() in fences:
            continue  # too short to nest that deep (each level is at least one mark), or code
        marks = prefix.count(">") + len(_MARKER.findall(prefix))
        depth = marks + max(0, prefix.count(" ") + 4 * prefix.count("\t") - marks) // 4
        if depth > DOCS_MAX_DEPTH:
            raise InlineError(f"lists, quotes and indented blocks nest at most {DOCS_MAX_DEPTH} deep in a page; this "
                              f"line nests {depth:,}", m.start())
    squares = parens = splits = 0
    worst_square = worst_paren = worst_split = (0, -1)
    for start, end in _chunks(text):
        s_read, s_at, p_read, p_at = _bracket_reads(text, start, end, skip)
        squares, parens = squares + s_read, parens + p_read
        worst_square = max(worst_square, (s_read, s_at))
        worst_paren = max(worst_paren, (p_read, p_at))
        lines = [m.start() for m in _SPLIT_LINE.finditer(text, start, end) if m.start() not in fences]
        if len(lines) > 1:
            splits += len(lines) * (end - start)
            worst_split = max(worst_split, (len(lines) * (end - start), lines[1]))
    if squares > DOCS_MAX_BRACKET_READ:
        raise InlineError(f"'[' left open or nested deep: python-markdown would read {squares:,} characters to match this "
                          f"page's brackets (at most {DOCS_MAX_BRACKET_READ:,}); close each '[' or write a literal one "
                          "as '\\['", worst_square[1])
    if parens > DOCS_MAX_PAREN_READ:
        raise InlineError(f"a link's '(' left open or nested deep: python-markdown would read {parens:,} characters to "
                          f"match them (at most {DOCS_MAX_PAREN_READ:,}); close each '(' or write a literal one as '\\('",
                          worst_paren[1])
    tags, at = _tag_reads(text, fences)
    if tags > DOCS_MAX_TAG_READ:
        raise InlineError(f"'<' and a letter open an HTML tag that no '>' ends soon: python-markdown would read {tags:,} "
                          f"characters to find the ends of this page's tags (at most {DOCS_MAX_TAG_READ:,}); write a "
                          "literal '<' as '&lt;'", at)
    if splits > DOCS_MAX_SPLIT_READ:
        raise InlineError(f"heading and rule lines inside one paragraph: python-markdown would read {splits:,} characters "
                          f"splitting this page's paragraphs at them (at most {DOCS_MAX_SPLIT_READ:,}); put a blank line "
                          "before and after each heading", worst_split[1])


def _tag_reads(text: str, fences: CodeRanges) -> tuple[int, int]:
    """(characters read from each '<' + letter to the next '>', the first such '<' with no '>' after
    it or the farthest from one): the HTML reader reads the whole page, fenced code aside."""
    read, at, far = 0, -1, -1
    opened: list[int] = []
    for m in _TAG_OPEN.finditer(text):
        if m.start() in fences:
            continue
        if m.group() == ">":
            for pos in opened:
                read += m.start() - pos
                if m.start() - pos > far:
                    far, at = m.start() - pos, pos
            opened = []
        else:
            opened.append(m.start())
    for pos in opened:
        read += len(text) - pos
    if opened:
        at = opened[0]
    return read, at


def parse_check(expr: str, offset: int) -> tuple[str, dict[str, str], str | None, float | None, bool, str]:
    """`check startup_max engine=candidate < 100 : under 100 seconds` -> parts."""
    body, sep, text = expr.partition(":")
    if not sep or not text.strip():
        raise InlineError("a checked statement needs ': text to show' after its condition", offset)
    tokens = body.split()[1:]
    negate = bool(tokens) and tokens[0] == "not"
    if negate:
        tokens = tokens[1:]
    op = number = None
    if len(tokens) >= 3 and tokens[-2] in _OPS:
        op, raw = tokens[-2], tokens[-1]
        try:
            number = float(raw)
        except ValueError:
            raise InlineError(f"expected a number after '{op}', got {raw!r}", offset) from None
        tokens = tokens[:-2]
    if not tokens:
        raise InlineError("a checked statement needs a figure name", offset)
    name, args = tokens[0], _args(tokens[1:], offset)
    return name, args, op, number, negate, text.strip()


def _args(tokens: list[str], offset: int) -> dict[str, str]:
    args = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not key:
            raise InlineError(f"expected key=value, got {token!r}", offset)
        args[key] = value.strip("\"'")
        # ASCII digits only: str.isdigit() also takes '²', which int() refuses.
        if key == "digits" and not (re.fullmatch(r"[0-9]{1,2}", args[key]) and int(args[key]) <= 12):
            raise InlineError(f"digits must be a whole number from 0 to 12, got {args[key]!r}", offset)
    return args


def format_figure(value, kind: str, args: dict[str, str], band: float | None = None) -> str:
    digits = int(args.get("digits", 2))
    if kind == "speed_ratio_range":
        return fmt.speed_ratio_range(value[0], value[1], band, digits)
    if kind == "ratio_range":
        return fmt.ratio_range(value[0], value[1], digits)
    if kind == "ratio":
        return fmt.ratio(value, digits)
    if kind == "seconds":
        return fmt.seconds(value, digits if "digits" in args else 1)
    if kind == "count":
        return fmt.thousands(value)
    if kind == "bool":
        return "yes" if value else "no"
    return str(value)


def render_inline(expr: str, offset: int, resolve_figure) -> Inline:
    """One `{{ … }}`: a figure shown as text, or a checked statement shown as the author's words."""
    if not expr.split():
        raise InlineError("empty {{ }}: name a figure, e.g. {{ speed_verdict }}", offset)
    if expr.split()[0] == "check":
        name, args, op, number, negate, text = parse_check(expr, offset)
        style = {k: args.pop(k) for k in FORMAT_ARGS if k in args}
        fig = resolve_figure(name, args, offset)
        value = fig.value
        if op is None:
            ok = bool(value) != negate
            cond = f"{'not ' if negate else ''}{name}"
        else:
            if isinstance(value, (tuple, list)) or isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InlineError(f"figure '{name}' is not a single number; it cannot be compared with {op}", offset)
            ok = _OPS[op](value, number) != negate
            cond = f"{'not ' if negate else ''}{name} {op} {number:g}"
        shown = format_figure(value, fig.kind, style, fig.band) if not isinstance(value, bool) else str(value).lower()
        title = f"Checked against the receipts: {cond} (value {shown}; {fig.explain})"
        if ok:
            return Inline(Markup('<span class="check" tabindex="0" title="{}">{}</span>').format(title, text))
        failed = f"statement '{text}' is contradicted by the data: {cond} is false (value {shown})"
        return Inline(Markup('<mark class="check-failed" tabindex="0" title="{}">{} <span class="check-flag">'
                             '(contradicted by the receipts: {})</span></mark>').format(failed, text, shown), failed)
    tokens = expr.split()
    args = _args(tokens[1:], offset)
    style = {k: args.pop(k) for k in FORMAT_ARGS if k in args}
    fig = resolve_figure(tokens[0], args, offset)
    shown = format_figure(fig.value, fig.kind, style, fig.band)
    return Inline(Markup('<span class="fig" tabindex="0" title="{}">{}</span>').format(fig.explain, shown))


def render(text: str, *, resolve_page: Callable[[str], str | None], resolve_figure=None, trusted: bool = False,
           inline: bool = False) -> MarkdownResult:
    """Markdown to safe HTML. Inline figures are swapped for placeholders first so markdown never sees them."""
    if not trusted:
        check_receipt_markdown(text)
    pieces: list[str] = []
    failed: list[tuple[int, str]] = []
    code = code_ranges(text)
    # Python-Markdown's placeholder marks (STX, ETX) are taken out of its output, so a marker split
    # by them in the text would come out whole: the marker is chosen against the text without them.
    marker = unused_marker("SGINLINE", text.replace("\x02", "").replace("\x03", ""))
    parts, pos = [], 0
    for start, end, expr in inline_figures(text):
        if start in code:
            continue  # inside code: shown as written
        if resolve_figure is None:
            raise InlineError("figures are not available here", start)
        piece = render_inline(expr, start, resolve_figure)
        if piece.failed:
            failed.append((start, piece.failed))
        parts += [text[pos:start], f"{marker}{len(pieces)}Z"]
        pieces.append(str(piece.html))
        pos = end
    source = "".join(parts) + text[pos:]
    converter = _markdown(resolve_page, trusted) if trusted else _receipt_markdown(resolve_page)
    holder = getattr(converter, "sitegen_holder", None)
    if holder is not None:
        holder["busy"] = True
    try:
        html = converter.convert(source)
    finally:
        if holder is not None:
            holder["busy"] = False
    # Python-Markdown's placeholder marks (STX, ETX) can leak from malformed links: never into a page.
    html = html.replace("\x02", "").replace("\x03", "")
    if inline and html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return MarkdownResult(Markup(put_back(html, marker, pieces)), failed)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def line_finder(text: str) -> Callable[[int], int]:
    """`line_of` for many offsets in one text: a binary search over its newlines, not a count each time."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    return lambda offset: bisect_left(newlines, offset) + 1
