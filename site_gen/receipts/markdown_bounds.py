"""Bounds on markdown that sitegen reads, checked in linear time before python-markdown sees it:
receipt text (the lede, what was tested and not covered, notes) and docs pages. python-markdown
reads some shapes of text in quadratic time; within these bounds the slowest text takes about a
second, a real one milliseconds. Part of reading a receipt: the importers check what they write
with the same bounds as `sitegen check`."""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterator

from site_gen.core.errors import SitegenError
from site_gen.sections import all_sections

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


def code_ranges(text: str, more: list[tuple[int, int]] | None = None) -> CodeRanges:
    """Fenced code and code spans; with `more`, other code too (a docs page's indented code blocks:
    never where python-markdown's bounds are checked, which may read them as a list's paragraph)."""
    fences = [m.span() for m in _FENCE.finditer(text)] + (more or [])
    fenced = CodeRanges(fences)
    return CodeRanges(fences + [span for span in _code_spans(text) if span[0] not in fenced])



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
DOCS_MAX_PAGE_BYTES = 2 << 20       # a page's file: read whole, converted whole at each save of it in the preview
DOCS_MAX_DEPTH = 50                 # lists, quotes and indented blocks inside each other
DOCS_MAX_BRACKET_READ = 2_000_000   # characters its link patterns read to match each '[' with its ']'
DOCS_MAX_PAREN_READ = 4_000_000     # characters read to match each link's '(' with its ')'
DOCS_MAX_TAG_READ = 8_000_000       # characters read past each '<' + letter to the '>' that ends the tag
DOCS_MAX_SPLIT_READ = 8_000_000     # characters read again at each heading or rule line inside a paragraph
# python-markdown's inline pass rebuilds the rest of a paragraph's text at each link, code span,
# emphasis, entity or line break it finds there: (marks in a paragraph) x (its length), summed.
DOCS_MAX_INLINE_READ = 2_000_000_000
DOCS_MAX_BLOCKS = 20_000            # blocks between blank lines: each is taken from the front of a list of all of them
DOCS_MAX_FOOTNOTE_REFS = 1_000      # each repeat of a footnote reference counts the ones before it

# Where python-markdown's inline pass may start a match, and the lines that start a text of their own
# (a list item, a heading, a table row): the inline pass reads each such text on its own.
_INLINE_MARK = re.compile(r"[`\\\[<&*_]|  \n")
_OWN_TEXT = re.compile(r"^[ \t>]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#|\|)|^[^\n]*\|", re.M)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\](?!:)")

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
    blocks = list(_chunks(text))
    if len(blocks) > DOCS_MAX_BLOCKS:
        raise InlineError(f"a page is limited to {DOCS_MAX_BLOCKS:,} blocks (text between blank lines); this one has "
                          f"{len(blocks):,}: python-markdown's time grows with the square of their number; split the page",
                          blocks[DOCS_MAX_BLOCKS][0])
    inline, at = _inline_reads(text, blocks, fences)
    if inline > DOCS_MAX_INLINE_READ:
        raise InlineError(f"links, code spans, emphasis, entities or line breaks crowded into long paragraphs: python-markdown "
                          f"would read {inline:,} characters rebuilding this page's paragraphs at each of them (at most "
                          f"{DOCS_MAX_INLINE_READ:,}); separate paragraphs with a blank line", at)
    refs = [m.start() for m in _FOOTNOTE_REF.finditer(text) if m.start() not in skip]
    if len(refs) > DOCS_MAX_FOOTNOTE_REFS:
        raise InlineError(f"a page is limited to {DOCS_MAX_FOOTNOTE_REFS:,} footnote references; this one has {len(refs):,} "
                          "(python-markdown numbers each repeat of a reference by counting the ones before it)",
                          refs[DOCS_MAX_FOOTNOTE_REFS])
    tags, at = _tag_reads(text, fences)
    if tags > DOCS_MAX_TAG_READ:
        raise InlineError(f"'<' and a letter open an HTML tag that no '>' ends soon: python-markdown would read {tags:,} "
                          f"characters to find the ends of this page's tags (at most {DOCS_MAX_TAG_READ:,}); write a "
                          "literal '<' as '&lt;'", at)
    if splits > DOCS_MAX_SPLIT_READ:
        raise InlineError(f"heading and rule lines inside one paragraph: python-markdown would read {splits:,} characters "
                          f"splitting this page's paragraphs at them (at most {DOCS_MAX_SPLIT_READ:,}); put a blank line "
                          "before and after each heading", worst_split[1])


def _inline_reads(text: str, blocks: list[tuple[int, int]], fences: CodeRanges) -> tuple[int, int]:
    """(characters python-markdown's inline pass would read rebuilding texts, where the costliest text
    starts): for each text it reads on its own (a paragraph; a list item, heading or table row line),
    the marks where a match may start times the text's length. Fenced code is no text."""
    total, worst, at = 0, 0, 0
    for start, end in blocks:
        if start in fences:
            continue
        cuts = [m.start() for m in _OWN_TEXT.finditer(text, start, end) if m.start() > start]
        for a, b in zip([start, *cuts], [*cuts, end]):
            cost = len(_INLINE_MARK.findall(text, a, b)) * (b - a)
            total += cost
            if cost > worst:
                worst, at = cost, a
    return total, at


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


def receipt_texts(r) -> Iterator[tuple[str, str]]:
    """Every markdown text of a receipt with its JSON path: the lede, what was tested and not covered,
    the notes and explanations of each section that has them (`Section.texts`)."""
    yield "$.report.lede", r.lede or ""
    for i, t in enumerate(r.meta.get("tested", [])):
        yield f"$.report.tested[{i}].text", t["text"]
    for i, t in enumerate(r.meta.get("not_covered", [])):
        yield f"$.report.not_covered[{i}]", t
    for s in all_sections():
        section = r.data.get(s.name) if s.name else None
        if isinstance(section, dict):
            if "note" in s.texts:
                yield f"$.{s.name}.note", section.get("note") or ""
            if "explanations" in s.texts:
                for i, e in enumerate(section.get("explanations", [])):
                    yield f"$.{s.name}.explanations[{i}].text", e["text"]
