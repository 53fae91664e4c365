"""The persistent cache (site_gen/cache.py): compiled templates and the receipt validator are reused
from an earlier process, never when stale, and a damaged entry is made again, not trusted."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from site_gen import cache, fastschema
from site_gen.load import is_date
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


def test_compiled_template_reused_by_another_environment(cache_dir, monkeypatch):
    pages.environment.__wrapped__(None).get_template("base.html")
    assert _entries(cache_dir, "templates")
    fresh = pages.environment.__wrapped__(None)
    monkeypatch.setattr(fresh, "compile", lambda *a, **k: pytest.fail("compiled again: the cache was not used"))
    fresh.get_template("base.html")


def test_edited_template_is_compiled_afresh(cache_dir, tmp_path):
    custom = tmp_path / "theme"
    custom.mkdir()
    (custom / "t.html").write_text("one {{ x }}", encoding="utf-8")
    assert pages.environment.__wrapped__(str(custom)).get_template("t.html").render(x=1) == "one 1"
    (custom / "t.html").write_text("two {{ x }}", encoding="utf-8")
    assert pages.environment.__wrapped__(str(custom)).get_template("t.html").render(x=1) == "two 1"


def test_damaged_template_entry_is_not_used(cache_dir, monkeypatch):
    expected = pages.environment.__wrapped__(None).get_template("base.html")
    for path in _entries(cache_dir, "templates"):
        _tamper(path)
    fresh = pages.environment.__wrapped__(None)
    compiled = []
    real = fresh.compile
    monkeypatch.setattr(fresh, "compile", lambda *a, **k: compiled.append(1) or real(*a, **k))
    again = fresh.get_template("base.html")
    assert compiled and again.root_render_func.__code__.co_code == expected.root_render_func.__code__.co_code


SCHEMA = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://sitegen.invalid/t.json",
          "type": "object", "properties": {"d": {"type": "string", "format": "date"}, "n": {"type": "integer"}}}


def _fails(validate, data) -> bool:
    try:
        validate(data)
    except Exception:
        return True
    return False


def test_validator_generated_once_per_schema(cache_dir, monkeypatch):
    import fastjsonschema

    first = fastschema.compiled(SCHEMA, {"date": is_date})
    assert _fails(first, {"d": "2026-02-30"}) and not _fails(first, {"d": "2026-02-28", "n": 3})
    monkeypatch.setattr(fastjsonschema, "compile_to_code", lambda *a, **k: pytest.fail("generated again"))
    cached = fastschema.compiled(SCHEMA, {"date": is_date})
    assert _fails(cached, {"n": "x"}) and _fails(cached, {"d": "2026-13-01"}) and not _fails(cached, {"n": 1})


def test_changed_schema_or_damaged_entry_generates_anew(cache_dir, monkeypatch):
    import fastjsonschema

    fastschema.compiled(SCHEMA, {"date": is_date})
    made = []
    real = fastjsonschema.compile_to_code
    monkeypatch.setattr(fastjsonschema, "compile_to_code", lambda *a, **k: made.append(1) or real(*a, **k))
    stricter = json.loads(json.dumps(SCHEMA))
    stricter["properties"]["n"]["minimum"] = 5
    assert _fails(fastschema.compiled(stricter, {"date": is_date}), {"n": 3}) and made == [1]
    for path in _entries(cache_dir, "validators"):
        _tamper(path)
    assert _fails(fastschema.compiled(SCHEMA, {"date": is_date}), {"n": "x"}) and made == [1, 1]


def test_a_valid_build_imports_neither_jsonschema_nor_plotly(tmp_path):
    """jsonschema explains invalid receipts only (and fastjsonschema serves only schemas sitegen's checker
    cannot read); plotly is for `charts: plotly` only; ssl (with http.client) is for nothing a build does."""
    code = ("import sys; from site_gen.cli import main\n"
            f"assert main(['build', '-q', '--cache-dir', {str(tmp_path / 'c')!r}, '-d', {str(tmp_path / 's')!r}]) == 0\n"
            "print(sorted(m for m in ('jsonschema', 'fastjsonschema', 'plotly', 'ssl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
