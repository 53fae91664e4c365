"""Each importer refuses bad input with one `Error:` line naming the file and the line or JSON path
(exit 1), and lets runs that are not comparable through only when the user names what differs;
property tests over small generated ledgers check the pairing."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import one_error_line, sitegen_here
from test_import import LEDGER, STUDY, need_real

TOOL = ["2026-10-08_glm53-flash_k3.25-v0.9.0-dflash3_tool-eval", "2026-10-08_glm53-flash_k3.25-v0.9.0-tailfix-dflash3_tool-eval"]
GPQA = ["2026-09-30_glm53-flash_k4-v0.8.0-dflash3_gpqa-diamond", "2026-10-06_glm53-flash_k4-v0.9.0-dflash3_gpqa-diamond"]


@pytest.fixture
def ledger(tmp_path) -> Path:
    """A copy of the ledger's tool-eval and GPQA pairs, their configs and comparisons."""
    need_real()
    root = tmp_path / "ledger"
    for run in TOOL + GPQA:
        shutil.copytree(LEDGER / "runs" / run, root / "runs" / run)
    shutil.copytree(LEDGER / "configs", root / "configs")
    for c in ("glm53-flash-v090-tailfix-tool-eval", "glm53-flash-k4-v080-v090-gpqa", "glm53-flash-v091-decode-prefill-repeat"):
        shutil.copytree(LEDGER / "comparisons" / c, root / "comparisons" / c)
    return root


def config_for(folder: Path, data: str = "data") -> str:
    """A mkdocs.yml in `folder` whose data folder is `data`: `-o` names a report folder in it."""
    (folder / "mkdocs.yml").write_text(f"site_name: Imports\nplugins:\n  - sitegen:\n      data_dir: {data}\n")
    return str(folder / "mkdocs.yml")


def run_import(root: Path, *args: str):
    return sitegen_here("import", "ledger", str(root), *args, "-f", config_for(root.parent),
                        "-o", str(root.parent / "data" / "out"), "-q")


def edit_lines(path: Path, edit) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(edit(lines)))


def test_truncated_jsonl_is_refused_at_its_line(ledger):
    f = ledger / "runs" / TOOL[1] / "results.jsonl"
    f.write_text(f.read_text()[:-25])
    r = run_import(ledger, "--comparison", "glm53-flash-v090-tailfix-tool-eval")
    one_error_line(r.returncode, r.stderr, f"{TOOL[1]}/results.jsonl: line 176: truncated row")


def test_a_missing_run_is_refused(ledger):
    r = run_import(ledger, "--comparison", "glm53-flash-v091-decode-prefill-repeat", "--baseline", "x", "--candidate", "y")
    one_error_line(r.returncode, r.stderr, "comparison.json: $.runs: --baseline 'x' is not one of the comparison's runs")
    runs = json.loads((ledger / "comparisons/glm53-flash-v091-decode-prefill-repeat/comparison.json").read_text())["runs"]
    r = run_import(ledger, "--comparison", "glm53-flash-v091-decode-prefill-repeat", "--baseline", runs[0], "--candidate", runs[1])
    one_error_line(r.returncode, r.stderr, f"run '{runs[0]}' not found")


def test_an_unknown_protocol_is_refused(ledger):
    f = ledger / "runs" / TOOL[0] / "run.json"
    f.write_text(f.read_text().replace('"tool-eval-bench/v1"', '"tool-eval-bench/v9"'))
    r = run_import(ledger, "--comparison", "glm53-flash-v090-tailfix-tool-eval")
    one_error_line(r.returncode, r.stderr, f"{TOOL[0]}/run.json: $.protocol: protocol 'tool-eval-bench/v9' is not one this importer knows")


def test_duplicate_rows_are_refused_with_both_lines(ledger):
    edit_lines(ledger / "runs" / GPQA[0] / "results.jsonl", lambda lines: lines[:10] + [lines[3]] + lines[10:])
    r = run_import(ledger, "--comparison", "glm53-flash-k4-v080-v090-gpqa")
    one_error_line(r.returncode, r.stderr, "results.jsonl: line 11: duplicate row: question and pass (3, 1) again (first on line 4)")


def test_mismatched_question_sets_are_refused_unless_allowed(ledger):
    edit_lines(ledger / "runs" / GPQA[1] / "results.jsonl", lambda lines: lines[:-1])
    r = run_import(ledger, "--comparison", "glm53-flash-k4-v080-v090-gpqa")
    one_error_line(r.returncode, r.stderr, "different questions (1 only in the baseline, 0 only in the candidate)",
                   "--allow questions")
    # Allowed, the pairing is over the shared 197 questions and the candidate's summary (of 198) no longer
    # matches its rows: that is refused too, naming the summary figure.
    r = run_import(ledger, "--comparison", "glm53-flash-k4-v080-v090-gpqa", "--allow", "questions")
    one_error_line(r.returncode, r.stderr, f"{GPQA[1]}/summary.json: $.accuracy_flexible: summary.json says")


def test_a_summary_the_rows_contradict_is_refused(ledger):
    f = ledger / "runs" / TOOL[0] / "summary.json"
    doc = json.loads(f.read_text())
    doc["reps"]["2"]["points"] = 170
    f.write_text(json.dumps(doc))
    r = run_import(ledger, "--comparison", "glm53-flash-v090-tailfix-tool-eval")
    one_error_line(r.returncode, r.stderr, "$.reps.2.points: summary.json says 170, but results.jsonl gives 157")


def test_not_comparable_runs_need_the_flag_and_the_report_says_what_differs(ledger):
    c = ledger / "comparisons/glm53-flash-k4-v080-v090-gpqa/comparison.json"
    c.write_text(c.read_text().replace('"comparable": true', '"comparable": false, "reason": "test"'))
    r = run_import(ledger, "--comparison", "glm53-flash-k4-v080-v090-gpqa")
    one_error_line(r.returncode, r.stderr, "comparable: false (test); not comparable (pass --allow comparable")
    cfg = ledger / "configs/glm53-flash/k4-v0.9.0-dflash3.json"
    cfg.write_text(cfg.read_text().replace('"a5fee929"', '"b0000000"'))
    r = run_import(ledger, "--baseline", GPQA[0], "--candidate", GPQA[1])
    one_error_line(r.returncode, r.stderr, "other weights: model.revision is 'a5fee929' and 'b0000000'")
    r = run_import(ledger, "--baseline", GPQA[0], "--candidate", GPQA[1], "--allow", "model.revision")
    assert r.returncode == 0, r.stderr
    differs = json.loads((ledger.parent / "data/out/SUMMARY.json").read_text())["report"]["differs"]
    assert {"field": "model.revision", "baseline": "a5fee929", "candidate": "b0000000", "allowed": True} in differs


def test_a_config_difference_the_comparison_does_not_declare_is_refused(ledger):
    cfg = ledger / "configs/glm53-flash/k3.25-v0.9.0-tailfix-dflash3.json"
    cfg.write_text(cfg.read_text().replace('"kv_cache_dtype": "fp8"', '"kv_cache_dtype": "bf16"'))
    r = run_import(ledger, "--comparison", "glm53-flash-v090-tailfix-tool-eval")
    one_error_line(r.returncode, r.stderr, "the configs differ in serving.kv_cache_dtype, which comparison "
                   "'glm53-flash-v090-tailfix-tool-eval' does not declare", "--allow serving.kv_cache_dtype")


@pytest.mark.parametrize("edit, needle", [
    (lambda d: d.update(schema="cuteafd.other.v2"), "$.schema: schema 'cuteafd.other.v2' is not one this importer knows"),
    (lambda d: d["measurements"]["min"]["D"]["summary"]["c1_tps"].update(median=1.0),
     "$.measurements.min.D.summary.c1_tps: the summary of 'c1_tps' is not what its launches give"),
    (lambda d: d["measurements"]["max"]["F"]["launches"][0].pop("c4_tps"),
     "$.measurements.max.F.launches[0].c4_tps: launch has no number 'c4_tps'"),
    (lambda d: d["measurements"]["min"]["F"]["quality"]["checks"][0]["metrics"].update(kl=0.2),
     "$.measurements.min.F.quality.checks[0]: check 'fidelity' says pass, but kl 0.2 is not at most 0.15"),
])
def test_the_study_importer_refuses_bad_input(tmp_path, edit, needle):
    need_real()
    doc = json.loads(STUDY.read_text())
    edit(doc)
    (tmp_path / "comparison.json").write_text(json.dumps(doc, indent=1))
    r = sitegen_here("import", "cuteafd-study", str(tmp_path / "comparison.json"), "-f", config_for(tmp_path),
                     "-o", str(tmp_path / "data" / "s"))
    one_error_line(r.returncode, r.stderr, "comparison.json: " + needle)
    assert not (tmp_path / "data" / "s" / "SUMMARY.json").exists()


def test_a_study_with_a_duplicate_key_is_refused_at_its_line(tmp_path):
    need_real()
    text = STUDY.read_text().replace('"schema": "cuteafd.glmf-fp8-recheck.v1",', '"schema": "cuteafd.glmf-fp8-recheck.v1", "schema": "x",', 1)
    (tmp_path / "comparison.json").write_text(text)
    r = sitegen_here("import", "cuteafd-study", str(tmp_path / "comparison.json"), "-f", config_for(tmp_path),
                     "-o", str(tmp_path / "data" / "s"))
    one_error_line(r.returncode, r.stderr, "comparison.json: $.schema: duplicate key 'schema'")


# -- generated runs ------------------------------------------------------------------------------

CONFIG = {"model": {"repo": "org/m", "revision": "r1", "label": "w"},
          "engine": {"name": "e", "version": "v1.0", "image": "sha256:" + "0" * 64, "patches": []},
          "serving": {"speculative": {"label": None, "tokens": 0}}, "hardware": {"gpus": "1x GPU"}}


def write_run(root: Path, run: str, protocol: str, config: str, rows: list[dict], summary: dict, version: str = "v1.0") -> None:
    d = root / "runs" / run
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"id": run, "config": f"f/{config}", "protocol": protocol, "date": "2026-01-02",
                                            "software": {}, "notes": ""}))
    (d / "summary.json").write_text(json.dumps(summary))
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "configs" / "f").mkdir(parents=True, exist_ok=True)
    cfg = json.loads(json.dumps(CONFIG))
    cfg["engine"]["version"] = version
    (root / "configs" / "f" / f"{config}.json").write_text(json.dumps(cfg))


SLOW_OK = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SLOW_OK
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_gpqa_difference_is_paired_over_question_ids_in_any_row_order(tmp_path_factory, answers, rnd):
    root = tmp_path_factory.mktemp("gen")
    sides = []
    for k, (name, _version) in enumerate((("a", "v1.0"), ("b", "v2.0"))):
        rows = [{"doc_id": i, "pass": 1, "correct_flexible": pair[k], "prompt_hash": f"p{i}", "target_hash": f"t{i}"}
                for i, pair in enumerate(answers)]
        rnd.shuffle(rows)  # pairing by id, not by position
        write_run(root, name, "gpqa-diamond/v1", name, rows, {})
        sides.append([pair[k] for pair in answers])
    r = sitegen_here("import", "ledger", str(root), "--baseline", "a", "--candidate", "b", "-f", config_for(root, "out"),
                     "-o", str(root / "out" / "r"), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((root / "out" / "r" / "SUMMARY.json").read_text())
    res = doc["accuracy"]["results"][0]
    d = np.array(sides[1], float) - np.array(sides[0], float)
    assert res["items"] == len(answers) and res["difference"] == pytest.approx(d.mean())
    assert res["interval"][0] <= res["interval"][1] and min(d) <= res["interval"][0] and res["interval"][1] <= max(d)
    again = sitegen_here("import", "ledger", str(root), "--baseline", "a", "--candidate", "b", "-f", config_for(root, "out"),
                         "-o", str(root / "out" / "r2"), "-q")
    assert again.returncode == 0
    assert (root / "out" / "r2" / "SUMMARY.json").read_bytes() == (root / "out" / "r" / "SUMMARY.json").read_bytes()


def probe_rows(batches: list[tuple[str, int, float]], rnd) -> list[dict]:
    rows = []
    for name, conc, temp in batches:
        rows.append({"kind": "batch", "batch": name, "concurrency": conc, "temperature": temp, "max_tokens": 64, "wall_s": 2.0})
        rows += [{"kind": "request", "batch": name, "doc_id": i, "tokens": 10 + i, "decode_tok_s": 50.0 + i + conc,
                  "ttft_s": 0.1 * (i + 1)} for i in range(3)]
    rnd.shuffle(rows)
    return rows


@SLOW_OK
@given(st.lists(st.tuples(st.sampled_from([1, 2, 8]), st.sampled_from([0.0, 1.0])), min_size=1, max_size=4, unique=True),
       st.randoms(use_true_random=False))
def test_serving_probe_pairs_batches_by_workload_and_concurrency_not_by_name(tmp_path_factory, shapes, rnd):
    root = tmp_path_factory.mktemp("gen")
    base = [(f"b{i}", c, t) for i, (c, t) in enumerate(shapes)]
    cand = [(f"c{j}", c, t) for j, (c, t) in reversed(list(enumerate(shapes)))] + [("extra", 3, 0.5)]
    write_run(root, "a", "serving-probe/v1", "a", probe_rows(base, rnd), {})
    write_run(root, "b", "serving-probe/v1", "b", probe_rows(cand, rnd), {}, version="v2.0")
    r = sitegen_here("import", "ledger", str(root), "--baseline", "a", "--candidate", "b", "-f", config_for(root, "out"),
                     "-o", str(root / "out" / "r"), "-q")
    assert r.returncode == 0, r.stderr
    cells = json.loads((root / "out" / "r" / "SUMMARY.json").read_text())["speed"]["cells"]
    assert len(cells) == 2 * len(shapes)
    for cell in cells:
        b, c = cell["workload"].split(" / ")
        assert shapes[int(b[1:])] == shapes[int(c[1:])] and cell["concurrency"] == shapes[int(b[1:])][0]
        assert "errors" not in cell["baseline"] and "input_tokens" not in cell  # the rows do not carry them
        if cell["metric"] == "decode":
            assert cell["baseline"]["rate"] == cell["candidate"]["rate"] == 51.0 + cell["concurrency"]
