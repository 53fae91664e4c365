"""Fuzzing: thousands of mutated receipts, mkdocs.yml files and docs pages, each refused with one
`Error:` line or built, never an internal error, a traceback or a hang (tests/fuzzing.py).

    SITEGEN_FUZZ_SEED=7 SITEGEN_FUZZ_CASES=10000 pytest tests/test_fuzz.py -s

A failure prints each distinct cause with reproducers; `python benchmarks/fuzz.py --seed S
--case I --write DIR` runs one again and leaves its project in DIR.
"""
from __future__ import annotations

import os
import time

import pytest

import fuzzing

SEED = int(os.environ.get("SITEGEN_FUZZ_SEED", "18"))
CASES = int(os.environ.get("SITEGEN_FUZZ_CASES", "1000"))  # within the suite's time; benchmarks/fuzz.py for more
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

    monkeypatch.setattr("site_gen.build.reports.analyse", broken)
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        outcome = fuzzer.run(one_case)
    assert outcome.code == 2 and outcome.failure.startswith("exit 2: internal error: KeyError"), outcome.failure
    assert outcome.where.startswith("KeyError at site_gen/build/reports.py:"), outcome.where


def test_oracle_refuses_a_hang_within_the_bound(tmp_path, monkeypatch, one_case):
    monkeypatch.setattr("site_gen.build.reports.analyse", lambda *a, **k: time.sleep(30))
    start = time.perf_counter()
    with fuzzing.Fuzzer(tmp_path, bound=0.5) as fuzzer:
        outcome = fuzzer.run(one_case)
    assert time.perf_counter() - start < 20  # the hang is 30 s
    assert outcome.code is None and outcome.failure.startswith("hang at ")


def test_oracle_refuses_extra_error_lines_and_tracebacks():
    assert fuzzing.judge(1, "Error: a: b\n", "") == ""
    assert fuzzing.judge(0, "WARNING  x\n", "") == ""
    assert fuzzing.judge(1, "Error: a\nError: b\n", "") == "exit 1 with 2 'Error:' lines"
    assert fuzzing.judge(1, "", "") == "exit 1 with 0 'Error:' lines"
    assert fuzzing.judge(0, "Traceback (most recent call last):\n", "") == "a traceback in the output"
    assert fuzzing.judge(0, "Error: x\n", "") == "exit 0 with an 'Error:' line"
