"""What an importer says of the files it is given (issues 51 and 54): runs without per-request rows
counted truly (none is not "some"), a side whose files record no model said so, and a file that is
no result (a shell script, a lone .commands sidecar) pointed at the file that is."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_gen.cli import main as sitegen
from test_import_serving import REAL2

RUNS = REAL2 / "vllm-bench/llm-k8s/results_serving_meta-llama-Llama-3.3-70B-Instruct/03_tp4_pp2_IB"
SGLANG = REAL2 / "sglang-bench/datacrunch"
NO_ROWS, SOME = "No run has per-request rows: ", "Some runs have no per-request rows: "


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if not RUNS.is_dir():
        pytest.skip(f"{RUNS} not found")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - sitegen:\n      data_dir: data\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    return tmp_path


def summary_only(src: Path, out: Path) -> Path:
    """The run as `vllm bench serve --save-result` writes it without --save-detailed: no arrays."""
    doc = json.loads(src.read_text(encoding="utf-8"))
    out.write_text(json.dumps({k: v for k, v in doc.items() if not isinstance(v, list)}), encoding="utf-8")
    return out


def imported(project: Path, name: str, *args: str) -> tuple[int, dict | None, str]:
    code = sitegen(["import", "vllm-bench", *args, "-f", str(project / "mkdocs.yml"), "-o", str(project / "data" / name),
                    "-q"])
    path = project / "data" / name / "SUMMARY.json"
    return code, json.loads(path.read_text()) if path.exists() else None, ""


def not_covered(doc: dict) -> list[str]:
    return [line for line in doc["report"].get("not_covered", []) if "per-request rows" in line]


def test_no_run_with_rows_is_not_some(project, capsys):
    qps = sorted(RUNS.glob("*qps_0[14].json"))
    bare = [summary_only(p, project / p.name) for p in qps]
    code, doc, _ = imported(project, "none", "--candidate", *map(str, bare))
    assert code == 0 and doc is not None
    assert not_covered(doc) and not_covered(doc)[0].startswith(NO_ROWS), not_covered(doc)
    code, doc, _ = imported(project, "some", "--candidate", str(bare[0]), str(qps[1]))
    assert code == 0 and doc is not None and not_covered(doc)[0].startswith(SOME), not_covered(doc)
    code, doc, _ = imported(project, "all", "--candidate", *map(str, qps))
    assert code == 0 and doc is not None and not_covered(doc) == []
    # A study of setups whose runs have no rows says the same.
    other = summary_only(next(RUNS.parent.glob("04_tp4_pp2_IB/*qps_01.json")), project / "other.json")
    code = sitegen(["import", "vllm-bench", "--setup", "a", str(bare[0]), "--setup", "b", str(other),
                    "-f", str(project / "mkdocs.yml"), "-o", str(project / "data" / "study"), "-q"])
    doc = json.loads((project / "data" / "study" / "SUMMARY.json").read_text())
    assert code == 0 and not_covered(doc)[0].startswith(NO_ROWS), not_covered(doc)


def test_a_side_whose_files_record_no_model_is_said(project, capsys):
    files = [str(SGLANG / "llama_3_3_70b_online_output.jsonl"), str(SGLANG / "llama_405b_online_output.jsonl")]
    code = sitegen(["import", "vllm-bench", "--candidate", *files, "--set-candidate", "date=2024-12-01",
                    "-f", str(project / "mkdocs.yml"), "-o", str(project / "data" / "x")])
    err = capsys.readouterr().err
    assert code == 0 and "the candidate's files record no model (SGLang's bench_serving lines name none)" in err
    assert "cannot check that its 2 files are of one model" in err and "--set-candidate model=NAME" in err
    code = sitegen(["import", "vllm-bench", "--candidate", *files, "--set-candidate", "date=2024-12-01",
                    "--set-candidate", "model=m", "-f", str(project / "mkdocs.yml"), "-o", str(project / "data" / "y")])
    assert code == 0 and "record no model" not in capsys.readouterr().err


@pytest.mark.parametrize("name", ["llama_3_3_70b_sglang.sh", "commands"])
def test_a_file_that_is_no_result_points_at_the_one_that_is(project, capsys, name):
    path = SGLANG / name if name.endswith(".sh") else next(RUNS.glob("*qps_01.commands"))
    code = sitegen(["import", "vllm-bench", "--candidate", str(path), "-f", str(project / "mkdocs.yml"),
                    "-o", str(project / "data" / "x")])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"Error: {path}"), lines
    assert "give the result .json" in lines[0] and ".commands is read beside" in lines[0], lines
    assert not (project / "data" / "x").exists()
