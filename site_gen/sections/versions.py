"""Versions: this candidate against its previous version (precision and long-output text)."""
from __future__ import annotations

from typing import Any

from site_gen.analysis import versions as calc
from site_gen.analysis.frames import from_rows
from site_gen.analysis.report import Analysis
from site_gen.receipts.load import require
from site_gen.render import views
from site_gen.sections.base import BlockSpec, Section

def check(versions: dict, file, checkpoint_ref) -> None:
    seen_panels = set()
    for i, r in enumerate(versions.get("precision", [])):
        checkpoint_ref(r["checkpoint"], f"$.versions.precision[{i}].checkpoint")
        key = (r["panel"], r["checkpoint"])
        require(key not in seen_panels, f"duplicate comparison for panel {key[0]} / {key[1]}", file, f"$.versions.precision[{i}]")
        seen_panels.add(key)
        low, high = r["interval"]
        require(low <= high, f"interval low end {low} is above its high end {high}", file, f"$.versions.precision[{i}].interval")
    seen_categories = set()
    for i, r in enumerate(versions.get("text", [])):
        require(r["category"] not in seen_categories, f"duplicate category '{r['category']}'", file, f"$.versions.text[{i}].category")
        seen_categories.add(r["category"])
        require(r["identical"] <= r["total"], "identical cannot exceed total", file, f"$.versions.text[{i}].identical")


def check_receipt(data: dict, file) -> None:
    """A comparison of the candidate with itself compares nothing: the previous version must be another."""
    prev, candidate = data["versions"]["previous"], data["report"]["engines"]["candidate"]
    require((prev["name"], prev["version"]) != (candidate["name"], candidate["version"]),
            f"is the candidate itself ({candidate['name']} v{candidate['version']}); "
            "the previous version must be another one", file, "$.versions.previous.version")


def analyse(a, v: dict) -> None:
    a.versions_precision = calc.precision(from_rows(v.get("precision", []), ["panel", "checkpoint", "max_abs_difference", "interval"]))
    a.versions_text = calc.text(from_rows(v.get("text", []), ["category", "identical", "total"]))


def page_title(a) -> str:
    return f"v{a.report.candidate.version} against v{a.report.section('versions')['previous']['version']}"


def markup(view: dict, mdx) -> None:
    view["explanations_html"] = [{"label": e["label"], "html": mdx(e["text"], f"$.versions.explanations[{i}].text", True)}
                                 for i, e in enumerate(view["explanations"])]


def view(a: Analysis) -> dict[str, Any] | None:
    v = a.report.section("versions")
    if v is None:
        return None
    prev = v["previous"]
    rows = []
    for r in views.rows(a.versions_precision):
        cps = " and ".join(r["checkpoints"]) if r["identical"] else ""
        label = f"Panel {r['panel']}" + (f", {cps}" if cps else "")
        if r["identical"]:
            text = "bit-identical"
        else:
            text = f"within \u00b1{r['max_abs_difference']:.5f}, " + ("resolved" if r["resolved"] else "not resolved")
        rows.append({"label": label, "text": text})
    if a.versions_text is not None and not a.versions_text.empty:
        parts = []
        for r in views.rows(a.versions_text):
            names = [("JSON" if c == "json" else c) for c in r["categories"]]
            joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            if r["all_identical"]:
                parts.append(f"{joined} replies identical ({int(r['identical'])}/{int(r['total'])})")
            else:
                parts.append(f"{joined} replies differ ({int(r['differ'])}/{int(r['total'])})")
        rows.append({"label": "Long-output text", "text": "; ".join(parts)})
    return {"previous": f"v{prev['version']}", "previous_label": f"{prev['name']} v{prev['version']}",
            "candidate": f"v{a.report.candidate.version}", "note": v.get("note", ""), "rows": rows,
            "explanations": v.get("explanations", [])}


SECTION = Section(
    key="versions", title="Versions", name="versions", view=view, check=check, check_receipt=check_receipt, analyse=analyse,
    page_title=page_title, markup=markup,
    blocks={"versions": BlockSpec("versions", "versions", (), "{{ versions_table(versions, id=id) }}",
                                  "this version against the previous one", "versions-table")},
)
