"""One truth for every section (issue 28), beside tests/test_one_truth.py (speed and precision): for
receipts drawn from the schema (versions 1 and 1.1, every section possible), what accuracy, quality
gates, measures, tool calling, long outputs, versions, memory and checkpoints say is the same on the
section's page, the overview, `sitegen summary` (JSON, text, markdown), the dashboard, the meta
description, the share card and the CSV files, and equal to what this test computes from the
receipt itself; and every figure of the report's pages has a hover source and a row on its Numbers
page (tests/sourced.py).

The expected figures come from the receipt by the guide's rules (resolved when an interval
excludes zero; a gate fails when its value is on the wrong side of its threshold; a measure has a
direction only where both sides have two samples or more and their ranges do not overlap; a scenario
fails everywhere when no run scored a point on it), not from sitegen's code.
"""
from __future__ import annotations

import csv
import html
import io
import json
import os
import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import pytest

import fuzzing
import sourced
from receipt_strategies import receipts, shape
from site_gen.building import starter as new
from site_gen.render import card

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

EXAMPLES = int(os.environ.get("SITEGEN_TRUTH_SECTION_EXAMPLES", "30"))
TOP = {**fuzzing.TOP, "site_url": "https://example.org/benchmarks/"}  # a share card is drawn only with a site URL
SECTIONS = ("accuracy", "gates", "measures", "tool_calling", "long_outputs", "versions", "memory")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def visible(path) -> str:
    text = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return flat(html.unescape(re.sub(r"<[^>]+>", " ", text)))


def rows_of(path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


class Outputs:
    """What one build and the three summaries of one report say."""

    def __init__(self, site, js: dict, text: str, markdown: str, drawn: str):
        self.site, self.report = site, site / "reports" / fuzzing.REPORT
        self.js, self.text, self.markdown, self.drawn = js, flat(text), flat(markdown), flat(drawn)
        overview = (self.report / "index.html").read_text(encoding="utf-8")
        self.description = flat(html.unescape(re.search(r'<meta name="description" content="([^"]*)"', overview).group(1)))
        self.dashboard = visible(site / "index.html")

    def page(self, name: str) -> str:
        return visible(self.report / name)

    def html(self, name: str) -> str:
        return (self.report / name).read_text(encoding="utf-8")

    def headline(self, line: str) -> None:
        """A section's line is in the meta description and on the dashboard whole, and on the card
        (cut there to its width, or counted among the lines that did not fit)."""
        assert line in self.description, (line, self.description)
        assert line in self.dashboard or line.split(":")[0] in ("Speed", "Precision", "KV pool"), (line, self.dashboard)
        label, text = line.split(": ", 1)
        assert f"{label}: {text}" in self.drawn or (f"{label}:" in self.drawn and "…" in self.drawn) \
            or "more verdicts on the report's overview" in self.drawn, (line, self.drawn)


# -- each section: its figures from the receipt, and where each output says them ----------------------
def accuracy(receipt: dict, out: Outputs) -> None:
    results = receipt["accuracy"]["results"]
    paired = [r for r in results if "difference" in r]
    resolved = [r for r in paired if r["interval"][0] > 0 or r["interval"][1] < 0]
    good = [r for r in resolved if (r["difference"] > 0) == (r["better"] == "higher")]
    level = receipt["accuracy"]["method"]["level"]
    js = out.js["accuracy"]
    assert (js["paired"], js["resolved"], js["level"]) == (len(paired), len(resolved), level)
    verdicts = ["no paired difference" if "difference" not in r else "not resolved" if r not in resolved
                else "better" if r in good else "worse" for r in results]
    assert [r["verdict"] for r in js["results"]] == verdicts
    assert f"{len(resolved)} of {len(paired)} paired difference" in out.page("accuracy.html")
    assert f"{level * 100:g}% interval" in out.page("accuracy.html")
    for summary in (out.text, out.markdown):
        assert f"Accuracy differences resolved {len(resolved)} of {len(paired)} paired" in re.sub(r"[\s|]+", " ", summary)
    if paired:
        out.headline(f"Accuracy: {len(good)} better, {len(resolved) - len(good)} worse of {len(paired)} paired "
                     f"({level * 100:g}% intervals)")
    table = rows_of(out.report / "csv" / "accuracy.csv")
    assert [r["resolved"] == "True" for r in table] == [r in resolved for r in results]
    assert [r["verdict"] for r in table] == verdicts


def gates(receipt: dict, out: Outputs) -> None:
    results = receipt["gates"]["results"]
    failed = [r for r in results if not (r["value"] <= r["threshold"] if r["passes_when"] == "at_most" else r["value"] >= r["threshold"])]
    assert [not r["passed"] for r in out.js["gates"]["results"]] == [r in failed for r in results]
    assert out.js["gates"]["failed"] == len(failed)
    page = out.page("gates.html")
    if failed:
        assert f"{len(failed)} of {len(results)} gates failed" in page or "The one gate failed" in page
        out.headline(f"Gates: {len(failed)} of {len(results)} failed")
    else:
        assert f"All {len(results)} gates passed" in page or "The one gate passed" in page
        out.headline(f"Gates: all {len(results)} passed")
    assert out.html("gates.html").count('class="gate-failed"') == len(failed)
    assert out.text.count("FAILED ") == out.markdown.count("FAILED ") == len(failed)
    assert [r["passed"] == "True" for r in rows_of(out.report / "csv" / "gates.csv")] == [r not in failed for r in results]


def _direction(r: dict) -> str:
    b, c = r["baseline"], r["candidate"]
    if min(len(b.get("samples", [])), len(c.get("samples", []))) < 2 or not all(k in s for s in (b, c) for k in ("low", "high")):
        return "none"
    if not (c["low"] > b["high"] or c["high"] < b["low"]):
        return "none"
    return "better" if (c["median"] > b["median"]) == (r["better"] == "higher") else "worse"


def measures(receipt: dict, out: Outputs) -> None:
    results = receipt["measures"]["results"]
    directions = [_direction(r) for r in results]
    assert [r["direction"] if r["direction"] in ("better", "worse") else "none" for r in out.js["measures"]["results"]] == directions
    good, bad = directions.count("better"), directions.count("worse")
    page = out.html("measures.html")
    assert page.count('<td class="tone-better">') == good and page.count('<td class="tone-worse">') == bad
    out.headline(f"Measures: {good} better, {bad} worse of {len(results)}")
    assert [r["direction"] if r["direction"] in ("better", "worse") else "none"
            for r in rows_of(out.report / "csv" / "measures.csv")] == directions
    for summary in (out.text, out.markdown):
        assert f"{good} better, {bad} worse, {len(results) - good - bad} without a direction (of {len(results)})" in summary


def tool_calling(receipt: dict, out: Outputs) -> None:
    t = receipt["tool_calling"]
    totals = {run["id"]: sum(s["points"] for s in run["scenarios"]) for run in t["runs"]}
    best: dict[str, int] = {}
    for run in t["runs"]:
        for s in run["scenarios"]:
            best[s["id"]] = max(best.get(s["id"], 0), s["points"])
    failed = sorted(s for s, p in best.items() if p == 0)
    js = out.js["tool_calling"]
    assert {r["id"]: r["points"] for r in js["runs"]} == totals and js["failed_everywhere"] == failed
    scenarios = len(best)
    assert js["max_total"] == scenarios * t["max_points"]
    runs_page = out.page("tool-calling.html")
    for run in t["runs"]:
        assert f"{totals[run['id']]} of {scenarios * t['max_points']}" in runs_page
    assert {r["run"]: int(r["points"]) for r in rows_of(out.report / "csv" / "tool-calling-runs.csv")} == totals
    by_side: dict[str, list[int]] = {}
    for run in t["runs"]:
        by_side.setdefault(run["engine"], []).append(totals[run["id"]])
    for _role, points in by_side.items():
        low, high = min(points), max(points)
        shown = str(low) if low == high else f"{low}–{high}"
        assert f" {shown}" in out.description, (shown, out.description)
    assert f"Tool calling: failed in every run {len(failed)} of {scenarios} scenarios" in out.text


def long_outputs(receipt: dict, out: Outputs) -> None:
    replies = receipt["long_outputs"]["replies"]
    looped = sum(1 for r in replies if r["looped"])
    js = out.js["long_outputs"]
    assert (js["looped"], js["replies"]) == (looped, len(replies))
    out.headline(f"Long outputs: {looped} of {len(replies)} replies looped")
    for summary in (out.text, out.markdown):
        assert f"Long outputs: replies that looped {looped} of {len(replies)}" in re.sub(r"[\s|]+", " ", summary)
    assert sum(int(r["looped"]) for r in rows_of(out.report / "csv" / "long-outputs.csv")) == looped


def versions(receipt: dict, out: Outputs) -> None:
    rows = receipt["versions"].get("precision", [])
    panels: dict[str, bool] = {}
    for r in rows:
        panels[r["panel"]] = panels.get(r["panel"], True) and r["max_abs_difference"] == 0
    assert {p["panel"]: p["identical"] for p in out.js["versions"]["precision"]} == panels
    page = out.page("versions.html")
    assert page.count("bit-identical") >= sum(panels.values())
    for summary in (out.text, out.markdown):
        assert summary.count("bit-identical") >= sum(panels.values())


def memory(receipt: dict, out: Outputs) -> None:
    kv: dict[str, dict[str, int]] = {}
    for r in receipt["memory"].get("kv_pool", []):
        kv.setdefault(r["checkpoint"], {})[r["engine"]] = r["tokens"]
    missing = {c["id"] for c in receipt["report"]["checkpoints"] if "baseline" in c.get("missing", {})}
    ratios = {c: v["candidate"] / v["baseline"] for c, v in kv.items() if {"baseline", "candidate"} <= set(v) and v["baseline"]
              and c not in missing}
    js = out.js["memory"]["kv_pool"]
    table = {r["checkpoint"]: r for r in rows_of(out.report / "csv" / "kv-pool.csv")}
    for c, ratio in ratios.items():
        assert abs(js[c]["ratio"] - ratio) <= 1e-9 * max(1, abs(ratio)), (c, js[c], ratio)
        if ratio == ratio and abs(ratio) < 1e15:
            # The CSV's ratio: rounded to its column's 4 decimals, then written with 12 significant
            # digits as every CSV number is (format.csv_number): half a unit of the 12th off at most.
            assert abs(float(table[c]["ratio (4 decimals)"]) - ratio) <= 0.00005 + 5e-12 * abs(ratio), (c, table[c], ratio)
    finite = [r for r in ratios.values() if r == r and abs(r) != float("inf")]
    if finite and out.js["memory"]["kv_ratio_range"]:
        low, high = out.js["memory"]["kv_ratio_range"]["low"], out.js["memory"]["kv_ratio_range"]["high"]
        assert abs(low - min(finite)) <= 1e-9 * max(1, abs(low)) and abs(high - max(finite)) <= 1e-9 * max(1, abs(high))
        line = re.search(r"KV pool: .* holds (\S+) the tokens of ", out.description)
        assert line, out.description
        ends = [float(x) for x in line.group(1).rstrip("x").replace("−", "-").split("–")]
        assert abs(ends[0] - min(finite)) <= 0.006 * max(1, abs(min(finite))) and abs(ends[-1] - max(finite)) <= 0.006 * max(1, abs(max(finite)))
    startup = {(s["checkpoint"], s["engine"]): s for s in receipt["memory"].get("startup", [])}
    for s in out.js["memory"]["startup"]:
        given = startup[s["checkpoint"], s["engine"]]
        assert all(s[k] == given.get(k) for k in ("cold_s", "warm_s", "ready_s")), (s, given)


CHECKS = {"accuracy": accuracy, "gates": gates, "measures": measures, "tool_calling": tool_calling,
          "long_outputs": long_outputs, "versions": versions, "memory": memory}


def checkpoints(receipt: dict, out: Outputs) -> None:
    """The report's checkpoints and what each declares missing: in the JSON, and on their page."""
    given = [(c["id"], c.get("missing", {})) for c in receipt["report"]["checkpoints"]]
    assert [(c["id"], c["missing"]) for c in out.js["checkpoints"]] == given
    page = out.html("checkpoints.html")
    for cid, missing in given:
        assert '<h2 id="checkpoint-' in page and html.escape(cid) in page
        assert page.count("Not run on") >= len(missing) if missing else True


# -- the property --------------------------------------------------------------------------------------
def test_every_section_tells_the_same_figures_in_every_output(tmp_path, monkeypatch):
    drawn: list[str] = []
    text = card.Canvas.text

    def recorded(self, x, y, s, size, colour):
        drawn.append(s)
        return text(self, x, y, s, size, colour)

    monkeypatch.setattr(card.Canvas, "text", recorded)
    seen: dict[str, int] = {}

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))
    @given(receipts(sections=SECTIONS, version=1.1) | st.sampled_from([1, 1.1]).flatmap(lambda v: receipts(version=v)))
    def run(receipt):
        drawn.clear()
        card.share_card.cache_clear()
        files = fuzzing.files_of(receipt, TOP, fuzzing.OPTIONS, "", {fuzzing.PAGES[0]: new.PAGE})
        build = fuzzer.run(fuzzing.Case(0, 0, fuzzing.RECEIPT, [], files, ["build", "-q", "-d", "{site}"]))
        assert not build.failure, (build.output, shape(receipt))
        if build.code != 0:
            return  # refused as bad input: tests/test_schema_receipts.py counts how few are
        said = {form: fuzzer.run(fuzzing.Case(0, 0, fuzzing.RECEIPT, [], files, ["summary", "--format", form]))
                for form in ("json", "text", "markdown")}
        assert all(s.code == 0 for s in said.values()), {f: s.output for f, s in said.items()}
        js = json.loads(said["json"].output)["reports"][0]
        out = Outputs(tmp_path / "site", js, said["text"].output, said["markdown"].output, " ".join(drawn))
        for name, check in CHECKS.items():
            if name in receipt:
                check(receipt, out)
                seen[name] = seen.get(name, 0) + 1
        checkpoints(receipt, out)
        assert sourced.problems(out.report) == [], shape(receipt)

    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        run()
    # The property was checked on every section, not vacuously.
    assert set(seen) == set(CHECKS), seen
