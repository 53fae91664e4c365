"""Receipt strings stay text wherever they go: MkDocs themes' navigation and titles (in Chromium),
CSV cells a spreadsheet opens, and the markdown `sitegen summary` writes for a pull-request comment."""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
from pathlib import Path

import pytest

from conftest import ROOT

IMG = "<img src=x onerror=window.__xss=1>"
SCRIPT = "<script>window.__xss=1</script>"
SMALL = ROOT / "data" / "cuteafd-v3.0.1"


def hostile_receipt() -> dict:
    """The small example receipt with script in its title, engine names, notes and labels."""
    doc = json.loads((SMALL / "SUMMARY.json").read_text(encoding="utf-8"))
    r = doc["report"]
    r["title"] = f"Title {IMG} {SCRIPT}"
    r["engines"]["candidate"]["name"] = f"Cand {SCRIPT}"
    r["engines"]["baseline"]["name"] = f"Base {IMG}"
    r["engines"]["baseline"]["long_name"] = f"Long {SCRIPT}"
    r["engines"]["candidate"]["version"] = f"3 {IMG}"
    r["hardware"] = f"Hardware {IMG}"
    r["tested"][0]["label"] = f"Label {SCRIPT}"
    r["checkpoints"][0]["description"] = f"Checkpoint {IMG}"
    r["not_covered"] = [f"Not covered {SCRIPT}"]
    doc["precision"]["note"] = f"Note {IMG} {SCRIPT}"
    doc["precision"]["reference"] = f"Ref {IMG}"
    doc["precision"]["measures"][0]["label"] = f"Measure {SCRIPT}"
    # A versions page, whose title is made of the two versions.
    doc["versions"] = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text(encoding="utf-8"))["versions"]
    doc["versions"]["previous"]["version"] = f"2 {SCRIPT}"
    return doc


def hostile_project(root: Path, theme: str) -> Path:
    report = root / "data" / "hostile"
    report.mkdir(parents=True)
    (report / "SUMMARY.json").write_text(json.dumps(hostile_receipt(), ensure_ascii=False), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "about.md").write_text("# About\n\nA page of the author's.\n", encoding="utf-8")
    # No highlight.js or web fonts from a CDN: the test stays offline and fast.
    offline = "highlightjs: false" if theme == "mkdocs" else "font: false"
    (root / "mkdocs.yml").write_text(f"site_name: Hostile\ntheme:\n  name: {theme}\n  {offline}\n"
                                     "plugins:\n  - sitegen\n", encoding="utf-8")
    return root


def mkdocs_build(root: Path) -> Path:
    """`mkdocs build` in this process (a fresh process costs a second of imports)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site = root / "site"
    build(load_config(config_file=str(root / "mkdocs.yml"), site_dir=str(site)))
    return site


# What ran, and what a receipt created: judged in Python.
INSPECT = """() => ({
  xss: window.__xss,
  handlers: [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
      .filter(a => a.name.startsWith('on')).map(a => el.tagName + ' ' + a.name)),
  scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__xss')).length,
  text: document.documentElement.textContent,
  nav: [...document.querySelectorAll('.navbar a, .md-nav a, .md-nav label')].map(el => el.textContent.trim()),
})"""


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_plugin_site_runs_no_receipt_script_and_shows_it_as_text(tmp_path, page, theme):
    if theme == "material" and importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs-material is not installed; the test extras install it")
        pytest.skip("mkdocs-material not installed (pip install -e '.[test]')")
    site = mkdocs_build(hostile_project(tmp_path, theme))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 5
    page.route("http*://**", lambda route: route.abort())
    text = ""
    for path in pages:
        where = f"{theme}: {path.relative_to(site)}"
        page.goto(path.as_uri(), wait_until="load")  # an image's error event fires before load
        found = page.evaluate(INSPECT)
        assert found["xss"] is None, f"{where}: a receipt's script ran"
        assert found["handlers"] == [] and found["scripts"] == 0, f"{where}: {found['handlers']}"
        text += found["text"]
        if path.name != "404.html":
            # The report's title names its section of the navigation, literally, on every page.
            assert any(f"Title {IMG} {SCRIPT}" in t for t in found["nav"]), f"{where}: {found['nav']}"
    for shown in (f"Cand {SCRIPT}", f"Base {IMG}", f"Long {SCRIPT}", f"Hardware {IMG}", f"Label {SCRIPT}",
                  f"Checkpoint {IMG}", f"Not covered {SCRIPT}", f"Note {IMG} {SCRIPT}", f"Ref {IMG}", f"Measure {SCRIPT}"):
        assert shown in text, shown
    page.goto((site / "reports" / "hostile" / "versions.html").as_uri())
    # A version that is no version number ("3 <img…>") is written as given, without a v (core/names.py).
    assert page.title().startswith(f"3 {IMG} against 2 {SCRIPT}")


# -- CSV ------------------------------------------------------------------------------------------

CALC = "=cmd|' /C calc'!A0"
BREAKS = ["\r", "\n", "\r\n", "\u2028", "\u2029", "\v", "\f", "\x1c", "\x85"]
HOSTILE_CELLS = ([f"text{br}{CALC}" for br in BREAKS] + [f"text{br} \t{CALC}" for br in BREAKS] +
                 [CALC, " " + CALC, "\t" + CALC, "\tplain", "\rplain", "+1", "-2+3", "@SUM(A1:A2)", "a\r\rb"])


def formula_cells(cells) -> list[str]:
    """Cells (or lines of cells) a spreadsheet could take for a formula: = + - @ after spaces, or a
    tab or carriage return first; a number is not one."""
    out = []
    for cell in cells:
        for line in [cell, *cell.splitlines()[1:]]:
            if line.lstrip(" ")[:1] in ("=", "+", "-", "@", "\t", "\r"):
                try:
                    float(line)
                except ValueError:
                    out.append(line)
    return out


def naive_cells(text: str) -> list[str]:
    """How a reader that splits lines, then commas, sees a CSV file."""
    return [field.lstrip(' "') for line in text.splitlines() for field in line.split(",")]


def test_the_formula_judge_sees_formulas():
    assert formula_cells(["ok", "1.5", "-2"]) == []
    assert formula_cells(["x\r=1"]) == ["=1"] and formula_cells([" @A"]) == [" @A"]
    assert naive_cells('a,"x\r=1",2\n') == ["a", "x", '=1"', "2"]


def test_csv_cells_start_no_formula_after_any_line_break():
    import pandas as pd

    from site_gen.render.csv import csv_bytes

    frame = pd.DataFrame({"text": HOSTILE_CELLS, "number": [-1.5] * len(HOSTILE_CELLS)})
    text = csv_bytes(frame).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(HOSTILE_CELLS), "a line break inside a cell started a row"
    assert [r[1] for r in rows[1:]] == ["-1.5"] * len(HOSTILE_CELLS)
    assert formula_cells(c for r in rows for c in r) == []
    assert formula_cells(naive_cells(text)) == []
    # Defused, not dropped: the quote goes before each line that would start a formula.
    cells = [r[0] for r in rows[1:]]
    assert cells[0] == f"text\r'{CALC}" and cells[BREAKS.index("\u2028")] == f"text\u2028'{CALC}"
    assert cells[len(BREAKS)] == f"text\r' \t{CALC}"


def test_csv_of_a_receipt_with_line_breaks_in_its_text(tmp_path, monkeypatch):
    from site_gen.cli import main

    doc = json.loads((SMALL / "SUMMARY.json").read_text(encoding="utf-8"))
    labels = [f"KL\r{CALC}", f"KL\n+1+{CALC}", "KL\r\n @SUM(A1)", f"KL\u2028-{CALC}"]
    for measure, label in zip(doc["precision"]["measures"], labels):
        measure["label"] = label
    (tmp_path / "data" / "small").mkdir(parents=True)
    (tmp_path / "data" / "small" / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: CSV\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "-q"]) == 0
    text = (tmp_path / "site" / "reports" / "small" / "csv" / "precision.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(doc["precision"]["results"])
    # Every label is there, each of its lines that would start a formula behind a quote.
    shown = {r[2].replace("\n'", "\n").replace("\u2028'", "\u2028") for r in rows[1:]}
    assert shown == {label.replace("\r\n", "\n").replace("\r", "\n") for label in labels}
    assert formula_cells(c for r in rows for c in r) == []
    assert formula_cells(naive_cells(text)) == []


# -- sitegen summary --format markdown ------------------------------------------------------------

MARKUP = {  # what a receipt string could make of a pull-request comment, if passed through
    "fake verdict row": "KL | fake |\n| Precision gaps resolved | 8 of 8 |",
    "tracking image": "![](http://tracker.invalid/pixel.png)",
    "html comment": "<!-- the rest is hidden",
    "html": "<img src=http://tracker.invalid/i.png> <script>alert(1)</script> <div>block</div>",
    "links": "[click](http://x.invalid) <http://x.invalid> [ref]: http://x.invalid",
    "code and emphasis": "`code` *em* _em_ **strong** ~~struck~~ $math$",
    "heading": "# Heading ###",
    "lists and quotes": "- item\n1. item\n> quote",
    "indented code": "    code\n\n    more",
    "setext heading": "Title\n===",
    "entities and escapes": "&amp; &lt;b&gt; \\* \\[",
}


def summary_project(root: Path, text: str) -> None:
    """The small receipt with `text` in the report title, the candidate's name (which starts a
    line), the precision reference and a measure's label (table cells)."""
    doc = json.loads((SMALL / "SUMMARY.json").read_text(encoding="utf-8"))
    doc["report"]["title"] = text
    doc["report"]["engines"]["candidate"]["name"] = text
    doc["precision"]["reference"] = text
    doc["precision"]["measures"][0]["label"] = text
    (root / "data" / "hostile").mkdir(parents=True)
    (root / "data" / "hostile" / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: Summary\n", encoding="utf-8")


def summary_lines(data: dict) -> int:
    """The rows the small receipt's summary has: precision's headline and rows, a KV pool row per checkpoint."""
    return 1 + len(data["precision"]["rows"]) + len(data["memory"]["kv_pool"]) + len(data["memory"]["startup"])


def summary_output(capsys, fmt: str) -> str:
    from site_gen.cli import main

    assert main(["summary", "--format", fmt]) == 0
    return capsys.readouterr().out


def markdown_problems(out: str, text: str, rows: int) -> list[str]:
    """What is wrong with a summary in markdown whose receipt strings are all `text`, as a CommonMark
    renderer with GitHub's tables (a pull-request comment) shows it."""
    import html5lib
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(out)
    tree = html5lib.parseFragment(f"<div>{rendered}</div>", treebuilder="etree", namespaceHTMLElements=False)[0]
    problems = []
    # Only the heading, the engines' line and the table, and the table has only its own rows.
    if [el.tag for el in tree] != ["h3", "p", "table"]:
        return [f"blocks {[el.tag for el in tree]}"]
    body = tree.findall(".//tbody/tr")
    if len(body) != rows or any(len(tr.findall("td")) != 2 for tr in body):
        problems.append("table rows")
    # No markup made from a receipt: no image, link, code, emphasis, list or HTML (nor a comment).
    plain = ("div", "h3", "p", "table", "thead", "tbody", "tr", "th", "td")
    problems += [f"element {el.tag}" for el in tree.iter() if el.tag not in plain]
    # The reader sees the string as written (its line breaks as spaces), in each place.
    shown = " ".join(text.split())
    h3, p, _ = tree
    if not "".join(h3.itertext()).startswith(shown + " ("):
        problems.append("heading text")
    if not "".join(p.itertext()).startswith(shown + " v3.0.1 against "):
        problems.append("engines text")
    cells = ["".join(td.itertext()) for td in tree.iter("td")]
    if f"K3.25 {shown}" not in cells or not any(f"further from {shown}, " in c for c in cells):
        problems.append("table text")
    return problems


def test_the_markdown_judge_sees_each_payload_passed_through():
    for name, text in MARKUP.items():
        raw = (f"### {text} (2026-11-20)\n\n{text} v3.0.1 against B\n\n| | |\n|---|---|\n"
               f"| Precision gaps resolved | 1 of 1 (1 further from {text}, 0 closer) |\n| K3.25 {text} | +1 |\n")
        assert markdown_problems(raw, text, 2), name


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_summary_markdown_keeps_receipt_text_as_text(name, tmp_path, monkeypatch, capsys):
    text = MARKUP[name]
    summary_project(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    data = json.loads(summary_output(capsys, "json"))["reports"][0]
    out = summary_output(capsys, "markdown")
    assert markdown_problems(out, text, summary_lines(data)) == [], out
    assert "<!--" not in out and "<img" not in out and "<script" not in out


def test_summary_text_keeps_each_row_on_its_line(tmp_path, monkeypatch, capsys):
    """In a terminal, a receipt's line break would start a fake row, and a carriage return would
    write over the row it is in."""
    summary_project(tmp_path, "Title\n  Speed K4, aggregate  0 faster\rKL")
    monkeypatch.chdir(tmp_path)
    data = json.loads(summary_output(capsys, "json"))["reports"][0]
    out = summary_output(capsys, "text")
    lines = out.splitlines()
    assert "\r" not in out and len(lines) == 1 + 1 + summary_lines(data), out  # the title, the opening sentence, the rows
    assert lines[0] == "Title Speed K4, aggregate 0 faster KL (2026-11-20)"
    assert all(line.startswith("  ") for line in lines[1:]), out
