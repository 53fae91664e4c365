"""views.isna says what pd.isna says of each kind of value a view's row holds."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from site_gen.render import views


@pytest.mark.parametrize("value", [
    None, math.nan, float("inf"), -0.0, 1.5, 0, 3, True, False, "", "x", "nan",
    np.nan, np.float64("nan"), np.float64(2.0), np.int64(4), pd.NA, pd.NaT, np.datetime64("NaT"),
    pd.Timestamp("2026-01-01"), np.bool_(True),
])
def test_isna_agrees_with_pandas(value):
    assert views.isna(value) is bool(pd.isna(value))
