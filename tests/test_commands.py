"""`check`, `summary` and `new` as a user runs them, in temporary folders."""
from __future__ import annotations

import json

import pytest

from conftest import sitegen_here
from htmlutil import parse, tables
from site_gen.render import format as fmt


@pytest.fixture
def project(small_project):
    """What the commands do does not depend on the number of reports: two of the example's
    (conftest.FEW_REPORTS), whose builds take a fifth of the example's."""
    return small_project


REPORT = "reports/cuteafd-v4.0.0"


def test_check_passes_and_writes_nothing(project):
    result = sitegen_here("check", cwd=project)
    assert result.returncode == 0, result.stderr
    reports = len(list((project / "data").glob("*/SUMMARY.json")))
    assert result.stdout.startswith(f"OK: {reports} reports")
    assert not (project / "site").exists()


def test_check_fails_on_bad_receipt(project):
    path = project / "data/cuteafd-v4.0.0/SUMMARY.json"
    data = json.loads(path.read_text())
    data["precision"]["results"][0]["interval"] = [0.01, 0.02]
    path.write_text(json.dumps(data))
    result = sitegen_here("check", cwd=project)
    assert result.returncode == 1
    assert "$.precision.results[0].interval" in result.stderr and "does not contain its difference" in result.stderr


def test_summary_json_equals_what_the_site_shows(example_site):
    result = sitegen_here("summary", "cuteafd-v4.0.0", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)["reports"][0]
    doc = parse(example_site / REPORT / "index.html")
    t = tables(doc)
    speed = {r[0]: r[1:] for r in t["speed-summary"][1:]}
    band = data["speed"]["noise_band"]
    for i, c in enumerate(["K3.25", "K4"]):
        entry = data["speed"]["checkpoints"][c]
        agg = entry["counts"]["aggregate"]
        assert speed["Speed cells, aggregate of 22"][i].endswith(
            f"{agg['faster']} faster · ● {agg['level']} level · ▼ {agg['slower']} slower")
        for label, key in (("Decode, one stream", "one_stream_decode"), ("Aggregate, 32K–128K input", "aggregate_long_input")):
            r = entry["ranges"][key]
            assert isinstance(r["low"], float) and isinstance(r["high"], float)
            assert speed[label][i] == fmt.speed_ratio_range(r["low"], r["high"], band)
    site_rows = [r for r in t["precision-table"] if len(r) == 7 and r[0] != "Measure"]
    json_rows = [[r["label"], fmt.measure_value(r["baseline"], r["unit"]), fmt.measure_value(r["candidate"], r["unit"]),
                  fmt.measure_difference(r["difference"], r["unit"]),
                  fmt.measure_interval(r["interval"]["low"], r["interval"]["high"], r["unit"]),
                  "resolved" if r["resolved"] else "not resolved", r["direction"]] for r in data["precision"]["rows"]]
    assert site_rows == json_rows
    mem = t["memory-table"][2]
    kv = data["memory"]["kv_pool"]
    assert [fmt.thousands(kv[c]["candidate"]) + " " + fmt.side_ratio(kv[c]["ratio"]) for c in ("K3.25", "K4")] == mem[1:]


def test_summary_text_and_markdown(project):
    text = sitegen_here("summary", cwd=project)
    assert text.returncode == 0
    assert "Speed K4, aggregate" in text.stdout and "22 faster · 0 level · 0 slower (of 22)" in text.stdout
    md = sitegen_here("summary", "--format", "markdown", cwd=project)
    assert md.stdout.startswith("### CuteAFD v4.0.0 against tpurtell's vLLM fork")
    assert "| Speed K3.25, clean decode | 15 faster · 7 level · 0 slower (of 22) |" in md.stdout


def test_summary_unknown_report(project):
    result = sitegen_here("summary", "nope", cwd=project)
    assert result.returncode == 1 and "no report 'nope'" in result.stderr and "cuteafd-v4.0.0" in result.stderr


def test_new_site_builds_at_once(tmp_path):
    target = tmp_path / "mysite"
    result = sitegen_here("new", str(target))
    assert result.returncode == 0, result.stderr
    assert (target / "mkdocs.yml").is_file() and (target / "data/example-report/SUMMARY.json").is_file()
    build = sitegen_here("build", cwd=target)
    assert build.returncode == 0, build.stderr
    overview = parse(target / "site/reports/example-report/index.html")
    assert tables(overview)["speed-summary"][1][1].endswith("3 faster · ● 1 level · ▼ 0 slower")
    again = sitegen_here("new", str(target))
    assert again.returncode == 1 and "--force" in again.stderr


def test_help_has_examples():
    for command in ("build", "check", "summary", "compare", "new"):
        result = sitegen_here(command, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout, command


@pytest.mark.slow
def test_build_reports_progress_to_its_callback(project):
    from site_gen.building.builder import build_files
    from site_gen.core.config import load_config

    seen = []
    result = build_files(load_config(project / "mkdocs.yml"), progress=lambda what, done, total: seen.append((what, done, total)))
    pages = [s for s in seen if s[0] == "pages"]
    assert pages and pages[-1][1] == pages[-1][2] and [p[1] for p in pages] == sorted(p[1] for p in pages)
    assert any(s[0] == "reports" for s in seen)
    assert result.pages >= pages[-1][2]


class FakeTerminal:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_bar_only_on_a_terminal_and_not_quiet():
    import argparse

    from site_gen.cli.util import Progress

    term = FakeTerminal(True)
    bar = Progress(argparse.Namespace(quiet=False), stream=term, delay=0)
    bar("pages", 5, 10)
    assert "pages" in term.text and "5/10" in term.text and "#" * 15 in term.text
    bar.done()
    assert term.text.endswith("\r\033[K")
    for tty, quiet in ((False, False), (True, True)):
        other = FakeTerminal(tty)
        bar = Progress(argparse.Namespace(quiet=quiet), stream=other, delay=0)
        bar("pages", 5, 10)
        bar.done()
        assert other.text == ""
