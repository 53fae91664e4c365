"""The swapped-out site kept in the build cache as the next build's staging tree (building/spare.py):
the site is byte for byte a fresh build's whatever the tree holds, unchanged files keep their
inode, and a tree tampered with reaches no page and touches nothing outside the staging folder.

The builds run in this process (`sitegen_here`) with the store on, as `sitegen build` in a process
of its own has it (`own_process_store`), and the listing's racy window cut from 2 s to 0.2 s
(`short_racy_window`): what is tested is which tree a build starts from and what it keeps of it, not
the window (tests/test_site_cache.py tests that). A new interpreter and 2 s of waiting for each build
cost more than the rest of the file: 51 s of it in the suite, where it now takes ~12 s."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

import site_gen.building.builder as build_module
from site_gen import api
from site_gen.building import listing

from conftest import ROOT, sitegen_here

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORTS = ("cuteafd-v3.0.1", "ledger-gpqa-k4-v080-v090", "ledger-tool-eval-tailfix")
RACY_S = 0.2


@pytest.fixture(autouse=True)
def short_racy_window(monkeypatch) -> None:
    monkeypatch.setattr(listing, "_RACY_NS", int(RACY_S * 1e9))


@pytest.fixture(autouse=True)
def own_process_store(monkeypatch) -> None:
    """The CLI's builds in this process use the store (and so the listing and the kept tree), as only
    `sitegen build` in a process of its own does: these tests patch nothing of the pipeline."""
    real = api.build
    monkeypatch.setattr(api, "build", lambda config, **kw: real(config, **{**kw, "reuse": True}))


@pytest.fixture
def three(tmp_path) -> Path:
    project = tmp_path / "project"
    for rid in REPORTS:
        shutil.copytree(ROOT / "data" / rid, project / "data" / rid, ignore=shutil.ignore_patterns("*.py"))
    (project / "mkdocs.yml").write_text("site_name: Spare\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return project


def _build(project: Path, site: Path, *extra: str) -> None:
    out = sitegen_here("build", "-q", "-d", str(site), *extra, cwd=project)
    assert out.returncode == 0, out.stderr


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_symlink()}


def _folders(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir() and not p.is_symlink())


def _edit_lede(project: Path, rid: str, text: str) -> None:
    lede = project / "data" / rid / "lede.md"
    if lede.exists():
        lede.write_text(lede.read_text() + f"\n{text}\n")
    else:
        receipt = project / "data" / rid / "SUMMARY.json"
        data = json.loads(receipt.read_text())
        data["report"]["title"] = data["report"]["title"] + f" {text}"
        receipt.write_text(json.dumps(data))


def _settle() -> None:
    """Waits until the files just written are no longer "racy" (listing.py): a build links from the
    previous site, and so starts from the kept tree, only files the listing saw written more than
    its racy window (`short_racy_window`) before it was made."""
    time.sleep(RACY_S + 0.05)


def _spare(cache: Path) -> Path | None:
    found = sorted((cache / "site-spare").iterdir()) if (cache / "site-spare").is_dir() else []
    assert len(found) <= 1, found
    return found[0] if found else None


def _kept_tree(project: Path, site: Path, cache: Path) -> Path:
    """Two builds with the cache, a lede changed between them: the second swapped out the first's
    site, kept as the next build's tree (its files old enough to be linked from: `_settle`)."""
    _build(project, site, "--cache-dir", str(cache))
    _edit_lede(project, REPORTS[0], "One.")
    _settle()
    _build(project, site, "--cache-dir", str(cache))
    spare = _spare(cache)
    assert spare is not None
    return spare


def _fresh(project: Path) -> dict[str, str]:
    """What a build without any cache writes (in this process, in memory): each file's sha256."""
    from site_gen.api import build_files
    from site_gen.core.config import load_config

    files = build_files(load_config(project / "mkdocs.yml")).files
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def _same_as_fresh(project: Path, site: Path) -> None:
    from site_gen.building.manifest import MANIFEST, manifest_names

    tree = _tree(site)
    assert manifest_names(site) == set(tree) - {MANIFEST}
    assert {n: h for n, h in tree.items() if n != MANIFEST} == _fresh(project)


@pytest.mark.parametrize("workers", ["one process", "forked"])
def test_each_build_writes_into_the_site_it_swapped_out_and_equals_a_fresh_build(three, tmp_path, workers, monkeypatch):
    """Builds with the cache, one input changed each time (a lede, a receipt, a report removed, one
    added): from the third on, the staging tree is the site swapped out two builds before, and each
    site is byte for byte (its manifest too) what a build without cache writes; an unchanged report's
    file is the same inode all along, and its folder the same folder two builds apart."""
    for name in ("PARALLEL_MIN_REPORTS", "PARALLEL_MIN_WARM_REPORTS"):
        monkeypatch.setattr(build_module, name, 2 if workers == "forked" else 10 ** 9)
    site, cache = tmp_path / "site", tmp_path / "cache"
    steady = site / "reports" / REPORTS[1] / "index.html"
    _build(three, site, "--cache-dir", str(cache))
    assert _spare(cache) is None  # nothing swapped out yet
    inode = steady.stat().st_ino
    _settle()  # once: the first build's files, linked ever after, are in every later listing
    started_from_kept = 0
    changes = [lambda: _edit_lede(three, REPORTS[0], "One."),
               lambda: _edit_lede(three, REPORTS[2], "Two."),
               lambda: _edit_lede(three, REPORTS[0], "Three."),
               lambda: shutil.rmtree(three / "data" / REPORTS[2]),
               lambda: shutil.copytree(ROOT / "data" / REPORTS[2], three / "data" / REPORTS[2],
                                       ignore=shutil.ignore_patterns("*.py"))]
    for step, change in enumerate(changes):
        change()
        spare = _spare(cache)
        kept = {f: os.stat(spare / f).st_ino for f in _folders(spare)} if spare is not None else {}
        _build(three, site, "--cache-dir", str(cache))
        _same_as_fresh(three, site)
        assert steady.stat().st_ino == inode, step  # never written again, never linked again
        if kept:  # the site is the tree kept: its folders are those folders
            now = {f: os.stat(site / f).st_ino for f in _folders(site)}
            assert {f: i for f, i in now.items() if f in kept} == {f: kept[f] for f in now if f in kept}, step
            assert now[f"reports/{REPORTS[1]}"] == kept[f"reports/{REPORTS[1]}"]
            started_from_kept += 1
        assert _spare(cache) is not None, step  # the site this build swapped out, for the next
    assert started_from_kept == len(changes) - 1  # every build but the first two started from a kept tree
    assert not [p.name for p in site.parent.iterdir() if p.name.startswith(".sitegen-")]


def test_a_tampered_spare_tree_reaches_no_page_and_touches_nothing_outside(three, tmp_path):
    """The kept tree changed behind the build's back (files replaced, links to folders and files
    outside, a folder where a file goes, a file where a folder goes, files no build wrote, a hard
    link to a file outside): the next build's site is a fresh build's, and what lies outside is as it was."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    spare = _kept_tree(three, site, cache)
    folder = os.stat(spare / "reports" / REPORTS[2]).st_ino
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "keep.txt").write_text("mine")
    (outside / "file.txt").write_text("mine too")
    before = _tree(outside)
    r0, r1 = (spare / "reports" / rid for rid in REPORTS[:2])
    (r1 / "index.html").unlink()
    (r1 / "index.html").write_text("<h1>planted</h1>")  # another inode, planted bytes
    shutil.rmtree(r0 / "csv")
    (r0 / "csv").symlink_to(outside / "folder", target_is_directory=True)  # a folder that leads outside
    (r1 / "speed.html").unlink(missing_ok=True)
    (r1 / "speed.html").symlink_to(outside / "file.txt")
    (r1 / "precision.html").unlink(missing_ok=True)
    (r1 / "precision.html").mkdir()  # a folder where a page goes
    (r1 / "precision.html" / "x.html").write_text("planted")
    shutil.rmtree(spare / "assets")
    (spare / "assets").write_text("planted")  # a file where a folder goes
    (spare / "reports" / "evil.html").write_text("<script>planted</script>")
    os.link(outside / "file.txt", spare / "planted-link.html")
    (spare / ".htaccess").write_text("planted")
    _edit_lede(three, REPORTS[0], "Two.")
    _build(three, site, "--cache-dir", str(cache))
    assert os.stat(site / "reports" / REPORTS[2]).st_ino == folder  # the build started from the tampered tree
    _same_as_fresh(three, site)
    assert not any(p.is_symlink() for p in site.rglob("*"))
    assert _tree(outside) == before and (outside / "file.txt").read_text() == "mine too"
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == ["file.txt", "folder", "folder/keep.txt"]


def test_a_build_that_fails_on_a_kept_tree_leaves_the_site_and_a_later_build_makes_it_whole(three, tmp_path):
    """A bad receipt found after the kept tree was taken: the build fails, the site is the one before,
    nothing is left beside it; the receipt mended, the next build equals a fresh one."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _kept_tree(three, site, cache)
    before = _tree(site)
    receipt = three / "data" / REPORTS[2] / "SUMMARY.json"
    good = receipt.read_text()
    receipt.write_text(good.replace('"', "'", 1))
    out = sitegen_here("build", "-q", "-d", str(site), "--cache-dir", str(cache), cwd=three)
    assert out.returncode == 1 and "SUMMARY.json" in out.stderr, out.stderr
    assert _tree(site) == before
    assert _spare(cache) is None  # taken by the build, removed with its staging folder
    assert not [p.name for p in site.parent.iterdir() if p.name.startswith(".sitegen-")]
    receipt.write_text(good)
    _edit_lede(three, REPORTS[1], "Two.")
    _build(three, site, "--cache-dir", str(cache))
    _same_as_fresh(three, site)


def test_a_kept_tree_another_build_holds_is_left_to_it(three, tmp_path):
    """A kept tree locked by another build (taking it at the same moment): this build makes its own
    staging folder, equals a fresh build, and leaves that tree where it is."""
    import fcntl

    site, cache = tmp_path / "site", tmp_path / "cache"
    spare = _kept_tree(three, site, cache)
    folders = {f: os.stat(spare / f).st_ino for f in _folders(spare)}
    fd = os.open(spare, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _edit_lede(three, REPORTS[0], "Two.")
        _build(three, site, "--cache-dir", str(cache))
        assert os.stat(site / "reports" / REPORTS[1]).st_ino != folders[f"reports/{REPORTS[1]}"]
        assert _spare(cache) == spare and {f: os.stat(spare / f).st_ino for f in _folders(spare)} == folders
    finally:
        os.close(fd)
    _same_as_fresh(three, site)


def test_a_kept_tree_publishes_no_folder_the_build_did_not_make_and_each_folder_as_a_new_one(three, tmp_path):
    """Folders the old site had that this build makes nothing in (empty ones, one holding a planted
    page, one shut to reading) go whole; a folder the build keeps is made as a new one would be
    (mode 0777 less the umask), whatever mode it had (open to all, read-only)."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    spare = _kept_tree(three, site, cache)
    (spare / "junk").mkdir()
    (spare / "reports" / REPORTS[1] / "empty").mkdir()
    hidden = spare / "reports" / "h"
    hidden.mkdir()
    (hidden / "s.html").write_text("<script>planted</script>")
    hidden.chmod(0o311)  # no one may list it (but its owner may enter and write)
    (spare / "reports").chmod(0o777)
    (spare / "reports" / REPORTS[0]).chmod(0o555)  # read-only, and its report changes below
    _edit_lede(three, REPORTS[0], "Two.")
    _build(three, site, "--cache-dir", str(cache))
    _same_as_fresh(three, site)
    files = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()]
    parents = {f.rsplit("/", i)[0] for f in files for i in range(1, f.count("/") + 1)}
    assert set(_folders(site)) == parents  # no folder but those the site's files are in
    mask = os.umask(0)
    os.umask(mask)
    assert {f: oct(os.stat(site / f).st_mode & 0o7777) for f in parents} == {f: oct(0o777 & ~mask) for f in parents}


def test_a_docs_file_that_would_be_a_folder_of_the_site_is_refused(three, tmp_path):
    """A docs file named as a folder of the site (the reports', the assets') or lying in a folder named
    as one of its pages: refused by name, with the cache and without, the site left as it was
    (the kept tree would otherwise have had one replace the other)."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _kept_tree(three, site, cache)
    before = _tree(site)
    _edit_lede(three, REPORTS[0], "Two.")
    for docs_file in ("reports", "assets", f"reports/{REPORTS[0]}", "index.html/notes.txt"):
        path = three / "docs" / docs_file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("notes")
        for extra in (("--cache-dir", str(cache)), ("--no-cache",)):
            out = sitegen_here("build", "-q", "-d", str(site), *extra, cwd=three)
            assert out.returncode == 1, out.stderr
            folder = docs_file.split("/")[0] if docs_file.startswith("index.html") else docs_file
            assert f"both a file and a folder named {folder} (" in out.stderr, (docs_file, out.stderr)
            assert "Traceback" not in out.stderr and _tree(site) == before
        shutil.rmtree(three / "docs")


def test_which_names_are_both_a_file_and_a_folder_against_every_pair():
    """`file_and_folder` against a check of every pair of names (one is a folder of the other)."""
    import itertools
    import random

    from site_gen.building.manifest import file_and_folder

    parts = ["a", "b", "index.html", "x.csv"]
    rng = random.Random(7)
    for _ in range(400):
        names = {"/".join(rng.choice(parts) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 6))}
        new = {n for n in names if rng.random() < 0.5}
        clashing = {(a, b) for a, b in itertools.permutations(names, 2) if b.startswith(a + "/") and (a in new or b in new)}
        got = file_and_folder(names, new)
        assert (got is None) == (not clashing), (names, new, got)
        if got is not None:
            assert got in clashing, (names, new, got)
