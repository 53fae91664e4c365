"""A site of many reports: the one-shot build that streams to disk, and a preview rebuild that
touches only the edited report and the pages that summarise it (the figures are in benchmarks/)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import html5lib
import pytest

import site_gen.building.builder as build_module
from conftest import FORKED_REPORTS, ROOT, as_from_a_terminal, sitegen_here
from htmlutil import NS
from site_gen.building.builder import Builder, build, build_files
from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.building.write import MANIFEST, PREFIX

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

V4 = "cuteafd-v4.0.0"


def project_with(tmp_path: Path, n: int, *, site_url: str = "", docs: dict[str, str] | None = None) -> Path:
    """n copies of the example v4 report, each under its own id, title and date."""
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    extra = f"site_url: {site_url}\n" if site_url else ""
    (project / "mkdocs.yml").write_text(f"site_name: Scale\n{extra}plugins:\n  - sitegen:\n      data_dir: data\n")
    receipt = json.loads((ROOT / "data" / V4 / "SUMMARY.json").read_text())
    receipt["report"]["lede"] = "A copy of the example report."
    for i in range(n):
        receipt["report"]["title"] = f"Copy {i}"
        receipt["report"]["date"] = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        folder = project / "data" / f"r{i:03d}"
        folder.mkdir()
        (folder / "SUMMARY.json").write_text(json.dumps(receipt))
    for name, text in (docs or {}).items():
        path = project / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return project


def tree(site: Path) -> dict[str, bytes]:
    """The site's files, less the list of them a build keeps there."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file() and p.name != MANIFEST}


def in_memory(config) -> dict[str, bytes]:
    """What `build_files` gives without forked workers: the reference for every other way."""
    saved = build_module.PARALLEL_MIN_REPORTS
    build_module.PARALLEL_MIN_REPORTS = 10 ** 9
    try:
        return build_files(config).files
    finally:
        build_module.PARALLEL_MIN_REPORTS = saved


# -- the one-shot build ----------------------------------------------------------------------------


@pytest.mark.parametrize("n, site_url", [(3, ""), (FORKED_REPORTS, "https://bench.example.org/site/")])
def test_streamed_build_writes_the_same_bytes_as_the_in_memory_build(tmp_path, forked_builds, n, site_url):
    project = project_with(tmp_path, n, site_url=site_url)
    config = load_config(project / "mkdocs.yml")
    result = build(config)  # with n >= FORKED_REPORTS, forked workers write the reports' files
    on_disk = tree(config.site_dir)
    assert on_disk == in_memory(config)
    assert result.pages == sum(1 for k in on_disk if k.endswith(".html"))
    if site_url:  # cards are drawn by the workers, with the report's files, and listed nowhere twice
        assert all(f"reports/r{i:03d}/card.png" in on_disk for i in range(n))
        assert on_disk["sitemap.xml"].count(b"<loc>") == result.pages - 1  # every page but 404.html


def test_streamed_build_that_fails_late_leaves_the_previous_site_and_no_staging_folder(tmp_path, forked_builds):
    project = project_with(tmp_path, FORKED_REPORTS)
    assert sitegen_here("build", "-q", cwd=project).returncode == 0
    before = tree(project / "site")
    # The last report in the folder order is broken: the workers have written most of the site by then.
    last = project / "data" / f"r{FORKED_REPORTS - 1:03d}" / "SUMMARY.json"
    data = json.loads(last.read_text())
    data["speed"]["cells"][0]["baseline"]["rate"] = 0
    last.write_text(json.dumps(data))
    result = sitegen_here("build", "-q", cwd=project)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"r{FORKED_REPORTS - 1:03d}/SUMMARY.json: $.speed.cells[0].baseline.rate" in result.stderr
    assert tree(project / "site") == before
    assert [p.name for p in project.iterdir() if p.name.startswith((".site.", PREFIX))] == []


# -- the preview's rebuild -------------------------------------------------------------------------


def test_watched_builder_sees_reports_come_and_go_through_the_watchers_word(tmp_path):
    project = project_with(tmp_path, 3)
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    b.build()
    # A receipt rewritten with the same size, within one timestamp tick, looks unchanged to a
    # stat; the watcher's event is what makes the builder read it again.
    receipt = project / "data" / "r001" / "SUMMARY.json"
    data = json.loads(receipt.read_text())
    data["report"]["title"] = "Copy X"  # same length as "Copy 1"
    stat = receipt.stat()
    receipt.write_text(json.dumps(data))
    os.utime(receipt, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    b.changed([receipt])
    assert b"Copy X" in b.build().files["index.html"]
    assert b.stats["loaded"] == 1

    shutil.copytree(project / "data" / "r000", project / "data" / "r100")
    b.changed([project / "data" / "r100", project / "data" / "r100" / "SUMMARY.json"])
    after_add = b.build()
    assert "reports/r100/index.html" in after_add.files and b.stats["loaded"] == 1
    shutil.rmtree(project / "data" / "r000")
    b.changed([project / "data" / "r000"])
    after_remove = b.build()
    assert not any(k.startswith("reports/r000/") for k in after_remove.files)
    assert after_remove.files == in_memory(config)


def test_one_receipt_edit_rerenders_that_report_and_the_pages_that_summarise_it(tmp_path):
    docs = {"index.md": "# Home\n\nThe reports:\n",
            "r001.md": "# One report\n\n```sitegen\nblock: speed-summary\nreport: r001\n```\n",
            "r002.md": "# Another\n\n```sitegen\nblock: memory-table\nreport: r002\n```\n",
            "plain.md": "# Plain\n\nNo report here.\n"}
    project = project_with(tmp_path, 4, docs=docs)
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    before = b.build()
    receipt = project / "data" / "r001" / "SUMMARY.json"
    data = json.loads(receipt.read_text())
    data["speed"]["cells"][0]["candidate"]["rate"] = data["speed"]["cells"][0]["baseline"]["rate"] * 0.5
    receipt.write_text(json.dumps(data))
    b.changed([receipt])
    after = b.build()
    assert after.files == in_memory(config)
    changed = {k for k in after.files if after.files[k] != before.files.get(k)}
    assert {"index.html", "history.html", "r001.html", "reports/r001/speed.html"} <= changed
    assert not any(k.startswith("reports/") and "/r001/" not in k for k in changed)
    assert "r002.html" not in changed and "plain.html" not in changed
    assert b.stats["rendered"] <= 9 + 3  # the report's pages, home, history, its docs page


def test_history_shows_the_newest_releases_and_counts_the_rest(tmp_path, monkeypatch):
    from site_gen.render import history

    monkeypatch.setattr(history, "MAX_POINTS", 3)
    project = project_with(tmp_path, 5)
    config = load_config(project / "mkdocs.yml")
    files = in_memory(config)
    doc = parse_bytes(files["history.html"])
    notes = ["".join(p.itertext()) for p in doc.iter(f"{NS}p") if "earlier ones" in "".join(p.itertext())]
    assert notes and all(n.startswith("The newest 3 builds; 2 earlier ones") for n in notes)
    # The newest three by date: r004 (May), r003 (April), r002 (March); not r000 or r001.
    links = {a.get("href") for a in doc.iter(f"{NS}a")}
    assert "reports/r004/index.html" in links and "reports/r002/index.html" in links
    assert "reports/r001/index.html" not in links and "reports/r000/index.html" not in links


def test_dashboard_block_in_a_subfolder_links_from_there(tmp_path):
    docs = {"notes/all.md": "# All reports\n\n```sitegen\nblock: dashboard\n```\n"}
    project = project_with(tmp_path, 2, docs=docs)
    files = in_memory(load_config(project / "mkdocs.yml"))
    home = parse_bytes(files["index.html"])
    sub = parse_bytes(files["notes/all.html"])
    home_links = [a.get("href") for a in home.iter(f"{NS}a") if "reports/" in (a.get("href") or "")]
    sub_links = [a.get("href") for a in sub.iter(f"{NS}a") if "reports/" in (a.get("href") or "")]
    assert home_links and all(h.startswith("reports/") for h in home_links)
    assert sorted(sub_links) == sorted("../" + h for h in home_links)


def parse_bytes(data: bytes):
    return html5lib.parse(data, treebuilder="etree", namespaceHTMLElements=True)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_build_stopped_midway_removes_its_staging_folder(tmp_path, forked_builds, sig, code):
    project = project_with(tmp_path, FORKED_REPORTS)
    assert sitegen_here("build", "-q", cwd=project).returncode == 0
    before = tree(project / "site")
    proc = subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-q"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal)
    deadline = time.monotonic() + 60
    # Stopped once the workers are writing reports into the staging folder.
    while not list(project.glob(f"{PREFIX}site.new-*/reports/*/index.html")) and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and "Traceback" not in err
    assert [p.name for p in project.iterdir() if p.name.startswith((".site.", PREFIX))] == []
    assert tree(project / "site") == before


def test_watched_builder_keeps_a_broken_receipt_broken_until_it_is_fixed(tmp_path):
    project = project_with(tmp_path, 3, docs={"index.md": "# Home\n"})
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    b.build()
    receipt = project / "data" / "r001" / "SUMMARY.json"
    good = receipt.read_text()
    receipt.write_text(good.replace('"schema_version"', '"schema_versio"', 1))
    b.changed([receipt])
    with pytest.raises(SitegenError, match="schema_version"):
        b.build()
    # A later save elsewhere must not bring back the last good receipt as if nothing were wrong.
    (project / "docs" / "index.md").write_text("# Home, edited\n")
    b.changed([project / "docs" / "index.md"])
    with pytest.raises(SitegenError, match="schema_version"):
        b.build()
    receipt.write_text(good)
    b.changed([receipt])
    assert b.build().files == in_memory(config)


def test_watched_builder_follows_a_report_folder_that_is_a_link(tmp_path):
    project = project_with(tmp_path, 2)
    os.symlink("r000", project / "data" / "latest")
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    assert "reports/latest/index.html" in b.build().files
    receipt = project / "data" / "r000" / "SUMMARY.json"
    data = json.loads(receipt.read_text())
    data["report"]["title"] = "Edited through the link's target"
    receipt.write_text(json.dumps(data))
    b.changed([receipt])  # the watcher names the real path only
    after = b.build()
    assert b"Edited through the link" in after.files["reports/latest/index.html"]
    assert after.files == in_memory(config)
