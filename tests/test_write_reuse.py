"""site_gen/building/write.py off the critical path: unchanged files are linked from the previous site, not
written again, and the CLI removes the previous site after it returns; the safety rules hold."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from site_gen.building import write
from conftest import ROOT


def test_unchanged_files_are_linked_changed_ones_written(tmp_path):
    site = tmp_path / "site"
    write.write_site({"a.html": b"same", "b.html": b"old", "c.html": b"gone"}, site)
    first = {n: os.stat(site / n).st_ino for n in ("a.html", "b.html")}
    write.write_site({"a.html": b"same", "b.html": b"new", "d/e.html": b"same"}, site)
    assert os.stat(site / "a.html").st_ino == first["a.html"]  # kept, not written again
    assert (site / "b.html").read_bytes() == b"new" and os.stat(site / "b.html").st_ino != first["b.html"]
    assert not (site / "c.html").exists() and (site / "d/e.html").read_bytes() == b"same"


def test_previous_copy_edited_or_not_a_plain_file_is_written_afresh(tmp_path):
    site = tmp_path / "site"
    write.write_site({"a.html": b"aaaa", "b.html": b"bbbb", "c.html": b"cccc"}, site)
    (site / "a.html").write_bytes(b"AAAA")  # same size, other bytes
    (site / "b.html").chmod(0o600)          # same bytes, another mode
    outside = tmp_path / "outside"
    outside.write_bytes(b"cccc")
    (site / "c.html").unlink()
    (site / "c.html").symlink_to(outside)   # a link: never followed
    write.write_site({"a.html": b"aaaa", "b.html": b"bbbb", "c.html": b"cccc"}, site)
    assert (site / "a.html").read_bytes() == b"aaaa"
    assert (site / "b.html").stat().st_mode & 0o777 == write.FILE_MODE
    assert not (site / "c.html").is_symlink() and (site / "c.html").stat().st_ino != outside.stat().st_ino


def test_cli_removes_the_previous_site_after_it_returns(tmp_path):
    """The command's own process puts the old site aside; a detached child deletes it, holding its
    lock, and the caller's pipes are not held open meanwhile (this run would hang otherwise)."""
    site = tmp_path / "site"
    (tmp_path / "keep").mkdir()
    code = (f"from pathlib import Path; from site_gen.building import write\n"
            f"site = Path({str(site)!r})\n"
            "write.write_site({'a.html': b'1', 'r/x.html': b'2'}, site)\n"
            "(site / '.well-known').mkdir(); (site / '.well-known' / 'k').write_text('kept')\n"
            "write.defer_removal()\n"
            "write.write_site({'a.html': b'3'}, site)\n"
            "print(sorted(p.name for p in site.parent.iterdir()))\n"
            "write.remove_aside(detach=True)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert any(".sitegen-site.old-" in name for name in eval(out.stdout))
    deadline = time.monotonic() + 30
    while any(p.name.startswith(write.PREFIX) for p in tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)  # another process's work: nothing to wait on but the folder itself
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep", "site"]
    assert (site / "a.html").read_bytes() == b"3" and not (site / "r").exists()
    assert (site / ".well-known" / "k").read_text() == "kept"
