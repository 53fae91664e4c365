"""`charts: plotly`: the same chart spec drawn by Plotly's bundle, served from the site itself."""
from __future__ import annotations

import re
import shutil

import pytest

from conftest import ROOT, sitegen_here

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORT = "reports/cuteafd-v4.0.0"


@pytest.fixture(scope="module")
def plotly_site(tmp_path_factory):
    """The example project built with `charts: plotly`, once for the tests that read it."""
    project = tmp_path_factory.mktemp("plotly")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "data", project / "data", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(ROOT / "docs", project / "docs")
    cfg = project / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("      data_dir: data\n", "      data_dir: data\n      charts: plotly\n"))
    result = sitegen_here("build", "-q", cwd=project)
    assert result.returncode == 0, result.stderr
    return project / "site"


def test_plotly_bundle_served_locally_only_on_chart_pages(plotly_site):
    site = plotly_site
    speed = (site / REPORT / "speed.html").read_text()
    scripts = re.findall(r'<script src="([^"]+)"', speed)
    assert any("plotly-" in s for s in scripts) and any("plotly-charts." in s for s in scripts)
    assert all(not s.startswith(("http:", "https:", "//")) for s in scripts)
    bundle = [s for s in scripts if "plotly-" in s and "charts" not in s][0]
    assert (site / REPORT / bundle).resolve().stat().st_size > 1_000_000
    assert "plotly" not in (site / REPORT / "index.html").read_text()


def test_plotly_draws_every_cell(plotly_site, page):
    site = plotly_site
    page.goto((site / REPORT / "speed.html").as_uri())
    page.wait_for_selector("#chart-k4 [data-figure].ready .main-svg", timeout=30000)
    assert page.locator("#chart-k4 .scatterlayer .point").count() == 44
    assert page.errors == []


def test_unknown_chart_engine_is_refused(project):
    cfg = project / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("      data_dir: data\n", "      data_dir: data\n      charts: d3\n"))
    result = sitegen_here("build", cwd=project)
    assert result.returncode == 1 and "charts" in result.stderr and "svg, plotly" in result.stderr
