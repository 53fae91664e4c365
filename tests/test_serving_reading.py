"""The serving pages as they are read on a phone, with a keyboard, on paper and inside MkDocs themes
(issue 56, items 10-13): cards that name the setups, chart points whose values show on hover, touch
and keyboard, sheets that never end on a table with no rows, a legend that reads in black and white."""
from __future__ import annotations

from htmlutil import NS, cell_text, parse


def header_names(table) -> list[str]:
    """The text of each column's header (a header spanning columns names each of them)."""
    head = table.find(f"{NS}thead")
    if head is None:
        return []
    out: list[str] = []
    for th in head.findall(f"{NS}tr")[-1]:
        out += [cell_text(th)] * int(th.get("colspan") or 1)
    return out


def test_a_card_names_its_column_as_the_table_s_header_does(example_site):
    """Item 11: on a phone a table row becomes a card whose cells are labelled by their column
    (`data-label`); the latency and throughput tables labelled the setups' columns "Baseline" and
    "Candidate" where the header names the setups. Every labelled cell of every page: its label is
    its column's header or a part of it ("Interval" of "95% interval")."""
    checked, wrong = 0, []
    for page in sorted(example_site.rglob("*.html")):
        doc = parse(page)
        for table in doc.iter(f"{NS}table"):
            names = header_names(table)
            for body in table.findall(f"{NS}tbody"):
                for tr in body.findall(f"{NS}tr"):
                    column = 0
                    for cell in tr:
                        label = cell.get("data-label")
                        if label is not None and column < len(names):
                            checked += 1
                            if label.lower() not in names[column].lower():
                                wrong.append((page.relative_to(example_site).as_posix(), label, names[column]))
                        column += int(cell.get("colspan") or 1)
    assert checked > 2000
    assert wrong == [], sorted(set(wrong))[:10]
    latency = parse(example_site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "latency.html")
    labels = {cell.get("data-label") for cell in latency.iter(f"{NS}td")}
    assert {"tp8, one node", "tp4×pp2, two nodes, InfiniBand"} <= labels and not {"Baseline", "Candidate"} & labels
