"""What a build remembers between pages and preview rebuilds gives what computing afresh gives:
a figure once per analysis, a markdown text once, except where the result depends on the page."""
from __future__ import annotations

import pytest

from conftest import ROOT
from site_gen.analysis import figures as figs
from site_gen.analysis.report import analyse
from site_gen.receipts.load import load_report
from site_gen.render import markdown as md


@pytest.fixture
def analysis():
    return analyse(load_report(ROOT / "data" / "cuteafd-v4.0.0", ROOT / "data"))


def test_a_figure_is_made_once_per_analysis_and_a_failed_one_each_time(analysis, monkeypatch):
    figs.registry()
    calls = []

    def probe(a, cell: str):
        calls.append(cell)
        if cell == "bad":
            raise figs.FigureError("no such cell")
        return figs.Figure(len(calls), "count", f"probe of {cell}")

    monkeypatch.setitem(figs.REGISTRY, "probe", (probe, "a test's figure"))
    first = figs.resolve(analysis, "probe", {"cell": "a"})
    assert figs.resolve(analysis, "probe", {"cell": "a"}) is first
    assert figs.resolve(analysis, "probe", {"cell": "b"}).value == 2  # other arguments: another figure
    for _ in range(2):
        with pytest.raises(figs.FigureError):
            figs.resolve(analysis, "probe", {"cell": "bad"})
    assert calls == ["a", "b", "bad", "bad"]
    # Another analysis of the same receipt (a rebuild after an edit) makes its own.
    again = analyse(analysis.report)
    assert figs.resolve(again, "probe", {"cell": "a"}).value == 5
    # Bad arguments are refused every time, never answered from what was kept.
    with pytest.raises(figs.FigureError, match="no argument 'row'"):
        figs.resolve(analysis, "probe", {"cell": "a", "row": "1"})


def test_each_kept_figure_equals_the_figure_made_afresh(analysis):
    """Every figure of the registry that the example report can make, asked twice of one analysis
    and once of a fresh one: the same value, kind and explanation."""
    fresh = analyse(analysis.report)
    made = 0
    for name in figs.registry():
        if any(figs.arguments(name).values()):
            continue  # figures that need arguments: covered by the pages that name them
        try:
            kept = figs.resolve(analysis, name, {})
        except figs.FigureError:
            continue
        assert figs.resolve(analysis, name, {}) is kept
        assert figs.resolve(fresh, name, {}) == kept, name
        made += 1
    assert made >= 5


@pytest.mark.parametrize("trusted", [False, True])
def test_a_text_naming_a_page_links_from_each_page_it_is_on(trusted):
    text = "See [the speed](page:speed) and **this**."
    here = md.render(text, resolve_page=lambda name: f"{name}.html", trusted=trusted)
    deeper = md.render(text, resolve_page=lambda name: f"../r/{name}.html", trusted=trusted)
    assert 'href="speed.html"' in here.html and 'href="../r/speed.html"' in deeper.html


@pytest.mark.parametrize("trusted", [False, True])
def test_a_text_converted_again_is_the_same_html_as_converted_afresh(trusted, monkeypatch):
    texts = ["Plain *emphasis*, a [link](https://example.org) and `code`.", "- one\n- two\n\n1. three",
             "<b>raw</b> & <i>html</i>", "| a | b |\n|---|---|\n| 1 | 2 |"]
    first = [md.render(t, resolve_page=lambda name: None, trusted=trusted).html for t in texts]
    converted = 0
    real = md._markdown

    def counting(*a, **k):
        nonlocal converted
        converted += 1
        return real(*a, **k)

    monkeypatch.setattr(md, "_markdown", counting)
    monkeypatch.setattr(md, "_RECEIPT", type(md._RECEIPT)())  # the receipt converter made again, counted
    again = [md.render(t, resolve_page=lambda name: None, trusted=trusted).html for t in texts]
    assert again == first and converted == 0  # kept
    monkeypatch.setattr(md, "_CONVERTED", {})
    afresh = [md.render(t, resolve_page=lambda name: None, trusted=trusted).html for t in texts]
    assert afresh == first and converted >= 1


def test_a_record_after_a_prose_edit_equals_a_fresh_one_and_a_receipt_edit_is_seen(analysis):
    """The record's parts made from the analysis are kept with it: a lede edit (the same analysis,
    another report text) gives the record a fresh analysis gives; a receipt edit, a new analysis,
    gives its own."""
    import dataclasses
    import json

    from site_gen.building.environment import collect
    from site_gen.receipts.load import load_report as load

    first = collect(analysis)
    edited = dataclasses.replace(analysis, report=dataclasses.replace(analysis.report, lede="Another lede."))
    again, fresh = collect(edited), collect(analyse(edited.report))
    assert repr(again) == repr(fresh) and again.lede != first.lede  # repr: NaN equals NaN there
    assert repr((again.dashboard, again.history, again.pages)) == repr((first.dashboard, first.history, first.pages))

    folder = ROOT / "data" / "cuteafd-v4.0.0"
    data = json.loads((folder / "SUMMARY.json").read_text())
    for cell in data["speed"]["cells"]:
        cell["candidate"]["rate"] *= 3
    changed = dataclasses.replace(load(folder, ROOT / "data"), data=data)
    record = collect(analyse(changed))
    assert repr(record.dashboard) != repr(first.dashboard)  # the speed column moved: nothing kept from the old analysis
