"""benchmarks/study_simulation.py at reduced size: studies of 3 to 10 identical setups drawn from the
real llm-k8s runs with the measured A/A spread. The study rule (3 runs a setup) shows a faster or
slower verdict in at most 5% of them and finds one setup made 15% slower in at least 80%; the pair
rule of today (one run each, no correction for many comparisons) shows verdicts in most null studies."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import ROOT
from test_import_serving import need_real2

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

sys.path.insert(0, str(ROOT / "benchmarks"))
import study_simulation as sim  # noqa: E402


@pytest.fixture(scope="module")
def drawn():
    need_real2()
    runs = sim.real_runs(sim.REAL2)
    return runs, sim.aa_spread(runs)


def test_the_aa_spread_is_measured_from_the_two_infiniband_runs(drawn):
    runs, spread = drawn
    a, b = runs["03_tp4_pp2_IB"], runs["04_tp4_pp2_IB"]
    d = [np.log(np.percentile(y.tpot[~np.isnan(y.tpot)], q) / np.percentile(x.tpot[~np.isnan(x.tpot)], q))
         for x, y in zip(a, b) for q in (50, 99)]
    assert spread.run["tpot"] == pytest.approx(np.sqrt(np.mean(np.square(d)) / 2))
    assert 0 < spread.run["ttft"] < 0.2 and 0 < spread.request["ttft"].std() < 1


def test_the_study_rule_keeps_false_verdicts_rare_and_finds_a_15_percent_shift(drawn):
    runs, spread = drawn
    rows = sim.rows_of(runs, 40, 11, spread, 3, "study")
    assert rows["null"]["wrong"] / 40 <= 0.05, rows
    assert rows["shift"]["found"] / 40 >= 0.80, rows
    assert rows["shift"]["wrong"] / 40 <= 0.05, rows


def test_todays_pair_rule_one_run_each_gives_false_verdicts_in_most_studies(drawn):
    runs, spread = drawn
    rows = sim.rows_of(runs, 6, 11, spread, 1, "pair")
    assert rows["null"]["wrong"] / 6 >= 0.5, rows


def test_judge_reads_a_verdict_as_the_setup_it_calls_worse():
    assert sim.judge([("s1", "s0", "ttft", "faster")], "s0") == (False, True)   # s1 faster than s0: s0 worse
    assert sim.judge([("s0", "s1", "output_tokens_per_s", "slower")], "s0") == (False, True)
    assert sim.judge([("s0", "s1", "ttft", "faster")], "s0") == (True, False)
    assert sim.judge([("s2", "s1", "ttft", "level")], None) == (False, False)
