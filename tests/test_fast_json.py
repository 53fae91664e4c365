"""The careful parser's fast path (receipts/parse.py `_msgspec`): where msgspec reads a text, the very
value json.loads gives; where it cannot promise that, json.loads reads it, and every refusal (the
file, the place, the message) is the same with msgspec or without."""
from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc
from site_gen.receipts import parse


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


def both(text: str, **kw):
    """parse_text's outcome with msgspec and without: (value or the refusal's message and place)."""
    def outcome():
        try:
            return exact(parse.parse_text(text, text.encode("utf-8", "surrogatepass"), Path("r.json"), **kw))
        except SitegenError as exc:
            return ("refused", exc.message, exc.where)
    fast = outcome()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(parse, "_msgspec", lambda raw: parse._UNUSUAL)
        slow = outcome()
    return fast, slow


floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
values = st.recursive(
    st.none() | st.booleans() | floats | st.integers(min_value=-(2 ** 60), max_value=2 ** 60) | texts,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(texts, inner, max_size=6), max_leaves=40)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(values, st.sampled_from([None, 1, 2]), st.booleans())
def test_any_json_text_reads_the_same_with_msgspec_or_without(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    fast, slow = both(text)
    assert fast == slow
    if fast[0] != "refused":
        assert fast == exact(json.loads(text))


digits = st.text("0123456789", min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(st.booleans(), digits, st.none() | digits, st.none() | st.tuples(st.sampled_from("eE"), st.sampled_from(["", "+", "-"]),
                                                                     st.integers(0, 330)))
def test_every_number_text_reads_the_same_with_msgspec_or_without(neg, whole, frac, exp):
    whole = whole.lstrip("0") or "0"
    number = ("-" if neg else "") + whole + (f".{frac}" if frac else "") + (f"{exp[0]}{exp[1]}{exp[2]}" if exp else "")
    fast, slow = both(f'{{"x": [{number}]}}')
    assert fast == slow, number


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',                                        # a key twice
    '{"x": [{"b": 1}, {"b": 2, "c": {"d": 0, "d": 0}}]}',     # twice, deep down
    '{"a": 1, "\\u0061": 2}',                                   # the same key, escaped
    '{"p90_ms": 1, "p95_ms": 2, "p99_ms": 3}',                 # keys alike but for their digits: kept
    '{"a": Infinity}', '[NaN]', '[1e400]', '[123456789012345678901]', '[9007199254740993]', '[9007199254740992]',
    '[-9007199254740993]', '{"a": [1.5, 2, {"b": 90071992547409930}]}', "[" + "1" * 400 + "]", "[" + "1" * 400 + ".0]",
    "[" + "1" * 5000 + "]", "[0." + "0" * 400 + "1]", "[1e300, 1E-300, 12345678901234567.5]",
    '["\\ud800"]', '["a\\u0000b"]',                             # a lone surrogate, a control character
    '{"a": 1}\n{"a": 2}\n',                                     # JSON lines
    "[" * 70 + "]" * 70,                                        # deeper than MAX_DEPTH
    '{"a": "x:y", "b": "{", "c": "\\"}"}',                     # colons, brackets and quotes in strings
])
@pytest.mark.parametrize("infinity", [False, True])
def test_texts_msgspec_reads_otherwise_get_the_same_outcome(text, infinity):
    fast, slow = both(text, strings=False, infinity=infinity)
    assert fast == slow


def _src(tmp_path: Path, text: str) -> sc.Source:
    p = tmp_path / "r.json"
    p.write_text(text)
    return sc.read_source(p, tmp_path)


@pytest.mark.parametrize("text, where", [
    ('{"completed": 1, "nested": {"k": 1, "k": 2}}', "$.nested.k"),
    ('{"ok": 1}\n{"k": 1, "k": 2}\n', "line 2 $.k"),
])
def test_a_key_given_twice_is_still_refused_at_its_place(tmp_path, text, where):
    with pytest.raises(SitegenError) as exc:
        sc.json_records(_src(tmp_path, text))
    assert "duplicate key 'k'" in exc.value.message and exc.value.where == where, (exc.value.message, exc.value.where)


def test_a_results_file_reads_the_same_with_msgspec_or_without(tmp_path, monkeypatch):
    text = json.dumps({"request_rate": float("inf"), "ttfts": [0.1, 0.25, 1e-7], "itls": [[0.01, 0.02], []],
                       "p99_ttft_ms": 1.5, "p90_ttft_ms": 1.2, "completed": 3, "details": {"errors": ["", ""]}})
    lines = text + "\n" + json.dumps({"a": [1, 2.5, -0.0]}) + "\n"
    got = [sc.json_records(_src(tmp_path, t), allow_infinity=True) for t in (text, lines)]
    monkeypatch.setattr(parse, "_msgspec", lambda raw: parse._UNUSUAL)
    want = [sc.json_records(_src(tmp_path, t), allow_infinity=True) for t in (text, lines)]
    assert [[(n, exact(v)) for n, v in g] for g in got] == [[(n, exact(v)) for n, v in w] for w in want]
    assert math.isinf(got[0][0][1]["request_rate"])
