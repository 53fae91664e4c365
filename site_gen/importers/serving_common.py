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
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from typing import Any, TypeGuard
from collections.abc import Iterable

from site_gen.core.errors import SitegenError
from site_gen.importers import reading
from site_gen.receipts.load import decode_text
from site_gen.receipts.parse import BAD_CHAR, parse_text
from site_gen.receipts.rules import gpus_disagree, parallel_gpus

MAX_SOURCE_BYTES = reading.MAX_SOURCE_BYTES
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


def _source(path: Path, raw: bytes, root: Path | None) -> Source:
    name = path.name
    if root is not None:
        try:
            name = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return Source(path, name, hashlib.sha256(raw).hexdigest(), decode_text(raw, path), len(raw))


def read_source(path: Path, root: Path | None = None, limit: int = MAX_SOURCE_BYTES) -> Source:
    """A file the user named: its bytes, refused unread past `limit` (the size asked of the file
    system before any byte is read; reading.read_named)."""
    return _source(path, reading.read_named(path, limit), root)


def read_found(path: Path, folder: Path, root: Path | None = None, limit: int = MAX_SOURCE_BYTES) -> Source:
    """A file the importer found by itself in `folder` (a sidecar, a samples file): refused when a
    link leads it out of the folder, unread past `limit` (reading.read_found)."""
    return _source(path, reading.read_found(path, folder, limit), root)


def json_records(src: Source, allow_infinity: bool = False) -> list[tuple[int | None, Any]]:
    """(line, value): the whole file as one JSON value (line None), or one value per non-blank line,
    each through sitegen's careful parser (receipts/parse.py: nesting, huge numbers, NaN and duplicate
    keys refused at their place; `Infinity` only with `allow_infinity`).

    A file that ends inside its last line is refused as truncated, at that line."""
    text = src.text
    if not text.strip():
        raise SitegenError("empty file", src.path)
    one_line = "\n" not in text.strip()
    try:
        return [(None, parse_text(text, text.encode("utf-8", "surrogatepass"), src.path, strings=False,
                                  infinity=allow_infinity))]
    except SitegenError as exc:
        several = exc.message == "invalid JSON: Extra data"
        if not several and (one_line or text.lstrip().startswith(("{\n", "[\n")) or not exc.message.startswith("invalid JSON")):
            raise _whole(exc, src) from None
    out: list[tuple[int | None, Any]] = []
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append((n, parse_text(line, line.encode("utf-8", "surrogatepass"), src.path, strings=False,
                                      infinity=allow_infinity)))
        except SitegenError as exc:
            at = (exc.where or "").replace("line 1 column", "column", 1)
            at = "" if at == "$" else at
            if exc.message.startswith("invalid JSON"):
                last = all(not rest.strip() for rest in lines[n:])
                what = ("truncated (the file ends inside this line)" if last and not text.endswith("\n")
                        else "not valid JSON: " + exc.message[len("invalid JSON: "):])
                raise SitegenError(what, src.path, f"line {n}" + (f" {at}" if at else "")) from None
            raise SitegenError(exc.message, src.path, f"line {n}" + (f" {at}" if at else "")) from None
    if not out:
        raise SitegenError("empty file", src.path)
    return out


def _whole(exc: SitegenError, src: Source) -> SitegenError:
    """The whole file's parse error; a file cut short said so."""
    if "cut short" in exc.message:
        return SitegenError("not valid JSON (truncated: the file ends inside it)", src.path, exc.where)
    if exc.message.startswith("invalid JSON: "):
        return SitegenError(f"not valid JSON ({exc.message[len('invalid JSON: '):]})", src.path, exc.where)
    return exc


# The last second of 9999-12-31 UTC: a later time has no calendar day a receipt can write.
LAST_TIMESTAMP = 253402300799


def day_of(when: Any, file: Path, where: str) -> str | None:
    """The UTC calendar day (YYYY-MM-DD) of a time in seconds since 1970; None when the source gives
    no time (absent, not a number, or not after 1970); refused past the year 9999."""
    if not is_number(when) or not when > 0:
        return None
    if not when <= LAST_TIMESTAMP:
        raise SitegenError(f"time {when!r} (seconds since 1970) is past the year 9999", file, where)
    return datetime.fromtimestamp(when, UTC).date().isoformat()


def at(line: int | None, path: str = "$") -> str:
    """A place in a source: `$.ttfts[3]`, or `line 4 $.ttfts[3]` in JSON lines."""
    return path if line is None else f"line {line}" + ("" if path == "$" else f" {path}")


def is_number(v: Any) -> TypeGuard[int | float]:
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

    def origin(self, where: str | None) -> tuple[Path, str] | None:
        """The source file and place behind a receipt path, as common.check_receipt asks for them."""
        file, at = self.origin_of(where)
        return None if file is None else (file, at or "")

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
        if bad := BAD_CHAR.search(text):  # refused where it was read, not at the receipt part it would make
            raise SitegenError(f"{key} holds the character U+{ord(bad.group()):04X}, which a receipt must not contain",
                               src, origin)
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


# What `--set-baseline`/`--set-candidate` state: the environment, and the GPUs the side's engine used
# (`gpus`, kept apart from the environment: `serving.sides.<role>.gpus`, schema 1.4).
STATED_KEYS = (*ENV_KEYS, "gpus")
GPUS_VERSION = 1.4


def stated_env(pairs: Iterable[str], option: str) -> dict[str, str]:
    """`--set-candidate KEY=VALUE` options: environment facts the files do not record, and `gpus`."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in STATED_KEYS or not value.strip():
            raise SitegenError(f"{option} {item!r}: expected KEY=VALUE with KEY one of {', '.join(STATED_KEYS)}")
        if key == "date" and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value.strip()):
            raise SitegenError(f"{option} {item!r}: a date is written YYYY-MM-DD")
        if key == "gpus" and not (value.strip().isdigit() and 1 <= int(value) <= 100000):
            raise SitegenError(f"{option} {item!r}: gpus is a whole number from 1 (the GPUs the side's engine used)")
        out[key] = value.strip()
    return out


def gpus_of(env: Env, stated: dict[str, str], option: str) -> dict[str, Any] | None:
    """A side's GPU count as the receipt keeps it ({value, origin}): `gpus` as stated, else tensor x
    pipeline parallel from its parallelism (its server command's, or stated); None when neither is
    known. A stated count that is no whole multiple of tensor x pipeline parallel is refused."""
    par = env.values.get("parallelism")
    if "gpus" in stated:
        n = int(stated["gpus"])
        if why := gpus_disagree(n, par["value"] if par else None):
            raise SitegenError(f"{option} gpus={n}: {why} ({par['origin'] if par else ''})")
        return {"value": n, "origin": f"{option} gpus"}
    one = parallel_gpus(par["value"]) if par else None
    return {"value": one, "origin": f"{par['origin']} (tensor × pipeline parallel)"[:500]} if par and one else None


def put_latest_date(env: Env, runs: list) -> None:
    """A side's date where none is stated: its latest run's, named as such when its runs differ."""
    dates = [r.run_date for r in runs if r.run_date]
    if dates:
        last = max(dates)
        which = next(r for r in runs if r.run_date == last)
        env.put("date", last, f"{which.src.name} {which.where('$.date')}" + (" (the latest run)" if len(set(dates)) > 1 else ""))


def apply_stated(env: Env, stated: dict[str, str], option: str) -> None:
    for key, value in stated.items():
        if key == "gpus":  # not an environment fact: gpus_of
            continue
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
    """The credit a licence file beside the sources words itself (reading.licence_credit: one above
    them is never read, only named in a note asking for --attribution)."""
    return reading.licence_credit(paths)


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


def write(doc: dict, out: Path, prov: Provenance, force: bool, data_dir: Path, text: str | None = None) -> Path:
    """OUT/SUMMARY.json, once it passes what `sitegen check --strict` checks of a receipt (its
    characters, schema, meaning and markdown bounds: common.write_receipt), a refusal named at the
    source's file and place; atomic. OUT is a report folder directly in the data folder, and a
    receipt there is replaced only with `force`. `text`: the receipt as the importer laid it out
    (default: `doc` indented by one space)."""
    from site_gen.importers.common import write_receipt

    return write_receipt(doc, out, data_dir=data_dir, force=force, prov=prov,  # type: ignore[arg-type]  # its `origin` is the one asked for
                         source=next(iter(prov.files.values()), out), text=text)


def without_rows(lacking: int, total: int) -> str | None:
    """The not-covered line of runs without per-request rows (`lacking` of `total`): none, some, or
    every run (then said so, not "some")."""
    if not lacking:
        return None
    who = "No run has per-request rows: the" if lacking == total else "Some runs have no per-request rows: their"
    return f"{who} latency figures are as the source states them, neither recomputed nor checked."


# Figures the clients state that no per-request row can give back: shown as not covered, never imported.
NOT_RECOMPUTABLE = ("request_goodput", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
                    "total_output_tokens_retokenized", "output_throughput_retokenized", "total_throughput_retokenized",
                    "accept_length")
