"""The bootstrap over requests in bounded memory (issue 50, item 9): the resample matrix is drawn and
read a block at a time, so a load point of any number of requests allocates about the same, and the
figures are those of the whole matrix drawn at once (numpy's replay, checked here independently)."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from site_gen.analysis import bootstrap as bs
from site_gen.sections.serving.analysis import latency
from site_gen.sections.serving.analysis.points import METRICS, PERCENTILES, Point


def point(role: str, n: int, seed: int) -> Point:
    rng = np.random.default_rng(seed)
    ttft = rng.lognormal(4, 0.5, n)
    tpot = rng.lognormal(3, 0.3, n)
    tpot[rng.random(n) < 0.02] = np.nan  # a few requests of one token: no TPOT
    rows = {"ttft": ttft, "tpot": tpot, "itl": tpot * 0.9, "e2e": ttft + 200 * np.nan_to_num(tpot, nan=10.0),
            "error": np.zeros(n, dtype=bool)}
    return Point(role, "rate-4", 0, "chat", 4.0, None, [{"stated": []}], [rows])


def peak_of(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_large_load_point_is_bootstrapped_in_bounded_memory():
    """12,000 requests a side: the whole matrix was 2,000 x 12,000 int64 (192 MB) and its ranks (96 MB);
    a 200,000-request receipt needed 6 GB."""
    b = bs.Bootstrap()
    pb, pc = point("baseline", 12_000, 1), point("candidate", 12_000, 2)

    def analyse():
        fb, fc = latency.side_figures(pb, METRICS, b), latency.side_figures(pc, METRICS, b)
        latency.compare(pb, pc, fb, fc, False, 0.08, b)

    peak = peak_of(analyse)
    matrix = b.resamples * 12_000 * 8
    assert peak < 48 << 20 and peak < matrix / 4, f"{peak / 1048576:.1f} MB at peak (the matrix alone is {matrix >> 20} MB)"


@pytest.mark.slow
def test_memory_does_not_grow_with_the_requests():
    b = bs.Bootstrap()
    points = [point("candidate", n, 3) for n in (4_000, 16_000)]
    peaks = [peak_of(lambda p=p: latency.side_figures(p, METRICS, b)) for p in points]
    # Four times the requests: the rows themselves (a few MB) grow, the resampling does not.
    assert peaks[1] < peaks[0] + 6 * 16_000 * 8 * 4, [p >> 20 for p in peaks]


@pytest.mark.parametrize("chunk", [1, 997, 1 << 21])
def test_the_figures_are_numpys_replay_of_the_whole_matrix(monkeypatch, chunk):
    """Whatever the block size, each side's resampled percentiles are np.nanpercentile of the values at
    default_rng(seed).integers(0, n, (resamples, n)); an unpaired candidate's, at the generator's
    second matrix (the module's documented replay)."""
    monkeypatch.setattr(bs, "CHUNK_ENTRIES", chunk)
    b = bs.Bootstrap(resamples=300)
    pb, pc = point("baseline", 120, 4), point("candidate", 90, 5)
    fb, fc = latency.side_figures(pb, METRICS, b), latency.side_figures(pc, METRICS, b)
    rng = np.random.default_rng(b.seed)
    first, second = rng.integers(0, 120, (300, 120)), rng.integers(0, 90, (300, 90))
    for metric in METRICS:
        want = np.nanpercentile(pb.rows[0][metric][first], PERCENTILES, axis=1).T
        assert np.allclose(fb[metric].resampled, want, rtol=0, atol=1e-9, equal_nan=True), metric
    unpaired = bs.resampled_each({m: pc.rows[0][m] for m in METRICS}, PERCENTILES, b, after=(120,))
    for metric in METRICS:
        want = np.nanpercentile(pc.rows[0][metric][second], PERCENTILES, axis=1).T
        assert np.allclose(unpaired[metric], want, rtol=0, atol=1e-9, equal_nan=True), metric
    cells = latency.compare(pb, pc, fb, fc, False, 0.08, b)
    ratios = unpaired["ttft"] / fb["ttft"].resampled
    low, high = np.percentile(ratios[:, 1], [2.5, 97.5])
    p90 = next(c for c in cells["ttft"] if c.percentile == 90)
    assert (p90.low, p90.high) == pytest.approx((low, high), abs=1e-12)
