"""One truth across every output: for receipts drawn from the schema (tests/receipt_strategies.py),
the verdict counts (faster / level / slower per checkpoint and metric, and in total), the precision
counts (resolved, further, closer, not resolved) and the aggregate ratio range are the same on the
overview, the section pages, the dashboard row, `sitegen summary --format json`, the CSV files, the
meta description and the share card, and equal to what the test computes from the receipt itself.

Each output is parsed as a reader or a script would read it; the expected figures come from the
receipt by the guide's rules (docs/guide/reading.md) (|ratio - 1| <= band is level; a gap is resolved when its interval
excludes zero, further or closer by the measure's `further`), not from sitegen's code.
"""
from __future__ import annotations

import csv
import html
import io
import json
import os
import re
from collections import Counter

from hypothesis import HealthCheck, Phase, assume, given, settings

import pytest

import fuzzing
from receipt_strategies import receipts, shape
from site_gen.render import card
from site_gen.building import starter as new

EXAMPLES = int(os.environ.get("SITEGEN_TRUTH_EXAMPLES", "20"))
BAND = 0.08
TOP = {**fuzzing.TOP, "site_url": "https://example.org/benchmarks/"}  # a share card is drawn only with a site URL


# -- the figures, from the receipt ---------------------------------------------------------------
def expected(receipt: dict) -> dict:
    missing = {c["id"] for c in receipt["report"]["checkpoints"] if "baseline" in c.get("missing", {})}
    cells = [c for c in receipt.get("speed", {}).get("cells", []) if c["checkpoint"] not in missing]
    counts: Counter = Counter()
    aggregate = []
    for c in cells:
        ratio = c["candidate"]["rate"] / c["baseline"]["rate"]
        verdict = "level" if abs(ratio - 1) <= BAND + 1e-12 else "faster" if ratio > 1 else "slower"
        counts[c["checkpoint"], c["metric"], verdict] += 1
        counts["total", verdict] += 1
        if c["metric"] == "aggregate":
            aggregate.append(ratio)
    further = {m["id"]: m["further"] for m in receipt.get("precision", {}).get("measures", [])}
    directions: Counter = Counter()
    for r in receipt.get("precision", {}).get("results", []):
        if "interval" in r and r["checkpoint"] not in missing:
            low, high = r["interval"]
            away = r["difference"] > 0 if further[r["measure"]] == "higher" else r["difference"] < 0
            directions["not resolved" if low <= 0 <= high else "further" if away else "closer"] += 1
    return {"speed": counts, "cells": len(cells), "precision": directions,
            "range": (min(aggregate), max(aggregate)) if aggregate else None}


# -- the figures, from each output ---------------------------------------------------------------
def text_of(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


TOOLTIP = re.compile(r'data-computed="(\d+) (faster|level|slower): \d+ (aggregate|clean decode) cells of ([^,"]+),[^"]*"[^>]*>(\d+)<')


def page_counts(page: str) -> Counter:
    """(checkpoint, metric, verdict) -> count from the speed summary's figures, each shown number
    checked against the count its tooltip names."""
    out: Counter = Counter()
    for n, verdict, metric, checkpoint, shown in TOOLTIP.findall(page):
        assert n == shown, (n, shown)
        key = (html.unescape(checkpoint), "decode" if metric == "clean decode" else "aggregate", verdict)
        out[key] = max(out[key], int(n))  # the overview and the blocks show each figure once per table
    return out


def caption_counts(page: str) -> Counter:
    out: Counter = Counter()
    for checkpoint, body in re.findall(r"([A-Za-z0-9][A-Za-z0-9._-]*): ((?:\d+ of \d+ (?:aggregate|clean decode) cells[^;<]*;? ?)+)", text_of(page)):
        for n, _, metric, level, slower in re.findall(r"(\d+) of (\d+) (aggregate|clean decode) cells faster, (\d+) level, (\d+) slower", body):
            m = "decode" if metric == "clean decode" else "aggregate"
            out[checkpoint, m, "faster"], out[checkpoint, m, "level"], out[checkpoint, m, "slower"] = int(n), int(level), int(slower)
    return out


def totals_line(text: str, pattern: str) -> tuple[int, ...] | None:
    m = re.search(pattern, text)
    return tuple(int(x) for x in m.groups()) if m else None


def directions_in_table(page: str) -> Counter:
    rows = re.findall(r'<tr data-source="\$\.precision\.results\[\d+\]">(.*?)</tr>', page, re.S)
    return Counter(text_of(re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[-1]).strip() for row in rows)


def nonzero(c: Counter) -> Counter:
    return Counter({k: v for k, v in c.items() if v})


# -- the property ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_output_tells_the_same_figures(tmp_path, monkeypatch):
    drawn: list[str] = []
    monkeypatch.setattr(card.Canvas, "text", _recording(card.Canvas.text, drawn))

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))
    @given(receipts(sections=("speed", "precision")))
    def run(receipt):
        assume("speed" in receipt)
        drawn.clear()
        card.share_card.cache_clear()  # drawn again for each example, as the test reads what is drawn
        files = fuzzing.files_of(receipt, TOP, fuzzing.OPTIONS, "", {fuzzing.PAGES[0]: new.PAGE})
        build = fuzzer.run(fuzzing.Case(0, 0, fuzzing.RECEIPT, [], files, ["build", "-q", "-d", "{site}"]))
        assert build.code == 0, (build.output, shape(receipt))
        summary = fuzzer.run(fuzzing.Case(0, 0, fuzzing.RECEIPT, [], files, ["summary", "--format", "json"]))
        assert summary.code == 0, summary.output
        check_outputs(receipt, tmp_path / "site", json.loads(summary.output)["reports"][0], list(drawn))

    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        run()


def _recording(text, drawn):
    def recorded(self, x, y, s, size, colour):
        drawn.append(s)
        return text(self, x, y, s, size, colour)
    return recorded


def check_outputs(receipt: dict, site, summary: dict, card_texts: list[str]) -> None:
    want = expected(receipt)
    per_cell = nonzero(Counter({k: v for k, v in want["speed"].items() if k[0] != "total"}))
    total = tuple(want["speed"]["total", v] for v in ("faster", "level", "slower"))
    report = site / "reports" / fuzzing.REPORT
    overview, speed_page = (report / "index.html").read_text(), (report / "speed.html").read_text()

    # summary --format json
    js = Counter({(c, m, v): e["counts"][m][v] for c, e in summary["speed"]["checkpoints"].items()
                  for m in ("aggregate", "decode") if m in e["counts"] for v in ("faster", "level", "slower")})
    assert nonzero(js) == per_cell, "summary json"
    # the overview's and the speed page's figures, and the speed page's captions
    assert nonzero(page_counts(overview)) == per_cell, "overview"
    assert nonzero(page_counts(speed_page)) == per_cell, "speed page"
    assert nonzero(caption_counts(speed_page)) == per_cell, "speed captions"
    # the CSV of every cell
    rows = list(csv.DictReader(io.StringIO((report / "csv" / "speed-cells.csv").read_text())))
    assert Counter((r["checkpoint"], r["metric"], r["verdict"]) for r in rows) == per_cell, "speed-cells.csv"
    # the dashboard row, the meta description, the share card: totals
    dashboard = text_of((site / "index.html").read_text())
    assert totals_line(dashboard, r"(\d+) faster · (\d+) level · (\d+) slower") == total, "dashboard"
    description = html.unescape(re.search(r'<meta name="description" content="([^"]*)"', overview).group(1))
    speed_line = r"Speed: (\d+) of (\d+) cells faster, (\d+) level, (\d+) slower"
    assert totals_line(description, speed_line) == (total[0], want["cells"], *total[1:]), description
    card_line = re.sub(r"\s+", " ", " ".join(card_texts))
    if "…" not in card_line:
        assert totals_line(card_line, speed_line) == (total[0], want["cells"], *total[1:]), card_line
    # the aggregate range, printed to two digits (or more at a band edge)
    if want["range"]:
        m = re.search(r"aggregate ([\d.]+)–([\d.]+)x", dashboard) or re.search(r"aggregate ([\d.]+)x", dashboard)
        shown = [float(x) for x in m.groups()]
        assert abs(shown[0] - want["range"][0]) <= 0.0051 and abs(shown[-1] - want["range"][1]) <= 0.0051, (shown, want["range"])

    directions = nonzero(want["precision"])
    if not directions:
        return
    further, closer, unresolved = (directions[k] for k in ("further", "closer", "not resolved"))
    resolved, pairs = further + closer, further + closer + unresolved
    p = summary["precision"]
    assert (p["further"], p["closer"], p["unresolved"], p["resolved"], p["pairs"]) == (further, closer, unresolved, resolved, pairs)
    assert Counter(r["direction"] for r in p["rows"]) == directions, "summary json rows"
    assert directions_in_table(overview) == directions, "overview table"
    for page in (overview, (report / "precision.html").read_text()):
        headline = text_of(re.search(r'<p class="headline">(.*?)</p>', page, re.S).group(1))
        if resolved == 0:
            assert "No gap between" in headline and " in all " not in headline, headline
        elif pairs in (further, closer):
            assert f"in all {pairs} comparisons" in headline and "every gap is resolved" in headline, headline
        else:
            assert totals_line(headline, r"in (\d+) and closer in (\d+);") == (further, closer), headline
            assert f"Of the {pairs} comparisons, {resolved} " in headline, headline
    assert directions_in_table((report / "precision.html").read_text()) == directions, "precision table"
    rows = list(csv.DictReader(io.StringIO((report / "csv" / "precision.csv").read_text())))
    assert Counter(r["direction"] for r in rows if r["direction"]) == directions, "precision.csv"
    assert totals_line(dashboard, r"(\d+) of (\d+) resolved; (\d+) further, (\d+) closer") == (resolved, pairs, further, closer)
    precision_line = r"Precision: (\d+) further[^,]*, (\d+) closer \((\d+) of (\d+) resolved\)"
    assert totals_line(description, precision_line) == (further, closer, resolved, pairs), description
    if "…" not in card_line:
        assert totals_line(card_line, precision_line) == (further, closer, resolved, pairs), card_line
