"""The analysis layer on small hand-made frames: band edges, counts, ranges, orientation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from site_gen.sections.long_outputs import analysis as long_outputs
from site_gen.sections.memory import analysis as memory
from site_gen.sections.precision import analysis as precision
from site_gen.sections.speed import analysis as speed
from site_gen.sections.tool_calling import analysis as tool_calling
from site_gen.sections.versions import analysis as versions


def cells(ratios, checkpoint="K4", metric="aggregate", **extra):
    rows = []
    for i, r in enumerate(ratios):
        rows.append({"checkpoint": checkpoint, "metric": metric, "workload": extra.get("workload", "chat"),
                     "input_tokens": extra.get("input_tokens", 1024), "concurrency": extra.get("concurrency", i + 1),
                     "baseline_rate": 100.0, "candidate_rate": 100.0 * r, "baseline_errors": 0, "candidate_errors": 0})
    return pd.DataFrame(rows)


# The band's edge values themselves: tests/test_told_truly.py (test_a_ratio_prints_the_digits_its_verdict_needs).


def test_band_edge_from_rates_not_pre_divided():
    # 108 / 100 is 1.08 after division too: still level.
    out = speed.cell_ratios(pd.DataFrame([{"checkpoint": "K", "metric": "decode", "workload": "w", "input_tokens": 1,
                                           "concurrency": 1, "baseline_rate": 100.0, "candidate_rate": 108.0,
                                           "baseline_errors": 0, "candidate_errors": 0}]), 0.08)
    assert out["verdict"].iloc[0] == "level"


def test_verdict_counts_per_checkpoint_and_metric():
    frame = pd.concat([cells([1.2, 1.0, 0.5]), cells([1.1, 1.3], checkpoint="K3", metric="decode")])
    counts = speed.verdict_counts(speed.cell_ratios(frame, 0.08)).set_index(["checkpoint", "metric"])
    assert counts.loc[("K4", "aggregate"), ["faster", "level", "slower", "cells"]].tolist() == [1, 1, 1, 3]
    assert counts.loc[("K3", "decode"), ["faster", "level", "slower", "cells"]].tolist() == [2, 0, 0, 2]


def test_ranges_cover_only_the_selection():
    one = cells([1.06, 1.46], metric="decode", concurrency=1)
    one["concurrency"] = 1
    one["workload"] = ["a", "b"]
    many = cells([3.0], metric="decode", concurrency=8)
    many["concurrency"] = 8
    long = cells([1.4, 1.63, 9.0], input_tokens=32768)
    long["input_tokens"] = [32768, 131072, 262144]
    selections = (speed.Selection("one_stream_decode", "Decode, one stream", "decode", concurrency=1),
                  speed.Selection("aggregate_long_input", "Aggregate, 32K–128K input", "aggregate",
                                  min_input=32768, max_input=131072))
    r = speed.ratio_ranges(speed.cell_ratios(pd.concat([one, many, long]), 0.08), selections).set_index("selection")
    assert (r.loc["one_stream_decode", "low"], r.loc["one_stream_decode", "high"]) == pytest.approx((1.06, 1.46))
    assert r.loc["one_stream_decode", "cells"] == 2
    assert (r.loc["aggregate_long_input", "low"], r.loc["aggregate_long_input", "high"]) == pytest.approx((1.4, 1.63))


MEASURES = pd.DataFrame([
    {"id": "kl", "label": "KL", "panel": "P-A", "vocabulary": "full", "unit": "nats", "further": "higher"},
    {"id": "top1", "label": "Top-1", "panel": "P-A", "vocabulary": "full", "unit": "percent", "further": "lower"},
])


def results(rows):
    return pd.DataFrame([{"checkpoint": c, "measure": m, "baseline_value": b, "candidate_value": v, "difference": d,
                          "interval": iv, "baseline_date": "2026-01-01", "candidate_date": "2026-01-02", "source": "$"}
                         for c, m, b, v, d, iv in rows])


def test_precision_keeps_measured_difference_not_difference_of_means():
    t = precision.differences(results([("K", "kl", 0.0444, 0.0477, 0.0036, [0.0020, 0.0051])]), MEASURES)
    assert t["difference"].iloc[0] == 0.0036  # 0.0477 - 0.0444 would be 0.0033


def test_precision_resolved_when_interval_excludes_zero():
    t = precision.differences(results([
        ("K", "kl", 1, 1, 0.1, [0.01, 0.2]),
        ("K2", "kl", 1, 1, 0.1, [-0.01, 0.2]),
        ("K3", "kl", 1, 1, -0.1, [-0.2, -0.05]),
        ("K4", "kl", 1, 1, 0.0, [0.0, 0.1]),
    ]), MEASURES)
    assert t["resolved"].tolist() == [True, False, True, False]


def test_precision_orientation_points_further_the_same_way():
    t = precision.differences(results([
        ("K", "kl", 0.04, 0.05, 0.01, [0.005, 0.015]),
        ("K", "top1", 93.5, 93.15, -0.35, [-0.54, -0.16]),
    ]), MEASURES).set_index("measure")
    assert t.loc["kl", "oriented"] > 0 and t.loc["top1", "oriented"] > 0
    assert (t.loc["top1", "oriented_low"], t.loc["top1", "oriented_high"]) == pytest.approx((0.16, 0.54))
    s = precision.summary(t.reset_index())
    assert s["further"] == 2 and s["closer"] == 0 and s["resolved"] == 2


def test_precision_without_baseline_is_unpaired_not_nan_verdict():
    t = precision.differences(results([("K6", "kl", None, 0.03, None, None)]), MEASURES)
    assert not t["paired"].iloc[0] and not t["resolved"].iloc[0]
    assert precision.summary(t)["pairs"] == 0


def test_kv_pool_ratio_and_reference():
    kv = pd.DataFrame([{"checkpoint": "K4", "engine": "baseline", "tokens": 1377179},
                       {"checkpoint": "K4", "engine": "candidate", "tokens": 1931264}])
    wide = memory.kv_pool(kv)
    assert wide["ratio"].iloc[0] == pytest.approx(1931264 / 1377179)
    refs = memory.references(pd.DataFrame([{"checkpoint": "K4", "name": "X", "version": "3", "kv_pool_tokens": 447488}]), kv)
    assert refs["ratio"].iloc[0] == pytest.approx(1931264 / 447488)


def reply(arm, cap, cat, i, finished, tokens, thinking, still=False, **kw):
    return {"arm": arm, "cap": cap, "category": cat, "prompt": f"{cat}-{i}", "finished": finished,
            "reply_tokens": tokens, "thinking_tokens": thinking, "still_thinking": still, "looped": kw.get("looped", False),
            "tests_passed": kw.get("tests_passed"), "json_valid": kw.get("json_valid")}


def test_long_outputs_counts_and_medians_by_grouping():
    rows = [reply("a", 100, "code", i, True, t, t - 10, tests_passed=i != 0) for i, t in enumerate([10, 40, 20, 30])]
    rows += [reply("a", 100, "json", 0, False, 100, 100, still=True, json_valid=False),
             reply("a", 50, "json", 0, False, 50, 40, still=False, json_valid=False),
             reply("b", 50, "json", 0, True, 20, 10, json_valid=True, looped=True)]
    arms = pd.DataFrame([{"id": a, "label": a.upper(), "checkpoint": "K", "engine": "candidate", "run": "r1", "date": "2026-01-01"}
                         for a in ("a", "b")])
    t = long_outputs.per_arm(long_outputs.reply_columns(rows), arms).set_index(["arm", "cap"])
    assert t.loc[("a", 100), "finished"] == 4
    assert t.loc[("a", 100), "code_tests_passed"] == 3
    assert t.loc[("a", 100), "code_reply_median"] == 25
    assert t.loc[("a", 100), "code_thinking_median"] == 15
    assert t.loc[("b", 50), "looped"] == 1
    assert long_outputs.complete_arms(t.reset_index(), [50, 100]) == ["a"]
    thinking = long_outputs.thinking_at_cap(t.reset_index()).set_index("cap")
    assert thinking.loc[100, "capped"] == 1 and thinking.loc[100, "still_thinking"] == 1
    assert thinking.loc[50, "capped"] == 1 and thinking.loc[50, "still_thinking"] == 0


def test_tool_calling_totals_ranges_and_failed_everywhere():
    rows = []
    for run, engine, pts in (("r1", "baseline", [2, 0, 1]), ("r2", "baseline", [2, 0, 2]), ("r3", "candidate", [1, 0, 2])):
        for s, p in zip(("S1", "S2", "S3"), pts):
            rows.append({"run": run, "checkpoint": "K", "engine": engine, "date": "d", "scenario": s, "points": p,
                         "turn_latency_s": {"r1": 5.0, "r2": 5.5, "r3": 3.0}[run]})
    totals = tool_calling.run_totals(pd.DataFrame(rows).to_dict("list"))
    assert totals["points"].tolist() == [3, 4, 3]
    r = tool_calling.ranges(totals).set_index("engine")
    assert (r.loc["baseline", "low"], r.loc["baseline", "high"]) == (3, 4)
    assert tool_calling.failed_everywhere(pd.DataFrame(rows).to_dict("list")) == ["S2"]
    lat = tool_calling.latency_ranges(totals).set_index("engine")
    assert (lat.loc["baseline", "low"], lat.loc["baseline", "high"]) == (5.0, 5.5)


def test_versions_identical_and_resolution():
    v = versions.precision(pd.DataFrame([
        {"panel": "P-A", "checkpoint": "K", "max_abs_difference": 0.0, "interval": [0.0, 0.0]},
        {"panel": "P-B", "checkpoint": "K", "max_abs_difference": 5e-5, "interval": [-4e-5, 5e-5]},
    ])).set_index("panel")
    assert v.loc["P-A", "identical"] and not v.loc["P-B", "identical"]
    assert not v.loc["P-B", "resolved"]
    t = versions.text(pd.DataFrame([{"category": "code", "identical": 25, "total": 25},
                                    {"category": "json", "identical": 0, "total": 25}]))
    assert t.iloc[0]["categories"] == ["code"] and t.iloc[1]["total"] == 25


def test_direction_and_largest_gap():
    assert precision.direction({"pairs": 3, "further": 3, "closer": 0}) == "further"
    assert precision.direction({"pairs": 3, "further": 0, "closer": 3}) == "closer"
    assert precision.direction({"pairs": 3, "further": 2, "closer": 1}) == "mixed"
    assert precision.direction({"pairs": 0, "further": 0, "closer": 0}) == "mixed"
    t = precision.differences(results([
        ("A", "kl", 0.040, 0.041, 0.001, [0.0005, 0.0015]),
        ("B", "kl", 0.020, 0.024, 0.004, [0.002, 0.006]),
        ("A", "top1", 93.0, 92.0, -1.0, [-1.5, -0.5]),
        ("B", "top1", 95.0, 94.5, -0.5, [-0.8, -0.2]),
    ]), MEASURES)
    gaps = precision.checkpoint_gaps(t)
    top = precision.largest_gap(gaps)
    # kl: largest engine gap 0.004 over checkpoint gap 0.017; top1: 1.0 over 2.5 -> top1 wins.
    assert top["measure"] == "top1" and top["share"] == pytest.approx(0.4)
    assert precision.largest_gap(gaps.iloc[0:0]) is None


def test_tool_calling_scale():
    points = {"scenario": ["S1", "S2", "S1", "S2", "S3"], "points": [2, 1, 0, 2, 2]}
    assert tool_calling.scale(points, 2) == {"scenarios": 3, "max_total": 6}


def test_figures_name_the_selection_they_found_no_rows_for():
    import dataclasses

    from conftest import ROOT
    from site_gen.analysis.figures import FigureError, resolve
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_report

    a = analyse(load_report(ROOT / "data" / "cuteafd-v4.0.0", ROOT / "data"))
    checkpoint = a.checkpoints[0]
    for name, args, message in [
        ("speed_count", {"checkpoint": "nowhere"}, "no speed cells for checkpoint=nowhere metric=None"),
        ("speed_range", {"checkpoint": "nowhere"}, "no range for checkpoint=nowhere selection=one_stream_decode"),
        ("kv_ratio", {"checkpoint": "nowhere"}, "no KV pool sizes for checkpoint nowhere"),
        ("startup_max", {"engine": "nobody"}, "no startup times for engine nobody"),
        ("versions_identical", {"panel": "nowhere"}, "no version comparison on panel nowhere"),
    ]:
        with pytest.raises(FigureError, match=f"^{message}$"):
            resolve(a, name, args)
    counts, startup = a.of("speed").counts, a.of("memory").startup
    assert resolve(a, "speed_count", {"checkpoint": checkpoint}).value == int(
        counts[counts["checkpoint"] == checkpoint]["cells"].sum())
    assert resolve(a, "startup_max", {}).value == startup[startup["engine"] == "candidate"]["slowest"].max()
    a.results["precision"] = dataclasses.replace(a.of("precision"), summary={})
    with pytest.raises(FigureError, match="^the report has no precision results$"):
        resolve(a, "precision_closer", {})


def test_records_of_an_empty_list_keep_the_named_columns():
    """An empty section's frame: no rows, the columns its analysis reads (object, as pandas makes
    an empty Series), so later column reads and concatenations work as on a filled one."""
    from site_gen.analysis.frames import records

    empty = records([], "$.memory.kv_pool", ["checkpoint", "tokens"])
    assert empty.columns.tolist() == ["checkpoint", "tokens"] and len(empty) == 0
    assert [str(t) for t in empty.dtypes] == ["object", "object"] and isinstance(empty.index, pd.RangeIndex)
    filled = records([{"checkpoint": "K", "tokens": 3}], "$.memory.kv_pool", ["checkpoint", "tokens"])
    both = pd.concat([empty, filled], ignore_index=True)
    assert both["tokens"].tolist() == [3] and both["source"].tolist() == ["$.memory.kv_pool[0]"]
    assert records([], "$.x").shape == (0, 0)


# Column values of every kind a receipt's JSON gives (and numpy's own), each alone and mixed in one column.
_ELEMENTS = [st.integers(-5, 5), st.integers(min_value=2**63, max_value=2**64), st.floats(allow_nan=True, allow_infinity=True),
             st.booleans(), st.none(), st.text(max_size=3), st.just("2024-01-01"), st.just(float("nan")),
             st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=1), st.integers(0, 3), max_size=1)]


@st.composite
def _column(draw, n):
    kind = draw(st.sampled_from(["one", "mixed", "array"]))
    if kind == "array":
        dtype = draw(st.sampled_from([np.int64, np.float64, bool, object]))
        return np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=dtype)
    elements = draw(st.sampled_from(_ELEMENTS)) if kind == "one" else st.one_of(_ELEMENTS)
    return draw(st.lists(elements, min_size=n, max_size=n))


@st.composite
def _columns(draw):
    n = draw(st.integers(0, 5))
    names = draw(st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=6, unique=True))
    return {name: draw(_column(n)) for name in names}


@given(_columns())
@settings(max_examples=100, deadline=None)
def test_a_frame_of_columns_is_the_frame_pandas_makes(data):
    """frames.of_columns takes its own path to pd.DataFrame(data): the same dtypes, values, index and
    column index."""
    from site_gen.analysis.frames import frame, of_columns
    expected = pd.DataFrame(data)
    for got in (of_columns(data), frame(dict(data)), frame(dict(data), columns=list(data)[::-1])[list(data)]):
        pd.testing.assert_frame_equal(got, expected, check_exact=True, check_column_type=True, check_index_type=True)
        assert got.columns.dtype == expected.columns.dtype and type(got.index) is type(expected.index)


def test_a_frame_of_columns_owns_its_data():
    """A write to the frame leaves the arrays and lists it was made of as they were, as pandas' own."""
    from site_gen.analysis.frames import of_columns
    data = {"i": np.arange(3), "f": np.array([0.5, 1.5, 2.5]), "o": np.array(["a", None, "c"], dtype=object), "t": ["x", "y", "z"]}
    got = of_columns(data)
    got.iloc[0] = [9, 9.5, "q", "q"]
    assert data["i"].tolist() == [0, 1, 2] and data["f"].tolist() == [0.5, 1.5, 2.5]
    assert data["o"].tolist() == ["a", None, "c"] and data["t"] == ["x", "y", "z"]
    assert got.iloc[0].tolist() == [9, 9.5, "q", "q"]


@pytest.mark.parametrize("columns", [["a"], ["checkpoint", "engine", "cold_s"], []])
def test_an_empty_frame_is_the_one_pandas_makes_and_each_is_its_own(columns):
    from site_gen.analysis.frames import empty, from_rows
    for got in (empty(columns), from_rows([], columns)):
        pd.testing.assert_frame_equal(got, pd.DataFrame(columns=columns), check_column_type=True, check_index_type=True)
    first = empty(columns)
    first["added"] = []
    first.attrs["x"] = 1
    assert empty(columns).columns.tolist() == columns and not empty(columns).attrs
    pd.testing.assert_frame_equal(from_rows([{"a": 1}], ["a"]), pd.DataFrame([{"a": 1}], columns=["a"]))


def test_a_frame_pandas_refuses_is_refused_alike():
    from site_gen.analysis.frames import of_columns
    with pytest.raises(ValueError) as ours:
        of_columns({"a": [1, 2], "b": [1]})
    with pytest.raises(ValueError) as theirs:
        pd.DataFrame({"a": [1, 2], "b": [1]})
    assert str(ours.value) == str(theirs.value)


@pytest.fixture(scope="module")
def example_analyses():
    from conftest import ROOT
    from site_gen.analysis.report import analyse
    from site_gen.receipts.load import load_reports

    return [analyse(r) for r in load_reports(ROOT / "data")]


def test_a_record_is_the_same_after_a_trip_through_json(example_analyses):
    """What a forked build's workers send back and the store keeps of a report: its record, as data;
    read back from JSON it equals the record made from the analysis, field for field."""
    import dataclasses

    from site_gen.building.environment import ReportRecord, collect, dumps, loads

    for a in example_analyses:
        record = collect(a)
        back = loads(dumps(record))
        assert isinstance(back, ReportRecord)
        for f in dataclasses.fields(ReportRecord):
            assert repr(getattr(back, f.name)) == repr(getattr(record, f.name)), f.name
        assert [str(w) for w in back.warnings] == [str(w) for w in a.report.warnings]
        assert back.dashboard.keys() == record.dashboard.keys() and back.history.keys() == record.history.keys()
    assert loads(b"not json") is None and loads(b'{"id": 1}') is None


def _same(got, want, where: str) -> None:
    import dataclasses

    if dataclasses.is_dataclass(want) and not isinstance(want, type):
        assert type(got) is type(want), where
        for f in dataclasses.fields(want):
            _same(getattr(got, f.name), getattr(want, f.name), f"{where}.{f.name}")
    elif isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    elif isinstance(want, np.ndarray):  # a section's samples (the serving distributions)
        np.testing.assert_array_equal(got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want), where
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want or (got != got and want != want), where
