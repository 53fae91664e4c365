"""Dependency records of incremental builds: what each output says it was made from, and that a
rebuild after an edit gives the bytes of a fresh build."""
from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
import site_gen.building.builder as build_module
from site_gen.building.builder import Builder, build_files
from site_gen.core.config import load_config
from site_gen.building.dependencies import Dependencies

REPORT = "cuteafd-v4.0.0"
OTHER = "cuteafd-v3.0.1"
SERVING = "vllm-tp8-against-tp4pp2-ib"


def sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def with_overrides(project):
    """The example project with a custom_dir holding a copy of the overview template."""
    (project / "overrides").mkdir()
    (project / "overrides" / "overview.html").write_text((ROOT / "site_gen" / "templates" / "overview.html").read_text())
    (project / "overrides" / "_macros.html").write_text((ROOT / "site_gen" / "templates" / "_macros.html").read_text())
    text = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(text.replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    return load_config(project / "mkdocs.yml")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Builder]:
    """A copy of the example project and a Builder that has built it once: for the tests that read
    its records (a test that drops some, drops them from a copy)."""
    project = tmp_path_factory.mktemp("dependencies")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "data", project / "data", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(ROOT / "docs", project / "docs")
    b = Builder(load_config(project / "mkdocs.yml"))
    b.build()
    return project, b


def test_a_report_page_records_its_receipt_lede_and_template_closure(built):
    project, b = built
    summary, lede = project / "data" / REPORT / "SUMMARY.json", project / "data" / REPORT / "lede.md"
    overview = b.dependencies(f"reports/{REPORT}/index.html")
    # Its pages link the report of its previous version (site_gen/render/related.py) and show its title:
    # they record what they show of it (`links`), not its receipt.
    assert overview.receipts == ((REPORT, sha(summary.read_bytes())),) and overview.links
    assert overview.ledes == ((REPORT, sha(lede.read_text(encoding="utf-8"))),)
    templates = dict(overview.templates)
    assert {"overview.html", "base.html", "_macros.html"} <= set(templates)
    assert templates["overview.html"] == sha((ROOT / "site_gen" / "templates" / "overview.html").read_text(encoding="utf-8"))
    assert {str(summary), os.path.realpath(lede), os.path.realpath(ROOT / "site_gen" / "templates" / "overview.html")} <= overview.files
    speed = b.dependencies(f"reports/{REPORT}/speed.html")
    assert speed.receipts == overview.receipts and speed.ledes == ()  # only the overview shows the lede
    assert "speed.html" in dict(speed.templates) and "overview.html" not in dict(speed.templates)
    other = b.dependencies(f"reports/{OTHER}/index.html")
    assert [rid for rid, _ in other.receipts] == [OTHER] and other.links  # it links back to REPORT's versions page
    alone = b.dependencies("reports/ledger-gpqa-k4-v080-v090/index.html")
    assert [rid for rid, _ in alone.receipts] == ["ledger-gpqa-k4-v080-v090"] and not alone.links  # linking no other report


@pytest.mark.slow
def test_a_docs_page_records_its_text_and_the_reports_its_blocks_draw_on(built):
    project, b = built
    page = project / "docs" / "highlights.md"
    deps = b.dependencies("highlights.html")
    assert deps.docs == (("highlights.md", sha(page.read_text(encoding="utf-8-sig"))),)
    # Its front matter names one report and every block draws on that one.
    assert [rid for rid, _ in deps.receipts] == [REPORT]
    assert os.path.realpath(page) in deps.files and str(project / "data" / REPORT / "SUMMARY.json") in deps.files


@pytest.mark.slow
def test_the_key_is_a_content_hash_the_same_in_another_builder(built):
    project, first = built
    second = Builder(load_config(project / "mkdocs.yml"))
    second.build()
    url = f"reports/{REPORT}/speed.html"
    assert first.dependencies(url).key == second.dependencies(url).key
    assert len(first.dependencies(url).key) == 64 and first.dependencies(url) == second.dependencies(url)
    assert Dependencies(receipts=(("a", "1"),)).key != Dependencies(receipts=(("a", "2"),)).key
    hash(first.dependencies(url))  # usable as a dict key by a cache


@pytest.mark.slow
def test_invalidate_names_just_the_outputs_made_from_a_changed_file(built):
    project, b = built
    records = copy.deepcopy(b.store.records)  # invalidate drops what it names: the shared builder's are left whole
    lede = project / "data" / REPORT / "lede.md"
    assert records.invalidate([lede]) == {f"reports/{REPORT}/index.html", f"report:{REPORT}"}
    stale = records.invalidate([project / "data" / OTHER / "SUMMARY.json"])
    assert {f"reports/{OTHER}/index.html", f"report:{OTHER}", "index.html"} <= stale  # docs/index.md: the dashboard
    # REPORT's versions page links OTHER by title: its record holds that title (`links`), and a
    # rebuild compares it (test_incremental_equals_fresh_when_a_linked_report_changes_comes_or_goes).
    assert f"reports/{REPORT}/versions.html" not in stale
    assert not any("ledger-" in url for url in stale)


@pytest.mark.slow
def test_incremental_equals_fresh_after_each_kind_of_edit(small_project):
    """A receipt, a lede, a template and a docs page edited in turn: each rebuild equals a fresh build
    (the oracle), and redoes only what the edit touches: nothing at all with no edit, no loading or
    analysis for a lede, one report loaded and analysed for its receipt, no other report's files.
    The project: the reports the docs pages draw on, and a serving pair of another engine (each
    edit builds the site twice: the example's 24 reports made it ~7 cold builds of them)."""
    project = small_project
    shutil.copytree(ROOT / "data" / SERVING, project / "data" / SERVING, ignore=shutil.ignore_patterns("*.py"))
    config = with_overrides(project)
    b = Builder(config, watched=True)
    before = b.build().files
    assert before == build_files(config).files
    assert b.build().files == before and b.stats.get("contexts", 0) == 0 and b.stats.get("loaded", 0) == 0
    summary = project / "data" / REPORT / "SUMMARY.json"
    receipt = json.loads(summary.read_text())
    cell = receipt["speed"]["cells"][0]  # a speed cell made slower (a retitle: the linked-report test below)
    cell["candidate"]["rate"] = round(cell["baseline"]["rate"] * 0.5, 3)
    lede = project / "data" / REPORT / "lede.md"
    template = project / "overrides" / "overview.html"
    docs_page = project / "docs" / "highlights.md"
    macros = project / "overrides" / "_macros.html"
    edits = [  # (file, its new text, a page that shows it, (loaded, analysed) or None: not counted)
        (lede, lede.read_text() + "\n\nA sentence added while serving.\n", f"reports/{REPORT}/index.html", (0, 0)),
        (summary, json.dumps(receipt), f"reports/{REPORT}/speed.html", (1, 1)),
        (template, template.read_text().replace("{% block content %}", "{% block content %}<p>override</p>", 1),
         f"reports/{OTHER}/index.html", None),
        (docs_page, docs_page.read_text() + "\n\nA closing line.\n", "highlights.html", None),
        (macros, macros.read_text().replace('<tr><th scope="row" data-sort', '<tr class="edited"><th scope="row" data-sort', 1),
         "index.html", None),  # the dashboard's rows: the home page is made again
    ]
    for path, text, shows, work in edits:
        path.write_text(text)
        b.changed([path])
        after = b.build().files
        assert after[shows] != before[shows], f"{path.name}: {shows} unchanged"
        assert after == build_files(config).files, f"after editing {path.name}"
        assert b.dependencies(shows) is not None
        changed = {k for k in after if after[k] != before.get(k)}
        if work is not None:
            assert (b.stats.get("loaded", 0), b.stats.get("analysed", 0)) == work, path.name
            assert not any(k.startswith("reports/") and f"reports/{REPORT}/" not in k for k in changed), changed
        if path == lede:
            assert b.stats["contexts"] == 1 and changed == {shows}
        before = after


def test_incremental_equals_fresh_when_a_linked_report_changes_comes_or_goes(tmp_path):
    """A page that links another report (site_gen/render/related.py) follows that report's edits, a newer
    report of the same engine version, a report its markdown links added later, and their removal."""
    import shutil

    from test_related import newer, receipt, site

    old = receipt("First", "3.0.1", "2026-11-20", not_covered=["see [later](page:later/)"])
    config = load_config(site(tmp_path, {"old": old, "new": newer()}))
    data = tmp_path / "data"
    b = Builder(config, watched=True)
    page = "reports/new/versions.html"
    before = b.build().files

    def rebuilt(*paths) -> dict[str, bytes]:
        b.changed(list(paths))
        after = b.build().files
        assert after == build_files(config).files
        return after

    edited = json.loads((data / "old" / "SUMMARY.json").read_text())
    edited["report"]["title"] = "First, retitled"
    (data / "old" / "SUMMARY.json").write_text(json.dumps(edited))
    after = rebuilt(data / "old" / "SUMMARY.json")
    assert b"First, retitled" in after[page] and after[page] != before[page]
    site(tmp_path, {"rerun": receipt("First, rerun", "3.0.1", "2026-11-21"),  # the newest report of v3.0.1
                    "later": receipt("Later", "5.0", "2026-11-23")})             # the one old's markdown links
    assert b'href="../later/index.html"' not in after["reports/old/index.html"]
    after = rebuilt(data / "rerun", data / "later")
    assert b"First, rerun" in after[page] and b"First, retitled" not in after[page]
    assert b'href="../later/index.html"' in after["reports/old/index.html"]
    shutil.rmtree(data / "rerun")
    shutil.rmtree(data / "old")
    assert b"First," not in rebuilt(data / "rerun", data / "old")[page]


@pytest.mark.slow
def test_an_edit_analyses_again_only_the_sections_whose_inputs_changed(small_project, monkeypatch):
    """A preview rebuild keeps each section's analysis, view and tables while its part of the receipt
    and the receipt's other parts (the report part, ...) are unchanged: a precision value re-analyses
    precision alone (and redraws its history chart), a checkpoint's declared absence (the report
    part) every section, a lede none; each rebuild still equals a fresh build, so a stale piece
    shows as a difference. (Built in one process: the pieces are kept by the process that analysed
    the report, and the first build of a site this size forks; the first edit of a report a worker
    made analyses every section of it.)"""
    monkeypatch.setattr(build_module, "PARALLEL_MIN_REPORTS", 10 ** 9)
    project = small_project  # the report edited and its engine's version before it (the History page's series)
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    before = b.build().files
    summary, lede = project / "data" / REPORT / "SUMMARY.json", project / "data" / REPORT / "lede.md"
    receipt = json.loads(summary.read_text())
    analysed = [name for name in ("precision", "speed", "memory", "long_outputs", "versions", "tool_calling")
                if name in receipt]

    def rebuilt(path, text: str, shows: list[str]) -> dict[str, bytes]:
        path.write_text(text)
        b.changed([path])
        after = b.build().files
        for url in shows:
            assert after[url] != before[url], f"{url} unchanged"
        assert after == build_files(config).files
        return after

    result = receipt["precision"]["results"][0]  # moved by 0.001, its interval with it
    result["candidate"]["value"] = round(result["candidate"]["value"] + 0.001, 6)
    result["difference"] = round(result["difference"] + 0.001, 6)
    result["interval"] = [round(v + 0.001, 6) for v in result["interval"]]
    before = rebuilt(summary, json.dumps(receipt), [f"reports/{REPORT}/precision.html", f"reports/{REPORT}/csv/precision.csv",
                                                    "history.html"])
    assert b.stats["sections kept"] == len(analysed) - 1  # all but precision
    # Its pages' contexts are made again; not those of the report that links it (its title is as it was).
    assert b.stats["contexts"] == sum(1 for url in before if url.startswith(f"reports/{REPORT}/") and url.endswith(".html"))
    # The report part: a checkpoint whose baseline was declared missing is now paired (precision and
    # speed count it); the baseline's name shows in the memory and tool-calling sections' own views.
    declared = next(c for c in receipt["report"]["checkpoints"] if "missing" in c)
    del declared["missing"]
    receipt["report"]["engines"]["baseline"]["name"] += " (renamed)"
    before = rebuilt(summary, json.dumps(receipt), [f"reports/{REPORT}/{page}.html" for page in
                                                    ("precision", "speed", "memory", "tool-calling")])
    assert b.stats.get("sections kept", 0) == 0
    # A lede that cites a speed figure: the overview shows it, from the analysis as it is now.
    rebuilt(lede, lede.read_text() + "\n\nCells: {{ speed_verdict }}.\n", [f"reports/{REPORT}/index.html"])
    assert "analysed" not in b.stats


@pytest.mark.slow
def test_a_template_edited_between_two_builds_of_one_process_is_compiled_again(small_project):
    """Jinja checks no template file on its own (auto_reload off: it stat'ed the file at every
    include of every page); each build checks once, at its start (`refresh`). An edit no watcher
    reported still shows in the next build, and in the MkDocs plugin's content environment."""
    from site_gen.render.environment import content_environment, refresh

    project = small_project  # which templates are compiled again, whatever the number of reports
    config = with_overrides(project)
    page = f"reports/{REPORT}/index.html"
    first = build_files(config).files[page]
    template = project / "overrides" / "overview.html"
    template.write_text(template.read_text().replace("{% block content %}", "{% block content %}<p>edited unseen</p>", 1))
    later = os.stat(template).st_mtime + 5  # past any timestamp granularity
    os.utime(template, (later, later))
    second = build_files(config).files[page]
    assert b"edited unseen" not in first and b"edited unseen" in second

    probe = project / "overrides" / "_probe.html"
    probe.write_text("one")
    content = content_environment(str(config.custom_dir))
    assert content.get_template("_probe.html").render() == "one"
    probe.write_text("two")
    os.utime(probe, (later + 5, later + 5))
    assert content.get_template("_probe.html").render() == "one"  # not looked at between builds
    refresh()
    assert content.get_template("_probe.html").render() == "two"



@pytest.mark.slow
def test_a_preview_whose_first_build_forked_takes_each_reports_pages_from_its_worker_and_survives_a_prose_edit(
        project, forked_builds):
    """The live builder's first build forks workers: their pages are taken whole (a report whose
    pages show another would be made again here: its worker saw no other). A prose edit afterwards analyses that report from its
    receipt (an analysis kept without its record lists, and without the views drawn from them,
    could not draw them: KeyError in tool calling's view) and gives what a fresh build gives."""
    import shutil

    seed = project / "seed"
    shutil.move(project / "data" / REPORT, seed)
    shutil.rmtree(project / "docs")  # its pages draw on the reports removed here
    for other in (project / "data").iterdir():  # the others: reports the copies would link to
        if other.is_dir():
            shutil.rmtree(other)
    for i in range(forked_builds):  # copies of the seed report, each with its lede file
        folder = project / "data" / f"copy-{i}"
        shutil.copytree(seed, folder)
        receipt = json.loads((folder / "SUMMARY.json").read_text())
        receipt["report"]["title"] = f"Copy {i}"
        receipt["versions"]["previous"]["version"] = "0.0.0-unreleased"  # no report of it: no link
        receipt["report"]["engines"]["candidate"]["version"] = f"4.0.0-copy{i}"  # none of another report either
        (folder / "SUMMARY.json").write_text(json.dumps(receipt))
    config = load_config(project / "mkdocs.yml")
    b = Builder(config, watched=True)
    b.build()
    assert not any(b.store.report_deps(r).links for r in b.store.env.values())  # no report's pages show another
    assert b.stats.get("analysed", 0) == 0
    copy = "copy-3"
    lede = project / "data" / copy / "lede.md"
    lede.write_text(lede.read_text() + "\n\nA sentence added while serving.\n")
    b.changed([lede])
    after = b.build().files
    assert b"A sentence added while serving." in after[f"reports/{copy}/index.html"]
    assert after == build_files(config).files
    assert b.stats.get("analysed", 0) == 1
