"""Display helpers every report page shares; each section's own view is in its module (site_gen/sections/)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from site_gen.analysis.report import Analysis

# numpy and pandas are imported by the helpers that read a frame, not here: a build that takes every
# report's pages from the store makes no frame, and its process never loads them (~0.3 s).
if TYPE_CHECKING:
    import pandas as pd


def _short_digest(image: str) -> str:
    # An image reference pinned by digest (schema 1.1, `name:tag@sha256:...`) is shown by its digest.
    image = image.rsplit("@", 1)[-1]
    return image[:15] + "\u2026" if len(image) > 15 else image


def _side_name(long: str, label: str) -> str:
    """A side as "What was tested" names it: its long name, with its label after it unless the long
    name holds it already (an import's long name ends with its label)."""
    return long if not long or long == label or label in long else f"{long} ({label})"


def engines(a: Analysis) -> dict[str, Any]:
    from site_gen.render import parts

    r = a.report
    cand, base = r.candidate, r.baseline
    named = parts.sides(a)
    return {
        "candidate": named.get("legend", cand.name) if named else cand.name, "candidate_label": cand.label, "candidate_version": cand.version,
        "candidate_named": _side_name(cand.long_name or cand.label, cand.label),
        "baseline_named": named["against"] if named else _side_name(base.long_name or base.label, base.label),
        "baseline": base.name, "baseline_label": base.label, "baseline_long": base.long_name or base.label,
        "candidate_image": cand.image, "baseline_image": base.image,
        "candidate_image_short": _short_digest(cand.image), "baseline_image_short": _short_digest(base.image),
    }


def first_sentence(text: str, limit: int = 240) -> str:
    """The text's first sentence when the whole is long (a pointer on every page); else the whole."""
    if len(text) <= limit:
        return text
    for stop in (". ", "; ", ": "):
        at = text.find(stop, 40, limit)
        if at > 0:
            return text[:at + 1] if stop == ". " else text[:at] + "\u2026"
    return text[:limit].rsplit(" ", 1)[0] + "\u2026"


def missing_reason(a: Analysis, checkpoint: str, role: str) -> str:
    for c in a.report.meta["checkpoints"]:
        if c["id"] == checkpoint:
            return c.get("missing", {}).get(role, "")
    return ""


_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def once(a: Analysis, key: tuple, make) -> Any:
    """What `make()` returns, made once per analysis and kept in `a.displayed` under `key`: a report's
    pages (and an author page's blocks) share a chart or table drawn from the same analysis."""
    if key not in a.displayed:
        a.displayed[key] = make()
    return a.displayed[key]


def number_word(n: int) -> str:
    return _NUMBER_WORDS.get(n, str(n))


def _plain(dtype) -> bool:
    """A column whose `tolist()` holds what `to_dict` gives: numpy's own types, and text whose
    missing value is NaN (pandas' default `str`)."""
    import numpy as np
    import pandas as pd

    return isinstance(dtype, np.dtype) or (isinstance(dtype, pd.StringDtype) and dtype.na_value is not pd.NA)


# numpy arrays whose `tolist()` is their Series' `tolist()`; dates and durations are not (numpy gives
# datetime and None where a Series gives Timestamp and NaT).
_NUMPY_KINDS = "biufcO"


def arrays(frame: pd.DataFrame) -> list:
    """Each column's values by position, as an array whose `tolist()` is the column's Series'
    `tolist()`. Read from the frame's blocks where pandas 2.x and 3.x keep them: a Series made per
    column costs ~30 us, most of a small view's or CSV table's time."""
    get = getattr(getattr(frame, "_mgr", None), "iget_values", None)
    return [_array(frame, i, get) for i in range(frame.shape[1])]


def _array(frame: pd.DataFrame, i: int, get) -> Any:
    import numpy as np
    import pandas as pd

    if get is not None:
        a = get(i)
        if len(a) == len(frame) and (isinstance(a, pd.api.extensions.ExtensionArray)
                                     or isinstance(a, np.ndarray) and a.dtype.kind in _NUMPY_KINDS):
            return a
    s = frame.iloc[:, i]
    return s.to_numpy() if isinstance(s.dtype, np.dtype) and s.dtype.kind in _NUMPY_KINDS else s.array


def rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """`frame.to_dict("records")`, the same values: each column is read once as Python objects
    (pandas builds the records value by value, most of a small view's time)."""
    import numpy as np

    names = frame.columns.tolist()
    if not names or not frame.columns.is_unique:
        return frame.to_dict("records")
    columns = []
    for column in arrays(frame):
        if not _plain(column.dtype):
            return frame.to_dict("records")  # pandas' own conversion of its nullable types
        values = column.tolist()
        if column.dtype == object and any(isinstance(v, np.generic) for v in values):
            return frame.to_dict("records")  # numpy scalars in a column of objects: pandas' own boxing
        columns.append(values)
    return [dict(zip(names, row)) for row in zip(*columns)]


def isna(value: Any) -> bool:
    """`pd.isna(value)` of one value, as a view reads a row's cells (`rows`): text, integers and
    booleans are never missing, a float is when NaN, None always; anything else is pandas' to say
    (pd.isna of a scalar is ~1 us, and a report's views ask it a few thousand times)."""
    kind = type(value)
    if kind is float:
        return value != value
    if kind is str or kind is int or kind is bool:
        return False
    if value is None:
        return True
    import pandas as pd

    return bool(pd.isna(value))
