"""Reports shaped unlike the example (tests/fixtures/reports/), built once: each reads truly.

A candidate slower everywhere shows no gain and no positive colour; verdict counts agree between
the overview, the speed page, the dashboard and `sitegen summary`; every printed ratio has the
digits its verdict needs; off-scale values are marked at each end; wording follows the data.
"""
from __future__ import annotations

import csv
import json
import re
import shutil

import pytest

from conftest import ROOT, sitegen_here
from htmlutil import NS, find_id, parse, rows, tables, text
from site_gen.analysis.verdict import verdict_of
from site_gen.core.config import NOISE_BAND

FIXTURES = ROOT / "tests" / "fixtures" / "reports"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "SUMMARY.json").is_file())
WITH_SPEED = [n for n in NAMES if "speed" in json.loads((FIXTURES / n / "SUMMARY.json").read_text())]
COUNTS = re.compile(r"(\d+) faster\W+(\d+) level\W+(\d+) slower")  # glyphs may sit between


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """The fixture reports as one site (with a site_url, so each report has its share card)."""
    root = tmp_path_factory.mktemp("shapes")
    shutil.copytree(FIXTURES, root / "data", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (root / "mkdocs.yml").write_text("site_name: Shapes\nsite_url: https://example.org/shapes/\n"
                                     "plugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    built = sitegen_here("build", "-q", cwd=root)
    assert built.returncode == 0, built.stderr
    return root


def page(shapes, name: str, file: str = "index.html"):
    return parse(shapes / "site" / "reports" / name / file)


def summary(shapes, name: str) -> dict:
    result = sitegen_here("summary", name, "--format", "json", cwd=shapes)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def totals(cells: list[str]) -> tuple[int, int, int]:
    found = [tuple(map(int, COUNTS.search(c).groups())) for c in cells if COUNTS.search(c)]
    return tuple(sum(col) for col in zip(*found)) if found else (0, 0, 0)


def test_the_fixtures_are_at_least_six_shapes():
    assert len(NAMES) >= 6
    assert {"losing", "mixed", "precision-only", "no-baseline", "one-cap", "off-scale", "bare"} <= set(NAMES)


@pytest.mark.parametrize("name", WITH_SPEED)
def test_every_printed_ratio_has_its_verdicts_digits(shapes, name):
    doc = page(shapes, name, "speed.html")
    rows = [r for t_id, t in tables(doc).items() if t_id and t_id.startswith("cells-") for r in t[1:-1]]
    assert rows
    for r in rows:
        ratio, verdict = r[5], r[-1].split()[1]
        assert verdict_of(float(ratio.rstrip("x")), NOISE_BAND) == verdict, r
    # Each end of a printed range is on the side of the band its value is on.
    with open(shapes / "site" / "reports" / name / "csv" / "speed-ranges.csv", encoding="utf-8") as f:
        ranges = list(csv.DictReader(f))
    shown = [c for r in tables(doc)["speed-summary"] for c in r[1:] if c.endswith("x")]
    assert len(shown) == len(ranges)
    for printed, row in zip(shown, ranges):
        ends = printed.rstrip("x").split("\u2013")
        low, high = (ends * 2)[:2]
        assert verdict_of(float(low), NOISE_BAND) == verdict_of(float(row["low (4 decimals)"]), NOISE_BAND), (printed, row)
        assert verdict_of(float(high), NOISE_BAND) == verdict_of(float(row["high (4 decimals)"]), NOISE_BAND), (printed, row)


@pytest.mark.parametrize("name", WITH_SPEED)
def test_verdict_counts_agree_on_every_output(shapes, name):
    overview = totals([c for r in tables(page(shapes, name))["speed-summary"] for c in r])
    speed_page = totals([c for r in tables(page(shapes, name, "speed.html"))["speed-summary"] for c in r])
    dashboard = [r for r in tables(parse(shapes / "site" / "index.html"))["reports"] if r[0].startswith(
        json.loads((FIXTURES / name / "SUMMARY.json").read_text())["report"]["title"])]
    data = summary(shapes, name)["reports"][0]["speed"]["checkpoints"]
    in_json = tuple(sum(m[k] for c in data.values() for m in c["counts"].values()) for k in ("faster", "level", "slower"))
    assert overview == speed_page == totals([dashboard[0][3]]) == in_json
    assert sum(overview) > 0


def test_a_losing_report_reads_as_losing_everywhere(shapes):
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_reports
    from site_gen.render import publish

    folder = shapes / "site" / "reports" / "losing"
    for file in sorted(folder.glob("*.html")):
        html = file.read_text(encoding="utf-8")
        words = text(parse(file)).lower()
        assert not re.search(r"\bgains?\b|\bfaster in\b", words), file.name
        for positive in ("v-faster", "g-faster", "r-above"):
            assert positive not in html, (file.name, positive)
    assert "Largest losses" in text(page(shapes, "losing"))
    report = [r for r in load_reports(shapes / "data") if r.id == "losing"][0]
    # Slower in every cell, and a smaller KV pool on every checkpoint: both lines in the worse colour.
    assert [key for _, _, key in publish.headlines(analyse(report))] == ["worse", "worse"]


def test_headline_colours_are_verdicts_the_cells_share(shapes):
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_reports
    from site_gen.render import publish

    keys = {r.id: [k for label, _, k in publish.headlines(analyse(r)) if label == "Speed:"]
            for r in load_reports(shapes / "data")}
    # mixed and off-scale have faster and slower cells: neither wears a verdict's colour
    assert keys["mixed"] == keys["off-scale"] == ["neutral"] and keys["one-cap"] == ["better"]


def test_gains_are_named_only_for_faster_medians(shapes):
    assert "Largest gains: chat (1.19x median)." in text(page(shapes, "no-baseline", "speed.html"))
    for name in ("mixed", "off-scale"):  # medians within the band: neither a gain nor a loss
        words = text(page(shapes, name, "speed.html"))
        assert "Largest gains" not in words and "Largest losses" not in words, name


def test_values_off_the_scale_are_marked_at_each_end(shapes):
    doc = page(shapes, "off-scale", "speed.html")
    bars = [svg for svg in doc.iter("{http://www.w3.org/2000/svg}svg") if "range" in (svg.get("class") or "")]
    # decode at one stream: 2.2–2.5x (every cell faster, past the top); aggregate: 0.4–1.9x (past both ends)
    assert [b.get("class").split()[-1] for b in bars] == ["r-above", "r-straddles"]
    clips = [len([p for p in b.iter("{http://www.w3.org/2000/svg}path") if p.get("class") == "clip"]) for b in bars]
    assert clips == [1, 2]
    spec = json.loads(next(e for e in doc.iter() if e.get("data-figure") == "figure-m1").get("data-spec"))
    symbols = {s for t in spec["data"] for s in t["marker"]["symbol"]}
    assert {"triangle-left", "triangle-right"} <= symbols


def test_the_share_card_marks_cells_beyond_the_scale():
    from site_gen.render import card

    def drawn(ratio: float) -> bytes:
        return card.share_card("S", "T", "", (), ((ratio, "faster", 0),), "c", (0.8, 1.8), 0.08, "f")

    assert drawn(2.5) != drawn(1.8)  # at the edge, a cell beyond it is a triangle, not a dot
    assert drawn(0.5) != drawn(0.8)


def test_a_checkpoint_without_baseline_has_no_comparison(shapes):
    words = text(page(shapes, "no-baseline", "speed.html"))
    assert "solo: no speed comparison, Steady v2.1 did not run it (Steady cannot load it)" in words
    doc = page(shapes, "no-baseline", "checkpoints.html")
    solo = [r for t in doc.iter(f"{NS}table") for r in rows(t) if r and r[1] == "not run"]
    assert [r[0] for r in solo] == ["KL divergence", "Top-1 agreement"]


def test_one_cap_and_no_repeat_arm_are_described_as_they_are(shapes):
    doc = page(shapes, "one-cap", "long-outputs.html")
    words = text(doc)
    caption = tables(doc)["long-outputs-table"]
    assert "one run per arm" in words and "repeat" not in words
    assert not any(r[0].startswith(("Code", "JSON", "…of which")) for r in caption)
    assert tables(doc)["every-arm-table"][0] == ["Arm", "Cap", "Replies", "Finished", "Still thinking", "Looped"]
    assert "Small caps" not in words and "0.0K" not in words and "1 replies" not in words
    # No one-stream cell: the headline row stays and says why it has no range (issue 28: nothing dropped unexplained).
    summary_rows = {r[0]: r[1:] for r in tables(page(shapes, "one-cap", "speed.html"))["speed-summary"]}
    assert all(c == "no clean decode cell at one stream" for c in summary_rows["Decode, one stream"]), summary_rows


def test_a_report_without_optional_parts_says_nothing_of_them(shapes):
    doc = page(shapes, "bare")
    tested = {r[0]: r[1] for r in tables(doc)["tested-table"]}
    assert tested == {"Engine": "Swift v0.4", "Against": "Steady v2.1"}
    assert find_id(doc, "illustrative") is None
    words = text(page(shapes, "bare", "long-outputs.html"))
    assert "swift-1" not in words and "Swift and Swift again repeat one checkpoint on one engine" in words
    assert "thinking, median" in words


@pytest.mark.parametrize("name", NAMES)
def test_no_article_before_an_engine_name(shapes, name):
    for file in sorted((shapes / "site" / "reports" / name).glob("*.html")):
        words = text(parse(file))
        assert not re.search(r"\bthe (Steady|Swift)\b", words), file.name
        assert not re.search(r"\b(one|1) (checkpoints|panels|replies|arms|scenarios)\b", words), file.name
        assert "image ," not in words and not re.search(r"image\s*$", words)
