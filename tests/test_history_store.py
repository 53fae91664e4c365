"""The history page from the persistent store (building/site.py `home_and_history`): a `sitegen build`
takes its HTML from an earlier build while the rows it shows, its credits, band, scale, templates
and the site's part are the same, and makes it again otherwise; either way the site is a cold
build's, byte for byte. The builds run in this process with the store on, as `sitegen build` in a
process of its own has it (see tests/test_spare.py); the page shows each series' newest 2 releases
here (`MAX_POINTS`), so four reports have two left out."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from site_gen import api
from site_gen.building.builder import Builder, build_files
from site_gen.building.write import MANIFEST
from site_gen.core.config import load_config
from site_gen.render import history as history_view

from conftest import ROOT, sitegen_here

COPIES = 4
SHOWN = 2


@pytest.fixture(autouse=True)
def store_here(monkeypatch) -> None:
    real = api.build
    monkeypatch.setattr(api, "build", lambda config, **kw: real(config, **{**kw, "reuse": True}))
    monkeypatch.setattr(history_view, "MAX_POINTS", SHOWN)


@pytest.fixture
def made(monkeypatch) -> list[int]:
    """How many times the history page's context was made."""
    count, real = [0], history_view.context

    def counted(*args, **kw):
        count[0] += 1
        return real(*args, **kw)

    monkeypatch.setattr(history_view, "context", counted)
    return count


def _receipt(i: int) -> dict:
    receipt = json.loads((ROOT / "data" / "cuteafd-v4.0.0" / "SUMMARY.json").read_text())
    receipt["report"]["title"], receipt["report"]["date"] = f"Copy {i}", f"2026-01-{i + 1:02d}"
    return receipt


def _write(project: Path, i: int, receipt: dict) -> None:
    (project / "data" / f"copy-{i}" / "SUMMARY.json").write_text(json.dumps(receipt))


@pytest.fixture
def project(tmp_path) -> Path:
    project = tmp_path / "project"
    for i in range(COPIES):
        shutil.copytree(ROOT / "data" / "cuteafd-v4.0.0", project / "data" / f"copy-{i}", ignore=shutil.ignore_patterns("*.py"))
        _write(project, i, _receipt(i))
    (project / "mkdocs.yml").write_text("site_name: Stored history\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return project


def _build(project: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    out = sitegen_here("build", "-q", "-d", str(site), "--cache-dir", str(tmp_path / "cache"), cwd=project)
    assert out.returncode == 0, out.stderr
    return site


def _same_as_cold(project: Path, site: Path) -> bool:
    built = {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(site.rglob("*")) if p.is_file() and p.name != MANIFEST}
    cold = build_files(load_config(project / "mkdocs.yml", site)).files
    return built == {name: hashlib.sha256(data).hexdigest() for name, data in cold.items()}


def _history_rows(project: Path) -> dict[str, dict]:
    b = Builder(load_config(project / "mkdocs.yml", project / "unused"))
    b.build()
    return {rid: r.history for rid, r in b.store.env.items()}


def _faster(receipt: dict) -> dict:
    cell = receipt["speed"]["cells"][0]["candidate"]
    cell["rate"] = cell["rate"] * 1.5
    return receipt


@pytest.mark.slow
def test_an_edit_outside_the_shown_releases_keeps_the_stored_page_and_one_inside_makes_it_again(project, tmp_path, made):
    site = _build(project, tmp_path)
    assert made[0] == 1 and _same_as_cold(project, site)
    before = _history_rows(project)
    # The oldest release: its history rows change, the page's do not.
    _write(project, 0, _faster(_receipt(0)))
    assert _history_rows(project)["copy-0"] != before["copy-0"]
    made[0] = 0
    site = _build(project, tmp_path)
    assert made[0] == 0 and _same_as_cold(project, site)
    # The newest release is shown: the page is made again, and reads the new figure.
    page = (site / "history.html").read_bytes()
    _write(project, COPIES - 1, _faster(_receipt(COPIES - 1)))
    made[0] = 0
    site = _build(project, tmp_path)
    assert made[0] == 1 and _same_as_cold(project, site) and (site / "history.html").read_bytes() != page


def test_a_credit_of_a_release_left_out_makes_the_page_again(project, tmp_path, made):
    """The page credits every report's source, shown or not."""
    _build(project, tmp_path)
    receipt = _receipt(0)
    receipt["schema_version"], receipt["report"]["attribution"] = 1.1, "Data from <b>a lab</b>, CC BY 4.0."
    _write(project, 0, receipt)
    made[0] = 0
    site = _build(project, tmp_path)
    assert made[0] == 1 and _same_as_cold(project, site)
    assert "Data from &lt;b&gt;a lab&lt;/b&gt;, CC BY 4.0." in (site / "history.html").read_text()


# A `sitegen build` in a process of its own, its reports made by forked workers: whether its own
# process loaded pandas. The listing's racy window is off (a build right after the last one would
# otherwise find none of its files to link, and make every report again): tests/test_site_cache.py
# tests the window.
SCRIPT = ("import sys; sys.argv = ['sitegen', 'build', '-q', '--cache-dir', sys.argv[1], '-d', sys.argv[2]]\n"
          f"import site_gen.render.history as h; h.MAX_POINTS = {SHOWN}\n"
          "import site_gen.building.listing as listing; listing._RACY_NS = 0\n"
          "from site_gen.cli import main\n"
          "code = main()\n"
          "print('pandas' if 'pandas' in sys.modules else 'no pandas')\n"
          "raise SystemExit(code)\n")


@pytest.mark.slow
def test_a_forked_build_whose_edit_leaves_the_history_page_never_loads_pandas_itself(project, tmp_path, monkeypatch):
    """Its workers analyse the edited report; its own process takes every page it makes from the
    store (the home page's rows, the history page) and never imports pandas (~0.3 s a build)."""
    monkeypatch.setenv("SITEGEN_PARALLEL_MIN_WARM_REPORTS", "2")
    cache, site = tmp_path / "cache", tmp_path / "site"

    def build() -> str:
        out = subprocess.run([sys.executable, "-c", SCRIPT, str(cache), str(site)], cwd=project,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert build() == "pandas"  # cold: every report analysed here
    _write(project, 0, _faster(_receipt(0)))
    assert build() == "no pandas"
    _write(project, COPIES - 1, _faster(_receipt(COPIES - 1)))
    assert build() == "pandas"  # the page shows the edited release: made again, from frames
    assert _same_as_cold(project, site)
