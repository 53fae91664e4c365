"""`sitegen import vllm-bench --setup …`: the guide's command rewrites the example study byte for byte;
each setup's runs are grouped by load point from their own contents (the two InfiniBand runs are one
setup's two runs); every request row is the source's (recomputed here with numpy); and each kind of
bad input is one `Error:` line, exit 1, nothing written."""
from __future__ import annotations

import glob
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, import_here, one_error_line, sitegen_here
from test_import_serving import REAL2, VLLM, need_real2
from test_import_serving_bad_input import vllm_record

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

STUDY = "vllm-llm-k8s-study"


def guide_command() -> list[str]:
    """The example study's import command (data/import_llm_k8s_study.sh, which the guide names), its
    variables filled, its lines joined and its globs expanded."""
    text = (ROOT / "data/import_llm_k8s_study.sh").read_text(encoding="utf-8").replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.strip().splitlines():
        if m := re.fullmatch(r"(\w+)=(.*)", line):
            env[m.group(1)] = shlex.split(m.group(2))[0].replace("../shared/real2", str(REAL2))
        elif line.startswith("sitegen import"):
            words = []
            for w in shlex.split(line)[1:]:
                if w == "$@":
                    continue
                if m := re.match(r"\$(\w+)", w):
                    w = env[m.group(1)] + w[m.end():]
                words.extend(sorted(glob.glob(w)) if "*" in w else [w])
            return words
    raise AssertionError("no import command in data/import_llm_k8s_study.sh")


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> dict:
    need_real2()
    root = tmp_path_factory.mktemp("study")
    args = guide_command()
    i = args.index("-o")
    args[i + 1] = str(root / "data" / STUDY)
    r = import_here(*args, "-q")
    assert r.returncode == 0, r.stderr
    out = root / "data" / STUDY / "SUMMARY.json"
    assert out.read_bytes() == (ROOT / "data" / STUDY / "SUMMARY.json").read_bytes()
    return json.loads(out.read_text())


def test_the_two_infiniband_runs_are_one_setups_repeats(imported):
    setups = {s["id"]: s for s in imported["study"]["setups"]}
    files = {s["id"]: s["file"] for s in imported["provenance"]["sources"]}
    for lp in setups["tp4pp2-ib"]["load_points"]:
        folders = sorted(files[r["source"]].split("/")[0] for r in lp["repeats"])
        assert folders == ["03_tp4_pp2_IB", "04_tp4_pp2_IB"], lp["id"]
    for sid in ("tp8", "tp4pp2-no-ib"):
        assert all(len(lp["repeats"]) == 1 for lp in setups[sid]["load_points"])
    # Every file's own request rate put it at its load point.
    for s in setups.values():
        for lp in s["load_points"]:
            for r in lp["repeats"]:
                rate = json.loads((VLLM / files[r["source"]]).read_text())["request_rate"]
                assert lp["load"]["request_rate"] == ("inf" if rate == "inf" else rate), (s["id"], lp["id"])
    assert {s: v["gpus"]["value"] for s, v in setups.items()} == {"tp8": 8, "tp4pp2-no-ib": 8, "tp4pp2-ib": 8}
    assert "parallelism" in setups["tp8"]["gpus"]["origin"]
    hw = setups["tp4pp2-ib"]["environment"]["hardware"]
    assert hw["value"] == "Standard_ND96asr_v4 x 2, InfiniBand" and "IB-trial-1" in hw["origin"] and "RDMA" in hw["origin"]
    assert "llm-k8s" in imported["report"]["attribution"] and "Apache-2.0" in imported["report"]["attribution"]


def test_every_request_row_is_the_sources(imported):
    files = {s["id"]: s["file"] for s in imported["provenance"]["sources"]}
    for s in imported["study"]["setups"]:
        for lp in s["load_points"]:
            for r in lp["repeats"]:
                src = json.loads((VLLM / files[r["source"]]).read_text())
                ok = np.array([e == "" for e in src["errors"]])
                ttft = np.array(src["ttfts"]) * 1000
                e2e = ttft + np.array([sum(x) for x in src["itls"]]) * 1000
                got = r["requests"]
                assert np.allclose(np.array(got["ttft_ms"], dtype=float)[ok], ttft[ok], atol=1e-6)
                assert np.allclose(np.array(got["e2e_ms"], dtype=float)[ok], e2e[ok], atol=1e-3)
                assert got["input_tokens"] == src["input_lens"] and got["output_tokens"] == [
                    o if e == "" else 0 for o, e in zip(src["output_lens"], src["errors"])]
                assert r["duration_s"] == src["duration"] and r["completed"] == src["completed"]


# -- bad input -------------------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path) -> dict[str, list[Path]]:
    out = {}
    for name, seed in (("a", 1), ("b", 2), ("c", 3)):
        (tmp_path / name).mkdir()
        out[name] = []
        for rate in (1.0, "inf"):
            f = tmp_path / name / f"run_qps_{rate}.json"
            f.write_text(json.dumps(vllm_record(seed + (0 if rate == 1.0 else 10), rate)))
            out[name].append(f)
    return out


def study(tmp_path: Path, setups: dict[str, list[Path]], *extra: str):
    args = ["import", "vllm-bench"]
    for name, paths in setups.items():
        args += ["--setup", name, *map(str, paths)]
    return import_here(*args, *extra, "-o", str(tmp_path / "data" / "s"), "-q")


def refused(r, tmp_path: Path, *needles: str) -> str:
    line = one_error_line(r.returncode, r.stderr, *needles)
    assert not (tmp_path / "data" / "s").exists(), "a refused import wrote its report folder"
    return line


def edit(path: Path, change) -> None:
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def test_the_synthetic_study_imports_with_repeats_and_names(files, tmp_path):
    r = study(tmp_path, {"a": files["a"], "b": files["b"][:1]}, "--setup", f"b={files['b'][1]}", "--setup", "b",
              str(files["c"][0]), str(files["c"][1]), "--baseline", "a", "--setup-set", "b:gpus=4")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/s/SUMMARY.json").read_text())
    b = doc["study"]["setups"][1]
    assert [len(lp["repeats"]) for lp in b["load_points"]] == [2, 2] and b["gpus"]["value"] == 4
    assert doc["study"]["baseline"] == "a" and doc["report"]["engines"]["baseline"]["name"] == "a"
    assert "gpus" not in doc["study"]["setups"][0]


@pytest.mark.parametrize("change, allow, needles", [
    (lambda d: d.update(model_id="org/other"), "model", ("other models", "--allow model")),
    (lambda d: d.update(burstiness=0.5), "protocol", ("measured differently", "--allow protocol")),
])
def test_setups_that_differ_are_refused_unless_allowed(files, tmp_path, change, allow, needles):
    for f in files["b"]:
        edit(f, change)
    refused(study(tmp_path, {"a": files["a"], "b": files["b"]}), tmp_path, *needles)
    r = study(tmp_path, {"a": files["a"], "b": files["b"]}, "--allow", allow)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/s/SUMMARY.json").read_text())
    assert any(d.get("allowed") for d in doc["study"]["differs"]) and "--allow" in " ".join(doc["report"]["not_covered"])


def test_a_load_point_one_setup_lacks_is_refused_unless_allowed(files, tmp_path):
    line = refused(study(tmp_path, {"a": files["a"], "b": files["b"][:1]}), tmp_path, "lacks a load point", "--allow load-points")
    assert "all at once" in line
    r = study(tmp_path, {"a": files["a"], "b": files["b"][:1]}, "--allow", "load-points")
    assert r.returncode == 0, r.stderr


def test_a_load_point_without_a_successful_request_is_refused_unless_allowed(files, tmp_path):
    def fail_all(d: dict) -> None:
        n = len(d["errors"])
        d.update(errors=["boom"] * n, completed=0, total_output_tokens=0, output_throughput=0.0, request_throughput=0.0,
                 total_input_tokens=0, total_token_throughput=0.0, output_lens=[0] * n)
        for k in [k for k in d if re.match(r"(mean|median|std|p99)_(ttft|tpot|itl)_ms", k)]:
            del d[k]
    edit(files["b"][1], fail_all)
    line = refused(study(tmp_path, {"a": files["a"], "b": files["b"]}), tmp_path, "no successful request", "--allow failed-load")
    assert "run_qps_inf.json" in line
    r = study(tmp_path, {"a": files["a"], "b": files["b"]}, "--allow", "failed-load")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/s/SUMMARY.json").read_text())
    assert "No successful request" in " ".join(doc["report"]["not_covered"])
    # It builds: the load point has no figure of b, and no comparison there.
    built = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), "-f", str(tmp_path / "mkdocs.yml"))
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "site/reports/s/study.html").read_text()
    assert "No successful request" in (tmp_path / "site/reports/s/index.html").read_text() and "all at once" in page


@pytest.mark.parametrize("setups, extra, needles", [
    ({"a": "a"}, (), ("two setups or more",)),
    ({"a": "a", "b": "a"}, (), ("given twice",)),
    ({"a": "a", "b": "b"}, ("--baseline", "z"), ("--baseline 'z' names no setup",)),
    ({"a": "a", "b": "b"}, ("--baseline", "a", "b"), ("--baseline takes one setup name",)),
    ({"a": "a", "b": "b"}, ("--candidate", "x.json"), ("--candidate does not go with --setup",)),
    ({"a": "a", "b": "b"}, ("--allow", "hardware"), ("a study allows",)),
    ({"a": "a", "b": "b"}, ("--setup-set", "b:gpus=many"), ("gpus is a whole number",)),
    ({"a": "a", "b": "b"}, ("--setup-set", "z:gpus=8"), ("no setup is named 'z'",)),
    ({"a": "a", "b": "b"}, ("--setup-label", "a=setup b", "--setup-label", "b=setup b"), ("same label",)),
    ({"a/b": "a", "b": "b"}, (), ("setup name 'a/b' is not allowed",)),
])
def test_bad_study_commands_are_one_error_line(files, tmp_path, setups, extra, needles):
    r = study(tmp_path, {name: files[which] for name, which in setups.items()}, *extra)
    refused(r, tmp_path, *needles)


def test_runs_of_one_setup_that_disagree_on_a_fact_are_refused_until_it_is_stated(files, tmp_path):
    for i, f in enumerate(files["b"]):
        f.with_suffix(".commands").write_text(json.dumps({"client_command": "python3 benchmark_serving.py",
                                                          "gpu_type": f"node-type-{i}"}))
    refused(study(tmp_path, {"a": files["a"], "b": files["b"]}), tmp_path, "another hardware", "--setup-set b:hardware=VALUE")
    r = study(tmp_path, {"a": files["a"], "b": files["b"]}, "--setup-set", "b:hardware=two nodes")
    assert r.returncode == 0, r.stderr
    hw = json.loads((tmp_path / "data/s/SUMMARY.json").read_text())["study"]["setups"][1]["environment"]["hardware"]
    assert hw["value"] == "two nodes" and "node-type-0" in hw["origin"] and "node-type-1" in hw["origin"]


def test_a_guidellm_study_and_an_sglang_study_import_and_build(tmp_path):
    from test_import_serving import GUIDELLM, SGLANG

    need_real2()
    r = import_here("import", "guidellm", "--setup", "a", str(GUIDELLM / "baseline/benchmarks.json"), "--setup", "b",
                    str(GUIDELLM / "candidate/benchmarks.json"), "--setup-set", "a:gpus=1", "--setup-set", "b:gpus=1",
                    "-o", str(tmp_path / "data" / "g"), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "data/g/SUMMARY.json").read_text())
    src = json.loads((GUIDELLM / "candidate/benchmarks.json").read_text())
    assert {s["format"] for s in doc["study"]["setups"]} == {"guidellm"}
    assert len(doc["study"]["setups"][1]["load_points"]) == len(src["benchmarks"])
    args = ["import", "vllm-bench", "--setup", "l70", str(SGLANG / "llama_3_3_70b_online_output.jsonl"), "--setup", "l405",
            str(SGLANG / "llama_405b_online_output.jsonl"), "--setup-set", "l70:model=meta-llama/Llama-3.3-70B-Instruct",
            "--setup-set", "l405:model=meta-llama/Llama-3.1-405B-Instruct", "--setup-set", "l70:date=2024-12-01",
            "--setup-set", "l405:date=2024-12-01", "-o", str(tmp_path / "data" / "s")]
    refused(import_here(*args, "-q"), tmp_path, "other models", "--allow model")
    r = import_here(*args, "--allow", "model", "--allow", "load-points", "-q")
    assert r.returncode == 0, r.stderr
    built = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), "-f", str(tmp_path / "mkdocs.yml"))
    assert built.returncode == 0, built.stderr
    study = (tmp_path / "site/reports/s/study.html").read_text()
    assert "one run, no interval (no per-request rows)" in study and "one run: within-run interval only" not in study
    assert "No setup of this study repeats a run at any load" in study
    frontier = (tmp_path / "site/reports/s/frontier.html").read_text()
    assert "No frontier is drawn: the GPU count of l70, l405 is not recorded" in frontier
    g = (tmp_path / "site/reports/g/frontier.html").read_text()
    assert "Throughput per GPU against interactivity" in g


def test_files_read_by_forked_workers_make_the_same_receipt_and_the_same_refusal(files, tmp_path, monkeypatch):
    from site_gen.importers import study_files
    from site_gen.receipts import parse

    outs = []
    # One process; forked workers (on more than one core); forked workers parsing with json alone
    # (receipts/parse.py's msgspec path turned off): one receipt, byte for byte.
    for limit, fast in ((10 ** 9, True), (2, True), (2, False)):
        monkeypatch.setattr(study_files, "PARALLEL_FILES", limit)
        if not fast:
            monkeypatch.setattr(parse, "_msgspec", lambda raw: parse._UNUSUAL)
        r = study(tmp_path, {"a": files["a"], "b": files["b"], "c": files["c"]}, "--force")
        assert r.returncode == 0, r.stderr
        outs.append((tmp_path / "data/s/SUMMARY.json").read_bytes())
    assert outs[0] == outs[1] == outs[2]
    edit(files["b"][1], lambda d: d.update(completed=d["completed"] + 1))
    lines = []
    for limit in (10 ** 9, 2):
        monkeypatch.setattr(study_files, "PARALLEL_FILES", limit)
        r = import_here("import", "vllm-bench", *[w for n in "abc" for w in ("--setup", n, *map(str, files[n]))],
                        "-o", str(tmp_path / "data" / "t"), "-q")
        lines.append(one_error_line(r.returncode, r.stderr, "run_qps_inf.json", "completed"))
    assert lines[0] == lines[1]
