"""Receipt bytes -> JSON data, refusing what `json.loads` would accept too kindly.

Size limits, encodings, nesting depth, NaN and huge numbers, duplicate keys and characters a
receipt must not hold: each becomes a `SitegenError` naming the file and the line or JSON path.
"""
from __future__ import annotations

import json
import math
import re
from itertools import accumulate, compress, repeat
from operator import is_
from pathlib import Path
from typing import Any

from site_gen.core.errors import SitegenError, json_path
from site_gen.core import files

MAX_DEPTH = 64
# Integers beyond 2**53 are not exact in JSON (RFC 8259, section 6) nor in a float column.
MAX_INT = 2 ** 53

class _Bad:
    """Stands in for a value the parser must not hand back (NaN, 1e400, 2**64): the walk
    after parsing finds it and names its JSON path."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class _DupDict(dict):
    """An object in which a key appears twice (json.loads would silently keep the last)."""

    __slots__ = ("duplicate",)
    duplicate: str


_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# Characters a receipt's text must not hold: C0 controls but tab and newlines, DEL, C1 controls,
# lone surrogates (cannot be written as UTF-8), non-characters. HTML parsers reject them all.
BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
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


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", _DupDict: "object"}.get(type(value), type(value).__name__)


def _loads(text: str, infinity: bool = False) -> tuple[Any, bool]:
    """json.loads that marks what it must not accept (with `infinity`, `Infinity` is taken as a
    number); returns (data, anything marked)."""
    marked = False

    def mark(message: str) -> _Bad:
        nonlocal marked
        marked = True
        return _Bad(message)

    def constant(name: str) -> _Bad | float:
        if infinity and name == "Infinity":
            return math.inf
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
            marked = _DupDict(out)
            marked.duplicate = twice
            mark("")
            return marked
        return out

    data = json.loads(text, parse_constant=constant, parse_float=number, parse_int=integer, object_pairs_hook=pairs)
    return data, marked


def _first_problem(value: Any, path: list, strings: bool) -> tuple[list, str] | None:
    """The first marked value, duplicate key or (if `strings`) bad character, in document order."""
    if isinstance(value, _Bad):
        return path, value.message
    if isinstance(value, str):
        if strings and (m := BAD_CHAR.search(value)):
            return path, f"text holds the character U+{ord(m.group()):04X}, which a receipt must not contain"
        return None
    if isinstance(value, dict):
        duplicate = getattr(value, "duplicate", None)
        for key, item in value.items():
            if strings and (m := BAD_CHAR.search(key)):
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


_RAISE_LIMIT = "raise plugins.sitegen.max_receipt_mb to accept it"


def read_limited(file: Path, max_bytes: int, what: str = "receipt", remedy: str = _RAISE_LIMIT) -> bytes:
    """A regular file's bytes, refused unread when over `max_bytes` (never blocks on a FIFO):
    core/files.py `read_limited`, with a receipt's words by default."""
    return files.read_limited(file, max_bytes, what, remedy)


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
    raw = read_limited(file, max_bytes)
    if not raw.strip():
        raise SitegenError("file is empty; expected a JSON object", file, "$")
    return parse_text(decode_text(raw, file), raw, file), raw


def parse_text(text: str, raw: bytes, file: Path | None, *, strings: bool = True, infinity: bool = False) -> Any:
    """JSON text (and its bytes) -> data, with every refusal of `parse_json`: the one careful parser
    of what sitegen reads as JSON (receipts, and every JSON file an importer reads). An importer's
    source may hold any character in its text (`strings=False`: the receipt it makes is checked for
    them instead) and, for SGLang's request rate, `Infinity` (`infinity=True`)."""
    data = _quick(text, raw, infinity)
    marked = False
    if data is _UNUSUAL:
        data, marked = _careful(text, file, infinity)
    strings = strings and bool(_ESCAPED_CHAR.search(text) or (raw.translate(None, _PLAIN) and BAD_CHAR.search(text)))
    if marked or strings:
        found = _first_problem(data, [], strings)
        if found:
            raise SitegenError(found[1], file, json_path(found[0]))
    return data


def first_problem(data: Any) -> tuple[str, str] | None:
    """(JSON path, message) of the first character in `data`'s text that a receipt must not hold
    (a lone surrogate, a control character), for data made in memory rather than read."""
    found = _first_problem(data, [], True)
    return (json_path(found[0]), found[1]) if found else None


# Bytes of a receipt's text that `_shape` keeps: its structure, once strings are taken out.
_NOT_SHAPE = bytes(b for b in range(256) if b not in b'"[]{}:')
_BRACKETS = bytes.maketrans(b"{}", b"[]")
_A_STRING = re.compile(rb'"[^"]*"')
# For `_huge_numbers`: digits as 0, exponent marks as e, what may stand before a number as a space,
# any other byte as a.
_NUMBER_CHARS = bytes(ord("0") if chr(b).isdigit() and b < 128 else ord("e") if b in b"eE" else b if b in b"+-."
                      else ord(" ") if b in b" \t\n\r:,[" else ord("a") for b in range(256))
# Printable ASCII, tab and newlines: a receipt of these alone holds no character BAD_CHAR names.
_PLAIN = bytes([9, 10, 13, *range(32, 127)])
_UNUSUAL = object()


def _shape(raw: bytes) -> tuple[int, bool]:
    """(members of all its objects, whether it nests deeper than MAX_DEPTH) of valid JSON.

    In C, on bytes: escaped backslashes and quotes go, then all but quotes, brackets and colons,
    then the strings (now quote pairs with perhaps a bracket or colon inside); a colon outside a
    string is one object member, and the innermost bracket pairs go, once per level.
    """
    kept = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_SHAPE).replace(b'""', b"")
    if b'"' in kept:
        kept = _A_STRING.sub(b"", kept)
    members = kept.count(b":")
    kept = kept.replace(b":", b"").translate(_BRACKETS)
    for _ in range(MAX_DEPTH):
        if not kept:
            break
        kept = kept.replace(b"[]", b"")
    return members, bool(kept)


def _huge_numbers(raw: bytes) -> bool:
    """Whether a number may be beyond what `_loads` lets through: 16 digits or more before any point
    (not exact, or too large for a float) or an exponent of three digits or more (perhaps infinite).
    Searched for in C, on the bytes mapped to classes; text in a string that looks so also says yes."""
    mapped = (b" " + raw).translate(_NUMBER_CHARS)
    if b" 0000000000000000" in mapped or b" -0000000000000000" in mapped:
        return True
    for exponent in (b"e000", b"e+000"):
        at = mapped.find(exponent)
        while at != -1:
            start = at  # back to the token's start: a number follows a space (or `:`, `,`, `[`)
            while mapped[start - 1] in b"0.":
                start -= 1
            start -= mapped[start - 1] == ord("-")
            if start < at and mapped[start - 1] == ord(" "):
                return True
            at = mapped.find(exponent, at + 1)
    return False


def _refuse_constant(name: str) -> None:
    raise ValueError(name)


def _infinity(name: str) -> float:
    if name != "Infinity":
        raise ValueError(name)
    return math.inf


_CONTAINER_TYPES = frozenset({dict, list})


def _walk(value: Any) -> tuple[int, bool]:
    """(the members of every object, whether an integer lies beyond MAX_INT) of parsed data.

    A level of the tree at a time: its containers' values gathered in one list, then their types
    read once, and the level's integers and the next level's containers picked out by type in C
    (`compress`), so that a record of plain values costs no Python step of its own."""
    members, huge, values = 0, False, [value]
    while True:
        types = list(map(type, values))
        kinds = set(types)
        if int in kinds and not huge:
            huge = max(map(abs, compress(values, map(is_, types, repeat(int))))) > MAX_INT
        if dict not in kinds and list not in kinds:
            return members, huge
        level = list(compress(values, map(_CONTAINER_TYPES.__contains__, types)))
        values = []
        for container in level:
            if type(container) is dict:
                members += len(container)
                values.extend(container.values())
            else:
                values.extend(container)


def _msgspec(raw: bytes) -> Any:
    """msgspec's parse of the bytes, or _UNUSUAL where it refuses them.

    A serving run's result file is mostly numbers (every request's inter-token gaps), which msgspec
    reads several times faster than json.loads (benchmarks/study_speed.py). Where it accepts the text it
    gives the value json.loads gives (integers of any size stay integers, floats correctly rounded,
    keys in order: tests/test_fast_json.py compares them on random texts); it refuses all json.loads
    refuses and more (NaN, Infinity, 1e400, lone surrogates, JSON lines), which json.loads then
    reads as before. It keeps a key given twice once, as json.loads does: the members' count finds it;
    it reads an integer beyond 2^53 exactly, where `_careful` refuses it: `_walk` finds it."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a dependency; without it, json.loads reads everything
        return _UNUSUAL
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _UNUSUAL


def _quick(text: str, raw: bytes, infinity: bool = False) -> Any:
    """The data of a receipt with nothing unusual in it (msgspec's parser, else json.loads' own C
    parser), or _UNUSUAL when it might hold anything `_careful` refuses: that then parses it again
    and says what.

    No duplicate key: the objects hold as many members as the text has colons outside strings.
    """
    pairs, deep = _shape(raw)
    if deep:
        return _UNUSUAL
    data = _msgspec(raw)
    if data is not _UNUSUAL:  # an integer beyond 2^53 (kept exact by msgspec) is for `_careful` to name
        members, huge = _walk(data)
        return data if pairs == members and not huge else _UNUSUAL
    if _huge_numbers(raw):
        return _UNUSUAL
    members = 0

    def count(obj: dict) -> dict:
        nonlocal members
        members += len(obj)
        return obj

    try:
        data = json.loads(text, object_hook=count, parse_constant=_infinity if infinity else _refuse_constant)
    except (ValueError, RecursionError):
        return _UNUSUAL
    return _UNUSUAL if pairs != members else data


def _careful(text: str, file: Path | None, infinity: bool = False) -> tuple[Any, bool]:
    """Parses a receipt that may be bad in any way: (data, anything marked), or the first problem."""
    deep = _too_deep(text)
    if deep is not None:
        raise SitegenError(f"JSON nested deeper than {MAX_DEPTH} levels", file, _line_col(text, deep))
    try:
        return _loads(text, infinity)
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
