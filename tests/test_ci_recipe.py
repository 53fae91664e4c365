"""The CI recipe `sitegen new` writes (.github/workflows/benchmarks.yml, issue 31), run here step by
step as GitHub Actions would run it: a push to main publishes the first report, a pull request of a
second run of the same setup passes with a comment, one of a slower setup fails. What only GitHub
can do is checked for form: the actions used, the install (no network here), the engine's benchmark
(no GPU here: the real vLLM result files of shared/real2 stand in for its output), and `gh`, which a
stub records."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, sitegen_here
from site_gen import DISTRIBUTION, __version__
from site_gen.building import starter
from site_gen.building.starter import PLACEHOLDER
from test_compare import VLLM, REAL2
from test_deploy import git, git_env

BIN = Path(sys.executable).parent  # the environment's `sitegen` and `python`
HARDWARE = "Azure ND96asr_v4, two nodes"


def workflow(root: Path) -> dict:
    doc = yaml.safe_load((root / ".github" / "workflows" / "benchmarks.yml").read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as true
    return doc


def expression(text: str, ctx: dict[str, str]) -> str:
    """`${{ a.b }}` of the few contexts the workflow uses, filled in."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: ctx[m.group(1)], text)


def condition(text: str, ctx: dict[str, str]) -> bool:
    """An `if:` of the workflow's form: comparisons of contexts with quoted strings, joined by &&."""
    parts = []
    for clause in text.split("&&"):
        m = re.fullmatch(r"\s*([\w.]+)\s*(==|!=)\s*'([^']*)'\s*", clause)
        assert m, f"an if: this emulator does not read: {text}"
        parts.append((ctx[m.group(1)] == m.group(3)) == (m.group(2) == "=="))
    return all(parts)


class Runner:
    """One job of the workflow on one event, in the project's folder."""

    def __init__(self, root: Path, doc: dict, temp: Path, event: str, sha: str, env: dict[str, str]):
        self.root, self.doc, self.temp = root, doc, temp
        temp.mkdir(parents=True)
        self.files = {k: temp / f"github-{k}" for k in ("env", "output", "summary")}
        for f in self.files.values():
            f.write_text("")
        self.env = {**os.environ, **env, **{k: str(v) for k, v in doc["env"].items()}, "HARDWARE": HARDWARE,
                    "PATH": f"{temp / 'stub'}{os.pathsep}{BIN}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
                    "GITHUB_SHA": sha, "GITHUB_EVENT_NAME": event, "GITHUB_REF": "refs/heads/main" if event == "push" else "refs/pull/7/merge",
                    "GITHUB_ENV": str(self.files["env"]), "GITHUB_OUTPUT": str(self.files["output"]),
                    "GITHUB_STEP_SUMMARY": str(self.files["summary"])}
        self.ctx = {"github.event_name": event, "github.ref": self.env["GITHUB_REF"], "github.token": "token-for-tests",
                    "github.event.pull_request.number": "7"}
        (temp / "stub").mkdir()
        stub = temp / "stub" / "gh"  # records what the workflow asks of GitHub's CLI
        stub.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {temp / 'gh-args'}\n")
        stub.chmod(0o755)

    def run(self, step: dict) -> subprocess.CompletedProcess:
        env = {**self.env, **{k: expression(str(v), self.ctx) for k, v in step.get("env", {}).items()}}
        script = self.temp / "step.sh"
        script.write_text(step["run"])
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.root, env=env,
                                capture_output=True, text=True, timeout=300)
        for line in self.files["env"].read_text().splitlines():  # what a step exports to the later ones
            key, _, value = line.partition("=")
            self.env[key] = value
        for line in self.files["output"].read_text().splitlines():
            key, _, value = line.partition("=")
            self.ctx[f"steps.{step.get('id')}.outputs.{key}"] = value
        self.files["output"].write_text("")
        return result


def job(root: Path, run_dir: str, event: str, sha: str, temp: Path, env: dict[str, str]) -> tuple[dict[str, int], Runner]:
    """Every step of the job: `uses:` and the install checked for form, the benchmark stood in for by
    `run_dir`'s result files, the rest run. Returns each run step's exit status by name."""
    doc = workflow(root)
    runner = Runner(root, doc, temp, event, sha, env)
    done: dict[str, int] = {}
    for step in doc["jobs"]["benchmark"]["steps"]:
        if "uses" in step:
            assert re.fullmatch(r"actions/(checkout|setup-python)@v\d+", step["uses"]), step
            continue
        if "if" in step and not condition(step["if"], runner.ctx):
            continue
        syntax = subprocess.run(["bash", "-n"], input=step["run"], capture_output=True, text=True)
        assert syntax.returncode == 0, (step["name"], syntax.stderr)
        if step["name"] == "Install sitegen":  # tested on its own (test_the_install_step_...): no network here
            assert doc["env"]["SITEGEN"] == PLACEHOLDER  # this environment's sitegen is an editable checkout
            continue
        if step["name"] == "Run the benchmark":
            assert '--result-dir "$RUNNER_TEMP/results"' in step["run"] and "--save-detailed" in step["run"]
            (temp / "results").mkdir()
            for f in sorted((VLLM / run_dir).glob("*_qps_*.json")):
                shutil.copy(f, temp / "results" / f.name)
            continue
        result = runner.run(step)
        done[step["name"]] = result.returncode
        if step["name"] != "Fail on a change for the worse":
            assert result.returncode == 0, (step["name"], result.stdout, result.stderr)
    return done, runner


@pytest.fixture
def repo(tmp_path):
    if not VLLM.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{REAL2} is missing: CI places shared/ beside the checkout")
        pytest.skip(f"{REAL2} not found (set SITEGEN_REAL2_DIR to shared/real2)")
    root = tmp_path / "benchmarks"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    shutil.rmtree(root / "data" / "example-report")  # as the workflow's header says: made-up numbers, another setup
    (root / "data" / ".gitkeep").write_text("")
    env = git_env(tmp_path)
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(remote), env=env)
    git(root, "init", "-q", "-b", "main", env=env)
    git(root, "add", ".", env=env)
    git(root, "commit", "-q", "-m", "A new site", env=env)
    git(root, "remote", "add", "origin", str(remote), env=env)
    git(root, "push", "-q", "-u", "origin", "main", env=env)
    return root, remote, env


def test_the_workflow_is_the_recipe(tmp_path):
    root = tmp_path / "site"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    doc = workflow(root)
    assert doc["on"] == {"push": {"branches": ["main"]}, "pull_request": None}
    assert doc["permissions"] == {"contents": "write", "pull-requests": "write"}
    names = [s.get("name", s.get("uses")) for s in doc["jobs"]["benchmark"]["steps"]]
    assert names.index("Run the benchmark") < names.index("Import the run") < names.index("Compare with the last published report") \
        < names.index("Comment on the pull request") < names.index("Keep the report and publish the site")


@pytest.mark.slow
def test_the_recipe_runs_push_then_pull_requests(repo, tmp_path):
    root, remote, env = repo
    # 1. A push to main: the first report; nothing to compare with; kept in data/ and published.
    done, runner = job(root, "03_tp4_pp2_IB", "push", "a" * 40, tmp_path / "run1", env)
    first = runner.env["RUN"]
    assert runner.env["LAST"] == "" and (root / "data" / first / "SUMMARY.json").is_file()
    assert (tmp_path / "run1" / "comparison.md").read_text().startswith(f"No earlier report to compare with: {first}")
    assert "Fail on a change for the worse" not in done and "Comment on the pull request" not in done
    assert f"data/{first}/SUMMARY.json" in git(remote, "ls-tree", "-r", "--name-only", "main", env=env).splitlines()
    pages = git(remote, "ls-tree", "-r", "--name-only", "gh-pages", env=env).splitlines()
    assert f"reports/{first}/latency.html" in pages and ".nojekyll" in pages

    # 2. A pull request whose run is the same setup run again: compared, within noise, a comment, passes.
    git(root, "pull", "-q", "origin", "main", env=env)
    done, runner = job(root, "04_tp4_pp2_IB", "pull_request", "b" * 40, tmp_path / "run2", env)
    assert runner.env["LAST"] == first and runner.ctx["steps.compare.outputs.status"] == "0"
    comment = (tmp_path / "run2" / "comparison.md").read_text()
    assert comment.startswith("**No change beyond noise: ") and "passes (--fail-on worse)" in comment.splitlines()[0]
    assert (tmp_path / "run2" / "gh-args").read_text().splitlines() == [
        "pr", "comment", "7", "--body-file", str(tmp_path / "run2" / "comparison.md"), "--edit-last"]
    assert (tmp_path / "run2" / "github-summary").read_text() == comment
    assert "Fail on a change for the worse" not in done and "Keep the report and publish the site" not in done
    git(root, "clean", "-q", "-fd", "data", env=env)  # a job's checkout is fresh: its report was never committed

    # 3. A pull request whose run is slower (tp4×pp2 without InfiniBand): the comment says so and the check fails.
    done, runner = job(root, "02_tp4_pp2_no_IB", "pull_request", "c" * 40, tmp_path / "run3", env)
    assert runner.env["LAST"] == first and runner.ctx["steps.compare.outputs.status"] == "1"
    comment = (tmp_path / "run3" / "comparison.md").read_text()
    assert comment.startswith("**Worse beyond noise: ") and "TTFT p50" in comment
    assert done["Fail on a change for the worse"] == 1


class _Dist:
    """A distribution as importlib.metadata gives it: its version, its direct_url.json, and whether it
    was installed (an INSTALLER record) or is a build's leftover metadata in a checkout."""

    def __init__(self, direct: dict | None, installed: bool = True):
        self.version, self._direct, self._installed = __version__, direct, installed

    def read_text(self, name: str) -> str | None:
        if name == "INSTALLER":
            return "pip\n" if self._installed else None
        assert name == "direct_url.json"
        return None if self._direct is None else json.dumps(self._direct)


COMMIT = "0123456789abcdef0123456789abcdef01234567"
INSTALLS = [  # (how this sitegen was installed: its direct_url.json, the requirement the workflow gets)
    (None, f"{DISTRIBUTION}=={__version__}"),  # from a package index, where the name is this project's
    ({"url": "https://github.com/example/sitegen", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
     f"{DISTRIBUTION} @ git+https://github.com/example/sitegen@{COMMIT}"),
    ({"url": "file:///home/me/sitegen", "dir_info": {}}, PLACEHOLDER),  # `pip install .` of a checkout
    ({"url": "file:///home/me/sitegen", "dir_info": {"editable": True}}, PLACEHOLDER),
    ({"url": "https://github.com/example/sitegen", "vcs_info": {"vcs": "git", "commit_id": "main"}}, PLACEHOLDER),
    ({"url": "file:///tmp/x.whl", "archive_info": {}}, PLACEHOLDER),
]


def install_step(root: Path) -> tuple[dict, str]:
    doc = workflow(root)
    step = next(s for s in doc["jobs"]["benchmark"]["steps"] if s.get("name") == "Install sitegen")
    return doc, step["run"]


def run_install(script: str, requirement: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The install step run by bash, `python` a stub that records pip's arguments and runs the rest."""
    stub = tmp_path / "stub"
    stub.mkdir(exist_ok=True)
    log = tmp_path / "pip-args"
    (stub / "python").write_text(f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then printf "%s\\n" "$@" > {log}; '
                                 f'exit 0; fi\nexec {sys.executable} "$@"\n')
    (stub / "python").chmod(0o755)
    env = {**os.environ, "SITEGEN": requirement, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env=env,
                          capture_output=True, text=True, timeout=60)
    args = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return done, args


@pytest.mark.parametrize("direct, expected", INSTALLS)
def test_the_install_line_names_this_project_pinned_or_a_placeholder_the_step_refuses(direct, expected, tmp_path,
                                                                                      monkeypatch):
    """The package index's `sitegen` is another project: the workflow installs this one by its own name,
    from where it was installed (a git commit, or the index's exact version under this name), and a
    placeholder it refuses to install until the user names the repository and commit."""
    from packaging.requirements import Requirement

    # A checkout's egg-info (no INSTALLER), found first when sitegen runs from the checkout, is passed over.
    monkeypatch.setattr(starter.metadata, "distributions",
                        lambda name: [_Dist(None, installed=False), _Dist(direct)] if name == DISTRIBUTION else [])
    assert starter.install_requirement() == expected
    root = tmp_path / "site"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    doc, script = install_step(root)
    assert doc["env"]["SITEGEN"] == expected
    requirement = Requirement(expected)
    assert requirement.name == DISTRIBUTION != "sitegen"
    done, pip = run_install(script, expected, tmp_path)
    if expected == PLACEHOLDER:
        assert done.returncode == 1 and pip == [], done.stdout
        assert "::error::Set SITEGEN in .github/workflows/benchmarks.yml" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert pip == ["-m", "pip", "install", expected]  # and `import site_gen.api` passed: this project
        assert (requirement.url or "").endswith(f"@{COMMIT}") or str(requirement.specifier) == f"=={__version__}"


def test_a_checkouts_own_metadata_is_no_install(monkeypatch):
    monkeypatch.setattr(starter.metadata, "distributions", lambda name: [_Dist(None, installed=False)])
    assert starter.install_requirement() == PLACEHOLDER  # not "sitegen-bench==VERSION": no index served it
    monkeypatch.setattr(starter.metadata, "distributions", lambda name: [])
    assert starter.install_requirement() == PLACEHOLDER


def test_the_install_step_refuses_a_requirement_that_could_be_another_project(tmp_path):
    root = tmp_path / "site"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    _, script = install_step(root)
    for wrong in ("sitegen", f"sitegen=={__version__}", "sitegen @ git+https://github.com/example/sitegen@" + COMMIT,
                  DISTRIBUTION, f"{DISTRIBUTION}>=0.1"):
        done, pip = run_install(script, wrong, tmp_path)
        assert done.returncode == 1 and pip == [], wrong
        assert f"::error::SITEGEN must name {DISTRIBUTION}, pinned" in done.stdout, wrong


def test_the_distribution_name_is_the_packages():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION and project["scripts"] == {"sitegen": "site_gen.cli:entry"}
