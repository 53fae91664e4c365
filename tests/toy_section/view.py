"""The toy section's view, table, block and lines in the summary, dashboard and share card."""
from __future__ import annotations

from site_gen.render.provenance import Fig
from site_gen.sections import BlockSpec
from site_gen.sections.contract import ViewPart


def view(a) -> dict | None:
    toy = a.of("toy")
    if toy is None:
        return None
    return {"rows": [{"checkpoint": r["checkpoint"], "score": Fig(str(r["score"]), r["source"])}
                     for r in toy.scores.to_dict("records")],
            "total": Fig(str(toy.total), how=f"sum of {len(toy.scores)} scores")}


def csv(a) -> dict:
    return {"toy-scores": a.of("toy").scores} if a.of("toy") is not None else {}


BLOCKS = {"toy-total": BlockSpec("toy", "toy", (), '{{ toy_total_block(toy, id) }}', "the sum of the toy scores", "toy-total")}
MACROS = ("toy_total_block",)


def dashboard(a) -> dict:
    toy = a.of("toy")
    return {"toy": {"text": f"total {toy.total}", "sort": str(toy.total)}} if toy is not None else {}


def headlines(a) -> list:
    toy = a.of("toy")
    return [("Toy:", f"scores add up to {toy.total}", "accent")] if toy is not None else []


def summary(a, shown) -> dict | None:
    return {"toy": {"total": a.of("toy").total, "scores": len(a.of("toy").scores)}} if shown else None


def summary_rows(d: dict) -> list:
    return [("Toy total", f"{d['toy']['total']} over {d['toy']['scores']} scores")] if "toy" in d else []


PART = ViewPart(view=view, csv=csv, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows,
                headlines=headlines, dashboard=dashboard)
