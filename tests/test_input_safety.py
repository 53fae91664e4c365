"""What the site's author gives sitegen besides receipts ends in a page or one `Error:` line, soon
(issue 26, findings 5 and 7):

- a binary file in custom_dir (an image beside the templates) is never read as a template; a
  template that includes one, or does not compile, is one error naming the file (and line);
- a docs page that python-markdown would read in quadratic time (runs of '[', links left open, tags
  no '>' ends, headings inside one paragraph) or recurse on (a list nested 300 deep) is refused with
  one error naming the page and line, found in linear time; real pages are far from the bounds.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import markdown

import pytest

import fuzzing
from conftest import one_error_line, sitegen_here
from site_gen.receipts import markdown_bounds as md

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00\x01" + bytes(range(256))


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    (root / "overrides").mkdir()
    return root


def check(root: Path, *args: str):
    return sitegen_here("check", "-q", *args, cwd=root)


def build(root: Path):
    return sitegen_here("build", "-q", "-d", str(root.parent / "out"), cwd=root)


# -- a binary file in custom_dir ----------------------------------------------------------------------

def test_a_binary_file_in_custom_dir_is_no_template(project):
    (project / "overrides" / "logo.png").write_bytes(PNG)
    (project / "overrides" / "img").mkdir()
    (project / "overrides" / "img" / "favicon.ico").write_bytes(PNG[::-1])
    for run in (check, build):
        r = run(project)
        assert r.returncode == 0, r.stderr
    assert (project.parent / "out" / "index.html").is_file()


def test_a_template_that_includes_a_binary_file_is_one_error(project):
    (project / "overrides" / "logo.png").write_bytes(PNG)
    (project / "overrides" / "page.html").write_text(
        '{% extends "base.html" %}{% block content %}{% include "logo.png" %}{% endblock %}')
    one_error_line(check(project).returncode, check(project).stderr, "overrides/logo.png: is not UTF-8 text")


def test_a_template_that_does_not_compile_is_one_error_at_its_line(project):
    (project / "overrides" / "page.html").write_text('{% extends "base.html" %}\n{% block content %\n')
    r = build(project)
    one_error_line(r.returncode, r.stderr, "overrides/page.html: line 2: template does not compile")
    assert not (project.parent / "out").exists()


# -- docs pages: bounded nesting and linear-time guards ---------------------------------------------

@contextmanager
def markdown_given() -> Iterator[list[str]]:
    """The texts python-markdown is given to convert meanwhile (in this process)."""
    given: list[str] = []
    convert = markdown.Markdown.convert

    def recording(self, source: str) -> str:
        given.append(source)
        return convert(self, source)

    with mock.patch.object(markdown.Markdown, "convert", recording):
        yield given


def page_error(project: Path, text: str, *needles: str) -> list[str]:
    """`sitegen check` of a page that is refused: the one error line; returns the texts python-markdown
    was given meanwhile."""
    (project / "docs" / "guide.md").write_text(text)
    with markdown_given() as given:
        r = check(project)
    one_error_line(r.returncode, r.stderr, "docs/guide.md: line ", *needles)
    return given


def test_a_list_nested_300_deep_is_one_error_at_its_line(project):
    text = "# Deep\n\nIntro.\n\n" + "\n".join("    " * i + "- item" for i in range(300)) + "\n"
    page_error(project, text, "nest at most 50 deep")
    line = one_error_line(*(lambda r: (r.returncode, r.stderr))(check(project)))
    # Line 5 + i holds item i, nested i + 1 deep: item 50 (line 55) is the first past the bound.
    assert "line 55:" in line, line


@pytest.mark.parametrize("shape, needle", [
    ("[" * 20000, "'[' left open or nested deep"),
    ("[" * 12000 + "{{ hardware }}" + "]" * 12000, "'[' left open or nested deep"),
    ("[a](" * 5000, "a link's '(' left open"),
    ("<a " * 7000, "an HTML tag that no '>' ends soon"),
    ("a\n# h\n" * 3000, "heading and rule lines inside one paragraph"),
    (">" * 20000 + " deep quote", "nest at most 50 deep"),
])
def test_quadratic_shapes_are_refused_at_once(project, shape, needle):
    """Refused by the linear guard before python-markdown reads the page (it took 27 s to 65 s on
    such pages): python-markdown is never given it."""
    given = page_error(project, "# Guide\n\nSome text.\n\n" + shape + "\n", needle)
    assert not [text for text in given if shape[:200] in text]


def test_an_accepted_page_is_what_python_markdown_is_given(project):
    """What the tests above watch: `check` hands a docs page to python-markdown's convert."""
    text = "# Guide\n\nSome [text](index.md) in a page of " + "[a] " * 300 + "\n"
    (project / "docs" / "guide.md").write_text(text)
    with markdown_given() as given:
        r = check(project)
    assert r.returncode == 0, r.stderr
    assert [g for g in given if "[a] " * 300 in g]


def test_the_error_names_the_line_of_the_first_bracket_left_open(project):
    text = "# Guide\n\n" + "A [link](x.md) and more.\n\n" * 3 + "Text with brackets: " + "[" * 5000 + "\n"
    page_error(project, text, "line 9:")


def test_fuzz_seed_12345_case_372_ends_within_its_bound(tmp_path):
    """The case that held `check` for 27 s: refused by the guard, python-markdown never given its page."""
    case = fuzzing.make_case(12345, 372)
    assert "[" * 1000 in case.files["docs/guide.md"].decode("utf-8", "replace")
    with fuzzing.Fuzzer(tmp_path) as fuzzer, markdown_given() as given:
        outcome = fuzzer.run(case)
    assert outcome.failure == "" and outcome.code == 1, (outcome.failure, outcome.output)
    assert "'[' left open or nested deep" in outcome.output
    assert not [text for text in given if "[" * 1000 in text]


def test_real_pages_are_far_below_every_bound():
    """The project's own markdown (README, architecture, the guide and the example's docs): not one refusal, and
    the estimate of each a small share of its bound."""
    root = Path(__file__).resolve().parent.parent
    for path in [root / "README.md", root / "ARCHITECTURE.md", *sorted((root / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        md.check_docs_markdown(text)
        skip = md._skipped(text)
        reads = [md._bracket_reads(text, a, b, skip) for a, b in md._chunks(text)]
        assert sum(r[0] for r in reads) < md.DOCS_MAX_BRACKET_READ / 100, path
        assert sum(r[2] for r in reads) < md.DOCS_MAX_PAREN_READ / 100, path


def test_many_links_and_nested_brackets_within_bounds_still_build(project):
    """A long page of ordinary links, images in links and lists nested ten deep is no quadratic shape."""
    links = " ".join(f"[link {i}](page{i}.md) [![img](x{i}.png)](y{i}.md) [ref {i}]" for i in range(2000))
    nested = "\n".join("    " * i + f"- level {i}" for i in range(10))
    code = "```\n" + "[" * 50000 + "\n```\n"  # code is not read as markup: no bound applies
    (project / "docs" / "guide.md").write_text(f"# Guide\n\n{links}\n\n{nested}\n\n{code}\n`{'<a ' * 20}`\n")
    r = check(project)
    assert r.returncode == 0, r.stderr


def test_the_guard_is_linear():
    """Ten times the text, about ten times the work (a quadratic guard would do a hundred times as
    much). Work is counted, not timed: every Python line the guard runs (its regular expressions
    scan the text once each), so the test holds on a loaded machine."""
    import sys

    def lines_run(n: int) -> int:
        text = ("[a](b) [c " + "<x " + "a\n# h\n" + "    - i\n") * n
        count = 0

        def tracer(frame, event, arg):
            nonlocal count
            if event == "line":
                count += 1
            return tracer

        sys.settrace(tracer)
        try:
            md.check_docs_markdown(text)
        except md.InlineError:
            pass
        finally:
            sys.settrace(None)
        return count

    small, large = lines_run(2000), lines_run(20000)
    assert small > 1000 and large < 15 * small, (small, large)
