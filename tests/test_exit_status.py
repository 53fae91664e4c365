"""One rule for every command's exit status (issue 50, item 10; `sitegen --help` and site_gen/cli/
__init__.py say it): 0 done, 1 refused (a bad command line as any bad input: one `Error:` line),
2 an internal error only. argparse's own usage errors were exit 2, the code of a crash."""
from __future__ import annotations

import pytest
from conftest import run_sitegen, sitegen_here

from site_gen import cli

BAD_USAGE = {
    "build": [["build", "--nope"], ["build", "-d"], ["build", "--no-cache", "--cache-dir", "x"]],
    "serve": [["serve", "--dev-addr"], ["serve", "--nope"]],
    "check": [["check", "extra"], ["check", "--nope"]],
    "summary": [["summary", "--format", "html"], ["summary", "a", "b"]],
    "compare": [["compare", "a", "b", "--fail-on", "bogus"], ["compare", "a"], ["compare", "a", "b", "--format", "html"]],
    "history": [["history", "--nope"], ["history", "--fail-on", "bogus"], ["history", "--changes", "--since"]],
    "new": [["new"], ["new", "a", "b"]],
    "import": [["import", "bogus", "x", "-o", "data/x"], ["import", "ledger", "x"], ["import"]],
    "gh-deploy": [["gh-deploy", "--bogus"], ["gh-deploy", "-r"]],
    "sitegen": [[], ["--bogus"], ["nope"]],
}


def test_every_command_is_covered():
    assert set(BAD_USAGE) == {*cli.COMMANDS, "sitegen"}


@pytest.mark.parametrize("argv", [a for cases in BAD_USAGE.values() for a in cases], ids=" ".join)
def test_bad_usage_is_exit_1_with_one_error_line(argv, tmp_path):
    r = sitegen_here(*argv, cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "internal error" not in errors[0], r.stderr
    assert "--help" in errors[0], errors[0]  # where to look next


def test_a_new_process_says_the_same():
    r = run_sitegen("summary", "--format", "html")
    assert r.returncode == 1 and r.stderr.count("Error:") == 1, r.stderr


def test_help_and_version_are_exit_0_and_help_states_the_rule(tmp_path):
    r = sitegen_here("--help", cwd=tmp_path)
    assert r.returncode == 0
    assert "exit status" in r.stdout and "2    an internal error" in r.stdout and "1    refused" in r.stdout
    assert sitegen_here("--version", cwd=tmp_path).returncode == 0
    assert sitegen_here("build", "--help", cwd=tmp_path).returncode == 0


def test_an_internal_error_alone_is_exit_2(tmp_path, monkeypatch):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")

    def broken(*args, **kwargs):
        raise KeyError("made up")

    monkeypatch.setattr("site_gen.api.build", broken)
    r = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), cwd=tmp_path)
    assert r.returncode == 2 and "internal error: KeyError" in r.stderr, r.stderr
