"""JSON Schema validation of a parsed receipt: the published schema plus the sections' parts.

A fast compiled validator checks the common, valid case; only a failing receipt is walked again
by jsonschema, for the first error in document order and a message a person can act on.
"""
from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import jsonschema

from site_gen import sections
from site_gen.core.diagnostics import IGNORED, Diagnostic
from site_gen.core.errors import SitegenError, json_path, suggest
from site_gen.receipts.fastschema import python_patterns
from site_gen.receipts.parse import json_type

SCHEMA_VERSION = 1
# Versions this sitegen reads, newest last; each has its published schema file (schema/).
SCHEMA_VERSIONS = (1, 1.1, 1.2, 1.3, 1.4)
_SCHEMA_FILES = {1: "summary-1.schema.json", 1.1: "summary-1.1.schema.json", 1.2: "summary-1.2.schema.json",
                 1.3: "summary-1.3.schema.json", 1.4: "summary-1.4.schema.json"}
MAX_WARNINGS = 20


def schema(version: float = SCHEMA_VERSION) -> dict[str, Any]:
    """The published schema file of a version, with the parts of sections that bring their own (`Section.schema`)."""
    return _schema(version, sections.generation())


@cache
def _schema(version: float, generation: int) -> dict[str, Any]:
    text = resources.files("site_gen.schema").joinpath(_SCHEMA_FILES[version]).read_text(encoding="utf-8")
    out = json.loads(text)
    for s in sections.all_sections():
        if s.schema is not None:
            out["properties"][s.name] = s.schema
    return out


def schema_changed() -> None:
    """Forgets the schema and the validators made from it (a section was registered)."""
    for cached in (_schema, _validator_of, _fast_validator_of, _integer_plan_of):
        cached.cache_clear()


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


def validator(version: float = SCHEMA_VERSION) -> jsonschema.protocols.Validator:
    return _validator_of(version, sections.generation())


@cache
def _validator_of(version: float, generation: int) -> jsonschema.protocols.Validator:
    # Here, not above: jsonschema is only for explaining a receipt the fast validator refused
    # (importing it is a tenth of a small build).
    import jsonschema

    formats = jsonschema.FormatChecker(formats=())
    formats.checks("date")(is_date)
    return jsonschema.Draft202012Validator(python_patterns(schema(version)), format_checker=formats)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# A text field must hold some text: an optional one with nothing to say is left out, not
# written empty ("" or spaces), so that every page can take "present" to mean "has text".
_SOME_TEXT = "\\S"
_WHOLE_NUMBERS = "integers are written without a fraction or exponent"


def _leave_out(error: jsonschema.ValidationError, version: float = SCHEMA_VERSION) -> str:
    """A hint for an empty optional field: leave it out (its parent object does not require it)."""
    where = list(error.absolute_schema_path)[:-1]  # the field's own schema: ...properties/<name>
    if len(where) < 2 or where[-2] != "properties":
        return ""
    parent: Any = schema(version)  # the receipt's own version: a part only a later version has is not in an older one's
    for part in where[:-2]:
        parent = parent[part]
    return "" if where[-1] in parent.get("required", []) else "; leave the field out when there is nothing to say"


def _schema_message(error: jsonschema.ValidationError, version: float = SCHEMA_VERSION) -> str:
    # What jsonschema's error holds, as the keyword that failed has it (its stubs type them as any schema's).
    v, value, limit, schema = error.validator, cast(Any, error.instance), cast(Any, error.validator_value), cast(dict, error.schema)
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
        got = _shown(value) if value is None or isinstance(value, bool) else f"{json_type(value)} {_shown(value)}"
        return f"expected {expected}, got {got}{hint}"
    if v == "additionalProperties":
        known = schema.get("properties", {})
        extra = [k for k in value if k not in known]
        return "unknown field " + ", ".join(f"'{e}'{suggest(e, known)}" for e in extra)
    if v == "const":
        return f"expected {_shown(limit)}, got {_shown(value)}"
    if v == "enum":
        return f"expected one of {', '.join(_shown(x) for x in limit)}, got {_shown(value)}"
    if v == "pattern" and limit == _SOME_TEXT:
        return "holds only spaces" + _leave_out(error, version)
    if v == "format":
        return f"{_shown(value)} is not a real calendar date (YYYY-MM-DD)" if limit == "date" else error.message
    if v == "pattern":
        desc = schema.get("description")
        return f"{_shown(value)} does not have the expected form" + (
            f" ({desc})" if desc else " (letters, digits, '.', '_' and '-', starting with a letter or digit)"
            if "A-Za-z0-9" in limit else f" {limit}")
    if v == "minItems":
        return f"expected at least {_plural(limit, 'item')}, got {len(value)}"
    if v == "maxItems":
        return f"expected at most {_plural(limit, 'item')}, got {len(value)}"
    if v == "minLength":
        return "must not be empty" + _leave_out(error, version) if limit == 1 else f"expected at least {_plural(limit, 'character')}"
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


def fast_validator(version: float = SCHEMA_VERSION):
    return _fast_validator_of(version, sections.generation())


def prepare_checker() -> None:
    """Writes and compiles the current schema's checker now, not at the first receipt: a build about
    to fork workers, so that each inherits it."""
    fast_validator()


@cache
def _fast_validator_of(version: float, generation: int):
    """A quick yes for the common case, a valid receipt (raises when it cannot say yes).

    Only when it fails does jsonschema walk the file again, for the precise path and message.
    sitegen's own checker (fastschema.checker) refuses floats in integer fields, so what it accepts
    needs no `check_integers`; a section schema it cannot read falls back to fastjsonschema, whose
    draft-07 mode applies as the schema uses nothing beyond draft-07 keywords.
    """
    from site_gen.receipts.fastschema import checker, compiled

    python = python_patterns(schema(version))
    check = checker(python, {"date": is_date})
    if check is None:
        return compiled({**python, "$schema": "http://json-schema.org/draft-07/schema#"}, formats={"date": is_date})

    return _Exact(check)


class _Exact:
    """sitegen's own checker as a validator: raises when it cannot say yes. It refuses floats in
    integer fields (`exact_integers`: no `check_integers` needed after it)."""
    exact_integers = True

    def __init__(self, check: Callable[[Any], bool]) -> None:
        self.check = check

    def __call__(self, data: Any) -> None:
        if not self.check(data):
            raise ValueError("not valid under the receipt schema")


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


def _integer_fields(version: float = SCHEMA_VERSION) -> Any:
    return _integer_plan_of(version, sections.generation())


@cache
def _integer_plan_of(version: float, generation: int) -> Any:
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
    known = ", ".join(f"{x:g}" for x in SCHEMA_VERSIONS)
    if isinstance(v, str) and v.strip() in [f"{x:g}" for x in SCHEMA_VERSIONS]:
        # A version written as text names the right one: say how to write it, not that it is unknown.
        raise SitegenError(f"schema_version is the text {_shown(v)}; write it as a number, {v.strip()} (versions: {known})",
                           file, "$.schema_version")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v not in SCHEMA_VERSIONS:
        raise SitegenError(f"unknown schema_version {_shown(v)[:20]}; this sitegen reads versions {known}",
                           file, "$.schema_version")
    return next((x for x in SCHEMA_VERSIONS if x == v), SCHEMA_VERSION)


def validate_schema(data: Any, file: Path) -> list[Diagnostic]:
    """Raises on the first schema error (in document order).

    Unknown fields are removed from `data`, so that nothing downstream (tables, CSV) shows them,
    and returned as warnings, one per kind (a front end under `--strict` refuses them).
    """
    version = receipt_version(data, file)
    try:
        fast_validator(version)(data)
    except Exception:  # any failure: let jsonschema find and describe it
        pass
    else:
        if not getattr(fast_validator(version), "exact_integers", False):
            check_integers(data, file, version)
        return []
    errors = sorted(validator(version).iter_errors(data), key=lambda e: _document_order(data, e.absolute_path))
    unknown: dict[tuple, list] = {}
    for error in errors:
        if error.validator == "additionalProperties":
            known = cast(dict, error.schema).get("properties", {})
            kind = (tuple(error.absolute_schema_path), tuple(k for k in cast(dict, error.instance) if k not in known))
            unknown.setdefault(kind, []).append(error)
            continue
        raise SitegenError(_schema_message(error, version), file, json_path(error.absolute_path))
    found: list[Diagnostic] = []
    for kind, group in unknown.items():
        first = group[0]
        more = f" and {_plural(len(group) - 1, 'more place')} like it" if len(group) > 1 else ""
        found.append(Diagnostic(f"{_schema_message(first, version)}{more}" + IGNORED, file,
                                json_path(first.absolute_path)))
        for error in group:
            for key in kind[1]:
                error.instance.pop(key, None)
    if len(found) > MAX_WARNINGS:
        found = found[:MAX_WARNINGS] + [Diagnostic(f"{len(found) - MAX_WARNINGS} more kinds of unknown field (ignored)", file)]
    check_integers(data, file, version)
    return found
