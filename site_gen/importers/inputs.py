"""The files a side names: each file as given, each folder walked for the files its format reads.
What a walk leaves out is kept with the reason, so the import can say what it skipped and why.

A walk never follows a link to a folder, and a file that is a link leading out of the folder it was
found in is skipped (an importer reads only inside what it was given); reading itself goes through
`importers.common.read_source`, which checks the same again and the size before reading.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError
from site_gen.core.paths import resolve_path
from site_gen.importers import common


@dataclass
class Picked:
    """The files to read, each with the folder it was found in (its own folder for a file given
    as such), and what was skipped with why."""

    files: list[tuple[Path, Path]] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)

    def notes(self) -> list[str]:
        return [f"skipped {p}: {why}" for p, why in self.skipped]


def expand(given: list[Path], wanted: Callable[[Path], str | None], what: str) -> Picked:
    """`given` as files to read: a file as it is; a folder walked (sorted, every depth, links to
    folders not followed), each file put to `wanted`: None takes it, "" leaves it out unsaid, any
    other text skips it with that reason. A folder with no file to read is refused, saying `what`
    the format reads."""
    out = Picked()
    for path in given:
        if not os.path.lexists(path):
            raise SitegenError("not found", path)
        if not path.is_dir():
            out.files.append((path, path.parent))
            continue
        top = resolve_path(path)
        before = len(out.files)
        for folder, dirs, names in os.walk(path):
            dirs.sort()
            for name in sorted(names):
                f = Path(folder) / name
                if f.is_symlink():
                    real = resolve_path(f)
                    if real != top and top not in real.parents:
                        out.skipped.append((f, "a link leading out of the folder; an importer reads only inside what it was given"))
                        continue
                if not f.is_file():
                    continue
                why = wanted(f)
                if why is None:
                    out.files.append((f, path))
                elif why:
                    out.skipped.append((f, why))
        if len(out.files) == before:
            said = "; ".join(f"{p.name}: {w}" for p, w in out.skipped[-5:] if path in p.parents)
            raise SitegenError(f"no {what} in this folder" + (f" (skipped {said})" if said else ""), path)
    return out


def _strict_loads(text: str, file: Path, where: str) -> Any:
    """json.loads refusing what the careful parser refuses (duplicate keys, NaN, Infinity, nesting
    too deep) but keeping integers of any size exactly: nanosecond timestamps since 1970 are past
    2^53, and a harness's file holding them is right (sitegen keeps none of them in a receipt)."""
    def pairs(items: list) -> dict:
        out = dict(items)
        if len(out) != len(items):
            seen: set = set()
            twice = next(k for k, _ in items if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            raise SitegenError(f"duplicate key '{twice}' in one object; only one value can be kept", file, where)
        return out

    def constant(name: str) -> Any:
        raise SitegenError(f"{name} is not a number JSON allows", file, where)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise SitegenError(f"number {text[:40]} is too large", file, where)
        return value

    def integer(text: str) -> int:
        # A timestamp in nanoseconds fits in 64 bits; a longer integer is no figure of a harness's.
        if len(text.lstrip("-")) > 20 or abs(value := int(text)) >= 2 ** 64:
            raise SitegenError(f"integer {text[:24]}{'…' if len(text) > 24 else ''} is too large: beyond 64 bits", file, where)
        return value
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_float=number, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise SitegenError(f"invalid JSON: {exc.msg}", file, f"{where} line {exc.lineno} column {exc.colno}".strip()) from None
    except RecursionError:
        raise SitegenError("JSON nested too deep", file, where) from None


_BIG = "JSON integers are exact up to 2^53"


def read_json(src: Any) -> Any:
    """A source's JSON through sitegen's careful parser; where that refuses an integer past 2^53 alone
    (a timestamp in nanoseconds), read again keeping it exactly, with every other refusal."""
    try:
        return common.parse_json(src)
    except SitegenError as exc:
        if _BIG not in exc.message:
            raise
    return _strict_loads(src.text, src.path, "$")


def read_jsonl(src: Any) -> list[tuple[int, dict]]:
    """(line, object) of a JSON-lines source, as `common.parse_jsonl` reads it, integers kept exactly."""
    try:
        return common.parse_jsonl(src)
    except SitegenError as exc:
        if _BIG not in exc.message:
            raise
    out = []
    lines = src.text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if n == len(lines) and not src.text.endswith("\n"):
            try:
                json.loads(line)
            except (ValueError, RecursionError):
                raise SitegenError("truncated row (the file ends inside it)", src.path, f"line {n}") from None
        row = _strict_loads(line, src.path, f"line {n}")
        if not isinstance(row, dict):
            raise SitegenError(f"expected a JSON object per line, got {type(row).__name__}", src.path, f"line {n}")
        out.append((n, row))
    return out


def tested_note(skipped: list[tuple[Path, str]], root: Path) -> list[dict]:
    """The line of what was tested that names the files skipped, when any were (each by its name
    under the sources' folder, with why)."""
    if not skipped:
        return []

    def name(p: Path) -> str:
        try:
            return resolve_path(p).relative_to(resolve_path(root)).as_posix()
        except ValueError:
            return p.name
    by_why: dict[str, list[str]] = {}
    for p, why in skipped:
        by_why.setdefault(why, []).append(name(p))
    parts = []
    for why, names in by_why.items():
        files = names[0] if len(names) == 1 else f"{len(names)} files ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})"
        parts.append(f"{files}: {why}")
    return [{"label": "Files skipped", "text": "; ".join(parts)[:2000]}]
