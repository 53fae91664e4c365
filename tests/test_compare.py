"""`sitegen compare OLD NEW` (issue 31): a release against the previous one, figure by figure, better,
worse or unchanged within noise by the reports' own rules; exit 1 only for what `--fail-on` names;
incomparable setups refused naming the difference. Figures are checked against numpy by hand."""
from __future__ import annotations

import copy
import glob
import json
import math
import os
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from conftest import ROOT, import_here, sitegen_here
from site_gen.building.starter import receipt as starter_receipt

SCHEMA = json.loads((ROOT / "site_gen" / "schema" / "compare-output-1.schema.json").read_text(encoding="utf-8"))
REAL2 = Path(os.environ.get("SITEGEN_REAL2_DIR", ROOT.parent / "shared" / "real2"))
VLLM = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct"
BAND = 0.08


def project(root: Path, reports: dict[str, dict]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text("site_name: Compare\nplugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    for name, doc in reports.items():
        (root / "data" / name).mkdir(parents=True)
        (root / "data" / name / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


def release(version: str, date: str, *, slower_cell: int | None = None, factor: float = 0.7) -> dict:
    """The starter receipt as one release of NewEngine; with `slower_cell`, that cell's candidate rate times `factor`."""
    doc = starter_receipt()
    doc["report"]["engines"]["candidate"]["version"] = version
    doc["report"]["date"] = date
    doc["report"]["title"] = f"NewEngine v{version} against OldEngine v2.3"
    if slower_cell is not None:
        cell = doc["speed"]["cells"][slower_cell]
        cell["candidate"]["rate"] = round(cell["candidate"]["rate"] * factor, 4)
    return doc


def compare(root: Path, *args: str) -> tuple[int, str, str]:
    r = sitegen_here("compare", *args, cwd=root)
    return r.returncode, r.stdout, r.stderr


def as_json(root: Path, *args: str) -> tuple[int, dict]:
    code, out, err = compare(root, *args, "--format", "json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return code, doc


# -- a release 30% slower in one cell, and a release against itself ------------------------------

def test_one_cell_30_percent_slower_than_its_previous_release_fails_naming_that_cell(tmp_path):
    old, new = release("1.0", "2026-01-15"), release("1.1", "2026-02-01", slower_cell=3)
    root = project(tmp_path, {"v1.0": old, "v1.1": new})
    code, out, err = compare(root, "v1.0", "v1.1")
    assert code == 1 and err == ""
    cell = old["speed"]["cells"][3]  # chat, 1,024 input, 16 streams, clean decode
    assert (cell["workload"], cell["input_tokens"], cell["concurrency"], cell["metric"]) == ("chat", 1024, 16, "decode")
    lines = out.splitlines()
    assert lines[0].startswith("Worse beyond noise: 1 of ") and "fails (--fail-on worse: 1)" in lines[0]
    worse = lines[lines.index("Worse (1)") + 1]
    assert "Q4 · chat · 1K input · 16 streams · clean decode" in worse and "0.70x" in worse

    code, doc = as_json(root, "v1.0", "v1.1")
    assert code == 1 and doc["failed"] is True
    worse = [c for c in doc["changes"] if c["outcome"] == "worse"]
    assert len(worse) == 1
    w = worse[0]
    assert w["where"] == {"checkpoint": "Q4", "workload": "chat", "input_tokens": 1024, "concurrency": 16, "metric": "decode"}
    assert w["old"] == cell["candidate"]["rate"] and w["new"] == new["speed"]["cells"][3]["candidate"]["rate"]
    assert w["change"]["value"] == pytest.approx(new["speed"]["cells"][3]["candidate"]["rate"] / cell["candidate"]["rate"], rel=1e-12)
    assert w["change"]["low"] is None and w["source"]["new"] == "$.speed.cells[3].candidate.rate"
    # Every other cell is its own rate again: ratio 1, level; each cell once.
    cells = [c for c in doc["changes"] if c["kind"] == "cell"]
    assert len(cells) == len(old["speed"]["cells"])
    assert all(c["change"]["value"] == 1.0 and c["verdict"] == "level" for c in cells if c is not w)
    assert doc["counts"]["worse"] == 1 and doc["counts"]["compared"] == len(doc["changes"])
    # Only speed got worse: --fail-on slower fails too, never does not.
    assert compare(root, "v1.0", "v1.1", "--fail-on", "slower")[0] == 1
    assert compare(root, "v1.0", "v1.1", "--fail-on", "never")[0] == 0


def test_a_report_against_itself_is_refused(tmp_path):
    """One report as OLD and NEW (by id, by folder, or a copy of its bytes) compares nothing: refused,
    exit 1, one error line, whatever --fail-on says (a CI job that picked one report twice must fail)."""
    doc = release("1.0", "2026-01-15")
    root = project(tmp_path, {"v1.0": doc, "copy": doc})
    for old, new in (("v1.0", "v1.0"), ("v1.0", "data/v1.0"), ("v1.0", "copy")):
        for fail_on in ("worse", "never"):
            code, out, err = compare(root, old, new, "--fail-on", fail_on)
            lines = err.strip().splitlines()
            assert code == 1 and out == "" and len(lines) == 1 and lines[0].startswith("Error: "), (old, new, err)
            assert "a report against itself" in err
            assert ("the same report" if new != "copy" else "the same receipt bytes") in err


def test_a_release_of_the_same_figures_passes(tmp_path):
    root = project(tmp_path, {"v1.0": release("1.0", "2026-01-15"), "v1.0.1": release("1.0.1", "2026-01-16")})
    code, out, _ = compare(root, "v1.0", "v1.0.1")
    assert code == 0 and out.startswith("No change beyond noise: ")
    code, doc = as_json(root, "v1.0", "v1.0.1", "--fail-on", "any")
    assert code == 0 and doc["counts"]["worse"] == doc["counts"]["better"] == 0
    # Every figure of the receipt is compared: 8 cells, 1 time to first token, 2 gaps, KV pool, cold and warm startup.
    assert doc["counts"]["compared"] == 8 + 1 + 2 + 1 + 2
    assert all(c["change"]["value"] in (1.0, 0.0) for c in doc["changes"])


def test_compare_takes_the_words_of_history(tmp_path):
    """--fail-on new-regression (history's default word): in a pair every regression is new, so it
    fails exactly where worse fails."""
    root = project(tmp_path, {"v1.0": release("1.0", "2026-01-15"),
                              "v1.1": release("1.1", "2026-02-01", slower_cell=3),
                              "v1.2": release("1.2", "2026-02-02", slower_cell=3, factor=1.3)})
    for old, new, fails in (("v1.0", "v1.1", 1), ("v1.0", "v1.2", 0)):
        code, doc = as_json(root, old, new, "--fail-on", "new-regression")
        assert code == fails and doc["failed"] is bool(fails)
        assert code == compare(root, old, new, "--fail-on", "worse")[0]


def test_a_default_label_is_said_as_a_label_not_as_the_engine(tmp_path, capsys):
    """Two imports of one engine whose sides are named by their folders: what differs is the label
    the pages give the candidate, never "engine" (both ran vLLM)."""
    from site_gen.cli import main as sitegen

    root = project(tmp_path, {})
    (root / "data").mkdir()
    config = str(root / "mkdocs.yml")
    for n, folder in ((1, "03_tp4_pp2_IB"), (2, "04_tp4_pp2_IB")):
        files = sorted(str(p) for p in (VLLM / folder).glob("*qps_04.json"))
        assert sitegen(["import", "vllm-bench", "--candidate", *files, "-f", config, "-o", str(root / "data" / f"r{n}"), "-q"]) == 0
    capsys.readouterr()
    sitegen(["compare", "r1", "r2", "--allow", "hardware", "--fail-on", "never", "-f", config])
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("What differs: ")]
    assert "What differs: candidate label: 03_tp4_pp2_IB \u2192 04_tp4_pp2_IB" in lines, lines
    assert not any(line.startswith("What differs: engine: ") for line in lines), lines


def test_the_band_edge_is_level_as_the_report_counts_it(tmp_path):
    """A cell exactly 8% slower is level (edges included); a hair more is worse."""
    old = release("1.0", "2026-01-15")
    edge, past = release("1.1", "2026-02-01"), release("1.2", "2026-03-01")
    rate = old["speed"]["cells"][0]["candidate"]["rate"]  # 66.0
    edge["speed"]["cells"][0]["candidate"]["rate"] = rate * 0.92
    past["speed"]["cells"][0]["candidate"]["rate"] = rate * 0.9199
    root = project(tmp_path, {"a": old, "b": edge, "c": past})
    assert abs(rate * 0.92 / rate - 1) <= BAND + 1e-12
    assert compare(root, "a", "b")[0] == 0
    code, out, _ = compare(root, "a", "c")
    worse = out.splitlines()[out.splitlines().index("Worse (1)") + 1]
    assert code == 1 and "0.9199x" in worse  # printed with the digits its verdict needs: "0.92x" would read as level


# -- precision gaps: the difference rule, and --fail-on ------------------------------------------

def test_a_gap_further_from_the_reference_is_worse_by_its_interval(tmp_path):
    old, new = release("1.0", "2026-01-15"), release("1.1", "2026-02-01")
    gap = new["precision"]["results"][0]  # KL, higher is further
    gap["candidate"]["value"], gap["difference"], gap["interval"] = 0.0342, 0.0030, [0.0022, 0.0038]
    root = project(tmp_path, {"a": old, "b": new})
    code, doc = as_json(root, "a", "b")
    kl = next(c for c in doc["changes"] if c["kind"] == "gap" and c["measure"] == "kl_full")
    # By hand: new - old, each end the root of the summed squared half-widths on its side.
    o, n = old["precision"]["results"][0], gap
    d = n["difference"] - o["difference"]
    low = d - math.hypot(n["difference"] - n["interval"][0], o["interval"][1] - o["difference"])
    high = d + math.hypot(n["interval"][1] - n["difference"], o["difference"] - o["interval"][0])
    assert kl["change"]["value"] == pytest.approx(d, abs=1e-15)
    assert (kl["change"]["low"], kl["change"]["high"]) == (pytest.approx(low, abs=1e-15), pytest.approx(high, abs=1e-15))
    assert low > 0 and kl["verdict"] == "worse" and kl["better"] == "lower" and kl["speed"] is False
    assert code == 1
    assert compare(root, "a", "b", "--fail-on", "slower")[0] == 0  # no speed figure got worse
    # The other gap did not move: its interval holds 0.
    top1 = next(c for c in doc["changes"] if c["kind"] == "gap" and c["measure"] == "top1")
    assert top1["verdict"] == "not resolved" and top1["outcome"] == "unchanged"


def test_fail_on_any_fails_on_a_change_for_the_better(tmp_path):
    old, new = release("1.0", "2026-01-15"), release("1.1", "2026-02-01")
    new["memory"]["kv_pool"][1]["tokens"] = 1_500_000  # the candidate's, from 1,250,000: 1.2x
    root = project(tmp_path, {"a": old, "b": new})
    code, doc = as_json(root, "a", "b")
    assert code == 0 and doc["counts"]["better"] == 1
    kv = next(c for c in doc["changes"] if c["kind"] == "kv")
    assert kv["change"]["value"] == pytest.approx(1_500_000 / 1_250_000) and kv["verdict"] == "better"
    assert compare(root, "a", "b", "--fail-on", "any")[0] == 1


# -- refused: not comparable, bad input ---------------------------------------------------------

def test_other_hardware_is_refused_naming_both(tmp_path):
    old, new = release("1.0", "2026-01-15"), release("1.1", "2026-02-01")
    new["report"]["hardware"] = "two GPUs"
    root = project(tmp_path, {"a": old, "b": new})
    code, out, err = compare(root, "a", "b")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("Error: ")
    assert "data/b/SUMMARY.json: $.report.hardware: not comparable with a: hardware differs: 'one GPU' in a, 'two GPUs' in b" in err
    assert "--allow hardware" in err
    code, doc = as_json(root, "a", "b", "--allow", "hardware")
    assert code == 0 and doc["differs"] == [{"field": "hardware", "old": "one GPU", "new": "two GPUs",
                                            "where": "$.report.hardware", "allowed": True}]


def test_other_model_is_refused_naming_both(tmp_path):
    old = release("1.0", "2026-01-15")
    new = json.loads(json.dumps(release("1.1", "2026-02-01")).replace('"Q4"', '"Q8"'))  # every figure of another checkpoint
    root = project(tmp_path, {"a": old, "b": new})
    code, _, err = compare(root, "a", "b")
    assert code == 1 and "$.report.checkpoints: not comparable with a: model differs: 'Q4' in a, 'Q8' in b" in err
    code, doc = as_json(root, "a", "b", "--allow", "model")
    assert code == 0 and doc["counts"]["compared"] == 0 and len(doc["not_compared"]) == 2 * 14


def test_unknown_report_and_bad_receipt_are_clear_errors(tmp_path):
    old = release("1.0", "2026-01-15")
    bad = release("1.1", "2026-02-01")
    bad["speed"]["cells"][2]["candidate"]["rate"] = 0
    root = project(tmp_path, {"a": old, "b": bad})
    code, out, err = compare(root, "a", "nope")
    assert code == 1 and out == "" and err.startswith("Error: ") and "no report 'nope'" in err and "(a, b)" in err
    code, _, err = compare(root, "a", "b")
    assert code == 1 and "$.speed.cells[2].candidate.rate: rate must be above zero, got 0" in err
    assert "Traceback" not in err


def test_a_folder_outside_the_data_folder_can_be_named(tmp_path):
    """A published site's report folder (or another checkout's) holds SUMMARY.json without its lede file."""
    root = project(tmp_path / "p", {"b": release("1.1", "2026-02-01", slower_cell=0)})
    published = tmp_path / "published" / "reports" / "a"
    published.mkdir(parents=True)
    old = release("1.0", "2026-01-15")
    old["report"]["lede"] = "lede.md"  # the site publishes the receipt, not its prose file
    (published / "SUMMARY.json").write_text(json.dumps(old), encoding="utf-8")
    code, out, err = compare(root, str(published), "b")
    assert code == 1 and err == "" and "Q4 · chat · 1K input · 1 stream · aggregate" in out


# -- the real A/A pair ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_aa(tmp_path_factory) -> Path:
    """vLLM's two runs of tp4×pp2 with InfiniBand (one setup run twice), imported as two one-side reports."""
    if not VLLM.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{REAL2} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{REAL2} not found (set SITEGEN_REAL2_DIR to shared/real2)")
    root = tmp_path_factory.mktemp("aa")
    for run, name in (("03_tp4_pp2_IB", "ib-run-1"), ("04_tp4_pp2_IB", "ib-run-2")):
        r = import_here("import", "vllm-bench", "--candidate", *sorted(glob.glob(str(VLLM / run / "*_qps_*.json"))),
                        "--label-candidate", "tp4×pp2 InfiniBand", "-o", str(root / "data" / name), "-q")
        assert r.returncode == 0, r.stderr
    return root


def _rows(root: Path, name: str, rate) -> dict[str, np.ndarray]:
    doc = json.loads((root / "data" / name / "SUMMARY.json").read_text(encoding="utf-8"))
    lp = next(p for p in doc["serving"]["sides"]["candidate"]["load_points"] if p["load"]["request_rate"] == rate)
    req = lp["repeats"][0]["requests"]
    return {k: np.array([np.nan if v is None else v for v in req[f"{k}_ms"]], dtype=float) for k in ("ttft", "tpot", "e2e")}


def test_the_real_a_a_pair_passes(real_aa):
    # The two runs' files name the hardware differently (the guide: docs/guide/importing.md).
    code, _, err = compare(real_aa, "ib-run-1", "ib-run-2")
    assert code == 1 and "hardware differs: 'Standard_ND96asr_v4-IB-trial-1 x 2' in ib-run-1, " \
                          "'Standard_ND96asr_v4-GPUDirect-RDMA-Infiniband x 2' in ib-run-2" in err
    code, doc = as_json(real_aa, "ib-run-1", "ib-run-2", "--allow", "hardware")
    assert code == 0 and doc["counts"]["worse"] == 0 and doc["counts"]["better"] == 0
    latency = [c for c in doc["changes"] if c["kind"] == "latency"]
    assert len(latency) == 4 * 3 * 4  # load points × TTFT, TPOT, E2E × p50, p90, p95, p99 (ITL is TPOT here)
    assert len([c for c in doc["changes"] if c["kind"] == "throughput"]) == 4 * 2
    # The interval rule restated: lower is better; the whole interval beyond the band on one side, or inside it.
    for c in latency:
        lo, hi = c["change"]["low"], c["change"]["high"]
        if lo is None:
            assert c["verdict"] == "not resolved"
        else:
            want = ("better" if hi < 1 - BAND else "worse" if lo > 1 + BAND else
                    "level" if 1 - BAND <= lo and hi <= 1 + BAND else "not resolved")
            assert c["verdict"] == want, c


@pytest.mark.slow
def test_the_a_a_intervals_are_the_unpaired_bootstrap_replayed_with_numpy(real_aa):
    _, doc = as_json(real_aa, "ib-run-1", "ib-run-2", "--allow", "hardware")
    xo, xn = _rows(real_aa, "ib-run-1", "inf"), _rows(real_aa, "ib-run-2", "inf")
    for metric, q in (("ttft", 50), ("e2e", 90)):
        rng = np.random.default_rng(0)  # the old release's matrix first, then the new one's: unpaired
        io_, in_ = (rng.integers(0, x[metric].size, (2000, x[metric].size)) for x in (xo, xn))
        ratios = np.nanpercentile(xn[metric][in_], q, axis=1) / np.nanpercentile(xo[metric][io_], q, axis=1)
        low, high = np.percentile(ratios, [2.5, 97.5])
        c = next(c for c in doc["changes"] if c["kind"] == "latency" and c["measure"] == f"{metric}_p{q}"
                 and c["where"]["request_rate"] == "inf")
        assert c["old"] == pytest.approx(np.nanpercentile(xo[metric], q), rel=1e-12)
        assert c["change"]["value"] == pytest.approx(np.nanpercentile(xn[metric], q) / np.nanpercentile(xo[metric], q), rel=1e-12)
        assert (c["change"]["low"], c["change"]["high"]) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))
        assert c["change"]["method"] == "unpaired bootstrap over requests"


def test_another_model_is_refused(real_aa, tmp_path):
    """The imported Llama 3.3 70B run against the lm-eval report of Llama 3 8B."""
    other = tmp_path / "lm-eval"
    other.mkdir()
    other.joinpath("SUMMARY.json").write_bytes((ROOT / "data" / "lm-eval-llama-3-8b-0-against-5-shot" / "SUMMARY.json").read_bytes())
    code, _, err = compare(real_aa, "ib-run-1", str(other))
    assert code == 1 and "$.report.checkpoints: not comparable with ib-run-1: model differs: " \
                          "'meta-llama/Llama-3.3-70B-Instruct' in ib-run-1, 'meta-llama/Meta-Llama-3-8B' in lm-eval" in err


# -- markdown for a pull-request comment ------------------------------------------------------------

def test_markdown_opens_with_the_verdict_and_folds_the_unchanged(tmp_path):
    from markdown_it import MarkdownIt
    import html5lib

    root = project(tmp_path, {"a": release("1.0", "2026-01-15"), "b": release("1.1", "2026-02-01", slower_cell=3)})
    _, out, _ = compare(root, "a", "b", "--format", "markdown")
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(out)
    tree = html5lib.parseFragment(f"<div>{rendered}</div>", treebuilder="etree", namespaceHTMLElements=False)[0]
    first = tree[0]
    assert first.tag == "p" and first[0].tag == "strong"
    assert "".join(first.itertext()).startswith("Worse beyond noise: 1 of 14 figures; 0 better, 13 within noise; fails")
    tables = tree.findall(".//table")
    assert len(tables) == 2  # the changes, then the unchanged inside <details>
    assert len(tables[0].findall("./tbody/tr")) == 1 and len(tables[1].findall("./tbody/tr")) == 13
    assert "<details><summary>13 within noise</summary>" in out


def copy_with_text(doc: dict, text: str) -> dict:
    doc = copy.deepcopy(doc)
    doc["report"]["engines"]["candidate"]["name"] = text
    doc["report"]["hardware"] = text
    doc["speed"]["cells"][3]["workload"] = text
    doc["speed"]["cells"][2]["workload"] = text  # its clean-decode twin is cell 3; 2 is its aggregate
    doc["precision"]["measures"][0]["label"] = text
    return doc


def test_markdown_keeps_receipt_text_in_its_cell(tmp_path):
    from markdown_it import MarkdownIt
    import html5lib
    from test_escaping import MARKUP

    for i, (name, text) in enumerate(sorted(MARKUP.items())):
        old = copy_with_text(release("1.0", "2026-01-15"), text)
        new = copy_with_text(release("1.1", "2026-02-01", slower_cell=3), text)
        new["report"]["hardware"] = text + " (second machine)"
        root = project(tmp_path / str(i), {"a": old, "b": new})
        code, out, err = compare(root, "a", "b", "--format", "markdown", "--allow", "hardware")
        assert code == 1, err
        rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(out)
        tree = html5lib.parseFragment(f"<div>{rendered}</div>", treebuilder="etree", namespaceHTMLElements=False)[0]
        allowed = {"div", "p", "strong", "br", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "ul", "li"}
        assert {el.tag for el in tree.iter()} <= allowed, (name, out)
        assert tree[0].tag == "p" and "".join(tree[0].itertext()).startswith("Worse beyond noise"), name
        rows = tree.findall(".//tbody/tr")
        assert len(rows) == 14 and all(len(tr.findall("td")) == 7 for tr in rows), (name, out)
        shown = " ".join(text.split())
        cells = ["".join(td.itertext()) for td in tree.iter("td")]
        assert any(c.startswith(f"Q4 · {shown} · 1K input · 16 streams") for c in cells), (name, cells[:3])
        assert "<!--" not in out and "<img" not in out and "<script" not in out


def test_text_output_keeps_each_row_on_its_line(tmp_path):
    text = "chat\n  ▼ fake row  1 → 2\rX"
    old, new = release("1.0", "2026-01-15"), release("1.1", "2026-02-01", slower_cell=3)
    for doc in (old, new):
        doc["speed"]["cells"][3]["workload"] = doc["speed"]["cells"][2]["workload"] = text
    root = project(tmp_path, {"a": old, "b": new})
    _, out, _ = compare(root, "a", "b")
    assert "\r" not in out
    assert [line for line in out.splitlines() if "fake row" in line][0].startswith("  ▼ Q4 · chat ▼ fake row 1 → 2 X · 1K")


def test_an_unknown_allow_is_refused_with_a_suggestion(tmp_path):
    root = project(tmp_path, {"a": release("1.0", "2026-01-15"), "b": release("1.1", "2026-01-16")})
    code, _, err = compare(root, "a", "b", "--allow", "hardwar")
    assert code == 1 and "--allow hardwar: unknown field (did you mean 'hardware'?); fields: hardware, model, baseline, " \
                          "protocol, dataset, load-points" in err


def test_the_api_and_the_analysis_know_the_same_fail_on_words():
    from site_gen import api
    from site_gen.analysis.compare import FAIL_ON

    assert api.FAIL_ON == FAIL_ON


# -- accuracy and measures ------------------------------------------------------------------------

def test_an_accuracy_score_lower_beyond_its_interval_is_worse(tmp_path):
    old = json.loads((ROOT / "data" / "ledger-gpqa-k4-v080-v090" / "SUMMARY.json").read_text(encoding="utf-8"))
    new = copy.deepcopy(old)
    new["report"]["date"], new["report"]["engines"]["candidate"]["version"] = "2026-10-20", "0.9.1"
    r = new["accuracy"]["results"][0]  # correct_flexible, higher is better
    r["candidate"]["value"], r["candidate"]["interval"] = 0.70, [0.6364, 0.7626]
    r["difference"], r["interval"] = 0.70 - r["baseline"]["value"], [-0.2, -0.1]
    root = project(tmp_path, {"a": old, "b": new})
    code, doc = as_json(root, "a", "b")
    c = next(c for c in doc["changes"] if c["kind"] == "score" and c["measure"] == "correct_flexible")
    o = old["accuracy"]["results"][0]["candidate"]
    d = 0.70 - o["value"]
    low = d - math.hypot(0.70 - 0.6364, o["interval"][1] - o["value"])
    high = d + math.hypot(0.7626 - 0.70, o["value"] - o["interval"][0])
    assert c["change"]["value"] == pytest.approx(d) and c["change"]["low"] == pytest.approx(low) and c["change"]["high"] == pytest.approx(high)
    assert high < 0 and c["verdict"] == "worse" and c["better"] == "higher" and code == 1
    other = next(c for c in doc["changes"] if c["kind"] == "score" and c["measure"] == "correct_stated")
    assert other["verdict"] == "not resolved" and other["change"]["value"] == 0.0


def test_a_measure_of_repeated_launches_takes_t_over_runs(tmp_path):
    old = json.loads((ROOT / "data" / "cuteafd-fp8-recheck-study" / "SUMMARY.json").read_text(encoding="utf-8"))
    new = copy.deepcopy(old)
    new["report"]["date"] = "2026-10-20"
    r = next(r for r in new["measures"]["results"] if r["measure"] == "c1_tps" and r["group"] == "layout min")
    for key in ("median", "low", "high"):
        r["candidate"][key] *= 0.8
    r["candidate"]["samples"] = [v * 0.8 for v in r["candidate"]["samples"]]
    root = project(tmp_path, {"a": old, "b": new})
    code, doc = as_json(root, "a", "b")
    c = next(c for c in doc["changes"] if c["kind"] == "measure" and c["measure"] == "c1_tps" and c["where"]["group"] == "layout min")
    # By hand: both sides' logs have one variance (the samples scaled), so Welch's degrees of freedom are
    # 2 (n - 1) = 4, and t(0.975, 4) = 2.7764451051977987 (a table's value).
    x = np.log(np.array(old["measures"]["results"][[i for i, q in enumerate(old["measures"]["results"])
                                                     if q["measure"] == "c1_tps" and q["group"] == "layout min"][0]]["candidate"]["samples"]))
    half = 2.7764451051977987 * math.sqrt(2 * x.var(ddof=1) / x.size)
    assert c["change"]["value"] == pytest.approx(0.8, rel=1e-12)
    assert (c["change"]["low"], c["change"]["high"]) == (pytest.approx(0.8 * math.exp(-half), rel=1e-9),
                                                         pytest.approx(0.8 * math.exp(half), rel=1e-9))
    assert c["change"]["method"] == "t over runs" and c["verdict"] == "worse" and c["speed"] is True and code == 1
