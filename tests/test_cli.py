"""The command line: exit codes, one-line messages, no tracebacks, flags. What only a process of its
own shows (the version, silence under -q, a failed build's leftovers, a traceback) runs in one; the
rest runs the same `main` in this process."""
from __future__ import annotations

import json

import pytest

from conftest import run_sitegen, sitegen_here

import site_gen


@pytest.fixture
def project(small_project):
    """What the commands say and write does not depend on the number of reports: two of the example's
    (conftest.FEW_REPORTS), whose builds take a fifth of the example's."""
    return small_project


def receipt(project):
    return project / "data" / "cuteafd-v4.0.0" / "SUMMARY.json"


def edit(project, fn):
    path = receipt(project)
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def assert_one_error(result, *needles):
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]


def test_version():
    result = run_sitegen("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"sitegen {site_gen.__version__}"


@pytest.mark.slow
def test_build_prints_one_summary_line(project):
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    reports = len(list((project / "data").glob("*/SUMMARY.json")))
    assert len(lines) == 1 and lines[0].startswith("Built ") and f" pages from {reports} reports into " in lines[0], lines
    assert (project / "site" / "index.html").is_file()


@pytest.mark.slow
def test_quiet_prints_nothing(project):
    result = run_sitegen("build", "-q", cwd=project)
    assert result.returncode == 0 and result.stdout == ""


@pytest.mark.slow
def test_site_dir_and_config_flags(project, tmp_path):
    (project / "mkdocs.yml").rename(project / "other.yml")
    out = tmp_path / "elsewhere"
    result = sitegen_here("build", "-f", str(project / "other.yml"), "-d", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert (out / "reports" / "cuteafd-v4.0.0" / "speed.html").is_file()


def test_invalid_json(project):
    receipt(project).write_text('{"schema_version": 1, "report": ')
    assert_one_error(sitegen_here("build", cwd=project), "SUMMARY.json", "line 1", "invalid JSON")


def test_schema_violation_names_json_path(project):
    edit(project, lambda d: d["speed"]["cells"][3]["baseline"].__setitem__("rate", "fast"))
    assert_one_error(sitegen_here("build", cwd=project), "SUMMARY.json", "$.speed.cells[3].baseline.rate", "expected number")


def test_zero_rate(project):
    edit(project, lambda d: d["speed"]["cells"][5]["candidate"].__setitem__("rate", 0))
    assert_one_error(sitegen_here("build", cwd=project), "$.speed.cells[5].candidate.rate", "above zero")


def test_negative_rate(project):
    edit(project, lambda d: d["speed"]["cells"][0]["baseline"].__setitem__("rate", -3.5))
    assert_one_error(sitegen_here("build", cwd=project), "$.speed.cells[0].baseline.rate", "above zero")


def test_unknown_checkpoint(project):
    edit(project, lambda d: d["memory"]["kv_pool"][1].__setitem__("checkpoint", "K5"))
    assert_one_error(sitegen_here("build", cwd=project), "$.memory.kv_pool[1].checkpoint", "unknown checkpoint 'K5'")


@pytest.mark.slow
def test_failed_build_leaves_previous_site(project):
    assert run_sitegen("build", "-q", cwd=project).returncode == 0
    index = project / "site" / "index.html"
    before = index.read_bytes()
    edit(project, lambda d: d["speed"]["cells"][0]["baseline"].__setitem__("rate", 0))
    assert run_sitegen("build", cwd=project).returncode == 1
    assert index.read_bytes() == before
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".site")) == []


def test_traceback_only_when_asked(project):
    receipt(project).write_text("{")
    assert "Traceback" in run_sitegen("--traceback", "build", cwd=project).stderr


def test_unknown_option_suggests(project):
    cfg = project / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("noise_band", "noise_bnd"))
    assert_one_error(sitegen_here("build", cwd=project), "mkdocs.yml", "noise_bnd", "did you mean 'noise_band'")


def test_unknown_top_level_setting(project):
    cfg = project / "mkdocs.yml"
    cfg.write_text(cfg.read_text() + "site_nmae: x\n")
    assert_one_error(sitegen_here("build", cwd=project), "mkdocs.yml", "site_nmae", "did you mean 'site_name'")


@pytest.mark.slow
def test_band_option_changes_verdicts(project):
    cfg = project / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("noise_band: 0.08", "noise_band: 0.3"))
    assert sitegen_here("build", "-q", cwd=project).returncode == 0
    cells = [c for c in json.loads(receipt(project).read_text())["speed"]["cells"]
             if c["checkpoint"] == "K4" and c["metric"] == "aggregate"]
    faster = sum(c["candidate"]["rate"] / c["baseline"]["rate"] > 1.3 for c in cells)
    assert 0 < faster < 22
    csv = (project / "site/reports/cuteafd-v4.0.0/csv/speed-counts.csv").read_text()
    assert f"K4,aggregate,{faster},{22 - faster},0,22" in csv
    assert "noise band ±30% counts as level" in (project / "site/reports/cuteafd-v4.0.0/index.html").read_text()


def test_site_dir_cannot_swallow_sources(project):
    result = sitegen_here("build", "-d", str(project / "data" / ".."), cwd=project)
    assert_one_error(result, "choose another output folder")
    assert (project / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").is_file()


@pytest.mark.slow
def test_the_command_s_own_process_says_all_it_wrote_before_it_ends(tmp_path):
    """`sitegen` and `python -m site_gen` end their process without the interpreter's shutdown
    (cli.entry), after flushing: a summary of one report, a write small enough to wait in the
    stream's buffer, arrives whole through a pipe, and the exit code is the command's; output that
    cannot be written (a full disk) is said, with exit 120 as Python's own shutdown gives."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from conftest import ROOT
    from site_gen import api
    from site_gen.core.config import load_config

    expected = api.summary(load_config(ROOT / "mkdocs.yml"), "cuteafd-v3.0.1", "text")
    assert 100 < len(expected.encode()) < 8192
    for argv in ([sys.executable, "-m", "site_gen"], [str(Path(sys.executable).parent / "sitegen")]):
        ok = subprocess.run([*argv, "summary", "cuteafd-v3.0.1", "-f", str(ROOT / "mkdocs.yml")], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})
        assert ok.returncode == 0 and ok.stdout == expected, ok.stderr
        bad = subprocess.run([*argv, "build", "-f", str(tmp_path / "missing.yml")], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert_one_error(bad, "missing.yml")
        with open("/dev/full", "w") as full:  # the output cannot be written: said, and not exit 0
            lost = subprocess.run([*argv, "summary", "cuteafd-v3.0.1", "-f", str(ROOT / "mkdocs.yml")], cwd=tmp_path,
                                  stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                                  env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})
        assert lost.returncode == 120 and "No space left on device" in lost.stderr, lost.stderr


def test_help_examples_read_as_commands():
    """Every command's help: an example line has no run of spaces inside its command (a line
    continued with a backslash goes on, indented, on the next line), and compare and history take
    one --fail-on vocabulary."""
    import argparse

    from site_gen.cli import parser as build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        lines = p.format_help().splitlines()
        for i, line in enumerate(lines):
            if not line.lstrip().startswith("sitegen "):
                continue
            command = line.split("  #")[0].rstrip()
            assert "  " not in command.strip(), (name, line)
            if command.endswith("\\"):
                assert lines[i + 1].startswith("      ") and "  " not in lines[i + 1].strip(), (name, lines[i + 1])
    words = [{c for a in sub.choices[n]._actions if a.dest == "fail_on" for c in a.choices} for n in ("compare", "history")]
    assert words[0] == words[1] and {"worse", "new-regression"} <= words[0]
