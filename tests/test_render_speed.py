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


@pytest.mark.filterwarnings("ignore:DataFrame columns are not unique")
@pytest.mark.parametrize("name", list(FRAMES))
def test_rows_are_the_records_pandas_makes(name):
    frame = FRAMES[name]
    want = frame.to_dict("records")
    got = views.rows(frame)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert list(g) == list(w)
        assert all(_same(g[k], w[k]) for k in w), (g, w)


_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _defused(text: str) -> str:
    """The CSV rule restated: each line of a text cell that a spreadsheet would read as a formula (it
    starts with = + - @ after blanks, or with a tab or a carriage return) gets a leading quote."""
    out, line_start = [], True
    for i, ch in enumerate(text):
        if line_start:
            rest = text[i:]
            stripped = rest.lstrip(" \t\u00a0\u2000\u3000")
            if rest[:1] in ("\t", "\r") or (stripped[:1] in ("=", "+", "-", "@")
                                             and not any(b in rest[:len(rest) - len(stripped)] for b in _BREAKS)):
                out.append("'")
        out.append(ch)
        line_start = ch in _BREAKS
    return "".join(out)


def _number(v: float):
    """A float as measured: integral values without '.0', others to 12 significant digits."""
    if not math.isfinite(v):
        return v
    return int(v) if v == int(v) and abs(v) < 1e15 else float(f"{v:.12g}")


def _pandas_csv(frame: pd.DataFrame) -> bytes:
    """What the CSV of `frame` must be, made without sitegen: pandas' own to_csv of the frame with
    floats as measured and formulas defused, every text cell quoted when one holds a line break
    other than \\n (a reader would end the row there)."""
    import csv as csvmodule
    import io

    out = frame.copy()
    quoting = csvmodule.QUOTE_MINIMAL
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if pd.api.types.is_float_dtype(column):
            out.isetitem(i, pd.Series([_number(v) for v in column.tolist()], index=out.index, dtype=object))
        elif column.dtype == object or pd.api.types.is_string_dtype(column):
            texts = [v for v in column.tolist() if isinstance(v, str)]
            if any(b in t for t in texts for b in _BREAKS.replace("\n", "")):
                quoting = csvmodule.QUOTE_NONNUMERIC
            out.isetitem(i, column.map(lambda v: _defused(v) if isinstance(v, str) else v))
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n", quoting=quoting)
    return buffer.getvalue().encode("utf-8")


CSV_FRAMES = {
    "numbers": pd.DataFrame({"n": [1, -2, 3], "x": [8192.0, 1.0699999999999998, math.nan], "big": [1e300, math.inf, -0.0]}),
    "text": pd.DataFrame({"t": ["plain", 'a "quoted", comma', None], "f": ["=1+1", " -x", "@a\n=b"], "ok": [True, False, True]}),
    "objects": pd.DataFrame({"o": pd.Series([1, "two", None], dtype=object), "e": pd.Series([None, None, None], dtype=object)}),
    "one empty column": pd.DataFrame({"only": ["", None, "x"]}),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype=float), "b": pd.Series([], dtype=object)}),
    "odd break": pd.DataFrame({"t": ["a\rb", "c"], "n": [1.5, 2.0]}),
    "dates": pd.DataFrame({"d": pd.to_datetime(["2024-01-02", "2024-01-03"]), "n": [1, 2]}),
    "nullable": pd.DataFrame({"i": pd.array([1, None], dtype="Int64"), "s": pd.Series(["a", None], dtype="string")}),
}


@pytest.mark.parametrize("name", list(CSV_FRAMES))
def test_csv_bytes_are_what_pandas_writes(name):
    from site_gen.render.csv import csv_bytes

    frame = CSV_FRAMES[name]
    assert csv_bytes(frame) == _pandas_csv(frame)


def test_template_lookups_find_what_jinja_finds():
    """`d.key` in the page environment: the item when a plain dict has it and no such attribute,
    the attribute (a dict's method) when it has one, undefined when neither."""
    import jinja2

    from site_gen.render.environment import _Environment

    source = "{{ d.a }}|{{ d.items is callable }}|{{ d.get('a') }}|{{ d.missing is defined }}|{{ o.a }}|{{ n.real }}"
    context = {"d": {"a": 1, "items": "key, not method"}, "o": type("O", (), {"a": "attr"})(), "n": 5}
    ours = _Environment(autoescape=True).from_string(source).render(context)
    assert ours == jinja2.Environment(autoescape=True).from_string(source).render(context)
    assert ours == "1|True|1|False|attr|5"
    strict = _Environment(undefined=jinja2.StrictUndefined).from_string("{{ d.missing }}")
    with pytest.raises(jinja2.UndefinedError):
        strict.render(d={"a": 1})


def test_links_between_site_paths_are_what_relpath_makes():
    """rel's string-only path equals posixpath.relpath on every mix of folders, files, '.', '..',
    empty parts and slashes (an empty target is refused as relpath refuses it)."""
    import posixpath
    import random

    from site_gen.render.where import _relpath

    parts = ["a", "b", "reports", "x", "index.html", "c.html", "", ".", "..", "csv"]
    rnd = random.Random(0)
    for _ in range(20000):
        target = "/".join(rnd.choice(parts) for _ in range(rnd.randint(1, 4)))
        start = "/".join(rnd.choice(parts) for _ in range(rnd.randint(0, 4)))
        if rnd.random() < 0.05:
            target = "/" + target
        expected = posixpath.relpath(target, start or ".") if target else None
        if expected is None:
            with pytest.raises(ValueError):
                _relpath(target, start)
        else:
            assert _relpath(target, start) == expected, (target, start)


SLICED = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"], "c": [1, 2, 3]})
SLICED["d"] = SLICED["a"] * 2  # a second float block
ARRAY_FRAMES = {**FRAMES, **{f"csv {k}": v for k, v in CSV_FRAMES.items()},
                "sliced, several blocks": SLICED.iloc[1:][["d", "b", "a"]],
                "categories and time zones": pd.DataFrame({"c": pd.Categorical(["a", "b"]),
                                                           "t": pd.to_datetime(["2024-01-01", "2024-02-01"]).tz_localize("UTC")})}


@pytest.mark.filterwarnings("ignore:DataFrame columns are not unique")
@pytest.mark.parametrize("name", list(ARRAY_FRAMES))
def test_column_arrays_hold_what_each_series_holds(name):
    """Read from the blocks or through Series, each column's array lists the values (types, NaN,
    NaT, NA, None) that `frame.iloc[:, i].tolist()` lists."""
    frame = ARRAY_FRAMES[name]
    series = [frame.iloc[:, i] for i in range(frame.shape[1])]
    by_series = [views._array(frame, i, None) for i in range(frame.shape[1])]
    for got in (views.arrays(frame), by_series):
        assert len(got) == len(series)
        for a, s in zip(got, series):
            assert a.dtype == s.dtype and len(a) == len(s)
            assert all(g is w or _same(g, w) for g, w in zip(a.tolist(), s.tolist())), (a.tolist(), s.tolist())
