"""The sections' checks of their records (Section.check) make a message only for the record at
fault; each refusal still names the same record and says the same thing."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import ROOT
from site_gen.core.errors import SitegenError
from site_gen.receipts.meaning import validate_meaning

DOC = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text(encoding="utf-8"))
FILE = Path("SUMMARY.json")


def _reply(i: int, **fields):
    def change(doc):
        doc["long_outputs"]["replies"][i].update(fields)
    return change


def _append_copy(part: str, records: str, i: int):
    def change(doc):
        doc[part][records].append(copy.deepcopy(doc[part][records][i]))
    return change


def _scenario(i: int, j: int, **fields):
    def change(doc):
        doc["tool_calling"]["runs"][i]["scenarios"][j].update(fields)
    return change


def _rate(i: int, role: str, rate):
    def change(doc):
        doc["speed"]["cells"][i][role]["rate"] = rate
    return change


N_REPLIES = len(DOC["long_outputs"]["replies"])
N_CELLS = len(DOC["speed"]["cells"])
CASES = [
    (_reply(3, arm="nope"), "$.long_outputs.replies[3].arm: unknown arm 'nope'; declared: "),
    (_reply(4, cap=7), "$.long_outputs.replies[4].cap: cap 7 is not one of $.long_outputs.caps"),
    (_reply(5, thinking_tokens=10 ** 9), "$.long_outputs.replies[5].thinking_tokens: thinking_tokens cannot exceed reply_tokens"),
    (_reply(6, finished=False, still_thinking=False, reply_tokens=10, thinking_tokens=1),
     "$.long_outputs.replies[6].reply_tokens: an unfinished reply is cut at its cap"),
    (_append_copy("long_outputs", "replies", 2),
     f"$.long_outputs.replies[{N_REPLIES}]: duplicate reply (same arm, cap and prompt)"),
    (_scenario(1, 2, points=99), "$.tool_calling.runs[1].scenarios[2].points: points 99 above max_points "),
    (_scenario(0, 1, id=DOC["tool_calling"]["runs"][0]["scenarios"][0]["id"]),
     f"$.tool_calling.runs[0].scenarios[1].id: duplicate scenario '{DOC['tool_calling']['runs'][0]['scenarios'][0]['id']}'"),
    (_rate(2, "candidate", 0), "$.speed.cells[2].candidate.rate: rate must be above zero, got 0"),
    (_rate(2, "baseline", -1.5), "$.speed.cells[2].baseline.rate: rate must be above zero, got -1.5"),
    (_rate(3, "baseline", 1e-320), "$.speed.cells[3]: the rates' ratio "),
    (_append_copy("speed", "cells", 1),
     f"$.speed.cells[{N_CELLS}]: duplicate speed cell (same checkpoint, workload, input, concurrency, metric as $.speed.cells[1])"),
]


@pytest.mark.parametrize("change, message", CASES)
def test_a_record_at_fault_is_named(change, message):
    doc = copy.deepcopy(DOC)
    change(doc)
    with pytest.raises(SitegenError) as exc:
        validate_meaning(doc, FILE)
    assert str(exc.value).startswith(f"{FILE}: {message}"), str(exc.value)


def test_the_example_receipt_passes():
    validate_meaning(copy.deepcopy(DOC), FILE)
