"""Mutation fuzzing of what sitegen reads: receipts, mkdocs.yml and docs pages, run in-process.

Used by tests/test_fuzz.py (a fixed seed, a few thousand cases) and benchmarks/fuzz.py (long runs).
A case is a tiny project (one receipt, mkdocs.yml, two pages) in which one file got one or two
mutations, and a command (`check` mostly, some `summary` and `build`). The oracle is the CLI's
contract: exit 0, or exit 1 with exactly one `Error:` line, within a bound of this process's CPU
time (not the wall clock's: other work on a loaded machine does not count); never exit 2 (an
internal error), a traceback or a hang.

Case `i` of seed `s` is made from its own `random.Random(f"{s}:{i}")`, so any case can be made
again on its own from the two numbers.
"""
from __future__ import annotations

import contextlib
import copy
import faulthandler
import io
import json
import os
import random
import re
import shutil
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from site_gen import cli
from site_gen.analysis.figures import registry as _figures
from site_gen.building import starter as new
from site_gen.core.config import MKDOCS_KEYS, PLUGIN_OPTIONS
from site_gen.core.errors import json_path
from site_gen.render.docs import all_blocks

FIGURES = _figures()

ROOT = Path(__file__).resolve().parent.parent
REPORT = "example-report"
RECEIPT = f"data/{REPORT}/SUMMARY.json"
CONFIG = "mkdocs.yml"
PAGES = ("docs/index.md", "docs/guide.md")
LEDE = f"data/{REPORT}/lede.md"


# -- the valid inputs every case starts from ---------------------------------------------------
def trimmed_example() -> dict:
    """The repository's full example receipt, cut to a few records of each section (still valid)."""
    d = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text(encoding="utf-8"))
    d["speed"]["cells"] = d["speed"]["cells"][::11]
    d["long_outputs"]["replies"] = d["long_outputs"]["replies"][::40]
    for run in d["tool_calling"]["runs"]:
        run["scenarios"] = run["scenarios"][:3]
    return d


RECEIPTS = {"new": new.receipt(), "example": trimmed_example()}
RECEIPT_TEXTS = {name: json.dumps(r) for name, r in RECEIPTS.items()}
EXAMPLE_LEDE = (ROOT / "data" / "cuteafd-v4.0.0" / "lede.md").read_text(encoding="utf-8")  # the example's $.report.lede

# mkdocs.yml as (key, YAML text) pairs, so that a mutation can put any YAML (tags, anchors, .nan) there.
TOP = {"site_name": "My engine benchmarks", "site_description": "Receipts-first comparisons.", "docs_dir": "docs",
       "site_dir": "site"}
OPTIONS = {"data_dir": "data", "noise_band": "0.08", "ratio_scale": "[0.8, 1.8]"}

INDEX = new.PAGE + """
{{ engine }} is {{ speed_verdict }} against {{ engine role=baseline }} and holds {{ kv_ratio_range digits=1 }} its KV pool.
"""
GUIDE = """\
---
title: Guide
report: example-report
---
# Guide

{{ check speed_count verdict=slower >= 0 : counted cells }}; {{ speed_count }} cells, `{{ kept as typed }}`.

```sitegen
block: speed-summary
```

{{ block memory-table }}

The reference is {{ precision_reference }} on {{ hardware }}.
"""


def config_text(top: dict[str, str], options: dict[str, str] | None, tail: str = "") -> str:
    """mkdocs.yml from YAML snippets; `options` None leaves out the sitegen plugin entry."""
    lines = [f"{k}: {v}" for k, v in top.items()]
    if options is not None:
        lines += ["plugins:", "  - sitegen:"] + [f"      {k}: {v}" for k, v in options.items()]
    return "\n".join(lines) + "\n" + tail


# -- odd values ----------------------------------------------------------------------------------
class Raw(str):
    """JSON text written as it is: NaN, 1e400, duplicate keys, nesting deeper than json.dumps goes."""


def to_json(v: Any) -> str:
    if isinstance(v, Raw):
        return v
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {to_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(to_json(x) for x in v) + "]"
    return json.dumps(v)


def _big(rng: random.Random) -> int:
    # Large enough that a quadratic scan takes seconds, small enough that a linear one is instant.
    return rng.choice((3000, 12000))


NUMBERS = [0, -1, 1, 2 ** 53 + 1, 10 ** 40, -10 ** 40, 1.5, -0.0, 1e20, 1e308, -1e308, 5e-324,
           Raw("1e400"), Raw("-1e400"), Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1E2"), Raw("1.0"), Raw("-0")]
TEXTS = [
    "", " ", "\t\n", "nan", "Infinity", "-1", "1e400", "0x10", "1,5",
    "٢٠٢٦-٠١-١٥", "2026-13-45", "0000-00-00", "2026-02-30", "2026-1-5", "9999-12-31", "2026-01-15T00:00:00Z",
    "\u202eevil\u202c", "مرحبا بالعالم", "\x00", "a\x00b", "\ud800", "\udfff", "😀", "e\u0301", "\ufeff", "\u2028",
    "line\rbreak", "=cmd|' /C calc'!A0", "x\r=1+1", "x\n@SUM(1)", "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>", "javascript:alert(1)", "{{ }}", "{{", "}}", "{{ speed_verdict }}",
    "{{ check speed_count == 0 : none }}", "{{ block dashboard }}", "SGINLINE0000END", "`code` **b** [l](javascript:x)",
    "<!--", "| a | b |\n|---|---|", "# heading", "```", "../../etc/passwd", "sha256:", "x" * 300, "K4", "Q4",
    "baseline", "candidate", "example-report",
]
OTHERS = [True, False, None, [], {}, [[]], [None], [{}], {"": None}, ["", ""]]


def json_value(rng: random.Random, like: Any = None) -> Any:
    """An odd value for a receipt field: an extreme number, text that means something elsewhere, a
    wrong type. Mostly of the type of `like`, so that more cases get past the schema."""
    if rng.random() < 0.06:
        n = _big(rng)
        return rng.choice([
            lambda: "x" * (n * 10), lambda: "`a` " * n, lambda: "[" * n + "]" * n, lambda: "{{ " * n,
            lambda: "*a " * n, lambda: "<" * n, lambda: Raw("[" * n + "]" * n), lambda: Raw('{"a": ' * 100 + "1" + "}" * 100),
        ])()
    if rng.random() < 0.6 and isinstance(like, str):
        return rng.choice(TEXTS)
    if rng.random() < 0.6 and isinstance(like, (int, float)) and not isinstance(like, bool):
        return rng.choice(NUMBERS)
    return copy.deepcopy(rng.choice(NUMBERS + TEXTS + OTHERS))


def short(value: Any, limit: int = 50) -> str:
    text = value if isinstance(value, Raw) else repr(value)
    return text if len(text) <= limit else f"{text[:limit]}…({len(text)} chars)"


# -- receipt mutations -------------------------------------------------------------------------
def size(tree: Any) -> int:
    items = tree.values() if isinstance(tree, dict) else tree if isinstance(tree, list) else ()
    return 1 + sum(size(v) for v in items)


def pick(tree: Any, rng: random.Random) -> tuple:
    """A path into the receipt by a random walk from the root. Each step goes to a child with a
    weight of the square root of its size: a section's one note is picked often, though less
    than its sibling list of a hundred records, and every record is still reached."""
    path, node = (), tree
    while True:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        if not children or (path and rng.random() < 0.2):
            return path
        key, node = rng.choices(children, weights=[size(v) ** 0.5 for _, v in children])[0]
        path += (key,)


def get(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree[part]
    return tree


def put(tree: Any, path: tuple, value: Any) -> None:
    get(tree, path[:-1])[path[-1]] = value


def retyped(value: Any) -> Any:
    """The same content in another JSON type."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value) if abs(value) < 2 ** 53 else str(value)
    if isinstance(value, float):
        return int(value) if value == value and abs(value) < 1e18 else str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        return list(value.values())
    return "null"


def mutate_receipt(tree: dict, rng: random.Random) -> str:
    """One structural change of the receipt, in place; returns what it did.

    An operation that does not fit the value picked (repeating an item that is not in a list)
    sets an odd value instead.
    """
    path = pick(tree, rng)
    if not path:
        return "unchanged (nothing left to pick)"
    where = json_path(path)
    parent, key, value = get(tree, path[:-1]), path[-1], get(tree, path)
    op = rng.choice(("set", "set", "set", "delete", "retype", "swap", "duplicate", "add_key", "empty", "number", "dup_key"))
    if op == "delete":
        del parent[key]
        return f"{where}: deleted"
    if op == "retype":
        put(tree, path, retyped(value))
        return f"{where} = {short(get(tree, path))} (was {type(value).__name__})"
    if op == "swap":
        other = pick(tree, rng)
        if not other or other[:len(path)] == path or path[:len(other)] == other:
            other = path  # one inside the other: nothing to swap
        a, b = get(tree, path), get(tree, other)
        put(tree, path, copy.deepcopy(b))
        put(tree, other, copy.deepcopy(a))
        return f"{where} <-> {json_path(other)} swapped"
    if op == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
        return f"{where}: item repeated"
    if op == "add_key":
        holder = path[:-1]
        while not isinstance(get(tree, holder), dict):
            holder = holder[:-1]
        name = rng.choice(("x", "", "__proto__", "\x00", "Report", "note ", "k" * 200, "$schema", "sha256"))
        get(tree, holder)[name] = json_value(rng)
        return f"{json_path(holder)}: unknown key {name!r} added"
    if op == "empty" and isinstance(value, (list, dict, str)):
        put(tree, path, type(value)())
        return f"{where} emptied"
    if op == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        new_value = rng.choice((-value, value + 0.5, value * 1e300, 0, -1, 2 ** 63, 1e-300))
        put(tree, path, new_value)
        return f"{where} = {short(new_value)} (was {value!r})"
    if op == "dup_key" and isinstance(parent, dict):
        # JSON allows a key twice; the reader keeps the last, a human reads the first.
        put(tree, path, Raw(f"{to_json(value)}, {json.dumps(key)}: {to_json(json_value(rng))}"))
        return f"{where}: key written twice"
    new_value = json_value(rng, value)
    put(tree, path, new_value)
    return f"{where} = {short(new_value)}"


# -- byte-level mutations (any file) ---------------------------------------------------------------
def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    op = rng.choice(("truncate", "flip", "bom", "utf16", "utf32", "cp1252", "nul", "bad_utf8", "crlf", "empty", "trailing"))
    if op == "truncate":
        at = rng.randrange(len(data) + 1)
        return data[:at], f"truncated at byte {at} of {len(data)}"
    if op == "flip":
        out = bytearray(data)
        spots = sorted(rng.randrange(len(out)) for _ in range(rng.randint(1, 4))) if out else []
        for at in spots:
            out[at] ^= rng.randint(1, 255)
        return bytes(out), f"bytes flipped at {spots}"
    if op == "bom":
        return b"\xef\xbb\xbf" + data, "UTF-8 byte order mark added"
    if op in ("utf16", "utf32"):
        codec = rng.choice((f"{op[:3]}-{op[3:]}", f"{op[:3]}-{op[3:]}-le", f"{op[:3]}-{op[3:]}-be"))
        return data.decode("utf-8", "replace").encode(codec), f"re-encoded as {codec}"
    if op == "cp1252":
        return data.decode("utf-8", "replace").encode("cp1252", "replace"), "re-encoded as cp1252"
    if op == "nul":
        at = rng.randrange(len(data) + 1)
        return data[:at] + b"\x00" + data[at:], f"NUL byte inserted at {at}"
    if op == "bad_utf8":
        at = rng.randrange(len(data) + 1)
        junk = rng.choice((b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"))
        return data[:at] + junk + data[at:], f"invalid UTF-8 {junk!r} inserted at {at}"
    if op == "crlf":
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    if op == "empty":
        return rng.choice((b"", b" \n\t")), "emptied"
    return data + rng.choice((b",", b"{}", b"\n\x00", b"]")), "trailing bytes appended"


# -- mkdocs.yml mutations --------------------------------------------------------------------------
# Paths stay inside the case's folder: a docs_dir of `/` would read (and a build copy) every file.
YAML_VALUES = [
    "5", "0", "-1", "null", "~", "''", "[]", "{}", "[5]", "[null]", "[{}]", ".nan", ".inf", "-.inf", "1e400", "1e-300",
    "true", "yes", "0x1F", "0o17", "2026-01-15", "2001-12-14t21:59:43.10-05:00", "!!binary aGk=", "!!set {a, b}",
    "!ENV SITEGEN_FUZZ_UNSET", "!ENV [SITEGEN_FUZZ_UNSET, fallback]", "!ENV [SITEGEN_FUZZ_UNSET]", "!!python/name:os.system",
    "!!python/object/apply:os.getcwd []", "!custom 1", "!!str 5", "!!int '5'", "!!float x", "*nowhere", "&a [*a]",
    "'javascript:alert(1)'", "'<script>alert(1)</script>'", "'..'", "'/nonexistent-sitegen-fuzz'", "'.'", "''", "'\\0'", "\"\\0\"",
    "\"\\ud800\"", "'\u202e'", "[0.8, 1.8]", "[1, 1]", "[0.5]", "[0.8, .inf]", "[.nan, 2]", "[-1, 2]", "['0.8', '1.8']",
    "[true, 2]", "[0.8, 1.8, 3]", "{low: 0.8}", "'0.08'", "svg", "plotly", "'x' ", "data", "docs", "site", "mkdocs.yml",
    "'data/example-report'", "'missing'",
]
# Folders: few distinct names, as sitegen compiles the templates again for every new custom_dir.
PATH_KEYS = ("custom_dir", "data_dir", "docs_dir", "site_dir")
PATH_VALUES = ["data", "docs", "'missing'", "'..'", "''", "'/nonexistent-sitegen-fuzz'", "mkdocs.yml", "'y" + "y" * 300 + "'",
               "5", "[docs]", "null", ".nan", "yes", "!ENV [SITEGEN_FUZZ_UNSET, docs]"]


def yaml_value(rng: random.Random, key: str = "") -> tuple[str, str]:
    """YAML text for one setting (a snippet after `key: `) and any lines it needs at the end of the file."""
    if key in PATH_KEYS and rng.random() < 0.8:
        return rng.choice(PATH_VALUES), ""
    if rng.random() < 0.08:
        n = rng.choice((100, 3000, 50000))
        kind = rng.choice(("flow_list", "flow_map", "laughs", "long"))
        if kind == "flow_list":
            return "[" * n + "]" * n, ""
        if kind == "flow_map":
            return "{a: " * n + "1" + "}" * n, ""
        if kind == "long":
            return "'" + "y" * 30000 + "'", ""
        # An alias bomb: nine levels of nine references each, 9**9 values for anything that walks it.
        lines = ["laughs:", "  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
        lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
        return "*l8", "extra_bomb_hidden:\n" + "\n".join("  " + line for line in lines) + "\n"
    return rng.choice(YAML_VALUES), ""


READ_KEYS = ["site_name", "site_url", "site_description", "copyright", "repo_url", "site_dir", "docs_dir", "extra",
             "dev_addr", "remote_branch", "remote_name", "markdown_extensions", "plugins"]
NON_STRING_KEYS = ["1: x", "null: x", "~: x", "true: x", "3.5: x", "2026-01-01: x", "? [a, b]\n: x", "? {a: 1}\n: x",
                   "'': x", "!!binary aGk=: x", "<<: {site_name: merged}", "<<: *nowhere"]


def mutate_config(top: dict, options: dict | None, tail: str, rng: random.Random) -> tuple[dict, dict | None, str, str]:
    """One change of mkdocs.yml (as snippets); returns the new parts and what it did."""
    top, options = dict(top), None if options is None else dict(options)
    op = rng.choice(("top", "top", "option", "option", "option", "unknown", "delete", "key", "plugins", "extensions", "nesting"))
    if op == "top":
        # Mostly keys sitegen reads; INHERIT, hooks and watch would make MkDocs read other files.
        key = rng.choice(READ_KEYS if rng.random() < 0.7 else sorted(MKDOCS_KEYS - {"INHERIT", "hooks", "watch"}))
        value, extra = yaml_value(rng, key)
        top[key] = value
        return top, options, tail + extra, f"{key}: {short(value)}"
    if op == "option":
        key = rng.choice(sorted(PLUGIN_OPTIONS))
        value, extra = yaml_value(rng, key)
        if options is None:
            options = {}
        options[key] = value
        return top, options, tail + extra, f"plugins.sitegen.{key}: {short(value)}"
    if op == "unknown":
        value, extra = yaml_value(rng)
        key = rng.choice(("site_nam", "Site_name", "x", "sitegen", "'a b'", "plugins ", "\"\\t\""))
        (top if rng.random() < 0.5 or options is None else options)[key] = value
        return top, options, tail + extra, f"unknown key {key!r}: {short(value)}"
    if op == "delete":
        holder = top if rng.random() < 0.5 or not options else options
        key = rng.choice(sorted(holder))
        del holder[key]
        return top, options, tail, f"{key} deleted"
    if op == "key":
        line = rng.choice(NON_STRING_KEYS)
        return top, options, tail + line + "\n", f"key: {line!r}"
    if op == "plugins":
        snippet = rng.choice(("sitegen", "[sitegen]", "[sitegen, sitegen]", "[{sitegen: null}]", "[{sitegen: 5}]", "[{}]",
                              "[null]", "[5]", "[[sitegen]]", "[{sitegen: {}, other: {}}]", "{sitegen: {data_dir: data}}",
                              "{sitegen: [data]}", "[search, sitegen]", "[{search: {}}, {sitegen: {charts: plotly}}]", "null"))
        top["plugins"] = snippet
        return top, None, tail, f"plugins: {snippet}"
    if op == "extensions":
        snippet = rng.choice(("[5]", "[{}]", "[null]", "[toc]", "[{toc: {permalink: true}}]", "[nope_not_a_module]",
                              "[markdown.extensions.toc]", "[{admonition: 5}]", "[{toc: 5}]", "{toc: {}}", "toc", "[[toc]]",
                              "[{toc: {}, tables: {}}]", "['']"))
        top["markdown_extensions"] = snippet
        return top, options, tail, f"markdown_extensions: {snippet}"
    n = rng.choice((10, 300))  # block style: the text grows with the square of the depth
    top["extra"] = "\n" + "".join("  " * (i + 1) + "a:\n" for i in range(n)) + "  " * (n + 1) + "b: 1"
    return top, options, tail, f"extra: nested {n} deep (block style)"


# -- docs page mutations ---------------------------------------------------------------------------
OPTION_KEYS = ["report", "checkpoint", "metric", "verdict", "engine", "role", "show", "digits", "paired", "panel", "id",
               "headline", "chart", "block", "x", ""]
OPTION_VALUES = ["", "²", "-1", "0", "999", "1e9", "nan", "K4", "Q4", "K3.25", "example-report", "../x", "a=b", "'q'",
                 "\u202e", "\x00", "true", "maybe", "aggregate", "decode", "faster", "slower", "level", "baseline",
                 "candidate", "previous", "long_name", "version", "P-A", "١", "٣", "𝟙", "1" * 400]


def directive(rng: random.Random) -> str:
    """One `{{ … }}` or fenced block, mostly almost right."""
    def opts() -> str:
        return " ".join(f"{rng.choice(OPTION_KEYS)}={rng.choice(OPTION_VALUES)}" for _ in range(rng.randint(0, 3)))

    name = rng.choice(sorted(FIGURES) * 2 + ["", "unknown_figure", "block", "check", "SPEED_VERDICT", "kv_ratio ", "é"])
    kind = rng.choice(("figure", "figure", "check", "block", "fence", "odd", "odd"))
    if kind == "figure":
        return f"{{{{ {name} {opts()} }}}}"
    if kind == "check":
        op = rng.choice(("==", "<", ">=", "!=", "=", "===", "", "=>"))
        number = rng.choice(("0", "-1", "1.5", "nan", "inf", "1e309", "0x10", "١", "", "x", "9" * 400))
        words = rng.choice(("ok", "", "}}", "{{", "a : b", "<b>x</b>", "`x`", "w" * 500))
        return f"{{{{ check {name} {opts()} {op} {number} : {words} }}}}"
    block = rng.choice(sorted(all_blocks()) + ["", "unknown-block", "Speed-Summary"])
    if kind == "block":
        return f"{{{{ block {block} {opts()} }}}}"
    if kind == "fence":
        body = rng.choice((f"block: {block}", f"block: {block}\n{rng.choice(OPTION_KEYS)}: {rng.choice(OPTION_VALUES)}",
                           "- a\n- b", "block: [x]", "block: {a: 1}", "!!python/name:os.system", "block: *x", "", ":", "\t"))
        fence = rng.choice(("```", "~~~", "````"))
        close = rng.choice((fence, "", "~~~" if fence == "```" else "```"))
        return f"\n{fence}sitegen\n{body}\n{close}\n"
    n = _big(rng) if rng.random() < 0.2 else rng.randint(1, 30)
    return rng.choice(("{{ }}", "{{}}", "{{ {{ x }} }}", "{{", "}}", "{{ " * n, "`" * n + "{{ x }}", "`{{ x }}",
                       "[" * n + "{{ hardware }}" + "]" * n, "<!-- {{ hardware }}", "{{ hardware }" , "{{\n\n}}",
                       "```\n{{ nope }}\n", "<script>{{ hardware }}</script>", "{{ hardware }}" * n))


FRONT_MATTERS = ["---\nreport: 5\n---\n", "---\n---\n", "---\n[1, 2]\n---\n", "---\nreport: example-report\n",
                 "---\nreport: ../../etc\n---\n", "---\nreport: nope\n---\n", "---\ntitle: {{ hardware }}\n---\n",
                 "---\ntitle: [a]\n---\n", "---\ntitle: '<script>x</script>'\n---\n", "---\n!!python/name:os.system\n---\n",
                 "---\na: &a [*a]\n---\n", "---\nreport: *x\n---\n", "---\n: :\n---\n", "---\nreport: null\n---\n",
                 "---\nreport: [example-report]\n---\n", "\ufeff---\nreport: example-report\n---\n", "...\n---\n",
                 "---\nreport: " + "[" * 20000 + "]" * 20000 + "\n---\n", "---\na: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n---\n"]


def mutate_page(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    op = rng.choice(("insert", "insert", "insert", "inline", "front", "delete_line", "nesting"))
    at = rng.randrange(len(lines) + 1)
    if op == "nesting":
        piece = nesting(rng)
        return "\n".join(lines[:at] + ["", piece, ""] + lines[at:]), f"line {at + 1}: {short(piece)} inserted"
    if op == "front":
        head = rng.choice(FRONT_MATTERS)
        body = text.split("---\n", 2)[-1] if text.startswith("---\n") else text
        return head + body, f"front matter {short(head)}"
    if op == "delete_line" and at < len(lines):
        return "\n".join(lines[:at] + lines[at + 1:]), f"line {at + 1} deleted"
    piece = directive(rng)
    if op == "inline" and at < len(lines):
        col = rng.randrange(len(lines[at]) + 1)
        lines[at] = lines[at][:col] + piece + lines[at][col:]
        return "\n".join(lines), f"line {at + 1} col {col + 1}: {short(piece)} inserted"
    return "\n".join(lines[:at] + [piece] + lines[at:]), f"line {at + 1}: {short(piece)} inserted"


ODD_PAGE_NAMES = ["docs/\udcff.md", "docs/a b.md", "docs/index.markdown", "docs/404.md", "docs/reports/index.md",
                  "docs/.hidden.md", "docs/ü.md", "docs/x.MD", "docs/assets/x.md", "docs/" + "d/" * 40 + "x.md",
                  "docs/history.md", f"docs/reports/{REPORT}/index.md", "docs/x.md.md", "docs/-.md"]


# -- cases -------------------------------------------------------------------------------------------
@dataclass
class Case:
    seed: int
    index: int
    target: str                  # the file mutated ("docs/…" pages use their own path)
    mutations: list[str]
    files: dict[str, bytes]      # path in the project -> content
    argv: list[str]              # the sitegen command line, `{site}` for the output folder
    fresh: tuple[str, ...] = ()  # folders of the project removed before the case runs (what earlier cases wrote)

    def describe(self) -> str:
        return f"seed {self.seed} case {self.index}: sitegen {' '.join(self.argv)}; {self.target}: {'; '.join(self.mutations)}"


def command(rng: random.Random) -> list[str]:
    r = rng.random()
    if r < 0.02:
        return ["build", "-q", "-d", "{site}"]
    if r < 0.08:
        return ["summary", "--format", rng.choice(("json", "markdown", "text"))]
    return ["check", "-q"] + (["--strict"] if rng.random() < 0.1 else [])


def files_of(receipt: Any, top: dict, options: dict | None, tail: str, pages: dict[str, str]) -> dict[str, bytes]:
    return {CONFIG: config_text(top, options, tail).encode(), RECEIPT: (to_json(receipt) + "\n").encode(),
            **{name: text.encode("utf-8", "surrogatepass") for name, text in pages.items()}}


def base_pages(seed_receipt: str) -> dict[str, str]:
    return {PAGES[0]: INDEX, PAGES[1]: GUIDE, **({LEDE: EXAMPLE_LEDE} if seed_receipt == "example" else {})}


def base_files(seed_receipt: str) -> dict[str, bytes]:
    """The project every case of this receipt starts from, unmutated."""
    return files_of(RECEIPTS[seed_receipt], TOP, OPTIONS, "", base_pages(seed_receipt))


def make_case(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:{index}")
    seed_receipt = "example" if rng.random() < 0.1 else "new"  # the example has every section, and costs twice as much
    receipt = json.loads(RECEIPT_TEXTS[seed_receipt])  # a fresh copy, faster than deepcopy
    top, options, tail = dict(TOP), dict(OPTIONS), ""
    pages = base_pages(seed_receipt)
    extra_files: dict[str, bytes] = {}
    # Pages are checked last, after every report page is made: their cases cost the most.
    target = rng.choices(("receipt", "config", "page"), weights=(68, 26, 6))[0]
    rounds = 1 if rng.random() < 0.8 else 2
    mutations: list[str] = []
    as_bytes = rng.random() < 0.2  # the last step is then a byte-level change of the file
    for _ in range(rounds):
        if target == "receipt":
            mutations.append(mutate_receipt(receipt, rng))
        elif target == "config":
            top, options, tail, what = mutate_config(top, options, tail, rng)
            mutations.append(what)
        elif rng.random() < 0.05:
            name = rng.choice(ODD_PAGE_NAMES)
            extra_files[name] = GUIDE.encode()
            mutations.append(f"the guide copied to {name!r}")
        else:
            page = rng.choice(sorted(pages))
            pages[page], what = mutate_page(pages[page], rng)
            mutations.append(f"{page} {what}")
    files = {**files_of(receipt, top, options, tail, pages), **extra_files}
    name = {"receipt": RECEIPT, "config": CONFIG}.get(target) or rng.choice(sorted(pages))
    if as_bytes:
        files[name], what = mutate_bytes(files[name], rng)
        mutations.append(f"{name} bytes: {what}" if target == "page" else f"bytes: {what}")
    label = {"receipt": f"{RECEIPT} (from the {seed_receipt} receipt)", "config": CONFIG}.get(target, "pages")
    return Case(seed, index, label, mutations, files, command(rng))


def cases(seed: int, count: int, start: int = 0):
    for i in range(start, start + count):
        yield make_case(seed, i)


# -- import sources --------------------------------------------------------------------------------
# A small ledger (three protocols, two runs each, their configs, comparisons and citation) and a small
# study, made here so that every import case starts from valid sources whatever is installed; their
# summaries are computed here from their rows, independently of the importers, as the harnesses do.
LEDGER_DIR = "ledger"
STUDY_FILE = "study/comparison.json"
IMPORT_OUT = "data/out"


def _ledger_config(name: str, version: str, spec: bool = True) -> dict:
    return {"id": name, "model": {"repo": "org/model", "revision": "abc123", "quant": "q4", "label": "4bpw"},
            "engine": {"name": "engine", "built_on": "vLLM", "version": version, "image": "ghcr.io/x/engine@sha256:" + "0" * 64,
                       "patches": [], "series": "engine 1"},
            "serving": {"speculative": {"method": "d", "label": "Draft", "tokens": 3} if spec else
                        {"method": "none", "label": None, "tokens": 0}, "tp": 2},
            "hardware": {"gpus": "2x GPU", "driver": "1.0"}, "notes": "fuzz"}


def _median(values: list[float]) -> float:
    s = sorted(values)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def _probe_run(shift: float) -> tuple[list[dict], dict]:
    rows, batches = [], {}
    for b, (conc, temp) in enumerate(((1, 0.0), (4, 1.0))):
        name = f"batch{b}"
        reqs = [{"kind": "request", "batch": name, "doc_id": i, "tokens": 100 + 10 * i, "decode_tok_s": 50.0 + i + shift,
                 "ttft_s": round(0.1 + 0.01 * i, 3)} for i in range(3)]
        spec = {"accepted": 600.0, "drafted": 900.0, "drafts": 300}
        batch = {"kind": "batch", "batch": name, "concurrency": conc, "max_tokens": 256, "temperature": temp,
                 "wall_s": 4.0 + b, "spec": spec}
        rows += reqs + [batch]
        batches[name] = {"median_decode_tok_s": round(_median([r["decode_tok_s"] for r in reqs]), 3),
                         "aggregate_tok_s": round(sum(r["tokens"] for r in reqs) / batch["wall_s"], 1),
                         "median_ttft_s": round(_median([r["ttft_s"] for r in reqs]), 3),
                         "acceptance_rate": round(spec["accepted"] / spec["drafted"], 4)}
    return rows, {"batches": batches}


def _tool_run(points: list[list[int]]) -> tuple[list[dict], dict]:
    rows = [{"rep": rep, "scenario_id": f"s{i}", "points": p} for rep, reps in enumerate(points, 1) for i, p in enumerate(reps)]
    reps = {str(rep): {"points": sum(ps), "max_points": 2 * len(ps)} for rep, ps in enumerate(points, 1)}
    return rows, {"reps": reps}


def _ledger_ci(correct: list[bool]) -> list[float]:
    """The ledger's own interval of a run's accuracy (its SCHEMA.md): 2,000 resamples of the
    questions by Python's random.Random(0), the 2.5th and 97.5th percentiles, 4 digits."""
    rng, means = random.Random(0), []
    ids = list(range(len(correct)))
    for _ in range(2000):
        pick = [correct[rng.choice(ids)] for _ in ids]
        means.append(sum(pick) / len(pick))
    means.sort()
    return [round(means[50], 4), round(means[1949], 4)]


def _gpqa_run(correct: list[bool]) -> tuple[list[dict], dict]:
    rows = [{"doc_id": i, "pass": 1, "seed": 1234, "correct_flexible": c, "correct_stated": c, "correct_strict": False,
             "empty": False, "prompt_hash": f"p{i}", "target_hash": f"t{i}"} for i, c in enumerate(correct)]
    acc = round(sum(correct) / len(correct), 4)
    return rows, {"samples": len(rows), "questions": len(rows), "accuracy_flexible": acc, "accuracy_flexible_ci95": _ledger_ci(correct),
                  "accuracy_stated": acc, "accuracy_stated_ci95": _ledger_ci(correct)}


LEDGER_RUNS = {  # run id -> (protocol, config, date, rows and summary)
    "2026-01-02_probe-a": ("serving-probe/v1", "f/a", "2026-01-02", _probe_run(0.0)),
    "2026-01-03_probe-b": ("serving-probe/v1", "f/b", "2026-01-03", _probe_run(7.5)),
    "2026-01-02_tool-a": ("tool-eval-bench/v1", "f/a", "2026-01-02", _tool_run([[2, 1, 0], [2, 2, 1]])),
    "2026-01-03_tool-b": ("tool-eval-bench/v1", "f/b", "2026-01-03", _tool_run([[2, 2, 0], [1, 2, 2]])),
    "2026-01-02_gpqa-a": ("gpqa-diamond/v1", "f/a", "2026-01-02", _gpqa_run([True, False, True, True, False, True, True, False])),
    "2026-01-03_gpqa-b": ("gpqa-diamond/v1", "f/b", "2026-01-03", _gpqa_run([True, True, True, False, False, True, True, True])),
}
COMPARISONS = {"probe": ["2026-01-02_probe-a", "2026-01-03_probe-b"], "tool": ["2026-01-02_tool-a", "2026-01-03_tool-b"],
               "gpqa": ["2026-01-02_gpqa-a", "2026-01-03_gpqa-b"]}
CITATION = ('cff-version: 1.2.0\ntitle: "Fuzz receipts"\nauthors:\n  - alias: "someone"\nlicense: CC-BY-4.0\n'
            'repository-code: "https://github.com/example/receipts"\n')


def ledger_trees() -> dict[str, Any]:
    """The ledger's files as trees (JSON documents), row lists (JSONL) or text, by path."""
    out: dict[str, Any] = {f"{LEDGER_DIR}/configs/f/a.json": _ledger_config("f/a", "v1.0"),
                           f"{LEDGER_DIR}/configs/f/b.json": _ledger_config("f/b", "v1.1")}
    for run, (protocol, config, date, (rows, summary)) in LEDGER_RUNS.items():
        base = f"{LEDGER_DIR}/runs/{run}"
        out[f"{base}/run.json"] = {"id": run, "config": config, "protocol": protocol, "date": date,
                                   "software": {"harness": "fuzz-harness 1.0"}, "notes": ""}
        out[f"{base}/summary.json"] = summary
        out[f"{base}/results.jsonl"] = rows
    for cid, runs in COMPARISONS.items():
        out[f"{LEDGER_DIR}/comparisons/{cid}/comparison.json"] = {"id": cid, "runs": runs, "question": f"Is b better ({cid})?",
                                                               "varies": ["engine.version", "model"], "comparable": True}
    out[f"{LEDGER_DIR}/CITATION.cff"] = CITATION
    return out


def _launch_summary(values: list[float]) -> dict:
    return {"median": _median(values), "min": min(values), "max": max(values), "samples": values}


def study_tree() -> dict:
    arms = {"D": {"FP8": "off", "HEAD": "off"}, "F": {"FP8": "row128", "HEAD": "on"}}
    measurements, comparison = {}, {}
    for layout, scale in (("min", 1.0), ("max", 1.5)):
        per_arm = {}
        for arm, gain in (("D", 1.0), ("F", 1.1)):
            launches = [{"readiness_s": 60.0 + i, "c1_tps": round(40.0 * scale * gain + i, 2), "prefill_ttft_s": 1.5 - 0.1 * i}
                        for i in range(3)]
            top1 = 0.95 if arm == "D" else 0.945
            per_arm[arm] = {"launches": launches,
                            "summary": {k: _launch_summary([launch[k] for launch in launches]) for k in launches[0]},
                            "quality": {"status": "pass", "checks": [{"id": "fidelity", "title": "Fidelity",
                                                                      "metrics": {"kl": 0.1, "kl_max": 0.15, "top1": top1, "top1_min": 0.9}}]}}
        measurements[layout] = per_arm
        comparison[layout] = {"top1_drop_percentage_points": (0.95 - 0.945) * 100}
    return {"schema": "cuteafd.glmf-fp8-recheck.v1", "date": "2026-01-04",
            "conditions": {"engine_commit": "45955d81bfa6", "checkpoint": "org/GLM-Flash", "checkpoint_revision": "abc",
                           "arms": arms, "decision_rule": {"max_top1_drop_points": 1.0, "speed": "5% better"}},
            "measurements": measurements, "comparison": comparison, "limitations": ["One machine."]}


LEDGER_TREES = ledger_trees()
LEDGER_TEXTS = {name: json.dumps(tree) for name, tree in LEDGER_TREES.items() if not isinstance(tree, (str, list))}
STUDY_TEXT = json.dumps(study_tree())
IMPORT_CONFIG = "site_name: Imports\nplugins:\n  - sitegen:\n      data_dir: data\n"

# Names where an id or a path is expected: each must be refused as an id, or found and imported.
ODD_IDS = ["../runs/2026-01-03_probe-b", "/etc/passwd", "2026-01-03_probe-b/../2026-01-03_probe-b", "a b", "", ".x", "x\\y",
           "missing", "2026-01-03_tool-b", "2026-01-03_gpqa-b", "é", "a" * 300, "-x", "..", "~", "a\x00b", "\ud800"]
ODD_CONFIGS = ["f/../f/b", "../runs/2026-01-03_probe-b/summary", "/etc/passwd", "f//b", "f/b/", "f", "f/missing", "a b",
               "f/b.json", "", "~/x", "f\\b"]
ODD_OUTPUTS = ["data", "data/sub/out", "elsewhere/out", "data/.out", "data/a b", "data/../out", "out", "data/out/"]


def _import_command(rng: random.Random, study: bool) -> list[str]:
    if study:
        argv = ["import", "cuteafd-study", STUDY_FILE]
        if rng.random() < 0.1:
            argv += ["--baseline", rng.choice(("D", "F", "X")), "--candidate", rng.choice(("F", "D", ""))]
    else:
        argv = ["import", "ledger", LEDGER_DIR]
        cid = rng.choice(sorted(COMPARISONS))
        if rng.random() < 0.5:
            argv += ["--comparison", cid]
        else:
            argv += ["--baseline", COMPARISONS[cid][0], "--candidate", COMPARISONS[cid][1]]
        if rng.random() < 0.1:
            argv += ["--allow", rng.choice(("questions", "comparable", "protocol", "model.revision"))]
    if rng.random() < 0.1:
        argv += ["--attribution", rng.choice(TEXTS)]
    return argv + ["-o", IMPORT_OUT, "-q"]


def _mutate_rows(rows: list[dict], rng: random.Random) -> str:
    """One change of a JSONL file's rows, in place; returns what it did."""
    if not rows:
        return "no rows left"
    op = rng.choice(("row", "row", "row", "delete", "duplicate", "swap", "empty_row"))
    i = rng.randrange(len(rows))
    if op == "delete":
        del rows[i]
        return f"row {i + 1} deleted"
    if op == "duplicate":
        rows.insert(i, copy.deepcopy(rows[i]))
        return f"row {i + 1} repeated"
    if op == "swap":
        j = rng.randrange(len(rows))
        rows[i], rows[j] = rows[j], rows[i]
        return f"rows {i + 1} and {j + 1} swapped"
    if op == "empty_row":
        rows[i] = {}
        return f"row {i + 1} emptied"
    return f"row {i + 1}: " + mutate_receipt(rows[i], rng)


def _import_files(trees: dict[str, Any], study: str, rows_raw: dict[str, str] | None = None,
                  touched: set[str] | None = None) -> dict[str, bytes]:
    """The case's files; a tree not in `touched` (None: every tree may be) is the ledger's own, and
    its bytes are those written for it once (`_pristine`): `to_json` of every tree took a third of
    the import cases' time."""
    files = {CONFIG: IMPORT_CONFIG.encode(), STUDY_FILE: study.encode("utf-8", "surrogatepass")}
    for name, tree in trees.items():
        if touched is not None and name not in touched:
            files[name] = _pristine()[name]
            continue
        if isinstance(tree, str):
            data = tree
        elif isinstance(tree, list):
            data = (rows_raw or {}).get(name) or "".join(to_json(row) + "\n" for row in tree)
        else:
            data = to_json(tree)
        files[name] = data.encode("utf-8", "surrogatepass")
    return files


@cache
def _pristine() -> dict[str, bytes]:
    """Each ledger file's bytes as `_import_files` writes its tree unmutated."""
    return _import_files({name: (json.loads(LEDGER_TEXTS[name]) if name in LEDGER_TEXTS else copy.deepcopy(tree))
                          for name, tree in LEDGER_TREES.items()}, "")


@cache
def _pristine_study() -> str:
    return to_json(json.loads(STUDY_TEXT))


def make_import_case(seed: int, index: int, study: bool | None = None) -> Case:
    """An import case: the ledger or the study (`study` True or False: that one), one or two mutations
    of one source file (its tree, its rows, its bytes), of an id or of `-o`; `sitegen import` must end
    in a receipt sitegen accepts or one `Error:` line."""
    rng = random.Random(f"import:{seed}:{index}")
    study_case = rng.random() < 0.3
    study_case = study_case if study is None else study
    trees = dict(LEDGER_TREES)  # the ledger's own trees, each copied before a mutation changes it (`own`)
    study = json.loads(STUDY_TEXT)
    argv = _import_command(rng, study_case)
    mutations: list[str] = []
    touched: set[str] = set()  # the trees a mutation changed

    def own(name: str) -> Any:
        if name not in touched:
            tree = LEDGER_TREES[name]
            trees[name] = json.loads(LEDGER_TEXTS[name]) if name in LEDGER_TEXTS else copy.deepcopy(tree)
            touched.add(name)
        return trees[name]

    target = STUDY_FILE if study_case else rng.choice(sorted(trees))
    as_bytes = rng.random() < 0.15
    for _ in range(1 if rng.random() < 0.8 else 2):
        r = rng.random()
        if r < 0.08:
            odd = rng.choice(ODD_OUTPUTS)
            argv[argv.index("-o") + 1] = odd
            mutations.append(f"-o {odd!r}")
        elif r < 0.16 and not study_case and any(a in argv for a in ("--comparison", "--baseline", "--candidate")):
            flag = rng.choice([a for a in ("--comparison", "--baseline", "--candidate") if a in argv])
            odd = rng.choice(ODD_IDS)
            at = argv.index(flag)
            argv[at:at + 2] = [f"{flag}={odd}"]  # `=`: a value starting with '-' reaches the importer, not argparse
            mutations.append(f"{flag} {short(odd)}")
        elif r < 0.22 and not study_case:
            run = rng.choice(sorted(LEDGER_RUNS))
            odd = rng.choice(ODD_CONFIGS)
            target = f"{LEDGER_DIR}/runs/{run}/run.json"
            own(target)["config"] = odd
            mutations.append(f"{target}: config {odd!r}")
        elif study_case:
            mutations.append(mutate_receipt(study, rng))
        elif isinstance(trees[target], list):
            mutations.append(f"{target} " + _mutate_rows(own(target), rng))
        elif isinstance(trees[target], dict):
            mutations.append(f"{target} " + mutate_receipt(own(target), rng))
        else:
            mutations.append(f"{target} left for its bytes")
            as_bytes = True
    files = _import_files(trees, to_json(study) if study_case else _pristine_study(), touched=touched)
    if as_bytes:
        files[target], what = mutate_bytes(files[target], rng)
        mutations.append(f"{target} bytes: {what}")
    return Case(seed, index, target, mutations, files, argv, fresh=("data", "elsewhere", "out"))


def import_cases(seed: int, count: int, start: int = 0):
    for i in range(start, start + count):
        yield make_import_case(seed, i)


# -- serving and accuracy importers: vllm-bench (vLLM JSON, SGLang JSONL), guidellm, lm-eval -------------
def _vllm_run(seed: int, rate: Any, n: int = 12) -> dict:
    """A vLLM result (the older key set, as the llm-k8s files) whose figures agree with its rows."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ttft = rng.uniform(0.03, 0.2, n)
    itls = [list(rng.uniform(0.01, 0.05, int(k))) for k in rng.integers(1, 8, n)]
    out = np.array([len(x) + 1 for x in itls])
    inputs = [int(x) for x in np.random.default_rng(99).integers(10, 400, n)]
    lat = ttft + np.array([sum(x) for x in itls])
    tpot = (lat - ttft) / (out - 1)
    gaps = np.concatenate([np.array(x) for x in itls])
    duration = float(lat.max() + 2.0)
    rec = {"date": "20260105-101010", "backend": "vllm", "model_id": "org/model", "tokenizer_id": "org/model",
           "num_prompts": n, "request_rate": rate, "burstiness": 1.0, "max_concurrency": None, "duration": duration,
           "completed": n, "total_input_tokens": int(sum(inputs)), "total_output_tokens": int(out.sum()),
           "request_throughput": n / duration, "output_throughput": float(out.sum()) / duration,
           "total_token_throughput": float(sum(inputs) + out.sum()) / duration,
           "input_lens": inputs, "output_lens": out.tolist(), "ttfts": ttft.tolist(), "itls": itls,
           "generated_texts": ["t"] * n, "errors": [""] * n}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("itl", gaps)):
        rec[f"mean_{name}_ms"] = float(x.mean()) * 1000
        rec[f"median_{name}_ms"] = float(np.median(x)) * 1000
        rec[f"std_{name}_ms"] = float(x.std()) * 1000
        rec[f"p99_{name}_ms"] = float(np.percentile(x, 99)) * 1000
    return rec


def _sglang_line(seed: int, rate: Any, n: int = 10) -> dict:
    """An SGLang bench_serving line of the newest key set (arrays under `details`)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ttft = rng.uniform(0.05, 0.3, n)
    itls = [list(rng.uniform(0.01, 0.03, int(k))) for k in rng.integers(1, 8, n)]
    out = [len(x) + 1 for x in itls]
    lat = ttft + np.array([sum(x) for x in itls])
    gaps = np.concatenate([np.array(x) for x in itls])
    duration = float(lat.max() + 1.0)
    return {"backend": "sglang", "dataset_name": "random", "request_rate": rate, "max_concurrency": 16,
            "random_input_len": 512, "random_output_len": 64, "random_range_ratio": 0.0, "duration": duration,
            "completed": n, "total_input_tokens": 512 * n, "total_output_tokens": int(sum(out)),
            "request_throughput": n / duration, "output_throughput": sum(out) / duration,
            "mean_e2e_latency_ms": float(lat.mean()) * 1000, "median_e2e_latency_ms": float(np.median(lat)) * 1000,
            "median_ttft_ms": float(np.median(ttft)) * 1000, "max_itl_ms": float(gaps.max()) * 1000,
            "server_info": {"version": "0.5.23"},
            "details": {"input_lens": [512] * n, "output_lens": out, "ttfts": [float(x) for x in ttft], "itls": itls,
                        "generated_texts": ["x"] * n, "errors": [""] * n}}


def _lm_eval_run(seed: int, stamp: str, shots: int, n: int = 16) -> dict[str, Any]:
    """An lm-evaluation-harness results file and its samples (JSON lines), figures that agree."""
    import math as _math

    rng = random.Random(seed)
    acc = [float(rng.random() < 0.6 + 0.1 * shots / 5) for _ in range(n)]
    mean = sum(acc) / n
    sd = _math.sqrt(sum((a - mean) ** 2 for a in acc) / (n - 1))
    results = {"results": {"t1": {"alias": "t1", "acc,none": mean, "acc_stderr,none": sd / _math.sqrt(n)}},
               "group_subtasks": {"t1": []}, "configs": {"t1": {"task": "t1", "num_fewshot": shots}},
               "versions": {"t1": 1.0}, "n-shot": {"t1": shots}, "higher_is_better": {"t1": {"acc": True}},
               "n-samples": {"t1": {"original": n, "effective": n}},
               "config": {"model": "hf", "model_args": "pretrained=org/model,dtype=bfloat16", "batch_size": 1},
               "git_hash": "39e1394", "date": 1718630000.0 + seed, "model_name": "org/model"}
    samples = [{"doc_id": i, "doc": {"q": f"question {i}"}, "target": "A", "doc_hash": f"{i:064x}",
                "prompt_hash": f"{i + 1:064x}", "filter": "none", "acc": acc[i]} for i in range(n)]
    return {f"eval/{stamp}/results_{stamp}.json": results, f"eval/{stamp}/samples_t1_{stamp}.jsonl": samples}


GUIDELLM_FIXTURES = ROOT / "tests" / "fixtures" / "guidellm"


@cache
def serving_sources() -> dict[str, tuple[dict[str, str], list[str]]]:
    """Per importer: its unmutated source files (path -> JSON text, a `.jsonl` file one row a line) and
    the command that imports them."""
    def text(tree: Any) -> str:
        return to_json(tree)

    def rows(items: list) -> str:
        return "".join(to_json(r) + "\n" for r in items)

    vllm = {f"runs/{side}/run_qps_{rate}.json": text(_vllm_run(seed + (0 if rate == 1.0 else 10), rate))
            for side, seed in (("base", 1), ("cand", 2)) for rate in (1.0, "inf")}
    sglang = {"runs/sglang.jsonl": "".join(to_json(_sglang_line(i, r)).replace('"INF"', "Infinity") + "\n"
                                           for i, r in enumerate(("INF", 4.0)))}
    guidellm = {f"gl/{side}/benchmarks.json": (GUIDELLM_FIXTURES / side / "benchmarks.json").read_text(encoding="utf-8")
                for side in ("baseline", "candidate")}
    lm: dict[str, str] = {}
    for stamp, seed, shots in (("2024-06-17T15-44-37.867068", 1, 0), ("2024-06-17T12-20-26.826621", 2, 5)):
        for name, value in _lm_eval_run(seed, stamp, shots).items():
            lm[name] = rows(value) if name.endswith(".jsonl") else text(value)
    b, c = sorted(n for n in lm if "/results_" in n)
    formats = ROOT / "tests" / "fixtures" / "formats"
    sweep = "SERVE-max_num_seqs=32-BENCH-request_rate=2"
    llmperf, aiperf = _folder(formats / "llmperf/tgi/c4", "llm/c4"), _folder(formats / "aiperf/aiperf/c4", "ai/c4")
    genai, vsweep = _folder(formats / "aiperf/genai-perf/c4", "gp/c4"), _folder(formats / "vllm-sweep/sweep" / sweep, f"sw/{sweep}")
    dated = ["--set-candidate", "date=2025-01-01"]
    return {
        "vllm-bench": (vllm, ["import", "vllm-bench", "--baseline", *sorted(n for n in vllm if "/base/" in n),
                              "--candidate", *sorted(n for n in vllm if "/cand/" in n)]),
        "sglang": (sglang, ["import", "vllm-bench", "--candidate", "runs/sglang.jsonl", "--set-candidate", "date=2026-01-02",
                            "--set-candidate", "model=org/model"]),
        "guidellm": (guidellm, ["import", "guidellm", "--baseline", "gl/baseline/benchmarks.json",
                                "--candidate", "gl/candidate/benchmarks.json"]),
        "lm-eval": (lm, ["import", "lm-eval", "--baseline", b, "--candidate", c]),
        "vllm-study": (vllm, ["import", "vllm-bench", "--setup", "base=" + sorted(n for n in vllm if "/base/" in n)[0],
                              *sorted(n for n in vllm if "/base/" in n)[1:],
                              "--setup", "cand=" + sorted(n for n in vllm if "/cand/" in n)[0],
                              *sorted(n for n in vllm if "/cand/" in n)[1:], "--baseline", "base"]),
        "llmperf": (llmperf, ["import", "llmperf", "--candidate", "llm/c4", *dated]),
        "aiperf": (aiperf, ["import", "aiperf", "--candidate", "ai/c4", *dated]),
        "genai-perf": (genai, ["import", "genai-perf", "--candidate", "gp/c4", *dated]),
        "vllm-sweep": (vsweep, ["import", "vllm-sweep", "--candidate", f"sw/{sweep}", *dated]),
    }


def _folder(folder: Path, name: str) -> dict[str, str]:
    """A fixture folder's files as a case's sources under `name`."""
    return {f"{name}/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()}


SERVING_FORMATS = ("vllm-bench", "vllm-study", "sglang", "guidellm", "lm-eval", "llmperf", "aiperf", "genai-perf",
                   "vllm-sweep")
# Values an importer's source may hold that crashed imports once (issue 50): nesting deeper than any
# parser's recursion, integers past 2^64, a lone surrogate, a NUL, text where a number or an object goes.
SOURCE_VALUES = [Raw("[" * 5000 + "]" * 5000), Raw('{"a": ' * 3000 + "1" + "}" * 3000), 10 ** 20, 2 ** 64, 10 ** 30,
                 -(10 ** 20), 1e300, -1e300, 5e-324, "\ud800", "a\x00b", "x" * 5000, [], {}, [[]], "1", "inf", None,
                 True, [1, "a", None], {"timings": "x"}, Raw("1" * 400)]


def _source_value(rng: random.Random, like: Any) -> Any:
    if rng.random() < 0.35:
        return copy.deepcopy(rng.choice(SOURCE_VALUES))
    return json_value(rng, like)


def mutate_source(tree: Any, rng: random.Random) -> str:
    """One change of an importer's source tree, in place: as a receipt's (`mutate_receipt`), or an
    odd value of SOURCE_VALUES set at a path."""
    if rng.random() < 0.6 or not isinstance(tree, (dict, list)):
        return mutate_receipt(tree, rng) if isinstance(tree, dict) else "unchanged"
    path = pick(tree, rng)
    if not path:
        return "unchanged (nothing left to pick)"
    value = _source_value(rng, get(tree, path))
    put(tree, path, value)
    return f"{json_path(path)} = {short(value)}"


def make_serving_case(seed: int, index: int, fmt: str | None = None) -> Case:
    """An import case of a serving or accuracy importer: one or two mutations of one of its source
    files (its tree, one of its rows, its bytes); `sitegen import` must end in a receipt sitegen
    accepts or one `Error:` line."""
    rng = random.Random(f"serving:{fmt or ''}:{seed}:{index}")
    fmt = fmt or rng.choice(SERVING_FORMATS)
    sources, argv = serving_sources()[fmt]
    target = rng.choice(sorted(sources))
    mutations: list[str] = []
    is_json = target.endswith((".json", ".jsonl"))
    data: Any = None if not is_json else json.loads(sources[target]) if not target.endswith(".jsonl") else \
        [json.loads(line) for line in sources[target].splitlines() if line.strip()]
    as_bytes = rng.random() < 0.15 or not is_json  # a CSV: its bytes
    for _ in range(1 if rng.random() < 0.75 else 2):
        if not is_json:
            break
        if isinstance(data, list) and target.endswith(".jsonl"):
            if rng.random() < 0.5 and data:
                i = rng.randrange(len(data))
                mutations.append(f"row {i + 1}: " + mutate_source(data[i], rng))
            else:
                mutations.append(_mutate_rows(data, rng))
        else:
            mutations.append(mutate_source(data, rng))
    text = sources[target] if not is_json else "".join(to_json(r) + "\n" for r in data) if target.endswith(".jsonl") \
        else to_json(data)
    if fmt == "sglang":
        text = text.replace('"INF"', "Infinity")
    files = {CONFIG: IMPORT_CONFIG.encode(), **{n: t.encode("utf-8", "surrogatepass") for n, t in sources.items()}}
    files[target] = text.encode("utf-8", "surrogatepass")
    if as_bytes:
        files[target], what = mutate_bytes(files[target], rng)
        mutations.append(f"bytes: {what}")
    extra = ["--attribution", rng.choice(TEXTS)] if rng.random() < 0.05 else []
    return Case(seed, index, target, mutations, files, [*argv, *extra, "-o", IMPORT_OUT, "-q"], fresh=("data",))


def serving_cases(seed: int, count: int, start: int = 0, fmt: str | None = None):
    for i in range(start, start + count):
        yield make_serving_case(seed, i, fmt)


# -- docs pages' nesting -------------------------------------------------------------------------------
def nesting(rng: random.Random) -> str:
    """Lists, quotes, brackets, links and tags nested or left open, around the bounds of the guards."""
    n = rng.choice((3, 16, 49, 50, 51, 120, 300, 2000))
    kind = rng.choice(("list", "quote", "quote_lines", "indent", "mixed", "brackets", "open", "links", "tags", "headings",
                       "admonition", "footnote", "ordered"))
    if kind == "list":
        return "\n".join("    " * i + "- item" for i in range(n))
    if kind == "ordered":
        return "\n".join("    " * i + f"{i + 1}. item" for i in range(n))
    if kind == "quote":
        return ">" * n + " quoted"
    if kind == "quote_lines":
        return "\n".join("> " * i + "line" for i in range(1, n))
    if kind == "indent":
        return " " * (4 * n) + "code"
    if kind == "mixed":
        return "\n".join(("> " * (i // 2)) + "    " * (i % 2) + "- x" for i in range(n))
    if kind == "brackets":
        return "[" * n + "x" + "](y)" * n
    if kind == "open":
        return "text " + "[" * (n * 10)
    if kind == "links":
        return "[a](" * (n * 3)
    if kind == "tags":
        return "<a " * (n * 4)
    if kind == "headings":
        return "para\n# h\n" * n
    if kind == "footnote":
        return "[^" * (n * 5)
    return "\n".join("    " * i + "!!! note" for i in range(min(n, 300))) + "\n" + "    " * min(n, 300) + "x"


# -- running a case --------------------------------------------------------------------------------------
class Hang(BaseException):
    """Raised by a timer in the middle of a case that ran over its bound of CPU time (or that waited
    on something, using no CPU, for ten times as long on the wall clock).

    A BaseException, so that `except Exception` in sitegen (the CLI's internal-error handler)
    does not turn it into exit 2.
    """


@dataclass
class Outcome:
    case: Case
    code: int | None         # None: it did not return (a hang, or an exception out of main)
    output: str              # stderr, then stdout
    seconds: float
    failure: str = ""        # why the oracle refuses it; "" when it holds
    where: str = ""          # for grouping failures: exception type and innermost sitegen frame

    def tail(self, lines: int = 3) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:])


_FRAME = re.compile(r'File "([^"]*?/site_gen/[^"]+)", line (\d+)')


def _project_frame(frames: list[tuple[str, int]]) -> str:
    """The innermost frame in sitegen's code or templates, as `site_gen/x.py:12`."""
    for filename, line in reversed(frames):
        path = Path(filename).resolve()
        if ROOT in path.parents and path.relative_to(ROOT).parts[0] in ("site_gen",):
            return f"{path.relative_to(ROOT)}:{line}"
        if "site_gen" in path.parts:  # an installed copy
            return f"{Path(*path.parts[path.parts.index('site_gen'):])}:{line}"
    return "?"


class Fuzzer:
    """Runs cases in-process, in a fresh project folder each, under a per-case bound of CPU seconds
    (ITIMER_PROF: a case that computes too long is a hang, however loaded the machine), and ten
    times that on the wall clock for a case that waits without computing (ITIMER_REAL)."""

    WAITING = 10  # the wall clock's bound, in bounds of CPU time

    def __init__(self, workdir: Path, bound: float = 10.0):
        self.workdir = Path(workdir)
        self.bound = bound

    def __enter__(self) -> Fuzzer:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the fuzzer's bounds need SIGPROF and SIGALRM, which only the main thread receives")
        self._cwd = os.getcwd()
        self._written: set[Path] = set()
        self._contents: dict[Path, bytes] = {}
        self._armed_until = 0.0  # when faulthandler's last resort ends the process (_last_resort)
        self._alarm = signal.signal(signal.SIGALRM, self._on_alarm)
        self._prof = signal.signal(signal.SIGPROF, self._on_alarm)
        # The command-line parser (~10 ms) is a pure function of sitegen's code: made once, not per case.
        self._saved = cli.parser
        the_parser = cli.parser()
        cli.parser = lambda argv=None: the_parser
        return self

    def __exit__(self, *exc) -> None:
        cli.parser = self._saved
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, self._alarm)
        signal.signal(signal.SIGPROF, self._prof)
        os.chdir(self._cwd)

    @staticmethod
    def _on_alarm(signum, frame):
        raise Hang()

    def _write(self, case: Case) -> Path:
        """The case's files and no others (the files of the last case are removed; removing and
        making folders again is slow on some file systems, so the shared ones stay)."""
        project = self.workdir / "project"
        paths = {project / name for name in case.files}
        kept = {folder for p in paths for folder in p.parents}  # once, not per removed file and folder
        for path in self._written - paths:
            path.unlink()
            for folder in path.parents:
                if folder == project or folder in kept or any(folder.iterdir()):
                    break
                folder.rmdir()
        for name, data in case.files.items():
            path = project / name
            if path in self._written and self._contents.get(path) == data:
                continue  # as the last case left it: an import case's two dozen source files are mostly so
            if path in self._written:
                # A new file, not the last one truncated: ext4 writes a file rewritten in place out at
                # once (auto_da_alloc), ~1 ms a file against ~0.1 ms.
                path.unlink(missing_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self._contents[path] = data
        self._written = paths
        self._contents = {p: d for p, d in self._contents.items() if p in paths}
        if "{site}" in case.argv and (self.workdir / "site").exists():
            shutil.rmtree(self.workdir / "site")
        for name in case.fresh:
            if (project / name).exists():
                shutil.rmtree(project / name)
        return project

    def _main(self, argv: list[str], bound: float | None = None) -> tuple[int | None, str, str]:
        """Runs `sitegen ARGV` within the bound; returns (exit code or None, output, where it stopped)."""
        bound = bound or self.bound
        err, out = io.StringIO(), io.StringIO()
        code, where = None, ""
        self._last_resort(bound * self.WAITING * 6 + 30)
        signal.setitimer(signal.ITIMER_PROF, bound)
        signal.setitimer(signal.ITIMER_REAL, bound * self.WAITING)
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                code = cli.main(argv)
        except Hang as exc:
            where = "hang at " + _project_frame([(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)])
        except BaseException as exc:  # out of main: SystemExit, a BaseException of sitegen's own
            where = f"{type(exc).__name__} out of main at " + _project_frame(
                [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)])
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
        return code, err.getvalue() + out.getvalue(), where

    RE_ARM = 30.0  # seconds: how much later than its own bound a case may be ended by the last resort

    def _last_resort(self, seconds: float) -> None:
        """A last resort if the timers cannot interrupt (a loop in C that never returns to Python):
        faulthandler ends the process `seconds` from now, or up to RE_ARM seconds later. It is armed
        again only when that is needed, not for every case: arming and cancelling starts and joins
        faulthandler's thread, milliseconds a case on a loaded host (a new thread waits for a core)."""
        now = time.monotonic()
        if self._armed_until < now + seconds or self._armed_until > now + seconds + self.RE_ARM:
            faulthandler.dump_traceback_later(seconds + self.RE_ARM / 2, exit=True, file=sys.__stderr__)
            self._armed_until = now + seconds + self.RE_ARM / 2

    def run(self, case: Case) -> Outcome:
        project = self._write(case)
        argv = [a.replace("{site}", str(self.workdir / "site")) for a in case.argv]
        os.chdir(project)
        try:
            start = time.perf_counter()
            code, output, where = self._main(argv)
            outcome = Outcome(case, code, output, time.perf_counter() - start, where=where)
            if code in (130, 143):
                raise KeyboardInterrupt  # Ctrl-C or SIGTERM (sitegen's own handlers took it): stop, not a finding
            outcome.failure = judge(code, output, where)
            if not outcome.failure and code == 0 and argv[:1] == ["import"]:
                outcome.failure = imported_receipt_loads(project, argv)
            if outcome.failure and not where:
                outcome.where = self._locate(argv, outcome)
        finally:
            os.chdir(self._cwd)
        return outcome

    def _locate(self, argv: list[str], outcome: Outcome) -> str:
        """For grouping: the exception type and sitegen frame, from the same case run with --traceback."""
        match = re.search(r"internal error: (\w+)", outcome.output)
        if not match:
            return outcome.failure
        _, output, _ = self._main(["--traceback", *argv], bound=self.bound * 3)  # printing a traceback takes time too
        frames = [(f, int(n)) for f, n in _FRAME.findall(output)]
        return f"{match.group(1)} at {_project_frame(frames)}"


def imported_receipt_loads(project: Path, argv: list[str]) -> str:
    """'' when the receipt an import wrote is one sitegen loads (its bytes, schema and meaning), else why not."""
    from site_gen.core.diagnostics import refuse
    from site_gen.core.errors import SitegenError
    from site_gen.receipts.load import load_report

    out = project / argv[argv.index("-o") + 1]
    try:
        refuse(load_report(out, out.parent).warnings)
    except SitegenError as exc:
        return f"the import wrote a receipt sitegen refuses: {exc}"
    return ""


def judge(code: int | None, output: str, where: str) -> str:
    """The CLI's contract for one run: '' when it holds, else what broke."""
    if code is None:
        return where
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    if "Traceback (most recent call last)" in output:
        return "a traceback in the output"
    if code not in (0, 1):
        return f"exit {code}" + (f": {errors[0][len('Error: '):][:200]}" if errors else "")
    if code == 1 and len(errors) != 1:
        return f"exit 1 with {len(errors)} 'Error:' lines"
    if code == 0 and errors:
        return "exit 0 with an 'Error:' line"
    return ""


def import_kind(argv: list[str]) -> str:
    """The importer a command runs: its format, `sglang` for vllm-bench given SGLang's JSONL."""
    if argv[1] == "vllm-bench" and "--setup" in argv:
        return "vllm-study"
    return "sglang" if argv[1] == "vllm-bench" and any(a.endswith(".jsonl") for a in argv) else argv[1]


# -- totals ------------------------------------------------------------------------------------------
@dataclass
class Totals:
    cases: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    codes: Counter = field(default_factory=Counter)
    by_target: Counter = field(default_factory=Counter)   # (target kind, exit code) -> cases
    failures: list[Outcome] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.cases += 1
        self.seconds += o.seconds
        self.slowest = max(self.slowest, o.seconds)
        self.codes["hang" if o.code is None else o.code] += 1
        kind = (f"import {import_kind(o.case.argv)}" if o.case.argv[:1] == ["import"] else "receipt" if o.case.target.startswith(RECEIPT)
                else "config" if o.case.target == CONFIG else "page")
        self.by_target[kind, "failed" if o.failure else o.code] += 1
        if o.failure:
            self.failures.append(o)

    def line(self) -> str:
        return (f"{self.cases} cases in {self.seconds:.1f} s ({self.cases / max(self.seconds, 1e-9):.0f}/s): "
                f"exit 0: {self.codes[0]}, exit 1: {self.codes[1]}, failed: {len(self.failures)}")

    def groups(self) -> dict[str, list[Outcome]]:
        out: dict[str, list[Outcome]] = {}
        for o in self.failures:
            out.setdefault(o.where or o.failure, []).append(o)
        return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))

    def report(self, per_group: int = 2) -> str:
        """Failures grouped by cause, a few reproducers each: seed, case, mutation, the output's last lines."""
        parts = []
        for where, items in self.groups().items():
            parts.append(f"{len(items)} x {where}")
            for o in items[:per_group]:
                parts.append(f"    {o.case.describe()}")
                parts.append(f"      -> {o.failure}; last lines: " + o.tail().replace("\n", " | ")[:300])
        # Text from the cases may hold lone surrogates, which a terminal cannot be sent.
        return "\n".join(parts).encode("utf-8", "backslashreplace").decode("utf-8")
