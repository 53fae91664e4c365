"""Inputs that crashed `sitegen import` (exit 2) or made it write a receipt the build refuses (issue
50, item 5): each is now one `Error:` line naming the source file and place, exit 1, nothing written;
and the fuzzer reaches every importer (a new seed each run, printed)."""
from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import fuzzing
import pytest
from conftest import import_here, sitegen_here

SOURCES = fuzzing.serving_sources()


def project(tmp_path: Path, fmt: str) -> list[str]:
    """The importer's unmutated sources written into tmp_path; its command's arguments, made absolute."""
    files, argv = SOURCES[fmt]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    named = {n for name in files for n in [name, *(str(p) for p in Path(name).parents if str(p) != ".")]}

    def placed(arg: str) -> str:
        name, sep, path = arg.rpartition("=")  # `--setup NAME=FILE`
        return f"{name}{sep}{tmp_path / path}" if path in named else arg

    return [placed(a) for a in argv[1:]]


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(fuzzing.to_json(data), encoding="utf-8", errors="surrogatepass")


def run(tmp_path: Path, argv: list[str]):
    return import_here("import", *argv, "-o", str(tmp_path / "data" / "r"), "-q")


def refused(r, tmp_path: Path, *needles: str) -> str:
    assert r.returncode == 1, (r.returncode, r.stderr)
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "internal error" not in errors[0], r.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    assert not (tmp_path / "data" / "r").exists(), "a refused import left its report folder"
    return errors[0]


DEEP = fuzzing.Raw("[" * 5000 + "]" * 5000)


@pytest.mark.parametrize("fmt, name, path", [
    ("vllm-bench", "runs/cand/run_qps_1.0.json", ["server_info"]),
    ("guidellm", "gl/candidate/benchmarks.json", ["config"]),
    ("lm-eval", None, ["config", "model_args"]),
])
def test_deeply_nested_json_is_refused(tmp_path, fmt, name, path):
    argv = project(tmp_path, fmt)
    name = name or next(n for n in SOURCES[fmt][0] if "/results_" in n and "12-20-26" in n)

    def deepen(d):
        node = d
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = DEEP

    edit_json(tmp_path / name, deepen)
    refused(run(tmp_path, argv), tmp_path, Path(name).name, "nested deeper than 64 levels")


@pytest.mark.parametrize("key, value, needle", [
    ("input_lens", [10 ** 20] * 12, "$.input_lens[0]"),
    ("itls", [[2 ** 64]] * 12, "$.itls[0][0]"),
    ("max_concurrency", 10 ** 30, "$.max_concurrency"),
    ("duration", 10 ** 20, "$.duration"),
])
def test_huge_integers_in_a_vllm_run_are_refused_at_their_place(tmp_path, key, value, needle):
    argv = project(tmp_path, "vllm-bench")
    edit_json(tmp_path / "runs/cand/run_qps_1.0.json", lambda d: d.__setitem__(key, value))
    refused(run(tmp_path, argv), tmp_path, "run_qps_1.0.json", needle, "too large")


@pytest.mark.parametrize("text, needle", [("org/\ud800model", "U+D800"), ("org/a\x00b", "U+0000")])
def test_a_model_id_no_receipt_may_hold_is_refused_at_its_source(tmp_path, text, needle):
    """A lone surrogate crashed the write (UnicodeEncodeError) and left an empty report folder; a NUL
    was written into a receipt the build then refused."""
    argv = project(tmp_path, "vllm-bench")
    for name in SOURCES["vllm-bench"][0]:
        edit_json(tmp_path / name, lambda d: d.__setitem__("model_id", text))
    line = refused(run(tmp_path, argv), tmp_path, needle, "run_qps_", "$.model_id")
    assert "\ud800" not in line


def test_guidellm_timings_that_are_text_are_refused(tmp_path):
    argv = project(tmp_path, "guidellm")

    def change(d):
        d["benchmarks"][0]["requests"]["successful"][0]["info"]["timings"] = "soon"

    edit_json(tmp_path / "gl/candidate/benchmarks.json", change)
    refused(run(tmp_path, argv), tmp_path, "benchmarks.json", "$.benchmarks[0].requests.successful[0].info.timings")


def test_guidellm_times_of_mixed_types_are_refused(tmp_path):
    """A request's start time as text was compared with numbers while sorting (TypeError)."""
    argv = project(tmp_path, "guidellm")

    def change(d):
        d["benchmarks"][0]["requests"]["successful"][1]["request_start_time"] = "early"

    edit_json(tmp_path / "gl/candidate/benchmarks.json", change)
    refused(run(tmp_path, argv), tmp_path, "$.benchmarks[0].requests.successful[1].request_start_time")


@pytest.mark.parametrize("key", ["config", "versions", "n-shot", "n-samples", "higher_is_better"])
def test_lm_eval_parts_of_the_wrong_type_are_refused(tmp_path, key):
    argv = project(tmp_path, "lm-eval")
    name = next(n for n in SOURCES["lm-eval"][0] if "/results_" in n)
    edit_json(tmp_path / name, lambda d: d.__setitem__(key, ["a", "list"]))
    refused(run(tmp_path, argv), tmp_path, Path(name).name, "expected an object")


def test_sglang_nesting_in_one_line_is_refused_at_that_line(tmp_path):
    argv = project(tmp_path, "sglang")
    f = tmp_path / "runs/sglang.jsonl"
    lines = f.read_text().splitlines()
    lines[1] = lines[1][:-1] + ', "x": ' + DEEP + "}"
    f.write_text("\n".join(lines) + "\n")
    refused(run(tmp_path, argv), tmp_path, "sglang.jsonl", "line 2", "nested deeper than 64 levels")


# -- the fuzzer reaches every importer ---------------------------------------------------------------------

FUZZ_SEED = int(os.environ.get("SITEGEN_FUZZ_SEED") or random.SystemRandom().randrange(1, 10 ** 6))
FUZZ_CASES = int(os.environ.get("SITEGEN_FUZZ_SERVING_CASES", "150"))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", fuzzing.SERVING_FORMATS)
def test_fuzz_serving_importers(fmt, tmp_path, capsys):
    """A new seed each run (printed, and in a failure's message: SITEGEN_FUZZ_SEED=S runs it again);
    benchmarks/fuzz.py --serving runs thousands at a fixed seed."""
    totals = fuzzing.Totals()
    cpu = time.process_time()
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        for case in fuzzing.serving_cases(FUZZ_SEED, FUZZ_CASES, 0, fmt):
            totals.add(fuzzer.run(case))
    with capsys.disabled():
        print(f"\nfuzz {fmt}, seed {FUZZ_SEED} (SITEGEN_FUZZ_SEED={FUZZ_SEED} to repeat): {totals.line()}; "
              f"{time.process_time() - cpu:.1f} s of CPU")
    assert not totals.failures, f"seed {FUZZ_SEED}, {fmt}: {totals.line()}\n{totals.report()}"
    assert min(totals.codes[0], totals.codes[1]) >= totals.cases // 10, totals.line()


def test_the_serving_fuzz_cases_start_from_sources_that_import(tmp_path):
    for fmt in fuzzing.SERVING_FORMATS:
        sub = tmp_path / fmt
        sub.mkdir()
        (sub / "mkdocs.yml").write_text(fuzzing.IMPORT_CONFIG)
        r = sitegen_here("import", *project(sub, fmt), "-o", str(sub / "data" / "out"), "-q", cwd=sub)
        assert r.returncode == 0, (fmt, r.stderr)


def test_serving_cases_are_reproducible_and_reach_every_file():
    a = [fuzzing.make_serving_case(7, i, "lm-eval") for i in range(60)]
    b = [fuzzing.make_serving_case(7, i, "lm-eval") for i in reversed(range(60))][::-1]
    assert [(c.files, c.argv) for c in a] == [(c.files, c.argv) for c in b]
    assert {c.target for c in a} == set(SOURCES["lm-eval"][0])
    assert {fuzzing.import_kind(c.argv) for f in fuzzing.SERVING_FORMATS for c in [fuzzing.make_serving_case(7, 0, f)]} \
        == set(fuzzing.SERVING_FORMATS)
