"""Long outputs' counts and medians (sections/long_outputs/analysis.py, read from the reply records as
lists) against pandas' own groupby over a frame of the same records, on varied random receipts."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from site_gen.sections.long_outputs import analysis as long_outputs

ARMS = ["a", "β-arm", "日本"]


def _replies(rng: random.Random) -> list[dict]:
    out = []
    for i in range(rng.choice([0, 1, 2, 7, 40])):
        category = rng.choice(["code", "json", "prose"])
        reply = {"arm": rng.choice(ARMS + ["undeclared"]), "cap": rng.choice([50, 100, 4096]), "category": category,
                 "prompt": f"p{i}", "finished": rng.random() < 0.6, "reply_tokens": rng.randint(0, 5000),
                 "thinking_tokens": rng.randint(0, 5000), "still_thinking": rng.random() < 0.3,
                 "looped": rng.random() < 0.2}
        for flag in ("tests_passed", "json_valid"):
            if rng.random() < 0.7:  # a reply may leave either out (the schema's optional fields)
                reply[flag] = rng.random() < 0.5
        out.append(reply)
    return out


def _by_pandas(replies: list[dict], arms: list[str]) -> dict[tuple, dict]:
    """Per declared arm and cap, the same figures by a pandas groupby written here."""
    df = pd.DataFrame(replies)
    for flag in ("tests_passed", "json_valid"):
        df[flag] = df[flag].fillna(False).astype(bool) if flag in df else False
    df = df[df["arm"].isin(arms)].copy()
    df["code"], df["json"] = df["category"] == "code", df["category"] == "json"
    df["code_tests_passed"] = df["code"] & df["tests_passed"]
    df["json_ok"] = df["json"] & df["json_valid"]
    out = {}
    for (arm, cap), g in df.groupby(["arm", "cap"]):
        code = g[g["code"]]
        out[(arm, cap)] = {"replies": len(g), "finished": int(g["finished"].sum()), "looped": int(g["looped"].sum()),
                           "capped": int((~g["finished"]).sum()), "still_thinking": int(g["still_thinking"].sum()),
                           "code_replies": int(g["code"].sum()), "code_tests_passed": int(g["code_tests_passed"].sum()),
                           "json_replies": int(g["json"].sum()), "json_valid": int(g["json_ok"].sum()),
                           "code_reply_median": code["reply_tokens"].median(),
                           "code_thinking_median": code["thinking_tokens"].median()}
    return out


@pytest.mark.parametrize("seed", range(30))
def test_per_arm_is_pandas_groupby(seed):
    rng = random.Random(seed)
    replies = _replies(rng)
    declared = rng.sample(ARMS, rng.randint(1, len(ARMS)))
    arms = pd.DataFrame([{"id": a, "label": a.upper(), "checkpoint": "K", "engine": "candidate", "run": "r", "date": "2026-01-01"}
                         for a in declared])
    table = long_outputs.per_arm(long_outputs.reply_columns(replies), arms)
    want = _by_pandas(replies, declared) if replies else {}
    got = {(r["arm"], r["cap"]): r for r in table.to_dict("records")}
    assert list(got) == sorted(want, key=lambda k: (declared.index(k[0]), k[1]))  # declared order, caps ascending
    for key, figures in want.items():
        for name, value in figures.items():
            mine = got[key][name]
            assert (math.isnan(mine) and math.isnan(value)) if value != value else mine == value, (key, name)
    if replies:
        first = next(((r["arm"], r["cap"]) for r in replies), None)
        counted = pd.Series([r["category"] for r in replies if (r["arm"], r["cap"]) == first]).value_counts()
        assert long_outputs.categories(long_outputs.reply_columns(replies)) == dict(sorted(counted.items()))
    else:
        assert long_outputs.categories(long_outputs.reply_columns(replies)) == {}
