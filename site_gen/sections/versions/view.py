"""Versions' view: the page's display data, its title and its author block."""
from __future__ import annotations

from typing import Any

from site_gen.receipts.load import engine_label, version_text
from site_gen.render import views
from site_gen.sections.base import BlockSpec


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
    for r in views.rows(result.precision):
        cps = " and ".join(r["checkpoints"]) if r["identical"] else ""
        label = f"Panel {r['panel']}" + (f", {cps}" if cps else "")
        if r["identical"]:
            text = "bit-identical"
        else:
            text = f"within \u00b1{r['max_abs_difference']:.5f}, " + ("resolved" if r["resolved"] else "not resolved")
        rows.append({"label": label, "text": text})
    if result.text is not None and not result.text.empty:
        parts = []
        for r in views.rows(result.text):
            names = [("JSON" if c == "json" else c) for c in r["categories"]]
            joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            if r["all_identical"]:
                parts.append(f"{joined} replies identical ({int(r['identical'])}/{int(r['total'])})")
            else:
                parts.append(f"{joined} replies differ ({int(r['differ'])}/{int(r['total'])})")
        rows.append({"label": "Long-output text", "text": "; ".join(parts)})
    return {"previous": version_text(prev["version"]), "previous_label": engine_label(prev["name"], prev["version"]),
            "candidate": a.report.candidate.version_label, "note": v.get("note", ""), "rows": rows,
            "explanations": v.get("explanations", [])}


BLOCKS = {"versions": BlockSpec("versions", "versions", (), "{{ versions_table(versions, id=id) }}",
                                 "this version against the previous one", "versions-table")}
MACROS = ("versions_table",)
