"""Across reports: how each checkpoint and measure moves, release after release.

Series are keyed by everything that makes two receipts comparable. Precision points share a
series only when their measure, panel, vocabulary and evaluated rows (plan, teacher, sha256) are
the same; anything else is a separate series, never a continuation. Speed and KV pool points share
a series when the engines' names and the checkpoint are the same.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from site_gen.analysis.parts import analysis_part
from site_gen.analysis.report import Analysis
from site_gen.sections import all_sections

# pandas is imported where a frame is made: the build's records (building/environment.py) take each
# report's rows from here, and a process that makes no history frame never loads it.
if TYPE_CHECKING:
    import pandas as pd


def _engines(a: Analysis) -> dict[str, str]:
    r = a.report
    return {"report": r.id, "date": r.date, "candidate": r.candidate.name, "version": r.candidate.version,
            "baseline": r.baseline.label, "series_name": r.meta.get("series", ""), "commit": r.meta.get("commit", ""),
            "setup": setup(a)}


def setup(a: Analysis) -> str:
    """What makes two reports one setup, as `sitegen compare` checks it report-wide: the candidate's
    label (its engine's name in a ledger's receipt, a side's label in an import), the baseline, the
    model(s) and the hardware (`field=value; ...`)."""
    r = a.report
    models = ", ".join(c.get("label", c["id"]) for c in r.meta["checkpoints"])
    return (f"candidate label={r.candidate.name}; baseline={r.baseline.label if 'baseline' in r.meta['engines'] else 'none'}; "
            f"model={models}; hardware={r.meta.get('hardware', 'not recorded')}")


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["series", "date", "report"], kind="stable").reset_index(drop=True)


def kinds() -> dict[str, tuple]:
    """Every history kind by name, (rows of one report, columns): each section's (`HISTORY` of its analysis)."""
    out: dict[str, tuple] = {}
    for s in all_sections():
        hooks = analysis_part(s)
        out.update(hooks.history if hooks is not None else {})
    return out


def report_rows(a: Analysis) -> dict[str, list[dict]]:
    """One report's rows of each history frame (what `frames` caches per receipt)."""
    engines = _engines(a)
    out = {k: fn(a, engines) for k, (fn, _) in kinds().items()}
    declared = engines["series_name"]
    if declared:  # a series the receipt names: its rows' keys start with that name (analysis/series.py)
        out = {k: [{**row, "series": f"{declared} · {row['series']}"} for row in rows] for k, rows in out.items()}
    return out


def _same_kept(rows: dict[str, list[dict]], earlier: dict[str, list[dict]] | None) -> dict[str, list[dict]]:
    """A report's new rows, each kind that reads as before (repr: exact for the values a row holds)
    as the earlier list itself, so the frames made from it are known unchanged."""
    if earlier is None:
        return rows
    return {k: earlier[k] if k in earlier and repr(earlier[k]) == repr(v) else v for k, v in rows.items()}


def frames(reports: list, cache: dict | None = None, newest: int | None = None,
           memo: dict | None = None) -> dict[str, pd.DataFrame]:
    """Every history kind's frame, from each report's rows (`reports`: records with `id`,
    `sha256`, `date` and `history`, its rows of each kind, as `report_rows` gives them).

    `cache` keeps each report's rows by receipt between builds, an earlier list kept where the rows
    read as before (so the frames made from them are known unchanged). With `newest`, each series
    keeps only its newest rows, and an `older` column says how many it left out: a page showing the
    latest releases then costs little more at a thousand reports. `memo` keeps each frame with the
    rows it was made from: a frame whose reports' rows are the same lists is taken again (an edit
    of one report's speed leaves its KV pool rows as they were).
    """
    cache = {} if cache is None else cache
    live = set()
    by_id = None
    for r in reports:
        key = (r.id, r.sha256)
        live.add(key)
        if key not in cache:
            if by_id is None:
                by_id = {rid: rows for (rid, _), rows in cache.items()}
            cache[key] = _same_kept(r.history, by_id.get(r.id))
    for stale in set(cache) - live:
        del cache[stale]
    if newest is None:
        import pandas as pd

        return {k: _order(pd.DataFrame([row for r in reports for row in cache[(r.id, r.sha256)].get(k, [])], columns=cols))
                for k, (_, cols) in kinds().items()}
    # Newest reports first: each series takes rows until it has `newest`, then only counts.
    ordered = [cache[(r.id, r.sha256)] for r in sorted(reports, key=lambda r: (r.date, r.id), reverse=True)]
    out = {}
    for k, (_, cols) in kinds().items():
        made_from = [rows.get(k, []) for rows in ordered]
        hit = memo.get(k) if memo is not None else None
        if hit is None or hit[0] != newest or len(hit[1]) != len(made_from) or any(x is not y for x, y in zip(hit[1], made_from)):
            hit = (newest, made_from, _newest(made_from, newest, cols))
            if memo is not None:
                memo[k] = hit
        out[k] = hit[2]
    return out


def _newest(made_from: list[list[dict]], newest: int, cols: list[str]) -> pd.DataFrame:
    """One kind's frame from each report's rows (newest report first): each series' newest rows."""
    import pandas as pd

    kept, older = _kept(made_from, newest)
    return _order(pd.DataFrame([{**r, "older": older.get(series, 0)} for series, got in kept.items() for r in got],
                               columns=[*cols, "older"]))


def _kept(made_from: list[list[dict]], newest: int) -> tuple[dict[str, list[dict]], dict[str, int]]:
    """Each series' newest rows (`made_from`: each report's rows, newest report first), and how many
    rows each series leaves out."""
    kept: dict[str, list[dict]] = {}
    older: dict[str, int] = {}
    for rows in made_from:
        for row in rows:
            got = kept.setdefault(row["series"], [])
            if len(got) < newest:
                got.append(row)
            else:
                older[row["series"]] = older.get(row["series"], 0) + 1
    return kept, older


def shown(reports: list, newest: int) -> dict[str, tuple[dict[str, list[dict]], dict[str, int]]]:
    """What `frames(reports, newest=newest)` makes each kind's frame from (`_kept` of its rows), by
    kind, without pandas or the sections' analysis modules: a page made from frames is the same
    while this is (a receipt edited outside each series' newest releases leaves it so)."""
    ordered = sorted(reports, key=lambda r: (r.date, r.id), reverse=True)
    kinds = sorted({k for r in reports for k in r.history})
    return {k: _kept([r.history.get(k, []) for r in ordered], newest) for k in kinds}


# -- what changed from one release to the next ----------------------------------------------------

def step_rules() -> dict[str, Callable[[dict, dict, float], list]]:
    """Each history kind's rule from one release to the next (`HISTORY_STEPS` of its section's analysis):
    `step(old_row, new_row, band) -> [Change]`."""
    out: dict[str, Callable[[dict, dict, float], list]] = {}
    for s in all_sections():
        hooks = analysis_part(s)
        out.update(hooks.history_steps if hooks is not None else {})
    return out


def steps(kind: str, frame: pd.DataFrame, band: float) -> dict[tuple[str, str], tuple[dict, list]]:
    """For each release of a series after the first one the frame holds: (the release before it, the
    changes from it), keyed by (series, report). The frame is in series, date and report order."""
    from site_gen.analysis.frames import rows_of

    rule = step_rules().get(kind)
    if rule is None or frame.empty:
        return {}
    out: dict[tuple[str, str], tuple[dict, list]] = {}
    before: dict[str, dict] = {}
    for row in rows_of(frame, list(frame.columns)):
        previous = before.get(row["series"])
        if previous is not None:
            out[(row["series"], row["report"])] = (previous, rule(previous, row, band))
        before[row["series"]] = row
    return out
