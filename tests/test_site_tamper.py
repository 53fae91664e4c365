"""A page of the site folder edited in place, its size and modification time put back, is not kept
by the next warm build, nor linked into the site after another receipt changes (issue 50, item 4):
a file in the site folder is trusted only while its change time (which no process can set back) is
as the last build left it, or by its content hash."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import run_sitegen

PAGE = "reports/cuteafd-v3.0.1/index.html"


def tamper(path: Path) -> bytes:
    """The page's bytes changed in place, its size and modification time as they were."""
    st = os.stat(path)
    data = path.read_bytes()
    at = data.index(b"<title>") + len(b"<title>")
    edited = data[:at] + b"OWNED!" + data[at + 6:]
    assert len(edited) == len(data) and edited != data
    with open(path, "r+b") as f:  # in place: the same inode
        f.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    return data


def build(project: Path, site: Path) -> None:
    r = run_sitegen("build", "-q", "-d", str(site), cwd=project)  # a process of its own: the store is on
    assert r.returncode == 0, r.stderr


def warm(project: Path, site: Path) -> None:
    """A site built, then built again warm, its files older than the last listing by more than the
    clock's racy window (store.RACY_NS: a file changed in it is read, not trusted by its signature)."""
    build(project, site)
    time.sleep(2.5)
    with open(project / "docs" / "index.md", "a") as f:  # a real build, whose listing then holds every file
        f.write("\nOne more line.\n")
    build(project, site)


@pytest.mark.slow
def test_an_edited_page_is_not_kept_by_a_warm_build(small_project, tmp_path):
    site = tmp_path / "site"
    warm(small_project, site)
    original = tamper(site / PAGE)
    build(small_project, site)  # nothing changed but the page
    assert (site / PAGE).read_bytes() == original


@pytest.mark.slow
def test_an_edited_page_is_not_linked_into_the_next_site(small_project, tmp_path):
    site = tmp_path / "site"
    warm(small_project, site)
    original = tamper(site / PAGE)
    lede = small_project / "data" / "cuteafd-v4.0.0" / "lede.md"
    lede.write_text(lede.read_text() + "\nOne more sentence of the other report.\n")
    build(small_project, site)  # another report changed: this one's pages are taken from the previous site
    assert b"OWNED!" not in (site / PAGE).read_bytes()
    assert (site / PAGE).read_bytes() == original
