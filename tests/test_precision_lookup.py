"""Precision's table by a lookup of each result's measure (sections/precision/analysis.py `differences`)
against the same table by pandas' merge (`_merged`, the general path), on varied random results."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from site_gen.sections.precision import analysis as precision

MEASURES = pd.DataFrame([
    {"id": "kl", "label": "KL", "panel": "P-A", "vocabulary": "full", "unit": "nats", "further": "higher"},
    {"id": "top1", "label": "Top-1 agreement", "panel": "P-Ä", "vocabulary": "full", "unit": "percent", "further": "lower"},
    {"id": "ppl", "label": "困惑度", "panel": "P-B", "vocabulary": "top-k", "unit": "", "further": "higher"},
])


def _results(rng: random.Random) -> pd.DataFrame:
    rows = []
    for i in range(rng.choice([1, 2, 5, 12])):
        row = {"checkpoint": rng.choice(["K4", "K6", "Ünï"]), "measure": rng.choice(["kl", "top1", "ppl"]),
               "baseline_value": rng.choice([0.5, 93.0, None]), "candidate_value": rng.choice([0.6, 92.0]),
               "source": f"$.precision.results[{i}]"}
        if rng.random() < 0.8:  # an unpaired result has no difference, nor interval
            low = rng.choice([-0.2, 0.0, 0.1])
            row.update(difference=rng.choice([-0.1, 0.0, 0.05, 0.3]), interval=[low, low + rng.choice([0.0, 0.1, 0.4])])
        if rng.random() < 0.7:
            row.update(baseline_date="2026-01-01", candidate_date=rng.choice(["2026-01-01", "2026-01-02"]))
        rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(40))
def test_the_lookup_is_the_merge(seed):
    rng = random.Random(seed)
    res = _results(rng)
    if seed % 3 == 0:  # results on another index (a filtered frame): the table is on 0, 1, ... all the same
        res.index = pd.RangeIndex(10, 10 + len(res))
    got = precision.differences(res, MEASURES)
    want = precision._merged(res.reset_index(drop=True), MEASURES[["id", *precision._MEASURE]].rename(columns={"id": "measure"}))
    pd.testing.assert_frame_equal(got, want)
    assert type(got.index) is pd.RangeIndex and list(got.index) == list(range(len(res)))
    assert got.columns.tolist() == precision.COLUMNS
