"""The build cache is data, trusted only when it is this user's own (issue 26, findings 1 and 2).

An attacker's entries are planted as they would be: made by a real build in a cache of the
attacker's own (their own key), then rewritten into payloads that run code if unpickled,
unmarshalled or loaded as Jinja bytecode, and pages with a script in them. Whatever the victim's
build does with them, it must run nothing (a marker file would prove it) and write the same bytes
as a build without any cache.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cache_attack import _entries
from conftest import ROOT, run_sitegen

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".sitegen-manifest"}


def _build(project: Path, site: Path, home: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    out = run_sitegen("build", "-q", "-d", str(site), *extra, cwd=project, env=env)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture
def small_project(tmp_path) -> Path:
    project = tmp_path / "project"
    for rid in ("cuteafd-v3.0.1", "ledger-gpqa-k4-v080-v090"):
        shutil.copytree(ROOT / "data" / rid, project / "data" / rid, ignore=shutil.ignore_patterns("*.py"))
    (project / "mkdocs.yml").write_text("site_name: Trust\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return project


def _planted_cache(project: Path, tmp_path: Path, marker: Path) -> Path:
    """A cache made by the attacker's own build, every entry rewritten under the attacker's own key."""
    attacker = tmp_path / "attacker"
    where = attacker / "cache"
    _build(project, tmp_path / "attacker-site", attacker, "--cache-dir", str(where))
    code = ("import sys, os\nfrom pathlib import Path\nsys.path.insert(0, sys.argv[3])\n"
            "from site_gen.building import cache\nfrom cache_attack import _entries, _evil\n"
            "cache.configure(Path(sys.argv[1]))\n"
            "for kind, name, path in list(_entries(Path(sys.argv[1]))):\n"
            "    payload = cache.read(kind, name)\n"
            "    if payload is not None:\n"
            "        cache.write(kind, name, _evil(kind, payload, Path(sys.argv[2])))\n")
    env = {**os.environ, "HOME": str(attacker), "XDG_CACHE_HOME": str(attacker / ".cache")}
    subprocess.run([sys.executable, "-c", code, str(where), str(marker), str(ROOT / "tests")], env=env, check=True,
                   cwd=ROOT, timeout=120)
    assert any(True for _ in _entries(where))
    return where


def test_a_cache_copied_from_another_users_runs_nothing_and_changes_no_page(small_project, tmp_path):
    """An entry made elsewhere (a cache restored from a shared store, copied from another user, shipped
    in a repository) fails this user's key: no planted code runs, no planted script reaches a page,
    and a receipt edit reaches every page it should."""
    marker = tmp_path / "ran"
    planted = _planted_cache(small_project, tmp_path, marker)
    victim = tmp_path / "victim"
    mine = tmp_path / "victim-cache"
    shutil.copytree(planted, mine)  # restored by the victim: the files are the victim's own now
    plain, cached = tmp_path / "plain", tmp_path / "cached"
    _build(small_project, plain, victim, "--no-cache")
    _build(small_project, cached, victim, "--cache-dir", str(mine))
    assert not marker.exists()
    assert _tree(cached) == _tree(plain)
    assert not any(b"planted" in data for data in _tree(cached).values())
    receipt = small_project / "data" / "cuteafd-v3.0.1" / "SUMMARY.json"
    receipt.write_text(receipt.read_text().replace('"title": "', '"title": "Edited ', 1))
    _build(small_project, plain, victim, "--no-cache")
    _build(small_project, cached, victim, "--cache-dir", str(mine))
    assert not marker.exists() and _tree(cached) == _tree(plain)
    assert b"Edited " in _tree(cached)["reports/cuteafd-v3.0.1/index.html"]


@pytest.mark.parametrize("how", ["owner", "writable"])
def test_a_cache_folder_that_is_not_yours_alone_is_not_used(small_project, tmp_path, how):
    """A cache folder another user owns (or anyone may write to) is ignored, with one warning: a
    planted entry there runs nothing and the pages are a build's without cache."""
    if how == "owner" and os.getuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    marker = tmp_path / "ran"
    planted = _planted_cache(small_project, tmp_path, marker)
    victim = tmp_path / "victim"
    # The victim's own key, so that the planted entries would pass if the folder were trusted
    # (the attacker who owns the folder could also have read a key kept in it).
    (victim / ".cache" / "sitegen").mkdir(parents=True, mode=0o700)
    shutil.copy(tmp_path / "attacker" / ".cache" / "sitegen" / "secret", victim / ".cache" / "sitegen" / "secret")
    for path in [planted, *planted.rglob("*")]:
        if how == "owner":
            os.chown(path, 65534, 65534)
        else:
            path.chmod(0o777 if path.is_dir() else 0o666)
    plain, cached = tmp_path / "plain", tmp_path / "cached"
    _build(small_project, plain, victim, "--no-cache")
    out = _build(small_project, cached, victim, "--cache-dir", str(planted))
    assert not marker.exists()
    assert _tree(cached) == _tree(plain)
    warnings = [line for line in out.stderr.splitlines() if "build cache is off" in line]
    assert len(warnings) == 1 and str(planted) in warnings[0], out.stderr


def test_with_no_absolute_home_there_is_no_cache_and_nothing_is_written_in_the_project(small_project, tmp_path):
    """HOME unset and no account entry: `~` would be a folder named `~` in the project."""
    code = ("import pwd, sys\n"
            "def missing(uid): raise KeyError(uid)\n"
            "pwd.getpwuid = missing\n"
            "sys.argv = ['sitegen', 'build', '-q', '-d', sys.argv[1]]\n"
            "from site_gen.cli import main\n"
            "raise SystemExit(main())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    for relative in (None, "cache-here"):
        if relative:
            env["XDG_CACHE_HOME"] = relative
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")], cwd=small_project, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert sorted(p.name for p in small_project.iterdir()) == ["data", "mkdocs.yml"]


def test_a_cache_dir_inside_the_site_or_an_input_is_not_used(small_project, tmp_path):
    """A cache in docs/ or data/ would be published or shipped with the project."""
    home = tmp_path / "home"
    (small_project / "docs").mkdir()
    for inside in (small_project / "data" / "cache", small_project / "docs" / "cache"):
        out = run_sitegen("build", "-q", "-d", str(tmp_path / "site"), "--cache-dir", str(inside), cwd=small_project,
                          env={"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")})
        assert out.returncode in (0, 1), out.stderr
        assert not (inside.exists() and any(inside.iterdir()))
        assert not (tmp_path / "site" / "cache").exists()


def test_an_edited_template_override_reaches_every_page_of_a_cached_build(small_project, tmp_path):
    """The key covers custom_dir's content, not its path: an edited override is never served stale."""
    theme = small_project / "theme"
    theme.mkdir()
    base = (ROOT / "site_gen" / "templates" / "base.html").read_text(encoding="utf-8")
    (theme / "base.html").write_text(base, encoding="utf-8")
    yml = small_project / "mkdocs.yml"
    yml.write_text(yml.read_text() + "      custom_dir: theme\n")
    home, where = tmp_path / "home", tmp_path / "cache"
    plain, cached = tmp_path / "plain", tmp_path / "cached"
    _build(small_project, cached, home, "--cache-dir", str(where))
    (theme / "base.html").write_text(base.replace("</body>", "<!-- override edited --></body>"), encoding="utf-8")
    _build(small_project, cached, home, "--cache-dir", str(where))
    _build(small_project, plain, home, "--no-cache")
    assert _tree(cached) == _tree(plain)
    pages = [d for n, d in _tree(cached).items() if n.endswith(".html")]
    assert sum(b"override edited" in d for d in pages) >= len(pages) - 1  # all but 404.html, which has a base of its own


def _tamperings(root: Path):
    """Ways a cache folder gets damaged or edited, each applied to a fresh copy."""
    entries = list(_entries(root))

    def flip(path: Path) -> None:
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 1
        path.write_bytes(bytes(data))

    yield "a flipped byte in every entry", lambda: [flip(p) for _, _, p in entries]
    yield "every entry cut short", lambda: [p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]) for _, _, p in entries]
    yield "entries swapped between names", lambda: [
        shutil.copy(entries[(i + 1) % len(entries)][2], p) for i, (_, _, p) in enumerate(entries[:-1])]
    yield "a new key", lambda: (root.parent / "home" / ".cache" / "sitegen" / "secret").unlink()
    yield "an entry replaced by a folder", lambda: [(p.unlink(), p.mkdir()) for _, _, p in entries[:1]]


def test_a_build_after_any_tampering_equals_a_build_without_cache(small_project, tmp_path):
    home, where = tmp_path / "home", tmp_path / "cache"
    plain = tmp_path / "plain"
    _build(small_project, plain, home, "--no-cache")
    expected = _tree(plain)
    _build(small_project, tmp_path / "first", home, "--cache-dir", str(where))
    kept = tmp_path / "kept"
    shutil.copytree(where, kept)
    secret = (home / ".cache" / "sitegen" / "secret").read_bytes()
    for what, tamper in _tamperings(where):
        shutil.rmtree(where)
        shutil.copytree(kept, where)
        (home / ".cache" / "sitegen" / "secret").write_bytes(secret)
        tamper()
        site = tmp_path / "site"
        shutil.rmtree(site, ignore_errors=True)
        _build(small_project, site, home, "--cache-dir", str(where))
        assert _tree(site) == expected, what
        # And again, from the entries that build made afresh.
        _build(small_project, site, home, "--cache-dir", str(where))
        assert _tree(site) == expected, what


def test_nothing_read_from_the_cache_is_code(small_project, tmp_path):
    """A warm build loads no pickle, no marshalled code and no Jinja bytecode (every kind of entry
    is data); its own entries are JSON or files."""
    # Python's own imports unmarshal .pyc files: only what the cache handed out must never be loaded.
    code = ("import sys, pickle, marshal, jinja2.bccache\n"
            "from site_gen.building import cache\n"
            "handed = []\n"
            "read = cache.read\n"
            "def reading(kind, name):\n"
            "    data = read(kind, name)\n"
            "    if data is not None: handed.append(bytes(data))\n"
            "    return data\n"
            "cache.read = reading\n"
            "def guard(load):\n"
            "    def loading(data, *a, **k):\n"
            "        if any(bytes(data) in h for h in handed): raise SystemExit('cache data loaded as code')\n"
            "        return load(data, *a, **k)\n"
            "    return loading\n"
            "pickle.loads, marshal.loads = guard(pickle.loads), guard(marshal.loads)\n"
            "def refuse(*a, **k): raise SystemExit('Jinja bytecode loaded')\n"
            "jinja2.bccache.Bucket.load_bytecode = refuse\n"
            "which = sys.argv[3]\n"
            "sys.argv = ['sitegen', 'build', '-q', '-d', sys.argv[1], '--cache-dir', sys.argv[2]]\n"
            "from site_gen.cli import main\n"
            "code = main()\n"
            "assert handed or which == 'cold', 'the warm build read no entry'\n"
            "raise SystemExit(code)\n")
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    for n in range(2):  # cold, then warm
        if n:
            (small_project / "data" / "cuteafd-v3.0.1" / "SUMMARY.json").touch()  # not the whole site: its reports
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site"), str(tmp_path / "cache"),
                              "warm" if n else "cold"], cwd=small_project, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
    entries = list(_entries(tmp_path / "cache"))
    kinds = {kind for kind, _, _ in entries}
    assert kinds and kinds <= {"record", "files", "files-index", "sites", "site-files", "digests", "templates", "rows", "page",
                               "changes"}, kinds
    for kind, _, path in entries:  # every kind but a report's files (packed bytes) is JSON
        if kind != "files":
            payload = path.read_bytes().split(b"\n", 2)[2]
            json.loads(payload)
