"""Every receipt the schema accepts is built (exit 0) or refused as bad input (exit 1, one `Error:`
line), never an internal error: a property over receipts drawn from the published JSON Schema
(tests/receipt_strategies.py), run through the CLI in-process by the fuzz test's runner.

    SITEGEN_SCHEMA_EXAMPLES=3000 SITEGEN_SCHEMA_SEED=7 pytest tests/test_schema_receipts.py -s   # a longer run, another sample

`sitegen check` renders every page in memory, so it costs what a build costs less the writing:
each example runs `check`; a quarter also `summary` in one of its formats, one in twenty `build`.
"""
from __future__ import annotations

import itertools
import json
import os
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

import fuzzing
from receipt_strategies import receipts, shape
from site_gen.commands import new

EXAMPLES = int(os.environ.get("SITEGEN_SCHEMA_EXAMPLES", "120"))
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
