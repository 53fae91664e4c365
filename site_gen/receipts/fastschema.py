"""Fast yes-or-no schema checks for the common case, a valid receipt.

`checker` writes one Python function for the keywords the receipt schemas use (below). For a
schema it cannot read (a section's part with other keywords), `compiled` gives fastjsonschema's
validator. Both are code generated from sitegen's own schema: never kept in, nor read from, the
persistent cache (code read from a folder is code whoever can write that folder runs). The checkers
of the published schemas are written when sitegen is packaged, into the package (`module_of`,
render/precompiled.py), and taken from there for the very schema they were written from; any
other schema's is compiled in the process that needs it.
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import json
import re
from functools import partial
from typing import Any
from collections.abc import Callable

# The version of what `module_of` writes: raised when the code a schema gives changes in a way its
# key (the schema's text) cannot see.
FORMAT = "1"
# And this module's own text: an edited writer (a checkout pulled without installing again) never
# takes a checker the package's older writer wrote.
with open(__file__, "rb") as _source:
    _WRITER = hashlib.sha256(_source.read()).hexdigest()


def python_patterns(node: Any) -> Any:
    """The schema with each pattern's final `$` as `\\Z`.

    JSON Schema patterns are ECMA-262, where `$` is the very end; in Python's `re` it also
    matches before a final newline, which would let `"Q4\\n"` pass as a checkpoint id. (For the
    same reason the schema writes digits as `[0-9]`: Python's `\\d` takes any script's digits.)
    """
    if isinstance(node, dict):
        out = {k: python_patterns(v) for k, v in node.items()}
        pattern = out.get("pattern")
        if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
            out["pattern"] = pattern[:-1] + "\\Z"
        return out
    if isinstance(node, list):
        return [python_patterns(v) for v in node]
    return node


def compiled(schema: dict[str, Any], formats: dict[str, Callable[[Any], bool]]) -> Callable[[Any], Any]:
    """A validator of `schema` (raises on invalid data), from the cache when one was made before."""
    import fastjsonschema
    from fastjsonschema.ref_resolver import RefResolver

    code = compile(fastjsonschema.compile_to_code(schema, formats=formats), "<sitegen receipt validator>", "exec")
    scope: dict[str, Any] = {}
    exec(code, scope)
    entry = RefResolver.from_schema(schema, store={}).get_scope_name()
    return partial(scope[entry], custom_formats=formats)


# -- a leaner checker for the schema's own keywords ---------------------------------------------
# fastjsonschema's code builds a set of each object's keys, removes them one by one and tests each
# value's type three ways: on a receipt of a few thousand records that is most of its load time.
# `checker` writes one Python function for the keywords the receipt schemas use and answers only
# yes or no; a no (or a schema it does not know) leaves the verdict to jsonschema. It may refuse
# more than the schema does (a float in an integer field, a subclass of dict), never accept more.

_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated"}
_KNOWN = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
                         "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
                         "exclusiveMaximum", "const", "enum", "anyOf"}
_IS = {"object": "type({v}) is dict", "array": "type({v}) is list", "string": "type({v}) is str",
       "integer": "type({v}) is int", "number": "(type({v}) is float or type({v}) is int)",
       "boolean": "type({v}) is bool", "null": "{v} is None"}
# Where the schema names no type, each keyword applies to values of its own kind only.
_KIND = {"object": "isinstance({v}, dict)", "array": "isinstance({v}, list)", "string": "isinstance({v}, str)",
         "number": "(isinstance({v}, (int, float)) and not isinstance({v}, bool))"}
_KEYWORDS = {"object": ("properties", "required", "additionalProperties"), "array": ("items", "minItems", "maxItems"),
             "string": ("minLength", "maxLength", "pattern"),
             "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
_COMPARE = {"minItems": "<", "maxItems": ">", "minLength": "<", "maxLength": ">", "minimum": "<", "maximum": ">",
            "exclusiveMinimum": "<=", "exclusiveMaximum": ">="}


class _Unsupported(Exception):
    """A keyword (or form of one) `checker` does not write code for."""


class _Writer:
    def __init__(self, formats: dict[str, Callable[[Any], bool]] | dict[str, _Format]):
        self.formats = formats
        self.scope: dict[str, Any] = {"_MISSING": object()}
        self.functions: list[str] = []
        self.count = 0

    def name(self, prefix: str, value: Any = None) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        if value is not None:
            self.scope[name] = value
        return name

    def function(self, node: Any) -> str:
        """A function of its own for `node` (one alternative of anyOf): its name."""
        name = self.name("_f")
        self.functions.append("\n".join([f"def {name}(v):", *_merged(self.lines(node, "v", 1)), "    return True"]))
        return name

    def lines(self, node: Any, v: str, depth: int) -> list[str]:
        """Statements that return False when the value named `v` fails `node`."""
        if node is True or node == {}:
            return []
        if not isinstance(node, dict) or not set(node) <= _KNOWN:
            raise _Unsupported(node)
        pad = "    " * depth
        out = []
        kind = node.get("type")
        if kind is not None:
            kinds = kind if isinstance(kind, list) else [kind]
            if not kinds or not all(isinstance(k, str) and k in _IS for k in kinds):
                raise _Unsupported(kind)
            out.append(f"{pad}if not ({' or '.join(_IS[k].format(v=v) for k in kinds)}): return False")
        for family, keywords in _KEYWORDS.items():
            present = [k for k in keywords if k in node]
            if not present:
                continue
            if kind == family or (family == "number" and kind == "integer"):
                inner = depth
            else:
                out.append(f"{pad}if {_KIND[family].format(v=v)}:")
                inner = depth + 1
            body = getattr(self, "_" + family)(node, v, inner)
            out.extend(body or ["    " * inner + "pass"])
        out.extend(self._values(node, v, depth))
        return out

    def _object(self, node: dict, v: str, depth: int) -> list[str]:
        pad, out = "    " * depth, []
        props, required = node.get("properties", {}), node.get("required", [])
        extra = node.get("additionalProperties", True)
        if not isinstance(props, dict) or not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise _Unsupported(node)
        if extra is False:
            out.append(f"{pad}if not {v}.keys() <= {self.name('_keys', frozenset(props))}: return False")
        elif extra is not True and not isinstance(extra, dict):
            raise _Unsupported(extra)
        if required:
            out.append(f"{pad}if not {v}.keys() >= {self.name('_need', frozenset(required))}: return False")
        for key, sub in props.items():
            x = self.name("x")
            body = self.lines(sub, x, depth + (key not in required))
            if not body:
                continue
            if key in required:
                out += [f"{pad}{x} = {v}[{key!r}]", *body]
            else:
                out += [f"{pad}{x} = {v}.get({key!r}, _MISSING)", f"{pad}if {x} is not _MISSING:", *body]
        if isinstance(extra, dict) and (body := self.lines(extra, x := self.name("x"), depth + 2)):
            known = self.name("_known", frozenset(props))
            out += [f"{pad}for k, {x} in {v}.items():", f"{pad}    if k not in {known}:", *body]
        return out

    def _array(self, node: dict, v: str, depth: int) -> list[str]:
        pad, out = "    " * depth, self._limits(node, f"len({v})", ("minItems", "maxItems"), depth)
        items = node.get("items", True)
        if items is not True and not isinstance(items, dict):
            raise _Unsupported(items)
        if body := self.lines(items, x := self.name("x"), depth + 1):
            out += [f"{pad}for {x} in {v}:", *body]
        return out

    def _string(self, node: dict, v: str, depth: int) -> list[str]:
        out = self._limits(node, f"len({v})", ("minLength", "maxLength"), depth)
        if "pattern" in node:
            if not isinstance(node["pattern"], str):
                raise _Unsupported(node["pattern"])
            out.append(f"{'    ' * depth}if not {self.name('_re', re.compile(node['pattern']))}.search({v}): return False")
        return out

    def _number(self, node: dict, v: str, depth: int) -> list[str]:
        return self._limits(node, v, ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), depth)

    def _limits(self, node: dict, measure: str, keywords: tuple[str, ...], depth: int) -> list[str]:
        out = []
        for k in keywords:
            if k in node:
                limit = node[k]
                if isinstance(limit, bool) or not isinstance(limit, (int, float)):
                    raise _Unsupported(limit)
                out.append(f"{'    ' * depth}if {measure} {_COMPARE[k]} {limit!r}: return False")
        return out

    def _values(self, node: dict, v: str, depth: int) -> list[str]:
        """const, enum, format and anyOf: for a value of any kind."""
        pad, out = "    " * depth, []
        if "const" in node:
            const = node["const"]
            if const is not None and type(const) not in (str, int, float, bool):
                raise _Unsupported(const)
            out.append(f"{pad}if not (type({v}) is {type(const).__name__ if const is not None else 'type(None)'} "
                       f"and {v} == {const!r}): return False")
        if "enum" in node:
            if not isinstance(node["enum"], list) or not all(isinstance(e, str) for e in node["enum"]):
                raise _Unsupported(node["enum"])
            out.append(f"{pad}if not (type({v}) is str and {v} in {self.name('_enum', frozenset(node['enum']))}): return False")
        if "format" in node and node["format"] in self.formats:
            out.append(f"{pad}if not {self.name('_format', self.formats[node['format']])}({v}): return False")
        if "anyOf" in node:
            if not isinstance(node["anyOf"], list) or not node["anyOf"]:
                raise _Unsupported(node["anyOf"])
            out.append(f"{pad}if not ({' or '.join(f'{self.function(n)}({v})' for n in node['anyOf'])}): return False")
        return out


def _merged(lines: list[str]) -> list[str]:
    """Consecutive tests at one depth as one `if ... or ...`: fewer steps for the interpreter."""
    out: list[str] = []
    for line in lines:
        test = re.fullmatch(r"( *)if (.*): return False", line)
        last = re.fullmatch(r"( *)if (.*): return False", out[-1]) if out else None
        if test and last and test.group(1) == last.group(1):
            out[-1] = f"{last.group(1)}if {last.group(2)} or {test.group(2)}: return False"
        else:
            out.append(line)
    return out


def checker(schema: dict[str, Any], formats: dict[str, Callable[[Any], bool]]) -> Callable[[Any], bool] | None:
    """True when `data` is valid under `schema` (False: perhaps not); None for a schema it cannot write."""
    packaged = _packaged(schema, formats)
    if packaged is not None:
        return packaged
    writer = _Writer(formats)
    try:
        main = writer.function(schema)
        code = compile("\n\n".join(writer.functions), "<sitegen receipt checker>", "exec")
    except (_Unsupported, SyntaxError, RecursionError, MemoryError):
        return None
    exec(code, writer.scope)
    return writer.scope[main]


# -- written when packaged ------------------------------------------------------------------------
# Writing and compiling the checker of schema 1.2 took ~26 ms, of 1 and 1.1 ~10 and ~15 ms: in every
# process that reads a receipt of that version (each forked worker of a build too).

def key_of(schema: dict[str, Any], formats) -> str:
    """What a packaged checker is kept under: the schema's text and the names of the formats it checks."""
    text = json.dumps([FORMAT, _WRITER, sorted(formats), schema], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Format:
    """A format's place in a packaged module: the function is given when the module runs."""

    def __init__(self, name: str):
        self.name = name


def module_of(schema: dict[str, Any], format_names) -> tuple[str, str] | None:
    """(the Python source of a module whose function `main` checks `schema`, main), or None for a
    schema `checker` cannot write. The module's values are written as literals; each format is
    `_FORMATS[name]`, the functions the module is run with."""
    writer = _Writer({name: _Format(name) for name in format_names})
    try:
        main = writer.function(schema)
    except (_Unsupported, RecursionError):
        return None
    head = ["import re", ""]
    for name, value in writer.scope.items():
        if name == "_MISSING":
            head.append("_MISSING = object()")
        elif isinstance(value, frozenset):
            head.append(f"{name} = frozenset({sorted(value)!r})")
        elif isinstance(value, re.Pattern) and value.flags == re.UNICODE:
            head.append(f"{name} = re.compile({value.pattern!r})")
        elif isinstance(value, _Format):
            head.append(f"{name} = _FORMATS[{value.name!r}]")
        else:
            return None
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(writer.functions) + "\n", main


_index: dict[str, tuple[str, str]] | None = None  # key -> (module, main) of the package's checkers


def _packaged(schema: dict[str, Any], formats: dict[str, Callable[[Any], bool]]) -> Callable[[Any], bool] | None:
    """The package's checker of this very schema (and formats), or None."""
    global _index
    if _index is None:
        try:
            # The package's generated modules (render/precompiled.py PACKAGE; written when packaged).
            _index = dict(importlib.import_module("site_gen._compiled").CHECKERS)
        except (ImportError, AttributeError):  # not generated (a checkout never installed)
            _index = {}
    entry = _index.get(key_of(schema, formats)) if _index else None
    spec = importlib.util.find_spec(f"site_gen._compiled.{entry[0]}") if entry else None
    if entry is None or spec is None or not isinstance(spec.loader, importlib.abc.InspectLoader):
        return None
    code = spec.loader.get_code(spec.name)
    if code is None:
        return None
    scope: dict[str, Any] = {"_FORMATS": dict(formats)}
    exec(code, scope)  # the package's own code, as its templates' is
    return scope[entry[1]]
