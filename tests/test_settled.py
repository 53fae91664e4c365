"""A live builder's records settled and their navigation (site_gen/building/assembly.py `Settled`),
made again only when what settle and report_nav read changed: always equal to making them anew."""
from __future__ import annotations

import dataclasses
import random

import pytest

from site_gen.building.assembly import Settled, report_nav, settle
from site_gen.core.errors import SitegenError


@dataclasses.dataclass(frozen=True)
class Record:  # the fields settle and report_nav read of a ReportRecord, and one they do not
    id: str
    date: str
    supersedes: str | None
    file: str
    title: str
    lede: str = ""


def records(n: int, rng: random.Random) -> list[Record]:
    return [Record(f"r{i:03d}", f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", None, f"data/r{i:03d}/SUMMARY.json",
                   f"Report {i}") for i in range(n)]


def test_equal_to_settle_and_report_nav_after_every_kind_of_change():
    rng = random.Random(7)
    memo = Settled()
    now = records(30, rng)
    for step in range(200):
        i = rng.randrange(len(now))
        kind = rng.choice(["lede", "date", "title", "add", "remove", "same", "supersedes"])
        if kind == "lede":  # a new record object, nothing settle reads changed: taken from the memo
            now[i] = dataclasses.replace(now[i], lede=f"prose {step}")
        elif kind == "date":
            now[i] = dataclasses.replace(now[i], date=f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
        elif kind == "title":
            now[i] = dataclasses.replace(now[i], title=f"Retitled {step}")
        elif kind == "add":
            now.append(Record(f"n{step:03d}", "2026-06-01", None, f"data/n{step:03d}/SUMMARY.json", f"New {step}"))
        elif kind == "remove" and len(now) > 2:
            del now[i]
        elif kind == "supersedes":  # a report that supersedes none here: refused, and nothing kept
            bad = now[:i] + [dataclasses.replace(now[i], supersedes="nowhere")] + now[i + 1:]
            with pytest.raises(SitegenError):
                memo(bad)
        expected = settle(list(now))
        got, nav = memo(list(now))
        assert [r is e for r, e in zip(got, expected)] == [True] * len(expected) and len(got) == len(expected)
        assert nav == report_nav(expected)
