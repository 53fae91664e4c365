"""What a report section is: one `Section` holds everything sitegen knows of it.

A section (speed, precision, ...) is a part of the receipt (`name`, its schema fragment, its meaning
checks), an analysis that fills the `Analysis`, a view (display data for the templates), CSV tables,
author blocks and a page (`<key>.html`). The pipeline iterates the registry (`site_gen.sections`)
and never names a section itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

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
class Section:
    key: str                      # page key and file stem (`long-outputs` -> long-outputs.html)
    title: str                    # its page's title in the report navigation
    name: str | None = None       # its part of the receipt (`long_outputs`); None: drawn from the others
    view: Callable[[Any], Any] | None = None  # Analysis -> display data, in the context as `view_key`
    needs: tuple[str, ...] = ()   # views of other sections its page shows too
    check: Callable[[dict, Path, CheckpointRef], None] | None = None  # meaning checks of its part
    check_receipt: Callable[[dict, Path], None] | None = None  # checks of its part against the rest of the receipt
    records: str | None = None    # the record list the part must hold (shown only with some)
    light: bool = False           # `records` are read by the analysis only: dropped once it is done
    engine_records: Callable[[dict], Iterator[tuple[str, str, str]]] | None = None  # (checkpoint, role, path)
    analyse: Callable[[Any, dict], None] | None = None  # fills the Analysis from the receipt's part
    csv: Callable[[Any], dict] | None = None  # Analysis -> {table name: DataFrame}
    blocks: dict[str, BlockSpec] = field(default_factory=dict)
    provenance: bool = False      # its figures are listed on the numbers page
    charts: bool = False          # its page draws interactive charts
    page_title: Callable[[Any], str] | None = None  # a title made from the report instead of `title`
    page_context: Callable[[Any, dict], None] | None = None  # adds to its page's context
    markup: Callable[[dict, Callable], None] | None = None  # renders receipt markdown of its view (mdx)
    schema: dict | None = None    # its part of the receipt schema, when not in the published schema file

    @property
    def view_key(self) -> str:
        return self.name or self.key

    @property
    def file(self) -> str:
        return f"{self.key}.html"

    @property
    def template(self) -> str:
        return f"{self.key}.html"

    def present(self, a) -> bool:
        return self.name is None or a.report.section(self.name) is not None

    def title_for(self, a) -> str:
        return self.page_title(a) if self.page_title else self.title


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
