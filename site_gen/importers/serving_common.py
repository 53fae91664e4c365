"""What the serving and accuracy importers (vllm-bench, guidellm, lm-eval) share: bounded reading
of a source file, its JSON or JSON lines, the provenance of each figure, the environment of a side,
the comparability rules between two sides, and writing a checked receipt.

Trust rules: a file is read only up to a size limit, before any parsing; a side's label is text,
never a path; a receipt sitegen would refuse is reported as the source's error (the file and place
its offending figure came from), never written; a report folder that holds a receipt is replaced
only with --force; receipts are written readable by all (0644), atomically.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from site_gen.core.diagnostics import refuse
from site_gen.core.errors import SitegenError
from site_gen.importers import fast_json
from site_gen.receipts.load import decode_text, validate_meaning, validate_schema

MAX_SOURCE_BYTES = 256 << 20
SCHEMA_VERSION = 1.2
ENV_KEYS = ("model", "engine", "engine_version", "hardware", "parallelism", "dataset", "command", "date")


@dataclass
class Source:
    """One original file as read: its path as given, its name in the receipt, SHA-256 and text."""

    path: Path
    name: str
    sha256: str
    text: str
    size: int


def read_source(path: Path, root: Path | None = None, limit: int = MAX_SOURCE_BYTES) -> Source:
    """The file's bytes, refused unread past `limit` (a size check, then a bounded read)."""
    if not path.is_file():
        raise SitegenError("not found (expected a file)", path)
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", path) from None
    if len(raw) > limit:
        raise SitegenError(f"source file is over {limit >> 20} MB; refused unread", path)
    name = path.name
    if root is not None:
        try:
            name = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return Source(path, name, hashlib.sha256(raw).hexdigest(), decode_text(raw, path), len(raw))


def _pairs(file: Path, where: str):
    def pairs(items):
        out = dict(items)
        if len(out) != len(items):
            seen: set = set()
            twice = next(k for k, _ in items if k in seen or seen.add(k))
            raise SitegenError(f"duplicate key '{twice}' in one object", file, where)
        return out
    return pairs


def _constant(allow_infinity: bool):
    def constant(name: str):
        if name == "Infinity" and allow_infinity:
            return math.inf
        raise ValueError(f"{name} is not a number this format allows")
    return constant


def json_records(src: Source, allow_infinity: bool = False) -> list[tuple[int | None, Any]]:
    """(line, value): the whole file as one JSON value (line None), or one value per non-blank line.

    A file that ends inside its last line is refused as truncated, at that line."""
    text = src.text
    fast, value = fast_json.loads(text)
    if fast:
        return [(None, value)]
    one_line = "\n" not in text.strip()
    try:
        return [(None, json.loads(text, object_pairs_hook=_pairs(src.path, "$"), parse_constant=_constant(allow_infinity)))]
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data" and (one_line or text.lstrip().startswith(("{\n", "[\n"))):
            what = "truncated: the file ends inside it" if exc.pos >= len(text.rstrip()) else exc.msg
            raise SitegenError(f"not valid JSON ({what})", src.path, f"line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        if one_line or text.lstrip().startswith(("{\n", "[\n")):
            raise SitegenError(str(exc), src.path) from None
    out = []
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fast, value = fast_json.loads(line)
        if fast:
            out.append((n, value))
            continue
        try:
            out.append((n, json.loads(line, object_pairs_hook=_pairs(src.path, f"line {n}"), parse_constant=_constant(allow_infinity))))
        except json.JSONDecodeError as exc:
            last = all(not rest.strip() for rest in lines[n:])
            what = "truncated (the file ends inside this line)" if last and not text.endswith("\n") else f"not valid JSON: {exc.msg}"
            raise SitegenError(what, src.path, f"line {n} column {exc.colno}") from None
        except ValueError as exc:
            raise SitegenError(str(exc), src.path, f"line {n}") from None
    if not out:
        raise SitegenError("empty file", src.path)
    return out


def at(line: int | None, path: str = "$") -> str:
    """A place in a source: `$.ttfts[3]`, or `line 4 $.ttfts[3]` in JSON lines."""
    return path if line is None else f"line {line}" + ("" if path == "$" else f" {path}")


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Provenance:
    """The receipt's provenance part; also knows each source id's file, to report a refusal there."""

    def __init__(self) -> None:
        self.sources: list[dict] = []
        self.figures: list[dict] = []
        self.files: dict[str, Path] = {}
        self._ids: dict[str, str] = {}

    def source_id(self, src: Source) -> str:
        if src.sha256 + src.name not in self._ids:
            sid = f"s{len(self.sources) + 1}"
            self.sources.append({"id": sid, "file": src.name, "sha256": src.sha256})
            self._ids[src.sha256 + src.name] = sid
            self.files[sid] = src.path
        return self._ids[src.sha256 + src.name]

    def cite(self, path: str, src: Source, where: str) -> None:
        self.figures.append({"path": path, "source": self.source_id(src), "at": where[:500]})

    def part(self) -> dict:
        return {"sources": self.sources, "figures": self.figures}

    def origin_of(self, receipt_path: str | None) -> tuple[Path | None, str | None]:
        """The source file and place of the figure whose receipt path holds `receipt_path`."""
        if not receipt_path:
            return None, None
        best = None
        for f in self.figures:
            p = f["path"]
            if receipt_path == p or receipt_path.startswith(p + ".") or receipt_path.startswith(p + "["):
                if best is None or len(p) > len(best["path"]):
                    best = f
        if best is None:
            return None, None
        return self.files.get(best["source"]), best["at"]


# -- environment ---------------------------------------------------------------------------------

@dataclass
class Env:
    """A side's environment: each value with where it came from (a source place or an option)."""

    values: dict[str, dict] = field(default_factory=dict)

    def put(self, key: str, value: Any, origin: str, src: Path | None = None) -> None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return
        text = str(value).strip()[:2000]
        old = self.values.get(key)
        if old is not None and old["value"] != text:
            raise SitegenError(f"{key} is {old['value']!r} ({old['origin']}) but {text!r} here: one side is one setup",
                               src, origin)
        if old is None:
            self.values[key] = {"value": text, "origin": origin}

    def get(self, key: str) -> str | None:
        v = self.values.get(key)
        return v["value"] if v else None

    def part(self) -> dict:
        return {k: self.values[k] for k in ENV_KEYS if k in self.values}


def stated_env(pairs: Iterable[str], option: str) -> dict[str, str]:
    """`--set-candidate KEY=VALUE` options: environment facts the files do not record."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in ENV_KEYS or not value.strip():
            raise SitegenError(f"{option} {item!r}: expected KEY=VALUE with KEY one of {', '.join(ENV_KEYS)}")
        if key == "date" and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value.strip()):
            raise SitegenError(f"{option} {item!r}: a date is written YYYY-MM-DD")
        out[key] = value.strip()
    return out


def apply_stated(env: Env, stated: dict[str, str], option: str) -> None:
    for key, value in stated.items():
        have = env.get(key)
        if have is not None and have != value:
            raise SitegenError(f"{option} {key}={value!r}, but the files record {have!r} ({env.values[key]['origin']})")
        env.put(key, value, option)


# -- labels, attribution ---------------------------------------------------------------------------

LABEL = re.compile(r"[^\x00-\x1f\x7f]{1,100}")


def check_label(label: str, option: str) -> str:
    label = label.strip()
    if not LABEL.fullmatch(label) or not re.search(r"\S", label):
        raise SitegenError(f"{option} {label!r}: a label is 1 to 100 printable characters")
    return label


def common_folder(paths: list[Path]) -> Path | None:
    parents = {p.resolve().parent for p in paths}
    return parents.pop() if len(parents) == 1 else None


def licence_credit(paths: list[Path]) -> str | None:
    """The credit a licence file beside the sources (or in a folder above them) words itself: its
    title and its copyright line, when it has one."""
    seen: set[Path] = set()
    for p in paths:
        folder = p.resolve().parent
        for _ in range(6):
            if folder in seen:
                break
            seen.add(folder)
            for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"):
                f = folder / name
                if f.is_file():
                    text = read_source(f, limit=1 << 20).text
                    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
                    title = lines[0] if lines else name
                    holder = next((ln for ln in lines if re.match(r"(?i)copyright\s+(\(c\)|©)?\s*[0-9]{4}", ln)), None)
                    return f"{title}" + (f"; {holder}" if holder else "") + f" (the source files' {f.name})"
            if folder.parent == folder:
                break
            folder = folder.parent
    return None


# -- numbers -----------------------------------------------------------------------------------------

def agrees(stated: float, computed: float, key: str) -> bool:
    """A stated figure equals the recomputed one: latencies within a microsecond (the clients time the
    end of a request microseconds after its last token), everything else to 1e-9 relative."""
    if not (math.isfinite(stated) and math.isfinite(computed)):
        return stated == computed
    tol = 1e-9 * max(abs(stated), abs(computed))
    if key.endswith("_ms"):
        tol = max(tol, 1e-3)
    return abs(stated - computed) <= tol


def r6(x: float | None) -> float | None:
    """Milliseconds kept to the nanosecond."""
    return None if x is None else round(float(x), 6)


# -- writing -------------------------------------------------------------------------------------

def refused_as_source(exc: SitegenError, prov: Provenance) -> SitegenError:
    file, where = prov.origin_of(getattr(exc, "where", None))
    if file is None:
        return exc
    return SitegenError(f"{exc.message} (this figure would make a receipt sitegen refuses)", file, where)


def _loads(text: str) -> Any:
    """A receipt's text as the importer wrote it (json.dumps of a dict: no key twice), parsed."""
    fast, value = fast_json.loads(text, keys_unique=True)
    return value if fast else json.loads(text)


def write(doc: dict, out: Path, prov: Provenance, force: bool, data_dir: Path, text: str | None = None) -> Path:
    """OUT/SUMMARY.json, once it passes `sitegen check --strict`; 0644; atomic. OUT is a report
    folder directly in the data folder, and a receipt there is replaced only with `force`. `text`:
    the receipt as the importer laid it out (default: `doc` indented by one space)."""
    from site_gen.importers.common import check_output

    target = check_output(out, data_dir, force)
    text = text or json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    try:
        data = _loads(text)
        # What an importer writes has no field sitegen would drop: a warning refuses it, so a receipt
        # that gets past the schema is unchanged by it (nothing dropped, no default filled in) and its
        # meaning is checked on the same value.
        refuse(validate_schema(data, target))
        validate_meaning(data, target)
    except SitegenError as exc:
        raise refused_as_source(exc, prov) from None
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".import-", suffix=".json", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


# Figures the clients state that no per-request row can give back: shown as not covered, never imported.
NOT_RECOMPUTABLE = ("request_goodput", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
                    "total_output_tokens_retokenized", "output_throughput_retokenized", "total_throughput_retokenized",
                    "accept_length")
