"""`sitegen gh-deploy` against a local bare repository: what the branch holds, refusals, --force."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from conftest import one_error_line, run_sitegen, sitegen_here
from site_gen import cli
from site_gen.building.write import MANIFEST

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORT = "reports/cuteafd-v4.0.0"


def git_env(tmp: Path) -> dict[str, str]:
    """A git that reads no user or system config and finds no repository above the test's folder."""
    return {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": str(tmp),
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}


def git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, input="",
                            env={**os.environ, **env}, timeout=60)
    assert result.returncode == 0, (args, result.stderr)
    return result.stdout.strip()


@pytest.fixture
def repo(small_project, tmp_path_factory):
    """A small project (two of the example's reports: what a deploy does with a site does not depend
    on its size) committed in a git repository whose `origin` is a local bare repository."""
    project = small_project
    env = git_env(project.parent)
    remote = tmp_path_factory.mktemp("remote") / "site.git"
    git(project.parent, "init", "-q", "--bare", str(remote), env=env)
    git(project, "init", "-q", "-b", "main", env=env)
    (project / ".gitignore").write_text("site/\n")
    git(project, "add", ".", env=env)
    git(project, "commit", "-q", "-m", "Reports", env=env)
    git(project, "remote", "add", "origin", str(remote), env=env)
    return project, remote, env


def deploy(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return sitegen_here("gh-deploy", *args, cwd=project, env=env)


def deploy_cli(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """gh-deploy in a process of its own, as a user runs it: its output holds whatever git prints too."""
    return run_sitegen("gh-deploy", *args, cwd=project, env=env)


def tree(remote: Path, env: dict[str, str], ref: str = "gh-pages") -> set[str]:
    return set(git(remote, "ls-tree", "-r", "--name-only", ref, env=env).splitlines())


def one_error(result: subprocess.CompletedProcess, *needles: str) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_deploy_twice_branch_holds_the_second_site_only(repo):
    project, remote, env = repo
    first = deploy(project, env)
    assert first.returncode == 0, first.stderr
    assert "Pushed gh-pages to origin" in first.stdout
    files = tree(remote, env)
    assert {".nojekyll", "index.html", "404.html", f"{REPORT}/speed.html", f"{REPORT}/SUMMARY.json"} <= files
    assert not any(f.startswith(("data/", "site/")) or f == "mkdocs.yml" for f in files)
    source = git(project, "rev-parse", "HEAD", env=env)
    assert git(remote, "log", "-1", "--format=%s", "gh-pages", env=env) == f"Deploy {source} with sitegen 0.1.0"

    # Second version of the sources: a report renamed, so its old pages must disappear from the branch
    # (the docs pages go too: they may name the report).
    if (project / "docs").is_dir():
        git(project, "rm", "-r", "-q", "docs", env=env)
    git(project, "mv", "data/cuteafd-v4.0.0", "data/cuteafd-v4", env=env)
    git(project, "commit", "-q", "-m", "Rename", env=env)
    second = deploy(project, env, "-m", "Site of {sha}")
    assert second.returncode == 0, second.stderr
    files = tree(remote, env)
    assert "reports/cuteafd-v4/speed.html" in files
    assert not any(f.startswith(REPORT + "/") for f in files)
    # The branch's tree is exactly the second site plus .nojekyll.
    out = project.parent / "second"
    assert run_sitegen("build", "-q", "-d", str(out), cwd=project).returncode == 0
    built = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == built - {MANIFEST} | {".nojekyll"}  # the list of what the build wrote is not published
    assert git(remote, "cat-file", "-p", "gh-pages:reports/cuteafd-v4/index.html", env=env) == \
        (out / "reports/cuteafd-v4/index.html").read_text().strip()
    # Two commits, the second on top of the first; the message names the new source commit.
    log = git(remote, "log", "--format=%s", "gh-pages", env=env).splitlines()
    assert log == [f"Site of {git(project, 'rev-parse', 'HEAD', env=env)}", f"Deploy {source} with sitegen 0.1.0"]
    # The working tree, the index and the checked-out branch are untouched.
    assert git(project, "status", "--porcelain", env=env) == ""
    assert git(project, "symbolic-ref", "--short", "HEAD", env=env) == "main"
    assert git(project, "rev-parse", "gh-pages", env=env) == git(remote, "rev-parse", "gh-pages", env=env)


def test_fresh_clone_deploys_on_top_of_the_remote_branch(repo, tmp_path_factory):
    project, remote, env = repo
    assert deploy(project, env).returncode == 0
    first = git(remote, "rev-parse", "gh-pages", env=env)
    git(project, "push", "-q", "origin", "main", env=env)
    clone = tmp_path_factory.mktemp("clone") / "project"
    git(project.parent, "clone", "-q", "-b", "main", str(remote), str(clone), env=env)
    result = deploy(clone, env)  # no local gh-pages here: builds on the remote's, no --force needed
    assert result.returncode == 0, result.stderr
    assert git(remote, "rev-parse", "gh-pages~1", env=env) == first


def test_refuses_outside_a_git_repository(project):
    result = deploy(project, git_env(project.parent))
    one_error(result, "not inside a git repository")


def test_refuses_a_dirty_tree_unless_allowed(repo):
    project, remote, env = repo
    path = project / "data/cuteafd-v4.0.0/lede.md"
    path.write_text(path.read_text() + "\nAn edit not yet committed.\n")
    one_error(deploy(project, env), "uncommitted changes", "data/cuteafd-v4.0.0/lede.md", "--allow-dirty")
    assert git(remote, "branch", "--list", env=env) == ""  # nothing pushed
    result = deploy(project, env, "--allow-dirty")
    assert result.returncode == 0, result.stderr
    assert git(remote, "log", "-1", "--format=%s", "gh-pages", env=env).endswith("(with uncommitted changes)")


def test_built_site_folder_does_not_count_as_a_change(repo):
    project, remote, env = repo
    (project / ".gitignore").unlink()
    git(project, "commit", "-q", "-am", "No ignore file", env=env)
    assert run_sitegen("build", "-q", cwd=project).returncode == 0  # site/ now untracked
    result = deploy(project, env)
    assert result.returncode == 0, result.stderr


def test_refuses_a_missing_remote(repo):
    project, remote, env = repo
    one_error(deploy(project, env, "--remote", "upstream"), "no git remote named 'upstream'")


def test_refuses_to_deploy_onto_the_checked_out_branch(repo):
    project, remote, env = repo
    one_error(deploy(project, env, "--branch", "main"), "'main' is the branch checked out here")


def test_force_replaces_a_remote_branch_rewritten_elsewhere(repo):
    """The remote's branch no longer holds our deploys: refused with advice; --force replaces it."""
    project, remote, env = repo
    assert deploy(project, env).returncode == 0
    ours = git(remote, "rev-parse", "gh-pages", env=env)
    empty = git(remote, "mktree", env=env)  # stdin is empty: the empty tree
    other = git(remote, "commit-tree", empty, "-m", "history written elsewhere", env=env)
    git(remote, "update-ref", "refs/heads/gh-pages", other, env=env)

    one_error(deploy(project, env), "history that the local 'gh-pages' lacks", "--force")
    assert git(remote, "rev-parse", "gh-pages", env=env) == other  # nothing pushed

    result = deploy(project, env, "--force")
    assert result.returncode == 0, result.stderr
    log = git(remote, "log", "--format=%H %s", "gh-pages", env=env).splitlines()
    assert [line.split(" ", 1)[1][:7] for line in log] == ["Deploy ", "Deploy "]
    assert log[1].split()[0] == ours  # on top of our own history; the rewritten one is gone
    assert "index.html" in tree(remote, env)


def test_deploys_from_two_clones_in_turn_need_no_force(repo, tmp_path_factory):
    project, remote, env = repo
    git(project, "push", "-q", "origin", "main", env=env)
    clone = tmp_path_factory.mktemp("clone") / "project"
    git(project.parent, "clone", "-q", "-b", "main", str(remote), str(clone), env=env)
    for where in (project, clone, project, clone):
        result = deploy(where, env)
        assert result.returncode == 0, result.stderr
    assert len(git(remote, "log", "--format=%s", "gh-pages", env=env).splitlines()) == 4


def test_config_names_remote_and_branch(repo):
    project, remote, env = repo
    git(project, "remote", "rename", "origin", "publish", env=env)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text() + "remote_name: publish\nremote_branch: pages\n")
    git(project, "commit", "-q", "-am", "Publish to pages", env=env)
    result = deploy_cli(project, env, "-q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "index.html" in tree(remote, env, "pages")
    assert json.loads(git(remote, "cat-file", "-p", f"pages:{REPORT}/SUMMARY.json", env=env))["schema_version"] == 1


def deploy_here(project: Path, env: dict[str, str], monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """gh-deploy in this process (quick, for refusals that come before the build)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    capsys.readouterr()
    code = cli.main(["gh-deploy", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def refs(project: Path, env: dict[str, str]) -> str:
    return git(project, "for-each-ref", "--format=%(refname) %(objectname)", env=env)


def test_refuses_a_source_branch_that_is_not_checked_out(repo, monkeypatch, capsys):
    """From a feature branch, `-b main` would put the site on top of main's sources and push it."""
    project, remote, env = repo
    git(project, "checkout", "-q", "-b", "feature", env=env)
    before = refs(project, env)
    code, _, err = deploy_here(project, env, monkeypatch, capsys, "-b", "main")
    one_error_line(code, err, "'main' shares history with the commit being deployed", "--branch")
    assert refs(project, env) == before and git(remote, "branch", "--list", env=env) == ""


def test_refuses_a_remote_source_branch(repo, monkeypatch, capsys):
    project, remote, env = repo
    git(project, "push", "-q", "origin", "main:trunk", env=env)  # only the remote has it
    code, _, err = deploy_here(project, env, monkeypatch, capsys, "-b", "trunk")
    one_error_line(code, err, "remote's branch (origin) 'trunk' shares history")
    assert git(remote, "rev-parse", "trunk", env=env) == git(project, "rev-parse", "main", env=env)


@pytest.mark.parametrize("name", ["HEAD", "-x", "a..b", "pages.lock", "a b", "@{-1}"])
def test_refuses_an_invalid_branch_name(repo, monkeypatch, capsys, name):
    project, remote, env = repo
    before = refs(project, env)
    code, _, err = deploy_here(project, env, monkeypatch, capsys, f"--branch={name}")
    one_error_line(code, err, "not a valid branch name")
    assert refs(project, env) == before


def test_refuses_a_branch_checked_out_in_another_worktree(repo, monkeypatch, capsys, tmp_path_factory):
    project, remote, env = repo
    empty = git(project, "mktree", env=env)
    site = git(project, "commit-tree", empty, "-m", "a site branch of its own history", env=env)
    git(project, "branch", "pages", site, env=env)
    other = tmp_path_factory.mktemp("worktrees") / "pages"
    git(project, "worktree", "add", "-q", str(other), "pages", env=env)
    code, _, err = deploy_here(project, env, monkeypatch, capsys, "-b", "pages")
    one_error_line(code, err, "'pages' is checked out in the work tree", str(other.name))
    assert git(project, "rev-parse", "pages", env=env) == site


def test_ignored_inputs_are_not_published_as_the_commit(repo, monkeypatch, capsys):
    """An ignored report folder and an ignored docs file would be published under the commit's name."""
    project, remote, env = repo
    (project / ".gitignore").write_text("site/\ndata/private/\n*.secret\n")
    git(project, "commit", "-q", "-am", "Ignore private things", env=env)
    shutil.copytree(project / "data" / "cuteafd-v4.0.0", project / "data" / "private")
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "creds.secret").write_text("token")
    code, _, err = deploy_here(project, env, monkeypatch, capsys)
    line = one_error_line(code, err, "does not hold", "--allow-dirty")
    assert "(data/private/SUMMARY.json, data/private/lede.md, docs/creds.secret;" in line
    assert git(remote, "branch", "--list", env=env) == ""
    (project / "docs" / "creds.secret").unlink()
    code, _, err = deploy_here(project, env, monkeypatch, capsys, "--allow-dirty", "-q")
    assert code == 0, err
    assert git(remote, "log", "-1", "--format=%s", "gh-pages", env=env).endswith("(with uncommitted changes)")


@pytest.mark.parametrize("message", ["{sha:>300000000}", "{sha!r}", "{0}", "{}", "{sha[0]}", "{version.x}", "Deploy {sha"])
def test_message_takes_only_the_bare_placeholders(repo, monkeypatch, capsys, message):
    project, remote, env = repo
    tracemalloc.start()
    try:
        code, _, err = deploy_here(project, env, monkeypatch, capsys, "-m", message)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, peak  # formatting the pad would allocate 300 MB (and take seconds)
    one_error_line(code, err, "--message")
    assert git(project, "branch", "--list", "gh-pages", env=env) == ""


def test_message_with_literal_braces(repo):
    project, remote, env = repo
    result = deploy(project, env, "-q", "-m", "{{site}} of {sha}, sitegen {version}")
    assert result.returncode == 0, result.stderr
    sha = git(project, "rev-parse", "HEAD", env=env)
    assert git(remote, "log", "-1", "--format=%s", "gh-pages", env=env) == f"{{site}} of {sha}, sitegen 0.1.0"
