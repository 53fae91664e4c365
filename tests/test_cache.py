"""The persistent cache (site_gen/building/cache.py): an entry reads back only as it was written by this user
(its HMAC), and the validators and templates it never holds are still right when made in memory.
What an attacker can do to a cache folder is tests/test_cache_trust.py."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from site_gen.building import cache

from site_gen.receipts import fastschema
from site_gen.receipts.load import is_date
from site_gen.render import pages

from conftest import ROOT


@pytest.fixture
def cache_dir(tmp_path):
    where = tmp_path / "cache"
    cache.configure(where)
    yield where
    cache.configure()


def _entries(root, kind):
    return sorted(p for p in (root / kind).rglob("*") if p.is_file()) if (root / kind).is_dir() else []


def _tamper(path) -> None:
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF  # one flipped byte in the payload: its checksum no longer matches
    path.write_bytes(bytes(blob))


def test_entry_checksum_refuses_damage(cache_dir):
    cache.write("k", "a" * 64, b"payload")
    assert cache.read("k", "a" * 64) == b"payload"
    _tamper(_entries(cache_dir, "k")[0])
    assert cache.read("k", "a" * 64) is None
    cache.configure(enabled=False)
    cache.write("k", "b" * 64, b"x")
    assert cache.read("k", "b" * 64) is None and len(_entries(cache_dir, "k")) == 1


def test_edited_template_is_compiled_afresh(cache_dir, tmp_path):
    custom = tmp_path / "theme"
    custom.mkdir()
    (custom / "t.html").write_text("one {{ x }}", encoding="utf-8")
    assert pages.environment.__wrapped__(str(custom)).get_template("t.html").render(x=1) == "one 1"
    (custom / "t.html").write_text("two {{ x }}", encoding="utf-8")
    assert pages.environment.__wrapped__(str(custom)).get_template("t.html").render(x=1) == "two 1"


SCHEMA = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://sitegen.invalid/t.json",
          "type": "object", "properties": {"d": {"type": "string", "format": "date"}, "n": {"type": "integer"}}}


def _fails(validate, data) -> bool:
    try:
        validate(data)
    except Exception:
        return True
    return False


def test_validator_made_in_memory_checks_as_the_schema_says(cache_dir):
    """No validator is kept in the cache (it is code): each process generates its own, right."""
    checked = fastschema.compiled(SCHEMA, {"date": is_date})
    assert _fails(checked, {"d": "2026-02-30"}) and _fails(checked, {"n": "x"}) and not _fails(checked, {"d": "2026-02-28", "n": 3})
    stricter = json.loads(json.dumps(SCHEMA))
    stricter["properties"]["n"]["minimum"] = 5
    assert _fails(fastschema.compiled(stricter, {"date": is_date}), {"n": 3})
    assert not cache_dir.exists() or not any(cache_dir.rglob("*"))


def test_an_entry_under_another_key_or_name_reads_as_missing(cache_dir, tmp_path, monkeypatch):
    cache.write("k", "a" * 64, b"payload")
    entry = _entries(cache_dir, "k")[0]
    shutil.copy(entry, entry.with_name("b" * 64))  # the same bytes under another name
    assert cache.read("k", "b" * 64) is None and cache.read("k", "a" * 64) == b"payload"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))  # another user's key
    cache.configure(cache_dir)
    assert cache.read("k", "a" * 64) is None


@pytest.mark.slow
def test_a_valid_build_imports_neither_jsonschema_nor_plotly(tmp_path):
    """jsonschema explains invalid receipts only (and fastjsonschema serves only schemas sitegen's checker
    cannot read); plotly is for `charts: plotly` only; ssl (with http.client) is for nothing a build does."""
    code = ("import sys; from site_gen.cli import main\n"
            f"assert main(['build', '-q', '--cache-dir', {str(tmp_path / 'c')!r}, '-d', {str(tmp_path / 's')!r}]) == 0\n"
            "print(sorted(m for m in ('jsonschema', 'fastjsonschema', 'plotly', 'ssl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_tree_hashes_as_walking_it_name_by_name_gives(tmp_path):
    """store.hash_tree: each folder's files in name order, then its folders, `__pycache__` aside,
    each file's name below the root and its digest; a link anywhere is Unsuitable. Checked against
    os.walk and hashlib over the files' bytes."""
    import hashlib
    import os

    from site_gen.building import store

    def walked(root):
        h = hashlib.sha256()
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
                path = os.path.join(folder, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    raise store.Unsuitable(path)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                h.update(hashlib.sha256(open(path, "rb").read()).digest())
        return h.hexdigest()

    def hashed(root):
        h = hashlib.sha256()
        store.hash_tree(root, h)
        return h.hexdigest()

    root = tmp_path / "data"
    for name in ("b/SUMMARY.json", "a/SUMMARY.json", "a/lede.md", "a/z/deep.txt", "a/__pycache__/x.pyc",
                 "a b/é.md", "top.md", "a10/x", "a9/x"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"content of {name}")
    assert hashed(root) == walked(root)
    (root / "a" / "lede.md").write_text("edited")
    assert hashed(root) == walked(root)
    # Links of every kind, each alone: to a folder, to a file, to nowhere, to itself (ELOOP), through a
    # file (ENOTDIR), named __pycache__: Unsuitable for both, but a __pycache__ link to a folder, which
    # both pass over as they pass over the folder itself.
    for name, target in (("a/to-b", root / "b"), ("b/to-top", root / "top.md"), ("b/nowhere", root / "gone"),
                         ("b/self", root / "b" / "self"), ("a/through", root / "top.md" / "x"),
                         ("b/__pycache__", root / "top.md"), ("a/z/__pycache__", root / "b")):
        link = root / name
        link.symlink_to(target)
        if name == "a/z/__pycache__":
            assert hashed(root) == walked(root)
        else:
            with pytest.raises(store.Unsuitable):
                hashed(root)
            with pytest.raises(store.Unsuitable):
                walked(root)
        link.unlink()
    assert hashed(root) == walked(root) and hashed(root / "missing") == hashlib.sha256(b"\0missing").hexdigest()


def test_an_entry_whose_kind_cannot_be_told_is_hashed_and_listed_as_os_walk_takes_it(tmp_path, monkeypatch):
    """On a file system that does not record an entry's kind, telling it may fail (a folder that cannot
    be entered): os.walk takes such an entry for a file, so hash_tree meets it (and refuses it, as it
    is no plain file it can read) and the site's listing names it; neither passes the folder over."""
    import os

    from site_gen.building import scan, store
    from site_gen.building.manifest import site_files

    root = tmp_path / "site"
    (root / "reports").mkdir(parents=True)
    for name in ("index.html", "reports/odd", "reports/page.html"):
        (root / name).write_text(name)
    real = os.scandir

    class Entry:
        def __init__(self, e):
            self._e, self.name, self.path = e, e.name, e.path

        def is_dir(self, follow_symlinks=True):
            if self.name == "odd":
                raise PermissionError(13, "Permission denied", self.path)
            return self._e.is_dir(follow_symlinks=follow_symlinks)

        def is_symlink(self):
            return self._e.is_symlink()

    class Listing:
        def __init__(self, path):
            self._it = real(path)

        def __enter__(self):
            return (Entry(e) for e in self._it)

        def __exit__(self, *exc):
            self._it.close()

    monkeypatch.setattr(scan.os, "scandir", Listing)
    assert list(site_files(root, hidden=True)) == ["index.html", "reports/odd", "reports/page.html"]
    (root / "reports" / "odd").unlink()
    (root / "reports" / "odd").mkdir()  # a real folder whose kind cannot be told: not a plain file
    with pytest.raises(store.Unsuitable):
        store.hash_tree(root, __import__("hashlib").sha256())
