"""Indented code in a docs page is code (issue 55): a page that shows how a block is written as an
indented code block (4 spaces) gets the text it shows, not a drawn block, in `sitegen build` and in
`mkdocs build`. What is code is decided by a real CommonMark renderer (cmark-gfm, through cmarkgfm):
the block scanner (render/codeblocks.py) reads every page here as cmark does."""
from __future__ import annotations

import html
import itertools
import random
import re
import shutil

import cmarkgfm
import pytest

from conftest import ROOT, mkdocs_here, sitegen_here
from site_gen.render.codeblocks import code_blocks

FENCE = "```sitegen\n{i}block: dashboard\n{i}```\n"
BEFORE = ["", "Text.\n\n", "Text.\n", "# Head\n", "Title\n===\n", "Title\n-\n", "***\n", "```\nx\n```\n",
          "    code\n\n", "- item\n\n", "- item\n", "1. item\n\n", "10. item\n\n", "1) a\n\n", "2. a\n", "Text\n2. a\n\n",
          "- a\n    - b\n\n", "+ a\n  + b\n\n", "- a\n\n  para\n\n", "- a\n\n      code\n\n", "- a\n  b\n", "-\n\n",
          "-\n  x\n\n", "- item\n\nText.\n\n", "* a\n*   b\n\n", "-   a\n\n", "-      a\n\n", "- \ta\n\n", "  - a\n\n"]
INDENT = ["", "  ", "   ", "    ", "     ", "      ", "        ", "\t", " \t", "\t\t"]
LINES = ["", "", "", "Text.", "# Head", "- item", "1. item", "10) item", "* a", "-", "***", "---", "===", "    code",
         "\tcode", "  more", "     deeper", "```", "~~~", "````", "| a | b |", "2. two"]


def cmark(page: str) -> str:
    """What cmark-gfm makes of the page's ```sitegen line: a fence, code, or text."""
    out = cmarkgfm.github_flavored_markdown_to_html(page)
    if '<pre lang="sitegen">' in out:
        return "fence"
    return "code" if re.search(r"<pre><code>(?:(?!</code>).)*```sitegen", out, re.S) else "text"


def scanner(page: str) -> str:
    fences, indented = code_blocks(page)
    at = page.index("```sitegen")
    if any(f.info == "sitegen" and f.start <= at < f.body for f in fences):
        return "fence"
    inside = any(a <= at < b for a, b in indented) or any(f.body <= at < f.body_end for f in fences)
    return "code" if inside else "text"


def _page(before: str, indent: str) -> str:
    return before + indent + FENCE.format(i=indent) + "\nAfter.\n"


def test_the_scanner_finds_fences_and_indented_code_where_cmark_does():
    pages = [_page(b, i) for b, i in itertools.product(BEFORE, INDENT)]
    rnd = random.Random(55)
    for _ in range(1500):  # pages of random lines (lists, code, fences, headings, tabs), then the fence
        lines = [rnd.choice(INDENT[:5]) + rnd.choice(LINES) for _ in range(rnd.randint(0, 6))]
        pages.append(_page("\n".join(lines) + "\n", rnd.choice(INDENT)))
    got = [(scanner(p), cmark(p)) for p in pages]
    assert [(p, ours) for p, (ours, theirs) in zip(pages, got) if ours != theirs] == []
    # Every kind occurs: the check compares something.
    assert {theirs for _, theirs in got} == {"fence", "code", "text"}


@pytest.mark.parametrize("opener", ['!!! note "How"', '??? note "How"', '???+ note', '=== "Chart"', "[^1]: A note."])
def test_a_fence_in_an_admonition_tab_or_footnote_is_a_block(opener):
    """python-markdown's extensions indent their bodies by 4 (cmark knows none of them): a block there
    is drawn, as before."""
    (fence,), indented = code_blocks(f"{opener}\n\n    " + FENCE.format(i="    "))
    assert fence.info == "sitegen" and fence.closed and indented == []


SHOWN = """# Writing a block

A block is written as a fenced code block:

    ```sitegen
    block: dashboard
    ```

and a figure as {{ engine report=cuteafd-v4.0.0 }} inline, shown as code when indented:

    {{ engine report=cuteafd-v4.0.0 }}

- In a list item, four spaces are the item's own paragraph, and the block is drawn:

    ```sitegen
    block: dashboard
    ```
"""


def _code_texts(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", page, re.S)]


def _check(page: str) -> None:
    # cmark's reading of the same markdown: the first example and the figure are code, the list's block is not.
    # (cmark draws the list item's fence as <pre lang="sitegen">: a fence, which sitegen draws as a block.)
    assert [c for c in _code_texts(cmarkgfm.github_flavored_markdown_to_html(SHOWN)) if not c.startswith("block")] == [
        "```sitegen\nblock: dashboard\n```\n", "{{ engine report=cuteafd-v4.0.0 }}\n"]
    codes = _code_texts(page)
    assert codes == ["```sitegen\nblock: dashboard\n```\n", "{{ engine report=cuteafd-v4.0.0 }}\n"]
    assert page.count('data-block="dashboard"') == 1   # the list item's
    assert "CuteAFD v4.0.0</span></span> inline, shown" in page  # the figure outside code is drawn


@pytest.mark.slow
def test_sitegen_build_and_mkdocs_build_show_indented_code_as_typed(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(ROOT / "data" / "cuteafd-v4.0.0", project / "data" / "cuteafd-v4.0.0")
    (project / "docs").mkdir()
    (project / "docs" / "index.md").write_text("# Home\n")
    (project / "docs" / "writing.md").write_text(SHOWN)
    (project / "mkdocs.yml").write_text("site_name: Shown\nplugins:\n  - sitegen:\n      data_dir: data\n")
    done = sitegen_here("build", "-q", "-f", "mkdocs.yml", "-d", str(tmp_path / "site"), "--no-cache", cwd=project)
    assert done.returncode == 0, done.stderr
    _check((tmp_path / "site" / "writing.html").read_text())
    done = mkdocs_here("build", "--strict", "-q", "-f", "mkdocs.yml", "-d", str(tmp_path / "mk"), cwd=project)
    assert done.returncode == 0, done.stderr
    _check((tmp_path / "mk" / "writing" / "index.html").read_text())
