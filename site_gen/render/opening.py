"""The sentence every report opens with, made from its data: each section's clause (`verdict` of
its view: where the candidate is faster, which way the precision gaps point, what failed), in the
order of the summary, after the two sides' names. The overview shows it above everything else,
and `sitegen summary` prints it first."""
from __future__ import annotations

from site_gen.analysis.report import Analysis, own
from site_gen.render import parts


def clauses(a: Analysis) -> list[str]:
    out = []
    for s in parts.ordered():
        make = parts.view_part(s).verdict
        if make is None or not s.present(a):
            continue
        clause = make(own(a, s.name) if s.name else a)
        if clause:
            out.append(clause)
    return out


def sides(a: Analysis) -> str:
    r = a.report
    if named := parts.sides(a):
        return named["opening"]
    if "baseline" not in r.meta["engines"]:
        return f"{r.candidate.label} (one setup, no baseline)"
    return f"{r.candidate.label} against {r.baseline.label}"


def sentence(a: Analysis, named: bool = True) -> str:
    """`B v2 against A v1: slower in 6 of 8 speed cells (none faster, 2 level); …`; without the two
    sides' names (`named=False`, under a title that names them): `Slower in 6 of 8 speed cells …`."""
    found = clauses(a)
    if not found:
        held = [s.title.lower() for s in parts.ordered() if s.name and a.report.section(s.name) is not None]
        what = ", ".join(held) if held else "no measurements"
        body = f"this receipt holds {what}, from which this version of sitegen draws no verdict"
    else:
        body = "; ".join(found)
    return f"{sides(a)}: {body}." if named else f"{body[0].upper()}{body[1:]}."
