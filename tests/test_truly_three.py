"""Issue 51 (told truly, round three): the words, digits and marks that said more or less than the
data. Each test is written against the rule (what the data supports), on receipts of the shapes the
trial found wanting, each figure checked against its own computation here."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import truly


def no_error_counts(counted: int = 0) -> dict:
    """The minimal receipt with two cells (schema 1.1) of which the first `counted` give error counts."""
    r = truly.minimal()
    r["schema_version"] = 1.1
    cell = r["speed"]["cells"][0]
    second = copy.deepcopy(cell)
    second["concurrency"] = 8
    r["speed"]["cells"].append(second)
    for i, c in enumerate(r["speed"]["cells"]):
        for role in ("baseline", "candidate"):
            if i >= counted:
                c[role].pop("errors")
    return r


# -- item 8: unknown is null in every field -------------------------------------------------------

def test_errors_never_measured_are_null_in_every_field(tmp_path):
    root = truly.project(tmp_path, {"r": no_error_counts(0)})
    errors = truly.summary(root)["reports"][0]["speed"]["errors"]
    assert errors["cells_counted"] == 0
    assert {k: v for k, v in errors.items() if k != "cells_counted"} == dict.fromkeys(
        ("total", "cells_with_errors", "baseline", "candidate"))
    text = truly.summary(root, form="text")
    assert "Speed errors" not in text


def test_errors_counted_in_some_cells_say_of_which(tmp_path):
    r = no_error_counts(1)
    r["speed"]["cells"][0]["candidate"]["errors"] = 2
    site = truly.build(tmp_path, {"r": r})
    page = truly.visible(site / "reports" / "r" / "speed.html")
    assert "2 errors in 1 cell (of the 1 of 2 cells that count them)" in page, page
    errors = truly.summary(tmp_path)["reports"][0]["speed"]["errors"]
    assert errors == {"total": 2, "cells_with_errors": 1, "cells_counted": 1, "baseline": 0, "candidate": 2}
    assert "2 in 1 cell of the 1 of 2 cells that count them (baseline 0, candidate 2)" in truly.summary(tmp_path, form="text")
