"""The preview shows the pages a browser has open first (site_gen/building/site.py `show_early`,
site_gen/preview/serve.py `_show_early`), and the links between reports are searched again only
when what links to what changed (site_gen/render/related.py `relations_again`).

The early version must be a true part of the build that follows: the same bytes for the pages it
shows, the old bytes for every other page until the whole build is done, and nothing of it left
when that build fails.
"""
from __future__ import annotations

import dataclasses
import json
import shutil
import threading
from pathlib import Path

import pytest

from conftest import ROOT
from site_gen import api
from site_gen.building import site as site_module
from site_gen.core.errors import SitegenError
from site_gen.preview import serve as serve_module
from site_gen.preview.serve import Preview
from site_gen.render.related import Memo, relations, relations_again

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

REPORT = "cuteafd-v4.0.0"
OVERVIEW = f"reports/{REPORT}/index.html"
SPEED = f"reports/{REPORT}/speed.html"


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "data", tmp_path / "data", ignore=shutil.ignore_patterns("*.py"))
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def slower(project: Path) -> Path:
    """The report's first speed cell turned slower: its overview and speed pages change."""
    receipt = project / "data" / REPORT / "SUMMARY.json"
    data = json.loads(receipt.read_bytes())
    cell = data["speed"]["cells"][0]
    cell["candidate"]["rate"] = round(cell["baseline"]["rate"] * 0.5, 3)
    receipt.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return receipt


class Watched(Preview):
    """A preview whose versions are kept as they are published, and whose browser fetches the
    pages shown early at once (as an open tab does on the event), unless told not to."""

    def __init__(self, project: Path, *, fetch: bool = True, **kwargs):
        super().__init__(project / "mkdocs.yml", out=lambda m: None, err=lambda m: None, **kwargs)
        self.published: list = []
        self.fetch = fetch

    def _show_early(self, pages):
        if self.fetch:  # the browser's fetch, once the early version is out
            wait = threading.Thread(target=lambda: (self.wait_version(self.version, 5), [self.viewed(k) for k in pages]))
            wait.start()
        super()._show_early(pages)
        self.published.append(("early", self.snapshot()))

    def rebuild(self, paths=None):
        super().rebuild(paths)
        self.published.append(("done", self.snapshot()))


def test_the_open_page_shows_first_with_the_bytes_the_whole_build_gives(project):
    preview = Watched(project)
    preview.rebuild(None)
    before = dict(preview.files)
    preview.viewed(OVERVIEW)
    preview.rebuild([str(slower(project))])
    (kind1, early), (kind2, done) = preview.published[-2:]
    assert (kind1, kind2) == ("early", "done") and preview.error is None
    # The early version: the open page only, as the whole build makes it; the rest as before.
    assert early.changed == (OVERVIEW,) and early.version == done.version - 1
    assert early.files[OVERVIEW] == done.files[OVERVIEW] != before[OVERVIEW]
    assert early.files[SPEED] == before[SPEED] != done.files[SPEED]
    assert {k for k, v in early.files.items() if before.get(k) != v} == {OVERVIEW}
    # The version after it names what changed since: not the page already shown.
    assert SPEED in done.changed and OVERVIEW not in done.changed
    # And the whole build is the one a fresh build of the edited project gives, byte for byte.
    fresh = api.build_files(api.load_config(project / "mkdocs.yml")).files
    assert dict(done.files) == fresh
    assert OVERVIEW in preview.open_pages()  # fetched: still open


def test_a_page_shown_early_that_no_browser_fetches_is_no_longer_taken_as_open(project, monkeypatch):
    monkeypatch.setattr(serve_module, "EARLY_WAIT", 0.05)
    preview = Watched(project, fetch=False)
    preview.rebuild(None)
    preview.viewed(OVERVIEW)
    preview.viewed(SPEED)
    preview.rebuild([str(slower(project))])
    kinds = [kind for kind, _ in preview.published]
    assert kinds == ["done", "early", "done"]
    assert preview.open_pages() == []  # both were shown early and neither was fetched
    receipt = project / "data" / REPORT / "SUMMARY.json"
    receipt.write_text(receipt.read_text(encoding="utf-8").replace('"rate": ', '"rate":  ', 1), encoding="utf-8")
    preview.rebuild([str(receipt)])
    assert [kind for kind, _ in preview.published][3:] == ["done"]  # nothing open: no early version


def test_a_build_that_fails_after_an_early_showing_takes_the_page_back(project, monkeypatch):
    preview = Watched(project)
    preview.rebuild(None)
    good = dict(preview.files)
    real = site_module.docs_pages

    def fails(ctx, site, docs):
        raise SitegenError("a docs page names a figure the receipt no longer has", project / "docs" / "x.md", "line 3")

    monkeypatch.setattr(site_module, "docs_pages", fails)
    preview.viewed(OVERVIEW)
    preview.rebuild([str(slower(project))])
    (kind1, early), (kind2, failed) = preview.published[-2:]
    assert (kind1, kind2) == ("early", "done") and early.files[OVERVIEW] != good[OVERVIEW]
    # The failed build's version: the last good pages again, the page shown early among those it
    # names (a browser that patched it fetches it again), and the error.
    assert dict(failed.files) == good and failed.changed == (OVERVIEW,)
    assert failed.error.endswith("line 3: a docs page names a figure the receipt no longer has")
    monkeypatch.setattr(site_module, "docs_pages", real)
    preview.viewed(OVERVIEW)
    preview.rebuild([str(project / "data" / REPORT / "SUMMARY.json")])
    assert preview.error is None and preview.published[-1][1].files[OVERVIEW] == early.files[OVERVIEW]
    assert preview.published[-2][0] == "done"  # over an error, no early version: the whole build at once


def test_strict_shows_nothing_early(project):
    preview = Watched(project, strict=True)
    preview.rebuild(None)
    preview.viewed(OVERVIEW)
    preview.rebuild([str(slower(project))])
    assert [kind for kind, _ in preview.published] == ["done", "done"]


# -- the links between reports, found again ---------------------------------------------------------


def example_records() -> list:
    builder = api.live_builder(api.load_config(ROOT / "mkdocs.yml"))
    builder.build()
    return list(builder.store.env.values())  # in the build's order (newest first)


def test_relations_again_equals_relations_after_every_kind_of_change():
    records = example_records()
    memo = Memo()
    assert relations_again(records, memo) == relations(records)
    linked = {rid for rid, rel in memo.found.items() if rel.receipts}
    assert len(linked) >= 2  # the example has reports that link to others
    target = next(t for rel in memo.found.values() for t, h in rel.receipts if h)
    first = dict(memo.found)

    # A receipt edited without changing what links to what: the hashes follow, nothing else moves.
    edited = [dataclasses.replace(r, sha256="0" * 64) if r.id == target else r for r in records]
    again = relations_again(edited, memo)
    assert again == relations(edited)
    assert any((target, "0" * 64) in rel.receipts for rel in again.values())
    unaffected = [rid for rid, rel in first.items() if all(t != target for t, _ in rel.receipts)]
    assert all(again[rid] is first[rid] for rid in unaffected)  # kept, not searched again

    # What links to what, or how a link looks, changed (with its receipt, which a record's every part
    # is made from): searched again, and equal to a fresh search.
    retitled = [dataclasses.replace(r, title="Renamed", sha256="1" * 64) if r.id == target else r for r in edited]
    assert relations_again(retitled, memo) == relations(retitled)
    reordered = list(reversed(retitled))
    assert relations_again(reordered, memo) == relations(reordered)
    gone = [r for r in reordered if r.id != target]
    assert relations_again(gone, memo) == relations(gone)
    back = relations_again(records, memo)
    assert back == relations(records) == first


def test_pages_shown_early_in_two_steps_are_all_named_and_all_taken_back(project, monkeypatch):
    """A report's open page is shown as soon as the report is made, the History page once the
    site-wide pages are: a failure after both puts both back, and a success names neither again."""
    preview = Watched(project)
    preview.rebuild(None)
    preview.viewed(OVERVIEW)
    preview.viewed("history.html")
    preview.rebuild([str(slower(project))])
    kinds = [kind for kind, snap in preview.published[-3:]]
    assert kinds == ["early", "early", "done"]
    first, second, done = (snap for _, snap in preview.published[-3:])
    assert first.changed == (OVERVIEW,) and second.changed == ("history.html",)
    assert second.files[OVERVIEW] == done.files[OVERVIEW] and second.files["history.html"] == done.files["history.html"]
    assert not {OVERVIEW, "history.html"} & set(done.changed) and SPEED in done.changed

    def fails(ctx, site, docs):
        raise SitegenError("a docs page names a figure the receipt no longer has", project / "docs" / "x.md", "line 3")

    after = dict(preview.files)
    monkeypatch.setattr(site_module, "docs_pages", fails)
    preview.viewed(OVERVIEW)
    preview.viewed("history.html")
    receipt = project / "data" / REPORT / "SUMMARY.json"
    data = json.loads(receipt.read_bytes())
    cell = data["speed"]["cells"][0]
    cell["candidate"]["rate"] = round(cell["baseline"]["rate"] * 0.4, 3)  # slower still: History's median moves
    receipt.write_text(json.dumps(data, indent=1), encoding="utf-8")
    preview.rebuild([str(receipt)])
    (_, first), (_, second), (_, failed) = preview.published[-3:]
    assert first.changed == (OVERVIEW,) and second.changed == ("history.html",)
    assert dict(failed.files) == after and set(failed.changed) == {OVERVIEW, "history.html"} and failed.error


def test_the_open_report_is_remade_before_any_other_report_is_looked_at(project, monkeypatch):
    """The open page's report is the last of the site's reports: its page is shown before the build
    has looked at any other report (on a site of a thousand, walking them first took ~20 ms), and
    the whole build then gives the same site as one that showed nothing early."""
    looked_at: list[str] = []
    at_show: list[list[str]] = []
    reuse = site_module.reuse
    monkeypatch.setattr(site_module, "reuse", lambda ctx, site, r: looked_at.append(r.id) or reuse(ctx, site, r))
    preview = Watched(project)
    preview.rebuild(None)
    order = list(preview.builder.store.env)  # the reports in the build's order
    last = order[-1]
    assert len(order) >= 5
    page = f"reports/{last}/index.html"
    show = preview._show_early
    monkeypatch.setattr(preview, "_show_early", lambda pages: (at_show.append(list(looked_at)), show(pages)))
    preview.viewed(page)
    receipt = project / "data" / last / "SUMMARY.json"
    data = json.loads(receipt.read_bytes())
    data["report"]["title"] += " (retitled)"
    receipt.write_text(json.dumps(data), encoding="utf-8")
    looked_at.clear()
    preview.rebuild([str(receipt)])
    assert preview.error is None and at_show and at_show[0] == []
    assert b"(retitled)" in preview.files[page] and set(looked_at) == set(order) - {last}
    fresh = api.live_builder(preview.config).build()
    assert preview.files == fresh.files
