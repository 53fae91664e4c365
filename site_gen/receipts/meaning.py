"""What JSON Schema cannot say about a receipt: references, duplicates, declared absences.

The checks of each section's own part are the section's (`Section.check`); this module runs them.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.receipts.rules import anchor_key, require, unique_ids
from site_gen.sections import all_sections as registered_sections

__all__ = ["anchor_key", "require", "unique_ids", "validate_meaning"]


def _sections_have_records(data: dict[str, Any], file: Path) -> None:
    for s in registered_sections():
        if s.records and s.name in data:
            require(bool(data[s.name][s.records]), f"{s.name} has no {s.records}; leave the section out until it has some",
                    file, f"$.{s.name}.{s.records}")


def _engine_records(data: dict[str, Any]):
    """(checkpoint, engine, JSON path) of every record that holds one engine's measurement."""
    for s in registered_sections():
        if s.engine_records:
            yield from s.engine_records(data)


def _no_baseline_no_measurement(data: dict[str, Any], file: Path) -> None:
    """A one-setup report (schema 1.2: no baseline engine) holds no baseline measurement."""
    if "baseline" in data["report"]["engines"]:
        return
    for _, role, where in _engine_records(data):
        require(role != "baseline", "the report names no baseline engine, but this record holds a baseline measurement",
                file, where)


def _missing_means_missing(data: dict[str, Any], file: Path) -> None:
    """A checkpoint that declares an engine missing has no measurement of that engine: the pages
    would show the reason and hide the measurement (its speed cells, its pairs)."""
    missing = {(c["id"], role): i for i, c in enumerate(data["report"]["checkpoints"]) for role in c.get("missing", {})}
    if not missing:
        return
    for checkpoint, role, where in _engine_records(data):
        if (checkpoint, role) in missing:
            raise SitegenError(f"checkpoint '{checkpoint}' declares the {role} missing "
                               f"($.report.checkpoints[{missing[checkpoint, role]}].missing.{role}), "
                               f"but this record holds a {role} measurement on it", file, where)


def _resolves(data: Any, path: str) -> bool:
    """Whether a JSON path of the form `$.a.b[0].c` names a value of `data`."""
    node = data
    for key, index in re.findall(r"\.([A-Za-z0-9_]+)|\[([0-9]+)\]", path[1:]):
        if key:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        else:
            if not isinstance(node, list) or int(index) >= len(node):
                return False
            node = node[int(index)]
    return True


def _provenance_refers(data: dict[str, Any], file: Path) -> None:
    """Provenance (schema 1.1) names its own sources and real places in this receipt, each once."""
    part = data.get("provenance")
    if not part:
        return
    ids = [s["id"] for s in part["sources"]]
    unique_ids(ids, "source", "$.provenance.sources", file)
    seen: dict[str, int] = {}
    for i, f in enumerate(part["figures"]):
        where = f"$.provenance.figures[{i}]"
        require(f["source"] in ids, f"unknown source '{f['source']}'; the provenance declares {', '.join(ids)}", file, where + ".source")
        require(f["path"] not in seen, f"duplicate provenance for {f['path']} (also $.provenance.figures[{seen.get(f['path'])}])",
                file, where + ".path")
        require(_resolves(data, f["path"]), f"{f['path']} names nothing in this receipt", file, where + ".path")
        seen[f["path"]] = i


def validate_meaning(data: dict[str, Any], file: Path) -> None:
    """What JSON Schema cannot say: references, positive rates, intervals, duplicates, comparability.

    The checks of each section's own part are the section's (`Section.check`)."""
    checkpoints = [c["id"] for c in data["report"]["checkpoints"]]
    unique_ids(checkpoints, "checkpoint", "$.report.checkpoints", file)
    known = set(checkpoints)

    def checkpoint_ref(value: str, where: str) -> None:
        require(value in known, f"unknown checkpoint '{value}'; the report declares {', '.join(checkpoints)}", file, where)

    _sections_have_records(data, file)
    _missing_means_missing(data, file)
    _no_baseline_no_measurement(data, file)
    _provenance_refers(data, file)
    for s in registered_sections():
        if s.name is None:  # a section drawn from the others has no part of its own to check
            continue
        if s.check and data.get(s.name):
            s.check(data[s.name], file, checkpoint_ref)
        if s.check_receipt and data.get(s.name):
            s.check_receipt(data, file)
