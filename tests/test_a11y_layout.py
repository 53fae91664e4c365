"""Every page in Chromium: axe-core finds no violation of any impact (light and dark, 1280, 390 and
320 px), and the layout holds at 320, 390, 768 and 1280 px (nothing wider than the screen outside a box
that says it scrolls, no cell whose content spills out of it, tooltips on screen, the current page's
tab in view in its section links). The example site
is also checked as a site from file:// on the same loads: no console error or failed request, every
chart drawn, every link to a file that exists and to an id its page has, every page reachable from
the home page by links.

One page object serves every page: each page loads once, axe is injected once per load, and the
viewport and colour scheme change in place. `check_site` takes any built site directory.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest

from conftest import ROOT, sitegen_here, watched_page

pytestmark = pytest.mark.slow  # the whole file: left out of the quick loop (tests/run.sh --quick)

AXE_RUNS = [("light", 1280), ("dark", 1280), ("light", 390), ("dark", 390), ("light", 320), ("dark", 320)]
LAYOUT_WIDTHS = (1280, 768, 390, 320)
FIXTURES = ROOT / "tests" / "fixtures" / "reports"

# Layout problems on the page as it is now drawn: each is one line naming the element.
LAYOUT_JS = r"""() => {
  const vw = document.documentElement.clientWidth, out = [], reported = new Set();
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
  const scroller = (e) => { for (let a = e.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a).overflowX; if (s === "auto" || s === "scroll") return a; } return null; };
  if (document.documentElement.scrollWidth > vw + 1) out.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + vw);
  for (const e of document.body.querySelectorAll("*")) {
    if (!e.getClientRects().length || e.closest("svg, .skip, [hidden], .sitegen-tip") && e.tagName !== "svg") continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.right > vw + 1 || r.left < -1) {
      const box = scroller(e);
      if (!box) { if (!reported.has(e.parentElement)) out.push("wider than the screen: " + name(e) + " " + Math.round(r.left) + ".." + Math.round(r.right)); reported.add(e); continue; }
      const b = box.getBoundingClientRect();
      if (b.right > vw + 1 || b.left < -1) out.push("scroll box off screen: " + name(box));
      else if (!box.classList.contains("scrolls")) out.push("scrolls without saying so: " + name(box) + " holding " + name(e));
      else if (box.classList.contains("table-wrap")) {
        const hint = box.previousElementSibling;
        if (!hint || !hint.classList.contains("scroll-hint") || !hint.getClientRects().length) out.push("no scroll hint: " + name(box));
      }
    }
    if ((e.tagName === "TD" || e.tagName === "TH") && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === "visible")
      out.push("content spills out of its cell: " + name(e.closest("table")) + " " + JSON.stringify(e.textContent.trim().slice(0, 40)));
  }
  // The current page's tab in view in its section links (on a phone a strip that scrolls sideways:
  // page.js brings the tab into view on a load and on a resize to that width).
  for (const a of document.querySelectorAll(".sidenav ul a[aria-current='page']")) {
    if (!a.getClientRects().length) continue;
    const r = a.getBoundingClientRect(), u = a.closest("ul").getBoundingClientRect();
    if (r.left < u.left - 1 || r.right > u.right + 1) out.push("current page's tab out of view in its section links: " + Math.round(r.left) + ".." + Math.round(r.right) + " in " + Math.round(u.left) + ".." + Math.round(u.right));
  }
  return [...new Set(out)];
}"""

# The figures nearest each edge of the page: if their tooltips stay on screen, every one does.
# Focusable figures: a dense table's (every cell of a speed or scenario grid) is no tab stop, its source
# on hover and on the Numbers page (site_gen/render/provenance.py).
EDGE_FIGURES_JS = r"""() => {
  const figs = [...document.querySelectorAll(".fig[data-tip][tabindex], .check[data-tip], mark.check-failed[data-tip]")]
    .filter(e => e.getClientRects().length);
  const by = (f) => figs.slice().sort((a, b) => f(a.getBoundingClientRect()) - f(b.getBoundingClientRect()));
  const pick = new Set([...by(r => -r.right).slice(0, 3), ...by(r => r.left).slice(0, 1), ...by(r => -r.bottom).slice(0, 1)]);
  figs.forEach((e, i) => e.dataset.edgeFigure = pick.has(e) ? "1" : "");
  return pick.size;
}"""

# Table rows whose cells carry the same classes as an earlier row's of their table are styled alike (no
# rule of the stylesheet looks at a row's position, and no table cell takes a colour from a style
# attribute): axe checks the first of each kind in each table (so no table is left without rows, nor
# a scrolling box without what it scrolls) and not the rest. They are taken out of the page once its
# layout has been checked at every width, not passed to axe as an exclude list: excluded nodes cost axe
# nearly what checked ones do (its tree still holds them, each tested against the list). On a Numbers
# page of a thousand such rows, excluding them saved a third of axe's time and taking them out over
# nine tenths; the whole test, a fifth.
SAME_ROWS_JS = r"""() => {
  const seen = new Map(), same = [];
  for (const tr of document.querySelectorAll("tbody tr")) {
    const table = tr.closest("table");
    if (!seen.has(table)) seen.set(table, new Set());
    const sig = tr.className + "|" + [...tr.querySelectorAll("*")].map(e => e.tagName + "." + (e.getAttribute("class") || "")).join(",");
    if (seen.get(table).has(sig)) same.push(tr); else seen.get(table).add(sig);
  }
  same.forEach(tr => tr.remove());
  return same.length;
}"""
# Every rule in both schemes: a dark block that sets colours only today may not tomorrow (issue 32).
AXE_RUN = "axe.run(document, {resultTypes: ['violations'], preload: false})"

# axe parses every colour it reads (each element's computed background-color and color, for each text
# node whose contrast it checks) through a general CSS colour library and gamut mapping: a page names a
# few dozen distinct colour strings, parsed tens of thousands of times. The parse is a function of its
# string alone (it reads nothing but its argument and sets r, g, b and alpha), so each string's result
# is kept and set again; what fails to parse still fails, and is not kept. axe's results are the same
# (test_axe_colour_memo_*); on 12 pages of the example, 4 runs each, the runs took 0.81 of their time
# with every check's data compared, and color-contrast alone on the speed page about half.
AXE_COLOUR_MEMO_JS = r"""() => {
  const Color = axe.commons.color.Color, parse = Color.prototype.parseString, kept = new Map();
  if (Color.prototype.parseString.kept) return;
  Color.prototype.parseString = function (text) {
    const hit = kept.get(text);
    if (hit === undefined) { parse.call(this, text); kept.set(text, [this.r, this.g, this.b, this.alpha]); return this; }
    [this.r, this.g, this.b, this.alpha] = hit;
    return this;
  };
  Color.prototype.parseString.kept = kept;
}"""

# Each edge figure takes keyboard focus in turn (what Playwright's focus() does: element.focus(),
# whose focusin opens the tooltip), and the tooltip's box is read: in one call, not two per figure.
EDGE_TIPS_JS = r"""() => [...document.querySelectorAll("[data-edge-figure='1']")].map(e => {
  // From elsewhere: a figure still focused from the last width's check would get no focus event.
  if (document.activeElement) document.activeElement.blur();
  e.focus();
  const t = document.getElementById("sitegen-tip");
  if (!t || t.hidden) return null;
  const r = t.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, vw: document.documentElement.clientWidth, vh: document.documentElement.clientHeight};
})"""

TIP_JS = r"""() => {
  const t = document.getElementById("sitegen-tip");
  if (!t || t.hidden) return null;
  const r = t.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, vw: document.documentElement.clientWidth, vh: document.documentElement.clientHeight};
}"""


def test_printed_tables_fit_the_paper_and_caveats_print_whole(example_site, one_page):
    """Print media at a sheet's width: the wide tables of the serving pages wrap (cells take lines,
    an interval breaks after its dash, no number is cut in two) instead of running off the paper,
    and a closed caveat ("About the data") or list of what differs between the sides prints whole."""
    pg = one_page
    pg.set_viewport_size({"width": 860, "height": 1000})
    pg.emulate_media(media="print")
    pages = ["index.html"] + [f"reports/{r}/{p}.html" for r in ("vllm-tp8-against-tp4pp2-ib", "vllm-tp4pp2-ib-aa",
                                                                  "sglang-llama-3.3-70b-sweep") for p in ("index", "load", "latency")]
    try:
        for name in pages + ["reports/cuteafd-v4.0.0/index.html"]:
            pg.goto((example_site / name).as_uri())
            over = pg.evaluate("[...document.querySelectorAll('table')].filter(t => t.checkVisibility()"
                               " && t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length")
            assert over == 0, name
            closed = pg.evaluate("[...document.querySelectorAll('details.about-data, details#differs')].map(d =>"
                                 " [...d.children].filter(c => c.matches('p:not(.sources-control):not(.scroll-hint), .table-wrap'))"
                                 ".every(c => c.checkVisibility()))")
            assert all(closed), (name, closed)
            larger = pg.evaluate("[...document.querySelectorAll('table.data td .sub')].filter(s => s.checkVisibility() &&"
                                 " parseFloat(getComputedStyle(s).fontSize) > parseFloat(getComputedStyle(s.closest('td')).fontSize)).length")
            assert larger == 0, name  # an interval under a figure prints smaller than the figure, not larger
        assert pg.evaluate("document.querySelectorAll('details.about-data').length") == 1  # the caveat was looked at
    finally:
        pg.emulate_media(media="screen")


def test_scale_labels_stay_on_one_line_on_a_phone(example_site, one_page):
    """The speed scale's tick labels (0.8 to 1.8) are absolutely placed: the last one, at the right
    edge, broke into "1" and ".8" on a 390 px screen until they were kept from wrapping."""
    pg = one_page
    pg.set_viewport_size({"width": 390, "height": 900})
    pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "speed.html").as_uri())
    lines = pg.evaluate("[...document.querySelectorAll('.scale-labels span')].map(s => [s.textContent,"
                        " Math.round(s.getBoundingClientRect().height / parseFloat(getComputedStyle(s).lineHeight || 16))])")
    assert lines and all(n <= 1 for _, n in lines), [x for x in lines if x[1] > 1]


CUT_LABELS_JS = """() => [...document.querySelectorAll('table.data.stack td[data-label]')].filter(td => {
  if (!td.checkVisibility()) return false;
  const s = getComputedStyle(td, '::before'), c = getComputedStyle(td);
  if (s.content === 'none' || s.whiteSpace !== 'nowrap') return false;
  const probe = document.createElement('span'); probe.style.font = s.font; probe.style.whiteSpace = 'nowrap';
  probe.textContent = td.dataset.label; document.body.appendChild(probe);
  const need = probe.getBoundingClientRect().width; probe.remove();
  return need > td.clientWidth - parseFloat(c.paddingLeft) - parseFloat(c.paddingRight) + 1; }).map(td => td.dataset.label)"""


def test_a_card_s_column_names_wrap_and_are_never_cut(example_site, one_page):
    """On a phone a table becomes one card per row, each cell named by its column: a long name
    ("Since the build before") wraps rather than ending in an ellipsis."""
    pg = one_page
    pg.set_viewport_size({"width": 390, "height": 900})
    for name in ("history.html", "index.html", "reports/cuteafd-v4.0.0/speed.html", "reports/vllm-tp4pp2-ib-aa/load.html"):
        pg.goto((example_site / name).as_uri())
        assert pg.evaluate(CUT_LABELS_JS) == [], name
    assert pg.evaluate("document.querySelectorAll('table.data.stack td[data-label]').length") > 0


def test_the_home_table_takes_the_page_s_width_and_prose_a_reading_width(example_site, one_page):
    """At 1280 px the table of reports spreads over the content column (it was held to the prose's
    60rem and scrolled sideways with room to spare); the home page's paragraphs keep 60rem."""
    pg = one_page
    pg.set_viewport_size({"width": 1280, "height": 900})
    pg.goto((example_site / "index.html").as_uri())
    wrap = pg.evaluate("(() => { const w = document.querySelector('#reports-wrap'), c = document.querySelector('.content');"
                       " return [w.scrollWidth, w.clientWidth, c.clientWidth]; })()")
    assert wrap[0] <= wrap[1] + 1 and wrap[1] > 0.9 * wrap[2], wrap
    rem = pg.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    widths = pg.evaluate("[...document.querySelectorAll('.doc > p')].map(p => p.getBoundingClientRect().width)")
    assert widths and max(widths) <= 60 * rem + 1


def test_speed_row_labels_are_whole_where_the_chart_has_room(example_site, one_page):
    """The speed chart's row labels get the room their longest needs: at 1280 px none is shortened
    ("reasoni… · 1K in · 16 streams" was, with half the chart empty); on a phone they may be, each
    with its whole text as its title."""
    pg = one_page
    pg.set_viewport_size({"width": 1280, "height": 900})
    pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "speed.html").as_uri())
    pg.wait_for_function("document.querySelectorAll('.row-labels text').length > 0")
    labels = pg.evaluate("[...document.querySelectorAll('.row-labels text')].map(t => t.firstChild.textContent)")
    assert labels and not [t for t in labels if "…" in t]
    assert "long-context · 128K in · 2 streams" in labels


def pages_of(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


LINKS_JS = """() => [document.querySelectorAll('[data-figure]:not(.ready)').length, [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.getAttribute('name')),
  [...document.querySelectorAll('a[href]')].map(e => [new URL(e.getAttribute('href'), document.baseURI).href, e.getAttribute('href')])]"""


class Links:
    """What the pages of a site link to, gathered page by page as they load, then judged as a whole."""

    def __init__(self, site: Path):
        self.site, self.base = site, site.as_uri() + "/"
        self.ids: dict[str, set[str]] = {}
        self.edges: dict[str, set[str]] = {}
        self.fragments: list[tuple[str, str, str]] = []
        self.problems: list[str] = []

    def page(self, pg, name: str) -> None:
        if pg.evaluate("document.querySelectorAll('[data-figure]').length"):  # charts draw (their script loaded and ran)
            pg.wait_for_selector("[data-figure].ready svg", timeout=10000)
        not_drawn, ids, links = pg.evaluate(LINKS_JS)  # once the charts are drawn: in one call
        if not_drawn:
            self.problems.append(f"{name}: a chart not drawn")
        self.ids[name], self.edges[name] = set(ids), set()
        for href, raw in links:
            target, fragment = urldefrag(href)
            if raw.startswith(("http://", "https://", "mailto:")):
                continue  # off the site: not followed offline
            if not target.startswith(self.base):
                self.problems.append(f"{name}: link {raw!r} leaves the site ({href})")
                continue
            rel = unquote(target[len(self.base):])
            rel = rel + "index.html" if rel.endswith("/") or rel == "" else rel
            if not (self.site / rel).is_file():
                self.problems.append(f"{name}: link {raw!r} points to a missing file")
            elif rel.endswith(".html"):
                self.edges[name].add(rel)
                if fragment:
                    self.fragments.append((name, rel, fragment))

    def judge(self) -> list[str]:
        out = list(self.problems)
        out += [f"{src}: link to {rel}#{frag}, which has no such id" for src, rel, frag in self.fragments
                if frag not in self.ids.get(rel, set())]
        seen, todo = set(), ["index.html"]
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += self.edges.get(name, ())
        out += [f"{name}: no link leads here from the home page" for name in self.ids if name not in seen and name != "404.html"]
        return out


def tooltip_problems(pg, where: str) -> list[str]:
    out = []
    pg.evaluate(EDGE_FIGURES_JS)
    for box in pg.evaluate(EDGE_TIPS_JS):
        if box is None:
            out.append(f"{where}: no tooltip on focus")
        elif box["left"] < 0 or box["top"] < 0 or box["right"] > box["vw"] or box["bottom"] > box["vh"]:
            out.append(f"{where}: tooltip off screen {box}")
    pg.keyboard.press("Escape")
    if pg.evaluate(TIP_JS) is not None:
        out.append(f"{where}: Escape left the tooltip open")
    return out


def set_width(pg, width: int, *, unless_there: bool = False) -> None:
    """The viewport at `width`, then two frames for what the page does on a resize (its resize
    handlers, its charts drawn again at their new width). With `unless_there`, a page already at
    that size is left as it is: nothing changed, nothing to wait for."""
    size = {"width": width, "height": 844 if width < 600 else 900}
    if unless_there and pg.viewport_size == size:
        return
    pg.set_viewport_size(size)
    pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def layout_widths(runs) -> list[int]:
    """LAYOUT_WIDTHS in an order that ends at the width of the page's first axe run, where it can
    (the page loads at the first, 1280 px): the axe runs then start without a resize."""
    first, *rest = LAYOUT_WIDTHS
    last = runs[0][1] if runs else None
    return [first, *[w for w in rest if w != last], *([last] if last in rest else [])]


def page_kind(name: str) -> str:
    """A page's kind: a report page by its file (`speed.html` of every report is one kind), a docs page
    by its folder, any other by its name."""
    parts = name.split("/")
    return f"report {parts[-1]}" if parts[0] == "reports" and len(parts) == 3 else (
        f"docs {parts[0]}" if len(parts) > 1 else name)


def axe_plan(site: Path, names: list[str]) -> dict[str, list[tuple[str, int]]]:
    """The axe runs of each page: every scheme and width of AXE_RUNS on the largest page of each kind
    (`page_kind`: the same templates, the most content), one of them on every other page, in turn, so
    that every page is checked and every scheme and width meets pages of every kind. (All six on all
    145 pages were 870 runs, a fifth of the whole suite's time.)"""
    largest: dict[str, str] = {}
    for name in names:
        kind = page_kind(name)
        if kind not in largest or (site / name).stat().st_size > (site / largest[kind]).stat().st_size:
            largest[kind] = name
    chosen = set(largest.values())
    others = [n for n in names if n not in chosen]
    plan = {n: list(AXE_RUNS) for n in chosen}
    plan.update({n: [AXE_RUNS[i % len(AXE_RUNS)]] for i, n in enumerate(others)})
    return plan


def axe_problems(pg, axe, name: str, totals: dict, runs=AXE_RUNS) -> list[str]:
    """axe's violations of the page as loaded, in each scheme and width of `runs`, its repeated
    table rows taken out first (SAME_ROWS_JS)."""
    problems = []
    pg.evaluate(axe.axe_script)
    pg.evaluate(AXE_COLOUR_MEMO_JS)
    totals["rows skipped"] = totals.get("rows skipped", 0) + pg.evaluate(SAME_ROWS_JS)
    here = pg.viewport_size["width"]  # the runs at the page's width first, then by width as AXE_RUNS has them
    for scheme, width in sorted(runs, key=lambda run: run[1] != here):
        set_width(pg, width, unless_there=True)
        pg.emulate_media(color_scheme=scheme)
        result = pg.evaluate(AXE_RUN)
        totals["axe runs"] += 1
        for v in result["violations"]:
            impact = v["impact"] if v["impact"] in ("serious", "critical") else "moderate/minor"
            totals[impact] += len(v["nodes"])
            targets = ", ".join(str(n["target"]) for n in v["nodes"][:3])
            problems.append(f"{name} {scheme} @{width}: axe {v['impact']} {v['id']}: {targets}")
    pg.emulate_media(color_scheme="light")
    return problems


def check_site(pg, site: Path, axe=None, links: Links | None = None) -> tuple[list[str], dict]:
    """Layout problems (with `axe`, its violations of any impact; with `links`, console errors,
    failed requests and link problems) of every page of `site`."""
    problems, totals = [], {"pages": 0, "axe runs": 0, "serious": 0, "critical": 0, "moderate/minor": 0}
    names = pages_of(site)
    plan = axe_plan(site, names)
    for name in names:
        pg.set_viewport_size({"width": 1280, "height": 900})
        pg.emulate_media(color_scheme="light")
        del pg.errors[:]
        pg.goto((site / name).as_uri())
        pg.wait_for_load_state("load")
        totals["pages"] += 1
        if links is not None:
            links.page(pg, name)
            problems += [f"{name}: {e}" for e in pg.errors]
        for width in layout_widths(plan[name] if axe is not None else []):
            set_width(pg, width)
            where = f"{name} @{width}"
            problems += [f"{where}: {p}" for p in pg.evaluate(LAYOUT_JS)]
            if width in (1280, 390):  # the tooltip's rules (flip, shift, width) act at the edges: 390 and 1280 test them
                problems += tooltip_problems(pg, where)
        if axe is not None:
            problems += axe_problems(pg, axe, name, totals, plan[name])
    if links is not None:
        problems += links.judge()
    return problems, totals


@pytest.fixture(scope="module")
def one_page(browser):
    context = browser.new_context()
    yield watched_page(context)
    context.close()


def test_every_page_passes_axe_keeps_its_layout_and_links_from_file_urls(example_site, one_page):
    from axe_playwright_python.sync_playwright import Axe

    links = Links(example_site)
    problems, totals = check_site(one_page, example_site, Axe(), links)
    print("axe and layout totals:", ", ".join(f"{k} {v}" for k, v in totals.items()))
    kinds = {page_kind(n) for n in pages_of(example_site)}
    assert totals["pages"] >= 19 and len(kinds) >= 20
    assert totals["axe runs"] == (len(AXE_RUNS) - 1) * len(kinds) + totals["pages"]
    assert sum(map(len, links.edges.values())) > 5 * totals["pages"]  # the links were read
    assert problems == [], "\n".join(problems)


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="no fixture reports on this branch")
def test_fixture_reports_keep_their_layout(tmp_path, one_page):
    """The fixture reports of other shapes, built into one site, hold the same layout rules."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    for summary in sorted(FIXTURES.rglob("SUMMARY.json")):
        target = tmp_path / "data" / summary.parent.name
        shutil.copytree(summary.parent, target, dirs_exist_ok=True)
    site = tmp_path / "site"
    result = sitegen_here("build", "-q", "-d", str(site), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    problems, totals = check_site(one_page, site)
    print("fixture layout totals:", totals)
    assert problems == [], "\n".join(problems)


def test_tooltip_hover_stays_on_screen_and_escape_closes_it(example_site, one_page):
    pg = one_page
    pg.set_viewport_size({"width": 390, "height": 844})
    pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "memory.html").as_uri())
    fig = pg.locator("table .fig").last
    fig.scroll_into_view_if_needed()
    fig.hover()
    box = pg.evaluate(TIP_JS)
    assert box is not None and 0 <= box["left"] and box["right"] <= box["vw"] and box["bottom"] <= box["vh"], box
    assert fig.get_attribute("aria-describedby") == "sitegen-tip"
    assert fig.get_attribute("title") is None  # the browser's own tooltip would show beside it
    pg.keyboard.press("Escape")
    assert pg.evaluate(TIP_JS) is None
    assert fig.get_attribute("aria-describedby") is None


def test_a_report_prints_as_a_document(example_site, one_page):
    """Print media: no navigation, no table cut or scrolled at a page's width, solid black bars
    on a white track, an outside link's address printed after it."""
    pg = one_page
    pg.set_viewport_size({"width": 700, "height": 1000})
    pg.emulate_media(media="print", color_scheme="dark")
    try:
        pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "speed.html").as_uri())
        pg.evaluate("() => { const a = document.createElement('a'); a.id = 'out'; a.href = 'https://example.org/run';"
                    " a.textContent = 'the run'; document.querySelector('.content').appendChild(a); }")
        pg.evaluate("window.dispatchEvent(new Event('resize'))")
        pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert not pg.locator(".sidenav").is_visible() and not pg.locator(".topbar").is_visible()
        cut = pg.evaluate("[...document.querySelectorAll('.table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1"
                          " || getComputedStyle(w).overflowX !== 'visible').length")
        assert cut == 0
        assert pg.evaluate("getComputedStyle(document.querySelector('#out'), '::after').content") == '" (https://example.org/run)"'
        bar = pg.locator(".ratio-bar.v-faster .bar").first
        assert bar.evaluate("e => getComputedStyle(e).fill") == "rgb(0, 0, 0)"
        assert pg.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
        assert len(pg.pdf()) > 10000
    finally:
        pg.emulate_media(media="screen", color_scheme="light")


def test_dashboard_filter_message_and_whole_cell_sorting(example_site, one_page):
    pg = one_page
    pg.set_viewport_size({"width": 390, "height": 844})
    pg.goto((example_site / "index.html").as_uri())
    box = pg.locator("#reports-filter")
    # The placeholder fits its box at phone width.
    assert box.evaluate("e => { const c = document.createElement('canvas').getContext('2d');"
                        " const s = getComputedStyle(e); c.font = s.font;"
                        " return c.measureText(e.placeholder).width <= e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); }")
    box.fill("no such engine")
    assert pg.locator("#reports-none").is_visible() and "no such engine" in pg.locator("#reports-none").inner_text()
    assert not pg.locator("#reports").is_visible()
    box.fill("")
    assert not pg.locator("#reports-none").is_visible() and pg.locator("#reports").is_visible()
    pg.set_viewport_size({"width": 1280, "height": 900})
    th = pg.locator("#reports thead th").nth(0)
    cell = th.bounding_box()
    pg.mouse.click(cell["x"] + cell["width"] - 2, cell["y"] + cell["height"] - 2)  # the cell's corner, off the text
    assert th.get_attribute("aria-sort") == "ascending"
    th.locator("button").focus()
    pg.keyboard.press("Enter")
    assert th.get_attribute("aria-sort") == "descending"


# Contrast of the verdict glyphs against the page and of the bars against their track (WCAG's 3:1
# for graphics; axe checks text only). The noise band is left out: it is a light tint by design,
# and the caption and the verdict column say what it means.
CONTRAST_JS = r"""() => {
  const rgb = s => { const m = s.match(/[\d.]+/g).map(Number); return m; };
  const lum = ([r,g,b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c/12.92 : Math.pow((c+0.055)/1.055, 2.4); }; return 0.2126*f(r)+0.7152*f(g)+0.0722*f(b); };
  const over = (fg, bg) => { const a = fg.length > 3 ? fg[3] : 1; return [0,1,2].map(i => fg[i]*a + bg[i]*(1-a)); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return ((Math.max(x,y)+0.05)/(Math.min(x,y)+0.05)).toFixed(2); };
  const bg = rgb(getComputedStyle(document.body).backgroundColor);
  const out = {};
  // A glyph's colour as drawn: its opacity blends it into the page (the grey of a zero count).
  for (const c of ["faster","level","slower","none"]) { const e = document.querySelector(".g-"+c); if (!e) continue;
    const col = rgb(getComputedStyle(e).color), a = (col.length > 3 ? col[3] : 1) * parseFloat(getComputedStyle(e).opacity);
    out["glyph "+c] = ratio(over([col[0], col[1], col[2], a], bg), bg); }
  const track = document.querySelector(".ratio-bar .track"); const tf = over(rgb(getComputedStyle(track).fill), bg);
  for (const c of ["faster","level"]) { const e = document.querySelector(".ratio-bar.v-"+c+" .bar"); if (e) out["bar "+c+" vs track"] = ratio(rgb(getComputedStyle(e).fill), tf); }
  const band = document.querySelector(".ratio-bar .band"); out["band vs track"] = ratio(over(rgb(getComputedStyle(band).fill), tf), tf);
  return out; }"""


def test_verdict_glyphs_and_bars_contrast_in_both_themes(example_site, one_page):
    pg = one_page
    pg.set_viewport_size({"width": 1280, "height": 900})
    pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "speed.html").as_uri())
    try:
        for scheme in ("light", "dark"):
            pg.emulate_media(color_scheme=scheme)
            ratios = pg.evaluate(CONTRAST_JS)
            print(scheme, ratios)
            low = {k: v for k, v in ratios.items() if k != "band vs track" and float(v) < 3}
            assert {"glyph faster", "glyph level", "glyph none", "bar faster vs track"} <= set(ratios) and not low, (scheme, low)
    finally:
        pg.emulate_media(color_scheme="light")


def test_axe_pass_finds_a_planted_violation_in_a_table_whose_repeated_rows_it_leaves_out(tmp_path, one_page):
    """The check can fail: grey-on-white text in the first row of a long table is found in each scheme
    and width, the table's 39 rows like it are left out, and its one row of another kind is kept."""
    from axe_playwright_python.sync_playwright import Axe

    rows = "".join(f"<tr><th scope='row'>r{i}</th><td class='faint'>value {i}</td></tr>" for i in range(40))
    (tmp_path / "index.html").write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>t</title>"
        "<style>.faint{color:#bbb;background:#fff} .ok{color:#000;background:#fff}</style></head>"
        "<body><main><h1>t</h1><table><caption>c</caption><thead><tr><th scope='col'>a</th><th scope='col'>b</th></tr></thead>"
        f"<tbody>{rows}<tr><th scope='row'>last</th><td class='ok'>fine</td></tr></tbody></table></main></body></html>",
        encoding="utf-8")
    problems, totals = check_site(one_page, tmp_path, Axe())
    assert totals["rows skipped"] == 39 and totals["axe runs"] == len(AXE_RUNS)
    contrast = [p for p in problems if "color-contrast" in p]
    assert len(contrast) == len(AXE_RUNS), problems
    assert one_page.locator("tbody tr").count() == 2  # the first of each kind, both checked


# Every colour string a page's elements compute, in the scheme emulated, and some spellings the page
# does not use (other colour spaces, angles, a string no parser takes).
COLOUR_STRINGS_JS = r"""() => {
  const props = ["color", "background-color", "border-top-color", "border-right-color", "border-bottom-color",
                 "border-left-color", "outline-color", "text-decoration-color", "fill", "stroke", "caret-color"];
  const out = new Set(["transparent", "rgba(0, 0, 0, 0)", "#abc", "#aabbcc80", "hsl(0.5turn 40% 60%)",
                       "hsl(3rad 40% 60%)", "oklch(70% 0.3 200)", "color(display-p3 1 0 0 / 0.5)", "lab(50 90 -90)"]);
  for (const e of document.querySelectorAll("*")) {
    const s = getComputedStyle(e);
    for (const p of props) { const v = s.getPropertyValue(p); if (v && !v.startsWith("url(") && v !== "none") out.add(v); }
  }
  return [...out];
}"""

# Each string parsed by axe's own parse on a new colour, then by the kept parse twice (once to keep,
# once from what it kept): the same four numbers, and the same error where the parse fails.
COLOUR_PARSES_JS = r"""(texts) => {
  const Color = axe.commons.color.Color;
  const parse = (t) => { try { const c = new Color(); c.parseString(t); return [c.r, c.g, c.b, c.alpha, c.red, c.green, c.blue]; }
                         catch (e) { return String(e); } };
  return texts.map(parse);
}"""


def test_axe_colour_memo_parses_each_colour_of_a_page_as_axe_does(example_site, one_page):
    from axe_playwright_python.sync_playwright import Axe

    pg = one_page
    pg.set_viewport_size({"width": 1280, "height": 900})
    pg.goto((example_site / "reports" / "cuteafd-v4.0.0" / "speed.html").as_uri())
    texts = set()
    try:
        for scheme in ("light", "dark"):
            pg.emulate_media(color_scheme=scheme)
            texts |= set(pg.evaluate(COLOUR_STRINGS_JS))
    finally:
        pg.emulate_media(color_scheme="light")
    texts = sorted(texts) + ["not a colour"]
    pg.evaluate(Axe().axe_script)
    own = pg.evaluate(COLOUR_PARSES_JS, texts)
    pg.evaluate(AXE_COLOUR_MEMO_JS)
    first, second = pg.evaluate(COLOUR_PARSES_JS, texts), pg.evaluate(COLOUR_PARSES_JS, texts)
    assert len(texts) > 20 and sum(isinstance(o, list) for o in own) == len(texts) - 1
    assert own[-1] == first[-1] == second[-1] and "not a colour" in own[-1]
    assert first == own and second == own, [(t, o, f, s) for t, o, f, s in zip(texts, own, first, second) if not o == f == s]


# axe's whole answer: every rule's violations, passes and incomplete nodes, with each check's data.
AXE_WHOLE = ("axe.run(document, {preload: false}).then(r => [r.violations, r.passes, r.incomplete].map(l => l.map(v =>"
             " [v.id, v.nodes.map(n => [n.target, ...[n.any, n.all, n.none].map(cs => cs.map(c => [c.id, c.data]))])])))")


def test_axe_colour_memo_leaves_axe_s_answer_as_it_was(tmp_path, one_page):
    """On a page of colours in several spellings, text on tinted boxes, a faint row: axe's whole
    answer, without and with the kept parse, in each scheme."""
    from axe_playwright_python.sync_playwright import Axe

    (tmp_path / "index.html").write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>t</title><style>"
        ".a{color:#767676;background:hsl(0.5turn 40% 96%)} .b{color:oklch(45% 0.2 30);background:rgba(255,255,0,.3)}"
        " .c{color:#bbb} @media (prefers-color-scheme: dark){body{background:#111;color:#eee} .c{color:#333}}"
        "</style></head><body><main><h1>t</h1><p class='a'>one <a href='#x'>link</a></p><p class='b'>two</p>"
        "<p class='c' id='x'>three</p><div style='background:color(srgb 0 0 0.5 / 0.8)'><span style='color:lab(90 0 0)'>four</span></div>"
        "</main></body></html>", encoding="utf-8")
    pg, axe = one_page, Axe()
    answers = {}
    try:
        for scheme in ("light", "dark"):
            for kept in (False, True):
                pg.goto((tmp_path / "index.html").as_uri())
                pg.emulate_media(color_scheme=scheme)
                pg.evaluate(axe.axe_script)
                if kept:
                    pg.evaluate(AXE_COLOUR_MEMO_JS)
                answers[scheme, kept] = pg.evaluate(AXE_WHOLE)
    finally:
        pg.emulate_media(color_scheme="light")
    assert any(v[0] == "color-contrast" for v in answers["light", False][0])  # the faint text was found
    assert answers["light", False] != answers["dark", False]  # the schemes differ
    assert answers["light", True] == answers["light", False] and answers["dark", True] == answers["dark", False]
