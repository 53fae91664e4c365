"""A toy report section, whole in this folder as a section package is: its declaration and meaning
check (here), its analysis (`analysis.py`), its view, tables, block and lines in the other outputs
(`view.py`), and its templates (`templates/`: its page, its part of the overview, its macros).

tests/test_section_package.py copies it into a copy of site_gen/sections/ with its one registry line
and checks that it shows up everywhere a section does; tests/test_section_unit.py registers it at
run time (as a plugin would) and checks its meaning check.
"""
from __future__ import annotations

from pathlib import Path

from site_gen.receipts.rules import require
from site_gen.sections import DashboardColumn, Section

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


SECTION = Section(key="toy", title="Toy scores", package=__name__, name="toy", check=check, records="scores",
                  provenance=True, schema=SCHEMA, dashboard=(DashboardColumn("toy", "Toy total", numeric=True),), order=90)
