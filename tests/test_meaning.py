"""Receipts that the JSON grammar allows but that say something impossible or empty are refused
with one `Error:` line naming the file and JSON path (exit 1); receipts the schema accepts build
(exit 0). Never exit 2.

Each case changes a copy of the example receipt. Cases that must build keep only the section
they are about, so that the build stays small.
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT
from site_gen import cli
from site_gen.receipts.load import fast_validator, validator, is_date, schema
from test_bad_inputs import EXAMPLE, REPORT, assert_one_error, build_in_process, example_project, write_config

DOC = json.loads((EXAMPLE / "SUMMARY.json").read_text(encoding="utf-8"))
SECTIONS = ("precision", "speed", "memory", "long_outputs", "versions", "tool_calling")


def receipt(root: Path, change=None, keep: tuple[str, ...] | None = None, lede: bool = True) -> Path:
    """A project holding the example receipt, changed by `change(doc)`; with `keep`, only those
    sections; without `lede`, no lede (the example's cites figures of every section)."""
    folder = example_project(root)
    doc = copy.deepcopy(DOC)
    if keep is not None:
        for name in SECTIONS:
            if name not in keep:
                doc.pop(name, None)
    if not lede:
        doc["report"].pop("lede")
    if change:
        change(doc)
    (folder / "SUMMARY.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    return folder


def only(field: str) -> dict:
    """Receipt options that keep just the section a field is in (a smaller file to load)."""
    section = re.match(r"\w+", field).group()
    return {"keep": (section,) if section in SECTIONS else (), "lede": field == "report.lede"}


def refused(tmp_path, capsys, change, needles, **kw) -> str:
    root = tmp_path / "project"
    receipt(root, change, **kw)
    code, _, err = build_in_process(root, capsys)
    return assert_one_error(code, err, root, [f"{REPORT}/SUMMARY.json: " + needles[0], *needles[1:]])


def built(tmp_path, capsys, change, **kw) -> Path:
    root = tmp_path / "project"
    receipt(root, change, **kw)
    code, _, err = build_in_process(root, capsys)
    assert code == 0, err
    assert "Error" not in err, err
    return root / "site"


def put(path: str, value):
    """A change that sets (or, with `...`, removes) the field at a JSON path like `a.b[0].c`."""
    parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]

    def change(doc):
        node = doc
        for part in parts[:-1]:
            node = node[part]
        if value is ...:
            del node[parts[-1]]
        else:
            node[parts[-1]] = value
    return change


# -- empty text: refused; an optional field with nothing to say is left out --------------------

OPTIONAL_TEXT = ["illustrative", "report.lede", "report.checkpoints[0].description", "precision.note",
                 "long_outputs.note", "versions.note", "tool_calling.note"]


@pytest.mark.parametrize("field", OPTIONAL_TEXT)
@pytest.mark.parametrize("text, problem", [("", "must not be empty"), (" \n\t ", "holds only spaces")])
def test_empty_optional_text_is_refused(field, text, problem, tmp_path, capsys):
    refused(tmp_path, capsys, put(field, text),
            [f"$.{field}: {problem}; leave the field out when there is nothing to say"], **only(field))


@pytest.mark.parametrize("field", ["report.title", "report.engines.candidate.name", "report.tested[0].text",
                                   "report.not_covered[0]", "speed.cells[0].workload"])
def test_blank_required_text_is_refused(field, tmp_path, capsys):
    error = refused(tmp_path, capsys, put(field, "   "), [f"$.{field}: holds only spaces"], **only(field))
    assert "leave the field out" not in error


@pytest.mark.parametrize("section", ["precision", "long_outputs", "tool_calling", "versions"])
def test_section_without_its_note_builds(section, tmp_path, capsys):
    site = built(tmp_path, capsys, put(f"{section}.note", ...), keep=(section,), lede=False)
    assert (site / "reports" / REPORT / "index.html").is_file()


@pytest.mark.parametrize("section, records", [("speed", "cells"), ("long_outputs", "replies"), ("tool_calling", "runs"),
                                              ("precision", "results")])
def test_section_without_records_is_refused(section, records, tmp_path, capsys):
    refused(tmp_path, capsys, put(f"{section}.{records}", []),
            [f"$.{section}.{records}: {section} has no {records}; leave the section out until it has some"],
            keep=(section,), lede=False)


def test_no_text_field_takes_blank_text():
    """The rule holds for every string field of the schema, so a field added later cannot forget it."""
    fields = []

    def walk(node, path):
        if isinstance(node, dict):
            if node.get("type") == "string" and path[-1:] != ["$schema"]:
                fields.append(("/".join(path), node))
            for key, value in node.items():
                walk(value, path + [key])
    walk(schema(), [])
    assert len(fields) > 40
    for where, node in fields:
        for blank in ("", " ", "\n\t"):
            assert not jsonschema.Draft202012Validator(node).is_valid(blank), f"{where} takes {blank!r}"


# -- dates: real calendar days in ASCII digits ---------------------------------------------------

DATE_FIELDS = ["report.date", "precision.results[0].baseline.date", "precision.results[0].candidate.date",
               "long_outputs.arms[0].date", "tool_calling.runs[0].date"]
NOT_DATES = ["2026-13-45", "0000-00-00", "2026-02-29", "2026-04-31", "٢٠٢٦-٠١-٠١", "２０２６-０１-０１", "2026-1-01"]


@pytest.mark.parametrize("field, value", [("report.date", v) for v in NOT_DATES] +
                         [(f, v) for f in DATE_FIELDS[1:] for v in ("2026-13-45", "٢٠٢٦-٠١-٠١")])
def test_impossible_dates_are_refused(field, value, tmp_path, capsys):
    error = refused(tmp_path, capsys, put(field, value), [f"$.{field}: {json.dumps(value, ensure_ascii=False)}"],
                    **only(field))
    assert "is not a real calendar date" in error or "does not have the expected form (ISO date, YYYY-MM-DD)" in error


@pytest.mark.parametrize("value, ok", [("2024-02-29", True), ("0001-01-01", True), ("9999-12-31", True),
                                       ("2026-02-29", False), ("0000-01-01", False), ("20260101", False),
                                       ("2026-W01-1", False), ("2026-01-01\n", False), ("2026-0١-01", False)])
def test_is_date(value, ok):
    assert is_date(value) is ok


@pytest.mark.parametrize("value", NOT_DATES)
def test_both_schema_validators_refuse_impossible_dates(value):
    """The fast validator decides alone for a valid receipt: it must refuse what the full one does."""
    doc = copy.deepcopy(DOC)
    put("report.date", value)(doc)
    with pytest.raises(ValueError):  # fastjsonschema.JsonSchemaException is one
        fast_validator()(doc)
    assert list(validator().iter_errors(doc))


def test_schema_patterns_match_ascii_digits_only():
    """Python's `\\d` also matches Arabic-Indic and full-width digits; ECMA-262's does not."""
    patterns = re.findall(r'"pattern": "([^"]*)"', json.dumps(schema()))
    assert patterns and not [p for p in patterns if "\\\\d" in p or "\\\\w" in p]


def test_a_leap_day_builds(tmp_path, capsys):
    built(tmp_path, capsys, put("report.date", "2028-02-29"), keep=(), lede=False)


# -- integers are written as integers --------------------------------------------------------

INTEGER_FIELDS = ["long_outputs.caps[0]", "speed.cells[0].input_tokens", "speed.cells[0].baseline.errors",
                  "memory.kv_pool[0].tokens", "tool_calling.max_points", "tool_calling.runs[0].scenarios[0].points",
                  "versions.text[0].total"]


@pytest.mark.parametrize("field, number, shown", [(INTEGER_FIELDS[0], 1024.0, "1024.0"), (INTEGER_FIELDS[0], 1.5, "1.5")] +
                         [(f, 1e20, "1e+20") for f in INTEGER_FIELDS])
def test_integer_fields_refuse_fractions_and_exponents(field, number, shown, tmp_path, capsys):
    refused(tmp_path, capsys, put(field, number),
            [f"$.{field}: expected integer, got ", shown, "integers are written without a fraction or exponent"],
            **only(field))


@pytest.mark.parametrize("literal", ["1e20", "1E3", "8192.0", "9007199254740993"])
def test_integer_literals_in_the_file(literal, tmp_path, capsys):
    """As written in the file (json.dumps would write 1e20 as 1e+20)."""
    root = tmp_path / "project"
    folder = receipt(root, keep=("long_outputs",), lede=False)
    text = (folder / "SUMMARY.json").read_text(encoding="utf-8")
    text, n = re.subn(r'("caps": \[\s*)\d+', lambda m: m.group(1) + literal, text, count=1)
    assert n == 1
    (folder / "SUMMARY.json").write_text(text, encoding="utf-8")
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, ["$.long_outputs.caps[0]: "])


def test_number_fields_still_take_exponents(tmp_path, capsys):
    def change(doc):
        doc["speed"]["cells"][0]["baseline"]["rate"] = 1e2
        doc["speed"]["cells"][0]["candidate"]["rate"] = 1.5e2
    built(tmp_path, capsys, change, keep=("speed",), lede=False)


# -- a checkpoint's missing engine has no measurements -------------------------------------------

MISSING = next(i for i, c in enumerate(DOC["report"]["checkpoints"]) if "baseline" in c.get("missing", {}))
CHECKPOINT = DOC["report"]["checkpoints"][MISSING]["id"]


def _add_cell_on_missing(doc):
    doc["speed"]["cells"].append({**copy.deepcopy(doc["speed"]["cells"][0]), "checkpoint": CHECKPOINT})


def _add_kv_on_missing(doc):
    doc["memory"]["kv_pool"].append({"checkpoint": CHECKPOINT, "engine": "baseline", "tokens": 1000})


@pytest.mark.parametrize("change, where", [
    (_add_cell_on_missing, f"$.speed.cells[{len(DOC['speed']['cells'])}].baseline"),
    (_add_kv_on_missing, f"$.memory.kv_pool[{len(DOC['memory']['kv_pool'])}]"),
])
def test_measurements_of_a_missing_engine_are_refused(change, where, tmp_path, capsys):
    """The pages would say the engine did not run and hide these measurements (issue 13)."""
    refused(tmp_path, capsys, change, [f"{where}: checkpoint '{CHECKPOINT}' declares the baseline missing",
                                       f"$.report.checkpoints[{MISSING}].missing.baseline"], **only(where[2:]))


def test_candidate_declared_missing_where_it_has_results(tmp_path, capsys):
    first = DOC["report"]["checkpoints"][0]["id"]
    where = next(i for i, r in enumerate(DOC["precision"]["results"]) if r["checkpoint"] == first and "candidate" in r)
    refused(tmp_path, capsys, put("report.checkpoints[0].missing", {"candidate": "not run"}),
            [f"$.precision.results[{where}].candidate: checkpoint '{first}' declares the candidate missing"],
            keep=("precision",), lede=False)


# -- symbolic link loops ------------------------------------------------------------------------

def _summary_to_itself(root, folder):
    (folder / "SUMMARY.json").unlink()
    os.symlink("SUMMARY.json", folder / "SUMMARY.json")
    return folder / "SUMMARY.json"


def _summary_round_two(root, folder):
    (folder / "SUMMARY.json").unlink()
    os.symlink("other.json", folder / "SUMMARY.json")
    os.symlink("SUMMARY.json", folder / "other.json")
    return folder / "SUMMARY.json"


def _lede_to_itself(root, folder):
    (folder / "lede.md").unlink()
    os.symlink("lede.md", folder / "lede.md")
    return folder / "lede.md"


def _folder_to_itself(root, folder):
    os.symlink("loop", root / "data" / "loop")
    return root / "data" / "loop"


def _folders_to_each_other(root, folder):
    os.symlink("b", root / "data" / "a")
    os.symlink("a", root / "data" / "b")
    return root / "data" / "a"


def _data_to_itself(root, folder):
    shutil.rmtree(root / "data")
    os.symlink("data", root / "data")
    return root / "data"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
@pytest.mark.parametrize("make", [_summary_to_itself, _summary_round_two, _lede_to_itself, _folder_to_itself,
                                  _folders_to_each_other, _data_to_itself])
def test_symbolic_link_loops_are_refused(make, tmp_path, capsys):
    root = tmp_path / "project"
    loop = make(root, receipt(root, keep=()))
    capsys.readouterr()
    for command in ("check", "build"):  # build's site-folder guard resolves the data folder before loading
        code = cli.main([command, "-f", str(root / "mkdocs.yml")])
        error = assert_one_error(code, capsys.readouterr().err, root, ["is a symbolic link loop"])
        assert f"{loop}: " in error


def test_links_back_up_the_tree_are_not_followed(tmp_path, capsys):
    """A link to a parent folder inside a report folder or the data folder is no report: built, no hang."""
    root = tmp_path / "project"
    folder = receipt(root, keep=(), lede=False)
    os.symlink("..", folder / "up")
    os.symlink(".", root / "data" / "here")
    code, _, err = build_in_process(root, capsys)
    assert code == 0, err


# -- supersedes: chains, no cycles, one rerun per report -----------------------------------------

SMALL = ROOT / "data" / "cuteafd-v3.0.1" / "SUMMARY.json"


def reports(root: Path, supersedes: dict[str, str | None]) -> None:
    """Copies of the small example report, one per id, each superseding what `supersedes` says."""
    write_config(root)
    doc = json.loads(SMALL.read_text(encoding="utf-8"))
    for i, (rid, target) in enumerate(supersedes.items()):
        d = copy.deepcopy(doc)
        d["report"]["title"] = f"Run {rid}"
        d["report"]["date"] = f"2026-11-{10 + i:02d}"
        if target:
            d["report"]["supersedes"] = target
        (root / "data" / rid).mkdir(parents=True)
        (root / "data" / rid / "SUMMARY.json").write_text(json.dumps(d), encoding="utf-8")


@pytest.mark.parametrize("links, named, cycle", [
    ({"a": "b", "b": "a"}, "a", "a → b → a"),
    ({"a": "c", "b": "a", "c": "b"}, "a", "a → c → b → a"),
    ({"x": None, "a": "b", "b": "a"}, "a", "a → b → a"),
])
def test_supersedes_cycle_is_refused(links, named, cycle, tmp_path, capsys):
    root = tmp_path / "project"
    reports(root, links)
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{named}/SUMMARY.json: $.report.supersedes: ", "go round in a circle", cycle])


def test_two_reruns_of_one_report_are_refused(tmp_path, capsys):
    root = tmp_path / "project"
    reports(root, {"a": None, "b": "a", "c": "a"})
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, ["c/SUMMARY.json: $.report.supersedes: supersedes 'a', which 'b' supersedes too"])


def test_a_chain_of_reruns_shows_its_newest(tmp_path, capsys):
    root = tmp_path / "project"
    reports(root, {"a": None, "b": "a", "c": "b"})
    code, _, err = build_in_process(root, capsys)
    assert code == 0, err
    home = (root / "site" / "index.html").read_text(encoding="utf-8")
    table, superseded = home.split('id="superseded"')
    rows = re.findall(r"<tr><th scope=\"row\"[^>]*><a href=\"[^\"]*\">([^<]*)</a>", table)
    assert rows == ["Run c"]
    assert re.findall(r"<li><a [^>]*>(Run \w)</a> \([^)]*\), superseded by <a [^>]*>(Run \w)</a>", superseded) == \
        [("Run b", "Run c"), ("Run a", "Run b")]


# -- other things a receipt cannot mean -----------------------------------------------------------

REPLY = DOC["long_outputs"]["replies"]
CODE = next(i for i, r in enumerate(REPLY) if r["category"] == "code")
PROSE = next(i for i, r in enumerate(REPLY) if r["category"] == "prose")
FINISHED = next(i for i, r in enumerate(REPLY) if r["finished"])
PERCENT = next(i for i, r in enumerate(DOC["precision"]["results"])
               if "baseline" in r and {m["id"]: m for m in DOC["precision"]["measures"]}[r["measure"]]["unit"] == "percent")


@pytest.mark.parametrize("field, value, message", [
    (f"long_outputs.replies[{CODE}].reply_tokens", REPLY[CODE]["cap"] + 1,
     f"reply_tokens {REPLY[CODE]['cap'] + 1} above the reply's cap {REPLY[CODE]['cap']}"),
    (f"long_outputs.replies[{FINISHED}].still_thinking", True, "a finished reply cannot be still thinking"),
    (f"long_outputs.replies[{PROSE}].tests_passed", True, "tests_passed is for code replies; this reply is prose"),
    (f"long_outputs.replies[{CODE}].json_valid", True, "json_valid is for json replies; this reply is code"),
    (f"precision.results[{PERCENT}].baseline.value", 100.5, "value 100.5 is not a percentage (0 to 100)"),
    (f"precision.results[{PERCENT}].baseline.value", -1, "value -1 is not a percentage (0 to 100)"),
])
def test_impossible_records_are_refused(field, value, message, tmp_path, capsys):
    refused(tmp_path, capsys, put(field, value), [f"$.{field}: {message}"], **only(field))


# -- long outputs that contradict themselves (issue 13) ------------------------------------------

@pytest.mark.parametrize("field, value, needle", [
    ("long_outputs.replies[0].reply_tokens", 8000, "an unfinished reply is cut at its cap 8192, but its reply_tokens are 8000"),
    ("long_outputs.replies[1].thinking_tokens", 8000, "a reply cut while still thinking is all thinking"),
    ("long_outputs.arms[2].run", "r1", "arm 'k4-cuteafd-r2' is the same run as $.long_outputs.arms[1]"),
])
def test_long_outputs_that_contradict_themselves_are_refused(field, value, needle, tmp_path, capsys):
    assert DOC["long_outputs"]["arms"][1]["run"] == "r1" and not DOC["long_outputs"]["replies"][0]["finished"]
    assert DOC["long_outputs"]["replies"][1]["still_thinking"]
    refused(tmp_path, capsys, put(field, value), [f"$.{field}: {needle}"], **only(field))


def _percent_result() -> int:
    measures = {m["id"] for m in DOC["precision"]["measures"] if m["unit"] == "percent"}
    return next(i for i, r in enumerate(DOC["precision"]["results"]) if r["measure"] in measures and "interval" in r)


@pytest.mark.parametrize("field, value", [("difference", -150.0), ("interval", [-150.0, 0.5])])
def test_a_gap_in_percent_beyond_100_points_is_refused(field, value, tmp_path, capsys):
    i = _percent_result()

    def change(doc):
        r = doc["precision"]["results"][i]
        if field == "difference":
            r["interval"], r["difference"] = [-160.0, -140.0], value
        else:
            r["interval"], r["difference"] = value, -0.3
    refused(tmp_path, capsys, change, [f"$.precision.results[{i}].{field}: ", "more than 100 points"], **only("precision"))
