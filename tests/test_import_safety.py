"""Importers read only inside what they were given, check what they read before using it, and write
a receipt only where and when they should (issue 26, findings 4 to 6):

- run, comparison and config names are ids, never paths; a file reached through a link must lie
  inside the source;
- bad source data (deep nesting, `wall_s: 0`, a 400-digit integer, blank or mistyped config fields,
  a bad date, acceptance above 1, a lone surrogate, a run folder with a space ...) ends in exit 1
  with one `Error: FILE: PLACE: message` line, never an internal error; a source's size is asked of
  the file system before it is read; a receipt sitegen would refuse is refused as the source's error;
- the ledger's per-run GPQA interval is made again from the rows, and a summary that disagrees is
  refused;
- `-o` names a report folder directly in the config's data folder, replaces a receipt only with
  `--force`, and writes it 0644; without `--attribution` the licence is named in its own words.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import stat
from pathlib import Path

import pytest

from conftest import ROOT, one_error_line, sitegen_here
from test_import import LEDGER, STUDY, need_real

PROBE = ["2026-10-08_glm53-flash_k3.25-v0.9.0-dflash3_serving-probe",
         "2026-10-08_glm53-flash_k3.25-v0.9.0-tailfix-dflash3_serving-probe"]
GPQA = ["2026-09-30_glm53-flash_k4-v0.8.0-dflash3_gpqa-diamond", "2026-10-06_glm53-flash_k4-v0.9.0-dflash3_gpqa-diamond"]
GPQA_COMPARISON = "glm53-flash-k4-v080-v090-gpqa"
CAND_CONFIG = "configs/glm53-flash/k3.25-v0.9.0-tailfix-dflash3.json"


@pytest.fixture
def project(tmp_path) -> Path:
    """A site project (mkdocs.yml, data/) beside a copy of two ledger pairs, their configs, comparisons
    and citation."""
    need_real()
    ledger = tmp_path / "ledger"
    for run in PROBE + GPQA:
        shutil.copytree(LEDGER / "runs" / run, ledger / "runs" / run)
    shutil.copytree(LEDGER / "configs", ledger / "configs")
    shutil.copytree(LEDGER / "comparisons" / GPQA_COMPARISON, ledger / "comparisons" / GPQA_COMPARISON)
    shutil.copy(LEDGER / "CITATION.cff", ledger / "CITATION.cff")
    (tmp_path / "mkdocs.yml").write_text("site_name: Imports\nplugins:\n  - sitegen:\n      data_dir: data\n")
    (tmp_path / "data").mkdir()
    return tmp_path


def run_import(root: Path, *args: str, out: str = "data/pair", fmt: str = "ledger", source: str = "ledger"):
    return sitegen_here("import", fmt, str(root / source), *args, "-f", str(root / "mkdocs.yml"), "-o", str(root / out), "-q",
                        cwd=root)


def probe(root: Path, *extra: str, out: str = "data/pair"):
    return run_import(root, "--baseline", PROBE[0], "--candidate", PROBE[1], *extra, out=out)


def refused(r, *needles: str) -> str:
    line = one_error_line(r.returncode, r.stderr, *needles)
    return line


def nothing_written(root: Path) -> None:
    assert list((root / "data").iterdir()) == []


def edit_json(path: Path, edit) -> None:
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=1))


def edit_rows(path: Path, edit) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        edit(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def without_summary_figures(run: Path) -> None:
    """A summary that states no figure: the rows are then the only check, as the importer allows."""
    (run / "summary.json").write_text("{}\n")


# -- 4. ids are ids, and nothing outside the source is read ---------------------------------------------

@pytest.mark.parametrize("name", ["../runs/{c}", "{abs}", "{c}/../{c}", "my run", "", ".hidden", "a\\b"])
def test_a_run_named_on_the_command_line_is_an_id_never_a_path(project, name):
    ledger = project / "ledger"
    name = name.format(c=PROBE[1], abs=ledger / "runs" / PROBE[1])
    r = run_import(project, "--baseline", PROBE[0], "--candidate", name)
    refused(r, "ledger/runs: --candidate: run id", "is not an id")
    nothing_written(project)


def test_runs_a_comparison_names_are_ids(project):
    ledger = project / "ledger"
    outside = project / "elsewhere" / "runs" / "x"
    shutil.copytree(ledger / "runs" / GPQA[1], outside)
    edit_json(ledger / "comparisons" / GPQA_COMPARISON / "comparison.json",
              lambda d: d.update(runs=[GPQA[0], "../../elsewhere/runs/x"]))
    r = run_import(project, "--comparison", GPQA_COMPARISON)
    refused(r, f"comparisons/{GPQA_COMPARISON}/comparison.json: $.runs[1]: run id '../../elsewhere/runs/x' is not an id")
    r = run_import(project, "--comparison", f"../ledger/comparisons/{GPQA_COMPARISON}")
    refused(r, "ledger/comparisons: --comparison: comparison id", "is not an id")
    nothing_written(project)


def test_a_run_folder_linked_out_of_the_ledger_is_never_read(project):
    """The finding: a run outside the ledger was imported and credited to it."""
    ledger = project / "ledger"
    outside = project / "elsewhere" / PROBE[1]
    shutil.move(ledger / "runs" / PROBE[1], outside)
    (ledger / "runs" / PROBE[1]).symlink_to(outside)
    refused(probe(project), f"ledger/runs/{PROBE[1]}/run.json: leads out of the source folder")
    nothing_written(project)


@pytest.mark.parametrize("name", ["../runs/{c}/summary", "/etc/passwd", "glm53-flash/../../runs/{c}/summary", "", "a//b"])
def test_a_config_name_is_a_name_of_ids_never_a_path(project, name):
    """The finding: `"config": "../…"` copied a file outside the configs into the receipt."""
    edit_json(project / "ledger" / "runs" / PROBE[1] / "run.json", lambda d: d.update(config=name.format(c=PROBE[1])))
    line = refused(probe(project), f"{PROBE[1]}/run.json: $.config:")
    assert "is not a name" in line or "expected some text" in line
    nothing_written(project)


@pytest.mark.parametrize("which", ["config", "results", "summary", "citation"])
def test_a_source_file_linked_out_of_the_ledger_is_refused(project, which):
    ledger = project / "ledger"
    path = {"config": ledger / CAND_CONFIG, "results": ledger / "runs" / PROBE[1] / "results.jsonl",
            "summary": ledger / "runs" / PROBE[1] / "summary.json", "citation": ledger / "CITATION.cff"}[which]
    outside = project / "elsewhere" / path.name
    outside.parent.mkdir()
    shutil.move(path, outside)
    path.symlink_to(outside)
    refused(probe(project), path.name + ": leads out of the source folder")
    nothing_written(project)


def test_links_inside_the_ledger_are_followed(project):
    """A link is refused for where it leads, not for being a link."""
    ledger = project / "ledger"
    shutil.move(ledger / "configs", ledger / "shared-configs")
    (ledger / "configs").symlink_to("shared-configs")
    r = probe(project)
    assert r.returncode == 0, r.stderr


# -- 5. bad source data: exit 1 and one line, never an internal error -----------------------------------

def deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


def _batch_rows(edit):
    return lambda row: edit(row) if row.get("kind") == "batch" else None


def _cand_rows(root):
    return root / "ledger" / "runs" / PROBE[1] / "results.jsonl"


CASES = {
    # name: (edit of the project, the error's file and place, what it says)
    "deep run.json": (lambda r: (r / "ledger/runs" / PROBE[1] / "run.json").write_text('{"x": ' + deep() + "}"),
                      "run.json: line 1 column", "nested deeper than 64"),
    "deep summary.json": (lambda r: (r / "ledger/runs" / PROBE[1] / "summary.json").write_text('{"x": ' + deep() + "}"),
                          "summary.json: line 1 column", "nested deeper than 64"),
    "deep results row": (lambda r: _cand_rows(r).write_text('{"x": ' + deep() + "}\n" + _cand_rows(r).read_text()),
                         "results.jsonl: line 1, column", "nested deeper than 64"),
    "deep config": (lambda r: (r / "ledger" / CAND_CONFIG).write_text('{"x": ' + deep() + "}"),
                    "k3.25-v0.9.0-tailfix-dflash3.json: line 1 column", "nested deeper than 64"),
    "wall_s 0": (lambda r: edit_rows(_cand_rows(r), _batch_rows(lambda row: row.update(wall_s=0))),
                 "results.jsonl: line 17", "'wall_s' is 0; it must be above 0"),
    "a 400-digit integer": (lambda r: _cand_rows(r).write_text(_cand_rows(r).read_text().replace('"wall_s": 162.3', '"wall_s": 1' + "0" * 400)),
                            "results.jsonl: line 17, $.wall_s", "is too large"),
    "negative rate": (lambda r: (edit_rows(_cand_rows(r),
                                           lambda row: row.update(decode_tok_s=-row["decode_tok_s"]) if "decode_tok_s" in row else None),
                                 without_summary_figures(_cand_rows(r).parent)),
                      "results.jsonl: line 1", "'decode_tok_s' is -"),
    "acceptance above 1": (lambda r: (edit_rows(_cand_rows(r), _batch_rows(lambda row: row["spec"].update(accepted=row["spec"]["drafted"] + 1))),
                                      without_summary_figures(_cand_rows(r).parent)),
                           "results.jsonl: line 17", "acceptance cannot pass 1"),
    "blank version": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d["engine"].update(version=" ")),
                      "k3.25-v0.9.0-tailfix-dflash3.json: $.engine.version", "blank"),
    "blank label": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d["model"].update(label="")),
                    "k3.25-v0.9.0-tailfix-dflash3.json: $.model.label", "blank"),
    "bad date": (lambda r: edit_json(r / "ledger/runs" / PROBE[1] / "run.json", lambda d: d.update(date="2026-13-45")),
                 "run.json: $.date", "not a calendar day"),
    "a lone surrogate": (lambda r: (r / "ledger" / CAND_CONFIG).write_text(
        (r / "ledger" / CAND_CONFIG).read_text().replace('"version": "v0.9.0"', '"version": "v0.9.0\\ud800"')),
        "k3.25-v0.9.0-tailfix-dflash3.json: $.engine.version", "U+D800"),
    "engine as text": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d.update(engine="tpurtell")),
                       "k3.25-v0.9.0-tailfix-dflash3.json: $.engine", "expected an object"),
    "model as a list": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d.update(model=["x"])),
                        "k3.25-v0.9.0-tailfix-dflash3.json: $.model", "expected an object"),
    "patches as text": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d["engine"].update(patches="tailfix")),
                        "k3.25-v0.9.0-tailfix-dflash3.json: $.engine.patches", "expected a list"),
    "speculation as text": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d["serving"].update(speculative="dflash")),
                            "k3.25-v0.9.0-tailfix-dflash3.json: $.serving.speculative", "expected an object"),
    "gpus as a number": (lambda r: edit_json(r / "ledger" / CAND_CONFIG, lambda d: d["hardware"].update(gpus=2)),
                         "k3.25-v0.9.0-tailfix-dflash3.json: $.hardware.gpus", "expected text"),
    "a run folder with a space": (lambda r: (r / "ledger/runs" / PROBE[1]).rename(r / "ledger/runs/my run"),
                                  "ledger/runs: --candidate: run id 'my run'", "is not an id"),
    "spec as text": (lambda r: edit_rows(_cand_rows(r), _batch_rows(lambda row: row.update(spec="fast"))),
                     "results.jsonl: line 17", "not an object"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_ledger_data_is_one_error_line_with_file_and_place(project, name):
    edit, place, words = CASES[name]
    edit(project)
    candidate = "my run" if "space" in name else PROBE[1]
    r = run_import(project, "--baseline", PROBE[0], "--candidate", candidate)
    refused(r, place, words)
    nothing_written(project)


def test_a_receipt_sitegen_would_refuse_is_the_sources_error(project):
    """What no check of the importer's own catches, sitegen's validator does, before anything is
    written: the error names the source's file and lines, and the receipt's path."""
    rows = _cand_rows(project)
    edit_rows(rows, lambda row: row.update(decode_tok_s=0) if row.get("batch") == "greedy_run1" and row["kind"] == "request" else None)
    without_summary_figures(rows.parent)
    refused(probe(project), "results.jsonl: lines 1-16 (batch 'greedy_run1'): rate must be above zero",
            "in the receipt this source makes, at $.speed.cells[")
    nothing_written(project)


def test_a_source_over_the_size_limit_is_refused_unread(project):
    """A sparse file of a gigabyte: its size is asked of the file system, the bytes never read."""
    rows = _cand_rows(project)
    with open(rows, "r+b") as f:
        f.truncate(1 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    refused(probe(project), "results.jsonl: source file is 1024.0 MB, over the 256 MB limit")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # kB: far below the file's size


def test_a_fifo_is_refused_without_waiting(project):
    rows = _cand_rows(project)
    rows.unlink()
    os.mkfifo(rows)
    refused(probe(project), "results.jsonl: is not a regular file")


STUDY_CASES = {
    "deep": (lambda d: None, "line 1 column", "nested deeper than 64"),
    "arm settings as text": (lambda d: d["conditions"]["arms"].update(D="off"), "$.conditions.arms.D", "expected dict"),
    "decision rule as a list": (lambda d: d["conditions"].update(decision_rule=[1]), "$.conditions.decision_rule", "expected dict"),
    "metrics as a list": (lambda d: d["measurements"]["min"]["D"]["quality"]["checks"][0].update(metrics=[1]), None, None),
    "comparison as a list": (lambda d: d.update(comparison=[1]), "$.comparison", "expected dict"),
    "limitations as text": (lambda d: d.update(limitations="none"), "$.limitations", "expected list"),
    "bad date": (lambda d: d.update(date="2026-02-30"), "$.date", "not a calendar day"),
    "launches as text": (lambda d: d["measurements"]["min"]["D"].update(launches="3"), "$.measurements.min.D.launches", "expected list"),
}


@pytest.mark.parametrize("name", sorted(STUDY_CASES))
def test_bad_study_data_is_one_error_line_or_a_receipt(tmp_path, name):
    need_real()
    edit, place, words = STUDY_CASES[name]
    doc = json.loads(STUDY.read_text())
    edit(doc)
    text = json.dumps(doc, indent=1)
    if name == "deep":
        text = text.replace("{", '{"x": ' + deep(100) + ", ", 1)
    (tmp_path / "comparison.json").write_text(text)
    (tmp_path / "mkdocs.yml").write_text("site_name: Imports\nplugins:\n  - sitegen:\n      data_dir: data\n")
    r = run_import(tmp_path, fmt="cuteafd-study", source="comparison.json", out="data/study")
    if place is None and words is None:
        assert r.returncode == 0, r.stderr  # a part the study may lack: skipped, not a crash
        return
    refused(r, "comparison.json: " + place, words)
    assert not (tmp_path / "data").exists()


# -- the ledger's per-run interval, made again from the rows -------------------------------------------

@pytest.mark.slow
def test_the_runs_gpqa_interval_is_recomputed_and_a_wrong_one_refused(project):
    r = run_import(project, "--comparison", GPQA_COMPARISON)
    assert r.returncode == 0, r.stderr  # the real summaries' intervals are what the rows give
    shutil.rmtree(project / "data" / "pair")
    edit_json(project / "ledger/runs" / GPQA[1] / "summary.json", lambda d: d.update(accuracy_flexible_ci95=[0.5, 0.99]))
    refused(run_import(project, "--comparison", GPQA_COMPARISON),
            f"{GPQA[1]}/summary.json: $.accuracy_flexible_ci95: summary.json says [0.5, 0.99], but results.jsonl gives [0.7879, 0.8889]")
    nothing_written(project)


def test_the_ledger_interval_is_the_ledgers_own_on_both_scores():
    """Checked against the numbers the ledger's own tool wrote into every GPQA summary."""
    need_real()
    from site_gen.importers.ledger_protocols import ledger_interval

    for run in GPQA:
        rows = [json.loads(line) for line in (LEDGER / "runs" / run / "results.jsonl").read_text().splitlines() if line.strip()]
        summary = json.loads((LEDGER / "runs" / run / "summary.json").read_text())
        by: dict = {}
        for n, row in enumerate(rows, 1):
            by.setdefault(row["doc_id"], []).append((n, row))
        for key in ("correct_flexible", "correct_stated"):
            assert list(ledger_interval(by, key)) == summary[key.replace("correct_", "accuracy_") + "_ci95"], (run, key)


# -- 6. -o: where, when, how ------------------------------------------------------------------------------

def test_o_onto_an_existing_report_needs_force(project):
    mine = project / "data" / "pair"
    mine.mkdir()
    (mine / "SUMMARY.json").write_text('{"hand": "written"}\n')
    refused(probe(project), "data/pair/SUMMARY.json: a receipt is already there; pass --force to replace it")
    assert (mine / "SUMMARY.json").read_text() == '{"hand": "written"}\n'
    r = probe(project, "--force")
    assert r.returncode == 0, r.stderr
    assert json.loads((mine / "SUMMARY.json").read_text())["schema_version"] == 1.1


@pytest.mark.parametrize("out", ["data", "elsewhere/pair", "data/sub/pair", "data/../pair", "pair", "data/.hidden", "data/a b"])
def test_o_names_a_report_folder_directly_in_the_data_folder(project, out):
    r = probe(project, out=out)
    line = refused(r)
    assert "data folder" in line or "report folder name" in line, line
    assert not (project / "data" / "SUMMARY.json").exists() and not (project / "pair").exists()
    nothing_written(project)


def test_o_through_a_link_is_refused(project):
    (project / "elsewhere").mkdir()
    (project / "data" / "pair").symlink_to(project / "elsewhere")
    refused(probe(project), "data/pair: the report folder is a link")
    assert list((project / "elsewhere").iterdir()) == []


def test_the_receipt_is_written_readable_by_all(project, monkeypatch):
    old = os.umask(0o022)
    try:
        r = probe(project)
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE((project / "data" / "pair" / "SUMMARY.json").stat().st_mode) == 0o644


def test_without_attribution_the_licence_is_named_in_its_own_words(project):
    r = probe(project)
    assert r.returncode == 0, r.stderr
    credit = json.loads((project / "data" / "pair" / "SUMMARY.json").read_text())["report"]["attribution"]
    assert "CC BY 4.0" in credit and "CC BY-4.0" not in credit and "CC-BY-4.0" not in credit, credit
    assert credit.startswith('Data from "local-inference-evals: end-to-end receipts for locally served LLMs" by UrbanAstroLA, '
                             "https://github.com/UrbanAstroLA/local-inference-evals, CC BY 4.0;")


def test_licence_words():
    from site_gen.importers.ledger import licence_words

    assert [licence_words(x) for x in ("CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-ND-3.0", "MIT", "Apache-2.0", "CC0-1.0")] == \
        ["CC BY 4.0", "CC BY-SA 4.0", "CC BY-NC-ND 3.0", "MIT", "Apache-2.0", "CC0-1.0"]


def test_a_blank_field_of_a_part_only_schema_1_1_has_is_one_error(tmp_path):
    """Found by the import fuzzer: the message for a blank optional field looked it up in schema 1,
    which has no `differs`, and ended in an internal error, in `check` as in `import`."""
    data = json.loads((ROOT / "data" / "ledger-serving-probe-kpoolfix" / "SUMMARY.json").read_text())
    data["report"]["differs"][0]["field"] = ""
    (tmp_path / "data" / "r").mkdir(parents=True)
    (tmp_path / "data" / "r" / "SUMMARY.json").write_text(json.dumps(data))
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - sitegen:\n      data_dir: data\n")
    r = sitegen_here("check", "-q", cwd=tmp_path)
    refused(r, "data/r/SUMMARY.json: $.report.differs[0].field: must not be empty")


def _ledger_interval_as_python_draws_it(hits: list[int], sizes: list[int]) -> tuple[float, float]:
    """The ledger's loop itself (tools/verify.py's rule): random.Random(0).randrange, int / int."""
    import random

    draw, n, means = random.Random(0).randrange, len(hits), []
    for _ in range(2000):
        picks = [draw(n) for _ in range(n)]
        means.append(sum(hits[j] for j in picks) / sum(sizes[j] for j in picks))
    means.sort()
    return round(means[50], 4), round(means[1949], 4)


def test_the_ledger_interval_draws_what_pythons_random_draws_for_every_size():
    """numpy's draws are randrange's, output for output, for sizes at and around each power of two
    (where the kept share of outputs is lowest and highest), and the intervals are the loop's."""
    import random

    import numpy as np

    from site_gen.importers.ledger_protocols import ledger_blocks, ledger_interval

    python = random.Random(0)
    blocks = list(ledger_blocks(100, 1000, 333))
    assert [len(b) for b in blocks] == [333, 333, 333, 1] and [int(x) for b in blocks for x in b] == [python.randrange(100) for _ in range(1000)]
    sizes = sorted({1, 2, 3, 5, 7, 198, 1000} | {2 ** k + d for k in range(1, 11) for d in (-1, 0, 1)})
    for n in sizes:
        python = random.Random(0)
        assert np.concatenate(list(ledger_blocks(n, 5 * n + 300, 5 * n + 300))).tolist() == [python.randrange(n) for _ in range(5 * n + 300)], n
    rng = random.Random(7)
    for n in (1, 2, 3, 17, 64, 65, 198, 600):  # 600: the resamples drawn in two blocks
        passes = [rng.choice((1, 1, 4)) for _ in range(n)]
        hits = [rng.randint(0, p) for p in passes]
        by = {f"q{i:03d}": [(0, {"ok": j < h}) for j in range(p)] for i, (h, p) in enumerate(zip(hits, passes))}
        assert ledger_interval(by, "ok") == _ledger_interval_as_python_draws_it(hits, passes), n
