"""Issue 32, the standalone site: charts agree with their tables, tables name themselves, phones
and print. The static checks read the built example site; the browser checks are in
test_a11y_layout.py (axe, layout) and below (print, phones)."""
from __future__ import annotations

import re

import pytest

from htmlutil import NS, cell_text, find_id, parse

MINUS = "\u2212"


def number(text: str) -> float:
    return float(text.replace(MINUS, "-").replace("+", ""))


def forest_values(fig) -> dict[str, tuple[float, float, float]]:
    """Each row of a forest figure, read off its drawing through its own axis labels:
    checkpoint -> (dot, interval low, interval high) in the labels' units."""
    svg = next(fig.iter("{http://www.w3.org/2000/svg}svg"))
    S = "{http://www.w3.org/2000/svg}"
    ticks = [(float(t.get("x")), number(t.text)) for t in svg.iter(f"{S}text") if t.get("class") == "tick-label"]
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]

    def value(x: str) -> float:
        return v0 + (float(x) - x0) / (x1 - x0) * (v1 - v0)
    labels = [t for t in svg.iter(f"{S}text") if t.get("class") == "row-label"]
    cis = [e for e in svg.iter(f"{S}line") if e.get("class") == "ci"]
    dots = [e for e in svg.iter(f"{S}circle") if "est" in (e.get("class") or "")]
    out = {}
    for label, ci, dot in zip(labels, cis, dots):
        name = "".join(label.itertext()).strip()
        lo, hi = sorted((value(ci.get("x1")), value(ci.get("x2"))))
        out[name] = (value(dot.get("cx")), lo, hi)
    return out


@pytest.mark.parametrize("report", ["cuteafd-v4.0.0", "cuteafd-v3.0.1"])
def test_every_forest_dot_reads_on_its_axis_as_the_tables_difference(example_site, report):
    """Finding 11: the Top-1 agreement chart's axis read +0.20…+0.80 where its table says −0.35 pts
    (the axis was labelled in the flipped, 'further' units). Each dot and interval end, read through
    the tick labels, is the table's difference and interval."""
    doc = parse(example_site / "reports" / report / "precision.html")
    table = find_id(doc, "precision-table")
    rows = {}
    for tbody in table.iter(f"{NS}tbody"):
        checkpoint = cell_text(next(tbody.iter(f"{NS}tr"))[0])
        for tr in list(tbody.iter(f"{NS}tr"))[1:]:
            cells = [c for c in tr if c.tag in (f"{NS}th", f"{NS}td")]
            measure = cell_text(cells[0])
            shown = cell_text(cells[3]).split()[0]
            lo, hi = (number(v) for v in re.findall(r"[−+\-]?\d+(?:\.\d+)?", cell_text(cells[4])))
            # The table rounds: its last digit is the tolerance (half of it, and the drawing's 0.01 px).
            half = 0.5 * 10 ** -len(shown.split(".")[1]) if "." in shown else 0.5
            rows[(checkpoint, measure)] = (number(shown), lo, hi, half)
    checked = 0
    for fig in doc.iter(f"{NS}figure"):
        if "forest" not in (fig.get("class") or "") or not (fig.get("id") or "").startswith("forest-"):
            continue
        measure = cell_text(next(fig.iter(f"{NS}figcaption"))).split(" (")[0]
        for checkpoint, (dot, lo, hi) in forest_values(fig).items():
            diff, tlo, thi, half = rows[(checkpoint, measure)]
            tol = half + 1e-4 * abs(thi - tlo) + 1e-12
            assert abs(dot - diff) <= tol, (measure, checkpoint, dot, diff)
            assert abs(lo - tlo) <= tol and abs(hi - thi) <= tol, (measure, checkpoint, lo, hi, tlo, thi)
            checked += 1
    assert checked >= 8


def row_header_text(th) -> str:
    """A row header as assistive technology reads it: its visually hidden part included."""
    return re.sub(r"\s+", " ", "".join(t for t in th.itertext())).strip()


@pytest.mark.slow
def test_every_table_has_a_caption_unique_row_headers_and_no_empty_header(example_site):
    """Finding 9: no table had a <caption> (every table's accessible name empty), row headers
    repeated ("chat" four times in one table), the top-left header cells were empty."""
    problems, tables = [], 0
    for path in sorted(example_site.rglob("*.html")):
        doc = parse(path)
        captions = []
        for table in doc.iter(f"{NS}table"):
            tables += 1
            where = f"{path.relative_to(example_site)} table {table.get('id') or table.get('class')}"
            caption = table.find(f"{NS}caption")
            name = row_header_text(caption) if caption is not None else ""
            if not name:
                problems.append(f"{where}: no caption")
            captions.append(name)
            for th in table.iter(f"{NS}th"):
                if not row_header_text(th) and not th.get("aria-label"):
                    problems.append(f"{where}: an empty header cell")
            seen = set()
            for th in table.iter(f"{NS}th"):
                if th.get("scope") != "row":
                    continue
                text = row_header_text(th)
                if text in seen:
                    problems.append(f"{where}: row header {text!r} twice")
                seen.add(text)
        # A scroll box is named after its table's caption: names on one page tell the boxes apart.
        dup = {c for c in captions if c and captions.count(c) > 1}
        if dup:
            problems.append(f"{path.relative_to(example_site)}: captions repeated {sorted(dup)}")
    assert tables > 100
    assert problems == [], "\n".join(problems[:40])


def test_about_the_data_is_one_line_that_opens_above_the_first_finding(example_site):
    """Finding 12: a 9-line "About the data" box sat above every report's first finding."""
    overview = parse(example_site / "reports" / "cuteafd-v4.0.0" / "index.html")
    about = find_id(overview, "about-data")
    assert about is not None and about.tag == f"{NS}details" and about.get("open") is None
    order = [el.get("id") for el in overview.iter() if el.get("id") in ("about-data", "verdict", "what-was-tested")]
    assert order == ["about-data", "verdict", "what-was-tested"], order
    speed = parse(example_site / "reports" / "cuteafd-v4.0.0" / "speed.html")
    note = find_id(speed, "illustrative-note")
    assert note.tag == f"{NS}details" and note.get("open") is None
    summary = note.find(f"{NS}summary")
    assert cell_text(summary).startswith("About the data (the receipt says): ")


# ---- In Chromium: print (PDF -> image), phones, the sources control ------------------------------

REPORT = "cuteafd-v4.0.0"
PROBE_STYLE = ("body * { visibility: hidden !important; } [data-probe], [data-probe] * { visibility: visible !important; }"
               " [data-probe] .track, [data-probe] .band, [data-probe] .one { visibility: hidden !important; }"
               # the sheet's running title and number (in its margins, outside the DOM) left out too
               " @page { @top-left { content: none; } @bottom-right { content: none; } }")


def pdf_pages(pg, scale: float = 2.0):
    """The page printed to PDF (A4, Chromium's own print path), each sheet as an RGB array and its text."""
    pdfium = pytest.importorskip("pypdfium2")
    doc = pdfium.PdfDocument(pg.pdf(format="A4"))
    out = []
    for i in range(len(doc)):
        sheet = doc[i]
        image = sheet.render(scale=scale, rev_byteorder=True).to_numpy()[:, :, :3]
        text = sheet.get_textpage().get_text_range()
        out.append((image, text))
    return out


def dark_box(image, threshold: int = 128):
    """The bounding box (top, bottom, left, right) of the pixels darker than `threshold`."""
    import numpy as np

    dark = image.min(axis=2) < threshold
    rows, cols = np.nonzero(dark.any(axis=1))[0], np.nonzero(dark.any(axis=0))[0]
    assert len(rows) and len(cols), "nothing printed"
    return rows[0], rows[-1], cols[0], cols[-1]


def printed_probe(pg, selector: str, scheme: str):
    """Only the element `selector` (its bar, not its track or band) printed: the first sheet's image."""
    pg.emulate_media(color_scheme=scheme)
    pg.goto((pg.site / "reports" / REPORT / "speed.html").as_uri())
    pg.evaluate("""([sel, css]) => { document.querySelector(sel).setAttribute('data-probe', '');
        const s = document.createElement('style'); s.textContent = css; document.head.appendChild(s); }""",
                [selector, PROBE_STYLE])
    return pdf_pages(pg)[0][0]


@pytest.fixture
def site_page(page, example_site):
    page.site = example_site
    yield page
    page.emulate_media(media="screen", color_scheme="light")


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_printed_hollow_bars_stay_hollow_and_filled_ones_filled(site_page, scheme):
    """Finding 10: every range bar printed solid black, so "crosses the band edge" read "all faster".
    Printed to PDF and rendered: a hollow bar is an outline around white, a filled bar is dark
    inside; from a dark screen too."""
    hollow = printed_probe(site_page, ".ratio-bar.r-straddles", scheme)
    top, bottom, left, right = dark_box(hollow)
    assert right - left > 20 and bottom - top >= 4, (top, bottom, left, right)
    inside = hollow[top + (bottom - top) // 2, left + 3:right - 3]
    assert inside.min() > 200, f"the hollow bar printed filled ({inside.min(axis=1)[:10]})"
    filled = printed_probe(site_page, ".ratio-bar.r-above", scheme)
    top, bottom, left, right = dark_box(filled)
    inside = filled[top + (bottom - top) // 2, left + 3:right - 3]
    assert inside.max() < 100, "the filled bar printed hollow"


def luminance(rgb) -> float:
    def f(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (float(v) for v in rgb)
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


@pytest.mark.slow
def test_printed_legends_marks_and_titles(site_page):
    """Finding 10: the dot plot's legend was hidden in print, printing from dark mode put pale dots on
    white (1.5–1.9:1), sub-pages never named the report, and the speed page's first sheet was
    two-thirds blank. Printed from the dark scheme to PDF and rendered."""
    import numpy as np

    pg = site_page
    pg.emulate_media(color_scheme="dark")
    pg.goto((pg.site / "reports" / REPORT / "speed.html").as_uri())
    pg.wait_for_selector("[data-figure].ready svg")
    report = pg.locator(".crumb-report").inner_text().strip()
    legends = pg.evaluate("[...document.querySelectorAll('.chart-legend button:not(.reset)')].map(b => b.textContent.trim())")
    assert legends, "the chart draws no legend"
    sheets = pdf_pages(pg)
    words = " ".join(" ".join(t.split()) for _, t in sheets)
    for legend in set(legends) | {"hollow bar: the range crosses an edge of the band"}:
        assert legend in words, f"legend {legend!r} not printed"
    for i, (_, text) in enumerate(sheets, 1):
        assert f"Speed · {report}" in " ".join(text.split()), f"sheet {i} does not name the page and its report"
    # The first sheet is mostly used: its lowest ink (the page number in the margin left out) is
    # past two-thirds of the sheet.
    first = sheets[0][0]
    ink = np.nonzero((first[: int(first.shape[0] * 0.95)].min(axis=2) < 200).any(axis=1))[0]
    print(f"first sheet inked to {ink[-1] / first.shape[0]:.1%}")
    assert ink[-1] > 0.66 * first.shape[0], f"first sheet blank from {ink[-1] / first.shape[0]:.0%} down"
    # The chart's dots and the legend's keys: printed in the light palette, 3:1 or more on white.
    pg.evaluate("""css => { document.querySelector('.chart-legend').setAttribute('data-probe', '');
        const s = document.createElement('style'); s.textContent = css; document.head.appendChild(s); }""", PROBE_STYLE)
    keys = [(img, " ".join(text.split())) for img, text in pdf_pages(pg) if (img.min(axis=2) < 250).any()]
    assert keys, "the chart's legend is not printed"
    image, text = keys[0]
    assert all(legend in text for legend in legends), (legends, text)
    pixels = image.reshape(-1, 3)
    coloured = pixels[(pixels.max(axis=1) - pixels.min(axis=1)) > 40]  # the keys' colour, not the black text
    assert len(coloured), "the legend's keys printed without colour"
    darkest = min(coloured, key=luminance)
    assert (1.05) / (luminance(darkest) + 0.05) >= 3, f"a legend key prints pale on white: {darkest}"


STRIP_JS = """() => { const a = document.querySelector('.sidenav a[aria-current="page"]');
    if (!a) return null; const r = a.getBoundingClientRect(), u = a.closest('ul').getBoundingClientRect();
    return [r.left, r.right, u.left, u.right, a.closest('ul').scrollLeft]; }"""


@pytest.mark.slow
def test_phone_section_strip_shows_the_current_page(browser, example_site):
    """Finding 8: on 6 of 9 report pages the current page's tab was off-screen in the section strip.
    Each page of the report with the most pages (its last tabs far along the strip), loaded at 390
    and 320 px; every page of the site, loaded wide and narrowed to those widths, is checked by
    test_a11y_layout's layout pass (page.js brings the tab into view on a resize too, and leaves a
    strip the reader scrolled alone while the tab is in view)."""
    most = max((example_site / "reports").iterdir(), key=lambda d: len(list(d.glob("*.html"))))
    paths = sorted(most.glob("*.html"))
    assert len(paths) >= 9
    context = browser.new_context()
    pg = context.new_page()
    try:
        for width in (390, 320):
            pg.set_viewport_size({"width": width, "height": 844})
            for path in paths:
                # The strip is scrolled by page.js's start(), a deferred script's, run before
                # DOMContentLoaded: its charts' scripts need not have drawn (a third of the load).
                pg.goto(path.as_uri(), wait_until="domcontentloaded")
                left, right, ul_left, ul_right, _ = pg.evaluate(STRIP_JS)
                assert left >= ul_left - 1 and right <= ul_right + 1, (path, width)
        # On a resize: a strip scrolled a little by the reader, its tab still in view, stays as it is;
        # scrolled so far that the tab is out of view, the tab comes back.
        def resized(width: int) -> list[float]:
            pg.set_viewport_size({"width": width, "height": 844})
            pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            return pg.evaluate(STRIP_JS)
        pg.goto(paths[len(paths) // 2].as_uri())
        pg.evaluate("document.querySelector('.sidenav ul').scrollLeft += 4")
        before = pg.evaluate(STRIP_JS)
        assert resized(319)[4] == before[4]  # (narrower: the strip's furthest scroll is not cut)
        for end in (0, 100000):  # the strip's start or its end: the one that hides the tab
            pg.evaluate(f"document.querySelector('.sidenav ul').scrollLeft = {end}")
            left, right, ul_left, ul_right, _ = pg.evaluate(STRIP_JS)
            if right < ul_left or left > ul_right:
                break
        else:
            raise AssertionError("the tab could not be scrolled out of view")
        left, right, ul_left, ul_right, _ = resized(320)
        assert left >= ul_left - 1 and right <= ul_right + 1
    finally:
        context.close()


@pytest.mark.slow
def test_long_pages_have_on_this_page_and_tables_one_sources_control(browser, example_site):
    """Finding 8: the speed page (11,975 px at 390) had no in-page contents. Finding 9: the overview
    had 169 tab stops, 125 of them numbers. Each table's figures are now reached through one
    button that writes every figure's source under it."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    try:
        pg.goto((example_site / "reports" / REPORT / "speed.html").as_uri())
        toc = pg.locator("nav#on-this-page")
        assert toc.count() == 1 and toc.get_attribute("aria-label") == "On this page"
        targets = pg.evaluate("[...document.querySelectorAll('#on-this-page a')].map(a => decodeURIComponent(a.hash.slice(1)))")
        heads = pg.evaluate("[...document.querySelectorAll('main h2[id]')].map(h => h.id)")
        assert set(heads) <= set(targets) and all(pg.locator(f"[id='{t}']").count() == 1 for t in targets)
        toc.locator("summary").click()
        toc.locator("a").last.click()
        assert pg.evaluate("location.hash") == "#" + targets[-1]

        pg.goto((example_site / "reports" / REPORT / "index.html").as_uri())
        stats = pg.evaluate("""() => {
          const stops = [...document.querySelectorAll('a[href], button, input, summary, [tabindex]')]
            .filter(e => e.tabIndex >= 0 && e.getClientRects().length);
          const inTables = stops.filter(e => e.closest('table.data') && !e.closest('a, button, summary')).length;
          const tables = [...document.querySelectorAll('table.data')].filter(t => t.querySelector('.fig'));
          const toggles = tables.map(t => document.querySelectorAll(`.sources-toggle[aria-controls="${t.id}"]`).length);
          return {stops: stops.length, figsFocusable: document.querySelectorAll('table.data .fig[tabindex]').length,
                  tables: tables.length, toggles, inTables};
        }""")
        assert stats["figsFocusable"] == 0 and stats["tables"] >= 4 and set(stats["toggles"]) == {1}, stats
        assert stats["inTables"] == 0, stats  # a table's only tab stops are its links
        table = pg.locator("table.data:has(.fig)").first
        toggle = pg.locator(f".sources-toggle[aria-controls='{table.get_attribute('id')}']")
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "true"
        pairs = table.evaluate("t => [...t.querySelectorAll('.fig')]"
                               ".map(f => [f.dataset.tip, f.nextElementSibling && f.nextElementSibling.textContent])")
        assert pairs and all(tip and tip == shown for tip, shown in pairs), pairs[:3]
        toggle.click()
        assert table.locator(".fig-source:visible").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize("text", ["Speed · CuteAFD v4.0.0 against tpurtell's vLLM fork", 'a "quoted" </style><script>x()</script>',
                                  "line\nbreak \\ back; } @page { x", "emoji 😀 and tab\tend", ""])
def test_a_running_title_is_a_css_string_no_text_can_leave(text):
    """The printed sheets' title is text from data placed in a <style>: only letters, digits,
    spaces and hex escapes (each ended by the one space CSS consumes), and CSS reads it back whole."""
    from site_gen.render.environment import css_string

    out = str(css_string(text))
    assert out[0] == out[-1] == '"' and re.fullmatch(r'"(?:[A-Za-z0-9 ]|\\[0-9a-f]{1,6} )*"', out), out
    read = re.sub(r"\\([0-9a-f]{1,6}) ", lambda m: chr(int(m.group(1), 16)), out[1:-1])  # CSS's own escape rule
    assert read == text


def test_the_home_page_s_running_title_names_the_site_once(example_site):
    """A printed sheet is titled "Page · Site"; the home page, whose title is the site's name, was
    titled "Inference engine benchmarks · Inference engine benchmarks"."""
    title = lambda name: re.search(r"@top-left \{ content: (\"[^\"]*\");", (example_site / name).read_text()).group(1)  # noqa: E731
    site = re.search(r"<title>([^<]*)</title>", (example_site / "index.html").read_text()).group(1)
    assert title("index.html") == f'"{site}"'
    assert title("history.html") == f'"History \\b7  {site}"'
