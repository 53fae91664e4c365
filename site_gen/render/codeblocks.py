"""Where a markdown page's code blocks are, as CommonMark reads its block structure: fenced code
(```` ``` ```` or `~~~`, at any indent inside a container) and indented code (a line 4 columns or
more past its container's content, after a blank line, a heading or a rule, never continuing a
paragraph). A ```` ```sitegen ```` fence or a `{{ … }}` inside either is code, shown as typed.

Containers are list items (their content column as CommonMark counts it), and the blocks
python-markdown's extensions indent by 4 (admonitions `!!! note`, details `??? note`, content tabs
`=== "Tab"`, footnotes `[^1]:`, definitions `:   …`): their body is content, not indented code.
One pass over the lines, each fence's closing line found by one search: linear time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_LEAD = re.compile(r"[ \t]*")
# A fence's opening line after its indent: a backtick fence's info string holds no backtick.
_OPEN = re.compile(r"(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\Z")
_RULE = re.compile(r"(?:[-*_][ \t]*){3,}\Z")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|\Z)")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*\Z")   # a setext heading's, under a paragraph
_ITEM = re.compile(r"(?:[-*+]|(?P<num>\d{1,9})[.)])(?:(?P<gap>[ \t]+)(?P<text>\S?)|\Z)")
_BOX = re.compile(r"(?:!!!|\?\?\?\+?|===\+?)[ \t]+\S|\[\^[^\]\n]+\]:|:[ \t]")
_BOX_TEXT = re.compile(r"\[\^|:")   # a footnote's or definition's first line holds its text


@dataclass(frozen=True)
class Fence:
    start: int        # its opening line's first character
    end: int          # the end of its closing line (the text's end when it is not closed)
    indent: str       # its opening line's indent, as written
    info: str         # its info string ("sitegen")
    body: int         # where its body starts
    body_end: int     # where its body ends
    closed: bool


def _columns(lead: str) -> int:
    col = 0
    for ch in lead:
        col = col + 4 - col % 4 if ch == "\t" else col + 1
    return col


def code_blocks(text: str) -> tuple[list[Fence], list[tuple[int, int]]]:
    """The page's fences (each with where it is), and its indented code blocks as (start, end)."""
    scan = _Scan(text)
    pos, n = 0, len(text)
    while pos < n:
        eol = text.find("\n", pos)
        eol = n if eol < 0 else eol
        pos = scan.line(pos, eol)
    return scan.finish()


class _Scan:
    """The state between lines: the containers the last line is in, and what block it continues."""

    def __init__(self, text: str):
        self.text = text
        self.fences: list[Fence] = []
        self.indented: list[tuple[int, int]] = []
        self.boxes: list[int] = []          # the content column of each container the line is in
        self.paragraph = False              # the line before continues a paragraph
        self.empty = False                  # the line before began a list item with no text
        self.code: list[int] | None = None  # [start, end] of the indented code block being read
        # The open fence: its mark, info string, start, depth (containers it is in), indent, body's start.
        self.fence: tuple[str, str, int, int, str, int] | None = None

    def line(self, pos: int, eol: int) -> int:
        """Reads the line from `pos` to `eol`; where the next line starts."""
        line = self.text[pos:eol].rstrip("\r")
        lead = _LEAD.match(line).end()  # type: ignore[union-attr]
        rest, col, boxes = line[lead:], _columns(line[:lead]), self.boxes
        if self.fence is not None and self._fenced(pos, eol, rest, col):
            return eol + 1
        if not rest:
            if self.empty and col < boxes[-1]:
                boxes.pop()  # a list item that begins with a blank line is empty, and over (as cmark reads it)
                self.empty = False
            self.paragraph = False
            return eol + 1
        depth = len(boxes)
        while depth and col < boxes[depth - 1]:
            depth -= 1
        rel = col - (boxes[depth - 1] if depth else 0)
        if self.code is not None:
            if rel >= 4:
                self.code[1] = eol
                return eol + 1
            self.indented.append((self.code[0], self.code[1]))
            self.code = None
        # A paragraph the line reaches (inside each of its containers) is interrupted by a list item
        # only with text and counted from 1, and underlined into a heading; one it does not reach, by
        # any item, never underlined.
        reach = self.paragraph and depth == len(boxes)
        item = _ITEM.match(rest) if rel < 4 else None
        if item and reach and (not item.group("text") or item.group("num") not in (None, "1")):
            item = None
        opening = _OPEN.match(rest) if rel < 4 else None
        heading = rel < 4 and bool(_HEADING.match(rest) or reach and _UNDERLINE.match(rest))
        rule = rel < 4 and bool(_RULE.match(rest))
        box = _BOX.match(rest) if rel < 4 else None
        if self.paragraph and not (opening or item or heading or rule or box):
            return eol + 1  # a paragraph's continuation, however indented
        del boxes[depth:]
        self.paragraph = self.empty = False
        if rel >= 4:
            self.code = [pos, eol]
        elif opening:
            self.fence = (opening.group("fence"), opening.group("info").strip(), pos, depth, line[:lead],
                          min(eol + 1, len(self.text)))
        elif item and not rule:
            start = col + (item.start("gap") if item.group("gap") else len(item.group(0)))
            gap = _columns(" " * start + (item.group("gap") or "")) - start
            boxes.append(start + (gap if item.group("text") and gap <= 4 else 1))
            self.paragraph = bool(item.group("text"))
            self.empty = not self.paragraph
        elif box:
            boxes.append(col + 4)
            self.paragraph = bool(_BOX_TEXT.match(box.group(0)))
        elif not (rule or heading):
            self.paragraph = True
        return eol + 1

    def _fenced(self, pos: int, eol: int, rest: str, col: int) -> bool:
        """Whether the line is the open fence's (its code or its closing line): not when it ends the
        fence's container, which ends the fence."""
        assert self.fence is not None
        mark, info, start, at, indent, body = self.fence
        if rest and at and col < self.boxes[at - 1]:
            self.fences.append(Fence(start, pos, indent, info, body, pos, False))
            self.fence = None
            return False
        if col - (self.boxes[at - 1] if at else 0) < 4 and re.fullmatch(rf"{mark[0]}{{{len(mark)},}}[ \t]*", rest):
            self.fences.append(Fence(start, eol, indent, info, body, pos, True))
            self.fence = None
        return True

    def finish(self) -> tuple[list[Fence], list[tuple[int, int]]]:
        if self.fence is not None:  # an unclosed fence runs to the end of the page
            _, info, start, _, indent, body = self.fence
            self.fences.append(Fence(start, len(self.text), indent, info, body, len(self.text), False))
        if self.code is not None:
            self.indented.append((self.code[0], self.code[1]))
        return self.fences, self.indented
