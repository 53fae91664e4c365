"""The serving statistics (site_gen/analysis/bootstrap.py), the interval verdict rule and the `slo:`
option, each checked against numpy, textbook values or the rule as the guide words it."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from site_gen.analysis import bootstrap as bs
from site_gen.analysis.verdict import UNRESOLVED, band_verdict, interval_verdict
from site_gen.core.config import objectives
from site_gen.core.errors import SitegenError


@pytest.mark.slow
@pytest.mark.parametrize("n, nan", [(7, 0), (200, 0), (200, 9), (1000, 40)])
def test_resampled_percentiles_are_numpys_nanpercentile_of_the_same_draws(n, nan):
    rng = np.random.default_rng(n + nan)
    x = rng.lognormal(4, 0.7, n)
    x[rng.choice(n, nan, replace=False)] = np.nan
    idx = np.random.default_rng(0).integers(0, n, size=(bs.RESAMPLES, n))
    assert np.array_equal(bs.draws((n,), paired=False)[0], idx)  # the documented generator, nothing else
    got = bs.resampled(x, idx, (50, 90, 95, 99))
    with np.errstate(all="ignore"):
        want = np.stack([np.nanpercentile(x[idx], q, axis=1) for q in (50, 90, 95, 99)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def test_paired_draws_share_one_matrix_and_unpaired_draw_the_generators_first_two():
    a, b = bs.draws((50, 50), paired=True)
    assert a is b or np.array_equal(a, b)
    rng = np.random.default_rng(0)
    first, second = rng.integers(0, 50, (bs.RESAMPLES, 50)), rng.integers(0, 60, (bs.RESAMPLES, 60))
    u = bs.draws((50, 60), paired=False)
    assert np.array_equal(u[0], first) and np.array_equal(u[1], second)
    with pytest.raises(ValueError):
        bs.draws((50, 60), paired=True)


def test_enough_values_for_an_interval():
    x = np.arange(1.0, 201.0)
    assert bs.enough(x, 99)                 # 200 values, 2 at or above p99
    assert not bs.enough(x[:150], 99)       # 1.5 above
    assert bs.enough(x[:40], 95) and not bs.enough(x[:19], 50)
    x[:5] = np.nan
    assert not bs.enough(x, 99)             # 195 measured


@pytest.mark.parametrize("df, t", [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423), (120, 1.9799)])
def test_t_quantiles_are_the_tables(df, t):
    assert bs.t_quantile(0.975, df) == pytest.approx(t, abs=1e-4)


def test_log_intervals_over_runs():
    runs = np.array([100.0, 110.0, 121.0])
    m, lo, hi = bs.log_mean(runs)
    logs = np.log(runs)
    half = 4.3027 * logs.std(ddof=1) / math.sqrt(3)
    assert m == pytest.approx(110.0) and lo == pytest.approx(math.exp(logs.mean() - half), rel=1e-4)
    assert hi == pytest.approx(math.exp(logs.mean() + half), rel=1e-4)
    b, c = np.array([100.0, 104.0, 98.0]), np.array([120.0, 118.0, 125.0, 121.0])
    ratio, lo, hi = bs.log_ratio(b, c)
    lb, lc = np.log(b), np.log(c)
    vb, vc = lb.var(ddof=1) / 3, lc.var(ddof=1) / 4
    df = (vb + vc) ** 2 / (vb ** 2 / 2 + vc ** 2 / 3)
    half = bs.t_quantile(0.975, df) * math.sqrt(vb + vc)
    assert ratio == pytest.approx(math.exp(lc.mean() - lb.mean()))
    assert (lo, hi) == pytest.approx((ratio * math.exp(-half), ratio * math.exp(half)))


def test_wilson_interval():
    # Textbook values (Newcombe 1998, table I): 0 of 10, 10 of 10, 81 of 263.
    assert bs.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert bs.wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert bs.wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)


# -- the rule ------------------------------------------------------------------------------------

@pytest.mark.parametrize("ratio, low, high, want", [
    (1.12, 1.047, 1.40, UNRESOLVED),      # the A/A's median TTFT at rate inf: beyond 1, reaching into the band
    (1.30, 1.09, 1.50, "faster"),         # the whole interval beyond the band
    (1.02, 0.95, 1.08, "level"),          # inside, an edge included
    (1.02, 0.95, 1.081, UNRESOLVED),
    (0.70, 0.60, 0.919, "slower"),
    (0.80, 0.60, 0.92, UNRESOLVED),       # 0.92 is the band's edge: not beyond it
    (1.00, math.nan, math.nan, UNRESOLVED),
])
def test_interval_rule(ratio, low, high, want):
    assert interval_verdict(ratio, low, high, 0.08) == want
    flipped = {"faster": "slower", "slower": "faster"}.get(want, want)  # a latency: lower is faster
    assert interval_verdict(ratio, low, high, 0.08, higher_is_faster=False) == flipped


@settings(max_examples=400, deadline=None)
@given(st.floats(0.01, 10), st.floats(0.01, 10), st.floats(0.01, 10), st.floats(0.0, 0.5), st.booleans())
def test_the_rule_never_calls_a_ratio_whose_interval_holds_1(a, b, c, band, higher):
    low, ratio, high = sorted((a, b, c))
    v = interval_verdict(ratio, low, high, band, higher)
    if low <= 1 <= high:
        assert v in ("level", UNRESOLVED)
    if v in ("faster", "slower"):
        assert low > 1 + band or high < 1 - band      # wholly beyond the band on one side
        assert abs(ratio - 1) > band                  # so the ratio is outside it
    if v == "level":
        assert 1 - band - 1e-9 <= low and high <= 1 + band + 1e-9


def test_band_rule_of_a_latency():
    assert band_verdict(1.2, 0.08, higher_is_faster=False) == "slower"
    assert band_verdict(0.8, 0.08, higher_is_faster=False) == "faster"
    assert band_verdict(1.05, 0.08, higher_is_faster=False) == "level"


# -- slo: --------------------------------------------------------------------------------------------

def test_objectives_as_users_state_them():
    got = objectives({"tpot_p50_ms": 50, "ttft_p99_ms": 500.5}, "slo", None)
    assert got == (("ttft", 99, 500.5), ("tpot", 50, 50.0))
    assert objectives(None, "slo", None) == () == objectives({}, "slo", None)


@pytest.mark.parametrize("value, where, words", [
    ({"ttft_p98_ms": 5}, "slo.ttft_p98_ms", "unknown objective 'ttft_p98_ms' (did you mean 'ttft_p99_ms'?); expected METRIC_pNN_ms"),
    ({"ttft_p99_ms": 0}, "slo.ttft_p99_ms", "above 0 ms"),
    ({"ttft_p99_ms": "fast"}, "slo.ttft_p99_ms", "expected a number"),
    ({"ttft_p99_ms": float("nan")}, "slo.ttft_p99_ms", "finite"),
    ([500], "slo", "expected a mapping"),
])
def test_bad_objectives_are_refused_at_their_key(value, where, words):
    with pytest.raises(SitegenError) as e:
        objectives(value, "slo", None)
    assert e.value.where == where and words in e.value.message
