"""A report section is one unit: a section registered from its own module (tests/toy_section/),
with its schema fragment and its template, shows up on the report, the numbers page, as a CSV and
as an author block, and its meaning check runs on load, with no edit anywhere in site_gen."""
from __future__ import annotations

import json
import shutil

import pytest

import toy_section
from site_gen import sections
from site_gen.building.builder import build_files
from site_gen.building.starter import receipt
from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.receipts.load import load_report, schema

CONFIG = ("site_name: Toy\ndocs_dir: docs\nplugins:\n  - sitegen:\n      data_dir: data\n"
          "      custom_dir: overrides\n")


@pytest.fixture
def toy():
    sections.register(toy_section.SECTION)
    yield toy_section.SECTION
    sections.unregister(toy_section.SECTION.key)


def project(tmp_path, scores):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    doc = receipt()
    doc["report"]["lede"] = "A toy report."
    for name in ("precision", "speed", "memory"):
        del doc[name]
    doc["toy"] = {"scores": scores}
    (tmp_path / "data" / "toy-report").mkdir(parents=True)
    (tmp_path / "data" / "toy-report" / "SUMMARY.json").write_text(json.dumps(doc))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n```sitegen\nblock: toy-total\n```\n")
    shutil.copytree(toy_section.TEMPLATES, tmp_path / "overrides")
    return load_config(tmp_path / "mkdocs.yml")


SCORES = [{"checkpoint": "Q4", "score": 7}, {"checkpoint": "Q4", "score": 35}]


def test_a_registered_section_is_on_every_page_a_section_is(tmp_path, toy):
    result = build_files(project(tmp_path, SCORES))
    files = {name: data.decode("utf-8") for name, data in result.files.items() if not name.startswith("assets/")}
    base = "reports/toy-report/"
    # Its own page, linked from the report's navigation.
    assert '<td class="num"><span class="fig" tabindex="0" data-source="$.toy.scores[1].score"' in files[base + "toy.html"]
    assert 'href="toy.html">Toy scores</a>' in files[base + "index.html"]
    # Its CSV table, and the numbers page listing it and the sources of its figures.
    assert files[base + "csv/toy-scores.csv"] == "checkpoint,score,source\nQ4,7,$.toy.scores[0].score\nQ4,35,$.toy.scores[1].score\n"
    numbers = files[base + "numbers.html"]
    assert 'toy-scores.csv</a></th><td class="num">2</td>' in numbers
    assert '<th scope="rowgroup" colspan="2">Toy scores</th>' in numbers
    assert "<tr><td>35</td><td>$.toy.scores[1].score</td></tr>" in numbers
    assert "<tr><td>42</td><td>computed: sum of 2 scores</td></tr>" in numbers
    # Its author block.
    assert 'data-block="toy-total" data-report="toy-report">' in files["index.html"]
    assert 'id="toy-total"><span class="fig" tabindex="0" data-computed="sum of 2 scores"' in files["index.html"]


def test_a_registered_section_checks_its_part_of_the_receipt(tmp_path, toy):
    with pytest.raises(SitegenError) as err:
        build_files(project(tmp_path, [{"checkpoint": "Q9", "score": 1}]))
    assert (err.value.where, err.value.message) == ("$.toy.scores[0].checkpoint", "unknown checkpoint 'Q9'; the report declares Q4")
    with pytest.raises(SitegenError) as err:
        build_files(project(tmp_path / "2", [{"checkpoint": "Q4", "score": "high"}]))  # its schema fragment
    assert err.value.where == "$.toy.scores[0].score"


def test_without_the_section_its_part_and_block_are_unknown(tmp_path):
    config = project(tmp_path, SCORES)
    assert "toy" not in schema()["properties"]
    report = load_report(config.data_dir / "toy-report", config.data_dir)
    assert "toy" not in report.data
    assert report.warnings == [f"{report.file}: $: unknown field 'toy' (ignored; an error under --strict)"]
    with pytest.raises(SitegenError, match="unknown block 'toy-total'"):
        build_files(config)
