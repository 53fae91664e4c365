"""A warm `sitegen build` (site_gen/site_cache.py): nothing changed, nothing done; the output is
still byte for byte a cold build's, and a damaged entry or a hand-edited site is never trusted."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from site_gen import cache, site_cache
from site_gen.config import load_config

# A build in a process of its own (as the `sitegen` command runs), saying whether it had to load
# the pipeline (pandas): a site found already built does not.
SCRIPT = ("import sys; sys.argv = ['sitegen', 'build', '-q', '--cache-dir', sys.argv[1], '-d', sys.argv[2]]\n"
          "from site_gen.cli import main\n"
          "code = main()\n"
          "print('full' if 'pandas' in sys.modules else 'reused')\n"
          "raise SystemExit(code)\n")


def tree(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def build(project: Path, cache_dir: Path, site: Path) -> str:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(cache_dir), str(site)], cwd=project,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_warm_build_reuses_and_equals_a_cold_build_and_distrusts_damage(project, tmp_path, example_site):
    cold = tree(example_site)
    cache_dir, site = tmp_path / "cache", tmp_path / "site"
    assert build(project, cache_dir, site) == "full"
    assert build(project, cache_dir, site) == "reused" and tree(site) == cold
    # A damaged entry (one byte of its list of files) is not used: the build runs in full.
    entries = [p for p in (cache_dir / "sites").rglob("*") if p.is_file()]
    assert len(entries) == 1
    blob = bytearray(entries[0].read_bytes())
    blob[-2] ^= 0x01
    entries[0].write_bytes(bytes(blob))
    assert build(project, cache_dir, site) == "full" and tree(site) == cold
    # A site file edited by hand is no longer what the entry lists: built again, and restored.
    page = site / "index.html"
    page.write_bytes(page.read_bytes().replace(b"<title>", b"<title>edited "))
    assert build(project, cache_dir, site) == "full" and tree(site) == cold


def test_every_input_is_in_the_key(project, tmp_path):
    cache.configure(tmp_path / "cache")
    try:
        config = load_config(project / "mkdocs.yml")
        first = site_cache.inputs_key(config, strict=False)
        assert first and first == site_cache.inputs_key(config, strict=False)
        assert site_cache.inputs_key(config, strict=True) != first
        lede = next(project.glob("data/*/lede.md"))
        lede.write_text(lede.read_text() + "\nOne more line.\n")
        second = site_cache.inputs_key(config, strict=False)
        page = next(project.glob("docs/*.md"))
        page.write_text(page.read_text() + "\n")
        third = site_cache.inputs_key(config, strict=False)
        (project / "mkdocs.yml").write_text((project / "mkdocs.yml").read_text().replace("site_name:", "site_name: X"))
        fourth = site_cache.inputs_key(load_config(project / "mkdocs.yml"), strict=False)
        assert len({first, second, third, fourth}) == 4
        # An input the key cannot follow (a symbolic link) turns the warm path off, never on.
        (project / "data" / "link").symlink_to(lede)
        assert site_cache.inputs_key(config, strict=False) is None
    finally:
        cache.configure()
