"""The serving pages as they are read on a phone, with a keyboard, on paper and inside MkDocs themes
(issue 56, items 10-13): cards that name the setups, chart points whose values show on hover, touch
and keyboard, sheets that never end on a table with no rows, a legend that reads in black and white."""
from __future__ import annotations

import pytest

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


@pytest.mark.slow
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


# ---- On paper ------------------------------------------------------------------------------------

# Each table with a header and rows of figures gets a token in its header's first cell and in the first
# cell of each of its rows (a group's heading row is no row of figures), in type too small to move
# anything: the text of each printed sheet then says which tables' headers and rows it holds.
TOKENS_JS = r"""() => {
  let n = 0;
  const token = (row, text) => { const s = document.createElement('span'); s.textContent = text + ' ';
    s.style.cssText = 'font-size: 1px; line-height: 0'; row.cells[0].prepend(s); };
  for (const table of document.querySelectorAll('table')) {
    const head = table.tHead, rows = [...table.tBodies].flatMap(b => [...b.rows]).filter(r => !r.classList.contains('group'));
    if (!head || !head.rows.length || !rows.length) continue;
    n += 1;
    token(head.rows[head.rows.length - 1], `zqH${n}zq`);
    rows.forEach(r => token(r, `zqR${n}zq`));
  }
  return n;
}"""


def printed_texts(page, file) -> list[str]:
    """`file` printed to PDF as Chromium prints it (A4), the text of each sheet."""
    import pypdfium2 as pdfium

    page.emulate_media(media="print")
    page.goto(file.as_uri())
    assert page.evaluate(TOKENS_JS) > 0
    doc = pdfium.PdfDocument(page.pdf(format="A4"))
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


@pytest.mark.slow
def test_no_printed_sheet_ends_on_a_table_with_no_row(example_site, page):
    """Item 13: the Latency page's first sheet ended with a table's header, a group's heading and its
    footer, and no row: the rows all went over to the next sheet. Every table of the serving pages,
    printed: a sheet that holds a table's header holds one of its rows too."""
    import re

    files = sorted(example_site.glob("reports/*/latency.html")) + sorted(example_site.glob("reports/vllm-tp8*/*.html"))
    empty, sheets = [], 0
    for file in dict.fromkeys(files):
        if file.name in ("numbers.html", "checkpoints.html"):
            continue  # no serving table of its own
        for i, text in enumerate(printed_texts(page, file), 1):
            sheets += 1
            heads, rows = set(re.findall(r"zqH(\d+)zq", text)), set(re.findall(r"zqR(\d+)zq", text))
            empty += [f"{file.parent.name}/{file.name} sheet {i}: table {n}" for n in sorted(heads - rows)]
    assert sheets > 20
    assert empty == [], empty


@pytest.mark.slow
def test_the_printed_colour_legend_names_marks_not_colours(example_site, page):
    """Item 13: on paper the verdicts print black (sitegen.css's print palette), and the legend still
    said "▲ blue better", "▼ orange worse", "● grey neutral". Printed, each mark is followed by what it
    means; on screen the colours are named as before."""
    import re

    file = example_site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "index.html"
    page.goto(file.as_uri())
    assert " ".join(page.locator("#legend").inner_text().split()).startswith("Colours: ▲ blue better for tp4×pp2")
    text = " ".join(" ".join(printed_texts(page, file)).split())
    legend = re.search(r"(\S+) better for tp4×pp2.*?(\S+) (\S+) neutral: level", text)
    assert legend, text[-2000:]
    assert legend.group(1) == "▲" and legend.group(3) == "●", legend.group(0)
    assert not re.search(r"\b(blue|orange|grey|Colours)\b", legend.group(0)), legend.group(0)
    assert "▼ worse" in legend.group(0), legend.group(0)


# ---- Chart points: hover, keyboard, touch ----------------------------------------------------------

TIP = """() => { const t = document.getElementById('sitegen-tip'); if (!t || t.hidden) return null;
  const r = t.getBoundingClientRect();
  return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          vw: document.documentElement.clientWidth, vh: document.documentElement.clientHeight}; }"""


def point_titles(file, nth: int = 0) -> list[str]:
    """The titles of the points of the page's `nth` chart, in their order, read from its file."""
    import html
    import re

    svg = re.findall(r'<svg class="chart-svg".*?</svg>', file.read_text(encoding="utf-8"), re.DOTALL)[nth]
    return [html.unescape(t) for t in re.findall(r"<title>(.*?)</title>", svg)]


def on_screen(tip) -> bool:
    return tip is not None and tip["left"] >= 0 and tip["top"] >= 0 and tip["right"] <= tip["vw"] and tip["bottom"] <= tip["vh"]


@pytest.mark.slow
def test_a_chart_point_shows_its_value_on_hover_and_from_the_keyboard(example_site, page):
    """Item 10: the serving charts' points had only SVG <title> tooltips (nothing on touch or from the
    keyboard, the browser's own box on hover, late). A point shows the page's tooltip on hover; a
    chart is one tab stop whose arrow keys, Home and End go from point to point; Escape closes."""
    file = example_site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "load.html"
    titles = point_titles(file)
    assert len(titles) >= 8
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(file.as_uri())
    chart = page.locator("svg.chart-svg").first
    points = chart.locator(".tip-mark")
    assert points.count() == len(titles) and chart.locator("title").count() == 0  # no browser tooltip beside it
    points.nth(3).scroll_into_view_if_needed()
    points.nth(3).hover()
    tip = page.evaluate(TIP)
    assert tip and tip["text"] == titles[3] and on_screen(tip), (tip, titles[3])
    assert chart.get_attribute("aria-describedby") == "sitegen-tip"
    page.mouse.move(1, 1)
    assert page.evaluate(TIP) is None
    # From the keyboard: Tab to the first chart, along its points, out of it.
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('svg.chart-svg')"):
            break
    assert page.evaluate("document.activeElement === document.querySelector('svg.chart-svg')")
    seen = [page.evaluate(TIP)["text"]]
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "End", "Home"):
        page.keyboard.press(key)
        seen.append(page.evaluate(TIP)["text"])
    assert seen == [titles[0], titles[1], titles[2], titles[1], titles[-1], titles[0]], seen
    assert on_screen(page.evaluate(TIP))
    page.keyboard.press("Escape")
    assert page.evaluate(TIP) is None
    assert page.errors == []


@pytest.mark.slow
def test_a_tap_near_a_chart_point_shows_its_value(example_site, browser):
    """Item 10, on a phone: a tap within a finger's reach of a point (not on its 7 px dot) shows its
    value, on screen; a tap on the page elsewhere closes it."""
    file = example_site / "reports" / "vllm-tp8-against-tp4pp2-ib" / "distributions.html"
    titles = point_titles(file)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(file.as_uri())
        points = page.locator("svg.chart-svg").first.locator(".tip-mark")
        assert points.count() == len(titles) >= 8
        for i in (1, len(titles) - 1):
            points.nth(i).scroll_into_view_if_needed()
            box = points.nth(i).bounding_box()
            page.touchscreen.tap(box["x"] + box["width"] / 2 + 9, box["y"] + box["height"] / 2 + 7)
            tip = page.evaluate(TIP)
            assert tip and tip["text"] == titles[i] and on_screen(tip), (i, tip, titles[i])
        page.touchscreen.tap(5, 400)
        assert page.evaluate(TIP) is None
    finally:
        context.close()
