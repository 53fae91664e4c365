"""A study's figures, intervals, allowances, comparisons, verdicts, ranks and frontier, each computed
again here from the receipt's rows with numpy and scipy (not sitegen's code) and compared: for drawn
studies (setups with one, two and three runs; one setup slower) and for the real llm-k8s study."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats as sps

import study_receipts
from conftest import ROOT
from test_serving_pages import rows_percentile
from site_gen.analysis.report import analyse
from site_gen.receipts.load import load_report

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

BAND = 0.08
B, SEED = 2000, 0
METRICS = ("ttft", "tpot", "itl", "e2e")
Q = (50, 90, 95, 99)


def analysed(tmp_path, doc, slo=()):
    folder = study_receipts.write(tmp_path / "data" / "r", doc)
    return analyse(load_report(folder, tmp_path / "data"), band=BAND, slo=slo), doc


def column(rep: dict, metric: str) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in rep["requests"][f"{metric}_ms"]], dtype=float)


def expected_figures(doc: dict, metrics=METRICS) -> dict:
    """(setup, load, metric, q) -> dict(value, low, high, se, df, runs, logs, cls) computed here."""
    out = {}
    for s in doc["study"]["setups"]:
        for lp in s["load_points"]:
            reps = lp["repeats"]
            for metric in (*metrics, "tput"):
                for q in (Q if metric != "tput" else (0,)):
                    if metric == "tput":
                        runs = np.array([sum(r["requests"]["output_tokens"]) / r["duration_s"] for r in reps])
                    else:
                        runs = np.array([np.percentile(column(r, metric)[~np.isnan(column(r, metric))], q) for r in reps])
                    e = {"runs": len(reps), "path": lp["id"]}
                    if len(reps) >= 2:
                        logs = np.log(runs)
                        e.update(value=float(np.exp(logs.mean())), logs=logs, lo_run=runs.min(), hi_run=runs.max())
                    else:
                        r = reps[0]
                        idx = np.random.default_rng(SEED).integers(0, len(r["requests"]["error"]), (B, len(r["requests"]["error"])))
                        if metric == "tput":
                            res = np.array(r["requests"]["output_tokens"], dtype=float)[idx].sum(axis=1) / r["duration_s"]
                        else:
                            res = rows_percentile(column(r, metric)[idx], q)
                        lo, hi = np.percentile(res, [2.5, 97.5])
                        e.update(value=float(runs[0]), low=lo, high=hi, se=float(np.log(res).std(ddof=1)), df=math.inf)
                        measured = np.count_nonzero(~np.isnan(column(r, metric))) if metric != "tput" else 10 ** 9
                        if measured < 20 or measured * (1 - q / 100) < 2:  # too few values for an interval (bootstrap.enough)
                            e.update(low=math.nan, high=math.nan, se=math.nan)
                    out[s["id"], lp["id"], metric if metric != "tput" else "output_tokens_per_s", q] = e
    # Load classes: saturated from the first load whose median TTFT is over twice the lightest's.
    cls = {}
    for s in doc["study"]["setups"]:
        ids = [lp["id"] for lp in s["load_points"]]  # lightest first in these receipts
        first = out[s["id"], ids[0], "ttft", 50]["value"]
        sat = next((i for i, lid in enumerate(ids) if out[s["id"], lid, "ttft", 50]["value"] > 2 * first), None)
        for i, lid in enumerate(ids):
            cls[s["id"], lid] = "saturated" if sat is not None and i >= sat else "below saturation"
    for k, e in out.items():
        e["cls"] = cls[k[0], k[1]]
    # Repeated figures: t over runs, the variance pooled over every repeated setup's loads of one class,
    # unless the setup's own is larger than the rest's by an F test at 5%.
    def ms(groups):
        return sum(float(((g - g.mean()) ** 2).sum()) for g in groups), sum(g.size - 1 for g in groups)
    for (sid, _, metric, q), e in out.items():
        if e["runs"] < 2:
            continue
        same = [(s2, g["logs"]) for (s2, _, m2, q2), g in out.items() if m2 == metric and q2 == q
                and g["runs"] >= 2 and g["cls"] == e["cls"]]
        ss_all, df_all = ms([g for _, g in same])
        ss_own, df_own = ms([g for s2, g in same if s2 == sid])
        ss_rest, df_rest = ss_all - ss_own, df_all - df_own
        var, df, which = ss_all / df_all, df_all, "pooled"
        if df_rest and df_own and (ss_rest == 0 or sps.f.sf((ss_own / df_own) / (ss_rest / df_rest), df_own, df_rest) < 0.05
                                   and ss_own / df_own > ss_rest / df_rest):
            var, df, which = ss_own / df_own, df_own, "own"
        se = math.sqrt(var / e["runs"])
        t = sps.t.ppf(0.975, df)
        e.update(se=se, df=float(df), which=which, low=math.exp(e["logs"].mean() - t * se),
                 high=math.exp(e["logs"].mean() + t * se))
    return out


def expected_allowances(figs: dict) -> dict:
    out = {}
    keys = {(m, q, e["cls"]) for (_, _, m, q), e in figs.items()}
    for m, q, c in keys:
        group = [e["logs"] for (_, _, m2, q2), e in figs.items() if (m2, q2, e["cls"]) == (m, q, c) and e["runs"] >= 2]
        df = sum(g.size - 1 for g in group)
        if df:
            var = sum(float(((g - g.mean()) ** 2).sum()) for g in group) / df
            out[m, q, c] = math.expm1(sps.t.ppf(0.975, df) * math.sqrt(2 * var))
    return out


def bh(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values, written out: p(i) * m / i, made monotone from the top, at most 1."""
    m = p.size
    order = np.argsort(p)
    adj = np.empty(m)
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        adj[i] = running
    return adj


def expected_comparisons(doc: dict, figs: dict, allow: dict, metrics=METRICS) -> list[dict]:
    order = [s["id"] for s in doc["study"]["setups"]]
    base = doc["study"].get("baseline")
    others = [s for s in order if s != base]
    pairs = ([(s, base) for s in others] if base else []) + [(others[j], others[i]) for i, j in itertools.combinations(range(len(others)), 2)]
    loads = [lp["id"] for lp in doc["study"]["setups"][0]["load_points"]]
    kinds = [(m, q) for m in metrics for q in (50, 99)] + [("output_tokens_per_s", 0)]
    out = []
    for lid in loads:
        for m, q in kinds:
            for a, b in pairs:
                fa, fb = figs[a, lid, m, q], figs[b, lid, m, q]
                d = math.log(fa["value"] / fb["value"])
                va, vb = fa["se"] ** 2, fb["se"] ** 2
                se = math.sqrt(va + vb)
                terms = [v * v / f for v, f in ((va, fa["df"]), (vb, fb["df"])) if math.isfinite(f)]
                df = (va + vb) ** 2 / sum(terms) if terms else math.inf
                up, down = math.log1p(BAND), -math.log1p(-BAND)
                one = fa["runs"] == 1 or fb["runs"] == 1
                cls = "saturated" if "saturated" in (fa["cls"], fb["cls"]) else "below saturation"
                a_log = 0.0
                if one and (m, q, cls) in allow:
                    a_log = math.log1p(allow[m, q, cls])
                    up, down = max(up, a_log), max(down, a_log)
                tq = sps.norm.ppf(0.975) if math.isinf(df) else sps.t.ppf(0.975, df)
                edge = up if d > 0 else down
                p = min(1.0, 2 * (sps.norm.sf((abs(d) - edge) / se) if math.isinf(df) else sps.t.sf((abs(d) - edge) / se, df)))
                if se != se:
                    p = math.nan
                out.append({"load": lid, "metric": m, "percentile": q, "a": a, "b": b, "ratio": math.exp(d),
                            "low": math.exp(d - tq * se), "high": math.exp(d + tq * se), "p": p, "d": d,
                            "lo": d - tq * se, "hi": d + tq * se, "a_log": a_log})
    ps = np.array([c["p"] for c in out])
    adj = np.full(ps.size, np.nan)
    adj[~np.isnan(ps)] = bh(ps[~np.isnan(ps)])
    for c, pa in zip(out, adj):
        c["p_adjusted"] = pa
        faster_latency = c["metric"] != "output_tokens_per_s"
        if pa == pa and pa <= 0.05:
            c["verdict"] = ("slower" if c["d"] > 0 else "faster") if faster_latency else ("faster" if c["d"] > 0 else "slower")
        elif c["lo"] == c["lo"] and c["lo"] - c["a_log"] >= math.log1p(-BAND) - 1e-12 and c["hi"] + c["a_log"] <= math.log1p(BAND) + 1e-12:
            c["verdict"] = "level"
        else:
            c["verdict"] = "not resolved"
    return out


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    doc = study_receipts.drawn(seed=5, setups=4, runs=[1, 2, 3, 1], n=200, points=3, scales={3: 1.3}, shift=0.02)
    a, _ = analysed(tmp_path_factory.mktemp("drawn"), doc)
    s = a.of("study")
    return s, doc, expected_figures(doc, s.metrics)


def test_every_figure_and_interval_is_recomputed(drawn):
    s, doc, want = drawn
    got = {(r["setup"], r["point"], r["metric"], r["percentile"]): r for r in s.figures.to_dict("records")}
    assert set(got) == set(want)
    for k, e in want.items():
        g = got[k]
        assert g["value"] == pytest.approx(e["value"], rel=1e-12), k
        assert g["low"] == pytest.approx(e["low"], rel=1e-9) and g["high"] == pytest.approx(e["high"], rel=1e-9), k
        assert g["se"] == pytest.approx(e["se"], rel=1e-9) and g["df"] == e["df"], k
        assert g["load_class"] == e["cls"], k
        if e["runs"] >= 2:
            assert (g["spread_low"], g["spread_high"]) == pytest.approx((e["lo_run"], e["hi_run"])), k
            assert g["method"] == "t over runs" and g["variance"] == e["which"], k
        else:
            assert g["method"] == "one run: within-run interval only", k


def test_allowances_are_the_prediction_bound_of_two_runs(drawn):
    s, doc, figs = drawn
    want = expected_allowances(figs)
    got = {(r["metric"], r["percentile"], r["load_class"]): r for r in s.allowances.to_dict("records")}
    assert {k for k, r in got.items() if r["measured"]} == set(want)
    for k, v in want.items():
        assert got[k]["allowance"] == pytest.approx(v, rel=1e-9), k


def test_every_comparison_p_value_and_verdict_is_recomputed(drawn):
    s, doc, figs = drawn
    want = expected_comparisons(doc, figs, expected_allowances(figs), s.metrics)
    got = s.comparisons.to_dict("records")
    assert len(got) == len(want) == s.tests
    for g, e in zip(got, want):
        key = (e["load"], e["metric"], e["percentile"], e["a"], e["b"])
        assert (g["load"], g["metric"], g["percentile"], g["a"], g["b"]) == key
        assert g["ratio"] == pytest.approx(e["ratio"], rel=1e-12), key
        assert (g["low"], g["high"]) == pytest.approx((e["low"], e["high"]), rel=1e-9), key
        assert g["p"] == pytest.approx(e["p"], rel=1e-6, abs=1e-12), key
        assert g["p_adjusted"] == pytest.approx(e["p_adjusted"], rel=1e-6, abs=1e-12), key
        assert g["verdict"] == e["verdict"], key
    verdicts = [c["verdict"] for c in got]
    # The slower setup (d, 1.3x every latency) is found; the rest are not told apart.
    assert any(c["verdict"] in ("faster", "slower") and "d" in (c["a"], c["b"]) for c in got)
    assert not any(c["verdict"] in ("faster", "slower") and "d" not in (c["a"], c["b"]) for c in got), verdicts


def test_ranks_count_the_verdicts_ahead_and_tie_the_rest(drawn):
    s = drawn[0]
    comps = s.comparisons.to_dict("records")
    for r in s.ranks.to_dict("records"):
        ahead = set()
        for c in comps:
            if (c["load"], c["metric"], c["percentile"]) != (r["load"], r["metric"], r["percentile"]) or r["setup"] not in (c["a"], c["b"]):
                continue
            other = c["b"] if c["a"] == r["setup"] else c["a"]
            lower_is_better = c["metric"] != "output_tokens_per_s"
            a_better = (c["verdict"] == "faster")
            if c["verdict"] in ("faster", "slower") and ((a_better and other == c["a"]) or (not a_better and other == c["b"])):
                ahead.add(other)
            assert lower_is_better or c["metric"] == "output_tokens_per_s"
        assert r["rank"] == 1 + len(ahead), r
    # Setups a, b, c are never separated: they tie, and d stands last where it is resolved.
    by = {}
    for r in s.ranks.to_dict("records"):
        by.setdefault((r["load"], r["metric"], r["percentile"]), {})[r["setup"]] = r
    for group in by.values():
        assert group["a"]["rank"] == group["b"]["rank"] == group["c"]["rank"] == 1 and group["a"]["tied"]


def test_the_frontier_points_levels_and_areas_are_recomputed(drawn):
    s, doc, figs = drawn
    f = s.frontiers[0]
    pts = f.points.to_dict("records")
    for p in pts:
        tpot, tput = figs[p["setup"], p["load"], "tpot", 50], figs[p["setup"], p["load"], "output_tokens_per_s", 0]
        assert p["x"] == pytest.approx(1000 / tpot["value"]) and p["y"] == pytest.approx(tput["value"] / 8)
        assert p["x_low"] == pytest.approx(1000 / tpot["high"]) and p["y_high"] == pytest.approx(tput["high"] / 8)
    xs, ys = np.array([p["x"] for p in pts]), np.array([p["y"] for p in pts])
    dominated = [bool(np.any((xs >= x) & (ys >= y) & ((xs > x) | (ys > y)))) for x, y in zip(xs, ys)]
    assert [p["on_frontier"] for p in pts] == [not d for d in dominated]
    curves = {}
    for sid in s.order:
        mine = sorted((p for p in pts if p["setup"] == sid), key=lambda p: p["x"])
        curves[sid] = mine
    lo = max(c[0]["x"] for c in curves.values())
    hi = min(c[-1]["x"] for c in curves.values())
    for r in f.areas.to_dict("records"):
        c = curves[r["setup"]]
        x = np.array([p["x"] for p in c])
        y = np.array([p["y"] for p in c])
        if lo < hi and np.all(np.diff(x) > 0):
            grid = np.unique(np.concatenate([[lo, hi], x[(x > lo) & (x < hi)]]))
            assert r["area"] == pytest.approx(np.trapezoid(np.interp(grid, x, y), grid), rel=1e-9)
        assert r["own_area"] == pytest.approx(np.trapezoid(y, x), rel=1e-9)
    # Levels: round values from the lowest interactivity measured to the second highest of the curves'
    # highest (where two setups or more reach the level or more).
    lows, highs = [c[0]["x"] for c in curves.values()], sorted(c[-1]["x"] for c in curves.values())
    assert f.levels["level"].tolist() and all(min(lows) <= v <= highs[-2] for v in f.levels["level"])
    for lv in f.levels.to_dict("records"):
        reads = {}
        for sid, c in curves.items():
            # What the setup serves while giving every user the level or more: its curve read at the
            # level (linear between the two loads around it), or any load of its own beyond it.
            x = np.array([p["x"] for p in c])
            y = np.array([p["y"] for p in c])
            found = []
            if x[0] <= lv["level"] <= x[-1]:
                j = min(int(np.searchsorted(x, lv["level"])), len(x) - 1)
                i = max(j - 1, 0)
                w = 0.0 if x[j] == x[i] else (lv["level"] - x[i]) / (x[j] - x[i])
                parts = [(((1 - w) * y[i] * c[i]["se_y"]) ** 2, c[i]["df_y"]), ((w * y[j] * c[j]["se_y"]) ** 2, c[j]["df_y"])]
                found.append(((1 - w) * y[i] + w * y[j], parts))
            for k in np.flatnonzero(x >= lv["level"]):
                found.append((y[k], [((y[k] * c[k]["se_y"]) ** 2, c[k]["df_y"])]))
            if not found:
                continue
            value, parts = max(found, key=lambda t: t[0])
            parts = [(v, f) for v, f in parts if v > 0]
            var = sum(v for v, _ in parts)
            finite = [v * v / f for v, f in parts if math.isfinite(f)]
            reads[sid] = (value, math.sqrt(var) / value, var * var / sum(finite) if finite else math.inf)
        assert sorted(lv["reached"]) == sorted(reads)
        best, runner = sorted(reads, key=lambda k: -reads[k][0])[:2]
        assert (lv["best"], lv["runner_up"]) == (best, runner)
        assert lv["best_y"] == pytest.approx(reads[best][0]) and lv["ratio"] == pytest.approx(reads[best][0] / reads[runner][0])
        (_, sb, fb), (_, sr, fr) = reads[best], reads[runner]
        se = math.hypot(sb, sr)
        finite = [(v ** 2) ** 2 / f for v, f in ((sb, fb), (sr, fr)) if math.isfinite(f)]
        df = se ** 4 / sum(finite) if finite else math.inf
        t = sps.norm.ppf(0.975) if math.isinf(df) else sps.t.ppf(0.975, df)
        assert (lv["low"], lv["high"]) == pytest.approx((lv["ratio"] * math.exp(-t * se), lv["ratio"] * math.exp(t * se)), rel=1e-9)
        assert lv["separated"] == (lv["low"] > 1)


def test_the_real_studys_figures_and_verdicts_are_recomputed():
    doc = json.loads((ROOT / "data/vllm-llm-k8s-study/SUMMARY.json").read_text())
    s = analyse(load_report(ROOT / "data/vllm-llm-k8s-study", ROOT / "data"), band=BAND).of("study")
    figs = expected_figures(doc, s.metrics)
    got = {(r["setup"], r["point"], r["metric"], r["percentile"]): r for r in s.figures.to_dict("records")}
    for k, e in figs.items():
        if k not in got:  # a p99 of too few measured values (a one-token reply has no TPOT) has no interval
            continue
        assert got[k]["value"] == pytest.approx(e["value"], rel=1e-12), k
        if got[k]["low"] == got[k]["low"]:
            assert (got[k]["low"], got[k]["high"]) == pytest.approx((e["low"], e["high"]), rel=1e-9), k
    allow = expected_allowances(figs)
    for r in s.allowances.to_dict("records"):
        assert r["allowance"] == pytest.approx(allow[r["metric"], r["percentile"], r["load_class"]], rel=1e-9)
    want = expected_comparisons(doc, figs, allow, s.metrics)
    got = s.comparisons.to_dict("records")
    assert len(got) == len(want) and s.tests == sum(1 for c in want if c["p"] == c["p"])
    for g, e in zip(got, want):
        key = (e["load"], e["metric"], e["percentile"], e["a"], e["b"])
        assert (g["load"], g["metric"], g["percentile"], g["a"], g["b"]) == key
        assert g["ratio"] == pytest.approx(e["ratio"], rel=1e-12) and g["verdict"] == e["verdict"], key
        if e["p"] == e["p"]:
            assert g["p_adjusted"] == pytest.approx(e["p_adjusted"], rel=1e-6, abs=1e-12), key
