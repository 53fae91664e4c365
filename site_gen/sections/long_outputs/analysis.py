"""Long outputs' analysis: counts and medians per arm and cap, computed from one record per reply."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from site_gen.analysis.figures import Figure, need
from site_gen.analysis.frames import field, frame, groups, median, of_rows
from site_gen.sections.contract import AnalysisPart

_COUNTS = ["finished", "looped", "capped", "still_thinking", "code_replies", "code_tests_passed", "json_replies", "json_valid"]
_FIELDS = ["arm", "cap", "category", "finished", "looped", "still_thinking", "tests_passed", "json_valid", "reply_tokens",
           "thinking_tokens"]


def reply_columns(replies: list[dict]) -> dict[str, list]:
    """The reply records' fields the counts read, each as a list (a reply without one: None). The
    records are hundreds and every use of them is a count or a median over a group: a frame of them
    would be built only to be read back as these lists (~1 ms a report)."""
    return {name: field(replies, name) for name in _FIELDS}


def _flags(replies: Mapping[str, list]) -> dict[str, list[bool]]:
    """Each reply's counted flags (a missing test or validity counts as not passed)."""
    category = replies["category"]
    finished = [bool(v) for v in replies["finished"]]
    code = [c == "code" for c in category]
    json_ = [c == "json" for c in category]
    return {
        "finished": finished, "looped": [bool(v) for v in replies["looped"]], "capped": [not f for f in finished],
        "still_thinking": [bool(v) for v in replies["still_thinking"]], "code_replies": code,
        "code_tests_passed": [bool(v) and v == v and c for v, c in zip(replies["tests_passed"], code)],
        "json_replies": json_,
        "json_valid": [bool(v) and v == v and j for v, j in zip(replies["json_valid"], json_)],
    }


def per_arm(replies: Mapping[str, list], arms: pd.DataFrame) -> pd.DataFrame:
    """Per arm and cap: replies, finished, looped; code tests passing, JSON valid, code medians.
    `replies`: their fields as lists (`reply_columns`).

    Medians of code replies use the code replies of that arm and cap, finished or not.
    """
    flags = _flags(replies)
    tokens = replies["reply_tokens"], replies["thinking_tokens"]
    declared = {a: i for i, a in enumerate(arms["id"].tolist())}
    # Arms in declared order, caps ascending; a reply of an undeclared arm is no row (an inner merge).
    found = sorted(((key, rows) for key, rows in groups(replies["arm"], replies["cap"]).items()
                    if key[0] in declared), key=lambda kv: (declared[kv[0][0]], kv[0][1]))
    out: dict[str, list] = {"arm": [k[0] for k, _ in found], "cap": [k[1] for k, _ in found],
                            "replies": [len(rows) for _, rows in found]}
    for name in _COUNTS:
        flag = flags[name]
        out[name] = [sum(map(flag.__getitem__, rows)) for _, rows in found]  # each group's flags summed in C
    code = flags["code_replies"]
    for name, values in zip(("code_reply_median", "code_thinking_median"), tokens):
        out[name] = [median([values[i] for i in rows if code[i]]) for _, rows in found]
    at = [declared[k[0]] for k, _ in found]
    for name in ("label", "checkpoint", "engine", "run", "date"):
        column = arms[name].tolist()
        out[name] = [column[i] for i in at]
    return frame(out)


def complete_arms(table: pd.DataFrame, caps: list[int]) -> list[str]:
    """Arms that ran at every cap, in declared order: the columns of the main table."""
    have: dict[str, set] = {}
    for arm, cap in zip(table["arm"].tolist(), table["cap"].tolist()):
        have.setdefault(arm, set()).add(cap)
    return [arm for arm, got in have.items() if set(caps) <= got]


def thinking_at_cap(table: pd.DataFrame) -> pd.DataFrame:
    """Across every arm: capped replies per cap and how many were still thinking when cut."""
    arm, capped, thinking = table["arm"].tolist(), table["capped"].tolist(), table["still_thinking"].tolist()
    by_cap = groups(table["cap"].tolist())
    caps = sorted(by_cap)
    return frame({"cap": [c for (c,) in caps],
                         "arms": [len({arm[i] for i in by_cap[c]}) for c in caps],
                         "capped": [sum(capped[i] for i in by_cap[c]) for c in caps],
                         "still_thinking": [sum(thinking[i] for i in by_cap[c]) for c in caps]},
                        columns=["cap", "arms", "capped", "still_thinking"])


def categories(replies: Mapping[str, list]) -> dict[str, int]:
    """Replies per category in one arm and cap (the design: 8 of each); `replies` as `reply_columns`."""
    found = groups(replies["arm"], replies["cap"])
    if not found:
        return {}
    category = replies["category"]
    counts: dict[str, int] = {}
    for i in next(iter(found.values())):
        if category[i] == category[i]:
            counts[category[i]] = counts.get(category[i], 0) + 1
    return dict(sorted(counts.items()))


def looped_per_arm(table: pd.DataFrame) -> dict[str, int]:
    """Replies that looped, per arm, over every cap."""
    looped = table["looped"].tolist()
    return {arm: int(sum(looped[i] for i in rows)) for (arm,), rows in groups(table["arm"].tolist()).items()}


@dataclass
class LongOutputsResult:
    table: pd.DataFrame          # per arm and cap: replies, finished, looped, code tests, JSON, medians
    arms: list[str]              # the arms run at every cap (the main table's columns)
    caps: list[int]              # the caps, smallest first
    thinking: pd.DataFrame       # capped replies still thinking, per cap
    categories: dict[str, int]   # replies per category
    looped: dict[str, int]       # looped replies per arm, every cap


def analyse(a, lo: dict) -> LongOutputsResult | None:
    if not lo["replies"]:
        return None
    replies = reply_columns(lo["replies"])
    caps = sorted(lo["caps"])
    table = per_arm(replies, of_rows(lo["arms"]))
    return LongOutputsResult(table=table, arms=complete_arms(table, caps), caps=caps, thinking=thinking_at_cap(table),
                             categories=categories(replies), looped=looped_per_arm(table))


def looped_replies(a) -> Figure:
    lo = a.of("long_outputs")
    t = need(lo.table if lo is not None else None, "long outputs")
    return Figure(int(t["looped"].sum()), "count", f"looped replies over {int(t['replies'].sum())} replies")


FIGURES = {"looped_replies": (looped_replies, "replies that looped, every arm and cap")}


PART = AnalysisPart(analyse=analyse, figures=FIGURES)
