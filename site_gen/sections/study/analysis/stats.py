"""The statistics of a study, on the log scale (a ratio's log is a difference, and run-to-run noise is
a share of the figure rather than an amount):

- A setup's figure at a load point from two or more runs: the geometric mean of the runs' figures,
  with Student's t interval whose variance is the setup's own run-to-run variance, pooled over its
  load points of the same load class (`pooled`): each run's figure already holds the scatter of its
  requests, so the variance between runs holds both levels, requests and runs.
- From one run: the figure with the bootstrap over its requests (within-run interval only).
- Two setups' ratio: the difference of the logs, its standard error from both setups' (Welch and
  Satterthwaite's degrees of freedom, `combine`); a p-value against the band (`p_beyond`: how
  surprising the difference would be if the true ratio lay inside the band, or inside the run-to-run
  allowance for a setup measured once); every comparison of the study's p-values adjusted together
  by Benjamini–Hochberg (`adjust`, statsmodels' `multipletests`).
"""
from __future__ import annotations

import math

import numpy as np

LEVEL = 0.95
ALPHA = 1 - LEVEL
# The false discovery rate the verdicts are held to (Benjamini–Hochberg over a study's comparisons).
FDR = 0.05


def t_quantile(df: float, level: float = LEVEL) -> float:
    """The two-sided quantile of Student's t with df degrees of freedom (the normal's at df = inf)."""
    from scipy.special import ndtri, stdtrit

    p = 1 - (1 - level) / 2
    if df != df or df <= 0:
        return math.nan
    return float(ndtri(p)) if math.isinf(df) else float(stdtrit(df, p))


def t_sf(x: float, df: float) -> float:
    """P(T > x) for Student's t with df degrees of freedom (the normal's at df = inf)."""
    from scipy.special import ndtr, stdtr

    return float(1 - ndtr(x)) if math.isinf(df) else float(1 - stdtr(df, x))


def combine(se_a: float, df_a: float, se_b: float, df_b: float) -> tuple[float, float]:
    """The standard error of a difference of two independent estimates and its degrees of freedom
    (Welch–Satterthwaite; a bootstrap's standard error counts as infinite degrees of freedom)."""
    va, vb = se_a * se_a, se_b * se_b
    se = math.sqrt(va + vb)
    if se == 0 or se != se:
        return se, math.inf
    terms = [v * v / d for v, d in ((va, df_a), (vb, df_b)) if not math.isinf(d) and v > 0]
    return se, ((va + vb) ** 2 / sum(terms)) if terms else math.inf


def pooled(groups: list[np.ndarray]) -> tuple[float, int]:
    """(variance, degrees of freedom) of values in groups, each about its own mean: the within-group
    mean square of a one-way analysis of variance. Groups of one value add nothing."""
    ss, df = 0.0, 0
    for g in groups:
        if g.size >= 2:
            ss += float(((g - g.mean()) ** 2).sum())
            df += g.size - 1
    return (ss / df if df else math.nan), df


def interval(estimate: float, se: float, df: float) -> tuple[float, float]:
    """The two-sided 95% interval estimate ± t·se (NaN without a standard error)."""
    if se != se:
        return (math.nan, math.nan)
    half = t_quantile(df) * se
    return (estimate - half, estimate + half)


def p_beyond(d: float, se: float, df: float, up: float, down: float) -> float:
    """The two-sided p-value of "the true log ratio lies within [-down, up]" against a difference d
    beyond it on d's side: 1 where d lies inside. p < 0.05 exactly when the 95% interval of d lies
    wholly beyond that edge (the interval rule of `analysis/verdict.py`, on logs)."""
    if d != d or se != se:
        return math.nan
    edge = up if d > 0 else down
    if se == 0:
        return 0.0 if abs(d) > edge else 1.0
    return min(1.0, 2 * t_sf((abs(d) - edge) / se, df))


def adjust(p: np.ndarray, rate: float = FDR) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Hochberg over every p-value at once: (rejected, adjusted p-values), NaN left out
    (not rejected, adjusted NaN).

    Why Benjamini–Hochberg, not Holm: when no setup differs, any discovery is a false one, and BH's
    chance of making any is then at most `rate`, as Holm's is (a study of identical setups shows a
    verdict in at most 5% of studies: benchmarks/study_simulation.py measures it). When setups do
    differ, a study makes hundreds of comparisons; Holm would hold each to 0.05 / hundreds and miss
    real differences of 15%, where BH keeps the share of false verdicts among the verdicts at 5%."""
    p = np.asarray(p, dtype=float)
    rejected = np.zeros(p.size, dtype=bool)
    adjusted = np.full(p.size, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        from statsmodels.stats.multitest import multipletests

        r, padj, _, _ = multipletests(p[ok], alpha=rate, method="fdr_bh")
        rejected[ok], adjusted[ok] = r, padj
    return rejected, adjusted


def allowance(variance: float, df: int, level: float = LEVEL) -> float:
    """How far apart two runs of one setup may lie (a log ratio): the 95% prediction bound of their
    difference, t(df) · √2 · s, from run-to-run variance s² measured with df degrees of freedom."""
    if variance != variance or df < 1:
        return math.nan
    return t_quantile(df, level) * math.sqrt(2 * variance)
