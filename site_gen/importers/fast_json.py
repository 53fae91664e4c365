"""JSON text parsed fast, to exactly the value `json.loads` gives, or not at all.

A benchmark's result file is mostly numbers (a vLLM run of 1,000 requests holds ~70,000 inter-token
gaps), which Python's own parser reads at ~70 MB/s; msgspec's reads them ~5 times faster. Where
msgspec cannot promise the same value, `loads` says so and the caller parses with `json` as before,
so its refusals (the file, the place, the message) are unchanged:

- msgspec refuses anything `json.loads` would refuse, and some text that it accepts (a number beyond
  the double range, which `json` reads as infinity; `NaN` and `Infinity`; lone surrogates; more than
  one value, as JSON lines): all left to `json`.
- msgspec keeps the last value of a key given twice in one object, where the importers refuse the
  file: a check of the keys (`_keys_unique`) sends every text that may hold one back to `json`.

Numbers: integers of any size stay integers, and floats are correctly rounded by both (a test
compares them on random texts: tests/test_fast_json.py).
"""
from __future__ import annotations

import re
from typing import Any

# What a JSON text's keys are found in once its numbers, commas, brackets and whitespace are taken out.
_SKELETON_DROP = b"0123456789.eE+-,[] \n\t\r"
_TOKEN = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")(:?)|[{}]')


def _keys_unique(data: bytes) -> bool:
    """True only where no object of the (valid) JSON text holds a key twice.

    The text is first stripped of the bytes a number, a comma, a bracket or whitespace is made of, in
    strings too: two equal keys stay equal, so a key given twice is still found twice (two different
    keys may become equal, `"a1"` and `"a2"`: False, and `json` decides). A key with an escape
    (`"\\u0061"` is `"a"`) is not compared: False."""
    stack: list[set[bytes]] = []
    top: set[bytes] = set()
    for m in _TOKEN.finditer(data.translate(None, _SKELETON_DROP)):
        s = m.group(1)
        if s is None:
            if m.group() == b"{":
                stack.append(top)
                top = set()
            else:
                top = stack.pop()
        elif m.group(2):
            if b"\\" in s or s in top:
                return False
            top.add(s)
    return True


def loads(text: str, keys_unique: bool = False) -> tuple[bool, Any]:
    """(True, the value `json.loads(text)` gives), or (False, None) where the caller must parse the
    text with `json` (msgspec refused it, or a key may be given twice). `keys_unique`: the caller
    knows no key is given twice (a text `json.dumps` wrote from a dict), so they are not checked."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a dependency; its absence only slows the import
        return False, None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escaped from undecodable bytes: json's to read
        return False, None
    try:
        value = msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False, None
    if not keys_unique and b"{" in data and not _keys_unique(data):
        return False, None
    return True, value
