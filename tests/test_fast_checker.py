"""sitegen's own schema checker (site_gen/receipts/fastschema.py `checker`) says yes to valid receipts
without jsonschema or fastjsonschema, and never yes to a receipt jsonschema refuses."""
from __future__ import annotations

import copy
import json
import random

import jsonschema
import pytest

from conftest import ROOT
from site_gen.receipts import fastschema
from site_gen.receipts.fastschema import python_patterns
from site_gen.receipts.validate import fast_validator, validator, is_date, schema

FORMATS = {"date": is_date}


@pytest.mark.parametrize("version", [1, 1.1])
def test_the_receipt_schemas_get_the_checker(version):
    """fastjsonschema's code for these schemas costs ~3x the time per receipt, and check_integers more."""
    assert fastschema.checker(python_patterns(schema(version)), FORMATS) is not None
    assert getattr(fast_validator(version), "exact_integers", False)


SMALL = {
    "type": "object", "additionalProperties": False, "required": ["n"],
    "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 9},
        "x": {"type": "number", "exclusiveMinimum": 0},
        "s": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+\\Z"},
        "d": {"type": "string", "format": "date"},
        "e": {"enum": ["a", "b"]}, "c": {"const": 1.1}, "b": {"type": "boolean"}, "z": {"type": "null"},
        "l": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "number"}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "p": {"properties": {"q": {"minLength": 1}}},
        "a": {"type": "object", "anyOf": [{"required": ["u"]}, {"required": ["w"]}]},
    },
}
# (instance, the checker's answer): yes exactly where the schema says valid, except that it also
# says no to what only a looser reading allows (1.0 for an integer, 1 for 1.1, a tuple for an array).
INSTANCES = [
    ({"n": 1}, True), ({"n": 9}, True), ({"n": 0}, False), ({"n": 10}, False), ({"n": 1.0}, False),
    ({"n": True}, False), ({"n": "1"}, False), ({}, False), ({"n": 1, "zz": 1}, False),
    ({"n": 1, "x": 0}, False), ({"n": 1, "x": 0.5}, True), ({"n": 1, "x": False}, False),
    ({"n": 1, "s": "ab"}, True), ({"n": 1, "s": "abcd"}, False), ({"n": 1, "s": "a"}, False),
    ({"n": 1, "s": "ab\n"}, False), ({"n": 1, "s": "AB"}, False),
    ({"n": 1, "d": "2024-02-29"}, True), ({"n": 1, "d": "2026-02-29"}, False),
    ({"n": 1, "e": "a"}, True), ({"n": 1, "e": "c"}, False), ({"n": 1, "e": 1}, False),
    ({"n": 1, "c": 1.1}, True), ({"n": 1, "c": 1}, False), ({"n": 1, "b": False}, True), ({"n": 1, "b": 0}, False),
    ({"n": 1, "z": None}, True), ({"n": 1, "z": 0}, False),
    ({"n": 1, "l": []}, False), ({"n": 1, "l": [1, 2.5]}, True), ({"n": 1, "l": [1, 2, 3]}, False),
    ({"n": 1, "l": ["1"]}, False), ({"n": 1, "l": (1,)}, False),
    ({"n": 1, "m": {"k": 1}}, True), ({"n": 1, "m": {"k": 1.5}}, False), ({"n": 1, "m": {}}, True),
    ({"n": 1, "p": {"q": ""}}, False), ({"n": 1, "p": {"q": "y"}}, True), ({"n": 1, "p": 3}, True),
    ({"n": 1, "p": {"q": 3}}, True),
    ({"n": 1, "a": {"u": 1}}, True), ({"n": 1, "a": {"w": 1}}, True), ({"n": 1, "a": {"v": 1}}, False),
]


@pytest.mark.parametrize("instance, yes", INSTANCES)
def test_each_keyword_agrees_with_jsonschema(instance, yes):
    assert fastschema.checker(SMALL, FORMATS)(instance) is yes
    if yes:
        assert not list(jsonschema.Draft202012Validator(SMALL, format_checker=_dates()).iter_errors(instance))


def _dates():
    formats = jsonschema.FormatChecker(formats=())
    formats.checks("date")(is_date)
    return formats


@pytest.mark.parametrize("node", [{"$ref": "#/x"}, {"type": "string", "multipleOf": 2}, {"items": [{"type": "string"}]},
                                  {"oneOf": [{}]}, {"enum": [1, "a"]}, {"type": "tuple"}])
def test_a_schema_it_cannot_read_is_left_to_the_others(node):
    assert fastschema.checker({"type": "object", "properties": {"k": node}}, FORMATS) is None


PLACES = [None, True, 0, -1, 1.0, 2.5, 1e300, "", " ", "x", "2026-02-30", "Q4\n", [], [1.0], {}, {"x": 1}, 100]


def _paths(node, at=()):
    yield at
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in children:
        yield from _paths(value, at + (key,))


def _receipts():
    """The project's smaller receipts (every schema version; test_properties.py gives the fast validator
    schema-generated ones)."""
    files = [f for f in sorted((ROOT / "data").glob("*/SUMMARY.json")) if f.stat().st_size < 30_000]  # jsonschema is slow
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def test_valid_receipts_and_their_mutants():
    """Every valid receipt is accepted; no mutant that jsonschema refuses is."""
    rng = random.Random("mutants")
    for n, r in enumerate(_receipts()):
        version = r.get("schema_version", 1)
        check = fastschema.checker(python_patterns(schema(version)), FORMATS)
        assert check(r) and not list(validator(version).iter_errors(r)), n
        paths = list(_paths(r))[1:]
        for _ in range(25):
            d = copy.deepcopy(r)
            at = rng.choice(paths)
            parent = d
            for part in at[:-1]:
                parent = parent[part]
            if rng.random() < 0.7:
                parent[at[-1]] = rng.choice(PLACES)
            elif isinstance(parent, dict):
                del parent[at[-1]]
            else:
                parent.append(copy.deepcopy(parent[at[-1]]))
            if check(d):
                assert not list(validator(version).iter_errors(d)), (n, at)


def test_the_checker_is_never_kept_in_the_cache(tmp_path):
    """The checker is code: made in this process, never read from (or written to) the cache folder."""
    from site_gen.building import cache
    cache.configure(tmp_path / "cache")
    try:
        first, again = fastschema.checker(SMALL, FORMATS), fastschema.checker(SMALL, FORMATS)
        assert again({"n": 1}) and not again({"n": 0}) and first({"n": 2})
        assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*"))
    finally:
        cache.configure()


def _from_module(node, formats=FORMATS):
    """The checker `module_of` writes for `node`, run as a packaged module is (with `_FORMATS`)."""
    source, main = fastschema.module_of(node, sorted(formats))
    scope = {"_FORMATS": dict(formats)}
    exec(compile(source, "<packaged checker>", "exec"), scope)  # our own generated code
    return scope[main]


@pytest.mark.parametrize("instance, yes", INSTANCES)
def test_the_checker_written_as_a_module_answers_as_the_one_compiled_in_process(instance, yes):
    """Each keyword's value written as a literal (sets, patterns, formats given at run time) checks
    the same as the values the in-process checker holds."""
    assert _from_module(SMALL)(instance) is yes


@pytest.mark.parametrize("version", [1, 1.1, 1.2])
def test_each_receipt_schema_has_its_checker_in_the_package(version):
    """tests/run.sh (pip install -e .) generates the package's checkers: each published receipt
    schema's is taken from there, is the code the process would write itself (its functions, line
    for line, and its values), and answers as it does on the project's receipts of that version and
    on their mutants. A schema edited since has none."""
    from site_gen.receipts.validate import SCHEMA_VERSIONS

    assert version in SCHEMA_VERSIONS
    node = python_patterns(schema(version))
    packaged = fastschema._packaged(node, FORMATS)
    assert packaged is not None, "site_gen/_compiled/ not generated: tests/run.sh (or pip install -e .) does it"
    writer = fastschema._Writer(FORMATS)
    main = writer.function(node)
    module = packaged.__globals__
    assert packaged.__name__ == main and "\n\n\n".join(writer.functions) in fastschema.module_of(node, ["date"])[0]
    for name, value in writer.scope.items():
        if name != "_MISSING":
            assert module[name] == value or (module[name].pattern == value.pattern), name
    exec(compile("\n\n".join(writer.functions), "<written here>", "exec"), writer.scope)  # as `checker` does
    here = writer.scope[main]
    receipts = [json.loads(f.read_text("utf-8")) for f in sorted((ROOT / "data").glob("*/SUMMARY.json"))]
    mine = [r for r in receipts if r.get("schema_version", 1) == version]
    assert mine
    rng = random.Random(f"packaged {version}")
    for r in mine:
        assert packaged(r)
        for _ in range(10):
            d = copy.deepcopy(r)
            key = rng.choice(sorted(d["report"]))
            d["report"][key] = rng.choice(PLACES)
            assert packaged(d) is here(d)
    edited = copy.deepcopy(node)
    edited["properties"]["report"]["required"] = [*edited["properties"]["report"]["required"], "extra"]
    assert fastschema._packaged(edited, FORMATS) is None
