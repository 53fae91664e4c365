"""Receipt folders -> validated `Report` objects. Every input error is raised here.

Bad input of any kind — bytes, JSON, schema, meaning, folder names, links out of the data
folder — becomes one `SitegenError` naming the file and the JSON path (or line) at fault.
"""
from __future__ import annotations

import datetime
import difflib
import errno
import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from itertools import accumulate
from pathlib import Path
from typing import Any

import jsonschema

from site_gen.errors import SitegenError, json_path
from site_gen.paths import link_loop, resolve_path

SUMMARY = "SUMMARY.json"
SCHEMA_VERSION = 1
# Versions this sitegen reads, newest last; each has its published schema file (schema/).
SCHEMA_VERSIONS = (1, 1.1)
_SCHEMA_FILES = {1: "schema/summary-1.schema.json", 1.1: "schema/summary-1.1.schema.json"}
_FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_DEPTH = 64
# Integers beyond 2**53 are not exact in JSON (RFC 8259, section 6) nor in a float column.
MAX_INT = 2 ** 53
MAX_WARNINGS = 20


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
    # The receipt's bytes as read and hashed: the site publishes these, not a second read.
    raw: bytes = field(default=b"", repr=False, compare=False)

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


@lru_cache(maxsize=None)
def schema(version: float = SCHEMA_VERSION) -> dict[str, Any]:
    """The published schema file of a version, with the parts of sections that bring their own (`Section.schema`)."""
    text = resources.files("site_gen").joinpath(_SCHEMA_FILES[version]).read_text(encoding="utf-8")
    out = json.loads(text)
    for s in _sections():
        if s.schema is not None:
            out["properties"][s.name] = s.schema
    return out


def schema_changed() -> None:
    """Forgets the schema and the validators made from it (a section was registered)."""
    for cached in (schema, _validator, _fast_validator, _integer_fields):
        cached.cache_clear()


def _python_patterns(node: Any) -> Any:
    """The schema with each pattern's final `$` as `\\Z`.

    JSON Schema patterns are ECMA-262, where `$` is the very end; in Python's `re` it also
    matches before a final newline, which would let `"K4\\n"` pass as a checkpoint id. (For the
    same reason the schema writes digits as `[0-9]`: Python's `\\d` takes any script's digits.)
    """
    if isinstance(node, dict):
        out = {k: _python_patterns(v) for k, v in node.items()}
        pattern = out.get("pattern")
        if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
            out["pattern"] = pattern[:-1] + "\\Z"
        return out
    if isinstance(node, list):
        return [_python_patterns(v) for v in node]
    return node


_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def is_date(value: Any) -> bool:
    """The schema's `format: date`: a real calendar day written YYYY-MM-DD in ASCII digits.

    Both validators are given this one function, so they agree; `date.fromisoformat` alone
    would also take `20260101` and week dates.
    """
    if not isinstance(value, str):
        return True
    if not _ISO_DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:  # month 13, day 45, year 0
        return False
    return True


@lru_cache(maxsize=None)
def _validator(version: float = SCHEMA_VERSION) -> jsonschema.protocols.Validator:
    formats = jsonschema.FormatChecker(formats=())
    formats.checks("date")(is_date)
    return jsonschema.Draft202012Validator(_python_patterns(schema(version)), format_checker=formats)


def _sections():
    from site_gen.sections import all_sections  # here, not above: the sections import this module

    return all_sections()


# -- bytes and JSON ---------------------------------------------------------------------------

class _Bad:
    """Stands in for a value the parser must not hand back (NaN, 1e400, 2**64): the walk
    after parsing finds it and names its JSON path."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class _DupDict(dict):
    """An object in which a key appears twice (json.loads would silently keep the last)."""

    __slots__ = ("duplicate",)


_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# Characters a receipt's text must not hold: C0 controls but tab and newlines, DEL, C1 controls,
# lone surrogates (cannot be written as UTF-8), non-characters. HTML parsers reject them all.
_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
# Their escaped forms in JSON text (`\u0000`, `\ud800`); a match means: look closer.
_ESCAPED_CHAR = re.compile(r"\\u(?:00[01]|007[fF]|00[89]|[dD][89a-fA-F]|[fF][dD][dDeE]|[fF]{3}[eEfF])")


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _too_deep(text: str) -> int | None:
    """Offset where nesting first goes deeper than MAX_DEPTH, else None.

    The common case runs in C (strip strings, keep brackets, running sum); only a file that
    looks too deep is scanned character by character to find where.
    """
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if not brackets or max(accumulate(map(_STEP.__getitem__, brackets))) <= MAX_DEPTH:
        return None
    depth = 0
    in_string = escape = False
    for i, ch in enumerate(text):
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
                return i
        elif ch in "]}":
            depth -= 1
    return None  # e.g. an unterminated string: the parser says so


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", _DupDict: "object"}.get(type(value), type(value).__name__)


def _loads(text: str) -> tuple[Any, bool]:
    """json.loads that marks what it must not accept; returns (data, anything marked)."""
    marked = False

    def mark(message: str) -> _Bad:
        nonlocal marked
        marked = True
        return _Bad(message)

    def constant(name: str) -> _Bad:
        return mark(f"{name} is not a number JSON allows; give a finite number or leave the field out")

    def number(text: str) -> float | _Bad:
        value = float(text)
        if math.isinf(value):
            return mark(f"number {text[:40]} is too large")
        return value

    def integer(text: str) -> int | _Bad:
        if len(text) < 16:
            return int(text)
        try:
            value = int(text)
        except ValueError:  # more digits than Python converts
            value = None
        if value is None or abs(value) > MAX_INT:
            shown = text if len(text) <= 24 else text[:20] + "…"
            return mark(f"integer {shown} is too large; JSON integers are exact up to 2^53")
        return value

    def pairs(items: list[tuple[str, Any]]) -> dict:
        out = dict(items)
        if len(out) != len(items):
            seen: set[str] = set()
            twice = next(k for k, _ in items if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            out = _DupDict(out)
            out.duplicate = twice
            mark("")
        return out

    data = json.loads(text, parse_constant=constant, parse_float=number, parse_int=integer, object_pairs_hook=pairs)
    return data, marked


def _first_problem(value: Any, path: list, strings: bool) -> tuple[list, str] | None:
    """The first marked value, duplicate key or (if `strings`) bad character, in document order."""
    if isinstance(value, _Bad):
        return path, value.message
    if isinstance(value, str):
        if strings and (m := _BAD_CHAR.search(value)):
            return path, f"text holds the character U+{ord(m.group()):04X}, which a receipt must not contain"
        return None
    if isinstance(value, dict):
        duplicate = getattr(value, "duplicate", None)
        for key, item in value.items():
            if strings and (m := _BAD_CHAR.search(key)):
                return path + [key], f"field name holds the character U+{ord(m.group()):04X}"
            if key == duplicate:
                return path + [key], f"duplicate key '{key}' in one object; only one value can be kept"
            found = _first_problem(item, path + [key], strings)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_problem(item, path + [i], strings)
            if found:
                return found
    return None


def _mb(size: int) -> str:
    return f"{round(size / 1048576, 3):g}"


def _read_limited(file: Path, max_bytes: int, what: str = "receipt") -> bytes:
    """A regular file's bytes, refused unread when over `max_bytes` (never blocks on a FIFO)."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SitegenError("is a folder; expected a file", file)
        if not stat.S_ISREG(st.st_mode):
            raise SitegenError("is not a regular file", file)
        if st.st_size > max_bytes:
            raise SitegenError(
                f"{what} is {st.st_size / 1048576:.1f} MB, over the {_mb(max_bytes)} MB limit "
                "(raise plugins.sitegen.max_receipt_mb to accept it)", file)
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(max_bytes + 1)
    except OSError as exc:
        raise SitegenError(f"cannot read: {exc.strerror}", file) from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:  # grew since it was measured
        raise SitegenError(f"{what} is over the {_mb(max_bytes)} MB limit "
                           "(raise plugins.sitegen.max_receipt_mb to accept it)", file)
    return raw


def decode_text(raw: bytes, file: Path) -> str:
    """UTF-8 text without a byte-order mark, or a SitegenError saying where it is not."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise SitegenError("file starts with a byte-order mark; save it as UTF-8 without BOM", file, "line 1")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SitegenError("file is UTF-16; save it as UTF-8", file, "line 1")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SitegenError(f"bytes that are not UTF-8 at byte {exc.start} (0x{raw[exc.start]:02x}); save the file as UTF-8",
                           file, f"line {line}") from None


def parse_json(file: Path, max_bytes: int) -> tuple[Any, bytes]:
    """Reads and parses one receipt, refusing what json.loads would accept too kindly:
    NaN and Infinity, numbers too large to be exact, duplicate keys, control characters and
    lone surrogates in text, nesting deeper than MAX_DEPTH. Returns (data, the bytes read)."""
    raw = _read_limited(file, max_bytes)
    if not raw.strip():
        raise SitegenError("file is empty; expected a JSON object", file, "$")
    text = decode_text(raw, file)
    deep = _too_deep(text)
    if deep is not None:
        raise SitegenError(f"JSON nested deeper than {MAX_DEPTH} levels", file, _line_col(text, deep))
    try:
        data, marked = _loads(text)
    except json.JSONDecodeError as exc:
        message, at = exc.msg, text[exc.pos:exc.pos + 2]
        if message.startswith("Unterminated string"):
            message = "unterminated string (is the file cut short?)"
        elif exc.pos >= len(text.rstrip()):
            message = "the file ends before the JSON is complete (is it cut short?)"
        elif at in ("//", "/*") or at[:1] == "#":
            message = "JSON has no comments"
        elif at[:1] == "'":
            message = "JSON strings and names need double quotes, not single"
        raise SitegenError(f"invalid JSON: {message}", file, f"line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise SitegenError(f"JSON nested deeper than {MAX_DEPTH} levels", file, "$") from None
    except ValueError as exc:
        raise SitegenError(f"invalid JSON: {exc}", file, "$") from None
    strings = bool(_ESCAPED_CHAR.search(text) or _BAD_CHAR.search(text))
    if marked or strings:
        found = _first_problem(data, [], strings)
        if found:
            raise SitegenError(found[1], file, json_path(found[0]))
    return data, raw


# -- schema -----------------------------------------------------------------------------------

def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _suggest(word: str, known) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


# A text field must hold some text: an optional one with nothing to say is left out, not
# written empty ("" or spaces), so that every page can take "present" to mean "has text".
_SOME_TEXT = "\\S"
_WHOLE_NUMBERS = "integers are written without a fraction or exponent"


def _leave_out(error: jsonschema.ValidationError) -> str:
    """A hint for an empty optional field: leave it out (its parent object does not require it)."""
    where = list(error.absolute_schema_path)[:-1]  # the field's own schema: ...properties/<name>
    if len(where) < 2 or where[-2] != "properties":
        return ""
    parent: Any = schema()
    for part in where[:-2]:
        parent = parent[part]
    return "" if where[-1] in parent.get("required", []) else "; leave the field out when there is nothing to say"


def _schema_message(error: jsonschema.ValidationError) -> str:
    v, value, limit = error.validator, error.instance, error.validator_value
    if v == "required":
        missing = re.search(r"'([^']+)' is a required property", error.message)
        return f"missing required field '{missing.group(1) if missing else error.message}'"
    if v == "type":
        expected = " or ".join(limit) if isinstance(limit, list) else limit
        hint = ""
        if isinstance(value, str) and expected in ("number", "integer"):
            try:
                float(value)
                hint = " (write numbers without quotes)"
            except ValueError:
                pass
        elif isinstance(value, float) and expected == "integer":
            hint = f" ({_WHOLE_NUMBERS})"
        got = _shown(value) if value is None or isinstance(value, bool) else f"{_json_type(value)} {_shown(value)}"
        return f"expected {expected}, got {got}{hint}"
    if v == "additionalProperties":
        known = error.schema.get("properties", {})
        extra = [k for k in value if k not in known]
        return "unknown field " + ", ".join(f"'{e}'{_suggest(e, known)}" for e in extra)
    if v == "const":
        return f"expected {_shown(limit)}, got {_shown(value)}"
    if v == "enum":
        return f"expected one of {', '.join(_shown(x) for x in limit)}, got {_shown(value)}"
    if v == "pattern" and limit == _SOME_TEXT:
        return "holds only spaces" + _leave_out(error)
    if v == "format":
        return f"{_shown(value)} is not a real calendar date (YYYY-MM-DD)" if limit == "date" else error.message
    if v == "pattern":
        desc = error.schema.get("description")
        return f"{_shown(value)} does not have the expected form" + (
            f" ({desc})" if desc else " (letters, digits, '.', '_' and '-', starting with a letter or digit)"
            if "A-Za-z0-9" in limit else f" {limit}")
    if v == "minItems":
        return f"expected at least {_plural(limit, 'item')}, got {len(value)}"
    if v == "maxItems":
        return f"expected at most {_plural(limit, 'item')}, got {len(value)}"
    if v == "minLength":
        return "must not be empty" + _leave_out(error) if limit == 1 else f"expected at least {_plural(limit, 'character')}"
    if v == "maxLength":
        return f"longer than {_plural(limit, 'character')}"
    if v == "minimum":
        return f"must be at least {limit}, got {_shown(value)}"
    if v == "exclusiveMinimum":
        return f"must be above {limit}, got {_shown(value)}"
    if v == "maximum":
        return f"must be at most {limit}, got {_shown(value)}"
    if v == "anyOf" and all(set(o) == {"required"} for o in limit):  # schema 1.1's "these fields, or those"
        return "needs " + ", or ".join(" and ".join(f"'{k}'" for k in o["required"]) for o in limit)
    return error.message


@lru_cache(maxsize=None)
def _fast_validator(version: float = SCHEMA_VERSION):
    """Compiled validator for the common case, a valid receipt: ~20x faster than jsonschema.

    Only when it fails does jsonschema walk the file again, for the precise path and message.
    The schema uses nothing beyond draft-07 keywords, so fastjsonschema's draft-07 mode applies.
    """
    import fastjsonschema

    return fastjsonschema.compile({**_python_patterns(schema(version)), "$schema": "http://json-schema.org/draft-07/schema#"},
                                  formats={"date": is_date})


def _document_order(data: Any, path) -> tuple:
    """Sort key: where a JSON path sits in the file (keys in their written order, not by name)."""
    out = []
    node = data
    for part in path:
        if isinstance(node, dict):
            try:
                out.append(list(node).index(part))
            except ValueError:
                out.append(len(node))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int):
            out.append(part)
            node = node[part] if part < len(node) else None
        else:
            break
    return tuple(out)


@lru_cache(maxsize=None)
def _integer_fields(version: float = SCHEMA_VERSION) -> Any:
    return _integer_plan(schema(version))


def _integer_plan(node: dict) -> Any:
    """Where under a schema node integer fields sit: None (nowhere), "int" (here),
    ("list", plan of the items) or ("object", {key: plan}, plan of any other key)."""
    kind = node.get("type")
    if kind == "integer":
        return "int"
    if kind == "array" and isinstance(node.get("items"), dict):
        inner = _integer_plan(node["items"])
        return ("list", inner) if inner else None
    if kind == "object":
        keys = {k: p for k, v in node.get("properties", {}).items() if (p := _integer_plan(v))}
        extra = node.get("additionalProperties")
        other = _integer_plan(extra) if isinstance(extra, dict) else None
        return ("object", keys, other) if keys or other else None
    return None


def _written_as_float(value: Any, plan: Any) -> list | None:
    """Path (below `value`) of the first integer field written with a fraction or exponent."""
    if plan == "int":
        return [] if isinstance(value, float) else None
    if plan[0] == "list":
        if isinstance(value, list):
            for i, item in enumerate(value):
                if (found := _written_as_float(item, plan[1])) is not None:
                    return [i, *found]
    elif isinstance(value, dict):
        _, keys, other = plan
        for key, item in value.items():
            sub = keys.get(key, other)
            if sub and (found := _written_as_float(item, sub)) is not None:
                return [key, *found]
    return None


def check_integers(data: Any, file: Path, version: float = SCHEMA_VERSION) -> None:
    """Integer fields hold integers as written: JSON Schema counts `1024.0` and `1e20` as
    integers, but a float shows as `1024.0` on the pages and is exact only up to 2^53."""
    found = _written_as_float(data, _integer_fields(version))
    if found is not None:
        node = data
        for part in found:
            node = node[part]
        raise SitegenError(f"expected integer, got {_shown(node)} ({_WHOLE_NUMBERS})", file, json_path(found))


def receipt_version(data: Any, file: Path) -> float:
    """The schema version a receipt names (`schema_version` chooses the schema); version 1 when it
    names none, so that the schema itself reports the missing field."""
    if not isinstance(data, dict) or "schema_version" not in data:
        return SCHEMA_VERSION
    v = data["schema_version"]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v not in SCHEMA_VERSIONS:
        raise SitegenError(f"unknown schema_version {_shown(v)[:20]}; this sitegen reads versions "
                           + ", ".join(f"{x:g}" for x in SCHEMA_VERSIONS), file, "$.schema_version")
    return 1.1 if v == 1.1 else SCHEMA_VERSION


def validate_schema(data: Any, file: Path, strict: bool) -> list[str]:
    """Raises on the first schema error (in document order).

    Unknown fields are an error under `strict`; otherwise they are removed from `data`, so that
    nothing downstream (tables, CSV) shows them, and returned as warnings, one per kind.
    """
    version = receipt_version(data, file)
    try:
        _fast_validator(version)(data)
    except Exception:  # any failure: let jsonschema find and describe it
        pass
    else:
        check_integers(data, file, version)
        return []
    errors = sorted(_validator(version).iter_errors(data), key=lambda e: _document_order(data, e.absolute_path))
    unknown: dict[tuple, list] = {}
    for error in errors:
        if error.validator == "additionalProperties" and not strict:
            kind = (tuple(error.absolute_schema_path), tuple(k for k in error.instance if k not in error.schema.get("properties", {})))
            unknown.setdefault(kind, []).append(error)
            continue
        raise SitegenError(_schema_message(error), file, json_path(error.absolute_path))
    found: list[str] = []
    for kind, group in unknown.items():
        first = group[0]
        more = f" and {_plural(len(group) - 1, 'more place')} like it" if len(group) > 1 else ""
        found.append(f"{file}: {json_path(first.absolute_path)}: {_schema_message(first)}{more} "
                     "(ignored; an error under --strict)")
        for error in group:
            for key in kind[1]:
                error.instance.pop(key, None)
    if len(found) > MAX_WARNINGS:
        found = found[:MAX_WARNINGS] + [f"{file}: {len(found) - MAX_WARNINGS} more kinds of unknown field (ignored)"]
    check_integers(data, file, version)
    return found


# -- meaning ----------------------------------------------------------------------------------

def require(condition: bool, message: str, file: Path, where: str) -> None:
    if not condition:
        raise SitegenError(message, file, where)


def anchor_key(ident: str) -> str:
    """What is left of an id in a page anchor (`K3.25` -> `k3-25`): case and punctuation go."""
    return re.sub(r"[^a-z0-9]+", "-", ident.lower()).strip("-")


def unique_ids(ids: list[str], what: str, where: str, file: Path) -> None:
    """Ids must differ, and differ in more than case and punctuation: pages use them as anchors,
    and two checkpoints sharing one would share a chart."""
    seen: dict[str, str] = {}
    for i, ident in enumerate(ids):
        require(ident not in ids[:i], f"duplicate {what} id '{ident}'", file, f"{where}[{i}].id")
        key = anchor_key(ident)
        require(key not in seen, f"{what} ids '{seen.get(key)}' and '{ident}' differ only in case or punctuation; "
               "on the pages both would be '" + key + "'", file, f"{where}[{i}].id")
        seen[key] = ident


def _sections_have_records(data: dict[str, Any], file: Path) -> None:
    for s in _sections():
        if s.records and s.name in data:
            require(bool(data[s.name][s.records]), f"{s.name} has no {s.records}; leave the section out until it has some",
                    file, f"$.{s.name}.{s.records}")


def _engine_records(data: dict[str, Any]):
    """(checkpoint, engine, JSON path) of every record that holds one engine's measurement."""
    for s in _sections():
        if s.engine_records:
            yield from s.engine_records(data)


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
    _provenance_refers(data, file)
    for s in _sections():
        if s.check and data.get(s.name):
            s.check(data[s.name], file, checkpoint_ref)


# -- folders and files ------------------------------------------------------------------------

def check_report_id(name: str, file: str | Path | None = None, where: str | None = None) -> str:
    """A report id is its folder name and its URL (`reports/<id>/`): nothing that could name
    another folder, hide, or escape the data or site folder. Returns the name, or raises."""
    problem = None
    if "/" in name or "\\" in name:
        problem = "contains a slash"
    elif ".." in name:
        problem = "contains '..'"
    elif name.startswith("."):
        problem = "starts with a dot"
    elif not _FOLDER_NAME.fullmatch(name):
        problem = "is not allowed"
    if problem:
        raise SitegenError(f"report folder name {name!r} {problem}: report names start with a letter or digit "
                           "and use only letters, digits, '.', '_' and '-'", file, where)
    return name


def _inside(path: Path, data_dir: Path) -> bool:
    return resolve_path(data_dir) in resolve_path(path).parents


def _safe_folder(folder: Path, data_dir: Path) -> None:
    check_report_id(folder.name, folder)
    if not _inside(folder, data_dir):
        raise SitegenError("report folder is a link that points outside the data folder; refused", folder)


def read_lede(folder: Path, value: str, data_dir: Path, max_bytes: int) -> str:
    """The report's lede: `value` itself, or the text of the markdown file beside SUMMARY.json it names."""
    if value.endswith(".md") and "\n" not in value:
        path = folder / value
        if "/" in value or "\\" in value or value.startswith("."):
            raise SitegenError("lede file must sit beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        inside = _inside(path, data_dir)  # first: a link loop is no file either, but says so
        if not path.is_file():
            raise SitegenError(f"lede file '{value}' not found beside SUMMARY.json", folder / SUMMARY, "$.report.lede")
        if not inside:
            raise SitegenError("lede file is a link that points outside the data folder; refused", path)
        text = decode_text(_read_limited(path, max_bytes, "lede file"), path)
        if m := _BAD_CHAR.search(text):
            raise SitegenError(f"text holds the character U+{ord(m.group()):04X}, which a receipt must not contain",
                               path, f"line {text.count(chr(10), 0, m.start()) + 1}")
        return text
    return value


def load_report(folder: Path, data_dir: Path, *, max_bytes: int = 64 << 20, strict: bool = False) -> Report:
    _safe_folder(folder, data_dir)
    file = folder / SUMMARY
    if not _inside(file, data_dir):
        raise SitegenError("SUMMARY.json is a link that points outside the data folder; refused", file)
    data, raw = parse_json(file, max_bytes)
    found = validate_schema(data, file, strict)
    validate_meaning(data, file)
    lede = read_lede(folder, data["report"].get("lede", ""), data_dir, max_bytes)
    return Report(id=folder.name, folder=folder, file=file, data=data, sha256=hashlib.sha256(raw).hexdigest(),
                  size=len(raw), lede=lede, warnings=found, raw=raw)


def report_folders(data_dir: Path) -> list[Path]:
    """Folders under data_dir that hold a SUMMARY.json, sorted by name for a stable order."""
    resolve_path(data_dir)
    if not data_dir.is_dir():
        raise SitegenError("receipts folder not found (plugins.sitegen.data_dir)", data_dir)
    folders = []
    for entry in sorted(os.scandir(data_dir), key=lambda e: e.name):
        path = Path(entry.path)
        if _is_folder(entry) and os.path.lexists(path / SUMMARY):
            folders.append(path)
    return folders


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError as exc:  # a link loop (ELOOP) or an unreadable link
        if exc.errno == errno.ELOOP:
            raise link_loop(Path(entry.path)) from None
        raise SitegenError(f"cannot read: {exc.strerror}", Path(entry.path)) from None


def load_reports(data_dir: Path, *, max_bytes: int = 64 << 20, strict: bool = False) -> list[Report]:
    folders = report_folders(data_dir)
    if not folders:
        raise SitegenError(f"no report found: expected folders holding {SUMMARY}", data_dir)
    return [load_report(f, data_dir, max_bytes=max_bytes, strict=strict) for f in folders]
