"""Versions' view: the page's display data, its title and its author block."""
from __future__ import annotations

from typing import Any

from site_gen.receipts.load import engine_label, version_text
from site_gen.render import plain, views
from site_gen.render.provenance import Fig
from site_gen.sections.base import BlockSpec
from site_gen.sections.contract import ViewPart


def page_title(a) -> str:
    return f"{a.report.candidate.version_label} against {version_text(a.report.section('versions')['previous']['version'])}"


def markup(view: dict, mdx) -> None:
    view["explanations_html"] = [{"label": e["label"], "html": mdx(e["text"], f"$.versions.explanations[{i}].text", True)}
                                 for i, e in enumerate(view["explanations"])]


def view(a) -> dict[str, Any] | None:
    v = a.report.section("versions")
    result = a.of("versions")
    if v is None or result is None:
        return None
    prev = v["previous"]
    rows = []
    # Where each panel's and each category's rows are in the receipt: the source of every figure here.
    at: dict[str, list[str]] = {}
    for i, r in enumerate(v.get("precision", [])):
        at.setdefault(r["panel"], []).append(f"$.versions.precision[{i}]")
    cat_at = {r["category"]: f"$.versions.text[{i}]" for i, r in enumerate(v.get("text", []))}
    for r in views.rows(result.precision):
        cps = " and ".join(r["checkpoints"]) if r["identical"] else ""
        label = f"Panel {r['panel']}" + (f", {cps}" if cps else "")
        places = ", ".join(at.get(r["panel"], []))
        if r["identical"]:
            text = Fig("bit-identical", how=f"max_abs_difference 0 in {places}")
        else:
            text = Fig(f"within \u00b1{r['max_abs_difference']:.5f}, " + ("resolved" if r["resolved"] else "not resolved"),
                       how=f"the largest max_abs_difference of {places}; resolved when an interval there excludes zero")
        rows.append({"label": label, "text": text})
    if result.text is not None and not result.text.empty:
        parts = []
        for r in views.rows(result.text):
            names = [("JSON" if c == "json" else c) for c in r["categories"]]
            joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            places = ", ".join(cat_at[c] for c in r["categories"] if c in cat_at)
            if r["all_identical"]:
                parts.append(Fig(f"{joined} replies identical ({int(r['identical'])}/{int(r['total'])})",
                                 how=f"identical / total replies of {places}"))
            else:
                parts.append(Fig(f"{joined} replies differ ({int(r['differ'])}/{int(r['total'])})",
                                 how=f"total minus identical replies, of the total, in {places}"))
        rows.append({"label": "Long-output text", "text": parts})
    return {"previous": version_text(prev["version"]), "previous_label": engine_label(prev["name"], prev["version"]),
            "candidate": a.report.candidate.version_label, "note": v.get("note", ""), "rows": rows,
            "explanations": v.get("explanations", [])}


BLOCKS = {"versions": BlockSpec("versions", "versions", (), "{{ versions_table(versions, id=id) }}",
                                 "this version against the previous one", "versions-table")}
MACROS = ("versions_table",)


# -- its lines in the other outputs -----------------------------------------------------------

def summary(a, shown: dict | None) -> dict[str, Any] | None:
    """Its part of `sitegen summary --format json`: per panel, bit-identical or the largest difference
    and whether an interval is resolved; per group of reply categories, identical replies."""
    if not shown:
        return None
    v, result = a.report.section("versions"), a.of("versions")
    prev = v["previous"]
    return {"versions": {
        "previous": {"name": prev["name"], "version": prev["version"], "label": engine_label(prev["name"], prev["version"])},
        "precision": [{"panel": r["panel"], "checkpoints": list(r["checkpoints"]), "identical": bool(r["identical"]),
                       "max_abs_difference": plain.number(r["max_abs_difference"]), "resolved": bool(r["resolved"])}
                      for r in views.rows(result.precision)],
        "text": [{"categories": list(r["categories"]), "identical": int(r["identical"]), "total": int(r["total"])}
                 for r in views.rows(result.text)] if result.text is not None else []}}


def summary_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    if "versions" not in d:
        return []
    v = d["versions"]
    rows = [(f"Against {v['previous']['label']}, panel {p['panel']}", "bit-identical" if p["identical"] else
             f"within ±{p['max_abs_difference']:.5f}, {'resolved' if p['resolved'] else 'not resolved'}") for p in v["precision"]]
    rows += [(f"Against {v['previous']['label']}, {', '.join(t['categories'])} replies", f"{t['identical']} of {t['total']} identical")
             for t in v["text"]]
    return rows


def verdict(a) -> str | None:
    v, result = a.report.section("versions"), a.of("versions")
    if v is None or result is None or result.precision.empty:
        return None
    prev = engine_label(v["previous"]["name"], v["previous"]["version"])
    rows = views.rows(result.precision)
    same = [r["panel"] for r in rows if r["identical"]]
    if len(same) == len(rows):
        return f"bit-identical precision to {prev} on {'panel ' + same[0] if len(same) == 1 else f'all {len(same)} panels'}"
    moved = [r["panel"] for r in rows if r["resolved"]]
    return (f"precision against {prev}: " + (f"bit-identical on {', '.join(same)}; " if same else "")
            + (f"a resolved difference on {', '.join(moved)}" if moved else "no resolved difference"))


def headlines(a) -> list[tuple[str, str, str]]:
    clause = verdict(a)
    return [("Versions:", clause, "neutral")] if clause else []


PART = ViewPart(view=view, blocks=BLOCKS, macros=MACROS, summary=summary, summary_rows=summary_rows, verdict=verdict,
                headlines=headlines, page_title=page_title, markup=markup)
