"""Receipt records -> flat DataFrames, each row keeping the JSON path it came from."""
from __future__ import annotations

import functools
from itertools import chain
from operator import itemgetter
from typing import Any
from collections.abc import Iterable

import numpy as np
import pandas as pd

try:  # pandas' own inference of one column, as DataFrame(dict) applies it (pandas 2.2 and 3.x)
    from pandas.core.construction import sanitize_array as _sanitize
except ImportError:  # pragma: no cover - a pandas without it builds every frame through DataFrame()
    _sanitize = None


# What a record parsed from JSON holds besides objects: a record of these alone is flat.
_NOT_DICTS = frozenset({str, int, float, bool, type(None), list})


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    # Its values' types taken in C (most records, a reply or a startup, hold no object at all).
    if set(map(type, record.values())) <= _NOT_DICTS or not any(isinstance(v, dict) for v in record.values()):
        # a flat record: its keys as they are
        return {f"{prefix}{key}": value for key, value in record.items()} if prefix else dict(record)
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "_"))
        else:
            out[name] = value
    return out


def _uniform(items: list[dict[str, Any]], prefix: str, out: dict[str, list]) -> bool:
    """Adds to `out` the columns of records that hold the same keys in the same order, each key's
    values all objects or none (most lists of a receipt: every speed cell has its `baseline` and
    `candidate`), a field at a time, each taken in C: the names and values flattening them record by
    record gives. False for records of any other shape (`out` then holds a part of them)."""
    keys = list(items[0])
    if any(list(item) != keys for item in items):
        return False
    for key in keys:
        values = list(map(itemgetter(key), items))
        kinds = set(map(type, values))
        if kinds <= _NOT_DICTS:
            out[f"{prefix}{key}"] = values
        elif not all(issubclass(kind, dict) for kind in kinds) or not _uniform(values, f"{prefix}{key}_", out):
            return False
    return True


def records(items: Iterable[dict[str, Any]], path: str, columns: list[str] | None = None) -> pd.DataFrame:
    """One row per record; `source` holds its JSON path, e.g. `$.speed.cells[3]`."""
    items = items if isinstance(items, list) else list(items)
    uniform: dict[str, list] = {}
    if items and _uniform(items, "", uniform):  # flattened a field at a time (88 speed cells: ~0.4 ms less)
        uniform["source"] = [f"{path}[{i}]" for i in range(len(items))]
        data = {name: typed(values) for name, values in uniform.items()}
    else:
        data = _columns([flatten(item) for item in items], path)
    if not items:
        if not columns:
            return pd.DataFrame([])
        return empty(columns)  # most sections of a small receipt have lists that are empty
    for column in columns or ():
        if column not in data:
            data[column] = np.full(len(items), np.nan, dtype=object)
    return of_columns(data)


def _columns(rows: list[dict[str, Any]], path: str) -> dict[str, Any]:
    """Flattened records' columns (each `typed`), `source` added to each row."""
    for i, row in enumerate(rows):
        row["source"] = f"{path}[{i}]"
    # Built column by column (what `DataFrame(rows)` does with a row's absent key: NaN), in order of
    # first appearance: a frame from a list of dicts goes through an object matrix, twice the cost.
    names: dict[str, Any] = {}
    for row in rows:  # every name in order of first appearance (dict.update in C, a row at a time)
        names.update(row)
    nan = float("nan")
    if all(len(row) == len(names) for row in rows):  # every row has every name: each column taken in C
        return {name: typed(list(map(itemgetter(name), rows))) for name in names}
    return {name: typed([row.get(name, nan) for row in rows]) for name in names}


def field(items: list[dict[str, Any]], name: str) -> list:
    """Each record's value of `name` (None where a record lacks it), taken in C when all have it."""
    try:
        return list(map(itemgetter(name), items))
    except KeyError:
        return [item.get(name) for item in items]


# Small frames are summed and grouped over plain lists: a pandas groupby costs ~1-4 ms a call,
# whatever the frame's size, and a report's frames hold tens to hundreds of rows.

_INT64 = (-(1 << 63), 1 << 63)
# What pandas makes of a column of text: its `str` dtype (pandas 3), or object columns (before it).
_TEXT = pd.Series(["text"]).dtype
_TEXT_ARRAY = type(pd.array(["text"], dtype=_TEXT)) if isinstance(_TEXT, pd.StringDtype) else None


def typed(values: list) -> list | np.ndarray | pd.api.extensions.ExtensionArray:
    """`values` as the array pandas would infer from them when they are all numbers, all booleans or
    all text, else as they are: pandas infers a list's type value by value, ~0.2 ms a column of a
    frame (a column of text, ~30 us, ~8 us given its dtype)."""
    kinds = set(map(type, values))
    if kinds == {bool}:
        return np.array(values, dtype=bool)
    if kinds == {str} and _TEXT_ARRAY is not None:
        return pd.array(values, dtype=_TEXT)
    if not kinds or not kinds <= {int, float}:
        return values
    if kinds == {int}:
        if not (_INT64[0] <= min(values) and max(values) < _INT64[1]):
            return values  # beyond int64: pandas' own choice (uint64, object)
    elif int in kinds and not all(_INT64[0] <= v < _INT64[1] for v in values if type(v) is int):
        return values
    return np.array(values, dtype=np.int64 if kinds == {int} else np.float64)


def frame(data: dict[str, Any], columns: list[str] | None = None) -> pd.DataFrame:
    """A DataFrame of columns given as lists (each `typed`), arrays or Series."""
    data = {k: typed(v) if isinstance(v, list) else v for k, v in data.items()}
    if columns is not None and (len(columns) != len(data) or set(columns) != data.keys()):
        return pd.DataFrame(data, columns=columns)  # a column to add or leave out: pandas' own rules
    return of_columns({c: data[c] for c in columns} if columns is not None else data)


@functools.lru_cache(maxsize=4096)
def _column_index(names: tuple) -> pd.Index:
    # The same names recur in every report's frames: pandas' inference over them (~80 us) once.
    return pd.Index(list(names))


@functools.lru_cache(maxsize=1024)
def _empty(recipe: tuple) -> pd.DataFrame:
    kind, names, dtypes = recipe
    if kind == "columns":
        return pd.DataFrame(columns=list(names))
    return pd.DataFrame({n: [] if d is None else np.array([], dtype=d) for n, d in zip(names, dtypes)})


def empty(columns: Iterable[str]) -> pd.DataFrame:
    """`pd.DataFrame(columns=columns)`: no rows, object columns. A copy of one made once (~0.04 ms
    against ~0.4 ms): an analysis makes the same empty frames for every report without that part."""
    return _empty(("columns", tuple(columns), None)).copy()


def from_rows(rows: list, columns: list[str]) -> pd.DataFrame:
    """`pd.DataFrame(rows, columns=columns)` (rows as dicts or sequences), an empty one as `empty` makes it.
    Rows that are dicts holding every column are read a column at a time (`frame`: each column's type
    inferred from its values, as pandas infers it; ~40 us less than pandas' way through a matrix)."""
    if not rows:
        return empty(columns)
    wanted = set(columns)
    if wanted and len(wanted) == len(columns) and all(type(row) is dict and row.keys() >= wanted for row in rows):
        return frame({c: list(map(itemgetter(c), rows)) for c in columns})
    return pd.DataFrame(rows, columns=columns)


_COLUMNS = (list, np.ndarray, _TEXT_ARRAY)  # what `of_columns` takes as it is (`typed` makes them)


def of_rows(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """`pd.DataFrame(rows)` of dict rows: every key a column, in order of first appearance (`from_rows`)."""
    if not rows or not all(type(row) is dict for row in rows):
        return pd.DataFrame(rows)
    return from_rows(rows, list(dict.fromkeys(chain.from_iterable(rows))))


def of_columns(data: dict[str, Any]) -> pd.DataFrame:
    """`pd.DataFrame(data)` for columns given as lists, numpy arrays, text arrays or Series on the
    default index of the frame's length (another frame's columns of the same rows), one length: the
    same frame (dtypes, index, columns), by pandas' own inference of each list or array and with a
    Series' own dtype, without the rest of the constructor's path (~0.2 ms a small frame of the
    ~0.6 ms it takes; ~0.5 ms of a frame of 21 columns, Series among them). Anything else (a Series
    to align, columns of unequal length, names that are not text, no rows) goes to DataFrame()."""
    values = list(data.values())
    n = len(values[0]) if values else 0
    index = pd.RangeIndex(n)
    if (_sanitize is None or not values or not all(type(k) is str for k in data)
            or not all((type(v) in _COLUMNS or (n and _aligned(v, index))) and len(v) == n for v in values)
            or any(type(v) is np.ndarray and v.ndim != 1 for v in values)):
        return pd.DataFrame(data)
    if not n:  # no rows: what pandas makes of them depends on the names and each array's dtype only
        return _empty(("data", tuple(data), tuple(v.dtype if type(v) is np.ndarray else None for v in values))).copy()
    try:
        # A Series keeps its dtype (no inference), its values copied as DataFrame() copies them.
        arrays = [v.array.copy() if type(v) is pd.Series else _sanitize(v, index) for v in values]
        return pd.DataFrame._from_arrays(arrays, columns=_column_index(tuple(data)).copy(), index=index, verify_integrity=False)
    except (TypeError, ValueError):  # what pandas refuses, it refuses with its own message
        return pd.DataFrame(data)


def _aligned(v: Any, index: pd.RangeIndex) -> bool:
    """Whether `v` is a Series on `index` (unnamed): DataFrame() aligns it on nothing."""
    return type(v) is pd.Series and on_default_index(v) and v.index.equals(index)


def on_default_index(data: pd.Series | pd.DataFrame) -> bool:
    """Whether `data` is on the index `reset_index(drop=True)` gives it: 0, 1, ... unnamed."""
    index = data.index
    return type(index) is pd.RangeIndex and index.name is None and index.start == 0 and index.step == 1


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
    kept = sorted([float(v) for v in values if v is not None and v == v])  # `missing`, inline: a call a value less
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


def rows_of(frame: pd.DataFrame, columns: list[str]) -> list[dict]:
    """The frame's rows as dicts of Python values (what `iterrows` gives, without a Series a row)."""
    return [dict(zip(columns, values)) for values in zip(*(frame[c].tolist() for c in columns))]
