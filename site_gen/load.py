"""Receipt folders -> validated `Report` objects. Every input error is raised here."""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from site_gen.errors import SitegenError, json_path

SUMMARY = "SUMMARY.json"
SCHEMA_VERSION = 1
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MAX_DEPTH = 64


@dataclass(frozen=True)
class Engine:
    name: str
    version: str
    image: str = ""
    long_name: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} v{self.version}"


@dataclass
class Report:
    """One report folder: its receipt, validated, plus what the pages need to cite it."""

    id: str
    folder: Path
    file: Path
    data: dict[str, Any]
    sha256: str
    size: int
    lede: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def meta(self) -> dict[str, Any]:
        return self.data["report"]

    @property
    def title(self) -> str:
        return self.meta["title"]

    @property
    def date(self) -> str:
        return self.meta["date"]

    @property
    def baseline(self) -> Engine:
        return Engine(**self.meta["engines"]["baseline"])

    @property
    def candidate(self) -> Engine:
        return Engine(**self.meta["engines"]["candidate"])

    @property
    def checkpoints(self) -> list[str]:
        return [c["id"] for c in self.meta["checkpoints"]]

    def section(self, name: str) -> dict[str, Any] | None:
        return self.data.get(name)


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("site_gen").joinpath("schema/summary-1.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(schema())


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _depth_ok(text: str) -> bool:
    depth = deepest = 0
    in_string = escape = False
    for ch in text:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def parse_json(file: Path, max_bytes: int) -> tuple[Any, bytes]:
    """Reads and parses one receipt, refusing what json.loads would accept too kindly."""
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    if size > max_bytes:
        raise SitegenError(
            f"receipt is {size / 1048576:.1f} MB, over the {max_bytes / 1048576:g} MB limit "
            "(raise plugins.sitegen.max_receipt_mb to accept it)", file)
    raw = file.read_bytes()
    if not raw.strip():
        raise SitegenError("file is empty; expected a JSON object", file, "$")
    if raw.startswith(b"\xef\xbb\xbf"):
        raise SitegenError("file starts with a byte-order mark; save it as UTF-8 without BOM", file, "$")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SitegenError(f"bytes that are not UTF-8 at byte {exc.start}", file, f"line {line}") from None
    if not _depth_ok(text):
        raise SitegenError(f"JSON nested deeper than {MAX_DEPTH} levels", file, "$")
    try:
        return json.loads(text, parse_constant=_reject_constant), raw
    except json.JSONDecodeError as exc:
        raise SitegenError(f"invalid JSON: {exc.msg}", file, f"line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise SitegenError(f"invalid JSON: {exc}", file, "$") from None
    except RecursionError:
        raise SitegenError(f"JSON nested deeper than {MAX_DEPTH} levels", file, "$") from None


def _schema_message(error: jsonschema.ValidationError) -> str:
    v = error.validator
    if v == "required":
        missing = re.search(r"'([^']+)' is a required property", error.message)
        return f"missing required field '{missing.group(1) if missing else error.message}'"
    if v == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"expected {expected}, got {type(error.instance).__name__} {json.dumps(error.instance)[:60]}"
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unknown field {', '.join(repr(e) for e in extra)}"
    if v == "const":
        return f"expected {json.dumps(error.validator_value)}, got {json.dumps(error.instance)[:60]}"
    if v == "enum":
        return f"expected one of {', '.join(json.dumps(x) for x in error.validator_value)}, got {json.dumps(error.instance)[:60]}"
    if v == "pattern":
        desc = error.schema.get("description")
        return f"{json.dumps(error.instance)[:60]} does not have the expected form" + (f" ({desc})" if desc else f" {error.validator_value}")
    return error.message


@lru_cache(maxsize=1)
def _fast_validator():
    """Compiled validator for the common case, a valid receipt: ~20x faster than jsonschema.

    Only when it fails does jsonschema walk the file again, for the precise path and message.
    The schema uses nothing beyond draft-07 keywords, so fastjsonschema's draft-07 mode applies.
    """
    import fastjsonschema

    return fastjsonschema.compile({**schema(), "$schema": "http://json-schema.org/draft-07/schema#"})


def validate_schema(data: Any, file: Path, strict: bool) -> list[str]:
    """Raises on the first schema error (in document order); returns unknown-field warnings."""
    if isinstance(data, dict) and "schema_version" in data and data["schema_version"] != SCHEMA_VERSION:
        raise SitegenError(
            f"unknown schema_version {json.dumps(data['schema_version'])[:20]}; this sitegen reads version {SCHEMA_VERSION}",
            file, "$.schema_version")
    try:
        _fast_validator()(data)
        return []
    except Exception:  # any failure: let jsonschema find and describe it
        pass
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    found: list[str] = []
    for error in errors:
        where = json_path(error.absolute_path)
        message = _schema_message(error)
        if error.validator == "additionalProperties" and not strict:
            found.append(f"{file}: {where}: {message} (ignored; an error under --strict)")
            continue
        raise SitegenError(message, file, where)
    return found


def _check(condition: bool, message: str, file: Path, where: str) -> None:
    if not condition:
        raise SitegenError(message, file, where)


def validate_meaning(data: dict[str, Any], file: Path) -> None:
    """What JSON Schema cannot say: references, positive rates, intervals, duplicates, comparability."""
    checkpoints = [c["id"] for c in data["report"]["checkpoints"]]
    _check(len(set(checkpoints)) == len(checkpoints), "checkpoint ids must be unique", file, "$.report.checkpoints")
    known = set(checkpoints)

    def checkpoint_ref(value: str, where: str) -> None:
        _check(value in known, f"unknown checkpoint '{value}'; the report declares {', '.join(checkpoints)}", file, where)

    precision = data.get("precision")
    if precision:
        measures = {m["id"]: m for m in precision["measures"]}
        rows = precision["rows"]
        seen = set()
        for i, r in enumerate(precision["results"]):
            where = f"$.precision.results[{i}]"
            checkpoint_ref(r["checkpoint"], where + ".checkpoint")
            _check(r["measure"] in measures, f"unknown measure '{r['measure']}'; declared: {', '.join(measures)}", file, where + ".measure")
            key = (r["checkpoint"], r["measure"])
            _check(key not in seen, f"duplicate result for {key[0]} / {key[1]}", file, where)
            seen.add(key)
            measure = measures[r["measure"]]
            _check("candidate" in r or "baseline" in r, "a result needs at least one engine's value", file, where)
            for role in ("baseline", "candidate"):
                if role in r:
                    rid = r[role]["rows"]
                    _check(rid in rows, f"unknown rows '{rid}'; declared in $.precision.rows: {', '.join(rows)}", file, f"{where}.{role}.rows")
                    _check(rows[rid]["panel"] == measure["panel"],
                           f"rows '{rid}' are panel {rows[rid]['panel']} but measure '{measure['id']}' is on panel {measure['panel']}: "
                           "values from different panels are not comparable", file, f"{where}.{role}.rows")
            paired = "baseline" in r and "candidate" in r
            if paired:
                b, c = rows[r["baseline"]["rows"]], rows[r["candidate"]["rows"]]
                for part in ("panel", "plan", "teacher", "sha256"):
                    _check(b[part] == c[part],
                           f"not comparable: baseline rows have {part} {b[part]!r}, candidate rows have {c[part]!r}; "
                           "a paired difference needs identical rows", file, f"{where}.candidate.rows")
                _check("difference" in r and "interval" in r,
                       "a result with both engines needs the measured 'difference' and its 'interval'", file, where)
            elif "difference" in r or "interval" in r:
                raise SitegenError("a difference needs both engines' values", file, where)
            if "interval" in r:
                low, high = r["interval"]
                _check(low <= high, f"interval low end {low} is above its high end {high}", file, where + ".interval")
                _check(low <= r["difference"] <= high,
                       f"interval [{low}, {high}] does not contain its difference {r['difference']}", file, where + ".interval")

    speed = data.get("speed")
    if speed:
        seen_cells: dict[tuple, int] = {}
        for i, cell in enumerate(speed["cells"]):
            where = f"$.speed.cells[{i}]"
            checkpoint_ref(cell["checkpoint"], where + ".checkpoint")
            for role in ("baseline", "candidate"):
                rate = cell[role]["rate"]
                _check(rate > 0, f"rate must be above zero, got {rate}", file, f"{where}.{role}.rate")
            key = (cell["checkpoint"], cell["workload"], cell["input_tokens"], cell["concurrency"], cell["metric"])
            _check(key not in seen_cells, f"duplicate speed cell (same checkpoint, workload, input, concurrency, metric as $.speed.cells[{seen_cells.get(key)}])", file, where)
            seen_cells[key] = i
        for i, t in enumerate(speed.get("ttft", [])):
            checkpoint_ref(t["checkpoint"], f"$.speed.ttft[{i}].checkpoint")

    memory = data.get("memory")
    if memory:
        for part in ("kv_pool", "startup", "references"):
            seen_keys = set()
            for i, r in enumerate(memory.get(part, [])):
                checkpoint_ref(r["checkpoint"], f"$.memory.{part}[{i}].checkpoint")
                key = (r["checkpoint"], r.get("engine", r.get("version")))
                _check(key not in seen_keys, f"duplicate {part} entry for {key[0]} / {key[1]}", file, f"$.memory.{part}[{i}]")
                seen_keys.add(key)

    long_outputs = data.get("long_outputs")
    if long_outputs:
        arms = {}
        for i, arm in enumerate(long_outputs["arms"]):
            checkpoint_ref(arm["checkpoint"], f"$.long_outputs.arms[{i}].checkpoint")
            _check(arm["id"] not in arms, f"duplicate arm id '{arm['id']}'", file, f"$.long_outputs.arms[{i}].id")
            arms[arm["id"]] = arm
        caps = set(long_outputs["caps"])
        seen_replies = set()
        for i, reply in enumerate(long_outputs["replies"]):
            where = f"$.long_outputs.replies[{i}]"
            _check(reply["arm"] in arms, f"unknown arm '{reply['arm']}'; declared: {', '.join(arms)}", file, where + ".arm")
            _check(reply["cap"] in caps, f"cap {reply['cap']} is not one of $.long_outputs.caps", file, where + ".cap")
            _check(reply["thinking_tokens"] <= reply["reply_tokens"], "thinking_tokens cannot exceed reply_tokens", file, where + ".thinking_tokens")
            key = (reply["arm"], reply["cap"], reply["prompt"])
            _check(key not in seen_replies, "duplicate reply (same arm, cap and prompt)", file, where)
            seen_replies.add(key)

    versions = data.get("versions")
    if versions:
        for i, r in enumerate(versions.get("precision", [])):
            checkpoint_ref(r["checkpoint"], f"$.versions.precision[{i}].checkpoint")
            low, high = r["interval"]
            _check(low <= high, f"interval low end {low} is above its high end {high}", file, f"$.versions.precision[{i}].interval")
        for i, r in enumerate(versions.get("text", [])):
            _check(r["identical"] <= r["total"], "identical cannot exceed total", file, f"$.versions.text[{i}].identical")

    tools = data.get("tool_calling")
    if tools:
        ids = set()
        for i, run in enumerate(tools["runs"]):
            where = f"$.tool_calling.runs[{i}]"
            checkpoint_ref(run["checkpoint"], where + ".checkpoint")
            _check(run["id"] not in ids, f"duplicate run id '{run['id']}'", file, where + ".id")
            ids.add(run["id"])
            names = set()
            for j, s in enumerate(run["scenarios"]):
                _check(s["points"] <= tools["max_points"], f"points {s['points']} above max_points {tools['max_points']}", file, f"{where}.scenarios[{j}].points")
                _check(s["id"] not in names, f"duplicate scenario '{s['id']}'", file, f"{where}.scenarios[{j}].id")
                names.add(s["id"])


def _safe_folder(folder: Path, data_dir: Path) -> None:
    name = folder.name
    if not _FOLDER_NAME.match(name) or ".." in name:
        raise SitegenError(
            "report folder names must start with a letter or digit and use only letters, digits, '.', '_' and '-'",
            folder)
    real = folder.resolve()
    if data_dir.resolve() not in real.parents:
        raise SitegenError("report folder resolves outside the data folder (a symlink?); refused", folder)


def _read_lede(folder: Path, value: str, data_dir: Path) -> str:
    if value.endswith(".md") and "\n" not in value:
        path = folder / value
        if "/" in value or "\\" in value or value.startswith("."):
            raise SitegenError("lede file must sit beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        if not path.is_file():
            raise SitegenError(f"lede file '{value}' not found beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        if data_dir.resolve() not in path.resolve().parents:
            raise SitegenError("lede file resolves outside the data folder; refused", path)
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SitegenError("not UTF-8 text", path) from None
    return value


def load_report(folder: Path, data_dir: Path, *, max_bytes: int = 64 << 20, strict: bool = False) -> Report:
    _safe_folder(folder, data_dir)
    file = folder / SUMMARY
    if file.is_symlink() and data_dir.resolve() not in file.resolve().parents:
        raise SitegenError("SUMMARY.json is a symlink that points outside the data folder; refused", file)
    data, raw = parse_json(file, max_bytes)
    found = validate_schema(data, file, strict)
    validate_meaning(data, file)
    lede = _read_lede(folder, data["report"].get("lede", ""), data_dir)
    return Report(id=folder.name, folder=folder, file=file, data=data, sha256=hashlib.sha256(raw).hexdigest(),
                  size=len(raw), lede=lede, warnings=found)


def report_folders(data_dir: Path) -> list[Path]:
    """Folders under data_dir that hold a SUMMARY.json, sorted by name for a stable order."""
    if not data_dir.is_dir():
        raise SitegenError("receipts folder not found (plugins.sitegen.data_dir)", data_dir)
    folders = []
    for entry in sorted(os.scandir(data_dir), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.is_dir() and (path / SUMMARY).exists():
            folders.append(path)
    return folders


def load_reports(data_dir: Path, *, max_bytes: int = 64 << 20, strict: bool = False) -> list[Report]:
    folders = report_folders(data_dir)
    if not folders:
        raise SitegenError(f"no report found: expected folders holding {SUMMARY}", data_dir)
    return [load_report(f, data_dir, max_bytes=max_bytes, strict=strict) for f in folders]
