"""Receipt records -> flat DataFrames, each row keeping the JSON path it came from."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
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
    rows = [{**flatten(item), "source": f"{path}[{i}]"} for i, item in enumerate(items)]
    frame = pd.DataFrame(rows)
    if columns is not None:
        for column in columns:
            if column not in frame.columns:
                # On the frame's own index: an empty Series would be aligned to it first, ~1 ms a column.
                frame[column] = pd.Series(np.full(len(frame), np.nan, dtype=object), index=frame.index) if rows \
                    else pd.Series(dtype="object")
    return frame
