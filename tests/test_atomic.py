"""Atomic output: a failed build leaves the previous site byte for byte; a successful one replaces
it whole (no stale pages); a reader never finds the site folder missing mid-swap."""
from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from conftest import run_sitegen
from site_gen.building import aside, write
from site_gen.core.errors import SitegenError
from test_bad_inputs import build_in_process, example_project

REPORT = "cuteafd-v4.0.0"


def snapshot(site: Path) -> dict[str, str]:
    """Every file and folder under `site`: relative path -> sha256 (or 'dir'), plus modes."""
    out = {}
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        st = path.lstat()
        out[rel] = ("dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest(), oct(st.st_mode))
    return out


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".site"))


def test_failed_build_leaves_previous_site_byte_for_byte(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    before = snapshot(root / "site")
    assert f"reports/{REPORT}/speed.html" in before
    data = json.loads((report / "SUMMARY.json").read_text(encoding="utf-8"))
    data["speed"]["cells"][3]["baseline"]["rate"] = 0
    (report / "SUMMARY.json").write_text(json.dumps(data), encoding="utf-8")
    code, _, err = build_in_process(root, capsys)
    assert code == 1 and "$.speed.cells[3].baseline.rate" in err
    assert snapshot(root / "site") == before
    assert leftovers(root) == []


def test_failure_while_writing_leaves_previous_site(tmp_path, capsys, monkeypatch):
    """The disk fills up half-way through writing the new tree: exit 1, one message, old site intact."""
    root = tmp_path / "project"
    example_project(root)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    before = snapshot(root / "site")
    real = write.write_tree

    def half_then_full(files, staging, *previous):
        names = sorted(files)
        real({n: files[n] for n in names[: len(names) // 2]}, staging, *previous)
        raise OSError(28, "No space left on device", str(staging / names[len(names) // 2]))

    monkeypatch.setattr(write, "write_tree", half_then_full)
    code, _, err = build_in_process(root, capsys)
    assert code == 1 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("Error: "), err
    assert "cannot write the site: No space left on device; the previous site is unchanged" in errors[0]
    assert snapshot(root / "site") == before
    assert leftovers(root) == []


def test_removed_report_does_not_survive(tmp_path, capsys):
    root = tmp_path / "project"
    report = example_project(root)
    shutil.copytree(report, root / "data" / "second-report")
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    site = root / "site"
    assert (site / "reports" / "second-report" / "speed.html").is_file()
    shutil.rmtree(root / "data" / "second-report")
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    assert not (site / "reports" / "second-report").exists()
    assert (site / "reports" / REPORT / "speed.html").is_file()
    assert b"second-report" not in (site / "index.html").read_bytes()
    assert leftovers(root) == []


def test_files_no_build_wrote_are_refused_unless_clean(tmp_path, capsys):
    """A file put in the site by hand is never deleted silently: refused, named; --clean deletes it."""
    root = tmp_path / "project"
    example_project(root)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    site = root / "site"
    (site / "reports" / "by-hand.html").write_text("not from the receipts")
    before = snapshot(site)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"Error: {site}: ") and "reports/by-hand.html" in err and "--clean" in err
    assert snapshot(site) == before and leftovers(root) == []
    code, _, err = build_in_process(root, capsys, "-q", "--clean")
    assert code == 0, err
    assert not (site / "reports" / "by-hand.html").exists() and (site / "index.html").is_file()


@pytest.mark.parametrize("manifest", [False, True])
def test_first_build_into_a_folder_with_other_files_is_refused(tmp_path, capsys, manifest):
    """No list of what a build wrote (or a list that lacks the file): the folder is someone else's."""
    root = tmp_path / "project"
    example_project(root)
    site = root / "site"
    (site / "notes").mkdir(parents=True)
    (site / "notes" / "plan.txt").write_text("mine")
    if manifest:
        (site / write.MANIFEST).write_text('{"files": ["index.html"]}')
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 1 and "notes/plan.txt" in err and "--clean" in err, err
    assert (site / "notes" / "plan.txt").read_text() == "mine"


def test_an_empty_site_folder_is_fine(tmp_path, capsys):
    root = tmp_path / "project"
    example_project(root)
    (root / "site" / "empty-folder").mkdir(parents=True)
    code, _, err = build_in_process(root, capsys, "-q")
    assert code == 0, err
    assert (root / "site" / "index.html").is_file()


def test_reader_never_finds_the_site_missing(tmp_path):
    """Swaps in a loop while a reader polls: the site folder and its index are always there."""
    site = tmp_path / "site"
    write.write_site({"index.html": b"0", "a/b.html": b"0"}, site)
    stop = threading.Event()
    misses: list[str] = []
    seen: set[bytes] = set()

    def reader():
        while not stop.is_set():
            try:
                seen.add((site / "index.html").read_bytes())
            except OSError as exc:
                misses.append(repr(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for i in range(1, 60):
            write.write_site({"index.html": str(i).encode(), "a/b.html": str(i).encode()}, site)
            time.sleep(0.002)  # let the reader in between swaps too
    finally:
        stop.set()
        thread.join()
    assert misses == [] or aside._renameat2() is None, misses[:3]
    assert (site / "index.html").read_bytes() == b"59"
    assert leftovers(tmp_path) == []
    assert len(seen) > 1  # the reader did run while the site changed


def test_site_dir_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "site").write_text("my notes")
    with pytest.raises(SitegenError, match="not a folder"):
        write.write_site({"index.html": b"x"}, tmp_path / "site")
    assert (tmp_path / "site").read_text() == "my notes"


@pytest.mark.parametrize("name", ["../escape.html", "/etc/passwd", "a/../../b", "a\\..\\b"])
def test_paths_out_of_the_site_are_never_written(tmp_path, name):
    with pytest.raises(ValueError):
        write.write_site({"index.html": b"x", name: b"x"}, tmp_path / "out" / "site")
    assert not (tmp_path / "escape.html").exists() and not (tmp_path / "out" / "site").exists()
    assert leftovers(tmp_path / "out") == []


@pytest.mark.slow
def test_failed_cli_build_keeps_site(tmp_path):
    """End to end through the real command: a build breaks, the site stays as it was."""
    root = tmp_path / "project"
    report = example_project(root)
    assert run_sitegen("build", "-q", cwd=root).returncode == 0
    before = snapshot(root / "site")
    (report / "SUMMARY.json").write_bytes((report / "SUMMARY.json").read_bytes()[:1000])
    result = run_sitegen("build", cwd=root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert snapshot(root / "site") == before
    assert leftovers(root) == []
