"""Docs pages build in work linear in their size, or are refused past a documented bound (issue 50,
item 8). Work is counted, not timed: the characters python-markdown's inline pass reads (its
`__applyPattern` is handed the rest of a text at each try, and a text is rebuilt at each match), the
blocks it moves taking each from the front of its list, the footnote ids it tries."""
from __future__ import annotations

import pytest
from conftest import sitegen_here

from site_gen.receipts import markdown_bounds as mb
from site_gen.render import markdown as md

# The pages of the issue, each at the size it names: minutes of python-markdown each on main.
ISSUE_PAGES = {
    "one footnote referenced 10,000 times": "x[^1] " * 10_000 + "\n\n[^1]: the note\n",
    "160,000 links in one paragraph": "[a](b) " * 160_000,
    "80,000 code spans in one paragraph": "`a` " * 80_000,
    "a 2 MB page of links, one a line": "\n".join(f"[link {i}](https://example.com/{i})" for i in range(50_000)),
    "a 2 MB page of links, one a paragraph": "\n\n".join(f"[link {i}](https://example.com/{i})" for i in range(50_000)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", ISSUE_PAGES)
def test_the_issues_pages_are_refused_with_the_place_and_what_to_do(name):
    with pytest.raises(md.InlineError) as refused:
        md.check_docs_markdown(ISSUE_PAGES[name])
    message = str(refused.value)
    assert "a page is limited to" in message or "separate paragraphs with a blank line" in message, message
    assert 0 <= refused.value.offset < len(ISSUE_PAGES[name])


@pytest.mark.slow
def test_a_refused_page_is_one_error_naming_its_line(small_project, tmp_path):
    page = small_project / "docs" / "crowded.md"
    page.write_text("# Crowded\n\nA first paragraph.\n\n" + "[a](b) " * 160_000 + "\n")
    r = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), "--no-cache", cwd=small_project)
    assert r.returncode == 1, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "crowded.md: line 5:" in errors[0] and "blank line" in errors[0], r.stderr


# -- counted work ---------------------------------------------------------------------------------

@pytest.fixture
def inline_work(monkeypatch):
    """Characters python-markdown's inline pass is handed (each try of each pattern, from where it starts)."""
    import markdown.treeprocessors as tp

    counter = [0]
    apply = tp.InlineProcessor._InlineProcessor__applyPattern

    def counted(self, pattern, data, index, start=0):
        counter[0] += len(data) - start
        return apply(self, pattern, data, index, start)

    monkeypatch.setattr(tp.InlineProcessor, "_InlineProcessor__applyPattern", counted)
    return counter


def convert(text: str) -> str:
    return md.author_markdown(lambda name: None, lambda target: None).convert(text)


def estimate(text: str) -> int:
    blocks = list(mb._chunks(text))
    return mb._inline_reads(text, blocks, mb.CodeRanges([m.span() for m in mb._FENCE.finditer(text)]))[0]


SHAPES = {
    "links": lambda n: "[a](b) " * n, "code": lambda n: "`a` " * n, "emphasis": lambda n: "*a* " * n,
    "entities": lambda n: "&amp; " * n, "line breaks": lambda n: "a  \n" * n, "snake_case": lambda n: "a_b_c " * n,
    "list of links": lambda n: "".join(f"- [l{i}](x{i})\n" for i in range(n)),
    "table": lambda n: "| a | b |\n|---|---|\n" + "".join(f"| [l{i}](x) | `c` |\n" for i in range(n)),
    "prose": lambda n: "\n\n".join(f"Some *prose* with a [link](https://x.org/{i}) and `code` in it." for i in range(n)),
}
# Each pattern of the inline pass reads each text once (about 20 of them): the linear part.
PER_CHARACTER = 32


@pytest.mark.parametrize("shape", SHAPES)
def test_the_guard_bounds_the_inline_work_python_markdown_does(shape, inline_work):
    """Counted: the inline work is at most the guard's estimate plus a constant a character, so a page
    the guard accepts (estimate at most DOCS_MAX_INLINE_READ) costs work linear in its size."""
    for n in (400, 1600):
        text = SHAPES[shape](n)
        inline_work[0] = 0
        convert(text)
        assert inline_work[0] <= estimate(text) + PER_CHARACTER * len(text), (shape, n, inline_work[0], estimate(text))


@pytest.mark.slow
def test_an_accepted_page_of_the_worst_shape_does_bounded_work(inline_work):
    """Just inside the bound: one paragraph of links at the guard's limit is accepted, and the counted
    work is within the bound; a little more is refused."""
    n = int((mb.DOCS_MAX_INLINE_READ / 7) ** 0.5)  # `[a](b) ` is 7 characters and one mark
    while estimate("[a](b) " * n) > mb.DOCS_MAX_INLINE_READ:
        n -= 1
    md.check_docs_markdown("[a](b) " * n)
    with pytest.raises(md.InlineError):
        md.check_docs_markdown("[a](b) " * (n + 200))
    inline_work[0] = 0
    convert("[a](b) " * n)
    assert inline_work[0] <= mb.DOCS_MAX_INLINE_READ + PER_CHARACTER * 7 * n


def test_blocks_moved_grow_with_the_square_of_their_number_and_are_bounded(monkeypatch):
    """python-markdown takes each block from the front of a list of all of them: the pointers it moves,
    counted, are blocks^2 / 2; the guard refuses more than DOCS_MAX_BLOCKS blocks."""
    from markdown.blockparser import BlockParser

    moved = [0]

    class Counted(list):
        def pop(self, index=-1):
            if index == 0:
                moved[0] += len(self) - 1
            return super().pop(index)

    parse = BlockParser.parseBlocks
    monkeypatch.setattr(BlockParser, "parseBlocks", lambda self, parent, blocks: parse(self, parent, Counted(blocks)))
    for n in (1000, 2000):
        moved[0] = 0
        convert("a\n\n" * n)
        assert (n - 1) * (n - 2) / 2 <= moved[0] <= 2 * n * n
    md.check_docs_markdown("a\n\n" * (mb.DOCS_MAX_BLOCKS - 1))
    with pytest.raises(md.InlineError, match="limited to 20,000 blocks"):
        md.check_docs_markdown("a\n\n" * (mb.DOCS_MAX_BLOCKS + 5))


def test_footnote_ids_tried_grow_with_the_square_of_the_references_and_are_bounded(monkeypatch):
    """The footnote extension finds a repeated reference's id by trying every earlier one (counted:
    refs^2 / 2 tries); the guard allows at most DOCS_MAX_FOOTNOTE_REFS references a page."""
    from markdown.extensions.footnotes import FootnoteExtension

    tries = [0]
    separator = FootnoteExtension.get_separator

    def counted(self):
        tries[0] += 1
        return separator(self)

    monkeypatch.setattr(FootnoteExtension, "get_separator", counted)
    for n in (200, 400):
        tries[0] = 0
        convert("x[^1] " * n + "\n\n[^1]: the note\n")
        assert n * (n - 1) / 2 <= tries[0] <= n * n + 10 * n
    limit = mb.DOCS_MAX_FOOTNOTE_REFS
    md.check_docs_markdown("x[^1] " * limit + "\n\n[^1]: the note\n")
    with pytest.raises(md.InlineError, match="limited to 1,000 footnote references"):
        md.check_docs_markdown("x[^1] " * (limit + 1) + "\n\n[^1]: the note\n")
    # A reference written as code is no reference.
    md.check_docs_markdown("`x[^1]` " * (2 * limit) + "\n\n[^1]: the note\n")


def test_the_guard_itself_is_linear():
    """The guard's own work on the issue's largest page and on twice as much: regex passes over the
    text, counted as the matches they find (each a constant amount of work)."""
    one, two = "[a](b) " * 40_000, "[a](b) " * 80_000
    counts = [len(mb._INLINE_MARK.findall(t)) + len(list(mb._chunks(t))) for t in (one, two)]
    assert counts[1] == 2 * counts[0] - 1 or counts[1] == 2 * counts[0]


def test_the_example_docs_pages_are_far_inside_the_bounds():
    from conftest import ROOT

    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        md.check_docs_markdown(text)
        assert estimate(text) < mb.DOCS_MAX_INLINE_READ / 1000, page
