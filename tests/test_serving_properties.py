"""Properties of the serving verdicts, with hypothesis: for receipts whose two sides are drawn from
one distribution (an A/A pair, paired or not, with failed and one-token requests), at most about
5% of the ratios' 95% intervals exclude 1 (the intervals' coverage holds), and no ratio whose
interval holds 1 is ever called faster or slower. Derandomized: the same examples every run."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import serving_receipts as sr
import pytest

from site_gen.sections.serving.analysis import analyse

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

BATCH = 20
one_receipt = st.fixed_dictionaries({
    "seed": st.integers(0, 2**31 - 1), "n": st.integers(120, 400), "paired": st.booleans(),
    "failed": st.integers(0, 4), "one_token": st.integers(0, 4), "sigma": st.sampled_from((0.2, 0.5, 0.9)),
})


def a_a(p: dict) -> dict:
    rng = np.random.default_rng(p["seed"])
    sides = {}
    for role in ("baseline", "candidate"):
        points = []
        for _ in range(2):
            rows = sr.rows(rng, p["n"], failed=p["failed"], one_token=p["one_token"])
            spread = rng.lognormal(0, p["sigma"], p["n"])  # a wider or narrower latency distribution, the same on both sides
            for m in ("ttft_ms", "e2e_ms"):
                rows[m] = [None if v is None else v * s for v, s in zip(rows[m], spread)]
            points.append([rows])
        sides[role] = points
    if p["paired"]:
        for b, c in zip(sides["baseline"], sides["candidate"]):
            c[0]["input_tokens"] = list(b[0]["input_tokens"])
    return sr.receipt(sides, rates=(1, "inf"), paired=p["paired"])


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(one_receipt, min_size=BATCH, max_size=BATCH))
def test_a_a_intervals_cover_1_and_the_rule_never_calls_them(batch):
    base = SimpleNamespace(band=0.08, slo=())
    with_interval = excluding = 0
    for p in batch:
        cells = analyse(base, a_a(p)["serving"]).cells
        lat = cells[cells["kind"] == "latency"]
        for ratio, low, high, verdict in zip(lat["ratio"], lat["low"], lat["high"], lat["verdict"]):
            if low != low:
                assert verdict == "not resolved"
                continue
            with_interval += 1
            excluding += not (low <= 1 <= high)
            if low <= 1 <= high:
                assert verdict in ("level", "not resolved"), (ratio, low, high, verdict)
    assert with_interval >= BATCH * 12  # most cells carry an interval (a p99 of fewer than 200 requests has none)
    assert excluding / with_interval <= 0.075, (excluding, with_interval)
