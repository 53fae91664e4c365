"""need_rows: the rows of a figure's frame that match, as pandas' own comparisons select them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from site_gen.analysis.figures import FigureError, need_rows


def _pandas(frame: pd.DataFrame, **match) -> pd.DataFrame:
    for column, value in match.items():
        frame = frame[frame[column] == value]
    return frame


@pytest.mark.parametrize("match", [
    {"engine": "candidate"},
    {"engine": "baseline", "checkpoint": "b"},
    {"checkpoint": "a", "engine": "candidate"},
    {"n": 2},                   # not text: pandas compares
    {"engine": "candidate", "n": 1},
    {"mixed": "x"},             # None among the texts: pandas compares
])
def test_need_rows_selects_as_pandas_does(match):
    frame = pd.DataFrame({"checkpoint": ["a", "b", "a", np.nan, "b"],
                          "engine": ["candidate", "baseline", "baseline", "candidate", "candidate"],
                          "n": [1, 2, 2, 1, 1], "mixed": ["x", None, "x", "y", "x"]},
                         index=[10, 11, 12, 13, 14])
    got = need_rows(frame, "rows", "none", **match)
    pd.testing.assert_frame_equal(got, _pandas(frame, **match))


def test_need_rows_refuses_none_found_and_a_missing_text():
    frame = pd.DataFrame({"engine": ["candidate", np.nan]})
    with pytest.raises(FigureError, match="nothing"):
        need_rows(frame, "rows", "nothing", engine="other")
    with pytest.raises(FigureError, match="the report has no rows"):
        need_rows(frame.iloc[:0], "rows", "nothing", engine="candidate")
