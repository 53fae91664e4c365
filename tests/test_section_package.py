"""A new report section is one folder plus one registry line, and nothing else is edited.

The test copies sitegen's source, puts the toy section (tests/toy_section/, written the way a
section package is) in `site_gen/sections/toy/`, adds its line to the registry, and builds a
project with the copy in a fresh interpreter. The section must then be everywhere a section is:
its own page, the overview, the Numbers page and its CSV, `sitegen summary` in all three formats,
the dashboard, the share card and an author block. Its figures are checked against the scores
the receipt was given, summed here.
"""
from __future__ import annotations

import difflib
import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from site_gen.building.builder import build_files
from site_gen.building.starter import receipt
from site_gen.core.config import load_config

ROOT = Path(__file__).resolve().parents[1]
TOY = Path(__file__).parent / "toy_section"
SCORES = [11, 35, 4]
CONFIG = "site_name: Toy\nsite_url: https://toy.example/\ndocs_dir: docs\nplugins:\n  - sitegen:\n      data_dir: data\n"
COPY = shutil.ignore_patterns("__pycache__", "*.pyc")

# Runs the copy's command line in one interpreter: a build, then the summary in each format.
RUN = """
import contextlib, io, json
from site_gen.cli import main
out = {}
for name, argv in [("build", ["build", "--strict", "--no-cache", "-q", "-d", "site"]),
                   ("text", ["summary", "--no-cache", "toy-report"]),
                   ("markdown", ["summary", "--no-cache", "--format", "markdown", "toy-report"]),
                   ("json", ["summary", "--no-cache", "--format", "json", "toy-report"])]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    out[name] = [code, stdout.getvalue(), stderr.getvalue()]
print(json.dumps(out))
"""


def add_registry_line(init: Path) -> None:
    lines = init.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.startswith('    "') and line.rstrip().endswith('",'))
    lines.insert(last + 1, '    "toy",\n')
    init.write_text("".join(lines), encoding="utf-8")


def changed_files(original: Path, copy: Path) -> list[str]:
    """Files of `copy` that differ from `original` or are new, as paths relative to the copy."""
    out = []

    def walk(cmp: filecmp.dircmp, at: str) -> None:
        out.extend(f"{at}{name}" for name in cmp.diff_files + cmp.right_only)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{at}{name}/")

    walk(filecmp.dircmp(original, copy, ignore=["__pycache__"]), "")
    return sorted(out)


@pytest.fixture(scope="module")
def toy_build(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy")
    src = tmp / "src"
    shutil.copytree(ROOT / "site_gen", src / "site_gen", ignore=COPY)  # its theme and sections inside it
    shutil.copytree(TOY, src / "site_gen" / "sections" / "toy", ignore=COPY)
    add_registry_line(src / "site_gen" / "sections" / "__init__.py")

    project = tmp / "project"
    doc = receipt()
    doc["report"]["lede"] = "A toy report."  # the starter's lede speaks of speed cells this receipt drops
    for name in ("precision", "speed", "memory"):
        del doc[name]
    doc["toy"] = {"scores": [{"checkpoint": "Q4", "score": s} for s in SCORES]}
    (project / "data" / "toy-report").mkdir(parents=True)
    (project / "data" / "toy-report" / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    (project / "docs").mkdir()
    (project / "docs" / "index.md").write_text("# Home\n\n```sitegen\nblock: toy-total\nreport: toy-report\n```\n",
                                               encoding="utf-8")
    (project / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")

    env = {**os.environ, "PYTHONPATH": str(src), "HOME": str(tmp)}
    run = subprocess.run([sys.executable, "-c", RUN], cwd=project, env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    site = project / "site"
    pages = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    return src, project, out, pages


def text(pages, name):
    return pages[name].decode("utf-8")


@pytest.mark.slow
def test_only_the_folder_and_the_registry_line_were_added(toy_build):
    src, *_ = toy_build
    assert changed_files(ROOT / "site_gen", src / "site_gen") == ["sections/__init__.py", "sections/toy"]
    before = (ROOT / "site_gen" / "sections" / "__init__.py").read_text(encoding="utf-8").splitlines()
    after = (src / "site_gen" / "sections" / "__init__.py").read_text(encoding="utf-8").splitlines()
    edits = [d for d in difflib.ndiff(before, after) if d[:1] in "+-"]
    assert edits == ['+     "toy",']


def test_the_build_and_every_summary_succeed_under_strict(toy_build):
    _, _, out, _ = toy_build
    assert {name: code for name, (code, _, _) in out.items()} == {"build": 0, "text": 0, "markdown": 0, "json": 0}, out
    assert [err for _, _, err in out.values()] == ["", "", "", ""]


def test_its_own_page_and_the_reports_navigation(toy_build):
    *_, pages = toy_build
    page = text(pages, "reports/toy-report/toy.html")
    for i, score in enumerate(SCORES):
        assert f'data-source="$.toy.scores[{i}].score" title="SUMMARY.json $.toy.scores[{i}].score">{score}</span>' in page
    assert f'Total: <span class="fig" tabindex="0" data-computed="sum of {len(SCORES)} scores"' in page
    assert f'title="computed: sum of {len(SCORES)} scores">{sum(SCORES)}</span>' in page
    assert 'href="toy.html">Toy scores</a>' in text(pages, "reports/toy-report/index.html")


def test_its_part_of_the_overview(toy_build):
    *_, pages = toy_build
    overview = text(pages, "reports/toy-report/index.html")
    assert '<p class="toy-overview">The toy scores add up to <span class="fig"' in overview
    assert f'title="computed: sum of {len(SCORES)} scores">{sum(SCORES)}</span>.</p>' in overview


def test_its_csv_and_its_figures_on_the_numbers_page(toy_build):
    *_, pages = toy_build
    rows = [f"Q4,{s},$.toy.scores[{i}].score" for i, s in enumerate(SCORES)]
    assert text(pages, "reports/toy-report/csv/toy-scores.csv") == "checkpoint,score,source\n" + "\n".join(rows) + "\n"
    numbers = text(pages, "reports/toy-report/numbers.html")
    assert f'toy-scores.csv</a></th><td class="num">{len(SCORES)}</td>' in numbers
    assert '<th scope="rowgroup" colspan="2">Toy scores</th>' in numbers
    assert f"<tr><td>{sum(SCORES)}</td><td>computed: sum of {len(SCORES)} scores</td></tr>" in numbers


def test_its_lines_in_the_summary_in_all_three_formats(toy_build):
    _, _, out, _ = toy_build
    line = f"{sum(SCORES)} over {len(SCORES)} scores"
    assert "Toy total" in out["text"][1] and line in out["text"][1]
    assert any("Toy total" in row and line in row for row in out["markdown"][1].splitlines() if row.startswith("|"))
    summary = json.loads(out["json"][1])["reports"][0]
    assert summary["toy"] == {"total": sum(SCORES), "scores": len(SCORES)}


def test_its_dashboard_column(toy_build):
    *_, pages = toy_build
    home = text(pages, "index.html")
    assert '<th scope="col"' in home and ">Toy total<" in home
    assert f"total {sum(SCORES)}" in home


def test_its_headline_on_the_share_card(toy_build, tmp_path):
    _, project, _, pages = toy_build
    overview = text(pages, "reports/toy-report/index.html")
    line = f"Toy: scores add up to {sum(SCORES)}"
    assert f'<meta property="og:description" content="{line}.">' in overview
    alt = overview.split('<meta property="og:image:alt" content="', 1)[1].split('"', 1)[0]
    assert alt == f"NewEngine v1.0 against OldEngine v2.3: {line}"
    cards = [name for name in pages if name.startswith("reports/toy-report/") and name.endswith(".png")]
    assert len(cards) == 1 and pages[cards[0]][:8] == b"\x89PNG\r\n\x1a\n"
    # The same project built by sitegen without the section (its part of the receipt ignored): the
    # card is drawn without the toy's line, so the two cards differ.
    shutil.copytree(project, tmp_path / "without", ignore=shutil.ignore_patterns("site"))
    (tmp_path / "without" / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")  # no toy block
    without = build_files(load_config(tmp_path / "without" / "mkdocs.yml"))
    assert cards[0] in without.files and without.files[cards[0]] != pages[cards[0]]
    assert line not in without.files["reports/toy-report/index.html"].decode("utf-8")


def test_its_author_block(toy_build):
    *_, pages = toy_build
    home = text(pages, "index.html")
    assert 'data-block="toy-total" data-report="toy-report">' in home
    assert (f'id="toy-total"><span class="fig" tabindex="0" data-computed="sum of {len(SCORES)} scores" '
            f'title="computed: sum of {len(SCORES)} scores">{sum(SCORES)}</span></p>') in home
