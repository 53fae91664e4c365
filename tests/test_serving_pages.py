"""The Latency and Load pages against an independent computation: every percentile, interval, ratio
and verdict the pages print is recomputed here from the receipt's rows with numpy alone (the
the guide's recipe (docs/guide/reading.md): `default_rng(0).integers(0, n, (2000, n))`, `np.nanpercentile`, the 2.5th and
97.5th percentiles of the resampled figures), for paired, unpaired and repeated load points; the
objectives' headline and goodput are counted by hand; and the A/A report says no cell is faster or
slower in any output."""
from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings

import numpy as np
import pytest

import htmlutil
import serving_receipts as sr
from conftest import ROOT, sitegen_here

B, SEED, BAND = 2000, 0, 0.08
QS = (50, 90, 95, 99)
TWO_SIDED = ("vllm-tp4pp2-ib-aa", "vllm-tp8-against-tp4pp2-ib", "vllm-tp4pp2-ib-against-no-ib")
SHORT = {"TTFT": "ttft", "TPOT": "tpot", "ITL": "itl", "E2E": "e2e"}


# -- the figures, from the receipt -----------------------------------------------------------------

def column(rep: dict, metric: str) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in rep["requests"][f"{metric}_ms"]], dtype=float)


def enough(x: np.ndarray, q: int) -> bool:
    """The guide: an interval needs 20 measured values a side and 2 at or above the percentile."""
    n = np.count_nonzero(~np.isnan(x))
    return n >= 20 and n * (1 - q / 100) >= 2


def shown_metrics(receipt: dict) -> list[str]:
    """The guide: ITL is its own metric unless every request's ITL is its TPOT to within the noise band
    (its mean gap differs from its TPOT only where a streamed chunk carried several tokens)."""
    same = True
    for side in receipt["serving"]["sides"].values():
        for lp in side["load_points"]:
            for r in lp["repeats"]:
                itl, tpot = column(r, "itl"), column(r, "tpot")
                both = ~np.isnan(itl) & ~np.isnan(tpot)
                same &= bool(np.array_equal(np.isnan(itl), np.isnan(tpot))
                             and np.all(np.abs(itl[both] - tpot[both]) <= np.maximum(1e-3, BAND * tpot[both])))
    return ["ttft", "tpot"] + ([] if same else ["itl"]) + ["e2e"]


def rule(low: float, high: float) -> str:
    """The guide's rule for a latency ratio (candidate / baseline, below 1 faster)."""
    if math.isnan(low):
        return "not resolved"
    if 1 - BAND <= low + 1e-12 and high - 1e-12 <= 1 + BAND:
        return "level"
    if high < 1 - BAND - 1e-12:
        return "faster"
    if low > 1 + BAND + 1e-12:
        return "slower"
    return "not resolved"


def rows_percentile(m: np.ndarray, q: float) -> np.ndarray:
    """`np.nanpercentile(m, q, axis=1)`, every row at once: numpy takes a matrix with NaN in it one
    row at a time (~280 ms for 2,000 rows of 200, against ~17 ms for `np.percentile`), and these
    tests ask for hundreds. Each row by numpy's definition of its default method (`linear`): the
    row's measured values sorted, the virtual index (count - 1) * q / 100 between two of them, and
    numpy's own interpolation (`numpy.lib._function_base_impl._lerp`). The first rows of every call
    are checked against np.nanpercentile itself, exactly, so numpy stays the reference."""
    if not np.isnan(m).any():
        return np.percentile(m, q, axis=1)
    s = np.sort(m, axis=1)  # NaN last
    n = np.count_nonzero(~np.isnan(m), axis=1)
    h = (n - 1) * (q / 100)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    rows = np.arange(m.shape[0])
    a, b = s[rows, np.maximum(lo, 0)], s[rows, np.maximum(hi, 0)]
    t, diff = h - lo, b - a
    out = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    out[n == 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN row: numpy warns, and says NaN
        want = np.nanpercentile(m[:16], q, axis=1)
    assert np.array_equal(out[:16], want, equal_nan=True), (out[:16], want)
    return out


def test_rows_percentile_is_numpys_nanpercentile_exactly():
    """The helper above against numpy on every row (not just its first 16), on 200 drawn matrices: sizes 1 to 60,
    no NaN to all NaN, repeated values, every percentile the pages use and the ends."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        x = rng.random(n) * rng.choice([1, 100, 1e6])
        x[rng.choice(n, int(rng.integers(0, n + 1)), replace=False)] = np.nan
        if rng.random() < 0.3:
            x = np.round(x, 1)
        m, q = x[rng.integers(0, n, (40, n))], float(rng.choice([*QS, 2.5, 97.5, 0, 100]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert np.array_equal(rows_percentile(m, q), np.nanpercentile(m, q, axis=1), equal_nan=True), (n, q)


def expected_pair(rb: dict, rc: dict, paired: bool, metrics: list[str]) -> dict:
    rng = np.random.default_rng(SEED)
    nb, nc = len(rb["requests"]["error"]), len(rc["requests"]["error"])
    if paired:
        ib = ic = rng.integers(0, nb, (B, nb))
    else:
        ib, ic = rng.integers(0, nb, (B, nb)), rng.integers(0, nc, (B, nc))
    own_c = np.random.default_rng(SEED).integers(0, nc, (B, nc))  # a side's own interval: its first matrix
    out = {}
    for m in metrics:
        xb, xc = column(rb, m), column(rc, m)
        with np.errstate(all="ignore"):
            for q in QS:
                sb, sc, sc_own = (rows_percentile(x[i], q) for x, i in ((xb, ib), (xc, ic), (xc, own_c)))
                e = {"baseline": np.nanpercentile(xb, q), "candidate": np.nanpercentile(xc, q)}
                e["baseline_iv"] = np.percentile(sb, [2.5, 97.5]) if enough(xb, q) else None
                e["candidate_iv"] = np.percentile(sc_own, [2.5, 97.5]) if enough(xc, q) else None
                e["ratio"] = e["candidate"] / e["baseline"]
                e["ratio_iv"] = (np.nanpercentile(sc / sb, [2.5, 97.5]) if enough(xb, q) and enough(xc, q) else None)
                e["verdict"] = rule(*(e["ratio_iv"] if e["ratio_iv"] is not None else (math.nan, math.nan)))
                e["measured"] = (int(np.count_nonzero(~np.isnan(xb))), int(np.count_nonzero(~np.isnan(xc))))
                out[m, q] = e
    return out


def load_label(lp: dict) -> str:
    r = lp["load"]["request_rate"]
    return "all at once" if r == "inf" else f"{r:g} req/s"


# -- the figures, from the page ----------------------------------------------------------------------

NUM = r"-?[\d,]+(?:\.\d+)?"


def numbers(text: str) -> list[float]:
    return [float(v.replace(",", "")) for v in re.findall(NUM, text)]


def close(printed: str, want: float) -> bool:
    """A printed number agrees with `want` to the digits it shows; a latency printed in seconds
    (`16.0 s`, ten seconds or more) against `want` in ms."""
    if printed.endswith(" s"):
        assert want >= 10_000, (printed, want)
        printed, want = printed[:-2], want / 1000
    digits = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed.replace(",", "")) - want) <= 0.5 * 10 ** -digits + 1e-9 * abs(want)


def pair_tables(page) -> dict[str, list[list[str]]]:
    """Each matched load point's table by its title (`sharegpt · 1 req/s`)."""
    doc = htmlutil.parse(page)
    out = {}
    for fig in doc.iter(f"{htmlutil.NS}figure"):
        cap = next(fig.iter(f"{htmlutil.NS}figcaption"), None)
        table = next(fig.iter(f"{htmlutil.NS}table"), None)
        if cap is not None and table is not None and "latency" in (table.get("class") or "").split():
            out[htmlutil.cell_text(cap).split(":")[0]] = htmlutil.rows(table)
    return out


def cells_of(rows: list[list[str]]) -> dict[tuple[str, int], list[str]]:
    out, metric = {}, None
    for r in rows:
        if len(r) == 1:
            metric = SHORT[re.search(r"\((\w+)\)", r[0])[1]]
        elif r and re.fullmatch(r"p\d+", r[0]):
            out[metric, int(r[0][1:])] = r
    return out


def check_value(cell: str, want: float, iv, seconds: bool | None = None) -> None:
    """A printed figure and its interval against `want`; `seconds` (a latency in ms): whether the
    guide's rule prints it in seconds (`12.3 s`: a pair's figures share a unit, seconds when either
    is ten seconds or more), else ms with no unit."""
    printed = re.findall(NUM, cell)
    if seconds is not None:
        assert bool(re.search(r"\d s$", cell.strip())) == seconds, (cell, want)
    scale = 1000 if seconds else 1
    assert close(printed[0], want / scale), (cell, want)
    if iv is None:
        assert len(printed) == 1, cell
    else:
        assert close(printed[1], iv[0] / scale) and close(printed[2], iv[1] / scale), (cell, iv)


def check_pair(rows: list[list[str]], want: dict, metrics: list[str]) -> None:
    got = cells_of(rows)
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    for key, e in want.items():
        label, base, cand, ratio, _bar, verdict = got[key]
        # A row's figures share a unit: seconds when any of them (either side, its interval) is ten seconds or more.
        seconds = max(e["baseline"], e["candidate"], *(() if e["baseline_iv"] is None else e["baseline_iv"]),
                      *(() if e["candidate_iv"] is None else e["candidate_iv"])) >= 10_000
        check_value(base, e["baseline"], e["baseline_iv"], seconds)
        check_value(cand, e["candidate"], e["candidate_iv"], seconds)
        if e["ratio_iv"] is None:
            # The cell says why it has none (the guide: 20 measured a side and 2 at or above the percentile).
            ratio, _, why = ratio.partition(" no interval: ")
            need = max(20, math.ceil(round(2 / (1 - key[1] / 100), 9)))
            counts = " and ".join(dict.fromkeys(f"{v:,}" for v in e["measured"]))
            assert why == f"{counts} {key[0].upper()}s, a p{key[1]} needs {need} a side", (key, why)
            assert min(e["measured"]) < need or min(e["measured"]) * (1 - key[1] / 100) < 2
        check_value(ratio.replace("x", " "), e["ratio"], e["ratio_iv"])
        assert verdict.endswith(e["verdict"]), (key, verdict, e)


@pytest.mark.slow
@pytest.mark.parametrize("report", TWO_SIDED)
def test_every_percentile_interval_ratio_and_verdict_on_the_latency_page_is_numpys(example_site, report):
    receipt = json.loads((ROOT / "data" / report / "SUMMARY.json").read_text())
    tables = pair_tables(example_site / "reports" / report / "latency.html")
    sides = receipt["serving"]["sides"]
    metrics = shown_metrics(receipt)
    assert len(receipt["serving"]["matched"]) == len(tables) == 4
    every = []
    for m in receipt["serving"]["matched"]:
        lb = next(lp for lp in sides["baseline"]["load_points"] if lp["id"] == m["baseline"])
        lc = next(lp for lp in sides["candidate"]["load_points"] if lp["id"] == m["candidate"])
        want = expected_pair(lb["repeats"][0], lc["repeats"][0], m["paired"], metrics)
        check_pair(tables[f"{lb['workload']} · {load_label(lb)}"], want, metrics)
        every += [(metric, e) for (metric, _), e in want.items()]
    # The counts and ranges above the tables: the same verdicts, the same ratios.
    counts = htmlutil.tables(htmlutil.parse(example_site / "reports" / report / "latency.html"))["latency-counts"]
    for row in counts[1:]:
        mine = [e for metric, e in every if row[0] == "Every latency cell" or row[0].startswith(metric.upper())]
        got = [int(v.split()[-1]) for v in row[1:6]]
        assert got == [sum(e["verdict"] == v for e in mine) for v in ("faster", "level", "slower", "not resolved")] + [len(mine)]
        ends = numbers(row[6])  # `0.90–1.12x`, or one figure when both ends print alike
        low, high = ends[0], ends[-1]
        assert abs(low - min(e["ratio"] for e in mine)) < 0.005 + 1e-9 and abs(high - max(e["ratio"] for e in mine)) < 0.005 + 1e-9


@pytest.mark.slow
def test_the_summary_json_holds_numpys_figures_as_numbers():
    """`sitegen summary --format json`: every latency cell's percentiles, ratio, interval and verdict
    are numpy's (numbers, not printed text), and the counts and ranges are those of the cells."""
    report = "vllm-tp4pp2-ib-aa"
    receipt = json.loads((ROOT / "data" / report / "SUMMARY.json").read_text())
    out = sitegen_here("summary", report, "--format", "json", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    serving = json.loads(out.stdout)["reports"][0]["serving"]
    sides, metrics = receipt["serving"]["sides"], shown_metrics(receipt)
    cells = {(c["load"], c["metric"], c["percentile"]): c for c in serving["cells"] if c["kind"] == "latency"}
    want_all = []
    for m in receipt["serving"]["matched"]:
        lb = next(lp for lp in sides["baseline"]["load_points"] if lp["id"] == m["baseline"])
        lc = next(lp for lp in sides["candidate"]["load_points"] if lp["id"] == m["candidate"])
        for (metric, q), e in expected_pair(lb["repeats"][0], lc["repeats"][0], m["paired"], metrics).items():
            c = cells.pop((load_label(lb), metric, q))
            assert (c["unit"], c["better"], c["verdict"]) == ("ms", "lower", e["verdict"])
            assert c["baseline"] == pytest.approx(e["baseline"], rel=1e-9)
            assert c["candidate"] == pytest.approx(e["candidate"], rel=1e-9)
            assert c["ratio"] == pytest.approx(e["ratio"], rel=1e-9)
            if e["ratio_iv"] is None:
                assert c["interval"] is None
            else:
                assert [c["interval"]["low"], c["interval"]["high"]] == pytest.approx(list(e["ratio_iv"]), rel=1e-9)
            want_all.append((metric, e))
    assert cells == {}
    for key, mine in [("latency", want_all)] + [(m, [(mm, e) for mm, e in want_all if mm == m]) for m in metrics]:
        got = serving["latency"] if key == "latency" else serving["by_metric"][key]
        assert [got[k] for k in ("faster", "level", "slower", "not_resolved", "cells")] == (
            [sum(e["verdict"] == v for _, e in mine) for v in ("faster", "level", "slower", "not resolved")] + [len(mine)])
        assert got["range"]["low"] == pytest.approx(min(e["ratio"] for _, e in mine), rel=1e-9)
        assert got["range"]["high"] == pytest.approx(max(e["ratio"] for _, e in mine), rel=1e-9)


def test_the_page_says_how_each_interval_was_drawn(example_site):
    text = htmlutil.text(htmlutil.parse(example_site / "reports" / "vllm-tp4pp2-ib-aa" / "latency.html"))
    assert text.count("Paired bootstrap over 200 requests") == 4
    assert "2,000 resamples, seed 0" in text and "faster or slower only when the whole 95% interval" in text


# -- sites made here ---------------------------------------------------------------------------------

def build(tmp_path, receipts: dict[str, dict], slo: str = "") -> tuple:
    for rid, doc in receipts.items():
        sr.write(tmp_path / "data" / rid, doc)
    (tmp_path / "mkdocs.yml").write_text("site_name: Serving\nsite_url: https://example.org/s/\nplugins:\n  - sitegen:\n"
                                         f"      data_dir: data\n{slo}")
    out = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return tmp_path / "site"


@pytest.mark.slow
def test_unpaired_load_points_resample_each_side_on_its_own(tmp_path):
    doc = sr.pair(seed=3, n=150, points=2, scale=1.05, paired=False, failed=2, one_token=3)
    site = build(tmp_path, {"unpaired": doc})
    tables = pair_tables(site / "reports" / "unpaired" / "latency.html")
    metrics = shown_metrics(doc)
    for m in doc["serving"]["matched"]:
        assert m["paired"] is False
        rb = next(lp for lp in doc["serving"]["sides"]["baseline"]["load_points"] if lp["id"] == m["baseline"])["repeats"][0]
        rc = next(lp for lp in doc["serving"]["sides"]["candidate"]["load_points"] if lp["id"] == m["candidate"])["repeats"][0]
        rate = m["baseline"].split("-")[1]
        check_pair(tables[f"synthetic · {'all at once' if rate == 'inf' else rate + ' req/s'}"],
                   expected_pair(rb, rc, False, metrics), metrics)
    text = htmlutil.text(htmlutil.parse(site / "reports" / "unpaired" / "latency.html"))
    assert "Unpaired bootstrap over 150 and 150 requests" in text and "Paired bootstrap" not in text


def test_repeated_runs_take_t_over_the_runs(tmp_path):
    doc = sr.pair(seed=5, n=60, points=1, scale=1.5, repeats=3)
    site = build(tmp_path, {"repeats": doc})
    rows = cells_of(next(iter(pair_tables(site / "reports" / "repeats" / "latency.html").values())))
    t_df = {2: 4.302652729911275}  # Student's t, 97.5th percentile, 2 degrees of freedom
    for (metric, q), r in rows.items():
        runs = {role: np.array([np.nanpercentile(column(rep, metric), q)
                                for rep in doc["serving"]["sides"][role]["load_points"][0]["repeats"]])
                for role in ("baseline", "candidate")}
        lb, lc = np.log(runs["baseline"]), np.log(runs["candidate"])
        gm = np.exp(lb.mean())
        half = t_df[2] * lb.std(ddof=1) / math.sqrt(3)
        printed = re.findall(NUM, r[1])
        # A pair's figures share a unit: seconds when either side's is ten seconds or more.
        hc = t_df[2] * lc.std(ddof=1) / math.sqrt(3)
        k = 1000 if max(np.exp(lb.mean() + half), np.exp(lc.mean() + hc), runs["baseline"].max(), runs["candidate"].max()) >= 10_000 else 1
        assert r[1].strip().endswith(" s") == (k == 1000), r[1]
        assert close(printed[0], gm / k) and close(printed[1], math.exp(lb.mean() - half) / k) and close(printed[2], math.exp(lb.mean() + half) / k)
        assert close(printed[3], runs["baseline"].min() / k) and close(printed[4], runs["baseline"].max() / k)  # the runs' spread
        ratio = math.exp(lc.mean() - lb.mean())
        assert close(re.findall(NUM, r[3])[0], ratio)


# -- objectives ----------------------------------------------------------------------------------------

SLO = "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n"
SCALES = {"baseline": (1.0, 1.2, 1.6, 3.0), "candidate": (1.0, 1.0, 1.1, 2.0)}


def slo_receipt() -> dict:
    rng = np.random.default_rng(11)
    sides = {role: [[sr.rows(rng, 300, s, failed=3, one_token=4)] for s in SCALES[role]] for role in SCALES}
    for b, c in zip(sides["baseline"], sides["candidate"]):
        c[0]["input_tokens"] = list(b[0]["input_tokens"])
    return sr.receipt(sides)


def test_the_heaviest_load_meeting_every_objective_and_goodput_by_hand(tmp_path):
    doc = slo_receipt()
    site = build(tmp_path, {"slo": doc}, SLO)
    page = htmlutil.text(htmlutil.parse(site / "reports" / "slo" / "load.html"))
    heaviest = {}
    for role in ("baseline", "candidate"):
        best = None
        for lp in doc["serving"]["sides"][role]["load_points"]:
            rep = lp["repeats"][0]
            if not (np.nanpercentile(column(rep, "ttft"), 99) <= 500 and np.nanpercentile(column(rep, "tpot"), 50) <= 50):
                break
            best = lp["load"]["request_rate"]
        heaviest[role] = best
    assert heaviest == {"baseline": 4, "candidate": 16}  # the receipt was made so: the test is about the page
    assert "synthetic: setup baseline: 4 req/s; setup candidate: 16 req/s — setup candidate meets them at 4.00× the load" in page
    goodput = htmlutil.tables(htmlutil.parse(site / "reports" / "slo" / "load.html"))["goodput-table"]
    for role in ("baseline", "candidate"):
        for lp in doc["serving"]["sides"][role]["load_points"]:
            req = lp["repeats"][0]["requests"]
            good = 0
            for i in range(len(req["error"])):
                if req["error"][i]:
                    continue
                if req["ttft_ms"][i] <= 500 and (req["tpot_ms"][i] is None or req["tpot_ms"][i] <= 50):
                    good += 1
            row = next(r for r in goodput if r[0] == f"synthetic · {load_label(lp)}" and r[1] == f"setup {role}")
            assert row[4] == f"{good} of 300", row
            p, z = good / 300, 1.959963984540054
            centre = (p + z * z / 600) / (1 + z * z / 300)
            half = z * math.sqrt(p * (1 - p) / 300 + z * z / (4 * 300 ** 2)) / (1 + z * z / 300)
            assert row[2] == f"{p:.1%}" and row[3] == f"{max(0, centre - half):.1%}–{min(1, centre + half):.1%}"


def test_objectives_are_drawn_on_their_curves(tmp_path):
    site = build(tmp_path, {"slo": slo_receipt()}, SLO)
    html = (site / "reports" / "slo" / "load.html").read_text()
    assert html.count("objective ≤ 500 ms") >= 2 and html.count("objective ≤ 50 ms") >= 2  # legend and line
    assert "Good requests/s" in html and "requests queue from" in html


# -- the A/A report: no cell faster or slower, in any output --------------------------------------------

AA = "vllm-tp4pp2-ib-aa"


def test_every_latency_tick_says_its_unit(example_site):
    """A latency axis' ticks each carry their unit (a bare `100` under `1s` on a log axis read as
    100 seconds): on the load pages' latency charts (y) and the distributions' (x), a tick is `0`,
    `<n>ms` or `<n>s`."""
    seen = 0
    for page in sorted((example_site / "reports").glob("*/*.html")):
        if page.name not in ("load.html", "distributions.html"):
            continue
        axis = "end" if page.name == "load.html" else "middle"
        for svg in re.findall(r"<svg[^>]*>.*?</svg>", page.read_text(), re.S):
            if not re.search(r'aria-label="(TTFT|TPOT|ITL|E2E|Time|End|Inter)', svg):
                continue
            labels = re.findall(rf'<g class="tick-label ta-{axis[:3]}">(.*?)</g>', svg, re.S)[0]
            ticks = re.findall(r"<text[^>]*>([^<]*)</text>", labels)
            assert ticks and all(t == "0" or re.fullmatch(r"[\d.]+(ms|s)", t) for t in ticks), (page.name, ticks)
            seen += 1
    assert seen >= 20  # the example's serving reports draw dozens of latency charts


def test_a_one_setup_sweep_s_objectives_line_names_no_role(example_site):
    """On the home page, the objectives line of a sweep of one setup names no side ("candidate")
    and says why its figure is unknown; a report of two sides names both."""
    home = (example_site / "index.html").read_text()
    assert 'data-sort="Objectives met up to: unknown (a load without a figure of an objective)"' in home
    assert "candidate unknown" not in home and 'data-sort="Objectives met up to: candidate ' in home


def test_a_sweep_of_one_load_point_draws_no_curve(example_site):
    """A curve needs two load points: a sweep with one load point a side draws no chart (four
    charts of one dot each, twenty on the SGLang page, drew nothing a reader could follow) and says
    so; a sweep of several draws its curves. The load points are counted in the sweep's own table."""
    single = several = 0
    for page in sorted((example_site / "reports").glob("*/load.html")):
        for body in re.findall(r'<section aria-labelledby="sweep-[^"]*">(.*?)</section>', page.read_text(), re.S):
            table = re.search(r"<tbody>(.*?)</tbody>", body, re.S)[1]
            loads = re.findall(r'<tr><th scope="row"[^>]*>(.*?)</th>', table, re.S)
            charts = body.count('class="chart-svg"')
            if len(set(loads)) < 2:
                single += 1
                assert charts == 0 and "One load point: no curve to draw" in body, page.parent.name
            else:
                several += 1
                assert charts >= 3 and "One load point" not in body, page.parent.name
    assert single and several


def test_the_a_a_report_has_no_cell_faster_or_slower_anywhere(example_site, tmp_path):
    folder = example_site / "reports" / AA
    for page in ("latency.html", "load.html", "index.html"):
        doc = htmlutil.parse(folder / page)
        verdicts = [r[-1] for rows in htmlutil.tables(doc).values() for r in rows if r and r[-1].endswith(("faster", "slower"))]
        assert verdicts == [], (page, verdicts)
    counts = htmlutil.tables(htmlutil.parse(folder / "latency.html"))["latency-counts"]
    assert counts[-1][:7] == ["Every latency cell", "▲ 0", "● 29", "▼ 0", "○ 19", "48", "0.90–1.12x"]
    home = htmlutil.tables(htmlutil.parse(example_site / "index.html"))["reports"]
    row = next(r for r in home if r[0].startswith("tp4×pp2 InfiniBand, run 2 against"))
    assert "0 faster · 29 level · 0 slower · 19 not resolved; 4 without an interval" in row  # four TPOT p99s: too few requests
    meta = re.search(r'<meta name="description" content="([^"]*)"', (folder / "latency.html").read_text())[1]
    assert "Latency: 0 faster · 29 level · 0 slower · 19 not resolved; 4 without an interval" in meta
    for name in ("latency-ratios",):
        table = list(csv.DictReader(io.StringIO((folder / "csv" / f"{name}.csv").read_text())))
        assert len(table) == 56 and {r["verdict"] for r in table} == {"level", "not resolved"}
    out = sitegen_here("summary", AA, "--format", "json", cwd=ROOT)
    s = json.loads(out.stdout)["reports"][0]["serving"]
    assert (s["latency"]["faster"], s["latency"]["slower"], s["throughput"]["faster"], s["throughput"]["slower"]) == (0, 0, 0, 0)
    for fmt in ("text", "markdown"):
        text = sitegen_here("summary", AA, "--format", fmt, cwd=ROOT).stdout
        lines = [line for line in text.splitlines() if "faster" in line]
        assert lines and all("0 faster" in line and "0 slower" in line for line in lines), lines


def test_the_speed_page_says_one_run_no_interval(example_site):
    text = htmlutil.text(htmlutil.parse(example_site / "reports" / "cuteafd-v4.0.0" / "speed.html"))
    assert "One run, no interval" in text


def test_the_build_cache_follows_every_template_and_view():
    from site_gen.building import store

    roots = store.code_roots()
    assert ROOT / "site_gen" in roots  # the theme (site_gen/templates, site_gen/static) and every section inside it


def test_a_one_setup_sweep_without_rows_shows_its_sources_figures_and_its_repeats_over_runs(example_site):
    """The SGLang sweep: no per-request rows, so each figure is the source's own (no interval), its
    ITL over every gap as the file states it; the load point run twice shows the geometric mean of its
    two runs, Student's t interval (1 degree of freedom) and the runs' range; nothing is compared."""
    rid = "sglang-llama-3.3-70b-sweep"
    receipt = json.loads((ROOT / "data" / rid / "SUMMARY.json").read_text())
    table = htmlutil.tables(htmlutil.parse(example_site / "reports" / rid / "latency.html"))["every-load-point-table"]
    head, rows = table[0], {r[0]: r for r in table[1:]}
    for lp in receipt["serving"]["sides"]["candidate"]["load_points"]:
        row = rows[f"{lp['workload']} · {load_label(lp)}"]
        stated = [{s["key"]: s["value"] for s in rep["stated"]} for rep in lp["repeats"]]
        for col, key in (("TTFT p50", "median_ttft_ms"), ("E2E p50", "median_e2e_latency_ms"), ("ITL p50, every gap", "median_itl_ms")):
            cell = row[head.index(col)]
            values = np.array([s[key] for s in stated])
            if len(values) == 1:
                # From ten seconds, in seconds (`91.3 s`, not `91,282.2`).
                want = f"{values[0] / 1000:,.1f} s" if values[0] >= 10_000 else f"{values[0]:,.1f}"
                assert cell == want, (col, cell)
                continue
            logs = np.log(values)
            k = 1000 if max(np.exp(logs.mean() + 12.706204736174698 * logs.std(ddof=1) / math.sqrt(2)), values.max()) >= 10_000 else 1
            assert cell.endswith(" s") == (k == 1000), cell
            values = values / k
            printed = re.findall(NUM, cell)
            logs = np.log(values)
            half = 12.706204736174698 * logs.std(ddof=1) / math.sqrt(2)
            want = [np.exp(logs.mean()), np.exp(logs.mean() - half), np.exp(logs.mean() + half), values.min(), values.max()]
            assert all(close(p, w) for p, w in zip(printed, want)) and len(printed) == 5, (cell, want)
    text = htmlutil.text(htmlutil.parse(example_site / "reports" / rid / "latency.html"))
    assert "One setup, SGLang, Llama 3.3 70B: 13 load points, no comparison." in text
    assert not re.search(r"\b(faster|slower|level)\b", text)


def test_each_distribution_s_table_is_numpys(example_site):
    """The Distributions page's charts' text twins: each side's p10, p25, p50, p75, p90, p99 and
    max of a metric's measured values, recomputed here."""
    rid = "vllm-tp4pp2-ib-against-no-ib"
    receipt = json.loads((ROOT / "data" / rid / "SUMMARY.json").read_text())
    tables = htmlutil.tables(htmlutil.parse(example_site / "reports" / rid / "distributions.html"))
    sides = receipt["serving"]["sides"]
    for lp in sides["baseline"]["load_points"]:
        anchor = "at-sharegpt-" + ("all-at-once" if lp["load"]["request_rate"] == "inf" else f"{lp['load']['request_rate']}-req-s")
        for metric in shown_metrics(receipt):
            rows = tables[f"dist-{anchor}-{metric}"]
            assert rows[0] == ["ms", "p10", "p25", "p50", "p75", "p90", "p99", "max"]
            for row, role in zip(rows[1:], ("baseline", "candidate")):
                rep = next(p for p in sides[role]["load_points"] if p["id"] == lp["id"])["repeats"][0]
                x = column(rep, metric)
                x = x[~np.isnan(x)]
                assert row[0].endswith(f"{x.size} requests")
                for printed, q in zip(row[1:], (10, 25, 50, 75, 90, 99, 100)):
                    assert close(printed, np.percentile(x, q)), (metric, q, printed)
