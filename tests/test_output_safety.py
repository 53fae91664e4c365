"""A build deletes nothing that is not the site's: a site folder in or around a source is refused,
the old site's dot-files stay, a folder that cannot be swapped is replaced in place, staging folders
of killed builds are ignored by git and removed later, a read-only old site does not strand a copy;
`sitegen new` writes all or nothing; docs files a generated page replaces are reported."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import one_error_line
from site_gen import cli
from site_gen.building import write
from site_gen.core.errors import SitegenError

REPORT = "example-report"


def new_project(root: Path, capsys) -> Path:
    """The small site `sitegen new` makes (one receipt, one page): quick to build."""
    assert cli.main(["new", "-q", str(root)]) == 0
    capsys.readouterr()
    return root


def build(root: Path, capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["build", "-q", "-f", str(root / "mkdocs.yml"), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def snapshot(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        kind = "dir" if stat.S_ISDIR(st.st_mode) else hashlib.sha256(path.read_bytes()).hexdigest()
        out[path.relative_to(root).as_posix()] = f"{kind} {oct(st.st_mode)}"
    return out


def beside(root: Path) -> list[str]:
    """Hidden folders a build left beside the site (staging, an old copy)."""
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".") and p.name not in (".gitignore", ".git", ".github"))


# -- 1. a site folder that is, holds or lies in a source --------------------------------------------

@pytest.mark.parametrize("site_dir", [f"data/{REPORT}", "data", "docs", "docs/guide", ".git", ".git/site",
                                      "vendor/.hg/site", ".", "..", "theme", "theme/out"])
def test_site_folder_in_or_around_a_source_is_refused(tmp_path, capsys, site_dir):
    root = new_project(tmp_path / "project", capsys)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "docs" / "guide").mkdir()
    (root / "docs" / "guide" / "start.md").write_text("# Start\n")
    (root / "theme").mkdir()
    (root / "theme" / "sitegen.css").write_text("body {}\n")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("data_dir: data", "data_dir: data\n      custom_dir: theme"))
    before = snapshot(tmp_path)
    code, _, err = build(root, capsys, "-d", str(root / site_dir))
    one_error_line(code, err, "choose another output folder")
    assert snapshot(tmp_path) == before


def test_site_dir_inside_docs_is_refused_rather_than_nested_into_itself(tmp_path, capsys):
    root = new_project(tmp_path / "project", capsys)
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("site_dir: site", "site_dir: docs/out"))
    code, _, err = build(root, capsys)
    one_error_line(code, err, "docs/out", "lies inside", "choose another output folder")
    assert not (root / "docs" / "out").exists()


def test_check_site_dir_accepts_a_sibling_of_the_sources(tmp_path):
    write.check_site_dir(tmp_path / "site", [tmp_path / "data", tmp_path / "docs", tmp_path / "mkdocs.yml"])
    with pytest.raises(SitegenError, match="version-control"):
        write.check_site_dir(tmp_path / "x" / ".svn" / "site", [tmp_path / "data"])


# -- 3. the old site's dot-files ---------------------------------------------------------------------

def test_dot_files_of_the_old_site_are_kept_as_links_not_copies(tmp_path, capsys):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    (site / ".git" / "objects").mkdir(parents=True)
    (site / ".git" / "objects" / "pack").write_bytes(b"x" * 1000)
    (site / ".well-known").mkdir()
    (site / ".well-known" / "security.txt").write_text("Contact: mailto:a@example.invalid\n")
    (site / ".htaccess").write_text("ErrorDocument 404 /404.html\n")
    inode = (site / ".git" / "objects" / "pack").stat().st_ino
    for args in ((), ("--clean",)):
        code, _, err = build(root, capsys, *args)
        assert code == 0, err  # dot-files are not files a build failed to write: no refusal
        assert (site / ".git" / "objects" / "pack").read_bytes() == b"x" * 1000
        assert (site / ".git" / "objects" / "pack").stat().st_ino == inode  # linked, never copied
        assert (site / ".well-known" / "security.txt").read_text().startswith("Contact:")
        assert (site / ".htaccess").read_text() == "ErrorDocument 404 /404.html\n"
        assert ".htaccess" not in (site / write.MANIFEST).read_text()
    assert beside(root) == []


def test_manifest_lists_exactly_what_the_build_wrote(tmp_path, capsys):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    written = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file() and p.name != write.MANIFEST)
    assert sorted(write.manifest_names(site)) == written
    first = (site / write.MANIFEST).read_bytes()
    assert build(root, capsys)[0] == 0
    assert (site / write.MANIFEST).read_bytes() == first


# -- 4. a folder that cannot be swapped ----------------------------------------------------------------

def refuse_swap(monkeypatch, site: Path, code: int) -> None:
    """What a mount point (EBUSY) or a folder on another file system (EXDEV) gives a rename."""
    real = os.rename

    def rename(src, dst, *a, **kw):
        if Path(src) == site or Path(dst) == site:
            raise OSError(code, os.strerror(code), str(src))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(write, "exchange", lambda a, b: False)
    monkeypatch.setattr(os, "rename", rename)


@pytest.mark.parametrize("code", [errno.EBUSY, errno.EXDEV])
def test_a_site_folder_that_cannot_be_swapped_is_replaced_in_place(tmp_path, capsys, monkeypatch, code):
    root = new_project(tmp_path / "project", capsys)
    second = root / "data" / "second-report"
    second.mkdir()
    (second / "SUMMARY.json").write_bytes((root / "data" / REPORT / "SUMMARY.json").read_bytes())
    assert build(root, capsys)[0] == 0
    site = root / "site"
    (site / ".htaccess").write_text("kept")
    folder = site.stat().st_ino
    refuse_swap(monkeypatch, site.resolve(), code)
    shutil.rmtree(second)
    page = root / "docs" / "index.md"
    page.write_text(page.read_text() + "\nA new paragraph.\n")
    code_, _, err = build(root, capsys)
    assert code_ == 0, err
    assert site.stat().st_ino == folder  # the same folder, its contents replaced
    assert "A new paragraph." in (site / "index.html").read_text()
    assert not (site / "reports" / "second-report").exists()  # the last build's files of a removed report go
    assert (site / ".htaccess").read_text() == "kept"
    assert list(write.strays(site)) == [] and beside(root) == []
    monkeypatch.undo()
    # The same bytes as a build that could swap.
    code_, _, err = build(root, capsys, "-d", str(tmp_path / "swapped"))
    assert code_ == 0, err
    assert {k: v for k, v in snapshot(site).items() if k != ".htaccess"} == snapshot(tmp_path / "swapped")


def test_a_parent_that_is_not_writable_builds_elsewhere_then_in_place(tmp_path, capsys, monkeypatch):
    """Tests run as root, where permissions do not bite: the parent's refusal is simulated."""
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    (site / "index.html").write_text("stale")
    real = tempfile.mkdtemp
    made = []

    def mkdtemp(*a, dir=None, **kw):
        if dir is not None and Path(dir).resolve() == root.resolve():
            raise PermissionError(errno.EACCES, "Permission denied", str(root))
        made.append(real(*a, dir=dir, **kw))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    code, _, err = build(root, capsys)
    assert code == 0, err
    assert (site / "index.html").read_text() != "stale"
    assert made and not any(os.path.exists(p) for p in made)  # the temporary build is gone
    assert beside(root) == []


def test_in_place_with_clean_removes_strays_and_keeps_dot_files(tmp_path, capsys, monkeypatch):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    (site / "by-hand.html").write_text("mine")
    (site / ".well-known").mkdir()
    (site / ".well-known" / "x").write_text("kept")
    refuse_swap(monkeypatch, site.resolve(), errno.EBUSY)
    one_error_line(*build(root, capsys)[::2], "by-hand.html", "--clean")
    assert (site / "by-hand.html").read_text() == "mine"
    code, _, err = build(root, capsys, "--clean")
    assert code == 0, err
    assert not (site / "by-hand.html").exists() and (site / ".well-known" / "x").read_text() == "kept"


# -- 4b. the manifest names files inside the site, nothing more ---------------------------------------

def unwritable_parent(monkeypatch, root: Path) -> None:
    """A parent the user cannot write in (`/var/www/site`): no staging folder beside the site."""
    real = tempfile.mkdtemp

    def mkdtemp(*a, dir=None, **kw):
        if dir is not None and Path(dir).resolve() == root.resolve():
            raise PermissionError(errno.EACCES, "Permission denied", str(root))
        return real(*a, dir=dir, **kw)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)


def cannot_swap(monkeypatch, root: Path, mode: str) -> None:
    if mode == "mount point":
        refuse_swap(monkeypatch, (root / "site").resolve(), errno.EBUSY)
    elif mode == "unwritable parent":
        unwritable_parent(monkeypatch, root)


def outside_of(site: Path, everything: Path) -> dict[str, str]:
    """Every file, link and folder under `everything` but the site's own (and the hidden folders beside it)."""
    out = {}
    for folder, dirs, names in os.walk(everything):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d != site and not d.startswith(write.PREFIX)]
        for name in dirs + names:
            path = here / name
            st = path.lstat()
            kind = ("link " + os.readlink(path) if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode)
                    else hashlib.sha256(path.read_bytes()).hexdigest())
            out[path.relative_to(everything).as_posix()] = f"{kind} {oct(st.st_mode)}"
    return out


def victims(tmp_path: Path, root: Path) -> dict[str, Path]:
    """Files outside the site that a hand-edited manifest names: in docs/, in a folder of their own
    (whose emptied parents must stay), in a 'home' folder named by an absolute path."""
    (root / "docs" / "keep.md").write_text("# Keep me\n")
    (tmp_path / "outside" / "deep").mkdir(parents=True)
    (tmp_path / "outside" / "deep" / "only.txt").write_text("mine")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("my notes")
    return {"../docs/keep.md": root / "docs" / "keep.md",
            "../../outside/deep/only.txt": tmp_path / "outside" / "deep" / "only.txt",
            str(tmp_path / "home" / "notes.txt"): tmp_path / "home" / "notes.txt",
            "reports/../../docs/keep.md": root / "docs" / "keep.md"}


def hand_edit_manifest(site: Path, extra: list[str]) -> None:
    path = site / write.MANIFEST
    doc = json.loads(path.read_text())
    doc["files"] += extra
    path.write_text(json.dumps(doc))


MODES = ["mount point", "unwritable parent", "swap"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("clean", [False, True])
def test_a_manifest_naming_paths_outside_the_site_deletes_nothing_there(tmp_path, capsys, monkeypatch, mode, clean):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    named = victims(tmp_path, root)
    hand_edit_manifest(site, list(named))
    before = outside_of(site, tmp_path)
    cannot_swap(monkeypatch, root, mode)
    code, _, err = build(root, capsys, *(["--clean"] if clean else []))
    if clean:
        assert code == 0, err  # --clean: the list is not trusted, the site's own files are rebuilt
        assert (site / "keep.html").is_file()
    else:
        one_error_line(code, err, write.MANIFEST, "not a file inside the site folder", "--clean")
    for path in named.values():
        assert path.exists(), path
    assert outside_of(site, tmp_path) == before  # nothing above the site folder removed, emptied or written
    monkeypatch.undo()
    if clean:
        assert sorted(write.manifest_names(site)) == sorted(p.relative_to(site).as_posix() for p in site.rglob("*")
                                                       if p.is_file() and p.name != write.MANIFEST)


@pytest.mark.parametrize("mode", MODES)
def test_a_symlinked_manifest_is_never_written_through(tmp_path, capsys, monkeypatch, mode):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    target = tmp_path / "home" / "precious.json"
    target.parent.mkdir()
    target.write_text((site / write.MANIFEST).read_text())  # a manifest-like file elsewhere, so it reads as one
    (site / write.MANIFEST).unlink()
    (site / write.MANIFEST).symlink_to(target)
    before = outside_of(site, tmp_path)
    cannot_swap(monkeypatch, root, mode)
    one_error_line(*build(root, capsys)[::2], write.MANIFEST, "link")
    code, _, err = build(root, capsys, "--clean")
    assert code == 0, err
    assert outside_of(site, tmp_path) == before  # the link's target unchanged
    assert not (site / write.MANIFEST).is_symlink() and (site / "index.html").is_file()


@pytest.mark.parametrize("mode", ["mount point", "unwritable parent"])
def test_in_place_never_deletes_or_writes_through_a_link_in_the_site(tmp_path, capsys, monkeypatch, mode):
    """A folder of the site replaced by a link out (by hand, by another tool): --clean removes the
    link, never what it points to, and the new files land in the site itself."""
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(site / "reports", elsewhere)
    shutil.rmtree(site / "reports")
    (site / "reports").symlink_to(elsewhere)
    before = outside_of(site, tmp_path)
    cannot_swap(monkeypatch, root, mode)
    one_error_line(*build(root, capsys)[::2], "reports", "--clean")
    code, _, err = build(root, capsys, "--clean")
    assert code == 0, err
    assert outside_of(site, tmp_path) == before
    assert (site / "reports").is_dir() and not (site / "reports").is_symlink()
    assert (site / "reports" / REPORT / "index.html").is_file()


def test_manifest_names_are_checked_one_by_one():
    ok = ["index.html", "reports/a/index.html", "assets/sitegen.1234.css", "a b/c.html", "reports/x..y/index.html"]
    bad = ["", "/etc/passwd", "../x", "a/../../x", "a/./b", "a//b", "a\\b", ".git/config", ".htaccess", "a/b/", "x\0y",
           write.MANIFEST]
    assert [n for n in ok if not write.manifest_name_ok(n)] == []
    assert [n for n in bad if write.manifest_name_ok(n)] == []


def test_manifest_name_rule_holds_for_every_short_name():
    """Every name of up to five characters from the characters that matter, against the rule as
    written part by part."""
    import itertools

    def rule(name):
        parts = name.split("/")
        return (name != "" and "\\" not in name and "\0" not in name and not parts[0].startswith(".")
                and all(part not in ("", ".", "..") for part in parts))

    names = ["".join(t) for n in range(6) for t in itertools.product("/.ab\\\0", repeat=n)]
    assert len(names) == 9331 and sum(map(rule, names)) == 420
    assert [n for n in names if write.manifest_name_ok(n) != rule(n)] == []


def test_the_site_listing_is_what_walking_it_gives(tmp_path):
    """`site_files` lists each folder's files and links (a link to a folder is listed, not followed), then
    its folders, in name order, top-level dot entries only when asked: as os.walk finds them."""
    from site_gen.building.manifest import site_files

    root = tmp_path / "site"
    for name in ("index.html", "b/2.html", "b/1.html", "a/x/y/z.csv", "a/x/w.csv", "a/k.html", ".git/config",
                 ".well-known/s.txt", "b/.hidden", "c d/é.html", "10.html", "9.html"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / "empty" / "inner").mkdir(parents=True)
    (root / "a" / "to-b").symlink_to(root / "b", target_is_directory=True)
    (root / "a" / "to-index").symlink_to(root / "index.html")
    (root / "dangling").symlink_to(root / "nowhere")
    (root / ".htaccess").write_text("x")

    def walked(hidden):
        out = []
        for folder, dirs, names in os.walk(root):
            rel = os.path.relpath(folder, root)
            prefix = "" if rel == "." else rel + "/"
            if not hidden and not prefix:
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                names = [n for n in names if not n.startswith(".")]
            links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
            dirs[:] = sorted(d for d in dirs if d not in links)
            out += [prefix + n for n in sorted(names + links)]
        return out

    for hidden in (False, True):
        assert list(site_files(root, hidden=hidden)) == walked(hidden)
    assert "a/to-b" in walked(False) and "a/to-b/1.html" not in walked(False) and ".git/config" in walked(True)
    assert list(site_files(tmp_path / "missing", hidden=True)) == []


# -- 5. staging folders of killed builds -------------------------------------------------------------

def test_staging_of_a_killed_build_is_ignored_by_git_and_removed_later(tmp_path, capsys):
    root = new_project(tmp_path / "project", capsys)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    # A build killed with SIGKILL while it wrote its staging folder.
    killed = subprocess.run([sys.executable, "-c", "import os, signal, sys\nfrom site_gen.building.write import Staging\n"
                             "s = Staging(sys.argv[1]); s.write({'index.html': b'half'})\n"
                             "os.kill(os.getpid(), signal.SIGKILL)", str(root / "site")], env=env)
    assert killed.returncode == -signal.SIGKILL
    [stale] = beside(root)
    assert (root / stale / "index.html").read_bytes() == b"half"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, env=env,
                            capture_output=True, text=True, check=True).stdout
    assert stale not in status and "mkdocs.yml" in status  # ignored, while the sources are not

    running = write.Staging(root / "site")  # a build in progress at the same time
    try:
        old = time.time() - 2 * write.STALE_SECONDS
        for name in (stale, running.path.name):
            os.utime(root / name, (old, old))
        code, _, err = build(root, capsys)
        assert code == 0, err
        assert beside(root) == [running.path.name]  # the dead build's folder went, the live one's stayed
    finally:
        running.discard()
    assert beside(root) == []


def test_a_young_unlocked_staging_folder_is_left_alone(tmp_path, capsys):
    """A build that has just made its folder has not locked it yet."""
    root = new_project(tmp_path / "project", capsys)
    (root / f"{write.PREFIX}site.new-abc123").mkdir()
    assert build(root, capsys)[0] == 0
    assert beside(root) == [f"{write.PREFIX}site.new-abc123"]


# -- 6. a read-only part of the old site ---------------------------------------------------------------

def enforce_permissions(monkeypatch, never: str | None = None) -> None:
    """unlink and rmdir as for a user who is not root: refused in a folder without write permission
    (and, for `never`, refused always)."""
    def guarded(real):
        def call(path, *, dir_fd=None):
            folder = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else os.path.dirname(os.path.abspath(path))
            name = os.path.join(folder, os.fsdecode(path))
            if not os.stat(folder).st_mode & stat.S_IWUSR or (never and os.path.basename(name) == never):
                raise PermissionError(errno.EACCES, "Permission denied", name)
            return real(path, dir_fd=dir_fd)
        return call

    monkeypatch.setattr(os, "unlink", guarded(os.unlink))
    monkeypatch.setattr(os, "rmdir", guarded(os.rmdir))


def test_a_read_only_folder_of_the_old_site_leaves_no_copy_behind(tmp_path, capsys, monkeypatch):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    os.chmod(site / "reports" / REPORT, 0o555)
    os.chmod(site / "assets", 0o500)
    enforce_permissions(monkeypatch)
    code, _, err = build(root, capsys)
    assert code == 0 and err == "", err
    assert beside(root) == []
    assert os.stat(site / "reports" / REPORT).st_mode & stat.S_IWUSR  # the new site's own folder


def test_an_old_copy_that_cannot_be_removed_is_a_warning_not_a_failure(tmp_path, capsys, monkeypatch):
    root = new_project(tmp_path / "project", capsys)
    assert build(root, capsys)[0] == 0
    site = root / "site"
    page = root / "docs" / "index.md"
    page.write_text(page.read_text() + "\nSecond edition.\n")
    enforce_permissions(monkeypatch, never="404.html")
    code, _, err = build(root, capsys)
    assert code == 0, err
    assert "Second edition." in (site / "index.html").read_text()  # the new site landed
    [left] = beside(root)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("WARNING") and left in lines[0] and "delete it by hand" in lines[0]


# -- 11. sitegen new ----------------------------------------------------------------------------------

@pytest.mark.parametrize("target, needle", [("", "DIR is empty"), ("afile", "is a file"), ("afile/sub", "is a file")])
def test_new_refuses_an_empty_name_a_file_and_a_path_under_a_file(tmp_path, capsys, monkeypatch, target, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("notes")
    capsys.readouterr()
    code = cli.main(["new", target])
    one_error_line(code, capsys.readouterr().err, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"] and (tmp_path / "afile").read_text() == "notes"


def test_new_onto_an_unwritable_place_writes_nothing(tmp_path, capsys, monkeypatch):
    """The third file cannot be written (a full disk, a read-only folder): the first two are gone too."""
    target = tmp_path / "mysite"
    real, calls = tempfile.mkstemp, []

    def mkstemp(*a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise PermissionError(errno.EACCES, "Permission denied", kw.get("dir"))
        return real(*a, **kw)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    capsys.readouterr()
    one_error_line(cli.main(["new", str(target)]), capsys.readouterr().err, "Permission denied", "nothing was written")
    assert not target.exists()


def test_new_with_force_over_an_existing_site_keeps_it_whole_on_failure(tmp_path, capsys, monkeypatch):
    target = new_project(tmp_path / "mysite", capsys)
    (target / "mkdocs.yml").write_text("site_name: mine\n")
    before = snapshot(target)
    def replace(*args):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", replace)
    code = cli.main(["new", "--force", str(target)])
    one_error_line(code, capsys.readouterr().err, "nothing was written")
    assert snapshot(target) == before


# -- 12. a docs file in a generated page's place -----------------------------------------------------

def test_a_docs_file_a_generated_page_replaces_is_named(tmp_path, capsys):
    root = new_project(tmp_path / "project", capsys)
    (root / "docs" / "index.html").write_text("<p>my own home page</p>")
    (root / "docs" / "about.html").write_text("<p>about</p>")
    (root / "docs" / "about.md").write_text("# About us\n")
    code, _, err = build(root, capsys)
    assert code == 0, err
    lines = sorted(line for line in err.splitlines() if line.strip())
    assert len(lines) == 2 and all(line.startswith("WARNING") for line in lines), err
    assert "docs/about.html: is dropped: the page 'About us' is generated as about.html" in lines[0]
    assert "docs/index.html: is dropped" in lines[1] and "index.html" in lines[1]
    assert "my own home page" not in (root / "site" / "index.html").read_text()
    code, _, err = build(root, capsys, "--strict")
    assert "docs/" in one_error_line(code, err, "is dropped: the page")
