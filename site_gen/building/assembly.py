"""One assembly of the site's model, for every front end: load -> analyse -> order -> supersedes.

`sitegen build`, `check` and the preview go through `Builder` (which caches each step), `sitegen
summary` and the MkDocs plugin through `assemble`; all of them order and check the reports with
`settle`, so each front end sees the same reports, in the same order, refused for the same reasons.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field

from site_gen.analysis.report import Analysis, analyse
from site_gen.core.config import Config
from site_gen.core.diagnostics import Diagnostic
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import load_reports
from site_gen.render import dashboard
from site_gen.render.pages import report_base
from site_gen.render.where import HISTORY_URL
from site_gen.render.related import Memo as RelationsMemo, relations_again


def history_nav() -> dict[str, str | None]:
    """The navigation entry of the history page (a site of several reports has one)."""
    return {"title": "History", "url": HISTORY_URL, "report": None}


@dataclass
class Site:
    analyses: list[Analysis]          # newest first
    warnings: list[Diagnostic] = field(default_factory=list)


def dashboard_rows(records: list, changes: dict[str, list[str]] | None = None) -> list[dict]:
    """The dashboard's rows of the reports' records (superseded reports under their rerun), as the
    home page lists them, each with the change points it names (`changes`, else `row_changes`)."""
    return dashboard.split(rows_of(records, row_changes(records) if changes is None else changes))


def rows_of(records: list, changes: dict[str, list[str]]) -> list[dict]:
    """Each report's dashboard row (unsplit), with its link and the change points it names: the one
    place `sitegen build`'s home page (building/rows.py) and a host's dashboard block take them from."""
    return [{**r.dashboard, "url": report_url(r.id), "changes": changes.get(r.id, [])} for r in records]


def changes_shown(records: list) -> dict:
    """The history rows the dashboard finds change points over: those the History page shows."""
    from site_gen.analysis import history
    from site_gen.render import history as history_view

    return history.shown(records, history_view.MAX_POINTS)


def row_changes(records: list, shown: dict | None = None) -> dict[str, list[str]]:
    """Each report id -> the change points its dashboard row names (render/series.py
    `dashboard_changes`: a series' newest change, on its newest report's row); none with one report."""
    if len(records) < 2:
        return {}
    from site_gen.render import series as series_view

    return series_view.dashboard_changes(records, changes_shown(records) if shown is None else shown)


def report_url(report_id: str) -> str:
    return report_base(report_id) + "index.html"


def assemble(config: Config, *, only: str | None = None) -> Site:
    """Every report of data_dir loaded, analysed and settled; with `only`, just that report (its
    supersedes, which names another report, is then not checked)."""
    reports = load_reports(config.data_dir, max_bytes=config.max_receipt_bytes)
    if only is not None:
        chosen = [r for r in reports if r.id == only]
        if not chosen:
            raise SitegenError(f"no report '{only}'; reports: {', '.join(r.id for r in reports)}", config.data_dir)
        reports = chosen
    analyses = [analyse(r, config.noise_band, config.ratio_scale, config.headline_input, slo=config.slo) for r in reports]
    warnings = [w for r in reports for w in r.warnings]
    if only is not None:
        return Site(analyses, warnings)
    return Site(settle(analyses), warnings)


def _facts(item) -> tuple[str, str, str | None, str]:
    """(id, date, supersedes, receipt file) of a report's record or of its analysis."""
    if isinstance(item, Analysis):
        r = item.report
        return r.id, r.date, r.meta.get("supersedes"), str(r.file)
    return item.id, item.date, item.supersedes, item.file


def settle(items: list) -> list:
    """The reports (records, or analyses) checked for supersedes and sorted newest first (the
    dashboard's and the navigation's order)."""
    check_supersedes(items)
    return sorted(items, key=lambda x: _facts(x)[1::-1], reverse=True)


_READ = operator.attrgetter("id", "date", "supersedes", "file", "title")  # what settle and report_nav read


class Settled:
    """`settle` and `report_nav` of a live builder's records, done again only when what they read of
    the records changed (id, date, supersedes, file, title): a prose edit, or a receipt edit of a
    figure, leaves the order and the navigation as they were. At a thousand reports the two took
    ~6 ms of each rebuild, before the open page could be shown."""

    def __init__(self) -> None:
        self._key: list | None = None
        self._order: list[int] = []  # settled position -> position in the records given
        self._nav: list = []

    def __call__(self, records: list) -> tuple[list, list]:
        """(the records settled, their navigation entries; the entries are shared, not to be changed)."""
        key = list(map(_READ, records))
        if key != self._key:
            settled = settle(records)  # raises on a bad supersedes: nothing kept then
            where = {id(r): i for i, r in enumerate(records)}
            self._key, self._order, self._nav = key, [where[id(r)] for r in settled], report_nav(settled)
            return settled, self._nav
        return [records[i] for i in self._order], self._nav


def relations_settled(settled: Settled, memo: RelationsMemo, records: list) -> dict:
    """The reports' links to each other as a build finds them (`settled` order, `memo`: a builder's),
    from these records in folder order; none when they do not settle (the build then says why)."""
    try:
        return relations_again(settled(records)[0], memo)
    except SitegenError:
        return {}


def report_nav(records: list) -> list[dict[str, str | None]]:
    """The site navigation's entries for the reports (and their history page, when there are several)."""
    nav = [{"title": r.title, "url": report_url(r.id), "report": r.id} for r in records]
    return [history_nav()] + nav if len(records) > 1 else nav


def check_supersedes(items: list) -> None:
    """A report may supersede (rerun) another: the one it names must be another report here, and
    reruns form chains. The dashboard lists a superseded report under its one newer run and
    shows the chain's newest in the table: in a cycle every report would be superseded and the
    table empty; two reruns of one report would leave one of them unnamed."""
    reports = {f[0]: f for f in map(_facts, items)}
    supersedes: dict[str, str] = {}
    rerun: dict[str, str] = {}  # superseded id -> the report that supersedes it
    for rid in sorted(reports):
        target = reports[rid][2]
        if target is None:
            continue
        if target not in reports or target == rid:
            raise SitegenError(f"supersedes '{target}', which is not another report here; reports: {', '.join(sorted(reports))}",
                               reports[rid][3], "$.report.supersedes")
        if target in rerun:
            raise SitegenError(f"supersedes '{target}', which '{rerun[target]}' supersedes too; a report has one rerun "
                               f"(let the newer of '{rerun[target]}' and '{rid}' supersede the other)",
                               reports[rid][3], "$.report.supersedes")
        supersedes[rid], rerun[target] = target, rid
    # Each report now has at most one rerun, so a walk that comes back to where it began is a cycle.
    done: set[str] = set()
    for start in sorted(supersedes):
        if start in done:
            continue
        chain, node = [], start
        while node in supersedes and node not in done:
            chain.append(node)
            done.add(node)
            node = supersedes[node]
        if node == start:
            raise SitegenError(f"supersedes '{supersedes[start]}', and the reruns go round in a circle: "
                               f"{' → '.join(chain + [start])}; the first run of a chain supersedes none",
                               reports[start][3], "$.report.supersedes")
