"""Determinism: two builds of the same input — at different times, in different folders, with
different hash seeds, time zones, locales and file dates — give byte-identical trees, and no
output holds a timestamp of the build or an absolute path."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_sitegen


def copy_project(dest: Path) -> Path:
    dest.mkdir(parents=True)
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copytree(ROOT / "data", dest / "data", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", dest / "docs")
    return dest


def tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def first_difference(a: bytes, b: bytes) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at byte {i}: {a[max(0, i - 60):i + 60]!r} vs {b[max(0, i - 60):i + 60]!r}"


@pytest.mark.slow
def test_two_builds_are_byte_identical(tmp_path, example_site):
    """The first build is the run's example site (conftest: the CLI in the repository, its own hash
    seed, time zone and locale, the files' own dates); the second, of a copy elsewhere under
    another name, with other dates, hash seed, time zone and locale."""
    two = copy_project(tmp_path / "second-place" / "elsewhere" / "other-name")
    # The second copy's files carry other dates: nothing may show a file's modification time.
    for path in two.rglob("*"):
        os.utime(path, (978307200, 978307200))  # 2001-01-01
    time.sleep(1.01 - time.time() % 1)  # the next second has begun: a clock in seconds has moved on
    second = run_sitegen("build", "-q", "-d", str(tmp_path / "out" / "public"), cwd=two,
                         env={"PYTHONHASHSEED": "2", "TZ": "Pacific/Kiritimati", "LC_ALL": "C"})
    assert second.returncode == 0, second.stderr

    a, b = tree(example_site), tree(tmp_path / "out" / "public")
    assert sorted(a) == sorted(b)
    assert len(a) > 10
    for name in a:
        assert a[name] == b[name], f"{name} differs {first_difference(a[name], b[name])}"

    # No absolute path of either project, of the repository, or of a home or temporary folder.
    needles = [str(example_site), str(two), str(ROOT), str(tmp_path), os.path.expanduser("~") + "/", "/tmp/"]
    for name, data in a.items():
        if name.startswith("reports/") and name.endswith("/SUMMARY.json"):
            # A published receipt is the committed one, byte for byte: a path in it is the source's
            # own data (an imported run's recorded command), not this build's.
            assert data == (ROOT / "data" / name.split("/")[1] / "SUMMARY.json").read_bytes(), name
            continue
        for needle in needles:
            assert needle.encode() not in data, f"{name} holds the path {needle}"
    # No date of the build day unless a source itself says it: a receipt, or the guide page's own
    # Markdown (the performance-results page records the day benchmarks/peers.py ran).
    today = time.strftime("%Y-%m-%d").encode()
    receipts = b"".join(p.read_bytes() for p in (ROOT / "data").rglob("*") if p.is_file())
    if today not in receipts:
        for name, data in a.items():
            source = ROOT / "docs" / Path(name).with_suffix(".md")
            if name.endswith(".html") and source.is_file() and today in source.read_bytes():
                continue
            assert today not in data, f"{name} holds today's date"


@pytest.mark.slow
def test_rebuild_in_the_same_folder_is_identical(tmp_path):
    project = copy_project(tmp_path / "p")
    assert run_sitegen("build", "-q", cwd=project).returncode == 0
    before = tree(project / "site")
    result = run_sitegen("build", "-q", cwd=project)
    assert result.returncode == 0, result.stderr
    assert tree(project / "site") == before
