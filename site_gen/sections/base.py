"""What a report section is: a package `site_gen/sections/<name>/` whose `__init__.py` declares it.

The declaration (`Section`) is light: the section's part of the receipt (`name`, its schema part,
its meaning checks) and the names of its two other modules, imported only by the layers that use
them:

- `<package>.analysis` (the analysis layer, pandas): `analyse(base, part) -> Result | None`, the
  section's typed result, kept in the report's `Analysis.results[name]`; optionally its inline
  figures (`FIGURES`) and its history rows (`history_rows`);
- `<package>.view` (the view layer): `view(a)`, its page's display data (every figure a `Fig`, so
  it has a hover and a row on the Numbers page); `csv(a)`, its tables; `BLOCKS`, its author blocks;
  and its lines in the other outputs, so that no output leaves it out: `summary(a, shown)` (its part
  of `sitegen summary --format json`: numbers as numbers, units and directions as fields, described
  in site_gen/schema/summary-output-1.schema.json) and `summary_rows(d)` (its text and markdown
  lines, from that JSON), `verdict(a)` (its clause of the sentence every report opens with),
  `headlines(a)` (its line on the share card, in the meta description, and on the dashboard when it
  has no column of its own), `dashboard(a)` (its dashboard columns), plus optional `card_strip`,
  `HISTORY_PARTS`, `page_title`, `page_context`, `markup`;
- `<package>/templates/`: its page (`<key>.html`), its part of the overview
  (`overview/<key>.html`) and its macros (`_<key>.html`).

Central code iterates the registry (`site_gen.sections`) and never names a section.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator

from site_gen.core.errors import SitegenError

# checkpoint_ref(value, where): raises unless `value` is a checkpoint the report declares.
CheckpointRef = Callable[[str, str], None]


@dataclass(frozen=True)
class BlockSpec:
    """An author block (```sitegen block: NAME```) drawn from one report page's context."""
    section: str | None          # the report page whose context the block shows; None: site-wide
    view: str | None             # the context entry that must exist (the report has that section)
    options: tuple[str, ...]
    template: str
    doc: str
    default_id: str = ""
    # apply(a, ctx, opt, at, file, line): the block's own options applied to (copies of) the view.
    apply: Callable[..., dict[str, Any]] | None = None
    id_by_checkpoint: bool = False  # the default id names the chosen checkpoint


@dataclass(frozen=True)
class DashboardColumn:
    """A column a section adds to the table of reports: its key in the row (`view.dashboard(a)`
    gives the cell), its heading, and whether it holds a number (right-aligned)."""
    key: str
    title: str
    numeric: bool = False


@dataclass(frozen=True)
class Section:
    key: str                      # page key and file stem (`long-outputs` -> long-outputs.html)
    title: str                    # its page's title in the report navigation
    package: str = ""             # its modules: `<package>.analysis`, `<package>.view`
    name: str | None = None       # its part of the receipt (`long_outputs`); None: drawn from the others
    needs: tuple[str, ...] = ()   # views of other sections its page shows too
    check: Callable[[dict, Path, CheckpointRef], None] | None = None  # meaning checks of its part
    check_receipt: Callable[[dict, Path], None] | None = None  # checks of its part against the rest of the receipt
    records: str | None = None    # the record list the part must hold (shown only with some)
    light: bool = False           # `records` are read by the analysis only: dropped once it is done
    engine_records: Callable[[dict], Iterator[tuple[str, str, str]]] | None = None  # (checkpoint, role, path)
    provenance: bool = False      # its figures are listed on the numbers page
    legend: bool = False          # its page colours verdicts by direction: it shows the colour legend
    charts: bool = False          # its page draws interactive charts
    overview: bool = False        # drawn from the others, it has a part of the overview (its view made there too)
    schema: dict | None = None    # its part of the receipt schema, when not in the published schema file
    dashboard: tuple[DashboardColumn, ...] = ()  # its columns in the table of reports
    order: int = 100              # where its lines stand in the summary, the share card and the dashboard
    texts: tuple[str, ...] = ()   # receipt markdown of its part: `note`, `explanations` (checked for size)
    # What its part says of other reports (render/related.py): the engine the candidate's previous
    # version is ({"name", "version"}, or None), and other engines it names (memory references).
    previous: Callable[[dict], dict | None] | None = None
    engines_named: Callable[[dict], list[dict]] | None = None
    analysis: str = ""            # module of its analysis, when not `<package>.analysis`
    view: str = ""                # module of its view, when not `<package>.view`

    @property
    def view_key(self) -> str:
        return self.name or self.key

    @property
    def file(self) -> str:
        return f"{self.key}.html"

    @property
    def template(self) -> str:
        return f"{self.key}.html"

    @property
    def analysis_module(self) -> str:
        return self.analysis or f"{self.package}.analysis"

    @property
    def view_module(self) -> str:
        return self.view or f"{self.package}.view"

    def present(self, a) -> bool:
        return self.name is None or a.report.section(self.name) is not None


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def paired_records(name: str) -> Callable[[dict], Iterator[tuple[str, str, str]]]:
    """`engine_records` of a section whose `results` hold each engine's measurement under its role."""
    def records(data: dict) -> Iterator[tuple[str, str, str]]:
        for i, r in enumerate(data.get(name, {}).get("results", [])):
            for role in ("baseline", "candidate"):
                if role in r:
                    yield r["checkpoint"], role, f"$.{name}.results[{i}].{role}"
    return records


def option_bool(value: str, key: str, file, line: int) -> bool:
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise SitegenError(f"option '{key}' expects true or false, got {value!r}", file, f"line {line}")


def option_checkpoint(value: str, allowed: list[str], file, line: int, what: str) -> str:
    if value not in allowed:
        raise SitegenError(f"checkpoint '{value}' has no {what}; checkpoints: {', '.join(allowed) or 'none'}",
                           file, f"line {line}")
    return value
