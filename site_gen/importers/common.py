"""What every importer shares: reading source files (with their SHA-256 and line numbers), the
provenance record of each figure, a seeded paired bootstrap, and writing the receipt.

Bad input is refused as a `SitegenError` naming the source file and the line or JSON path.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.receipts.load import SUMMARY, check_report_id, decode_text, validate_meaning, validate_schema

MAX_SOURCE_BYTES = 256 << 20


@dataclass
class Source:
    """One original file: its path as the receipt names it (relative to the source root) and SHA-256."""

    path: Path
    name: str
    sha256: str
    text: str


def read_source(path: Path, root: Path) -> Source:
    if not path.is_file():
        raise SitegenError("not found", path)
    raw = path.read_bytes()
    if len(raw) > MAX_SOURCE_BYTES:
        raise SitegenError(f"source file is over {MAX_SOURCE_BYTES >> 20} MB", path)
    try:
        name = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        name = path.name
    return Source(path, name, hashlib.sha256(raw).hexdigest(), decode_text(raw, path))


def _strict_pairs(file: Path, where: str):
    def pairs(items):
        out = dict(items)
        if len(out) != len(items):
            seen: set = set()
            twice = next(k for k, _ in items if k in seen or seen.add(k))
            raise SitegenError(f"duplicate key '{twice}' in one object", file, where)
        return out
    return pairs


def _no_constants(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(src: Source) -> Any:
    try:
        return json.loads(src.text, object_pairs_hook=_strict_pairs(src.path, "$"), parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise SitegenError(f"not valid JSON: {exc.msg}", src.path, f"line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise SitegenError(str(exc), src.path) from None


def parse_jsonl(src: Source) -> list[tuple[int, dict]]:
    """(line number, row) of every non-blank line; a line that does not parse is refused by number
    (the last one, cut short, as truncated)."""
    lines = src.text.split("\n")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=_strict_pairs(src.path, f"line {n}"), parse_constant=_no_constants)
        except (json.JSONDecodeError, ValueError) as exc:
            last = n == len(lines) or all(not rest.strip() for rest in lines[n:])
            what = "truncated row (the file ends inside it)" if last and not src.text.endswith("\n") else "row is not valid JSON"
            raise SitegenError(f"{what}: {getattr(exc, 'msg', exc)}", src.path, f"line {n}") from None
        if not isinstance(row, dict):
            raise SitegenError(f"expected a JSON object per line, got {type(row).__name__}", src.path, f"line {n}")
        out.append((n, row))
    if not out:
        raise SitegenError("no rows", src.path)
    return out


def field_of(row: dict, key: str, kind, src: Source, line: int):
    """A row's field, of the type the protocol defines, or a refusal naming the line."""
    if key not in row:
        raise SitegenError(f"row has no '{key}'", src.path, f"line {line}")
    value = row[key]
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise SitegenError(f"'{key}' is {json.dumps(value)[:40]}, not a {getattr(kind, '__name__', 'number')}", src.path, f"line {line}")
    return value


NUMBER = (int, float)


def unique_rows(rows: Iterable[tuple[int, dict]], key, what: str, src: Source) -> None:
    seen: dict = {}
    for n, row in rows:
        k = key(row)
        if k in seen:
            raise SitegenError(f"duplicate row: {what} {k} again (first on line {seen[k]})", src.path, f"line {n}")
        seen[k] = n


def lines_text(numbers: Iterable[int]) -> str:
    """`lines 1-16, 49`: the lines a figure was computed from, as ranges."""
    nums = sorted(set(numbers))
    parts, start = [], None
    for i, n in enumerate(nums):
        if start is None:
            start = n
        if i + 1 == len(nums) or nums[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ("line " if len(nums) == 1 else "lines ") + ", ".join(parts)


@dataclass
class Provenance:
    """The receipt's `provenance` part: each source file once, each receipt path with its origin."""

    sources: list[dict] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    url: str | None = None  # where the source root is published, when known

    def cite(self, path: str, src: Source, at: str) -> None:
        ids = {s["file"]: s["id"] for s in self.sources}
        if src.name not in ids:
            entry = {"id": f"s{len(self.sources) + 1}", "file": src.name, "sha256": src.sha256}
            if self.url:
                entry["url"] = self.url.rstrip("/") + "/blob/HEAD/" + src.name if "github.com" in self.url else self.url
            self.sources.append(entry)
            ids[src.name] = entry["id"]
        self.figures.append({"path": path, "source": ids[src.name], "at": at})

    def part(self) -> dict:
        return {"sources": self.sources, "figures": self.figures}


BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
BOOTSTRAP_METHOD = "paired bootstrap over the shared item ids, percentile interval"


def paired_bootstrap(baseline: np.ndarray, candidate: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                     seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Mean paired difference (candidate − baseline, one value per shared item) and its 95%
    percentile interval from resampling items with replacement; seeded, so the same input gives
    the same interval."""
    d = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(d), size=(resamples, len(d)))
    means = np.sort(d[picks].mean(axis=1))
    low, high = np.quantile(means, [0.025, 0.975], method="lower")
    return float(d.mean()), float(low), float(high)


_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """An id made of a label (`4bpw TR3 (Brandon)` -> `4bpw-TR3-Brandon`)."""
    out = _SLUG.sub("-", text).strip("-._")[:100]
    return out or "x"


def write_receipt(doc: dict, out: Path) -> Path:
    """Writes OUT/SUMMARY.json atomically, once it passes what `sitegen check --strict` checks."""
    check_report_id(out.name, out)
    target = out / SUMMARY
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    try:  # a receipt an importer made that sitegen refuses is sitegen's bug, not the user's input
        validate_schema(json.loads(text), target, True)
        validate_meaning(json.loads(text), target)
    except SitegenError as exc:
        raise RuntimeError(f"the importer made a receipt sitegen refuses: {exc}") from None
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".import-", suffix=".json", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
