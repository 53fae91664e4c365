"""A report's CSV files: every section's tables (made once per analysis), written with numbers as
measured and spreadsheet formulas defused."""
from __future__ import annotations

import csv
import io
import re
from typing import Any, Literal

import numpy as np
import pandas as pd

from site_gen.analysis.report import Analysis
from site_gen.render import format as fmt, views
from site_gen.render.parts import own_part, view_part
from site_gen.sections import Section, all_sections

# Every break str.splitlines knows: a CSV reader starts a row at \r or \n, a naive one at any of them.
_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# A line of a cell (its start, or after a break) that a spreadsheet could read as a formula:
# = + - @ after spaces, or a tab or carriage return.
_FORMULA = re.compile(rf"(?:^|(?<=[{_BREAKS}]))(?=[\t\r]|[^\S{_BREAKS}]*[=+\-@])")
# Breaks the CSV writer does not quote (it quotes only its own line terminator, \n).
_UNQUOTED_BREAK = re.compile(rf"[{_BREAKS.replace(chr(10), '')}]")


def _defuse(value: Any) -> Any:
    return _FORMULA.sub("'", value) if isinstance(value, str) else value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV with numbers as measured (fmt.csv_number) and spreadsheet formulas defused: each line of a text cell that starts a formula gets a
    leading quote; a table whose text holds a line break other than \n quotes every text cell, so
    that no reader takes the break for the end of a row."""
    cells, changed, quoting, plain = _csv_cells(frame)
    if plain and quoting == csv.QUOTE_MINIMAL:
        # The cells straight to the writer pandas would use, with the same dialect: pandas spends
        # most of a small table's time preparing them.
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n", quoting=quoting)
        writer.writerow(list(cells))
        writer.writerows(zip(*(_written(items) for items in cells.values())))
        return buffer.getvalue().encode("utf-8")
    return pandas_csv(frame, cells, changed, quoting)


def pandas_csv(frame: pd.DataFrame, cells: dict[str, list], changed: list[str], quoting: int) -> bytes:
    """The CSV pandas writes of `frame` with its `changed` columns' cells replaced (`_csv_cells`)."""
    out = frame
    if changed:  # a table with no text to defuse and no float is not copied
        out = frame.copy()
        for column in changed:
            numbers = pd.api.types.is_float_dtype(frame[column])
            out[column] = pd.Series(cells[column], index=frame.index, dtype=object) if numbers else cells[column]
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n", quoting=quoting)
    return buffer.getvalue().encode("utf-8")


def _csv_cells(frame: pd.DataFrame) -> tuple[dict[str, list], list[str], Literal[0, 1, 2, 3], bool]:
    """Each column's cells (numbers as measured, text defused), the columns whose cells
    changed, the quoting the table needs, and whether the csv module prints every cell as pandas
    does: text, numbers and booleans under named columns (pandas has its own text for dates and
    its nullable types)."""
    cells: dict[str, list] = {}
    changed: list[str] = []
    quoting: Literal[0, 1, 2, 3] = csv.QUOTE_MINIMAL
    names = frame.columns.tolist()
    plain = bool(names) and frame.columns.is_unique and all(isinstance(n, str) for n in names)
    for column, values in zip(names, views.arrays(frame) if frame.columns.is_unique else (frame[c] for c in names)):
        items = values.tolist()
        if pd.api.types.is_float_dtype(values):
            # Python numbers, not text: the writer never quotes them, whatever the quoting.
            items = [fmt.csv_number(v) for v in items]
            changed.append(column)
        elif values.dtype == object or pd.api.types.is_string_dtype(values):
            # The column's texts read in one search each, not one a cell: joined by \n, where a line
            # starts as at a text's start, and which neither rule's match runs across.
            texts = "\n".join(v for v in items if isinstance(v, str))
            if _FORMULA.search(texts):
                items = [_defuse(v) for v in items]
                changed.append(column)
            if _UNQUOTED_BREAK.search(texts):
                quoting = csv.QUOTE_NONNUMERIC
        cells[column] = items
        plain = plain and (isinstance(values.dtype, np.dtype) and values.dtype.kind in "iubfO"
                           or isinstance(values.dtype, pd.StringDtype) and values.dtype.na_value is not pd.NA)
    return cells, changed, quoting, plain


def _written(items: list) -> list:
    """A column's cells with each missing one empty, as pandas writes it."""
    return ["" if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v) else v for v in items]


def section_tables(a: Analysis, s: Section) -> dict[str, pd.DataFrame]:
    """One section's CSV tables, made once per analysis."""
    key = ("csv", s.key)
    if key not in a.displayed:
        csv = view_part(s).csv
        a.displayed[key] = csv(own_part(a, s)) if csv else {}
    return a.displayed[key]


def csv_tables(a: Analysis) -> dict[str, pd.DataFrame]:
    """Every section's CSV tables, by name (`csv/<name>.csv`)."""
    return {name: table for s in all_sections() if view_part(s).csv for name, table in section_tables(a, s).items()}


def csv_files(a: Analysis, base: str) -> dict[str, bytes]:
    """Every section's CSV files under `base`, each section's made once per analysis."""
    out: dict[str, bytes] = {}
    for s in all_sections():
        if view_part(s).csv:
            key = ("csv bytes", s.key)
            if key not in a.displayed:
                a.displayed[key] = {name: csv_bytes(table) for name, table in section_tables(a, s).items()}
            out.update((base + f"csv/{name}.csv", data) for name, data in a.displayed[key].items())
    return out
