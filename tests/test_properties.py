"""Properties, with hypothesis: verdict counts add up, verdicts are monotonic in the ratio, a range
contains every value it summarises (as numbers and as printed), and the loader, fed arbitrary
JSON, arbitrary bytes or a mangled example receipt, returns a valid report or raises the
project's own error — never anything else. The whole build, fed mangled receipts, likewise.

Runs are derandomized under CI (the same examples every time); locally they explore.
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from site_gen.sections.speed import analysis as speed
from site_gen.sections.tool_calling import analysis as tool_calling
from site_gen.building.builder import build_files
from site_gen.core.config import load_config
from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import fast_validator, validator, load_report, validate_meaning
from site_gen.render import format as fmt
from test_bad_inputs import EXAMPLE, write_config

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

CI = bool(os.environ.get("CI"))


def props(n: int):
    return settings(max_examples=n, deadline=None, derandomize=CI, database=None if CI else settings.default.database,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


RANK = {"slower": 0, "level": 1, "faster": 2}
ratios = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)
bands = st.floats(min_value=0.0, max_value=0.5, allow_nan=False)


@st.composite
def cells(draw, max_size: int = 40):
    n = draw(st.integers(1, max_size))
    rows = []
    for _i in range(n):
        base = draw(st.floats(min_value=1e-3, max_value=1e5, allow_nan=False))
        rows.append({"checkpoint": draw(st.sampled_from(["K3.25", "K4", "K6"])),
                     "metric": draw(st.sampled_from(speed.METRICS)),
                     "workload": draw(st.sampled_from(["chat", "code", "rag"])),
                     "input_tokens": draw(st.sampled_from([1024, 8192, 32768, 65536, 131072, 262144])),
                     "concurrency": draw(st.sampled_from([1, 4, 16])),
                     "baseline_rate": base, "candidate_rate": base * draw(ratios),
                     "baseline_errors": draw(st.integers(0, 3)), "candidate_errors": 0})
    return pd.DataFrame(rows)


# -- analysis -----------------------------------------------------------------------------------

@props(150)
@given(cells(), bands)
def test_verdict_counts_add_up_to_the_cells(frame, band):
    r = speed.cell_ratios(frame, band)
    counts = speed.verdict_counts(r)
    assert (counts["faster"] + counts["level"] + counts["slower"] == counts["cells"]).all()
    assert int(counts["cells"].sum()) == len(frame)
    for _, row in counts.iterrows():
        group = r[(r["checkpoint"] == row["checkpoint"]) & (r["metric"] == row["metric"])]
        assert row["cells"] == len(group)
        for v in speed.VERDICTS:
            assert row[v] == int((group["verdict"] == v).sum())
    assert set(r["verdict"]) <= set(speed.VERDICTS)


@props(300)
@given(ratios, ratios, bands)
def test_verdict_is_monotonic_in_the_ratio(a, b, band):
    low, high = sorted((a, b))
    v = speed.verdict(pd.Series([low, high]), band)
    assert RANK[v.iloc[0]] <= RANK[v.iloc[1]]


@props(300)
@given(ratios, bands)
def test_verdict_agrees_with_the_band(r, band):
    v = speed.verdict(pd.Series([r]), band).iloc[0]
    distance = abs(r - 1.0)
    if distance < band - 1e-9:
        assert v == "level"
    elif distance > band + 1e-9:
        assert v == ("faster" if r > 1 else "slower")


def _printed(text: str) -> list[float]:
    return [float(x.replace(fmt.MINUS, "-")) for x in re.findall(r"[\d.]+", text.replace(fmt.MINUS, "-"))]


@props(150)
@given(cells(), bands)
def test_a_range_contains_every_value_it_summarises(frame, band):
    r = speed.cell_ratios(frame, band)
    selections = (speed.Selection("one_stream_decode", "Decode, one stream", "decode", concurrency=1),
                  speed.Selection("aggregate_long_input", "Aggregate, 32K–128K input", "aggregate",
                                  min_input=32768, max_input=131072))
    ranges = speed.ratio_ranges(r, selections)
    for sel in selections:
        chosen = r[sel.mask(r)]
        for checkpoint, group in chosen.groupby("checkpoint"):
            row = ranges[(ranges["selection"] == sel.key) & (ranges["checkpoint"] == checkpoint)]
            assert len(row) == 1
            low, high = row["low"].iloc[0], row["high"].iloc[0]
            assert row["cells"].iloc[0] == len(group)
            assert (group["ratio"] >= low).all() and (group["ratio"] <= high).all()
            assert low in set(group["ratio"]) and high in set(group["ratio"])
            # As printed: every value's own printing lies within the printed range.
            shown = _printed(fmt.ratio_range(low, high))
            lo_p, hi_p = shown[0], shown[-1]
            for value in group["ratio"]:
                assert lo_p <= _printed(fmt.ratio(value))[0] <= hi_p
        assert ranges[ranges["selection"] == sel.key]["checkpoint"].nunique() == chosen["checkpoint"].nunique()


@props(100)
@given(st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", "r4"]), st.sampled_from(["S1", "S2", "S3"]),
                          st.integers(0, 2), st.floats(0.1, 30, allow_nan=False)), min_size=1, max_size=30,
                unique_by=lambda t: (t[0], t[1])))
def test_tool_calling_ranges_contain_every_run(rows):
    runs = {"r1": ("K4", "baseline"), "r2": ("K4", "candidate"), "r3": ("K4", "candidate"), "r4": ("K6", "candidate")}
    points = pd.DataFrame([{"run": run, "checkpoint": runs[run][0], "engine": runs[run][1], "date": "2026-01-01",
                            "scenario": s, "points": p, "turn_latency_s": t} for run, s, p, t in rows])
    totals = tool_calling.run_totals(points.to_dict("list"))
    ranges = tool_calling.ranges(totals)
    for _, r in ranges.iterrows():
        mine = totals[(totals["checkpoint"] == r["checkpoint"]) & (totals["engine"] == r["engine"])]
        assert r["runs"] == len(mine)
        assert (mine["points"] >= r["low"]).all() and (mine["points"] <= r["high"]).all()
    lat = tool_calling.latency_ranges(totals)
    for _, r in lat.iterrows():
        mine = totals[totals["engine"] == r["engine"]]["latency"]
        assert (mine >= r["low"]).all() and (mine <= r["high"]).all()


# -- the loader ---------------------------------------------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-2**60, 2**60)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
# Any code point, lone surrogates and control characters included (written as \u escapes).
odd_strings = st.text(alphabet=st.characters(exclude_categories=()), max_size=20)
odd_numbers = st.sampled_from([0, -1, 0.0, -0.0, 1e-320, 1e300, 2**53, 2**53 + 1, 0.5, True, False, None, "1", ""])

RECORDS = 6  # a few records of each list: they share a shape


def _first_records(node):
    """The receipt with each list cut to its first RECORDS records: still a valid receipt, with every
    place the mangler edits, at a fifteenth of the size (the full schema check is ~0.2 s on the whole)."""
    if isinstance(node, dict):
        return {k: _first_records(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_first_records(v) for v in node[:RECORDS]]
    return node


EXAMPLE_DOC = _first_records(json.loads((EXAMPLE / "SUMMARY.json").read_text(encoding="utf-8")))
EXAMPLE_LEDE = (EXAMPLE / "lede.md").read_bytes()


def _all_paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _all_paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _all_paths(v, prefix + (i,))


PATHS = [p for p in _all_paths(EXAMPLE_DOC) if p]


@st.composite
def mangled_receipts(draw):
    """The example receipt with one to three edits: values replaced by arbitrary JSON or awkward
    numbers and strings, keys removed, records duplicated, unknown fields added."""
    doc = copy.deepcopy(EXAMPLE_DOC)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        parent = doc
        try:
            for part in path[:-1]:
                parent = parent[part]
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        key = path[-1]
        op = draw(st.sampled_from(["value", "number", "string", "remove", "duplicate", "unknown"]))
        if op == "value":
            parent[key] = draw(json_values)
        elif op == "number":
            parent[key] = draw(odd_numbers)
        elif op == "string":
            parent[key] = draw(odd_strings)
        elif op == "remove":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif op == "unknown" and isinstance(parent[key], dict):
            parent[key][draw(st.text(min_size=1, max_size=8))] = draw(json_scalars)
    return doc


def _load(raw: bytes, strict: bool = False, lede: bytes = EXAMPLE_LEDE):
    """Writes a receipt and loads it: returns the report, or the SitegenError it raised."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        folder = data / "r"
        folder.mkdir(parents=True)
        (folder / "SUMMARY.json").write_bytes(raw)
        (folder / "lede.md").write_bytes(lede)
        try:
            report = load_report(folder, data)
            if strict:  # as a strict front end decides it: a warning is then the error
                refuse(report.warnings)
            return report
        except SitegenError as exc:
            assert str(exc).startswith(str(folder)), str(exc)
            return exc


def assert_valid(report) -> None:
    """A report the loader returns passes the schema (unknown fields removed) and every meaning check."""
    assert list(validator().iter_errors(report.data)) == []
    validate_meaning(report.data, report.file)


def _encode(value) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode("ascii")


@props(200)
@given(json_values)
def test_loader_on_arbitrary_json(value):
    result = _load(_encode(value))
    if not isinstance(result, SitegenError):
        assert_valid(result)


@props(200)
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_loader_on_arbitrary_bytes(raw):
    result = _load(raw)
    assert isinstance(result, SitegenError)  # nothing this short is a whole receipt


def test_the_receipt_the_mangler_starts_from_is_accepted():
    """Else every mangled receipt would be refused and the properties below would hold trivially."""
    for strict in (False, True):
        result = _load(_encode(EXAMPLE_DOC), strict=strict)
        assert not isinstance(result, SitegenError), result
        assert_valid(result)


@props(150)
@given(mangled_receipts(), st.booleans())
def test_loader_on_mangled_receipts(doc, strict):
    result = _load(_encode(doc), strict=strict)
    event("refused" if isinstance(result, SitegenError) else "accepted")
    if not isinstance(result, SitegenError):
        assert_valid(result)


@props(100)
@given(mangled_receipts())
def test_fast_schema_check_never_accepts_what_the_full_one_refuses(doc):
    try:
        fast_validator()(doc)
    except Exception:
        return
    assert list(validator().iter_errors(doc)) == []


@pytest.fixture(scope="module")
def pipeline_project():
    root = Path(tempfile.mkdtemp(prefix="sitegen-props-"))
    write_config(root)
    (root / "data").mkdir()
    yield root
    shutil.rmtree(root, ignore_errors=True)


@props(30)
@given(doc=mangled_receipts())
def test_whole_build_on_mangled_receipts(pipeline_project, doc):
    """Load, analyse and render: a page for every receipt the loader accepts, or one SitegenError."""
    folder = pipeline_project / "data" / "r"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "SUMMARY.json").write_bytes(_encode(doc))
    (folder / "lede.md").write_bytes(EXAMPLE_LEDE)
    config = load_config(pipeline_project / "mkdocs.yml")
    try:
        result = build_files(config)
    except SitegenError:
        event("refused")
        return
    event("built")
    assert "reports/r/index.html" in result.files
    for name, data in result.files.items():
        if name.endswith(".html"):
            text = data.decode("utf-8")  # every page is valid UTF-8
            assert not re.search(r'class="num">[^<]*\b(nan|inf)\b', text, re.I), f"{name} prints a non-number"
