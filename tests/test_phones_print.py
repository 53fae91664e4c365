"""Issue 32, the standalone site: charts agree with their tables, tables name themselves, phones
and print. The static checks read the built example site; the browser checks are in
test_a11y_layout.py (axe, layout) and below (print, phones)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from htmlutil import NS, cell_text, find_id, parse

MINUS = "\u2212"


def number(text: str) -> float:
    return float(text.replace(MINUS, "-").replace("+", ""))


def forest_values(fig) -> dict[str, tuple[float, float, float]]:
    """Each row of a forest figure, read off its drawing through its own axis labels:
    checkpoint -> (dot, interval low, interval high) in the labels' units."""
    svg = next(fig.iter("{http://www.w3.org/2000/svg}svg"))
    S = "{http://www.w3.org/2000/svg}"
    ticks = [(float(t.get("x")), number(t.text)) for t in svg.iter(f"{S}text") if t.get("class") == "tick-label"]
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]

    def value(x: str) -> float:
        return v0 + (float(x) - x0) / (x1 - x0) * (v1 - v0)
    labels = [t for t in svg.iter(f"{S}text") if t.get("class") == "row-label"]
    cis = [e for e in svg.iter(f"{S}line") if e.get("class") == "ci"]
    dots = [e for e in svg.iter(f"{S}circle") if "est" in (e.get("class") or "")]
    out = {}
    for label, ci, dot in zip(labels, cis, dots):
        name = "".join(label.itertext()).strip()
        lo, hi = sorted((value(ci.get("x1")), value(ci.get("x2"))))
        out[name] = (value(dot.get("cx")), lo, hi)
    return out


@pytest.mark.parametrize("report", ["cuteafd-v4.0.0", "cuteafd-v3.0.1"])
def test_every_forest_dot_reads_on_its_axis_as_the_tables_difference(example_site, report):
    """Finding 11: the Top-1 agreement chart's axis read +0.20…+0.80 where its table says −0.35 pts
    (the axis was labelled in the flipped, 'further' units). Each dot and interval end, read through
    the tick labels, is the table's difference and interval."""
    doc = parse(example_site / "reports" / report / "precision.html")
    table = find_id(doc, "precision-table")
    rows = {}
    for tbody in table.iter(f"{NS}tbody"):
        checkpoint = cell_text(next(tbody.iter(f"{NS}tr"))[0])
        for tr in list(tbody.iter(f"{NS}tr"))[1:]:
            cells = [c for c in tr if c.tag in (f"{NS}th", f"{NS}td")]
            measure = cell_text(cells[0])
            shown = cell_text(cells[3]).split()[0]
            lo, hi = (number(v) for v in re.findall(r"[−+\-]?\d+(?:\.\d+)?", cell_text(cells[4])))
            # The table rounds: its last digit is the tolerance (half of it, and the drawing's 0.01 px).
            half = 0.5 * 10 ** -len(shown.split(".")[1]) if "." in shown else 0.5
            rows[(checkpoint, measure)] = (number(shown), lo, hi, half)
    checked = 0
    for fig in doc.iter(f"{NS}figure"):
        if "forest" not in (fig.get("class") or "") or not (fig.get("id") or "").startswith("forest-"):
            continue
        measure = cell_text(next(fig.iter(f"{NS}figcaption"))).split(" (")[0]
        for checkpoint, (dot, lo, hi) in forest_values(fig).items():
            diff, tlo, thi, half = rows[(checkpoint, measure)]
            tol = half + 1e-4 * abs(thi - tlo) + 1e-12
            assert abs(dot - diff) <= tol, (measure, checkpoint, dot, diff)
            assert abs(lo - tlo) <= tol and abs(hi - thi) <= tol, (measure, checkpoint, lo, hi, tlo, thi)
            checked += 1
    assert checked >= 8
