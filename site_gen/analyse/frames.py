"""Receipt records -> flat DataFrames, each row keeping the JSON path it came from."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    for value in record.values():
        if isinstance(value, dict):
            break
    else:  # a flat record (a reply, a startup): its keys as they are
        return {f"{prefix}{key}": value for key, value in record.items()} if prefix else dict(record)
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "_"))
        else:
            out[name] = value
    return out


def records(items: Iterable[dict[str, Any]], path: str, columns: list[str] | None = None) -> pd.DataFrame:
    """One row per record; `source` holds its JSON path, e.g. `$.speed.cells[3]`."""
    rows = [flatten(item) for item in items]
    for i, row in enumerate(rows):
        row["source"] = f"{path}[{i}]"
    # Built column by column (what `DataFrame(rows)` does with a row's absent key: NaN), in order of
    # first appearance: a frame from a list of dicts goes through an object matrix, twice the cost.
    names = dict.fromkeys(name for row in rows for name in row)
    nan = float("nan")
    data = {name: typed([row.get(name, nan) for row in rows]) for name in names}
    if not rows:
        if not columns:
            return pd.DataFrame([])
        # In one call: adding the columns one at a time costs ~0.7 ms each, and most sections
        # of a small receipt have lists that are empty.
        return pd.DataFrame({column: np.array([], dtype=object) for column in columns}, index=pd.RangeIndex(0))
    for column in columns or ():
        if column not in data:
            data[column] = np.full(len(rows), np.nan, dtype=object)
    return pd.DataFrame(data)


# Small frames are summed and grouped over plain lists: a pandas groupby costs ~1-4 ms a call,
# whatever the frame's size, and a report's frames hold tens to hundreds of rows.

_INT64 = (-(1 << 63), 1 << 63)


def typed(values: list) -> list | np.ndarray:
    """`values` as the array pandas would infer from them when they are all numbers (or all booleans),
    else as they are: pandas infers a list's type value by value, ~0.2 ms a column of a frame."""
    kinds = set(map(type, values))
    if kinds == {bool}:
        return np.array(values, dtype=bool)
    if not kinds or not kinds <= {int, float}:
        return values
    if int in kinds and not all(_INT64[0] <= v < _INT64[1] for v in values if type(v) is int):
        return values  # beyond int64: pandas' own choice (uint64, object)
    return np.array(values, dtype=np.int64 if kinds == {int} else np.float64)


def frame(data: dict[str, Any], columns: list[str] | None = None) -> pd.DataFrame:
    """A DataFrame of columns given as lists (each `typed`), arrays or Series."""
    return pd.DataFrame({k: typed(v) if isinstance(v, list) else v for k, v in data.items()}, columns=columns)


def cells(rows: list, columns: list, values: list) -> dict[tuple, Any]:
    """The values by (row, column) key, as a pivot takes them: a key given twice is refused as pandas refuses it."""
    out: dict[tuple, Any] = {}
    for row, column, value in zip(rows, columns, values):
        if (row, column) in out:
            raise ValueError("Index contains duplicate entries, cannot reshape")
        out[row, column] = value
    return out


def missing(value: Any) -> bool:
    """None or NaN, as pandas' reductions skip them."""
    return value is None or value != value


def median(values: Iterable[Any]) -> float:
    """pandas' median: NaN skipped, the mean of the two middle values for an even count, NaN of none."""
    kept = sorted(float(v) for v in values if not missing(v))
    n = len(kept)
    if not n:
        return float("nan")
    return kept[n // 2] if n % 2 else (kept[n // 2 - 1] + kept[n // 2]) / 2


def groups(*keys: list) -> dict[tuple, list[int]]:
    """Row positions per key tuple, in order of first appearance (`groupby(sort=False)`); rows with
    a missing key are left out, as pandas drops them."""
    out: dict[tuple, list[int]] = {}
    dropped: set = set()
    for i, key in enumerate(zip(*keys)):
        rows = out.get(key)
        if rows is None:
            if key in dropped or any(missing(k) for k in key):
                dropped.add(key)  # NaN != NaN: a NaN key is checked again, and dropped again
                continue
            rows = out[key] = []
        rows.append(i)
    return out
