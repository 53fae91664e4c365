"""Fuzzing: thousands of mutated receipts, mkdocs.yml files and docs pages, each refused with one
`Error:` line or built, never an internal error, a traceback or a hang (tests/fuzzing.py); and
thousands of mutated import sources (a ledger of every protocol, a study), each imported into a
receipt sitegen loads or refused with one `Error:` line.

    SITEGEN_FUZZ_SEED=7 SITEGEN_FUZZ_CASES=10000 SITEGEN_FUZZ_IMPORT_CASES=20000 pytest tests/test_fuzz.py -s

A failure prints each distinct cause with reproducers; `python benchmarks/fuzz.py --seed S
--case I --write DIR` runs one again and leaves its project in DIR.
"""
from __future__ import annotations

import os
import threading
import time

import pytest

import fuzzing

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

SEED = int(os.environ.get("SITEGEN_FUZZ_SEED", "18"))
CASES = int(os.environ.get("SITEGEN_FUZZ_CASES", "700"))  # within the suite's time; benchmarks/fuzz.py for more
IMPORT_CASES = int(os.environ.get("SITEGEN_FUZZ_IMPORT_CASES", "1400"))
CHUNKS = 4  # separate tests, so that pytest-xdist spreads the cases over its workers


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz(chunk, tmp_path, capsys):
    start, stop = CASES * chunk // CHUNKS, CASES * (chunk + 1) // CHUNKS
    totals = fuzzing.Totals()
    cpu = time.process_time()
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        for case in fuzzing.cases(SEED, stop - start, start):
            totals.add(fuzzer.run(case))
    with capsys.disabled():
        print(f"\nfuzz, seed {SEED}, cases {start}-{stop - 1}: {totals.line()}; {time.process_time() - cpu:.1f} s of CPU")
    assert not totals.failures, f"seed {SEED}, cases {start}-{stop - 1}: {totals.line()}\n{totals.report()}"
    # A fuzz run whose cases all stop at the first check, or all pass it, tests little.
    assert min(totals.codes[0], totals.codes[1]) >= totals.cases // 10, totals.line()


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz_imports(chunk, tmp_path, capsys):
    start, stop = IMPORT_CASES * chunk // CHUNKS, IMPORT_CASES * (chunk + 1) // CHUNKS
    totals = fuzzing.Totals()
    cpu = time.process_time()
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        for case in fuzzing.import_cases(SEED, stop - start, start):
            totals.add(fuzzer.run(case))
    with capsys.disabled():
        print(f"\nfuzz imports, seed {SEED}, cases {start}-{stop - 1}: {totals.line()}; {time.process_time() - cpu:.1f} s of CPU")
    assert not totals.failures, f"seed {SEED}, import cases {start}-{stop - 1}: {totals.line()}\n{totals.report()}"
    assert min(totals.codes[0], totals.codes[1]) >= totals.cases // 10, totals.line()


def test_import_cases_cover_every_format_and_protocol():
    cases = list(fuzzing.import_cases(SEED, 400))
    formats = {c.argv[1] for c in cases}
    assert formats == {"ledger", "cuteafd-study"}
    named = " ".join(" ".join(c.argv) for c in cases if c.argv[1] == "ledger")
    for protocol in ("probe", "tool", "gpqa"):
        assert f"_{protocol}-" in named or f"--comparison {protocol}" in named, protocol
    files = {c.target for c in cases}
    assert any(f.endswith("results.jsonl") for f in files) and any(f.endswith("summary.json") for f in files)
    assert any(f.endswith("run.json") for f in files) and any("configs/" in f for f in files) and fuzzing.STUDY_FILE in files


def test_unmutated_import_sources_import(tmp_path):
    """The sources every import case starts from are valid: each failure of a case is the mutation's."""
    files = fuzzing._import_files(fuzzing.ledger_trees(), fuzzing.STUDY_TEXT)
    commands = [["import", "ledger", fuzzing.LEDGER_DIR, "--comparison", c] for c in sorted(fuzzing.COMPARISONS)]
    commands += [["import", "ledger", fuzzing.LEDGER_DIR, "--baseline", a, "--candidate", b] for a, b in fuzzing.COMPARISONS.values()]
    commands += [["import", "cuteafd-study", fuzzing.STUDY_FILE]]
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        for argv in commands:
            outcome = fuzzer.run(fuzzing.Case(SEED, 0, "base", [], files, argv + ["-o", fuzzing.IMPORT_OUT, "-q"],
                                              fresh=("data",)))
            assert (outcome.code, outcome.failure) == (0, ""), f"sitegen {' '.join(argv)}: {outcome.output}"


def test_page_cases_reach_the_nesting_bounds():
    shapes = [fuzzing.nesting(__import__("random").Random(i)) for i in range(300)]
    assert any(s.count("\n") >= 299 for s in shapes)  # a list or quote nested 300 deep
    assert any("[" * 1000 in s for s in shapes) and any(s.startswith(">" * 51) for s in shapes)


def test_cases_are_reproducible():
    """The same seed and index give the same case, made alone or in a run; other seeds differ."""
    run = list(fuzzing.cases(SEED, 40))
    again = [fuzzing.make_case(SEED, i) for i in reversed(range(40))][::-1]
    assert [(c.mutations, c.files, c.argv) for c in run] == [(c.mutations, c.files, c.argv) for c in again]
    other = list(fuzzing.cases(SEED + 1, 40))
    assert sum(a.files == b.files for a, b in zip(run, other)) < 5


def test_unmutated_project_builds(tmp_path):
    """The inputs every case starts from are valid: each failure of a case is the mutation's."""
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        for receipt in fuzzing.RECEIPTS:
            case = fuzzing.make_case(SEED, 0)
            case.files = fuzzing.base_files(receipt)
            for argv in (["check", "-q", "--strict"], ["build", "-q", "-d", "{site}"], ["summary", "--format", "json"]):
                case.argv = argv
                outcome = fuzzer.run(case)
                assert (outcome.code, outcome.output) == (0, outcome.output) and "Error" not in outcome.output, \
                    f"{receipt} receipt, sitegen {' '.join(argv)}: {outcome.output}"


@pytest.fixture
def one_case(tmp_path):
    case = fuzzing.make_case(SEED, 0)
    case.files, case.argv = fuzzing.base_files("new"), ["check", "-q"]
    return case


def test_oracle_refuses_an_internal_error(tmp_path, monkeypatch, one_case):
    def broken(*args, **kwargs):
        raise KeyError("made up")

    monkeypatch.setattr("site_gen.building.reports.analyse", broken)
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        outcome = fuzzer.run(one_case)
    assert outcome.code == 2 and outcome.failure.startswith("exit 2: internal error: KeyError"), outcome.failure
    assert outcome.where.startswith("KeyError at site_gen/building/reports.py:"), outcome.where


def test_oracle_refuses_a_hang_within_the_bound(tmp_path, monkeypatch, one_case):
    """A case computing far past its bound is stopped in the middle: counted in steps of work, the
    hang's loop never gets to its end (a billion steps, a minute or more of CPU)."""
    steps = {"done": 0, "finished": False}

    def hang(*args, **kwargs):
        for steps["done"] in range(10 ** 9):
            pass
        steps["finished"] = True

    monkeypatch.setattr("site_gen.building.reports.analyse", hang)
    with fuzzing.Fuzzer(tmp_path, bound=0.5) as fuzzer:
        outcome = fuzzer.run(one_case)
    assert outcome.code is None and outcome.failure.startswith("hang at ")
    assert 0 < steps["done"] < 10 ** 9 - 1 and not steps["finished"]


def test_oracle_refuses_a_case_that_waits_without_computing(tmp_path, monkeypatch, one_case):
    """A case blocked on something (no CPU used) is stopped by the wall clock's bound, ten CPU bounds."""
    woke = threading.Event()
    monkeypatch.setattr("site_gen.building.reports.analyse", lambda *a, **k: woke.wait(600))
    with fuzzing.Fuzzer(tmp_path, bound=0.2) as fuzzer:
        outcome = fuzzer.run(one_case)
    assert outcome.code is None and outcome.failure.startswith("hang at ") and not woke.is_set()


def test_oracle_refuses_extra_error_lines_and_tracebacks():
    assert fuzzing.judge(1, "Error: a: b\n", "") == ""
    assert fuzzing.judge(0, "WARNING  x\n", "") == ""
    assert fuzzing.judge(1, "Error: a\nError: b\n", "") == "exit 1 with 2 'Error:' lines"
    assert fuzzing.judge(1, "", "") == "exit 1 with 0 'Error:' lines"
    assert fuzzing.judge(0, "Traceback (most recent call last):\n", "") == "a traceback in the output"
    assert fuzzing.judge(0, "Error: x\n", "") == "exit 0 with an 'Error:' line"
