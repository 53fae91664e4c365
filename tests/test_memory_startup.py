"""Memory's startup table (sections/memory/analysis.py `startup`) against pandas' own selection and row
maximum written here, on varied records: times of either kind, missing ones, readiness alone."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from site_gen.analysis.frames import records
from site_gen.sections.memory import analysis as memory


def _records(rng: random.Random) -> list[dict]:
    kind = rng.choice(["floats", "ints", "mixed", "ready"])
    out = []
    for _ in range(rng.choice([1, 2, 6])):
        r = {"checkpoint": rng.choice(["K4", "Kö"]), "engine": rng.choice(["baseline", "candidate"])}
        for name in ("cold_s", "warm_s") if kind != "ready" else ("ready_s",):
            if rng.random() < 0.8:
                r[name] = {"floats": rng.uniform(1, 90), "ints": rng.randint(1, 90), "ready": rng.uniform(1, 9),
                           "mixed": rng.choice([3, 4.5, None])}[kind]
        if kind == "ready" and rng.random() < 0.5:
            r["cold_s"] = rng.uniform(1, 90)
        out.append(r)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_startup_is_pandas_selection_and_row_maximum(seed):
    rng = random.Random(seed)
    frame = records(_records(rng), "$.memory.startup", ["checkpoint", "engine", "cold_s", "warm_s"])
    if seed % 4 == 0:
        frame.index = pd.RangeIndex(5, 5 + len(frame))  # a frame on another index keeps it
    times = ["cold_s", "warm_s"] + (["ready_s"] if "ready_s" in frame else [])
    want = frame[["checkpoint", "engine", *times, "source"]].copy()
    want["slowest"] = frame[times].max(axis=1)
    pd.testing.assert_frame_equal(memory.startup(frame), want)
