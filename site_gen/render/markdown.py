"""Markdown for receipts (raw HTML off, unsafe links dropped) and for author pages, with
inline figures `{{ name key=value }}` and checked statements `{{ check name < 100 : text }}`.
"""
from __future__ import annotations

import importlib
import re
import threading
import xml.etree.ElementTree as etree
from bisect import bisect_left
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator
from typing import Any

import markdown
from markupsafe import Markup

from site_gen.receipts.markdown_bounds import (DOCS_MAX_DEPTH, DOCS_MAX_PAGE_BYTES, RECEIPT_MAX_BRACKETS, RECEIPT_MAX_CHARS,  # noqa: F401
                                               RECEIPT_MAX_DEPTH, RECEIPT_MAX_PARAGRAPH, RECEIPT_MAX_TOTAL, CodeRanges,
                                               InlineError, check_docs_markdown, check_receipt_budget,
                                               check_receipt_markdown, code_ranges)
from site_gen.render import format as fmt
from site_gen.render.tokens import put_back

_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
SAFE_SCHEMES = ("http:", "https:", "mailto:")
FORMAT_ARGS = ("digits",)

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


class _TableCaptions(markdown.treeprocessors.Treeprocessor):
    """An author's table without a caption is named after the heading it sits under (a caption read
    aloud, not shown: the heading already says it on screen), numbered when one heading has more.
    Each table sits in a box of its own (`table-wrap`) that scrolls sideways on a narrow screen, not
    the page, and says so (static/page.js)."""

    def run(self, root: etree.Element) -> None:
        heading, count = "", dict[str, int]()
        for el in root.iter():
            if el.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                heading = " ".join("".join(el.itertext()).split())
            elif el.tag == "table" and el.find("caption") is None:
                name = heading or "Table"
                count[name] = count.get(name, 0) + 1
                caption = etree.Element("caption", {"class": "vh"})
                caption.text = name if count[name] == 1 else f"{name} ({count[name]})"
                el.insert(0, caption)
        for parent in list(root.iter()):
            if parent.get("class") == "table-wrap":
                continue
            for i, child in enumerate(list(parent)):
                if child.tag == "table":
                    wrap = etree.Element("div", {"class": "table-wrap"})
                    wrap.tail, child.tail = child.tail, None
                    parent.remove(child)
                    wrap.append(child)
                    parent.insert(i, wrap)


AUTHOR_EXTENSIONS = ["tables", "fenced_code", "footnotes", "attr_list", "admonition", "sane_lists", "toc"]
# Python-Markdown's own extensions, made here from their modules: named by a string, an extension is
# looked up first among every installed package's entry points, a scan of the environment's
# metadata that costs a cold build ~0.1 s (and the same extension in the end).
_BUILTIN_EXTENSIONS = frozenset({"abbr", "admonition", "attr_list", "codehilite", "def_list", "extra", "fenced_code",
                                 "footnotes", "legacy_attrs", "legacy_em", "md_in_html", "meta", "nl2br", "sane_lists",
                                 "smarty", "tables", "toc", "wikilinks"})


def _extension(name):
    if isinstance(name, str) and name in _BUILTIN_EXTENSIONS:
        return importlib.import_module(f"markdown.extensions.{name}").makeExtension()
    return name


def _markdown(resolve_page, trusted: bool, extensions: list | None = None,
              resolve_link: Callable[[str], str | None] | None = None) -> markdown.Markdown:
    exts = (extensions or AUTHOR_EXTENSIONS) if trusted else ["sane_lists"]
    md = markdown.Markdown(extensions=[_extension(e) for e in exts], output_format="html")
    if not trusted:
        # Receipts are data: their HTML is shown as text, never passed through.
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_link_fixer(resolve_page, trusted, resolve_link if trusted else None)(md), "sitegen_links", 0)
    if trusted:
        md.treeprocessors.register(_TableCaptions(md), "sitegen_table_captions", 1)
    return md


_RECEIPT = threading.local()


def _receipt_markdown(resolve_page: Callable[[str], str | None]) -> markdown.Markdown:
    """The receipt converter, reused: making one costs more than converting a note with it, and a
    report has a dozen notes. Receipt converters differ only in the page resolver, which is swapped."""
    md: markdown.Markdown | None = getattr(_RECEIPT, "md", None)
    if md is not None and _RECEIPT.holder.get("busy"):
        return _markdown(resolve_page, False)  # re-entered (a resolver that renders markdown): one of its own
    if md is None:
        holder: dict[str, Any] = {}  # its page resolver, and whether it is converting ("busy")
        md = _markdown(lambda name: holder["resolve"](name), False)
        _RECEIPT.md, _RECEIPT.holder = md, holder
    _RECEIPT.holder["resolve"] = resolve_page
    md.reset()
    return md


def author_markdown(resolve_page, resolve_link=None, extensions: list | None = None) -> markdown.Markdown:
    """Markdown for pages the site's author writes: trusted, raw HTML allowed, relative links kept."""
    return _markdown(resolve_page, True, extensions, resolve_link)


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
    name, args = tokens[0], block_args(tokens[1:], offset)
    return name, args, op, number, negate, text.strip()


def block_args(tokens: list[str], offset: int) -> dict[str, str]:
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
        assert band is not None  # a speed ratio's figure carries the band its verdict is read against
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
    args = block_args(tokens[1:], offset)
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
    html = _converted(source, resolve_page, trusted)
    if inline and html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return MarkdownResult(Markup(put_back(html, marker, pieces)), failed)


# Markdown already converted, by (text with its figures taken out, trusted): the same text converts
# to the same HTML unless a link in it named a page (`page:`), whose address depends on the page it
# is on: such a text is converted each time. A page drawn again with its texts unchanged (a preview
# edit elsewhere on it, a receipt edit that leaves the notes alone) converts none of them again.
_CONVERTED: dict[tuple[str, bool], str] = {}
_CONVERTED_MAX = 4096


def _converted(source: str, resolve_page: Callable[[str], str | None], trusted: bool) -> str:
    key = (source, trusted)
    html = _CONVERTED.get(key)
    if html is not None:
        return html
    named = []

    def resolving(name: str) -> str | None:
        named.append(name)
        return resolve_page(name)

    converter = _markdown(resolving, trusted) if trusted else _receipt_markdown(resolving)
    holder = _RECEIPT.holder if converter is getattr(_RECEIPT, "md", None) else None
    if holder is not None:
        holder["busy"] = True
    try:
        html = converter.convert(source)
    finally:
        if holder is not None:
            holder["busy"] = False
    # Python-Markdown's placeholder marks (STX, ETX) can leak from malformed links: never into a page.
    html = html.replace("\x02", "").replace("\x03", "")
    if not named:
        if len(_CONVERTED) >= _CONVERTED_MAX:
            _CONVERTED.clear()
        _CONVERTED[key] = html
    return html


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def line_finder(text: str) -> Callable[[int], int]:
    """`line_of` for many offsets in one text: a binary search over its newlines, not a count each time."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    return lambda offset: bisect_left(newlines, offset) + 1

