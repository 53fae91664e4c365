"""Options inside their allowed ranges build, in bounded work, through `sitegen build` and the MkDocs
plugin; a site_dir that overlaps what the site is made from is refused by the plugin as by `sitegen
build`, before anything is written (issue 50, items 3 and 6)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, mkdocs_here, sitegen_here

from site_gen.render import charts, plots

SERVING = "vllm-tp8-against-tp4pp2-ib"


def _project(tmp: Path, options: str) -> Path:
    (tmp / "data").mkdir()
    for rid in ("cuteafd-v4.0.0", SERVING):
        shutil.copytree(ROOT / "data" / rid, tmp / "data" / rid)
    (tmp / "docs").mkdir()
    (tmp / "docs" / "index.md").write_text("# Bounds\n\n{{ speed_verdict report=cuteafd-v4.0.0 }}\n")
    (tmp / "mkdocs.yml").write_text("site_name: Bounds\ndocs_dir: docs\nplugins:\n  - sitegen:\n      data_dir: data\n"
                                    + "".join(f"      {line}\n" for line in options.splitlines()))
    return tmp


@pytest.mark.parametrize("options", ["noise_band: 1", "noise_band: 0.9999",
                                     "ratio_scale: [0.5, 100000]", "ratio_scale: [1.0e-300, 1000000]"])
def test_every_option_value_in_range_builds(tmp_path, options):
    """`noise_band: 1` was "math domain error" (exit 2): the band's lower edge is 0 on a log axis."""
    project = _project(tmp_path, options)
    r = sitegen_here("build", "-q", "-d", str(tmp_path / "site"), "--no-cache", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr
    speed = (tmp_path / "site" / "reports" / "cuteafd-v4.0.0" / "speed.html").read_text()
    labels = re.findall(r'class="scale-labels".*?</div>', speed, re.DOTALL)
    assert labels and all(len(re.findall("<span", part)) <= charts.MAX_SCALE_TICKS for part in labels)


def test_mkdocs_plugin_builds_with_a_noise_band_of_one(tmp_path):
    project = _project(tmp_path, "noise_band: 1")
    r = mkdocs_here("build", "-q", "-d", str(tmp_path / "site"), cwd=project)
    assert r.returncode == 0, r.stderr + r.stdout
    assert (tmp_path / "site" / "reports" / SERVING / "latency.html").is_file()


def test_scale_ticks_are_bounded_whatever_the_scale():
    """Counted, not timed: [0.5, 100000] at 0.2 a step was half a million ticks (11.6 s, 0.9 GB)."""
    for scale in [(0.8, 1.8), (0.5, 100000.0), (1e-300, 1e6), (0.999999, 1.000001), (0.0, 1e6), (0.9, 2.0)]:
        ticks = charts.scale_ticks(scale)
        assert 1 <= len(ticks) <= charts.MAX_SCALE_TICKS, (scale, len(ticks))
        xs = [t["x"] for t in ticks]
        assert xs == sorted(xs) and 0 <= xs[0] and xs[-1] <= charts.BAR_WIDTH
    # The default scale keeps its ticks every 0.2 from its low end, as before.
    assert [t["label"] for t in charts.scale_ticks((0.8, 1.8))] == ["0.8", "1.0", "1.2", "1.4", "1.6", "1.8"]


def test_a_log_axis_places_zero_and_below_at_its_low_end():
    axis = plots.Axis(0.5, 2.0, 0.0, 200.0, log=True)
    assert axis(0.0) == axis(-1.0) == axis(0.5) == 0
    bar = plots.interval_bar(1.1, 0.9, 1.3, "level", (0.5, 2.0), 1.0)
    assert bar["band_x"] == 0 and bar["band_w"] == 200.0  # from the low end to the top: the band [0, 2] covers the scale


# -- item 3: the plugin refuses a site_dir that overlaps the sources ----------------------------------

@pytest.mark.parametrize("site_dir", ["data", "docs", ".", "data/sub", ".."])
def test_the_plugin_refuses_a_site_dir_over_the_sources_before_writing(tmp_path, site_dir):
    """With site_dir the data folder, the first `mkdocs build` wrote into it and the next emptied it."""
    (tmp_path / "p").mkdir()
    project = _project(tmp_path / "p", "")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("docs_dir: docs\n", f"docs_dir: docs\nsite_dir: {site_dir}\n"))
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    for _ in range(2):
        r = mkdocs_here("build", "-q", cwd=project)
        assert r.returncode == 1, r.stderr + r.stdout
        after = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
        assert after == before  # no receipt deleted, nothing written
    assert not (project / "data" / "sub").exists()


def test_the_plugin_says_why_it_refuses_the_site_dir(tmp_path):
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError

    project = _project(tmp_path, "")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("docs_dir: docs\n", "docs_dir: docs\nsite_dir: data\n"))
    with pytest.raises(PluginError, match="site_dir would contain or replace .*data; choose another output folder"):
        loaded = load_config(str(config))
        loaded.plugins.on_config(loaded)  # what `mkdocs build` calls first, before it clears site_dir
