"""Every figure a report's pages show has a hover source, and a row on its Numbers page: the check
(issue 28) that tests/test_every_figure_sourced.py runs over the example site and over receipts
drawn from the schema.

A figure is a number in a table's data cell that holds figures: a numeric cell (`td.num`), or any
cell where the page marks a figure (one `.fig` or more: then every number in it is one). Its source
is a `.fig` (or `.check`) element around it with a title (`SUMMARY.json $.speed.cells[3].baseline.rate`,
or `computed: …`). A cell (or a part of one) marked `.cond` holds a measurement's conditions (its
input size, its streams, a cap), not a result: those label the row, as its header cell does. The Numbers page
lists each figure with its source: a row whose figure text is the figure's and whose source is its
place in the receipt (then its date and the original file's lines) or how it was computed.
"""
from __future__ import annotations

import re
from pathlib import Path

from htmlutil import NS, parse

# A number as the pages print one: 5,799,424 · 1.06–1.46x · −0.35 pts · 93.50% · 19.8 s · 47.5K.
NUMBER = re.compile(r"[−+-]?\d[\d,]*(\.\d+)?")


def _text(el, skip_figs: bool) -> str:
    """The cell's visible text, leaving out SVG, scripts, titles, and (skip_figs) what `.fig`s hold."""
    out = []

    def walk(node):
        tag = str(node.tag)
        if tag.endswith("}svg") or node.tag in (f"{NS}script", f"{NS}style", f"{NS}title"):
            if node.tail:
                out.append(node.tail)
            return
        classes = (node.get("class") or "").split()
        sourced = ("fig" in classes or "check" in classes) and node.get("title")
        if not (skip_figs and (sourced or "cond" in classes)):
            if node.text:
                out.append(node.text)
            for child in node:
                walk(child)
        if node.tail:
            out.append(node.tail)

    if el.text:
        out.append(el.text)
    for child in el:
        walk(child)
    return "".join(out)


def _cells(main, skip: tuple[str, ...]):
    """The table cells of `main`, leaving out those inside a `<section>` labelled by one of `skip`."""
    def walk(node, skipped: bool):
        if node.tag == f"{NS}section" and node.get("aria-labelledby") in skip:
            skipped = True
        if node.tag == f"{NS}td" and not skipped:
            yield node
        for child in node:
            yield from walk(child, skipped)
    yield from walk(main, False)


def figures(page: Path, skip: tuple[str, ...] = ()) -> tuple[list[tuple[str, str]], list[str]]:
    """(figure text, title) of every sourced figure in the page's table cells, and every table cell
    with a number outside a sourced figure (what the check refuses); `skip`: the ids of overview
    sections left out."""
    doc = parse(page)
    main = next((el for el in doc.iter(f"{NS}main")), None)
    found, bare = [], []
    if main is None:
        return found, bare
    for td in _cells(main, skip):
        classes = (td.get("class") or "").split()
        if "cond" in classes:
            continue
        figs = [el for el in td.iter() if {"fig", "check"} & set((el.get("class") or "").split()) and el.get("title")]
        found += [(re.sub(r"\s+", " ", "".join(el.itertext())).strip(), el.get("title")) for el in figs]
        if "num" in classes or figs:
            loose = _text(td, skip_figs=True)
            if NUMBER.search(loose):
                bare.append(re.sub(r"\s+", " ", loose).strip())
    return found, bare


def numbers_rows(numbers_page: Path) -> set[tuple[str, str]]:
    """(figure, source) of every row of a Numbers page's table of figures."""
    doc = parse(numbers_page)
    table = next(t for t in doc.iter(f"{NS}table") if t.get("id") == "provenance-table")
    out = set()
    for tr in table.iter(f"{NS}tr"):
        cells = [re.sub(r"\s+", " ", "".join(td.itertext())).strip() for td in tr if td.tag == f"{NS}td"]
        if len(cells) == 2:
            out.add((cells[0], cells[1]))
    return out


def problems(report: Path, skip_pages: tuple[str, ...] = (), skip_sections: tuple[str, ...] = ()) -> list[str]:
    """What a report's pages break of the rule: bare numbers, and figures the Numbers page lacks
    (`skip_pages`, `skip_sections`: pages and overview sections left out of the check)."""
    listed = numbers_rows(report / "numbers.html")
    by_text: dict[str, list[str]] = {}
    for text, source in listed:
        by_text.setdefault(text, []).append(source)
    out = []
    for page in sorted(report.glob("*.html")):
        if page.name == "numbers.html" or page.name in skip_pages:
            continue
        found, bare = figures(page, skip_sections)
        out += [f"{page.name}: a number with no source: {b!r}" for b in bare]
        for text, title in found:
            title = re.sub(r"\s+", " ", title).strip()  # as the Numbers page's cell reads
            if title.startswith("Checked against"):  # a checked statement of the lede: its figure is its words
                continue
            # A place in the receipt is listed by its path (then its date and original lines), a computed
            # figure by how it was computed, as its hover says.
            want = title if title.startswith("computed: ") else re.split(r" \(|; ", title.removeprefix("SUMMARY.json "))[0]
            if not any(s == want or s.startswith(want + " ") or s.startswith(want + ";") for s in by_text.get(text, [])):
                out.append(f"{page.name}: {text!r} ({title}) is not on the Numbers page")
    return out
