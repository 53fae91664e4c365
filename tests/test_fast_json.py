"""The importers' fast JSON path (importers/fast_json.py): the very value `json.loads` gives, or a
refusal that sends the text back to `json` (whose errors the importers report)."""
from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from site_gen.core.errors import SitegenError
from site_gen.importers import fast_json, serving_common as sc


def exact(v):
    """A value with its types and every float's bits spelled out (1 and 1.0, 0.0 and -0.0 differ)."""
    if isinstance(v, float):
        return ("f", struct.pack("<d", v))
    if isinstance(v, bool) or v is None:
        return ("c", v)
    if isinstance(v, int):
        return ("i", v)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, list):
        return ("l", [exact(x) for x in v])
    return ("d", [(k, exact(x)) for k, x in v.items()])  # key order too


floats = st.floats(allow_nan=False, allow_infinity=False)
keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
values = st.recursive(
    st.none() | st.booleans() | floats | st.integers(min_value=-(10 ** 30), max_value=10 ** 30)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(keys, inner, max_size=6), max_leaves=40)


@settings(max_examples=150, deadline=None)
@given(values, st.sampled_from([None, 1, 2]), st.booleans())
def test_any_json_text_gives_what_json_gives(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    fast, got = fast_json.loads(text)
    want = json.loads(text)
    if fast:
        assert exact(got) == exact(want)
    else:
        # Only a text with an escaped key, or two keys that may read alike once their digits are left
        # out, goes back to json.
        dicts = [d for d in _containers(want) if isinstance(d, dict)]
        assert any(len(d) > 1 for d in dicts) or any("\\" in json.dumps(k, ensure_ascii=ascii_only) for d in dicts for k in d)


def _containers(v):
    yield v
    for x in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()):
        yield from _containers(x)


digits = st.text("0123456789", min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(st.booleans(), digits, st.none() | digits, st.none() | st.tuples(st.sampled_from("eE"), st.sampled_from(["", "+", "-"]),
                                                                     st.integers(0, 330)))
def test_every_number_text_reads_to_the_same_float_or_int(neg, whole, frac, exp):
    whole = whole.lstrip("0") or "0"
    text = ("-" if neg else "") + whole + (f".{frac}" if frac else "") + (f"{exp[0]}{exp[1]}{exp[2]}" if exp else "")
    want = json.loads(f"[{text}]")
    fast, got = fast_json.loads(f"[{text}]")
    if not fast:
        assert math.isinf(want[0]), text  # beyond the double range: json reads infinity, msgspec refuses
        return
    assert exact(got) == exact(want), text


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',                          # a key twice
    '{"x": [{"b": 1}, {"b": 2, "c": {"d": 0, "d": 0}}]}',  # twice, deep down
    '{"a": 1, "\\u0061": 2}',                    # the same key, escaped
    '{"a": Infinity}', '[NaN]', '[1e400]',         # json reads them (importers refuse NaN; Infinity where allowed)
    '["\\ud800"]',                                 # a lone surrogate
    '{"a": 1}\n{"a": 2}\n',                        # JSON lines
])
def test_texts_msgspec_would_read_otherwise_go_back_to_json(text):
    assert fast_json.loads(text) == (False, None)


def test_keys_alike_but_for_their_digits_are_read_by_json_and_kept():
    text = '{"p90_ms": 1, "p95_ms": 2, "p99_ms": 3}'
    assert fast_json.loads(text) == (False, None)
    assert fast_json.loads(text, keys_unique=True) == (True, {"p90_ms": 1, "p95_ms": 2, "p99_ms": 3})


def _src(tmp_path: Path, text: str) -> sc.Source:
    p = tmp_path / "r.json"
    p.write_text(text)
    return sc.read_source(p)


@pytest.mark.parametrize("text, where", [
    ('{"completed": 1, "nested": {"k": 1, "k": 2}}', "$"),
    ('{"ok": 1}\n{"k": 1, "k": 2}\n', "line 2"),
])
def test_a_key_given_twice_is_still_refused_at_its_place(tmp_path, text, where):
    with pytest.raises(SitegenError) as exc:
        sc.json_records(_src(tmp_path, text))
    assert "duplicate key 'k'" in exc.value.message and exc.value.where == where


def test_records_read_fast_are_the_records_json_reads(tmp_path, monkeypatch):
    text = json.dumps({"request_rate": float("inf"), "ttfts": [0.1, 0.25, 1e-7], "itls": [[0.01, 0.02], []],
                       "p99_ttft_ms": 1.5, "p90_ttft_ms": 1.2, "completed": 3, "big": 10 ** 25})
    lines = text + "\n" + json.dumps({"a": [1, 2.5, -0.0]}) + "\n"
    got = [sc.json_records(_src(tmp_path, t), allow_infinity=True) for t in (text, lines)]
    monkeypatch.setattr(fast_json, "loads", lambda text, keys_unique=False: (False, None))
    want = [sc.json_records(_src(tmp_path, t), allow_infinity=True) for t in (text, lines)]
    assert [[(n, exact(v)) for n, v in g] for g in got] == [[(n, exact(v)) for n, v in w] for w in want]
