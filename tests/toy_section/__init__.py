"""A toy report section, whole in this folder: its module (schema fragment, check, analysis, view,
CSV table, block) and its page template (`templates/toy.html`, used as a custom_dir).

tests/test_section_unit.py registers it and checks that it shows up everywhere a section does.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from site_gen.receipts.load import require
from site_gen.render.provenance import Fig
from site_gen.sections import BlockSpec, Section

TEMPLATES = Path(__file__).parent / "templates"

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["scores"],
    "properties": {"scores": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["checkpoint", "score"],
        "properties": {"checkpoint": {"type": "string"}, "score": {"type": "integer", "minimum": 0}}}}},
}


def check(part: dict, file, checkpoint_ref) -> None:
    for i, s in enumerate(part["scores"]):
        checkpoint_ref(s["checkpoint"], f"$.toy.scores[{i}].checkpoint")
        require(s["score"] <= 100, f"score {s['score']} above 100", file, f"$.toy.scores[{i}].score")


def analyse(a, part: dict) -> None:
    scores = pd.DataFrame(part["scores"], columns=["checkpoint", "score"])
    scores["source"] = [f"$.toy.scores[{i}].score" for i in range(len(scores))]
    a.results["toy"] = {"scores": scores, "total": int(scores["score"].sum())}


def view(a) -> dict:
    toy = a.results["toy"]
    return {"rows": [{"checkpoint": r["checkpoint"], "score": Fig(str(r["score"]), r["source"])}
                     for r in toy["scores"].to_dict("records")],
            "total": Fig(str(toy["total"]), how=f"sum of {len(toy['scores'])} scores")}


def csv(a) -> dict:
    return {"toy-scores": a.results["toy"]["scores"]} if "toy" in a.results else {}


SECTION = Section(
    key="toy", title="Toy scores", name="toy", view=view, check=check, records="scores", analyse=analyse, csv=csv,
    provenance=True, schema=SCHEMA,
    blocks={"toy-total": BlockSpec("toy", "toy", (), '<p class="toy-total" id="{{ id }}">{{ toy.total }}</p>',
                                   "the sum of the toy scores", "toy-total")},
)
