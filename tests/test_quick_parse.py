"""The quick parse (site_gen/receipts/parse.py `_quick`: json.loads' C parser plus checks on the bytes) takes
an ordinary receipt alone, and lets through nothing the careful parse would refuse or mark."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import ROOT
from site_gen.receipts import parse
from site_gen.core.errors import SitegenError

FILE = Path("SUMMARY.json")


def test_the_example_receipt_needs_no_careful_parse():
    raw = (ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_bytes()
    data = parse._quick(raw.decode("utf-8"), raw)
    assert data is not parse._UNUSUAL and data == parse._careful(raw.decode("utf-8"), FILE)[0]


@pytest.mark.parametrize("text, unusual", [
    ('{"a": 1}', False), ('{"a": 1, "a": 2}', True), ('{"a": {"b": 1, "b": 1}}', True), ('{"a": ":", "b": "{"}', False),
    ('{"a": "\\\\", "b": "\\"[:"}', False), ('{"a": 1234567890123456}', True), ('{"a": -1234567890123456}', True),
    ('{"a": 123456789012345}', False), ('[1e400]', True), ('[1.5E+308]', True), ('[1e-400]', False), ('[NaN]', True),
    ('{"h": "3e257"}', False), ('{"h": "af3e257"}', False), ('[0.30000000000000004]', False), ('[1e0309]', True),
    ("[" * 64 + "]" * 64, False), ("[" * 65 + "]" * 65, True), ('{"a": [1,}', True), ("[" * 5000 + "]" * 5000, True),
])
def test_what_the_quick_parse_leaves_to_the_careful_one(text, unusual):
    data = parse._quick(text, text.encode())
    if unusual and data is not parse._UNUSUAL:
        # msgspec's reading, where json.loads' would be left to the careful parse: only a number the
        # careful parse takes too (an integer within 2^53, a finite float), to the same value and type.
        careful, marked = parse._careful(text, FILE)
        assert not marked and repr(careful) == repr(data)  # repr: types and every float's digits
    else:
        assert (data is parse._UNUSUAL) is unusual
    with pytest.MonkeyPatch.context() as m:  # json.loads' quick reading leaves them all to the careful one
        m.setattr(parse, "_msgspec", lambda raw: parse._UNUSUAL)
        assert (parse._quick(text, text.encode()) is parse._UNUSUAL) is unusual


SNIPPETS = [b'"', b"\\", b'\\"', b"\\\\", b"[", b"]", b"{", b"}", b":", b",", b"1e400", b"12345678901234567", b"NaN",
            b'"a":1,', b'"k":2,"k":3,', b"[" * 70, b"]" * 70, b" ", b"e400", b"-"]
SEED = b'{"a":"x\\\\\\"[{:","b":[1,2.5,{"c":"\\\\\\\\"}],"d":{"e":null,"f":true},"g":[[[[{"h":"3e257"}]]]],"n":-12.5e3}'


def test_mutants_the_quick_parse_takes_parse_the_same_carefully():
    rng = random.Random("quick")
    taken = 0
    for _ in range(3000):
        b = bytearray(SEED)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(b) + 1)
            if rng.random() < 0.6:
                b[at:at] = rng.choice(SNIPPETS)
            else:
                del b[at:at + rng.randint(1, 4)]
        raw = bytes(b)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        quick = parse._quick(text, raw)
        if quick is parse._UNUSUAL:
            continue
        taken += 1
        try:
            careful = parse._careful(text, FILE)
        except SitegenError as exc:
            pytest.fail(f"{raw!r}: the quick parse took what the careful one refuses: {exc}")
        assert careful == (quick, False), raw
    assert taken > 100


def _members_and_huge(value) -> tuple[int, bool]:
    """What `_walk` counts, by plain recursion: every object's members, any integer beyond MAX_INT."""
    if isinstance(value, dict):
        parts = [_members_and_huge(v) for v in value.values()]
        return len(value) + sum(m for m, _ in parts), any(h for _, h in parts)
    if isinstance(value, list):
        parts = [_members_and_huge(v) for v in value]
        return sum(m for m, _ in parts), any(h for _, h in parts)
    return 0, type(value) is int and abs(value) > parse.MAX_INT


LEAVES = [0, 1, -1, True, False, None, 1.5, float("nan"), "", "é", "日本", 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1,
          10 ** 30, 2.0 ** 60]


def _tree(rng: random.Random, depth: int):
    roll = rng.random()
    if depth > 5 or roll < 0.4:
        return rng.choice(LEAVES)
    if roll < 0.7:
        return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {f"k{i}": _tree(rng, depth + 1) for i in range(rng.randint(0, 5))}


@pytest.mark.parametrize("value", [1, 2 ** 60, True, "x", None, [], {}, [[]], [{}], {"a": {}}, [1, [2, [2 ** 54]]],
                                   {"a": True, "b": [False, -(2 ** 54)]}, [[[[[[[[{"deep": 1}]]]]]]]]])
def test_the_walk_counts_members_and_huge_integers_as_recursion_does(value):
    assert parse._walk(value) == _members_and_huge(value)


def test_the_walk_of_random_trees_is_the_recursive_count():
    rng = random.Random("walk")
    for _ in range(2000):
        value = _tree(rng, 0)
        assert parse._walk(value) == _members_and_huge(value), value
