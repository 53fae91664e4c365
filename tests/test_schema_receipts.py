"""Every receipt the schema accepts is built (exit 0) or refused as bad input (exit 1, one `Error:`
line), never an internal error: a property over receipts drawn from the published JSON Schema
(tests/receipt_strategies.py), run through the CLI in-process by the fuzz test's runner.

Two runs of it: thousands of receipts from the seeded random walker (`random_receipt`), many
reports to a project so that one command covers many; and fewer from the hypothesis strategy
(`receipts()`), one to a project, which can shrink a failure (SITEGEN_SCHEMA_SHRINK=1).

    SITEGEN_SCHEMA_RECEIPTS=30000 SITEGEN_SCHEMA_SEED=7 pytest tests/test_schema_receipts.py -s -k thousands
    SITEGEN_SCHEMA_EXAMPLES=3000 SITEGEN_SCHEMA_SEED=7 pytest tests/test_schema_receipts.py -s -k internal_error

`sitegen check` renders every page in memory, so it costs what a build costs less the writing:
each example runs `check`; some also `summary` in one of its formats, fewer `build`.
"""
from __future__ import annotations

import copy
import itertools
import json
import os
import random
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

import fuzzing
import receipt_strategies
from receipt_strategies import random_receipt, receipts, shape
from site_gen.building import builder as build, reports as report_store
from site_gen.receipts import load
from site_gen.building import starter as new
from site_gen.core.errors import SitegenError

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

# ~0.04 s of CPU a receipt from the random walker (check on each, summary or build on some), ~0.5 s an
# example from hypothesis: about two minutes of one worker, shorter than the browser's page checks.
RECEIPTS = int(os.environ.get("SITEGEN_SCHEMA_RECEIPTS", "1500"))  # from the random walker
EXAMPLES = int(os.environ.get("SITEGEN_SCHEMA_EXAMPLES", "20"))  # from the hypothesis strategy
# Reports per project. Their builds do not fork workers (`serial_builds`): the workers' CPU time would be
# missing from the totals printed, and the suite already runs two processes on two cores.
BATCH = 40
SEED = os.environ.get("SITEGEN_SCHEMA_SEED")  # another sample than CI's fixed one
PAGES = {fuzzing.PAGES[0]: new.PAGE}
# Shrinking a failure takes minutes of builds: off unless asked for (the failure message holds the receipt).
PHASES = tuple(Phase) if os.environ.get("SITEGEN_SCHEMA_SHRINK") else (Phase.explicit, Phase.generate)
SETTINGS = settings(max_examples=EXAMPLES, derandomize=SEED is None, database=None, deadline=None, print_blob=False,
                    suppress_health_check=list(HealthCheck), phases=PHASES)


def commands(n: int) -> list[list[str]]:
    """The commands of the n-th example (by count, not drawn: hypothesis would favour the first)."""
    out = [["check", "-q"]]
    if n % 4 == 0:
        out.append(["summary", "--format", ("json", "markdown", "text")[n // 4 % 3]])
    if n % 20 == 1:
        out.append(["build", "-q", "-d", "{site}"])
    return out


def test_no_receipt_the_schema_accepts_is_an_internal_error(tmp_path, capsys):
    codes: dict[str, int] = {}
    failures: list[str] = []
    start, cpu = time.perf_counter(), time.process_time()

    count = itertools.count()

    @seed(int(SEED or 0))
    @SETTINGS
    @given(receipt=receipts())
    def run(receipt):
        for argv in commands(next(count)):
            case = fuzzing.Case(0, 0, fuzzing.RECEIPT, [], fuzzing.files_of(receipt, fuzzing.TOP, fuzzing.OPTIONS, "", PAGES), argv)
            outcome = fuzzer.run(case)
            key = f"{argv[0]} exit {outcome.code}"
            codes[key] = codes.get(key, 0) + 1
            if outcome.failure:
                kept = tmp_path / f"failed-{len(failures)}.json"  # the whole receipt, to run again
                kept.write_text(json.dumps(receipt), encoding="utf-8", errors="surrogatepass")
                failures.append(f"sitegen {' '.join(argv)}: {outcome.failure} ({outcome.where}); shape {shape(receipt)}\n"
                                f"    {outcome.tail()}\n    receipt: {kept}")
            assert not outcome.failure, failures[-1]

    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        run()
    seconds = time.perf_counter() - start
    with capsys.disabled():
        print(f"\nschema receipts: {EXAMPLES} examples in {seconds:.1f} s ({EXAMPLES / seconds:.1f}/s, "
              f"{time.process_time() - cpu:.1f} s of CPU): {dict(sorted(codes.items()))}")
    assert not failures, failures[0]
    # Receipts that the meaning checks refuse test little here (tests/test_fuzz.py mutates those): most must pass.
    assert codes.get("check exit 0", 0) >= 0.8 * EXAMPLES, codes


def batch_commands(n: int) -> list[list[str]]:
    """The commands run on the n-th project of many receipts."""
    out = [["check", "-q"]]  # renders every page: what `build` adds is the writing, `summary` its formats
    if n % 8 == 1:
        out.append(["summary", "--format", ("json", "markdown", "text")[n // 8 % 3]])
    if n % 16 == 3:
        out.append(["build", "-q", "-d", "{site}"])
    return out


def folder(i: int) -> str:
    return f"data/receipt-{i:05d}/SUMMARY.json"


def project(receipts_by_index: dict[int, dict], argv: list[str]) -> fuzzing.Case:
    """One project holding each receipt as its own report (`data/receipt-<index>/`)."""
    files = {fuzzing.CONFIG: fuzzing.config_text(fuzzing.TOP, fuzzing.OPTIONS).encode(), fuzzing.PAGES[0]: new.PAGE.encode()}
    for i, receipt in receipts_by_index.items():
        files[folder(i)] = (json.dumps(receipt) + "\n").encode("utf-8", "surrogatepass")
    return fuzzing.Case(0, 0, "receipts", [], files, argv)


def run(fuzzer: fuzzing.Fuzzer, receipts_by_index: dict[int, dict], argv: list[str]) -> fuzzing.Outcome:
    fuzzer.bound = 10.0 + 1.0 * len(receipts_by_index)  # the hang bound of one receipt, and a second for each more
    return fuzzer.run(project(receipts_by_index, argv))


def refusal(receipt: dict) -> str:
    """Why sitegen's loader refuses the receipt ('' when it does not): the schema and the meaning checks, in-process."""
    data = json.loads(json.dumps(receipt))
    try:
        load.validate_schema(data, Path(folder(0)))
        load.validate_meaning(data, Path(folder(0)))
    except SitegenError as exc:
        return str(exc)
    return ""


class Receipts:
    """Runs receipts of the random walker many to a project; keeps the exit codes and the failures.

    Receipt `i` is `random_receipt(random.Random(f"{seed}:{i}"))`: a failure names it, and keeps it
    to run again. Each receipt is first checked alone in-process (cheap); one that is refused runs
    alone through `sitegen check` (exit 1, one Error line). The accepted ones go BATCH to a project;
    a project that does not exit 0 runs again one receipt at a time, to name the receipt at fault."""

    def __init__(self, fuzzer: fuzzing.Fuzzer, seed: int, kept: Path):
        self.fuzzer, self.seed, self.kept = fuzzer, seed, kept
        self.codes: Counter = Counter()
        self.failures: list[str] = []

    def record(self, indices: dict[int, dict], argv: list[str], outcome: fuzzing.Outcome) -> None:
        self.codes[f"{argv[0]} exit {outcome.code}"] += len(indices)
        if not outcome.failure:
            return
        kept = self.kept / f"failed-{len(self.failures)}"
        kept.mkdir()
        for i, receipt in indices.items():
            (kept / f"{i}.json").write_text(json.dumps(receipt), encoding="utf-8", errors="surrogatepass")
        which = (f"receipt {next(iter(indices))} (seed {self.seed}), shape {shape(next(iter(indices.values())))}"
                 if len(indices) == 1 else f"receipts {min(indices)}-{max(indices)} (seed {self.seed}) together, each fine alone")
        self.failures.append(f"sitegen {' '.join(argv)}: {outcome.failure} ({outcome.where}); {which}\n"
                             f"    {outcome.tail()}\n    receipts kept in: {kept}")

    def batch(self, n: int, indices: range) -> None:
        """The n-th project: the receipts of `indices`, through `batch_commands(n)`."""
        drawn = {i: random_receipt(random.Random(f"{self.seed}:{i}")) for i in indices}
        accepted = {i: r for i, r in drawn.items() if not refusal(r)}
        for i in sorted(drawn.keys() - accepted.keys()):
            self.record({i: drawn[i]}, ["check", "-q"], run(self.fuzzer, {i: drawn[i]}, ["check", "-q"]))
        for argv in batch_commands(n) if accepted else []:
            outcome = run(self.fuzzer, accepted, argv)
            if outcome.code == 0 and not outcome.failure:
                self.record(accepted, argv, outcome)
                continue
            self.codes[f"{argv[0]} exit {outcome.code}, a project of {len(accepted)}"] += 1
            before = len(self.failures)
            for i, r in accepted.items():
                self.record({i: r}, argv, run(self.fuzzer, {i: r}, argv))
            if outcome.failure and len(self.failures) == before:
                self.record(accepted, argv, outcome)


@pytest.fixture
def serial_builds(monkeypatch) -> None:
    monkeypatch.setattr(build, "PARALLEL_MIN_REPORTS", 10 ** 9)
    monkeypatch.setenv("SITEGEN_PARALLEL_MIN_REPORTS", str(10 ** 9))


def test_thousands_of_schema_receipts(tmp_path, capsys, serial_builds):
    start, cpu = time.perf_counter(), time.process_time()
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        receipts_run = Receipts(fuzzer, int(SEED or 0), tmp_path)
        for n, first in enumerate(range(0, RECEIPTS, BATCH)):
            receipts_run.batch(n, range(first, min(first + BATCH, RECEIPTS)))
            assert not receipts_run.failures, receipts_run.failures[0]
    seconds, codes = time.perf_counter() - start, receipts_run.codes
    with capsys.disabled():
        print(f"\nrandom schema receipts: {RECEIPTS} receipts in {seconds:.1f} s ({RECEIPTS / seconds:.1f}/s, "
              f"{time.process_time() - cpu:.1f} s of CPU): {dict(sorted(codes.items()))}")
    assert codes["check exit 0"] >= 0.8 * RECEIPTS, codes


def test_a_failing_project_names_its_receipt(tmp_path, monkeypatch):
    """An internal error on one report of a project is traced to that receipt, the others pass."""
    real = report_store.analyse

    def analyse(report, *args):
        if report.id == "receipt-00002":
            raise RuntimeError("planted")
        return real(report, *args)

    monkeypatch.setattr(report_store, "analyse", analyse)
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        receipts_run = Receipts(fuzzer, 0, tmp_path)
        receipts_run.batch(0, range(4))
    assert len(receipts_run.failures) == 1, receipts_run.failures
    assert "planted" in receipts_run.failures[0] and "receipt 2 (seed 0)" in receipts_run.failures[0]
    assert receipts_run.codes["check exit 0"] == 3 and receipts_run.codes["check exit 2, a project of 4"] == 1


def test_the_walker_draws_what_the_schema_adds(monkeypatch):
    """A field the schema adds is drawn by the random walker with no change to it, within its pattern."""
    grown = copy.deepcopy(receipt_strategies.schema())
    grown["properties"]["report"]["properties"]["new_field"] = {"type": "string", "pattern": "^z[0-9]+$"}
    monkeypatch.setattr(receipt_strategies, "schema", lambda version=1: grown)
    receipt_strategies._random_parts.cache_clear()
    try:
        drawn = [random_receipt(random.Random(i))["report"].get("new_field") for i in range(40)]
    finally:
        receipt_strategies._random_parts.cache_clear()
    values = [v for v in drawn if v is not None]
    assert 5 < len(values) < 35 and all(re.fullmatch(r"z[0-9]+", v) for v in values), drawn


def test_precision_intervals_all_zero_draw_an_axis(tmp_path):
    """Found by the property: every interval [0, 0] made the forest plot's axis zero wide (exit 2)."""
    receipt = new.receipt()
    for r in receipt["precision"]["results"]:
        r["difference"], r["interval"] = 0.0, [0.0, 0.0]
    case = fuzzing.Case(0, 0, fuzzing.RECEIPT, [], fuzzing.files_of(receipt, fuzzing.TOP, fuzzing.OPTIONS, "", PAGES),
                        ["build", "-q", "-d", "{site}"])
    with fuzzing.Fuzzer(tmp_path) as fuzzer:
        outcome = fuzzer.run(case)
    assert (outcome.code, outcome.failure) == (0, ""), outcome.output
