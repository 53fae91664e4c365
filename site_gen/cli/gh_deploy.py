"""`sitegen gh-deploy`: build, commit the site to a branch (gh-pages), push it — as `mkdocs gh-deploy`.

Only git plumbing is used: the site's files become blobs, a temporary index becomes a tree whose
contents are exactly the site plus `.nojekyll`, and that tree is committed on top of the branch.
The working tree, the real index and the checked-out branch are never touched.
"""
from __future__ import annotations

import argparse
import os
import posixpath
import string
import subprocess
import tempfile
from pathlib import Path

from site_gen import api
from site_gen.api import SitegenError
from site_gen.cli.util import add_common, load, say, warn

HELP = "Build the site and publish it to a branch (gh-pages) of the project's git repository."
EPILOG = """examples:
  sitegen gh-deploy                          # build, commit to gh-pages, push to origin
  sitegen gh-deploy --remote upstream --branch pages -m "Publish {sha}"
  sitegen gh-deploy --force                  # replace the remote branch even if it has other commits

The branch holds the built site only, with .nojekyll (GitHub Pages serves files as they are).
Each deploy adds one commit, "Deploy <source commit> with sitegen <version>", on top of the
remote branch (a custom domain's CNAME file goes in docs/, so every deploy carries it). Set
site_url in mkdocs.yml to the published address for canonical links, sitemap.xml, link-preview
images and a 404 page that works at any depth.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("gh-deploy", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("-r", "--remote", "--remote-name", dest="remote", metavar="NAME",
                   help="git remote to push to (default: remote_name of the config, 'origin')")
    p.add_argument("-b", "--branch", "--remote-branch", dest="branch", metavar="BRANCH",
                   help="branch to commit the site to (default: remote_branch of the config, 'gh-pages')")
    p.add_argument("-m", "--message", metavar="MESSAGE",
                   help="commit message; {sha} and {version} are replaced (default: 'Deploy {sha} with sitegen {version}')")
    p.add_argument("--force", action="store_true", help="force the push: replace the remote branch whatever it holds")
    p.add_argument("--allow-dirty", action="store_true",
                   help="deploy even with uncommitted changes (the message then says so)")
    p.add_argument("-s", "--strict", action="store_true", help="treat build warnings as errors")
    p.set_defaults(run=run, collect_between=True)  # cli `collector`


def git(args: list[str], cwd: Path, *, env: dict | None = None, input: bytes | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True,
                                env={**os.environ, **(env or {})}, timeout=300)
    except FileNotFoundError:
        raise SitegenError("git is not installed (gh-deploy needs the git command)") from None
    if check and result.returncode != 0:
        raise SitegenError(f"git {args[0]} failed: {last_line(result.stderr) or 'exit status ' + str(result.returncode)}")
    return result


def last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.lower().startswith(("fatal:", "error:", "!"))]
    return (errors or lines or [""])[-1]


def out(result: subprocess.CompletedProcess) -> str:
    return result.stdout.decode("utf-8", "replace").strip()


def repository(root: Path) -> Path:
    result = git(["rev-parse", "--show-toplevel"], root, check=False)
    if result.returncode != 0:
        raise SitegenError(f"{root} is not inside a git repository; gh-deploy publishes to a branch of the project's "
                           "repository (run 'git init' and commit the project first)")
    return Path(out(result))


def source_commit(repo: Path, allow_dirty: bool, site_dir: Path) -> tuple[str, bool]:
    head = git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repo, check=False)
    if head.returncode != 0:
        raise SitegenError("the repository has no commit yet; commit the project first, so the deploy can name its source")
    status = git(["status", "--porcelain", "--untracked-files=normal"], repo).stdout.decode("utf-8", "replace")
    try:  # a previous `sitegen build` output (or its staging folder) left untracked is not a change to the sources
        site = site_dir.resolve().relative_to(repo.resolve()).as_posix()
        built: tuple[str, ...] = (site.rstrip("/") + "/", posixpath.join(posixpath.dirname(site), f"{api.site_prefix()}{posixpath.basename(site)}."))
    except ValueError:
        built = ()
    changed = [line[3:] for line in status.splitlines() if line.strip() and not line[3:].startswith(built)]
    if changed and not allow_dirty:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        raise SitegenError(f"the working tree has uncommitted changes ({changed[0]}{more}); commit them so the deploy "
                           "names the source it was built from, or pass --allow-dirty")
    return out(head), bool(changed)


def message_template(template: str) -> str:
    """The commit message template, refused unless its only fields are a bare {sha} and {version}
    (a format spec such as `{sha:>300000000}` would build a message of any size)."""
    try:
        fields = [f for f in string.Formatter().parse(template) if f[1] is not None]
    except ValueError as exc:
        raise SitegenError(f"--message: {exc} (write {{{{ and }}}} for a literal brace)") from None
    for _, name, spec, conversion in fields:
        if name not in ("sha", "version") or spec or conversion:
            field = "{" + str(name) + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise SitegenError(f"--message: only {{sha}} and {{version}} can be filled in, as they are; found {field[:60]}")
    return template


def check_branch_name(repo: Path, branch: str) -> None:
    named = git(["check-ref-format", "--branch", branch], repo, check=False)
    if named.returncode != 0 or out(named) != branch:
        raise SitegenError(f"--branch: {branch!r} is not a valid branch name (git check-ref-format --branch refuses it)")


def check_not_checked_out(repo: Path, branch: str) -> None:
    """Moving a branch that a work tree has checked out would leave that tree's files and index stale."""
    worktree = None
    for line in out(git(["worktree", "list", "--porcelain"], repo)).splitlines():
        if line.startswith("worktree "):
            worktree = line[len("worktree "):]
        elif line == f"branch refs/heads/{branch}":
            if worktree and Path(worktree).resolve() == repo.resolve():
                raise SitegenError(f"'{branch}' is the branch checked out here; gh-deploy replaces its files with the built "
                                   "site: deploy from the project's own branch, or pass --branch NAME")
            raise SitegenError(f"'{branch}' is checked out in the work tree {worktree}; gh-deploy would move it under "
                               "that tree: pass --branch NAME of a branch no work tree has checked out")


def check_site_branch(repo: Path, branch: str, tip: str | None, where: str) -> None:
    """A site branch holds deploys only: one that shares history with the sources is a source branch."""
    if tip and git(["merge-base", "HEAD", tip], repo, check=False).returncode == 0:
        raise SitegenError(f"{where} '{branch}' shares history with the commit being deployed: it holds sources, not a "
                           "built site, and gh-deploy would put the site on top of it; pass --branch NAME of the site's "
                           "own branch (default gh-pages)")


def uncommitted_inputs(repo: Path, config) -> list[str]:
    """Files the build reads (and may publish) that the source commit does not hold: ignored or untracked."""
    inputs = api.deploy_inputs(config)
    tracked = {os.fsdecode(p) for p in git(["ls-files", "-z"], repo).stdout.split(b"\0") if p}
    root, found = repo.resolve(), []
    for path in inputs:
        real = path.resolve()  # a linked report folder is tracked where it points
        try:
            rel = real.relative_to(root).as_posix()
        except ValueError:
            rel = None
        if rel not in tracked:
            found.append(rel or str(path))
    return found


def remote_tip(repo: Path, remote: str, branch: str) -> str | None:
    """Fetches the remote branch into its remote-tracking ref; its commit, or None when it does not exist."""
    if git(["remote", "get-url", remote], repo, check=False).returncode != 0:
        raise SitegenError(f"no git remote named '{remote}' (add one with 'git remote add {remote} URL', or pass --remote NAME)")
    listed = git(["ls-remote", "--exit-code", "--heads", remote, f"refs/heads/{branch}"], repo, check=False)
    if listed.returncode == 2:
        return None
    if listed.returncode != 0:
        raise SitegenError(f"cannot reach git remote '{remote}': {last_line(listed.stderr)}")
    git(["fetch", "--quiet", "--no-tags", remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"], repo)
    return out(git(["rev-parse", "--verify", f"refs/remotes/{remote}/{branch}^{{commit}}"], repo))


def local_tip(repo: Path, branch: str) -> str | None:
    result = git(["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}"], repo, check=False)
    return out(result) if result.returncode == 0 else None


def is_ancestor(repo: Path, a: str, b: str) -> bool:
    return git(["merge-base", "--is-ancestor", a, b], repo, check=False).returncode == 0


def parent_commit(repo: Path, local: str | None, remote: str | None, branch: str, force: bool) -> str | None:
    """The commit the deploy goes on top of.

    The remote's tip when the local branch is missing (a fresh clone, CI) or behind it (a deploy
    from another machine), so no --force is needed for those; the local tip when it is ahead
    (a deploy whose push failed). When the two have diverged (the remote branch was rewritten
    elsewhere) only --force goes on, and replaces the remote's history with the local one.
    """
    if local is None or remote is None or local == remote:
        return remote or local
    if is_ancestor(repo, local, remote):
        return remote
    if is_ancestor(repo, remote, local) or force:
        return local
    raise SitegenError(f"the remote's '{branch}' has history that the local '{branch}' lacks (rewritten elsewhere?); "
                       f"pass --force to replace it with this deploy, or delete the local branch "
                       f"('git branch -D {branch}') to deploy on top of it")


def site_tree(repo: Path, files: dict[str, bytes]) -> str:
    """A tree object holding exactly `files` (and .nojekyll), built in a throwaway index."""
    files = {**files, ".nojekyll": b""}
    with tempfile.TemporaryDirectory(prefix="sitegen-deploy-") as tmp:
        root = Path(tmp) / "site"
        paths = sorted(files)
        for path in paths:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(files[path])
        listing = "".join(str(root / p) + "\n" for p in paths).encode("utf-8")
        blobs = out(git(["hash-object", "-w", "--no-filters", "--stdin-paths"], repo, input=listing)).split()
        if len(blobs) != len(paths):
            raise SitegenError("git hash-object did not store every file of the site")
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        entries = b"".join(f"100644 {sha}\t{path}".encode() + b"\0" for sha, path in zip(blobs, paths))
        git(["update-index", "--add", "-z", "--index-info"], repo, env=index, input=entries)
        return out(git(["write-tree"], repo, env=index))


def run(args) -> int:
    config = load(args)
    remote = args.remote or config.remote_name or "origin"
    branch = args.branch or config.remote_branch or "gh-pages"
    template = message_template(args.message or "Deploy {sha} with sitegen {version}")
    repo = repository(config.root)
    check_branch_name(repo, branch)
    sha, dirty = source_commit(repo, args.allow_dirty, config.site_dir)
    check_not_checked_out(repo, branch)
    local = local_tip(repo, branch)
    check_site_branch(repo, branch, local, "the local branch")
    unheld = uncommitted_inputs(repo, config)
    if unheld and not args.allow_dirty:
        named = ", ".join(unheld[:3]) + (f" and {len(unheld) - 3} more" if len(unheld) > 3 else "")
        raise SitegenError(f"the build reads files that commit {sha[:12]} does not hold ({named}; ignored or untracked): "
                           "they would be published as if built from it; commit them, move them out of the site's "
                           "sources, or pass --allow-dirty")
    dirty = dirty or bool(unheld)

    result = api.build_files(config)
    if args.strict:  # decided here, once, on every warning the build found, before anything is committed
        api.refuse_warnings(result.warnings)
    for warning in result.warnings:
        warn(warning)
    say(args, f"Built {result.pages} pages from {result.reports} report{'s' if result.reports != 1 else ''} "
              f"in {result.seconds:.2f} s")

    remote_head = remote_tip(repo, remote, branch)
    check_site_branch(repo, branch, remote_head, f"the remote's branch ({remote})")
    parent = parent_commit(repo, local, remote_head, branch, args.force)
    tree = site_tree(repo, result.files)
    message = template.format(sha=sha, version=api.__version__)
    if dirty and not args.message:
        message += " (with uncommitted changes)"
    commit = out(git(["commit-tree", tree, *(["-p", parent] if parent else []), "-m", message], repo))
    git(["update-ref", "-m", f"sitegen gh-deploy: {message}", f"refs/heads/{branch}", commit], repo)
    say(args, f"Committed {commit[:12]} to {branch}: {message}")

    push = git(["push", "--porcelain", *(["--force"] if args.force else []), remote, f"refs/heads/{branch}:refs/heads/{branch}"],
               repo, check=False)
    if push.returncode != 0:
        detail = (push.stdout + push.stderr).decode("utf-8", "replace")
        if "non-fast-forward" in detail or "[rejected]" in detail or "fetch first" in detail:
            raise SitegenError(f"the remote's '{branch}' changed while deploying (another deploy at the same time?); "
                               "run again to deploy on top of it")
        raise SitegenError(f"git push to '{remote}' failed: {last_line(push.stderr)}")
    say(args, f"Pushed {branch} to {remote}" + (f"; the site will be at {config.site_url}" if config.site_url else ""))
    return 0
