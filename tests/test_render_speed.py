"""The render layer's fast paths give what the slow ones they replace give (pandas is the oracle)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from site_gen.render import views

FRAMES = {
    "mixed": pd.DataFrame({"checkpoint": ["a", "b", None], "n": [1, 2, 3], "x": [0.5, math.nan, 1e300],
                           "ok": [True, False, True]}),
    "numpy scalars in objects": pd.DataFrame({"v": pd.Series([np.int64(3), np.float64(0.25), "t"], dtype=object)}),
    "dates": pd.DataFrame({"d": pd.to_datetime(["2024-01-02", None, "2025-03-04"], format="ISO8601"), "k": ["x", "y", "z"]}),
    "strings": pd.DataFrame({"s": pd.Series(["p", None, "q"], dtype="string"), "i": pd.array([1, None, 2], dtype="Int64")}),
    "default text": pd.DataFrame({"s": ["p", None, "q"], "f": pd.array([1.5, None, 2], dtype="Float64")}),
    "empty rows": pd.DataFrame({"a": pd.Series([], dtype=float), "b": pd.Series([], dtype=object)}),
    "no columns": pd.DataFrame(index=range(2)),
    "duplicate names": pd.DataFrame([[1, 2]], columns=["a", "a"]),
}


def _same(got, want) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and (got == want or (got is want))


@pytest.mark.parametrize("name", list(FRAMES))
def test_rows_are_the_records_pandas_makes(name):
    frame = FRAMES[name]
    want = frame.to_dict("records")
    got = views.rows(frame)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert list(g) == list(w)
        assert all(_same(g[k], w[k]) for k in w), (g, w)
