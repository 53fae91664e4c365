"""Bad input of every kind gives exit status 1, one `Error:` line naming the file and the JSON path
(or line), no traceback, and writes nothing. The cases live in tests/bad_inputs/ (see its README);
those that cannot live in git are made here at run time.

Most cases run the CLI's `main()` in this process (fast); a representative subset runs the real
command in a fresh process, as a user would.
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, run_sitegen
from site_gen import cli
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import check_report_id

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
EXAMPLE = ROOT / "data" / "cuteafd-v4.0.0"
REPORT = EXAMPLE.name
CASE_FILES = {"expected.txt", "patch.json", "case.json"}
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


# -- making a case's project --------------------------------------------------------------------

def _pointer(doc, pointer: str):
    """(parent container, last key) of a JSON Pointer."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        last = len(node) if last == "-" else int(last)
    return node, last


def apply_patch(doc, ops: list[dict]):
    """RFC 6902 add / remove / replace / copy: enough for the corpus."""
    for op in ops:
        parent, key = _pointer(doc, op["path"])
        if op["op"] == "copy":
            source, skey = _pointer(doc, op["from"])
            value = copy.deepcopy(source[skey])
        else:
            value = op.get("value")
        if op["op"] == "remove":
            del parent[key]
        elif op["op"] == "replace":
            parent[key] = value
        elif op["op"] in ("add", "copy"):
            if isinstance(parent, list):
                parent.insert(key, value)
            else:
                parent[key] = value
        else:
            raise ValueError(f"unsupported patch op {op['op']!r}")
    return doc


def write_config(root: Path, options: dict | None = None) -> Path:
    config = {"site_name": "Bad input", "docs_dir": "docs", "site_dir": "site",
              "plugins": [{"sitegen": {"data_dir": "data", **(options or {})}}]}
    path = root / "mkdocs.yml"
    root.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    return path


def example_project(root: Path, folder: str = REPORT, options: dict | None = None) -> Path:
    """One report folder holding a copy of the example report; returns the report folder."""
    report = root / "data" / folder
    report.mkdir(parents=True)
    for name in ("SUMMARY.json", "lede.md"):
        shutil.copy(EXAMPLE / name, report / name)
    write_config(root, options)
    return report


def case_project(name: str, root: Path) -> list[str]:
    """Builds the project a corpus case describes; returns the extra CLI arguments."""
    case = CORPUS / name
    meta = json.loads((case / "case.json").read_text()) if (case / "case.json").exists() else {}
    report = example_project(root, meta.get("folder", REPORT), meta.get("config"))
    if (case / "patch.json").exists():
        doc = apply_patch(json.loads((EXAMPLE / "SUMMARY.json").read_text(encoding="utf-8")),
                          json.loads((case / "patch.json").read_text()))
        (report / "SUMMARY.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    for f in case.iterdir():
        if f.name not in CASE_FILES:
            shutil.copyfile(f, report / f.name)
    return list(meta.get("args", []))


def expected(name: str) -> list[str]:
    lines = [line.strip() for line in (CORPUS / name / "expected.txt").read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line]


# -- running the build and judging its output ----------------------------------------------------

def build_in_process(root: Path, capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["build", "-f", str(root / "mkdocs.yml"), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_error(code: int, stderr: str, root: Path, needles: list[str], cwd: Path | None = None) -> str:
    assert code == 1, f"exit {code}: {stderr}"
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1 and len(lines) == 1, stderr
    error = errors[0]
    # The file is named as the user would type it: relative to the working folder when inside it.
    named = Path(error[len("Error: "):].split(": ")[0])
    named = named if named.is_absolute() else (cwd or Path.cwd()) / named
    assert Path(os.path.abspath(root)) in Path(os.path.abspath(named)).parents, f"the message does not name the file: {error}"
    for needle in needles:
        assert needle in error, f"expected {needle!r} in: {error}"
    assert not (root / "site").exists(), "a failed build wrote a site"
    assert not [p for p in root.iterdir() if p.name.startswith(".site")], "a failed build left a staging folder"
    return error


def test_corpus_is_complete():
    assert len(CASES) >= 30
    for name in CASES:
        assert re.fullmatch(r"\d\d-[a-z0-9-]+", name), name
        assert expected(name), f"{name}: expected.txt says nothing"
        files = {f.name for f in (CORPUS / name).iterdir()}
        assert files - {"expected.txt"}, f"{name}: the case changes nothing"


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_bad_input(name, tmp_path, capsys):
    root = tmp_path / "project"
    args = case_project(name, root)
    code, _, err = build_in_process(root, capsys, *args)
    assert_one_error(code, err, root, expected(name))


# A few cases end to end, in a fresh process: what a user sees on the terminal.
SUBPROCESS = ["01-empty-file", "08-nan", "20-number-as-string", "34-unknown-field-strict", "44-duplicate-speed-cell",
              "60-folder-name-leading-dot", "68-over-size-limit"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SUBPROCESS)
def test_bad_input_cli(name, tmp_path):
    assert name in CASES
    root = tmp_path / "project"
    args = case_project(name, root)
    result = run_sitegen("build", *args, cwd=root)
    assert result.stdout == ""
    assert_one_error(result.returncode, result.stderr, root, expected(name), cwd=root)


# -- inputs that cannot live in git -------------------------------------------------------------

def test_report_folder_is_a_link_out_of_the_data_folder(tmp_path, capsys):
    root = tmp_path / "project"
    outside = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE, outside, ignore=shutil.ignore_patterns("*.py"))
    write_config(root)
    (root / "data").mkdir()
    (root / "data" / "linked").symlink_to(outside, target_is_directory=True)
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, ["data/linked", "points outside the data folder; refused"])


def test_receipt_is_a_link_out_of_the_data_folder(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    secret = tmp_path / "secret.json"
    shutil.copy(report / "SUMMARY.json", secret)
    (report / "SUMMARY.json").unlink()
    (report / "SUMMARY.json").symlink_to(secret)
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{REPORT}/SUMMARY.json: SUMMARY.json is a link that points outside the data folder"])


def test_lede_is_a_link_out_of_the_data_folder(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    (tmp_path / "passwd.md").write_text("root:x:0:0\n")
    (report / "lede.md").unlink()
    (report / "lede.md").symlink_to(tmp_path / "passwd.md")
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{REPORT}/lede.md: lede file is a link that points outside the data folder"])
    assert "root:x" not in err


def test_links_inside_the_data_folder_are_fine(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    (root / "data" / "alias").symlink_to(report, target_is_directory=True)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err


def test_receipt_over_the_limit_is_refused_unread(tmp_path, capsys, monkeypatch):
    """A sparse 1 GB file: refused from its size alone, before a byte is read or parsed."""
    root = tmp_path / "project"
    report = example_project(root)
    with open(report / "SUMMARY.json", "r+b") as f:
        f.truncate(1 << 30)
    import site_gen.receipts.parse as load

    def no(*a, **k):
        raise AssertionError("a receipt over the limit was parsed")
    monkeypatch.setattr(load, "_loads", no)
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{REPORT}/SUMMARY.json: receipt is 1024.0 MB, over the 64 MB limit",
                                       "max_receipt_mb"])


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a":', "}")])
def test_json_nested_10000_deep(tmp_path, capsys, opener, closer):
    root = tmp_path / "project"
    report = example_project(root)
    (report / "SUMMARY.json").write_text('{"schema_version": 1, "report": ' + opener * 10000 + "1" + closer * 10000 + "}")
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{REPORT}/SUMMARY.json: line 1 column ", "JSON nested deeper than 64 levels"])


def test_receipt_is_a_folder(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    (report / "SUMMARY.json").unlink()
    (report / "SUMMARY.json").mkdir()
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"{REPORT}/SUMMARY.json: is a folder; expected a file"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_receipt_is_a_fifo_and_the_build_does_not_hang(tmp_path):
    root = tmp_path / "project"
    report = example_project(root)
    (report / "SUMMARY.json").unlink()
    os.mkfifo(report / "SUMMARY.json")
    result = run_sitegen("build", cwd=root)  # run_sitegen has a timeout: a hang fails the test
    assert_one_error(result.returncode, result.stderr, root, [f"{REPORT}/SUMMARY.json: is not a regular file"], cwd=root)


@pytest.mark.parametrize("name, problem", [
    ("a/b", "contains a slash"), ("..", "contains '..'"), ("../x", "contains a slash"), ("a..b", "contains '..'"),
    (".hidden", "starts with a dot"), ("a\\b", "contains a slash"), ("", "is not allowed"), ("a b", "is not allowed"),
    ("K4\n", "is not allowed"), ("-x", "is not allowed"),
])
def test_report_ids_that_could_escape_are_refused(name, problem):
    """The check every entry point uses for a report's name: folders, and names in markdown."""
    with pytest.raises(SitegenError, match=re.escape(problem)):
        check_report_id(name, "docs/index.md", "line 3")


@pytest.mark.parametrize("name", ["cuteafd-v4.0.0", "K4", "a_b.c-d", "2026"])
def test_plain_report_ids_pass(name):
    assert check_report_id(name) == name


# -- author pages naming a report (docs/, which the corpus's report-folder cases cannot express) -----

PAGE_HEAD = "# A page\n\nSome prose.\n\n"  # four lines above the part each case adds
DOCS_CASES = {
    "fenced-unknown-report": ("```sitegen\nreport: nope\nblock: speed-summary\n```\n", 6, "unknown report 'nope'; reports: " + REPORT),
    "inline-unknown-report": ("Speed: {{ speed_verdict report=nope }}.\n", 5, "unknown report 'nope'; reports: " + REPORT),
    "directive-unknown-report": ("{{ block speed-summary report=nope }}\n", 5, "unknown report 'nope'"),
    "fenced-report-on-line-two": ("```sitegen\nblock: speed-summary\nreport: nope\n```\n", 7, "unknown report 'nope'"),
    # Names that could climb out of the data or site folder are refused as such, not looked up.
    "fenced-dot-dot": ("```sitegen\nreport: ..\nblock: speed-summary\n```\n", 6, "report folder name '..' contains '..'"),
    "fenced-climbs": (f"```sitegen\nreport: ../{REPORT}\nblock: speed-summary\n```\n", 6, "contains a slash"),
    "inline-slash": ("Speed: {{ speed_verdict report=a/b }}.\n", 5, "report folder name 'a/b' contains a slash"),
    "inline-dot-dot-in-name": ("Speed: {{ speed_verdict report=x..y }}.\n", 5, "contains '..'"),
    "directive-backslash": ("{{ block memory-table report=..\\x }}\n", 5, "contains a slash"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", DOCS_CASES)
def test_docs_page_names_a_bad_report(case, tmp_path, capsys):
    root = tmp_path / "project"
    example_project(root)
    body, line, message = DOCS_CASES[case]
    (root / "docs").mkdir()
    (root / "docs" / "x.md").write_text(PAGE_HEAD + body, encoding="utf-8")
    code, _, err = build_in_process(root, capsys)
    error = assert_one_error(code, err, root, [f"docs/x.md: line {line}: ", message])
    assert error.index(f"line {line}: ") < error.index(message)


@pytest.mark.parametrize("front, problem", [("nope", "unknown report 'nope' in front matter"),
                                            ("../x", "report folder name '../x' contains a slash")])
def test_docs_front_matter_names_a_bad_report(front, problem, tmp_path, capsys):
    root = tmp_path / "project"
    example_project(root)
    (root / "docs").mkdir()
    (root / "docs" / "x.md").write_text(f"---\nreport: {front}\n---\n{PAGE_HEAD}Speed: {{{{ speed_verdict }}}}.\n",
                                        encoding="utf-8")
    code, _, err = build_in_process(root, capsys)
    assert_one_error(code, err, root, [f"docs/x.md: line 1: {problem}"])


@pytest.mark.slow
def test_docs_page_unknown_report_cli(tmp_path):
    """The fenced case end to end, as a user sees it on the terminal."""
    root = tmp_path / "project"
    example_project(root)
    (root / "docs").mkdir()
    (root / "docs" / "x.md").write_text(PAGE_HEAD + DOCS_CASES["fenced-unknown-report"][0], encoding="utf-8")
    result = run_sitegen("build", cwd=root)
    assert result.stdout == ""
    error = assert_one_error(result.returncode, result.stderr, root, ["docs/x.md: line 6: unknown report 'nope'"], cwd=root)
    assert error == f"Error: docs/x.md: line 6: unknown report 'nope'; reports: {REPORT}"  # relative to cwd


# -- warnings -----------------------------------------------------------------------------------

def test_unknown_field_is_a_warning_without_strict_and_is_ignored(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    doc = json.loads((report / "SUMMARY.json").read_text(encoding="utf-8"))
    for cell in doc["speed"]["cells"]:
        cell["colour"] = "=HYPERLINK(\"http://evil.invalid\")"
    (report / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = build_in_process(root, capsys)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("WARNING"), err
    assert f"{REPORT}/SUMMARY.json: $.speed.cells[0]: unknown field 'colour'" in warnings[0]
    assert f"and {len(doc['speed']['cells']) - 1} more places like it" in warnings[0]
    assert "(1 warning)" in out
    site = root / "site"
    for path in site.rglob("*"):
        # The theme's own files (assets/) are sitegen's words, not the receipt's.
        if path.is_file() and path.name != "SUMMARY.json" and path.parent.name != "assets":
            assert b"colour" not in path.read_bytes() and b"HYPERLINK" not in path.read_bytes(), path


def test_warning_does_not_change_exit_status(tmp_path, capsys):
    """Unknown fields and a statement the data contradicts: warnings, exit 0; under --strict, exit 1."""
    root = tmp_path / "project"
    report = example_project(root)
    doc = json.loads((report / "SUMMARY.json").read_text(encoding="utf-8"))
    doc["report"]["tested"][0]["note"] = "extra"
    doc["report"]["not_covered"].append("{{ check looped_replies > 0 : Some replies looped. }}")
    (report / "SUMMARY.json").write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = build_in_process(root, capsys)
    assert code == 0, err
    assert len([line for line in err.splitlines() if line.startswith("WARNING")]) == 2, err
    assert "Error" not in err
    shutil.rmtree(root / "site")
    code, _, err = build_in_process(root, capsys, "--strict")
    assert_one_error(code, err, root, ["$.report.tested[0]: unknown field 'note'"])
