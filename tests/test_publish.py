"""Publishing files and metadata: sitemap.xml, 404.html, link previews, share cards, page weights."""
from __future__ import annotations

import importlib.util
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import ROOT, sitegen_here
from htmlutil import NS, parse

REPORT = "reports/cuteafd-v4.0.0"
SITE_URL = "https://example.org/bench/"


def with_site_url(project: Path, url: str = SITE_URL) -> None:
    config = project / "mkdocs.yml"
    text = config.read_text()
    text = re.sub(r"(?m)^site_url:.*$", f"site_url: {url}", text) if "site_url:" in text else f"site_url: {url}\n" + text
    config.write_text(text)


def build(project: Path, out: Path) -> Path:
    result = sitegen_here("build", "-q", "-d", str(out), cwd=project)
    assert result.returncode == 0, result.stderr
    return out


def files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def meta(doc) -> dict[str, str]:
    out = {}
    for el in doc.iter(f"{NS}meta"):
        key = el.get("property") or el.get("name")
        if key:
            out[key] = el.get("content")
    return out


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    """The example site built with site_url set."""
    project = tmp_path_factory.mktemp("published")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "data", project / "data", ignore=shutil.ignore_patterns("*.py"))
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", project / "docs")
    with_site_url(project)
    return build(project, project / "site")


@pytest.mark.slow
def test_sitemap_lists_every_page_sorted(published):
    tree = ElementTree.fromstring((published / "sitemap.xml").read_bytes())
    urls = [el.text for el in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    pages = sorted(p.relative_to(published).as_posix() for p in published.rglob("*.html") if p.name != "404.html")
    assert urls == [SITE_URL + p for p in pages]
    assert SITE_URL + f"{REPORT}/speed.html" in urls
    assert b"lastmod" not in (published / "sitemap.xml").read_bytes()


def test_no_sitemap_or_preview_image_without_site_url(example_site):
    assert not (example_site / "sitemap.xml").exists()
    tags = meta(parse(example_site / REPORT / "index.html"))
    assert "og:image" not in tags and "og:url" not in tags
    assert tags["twitter:card"] == "summary"
    assert "75 of 88 cells faster" in tags["og:description"]


@pytest.mark.slow
def test_output_does_not_depend_on_where_it_was_built(project, tmp_path):
    """Same sources in two places, two output folders: the same bytes, no local path inside."""
    with_site_url(project)
    other = tmp_path / "elsewhere" / "copy"
    shutil.copytree(project, other)
    a = files(build(project, tmp_path / "out-a"))
    b = files(build(other, tmp_path / "deep" / "out-b"))
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    for path, data in a.items():
        assert str(tmp_path).encode() not in data, path
        assert b"file://" not in data, path


def test_404_page_links_absolutely_from_site_url(published):
    doc = parse(published / "404.html")
    hrefs = [a.get("href") for a in doc.iter(f"{NS}a")]
    assert hrefs and all(h.startswith(SITE_URL) for h in hrefs)
    assert SITE_URL + f"{REPORT}/index.html" in hrefs
    # Nothing it loads: it works whatever depth the host serves it at.
    html = (published / "404.html").read_text()
    assert "<script" not in html and 'rel="stylesheet"' not in html and "src=" not in html


def test_404_page_without_site_url_is_self_contained(example_site):
    html = (example_site / "404.html").read_text()
    assert "Page not found" in html
    # No file of the site is loaded (the page is served at any depth); its one inline script finds
    # the way home, and its one link is relative.
    assert "<script src" not in html and 'rel="stylesheet"' not in html
    assert re.findall(r'href="([^"]*)"', html.replace('rel="icon" href="data:', "")) == ["./"]


@pytest.mark.slow
def test_docs_file_of_the_same_name_wins(project, tmp_path):
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "404.html").write_text("<!doctype html><title>Mine</title>\n")
    site = build(project, tmp_path / "site")
    assert (site / "404.html").read_text() == "<!doctype html><title>Mine</title>\n"


def test_report_pages_carry_open_graph_and_twitter_cards(published):
    for name in ("index", "speed"):
        doc = parse(published / REPORT / f"{name}.html")
        tags = meta(doc)
        canonical = [link.get("href") for link in doc.iter(f"{NS}link") if link.get("rel") == "canonical"][0]
        assert canonical == SITE_URL + f"{REPORT}/{name}.html"
        assert tags["og:url"] == canonical
        assert tags["og:image"] == SITE_URL + f"{REPORT}/card.png"
        assert tags["twitter:image"] == tags["og:image"]
        assert tags["twitter:card"] == "summary_large_image"
        assert (tags["og:image:width"], tags["og:image:height"]) == ("1200", "630")
        assert "CuteAFD v4.0.0 against tpurtell's vLLM fork" in tags["og:title"]
        assert tags["og:site_name"] == "Inference engine benchmarks"
        desc = tags["og:description"]
        assert "75 of 88 cells faster, 13 level, 0 slower" in desc and "8 further from BF16" in desc
        assert "1.22–1.40x" in desc
        assert tags["description"] == desc == tags["twitter:description"]
        assert tags["og:image:alt"].startswith("CuteAFD v4.0.0")
    home = meta(parse(published / "index.html"))
    assert home["og:type"] == "website" and "og:image" not in home


def png_size_and_pixels(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
            assert body[8:10] == b"\x08\x02"  # 8-bit RGB
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return size[0], size[1], zlib.decompress(idat)


def test_no_card_without_site_url(example_site):
    # Without site_url no page can point og:image at a card, so none is drawn.
    assert list(example_site.glob("reports/*/card.png")) == []


@pytest.mark.slow
def test_share_card_is_a_png_drawn_from_the_data(published, project, tmp_path):
    site = published
    card = (site / REPORT / "card.png").read_bytes()
    width, height, raw = png_size_and_pixels(card)
    assert (width, height) == (1200, 630) and len(raw) == height * (1 + width * 3)
    assert len(card) < 100_000
    # Another title, another card; the same data, the same bytes.
    with_site_url(project)  # the sources of `published`, but for this title
    path = project / "data/cuteafd-v4.0.0/SUMMARY.json"
    path.write_text(path.read_text().replace('"title": "CuteAFD v4.0.0 against', '"title": "Renamed v4.0.0 against', 1))
    again = build(project, tmp_path / "b")
    assert (again / REPORT / "card.png").read_bytes() != card
    for other in site.glob("reports/*/card.png"):
        if other.parent.name != "cuteafd-v4.0.0":
            assert (again / other.relative_to(site)).read_bytes() == other.read_bytes()


def test_card_text_uses_the_bitmap_font():
    from site_gen.render import card

    canvas = card.Canvas(100, 40, (0, 0, 0))
    end = canvas.text(2, 2, "Aé·?", 32, (255, 255, 255))
    assert end == 2 + 4 * 16
    lit = sum(1 for row in canvas.rows for i in range(0, len(row), 3) if row[i])
    assert lit > 50
    assert card.wrap("one two three four five", 32, 16 * 9, 2) == ["one two", "three…"]


def test_the_card_takes_its_colours_from_the_stylesheets_dark_theme(tmp_path, monkeypatch):
    from site_gen.render import card, where

    css = (where.theme_dir("static") / "sitegen.css").read_text(encoding="utf-8")
    dark = css[css.index("prefers-color-scheme: dark"):]
    (tmp_path / "sitegen.css").write_text(css.replace(dark, dark.replace("--bg: #0f1217", "--bg: #123456", 1)))
    monkeypatch.setattr(where, "theme_dir", lambda name: tmp_path)
    monkeypatch.setattr(card, "palette", card.palette.__wrapped__)  # not the cached palette of the real theme
    png = card.share_card.__wrapped__("Site", "Title", "sub", (), (), "", (0.8, 1.8), 0.08, "footer")
    width, _, raw = png_size_and_pixels(png)
    row = 20 * (1 + 3 * width)  # below the accent stripe; each row starts with its filter byte
    assert raw[row + 1:row + 4] == bytes.fromhex("123456")


def test_pages_without_a_chart_load_only_the_page_script(example_site):
    for path in example_site.rglob("*.html"):
        html = path.read_text()
        scripts = re.findall(r"<script src[^>]*>", html)
        if path.name == "404.html":
            continue  # self-contained (test_404_page_without_site_url_is_self_contained)
        # Every page: the small page script (tooltips on screen, scroll hints), first.
        assert scripts and re.search(r'src="[^"]*page\.[0-9a-f]+\.js"', scripts[0]), path
        if "data-figure=" in html:
            assert re.findall(r'<script src="[^"]*sitegen\.[0-9a-f]+\.js"', html), path
        elif 'id="reports"' in html:  # the dashboard's sortable, filterable table: its own small script too
            assert len(scripts) == 2 and re.search(r'src="[^"]*dashboard\.[0-9a-f]+\.js"', scripts[1]), path
        else:
            assert len(scripts) == 1, path


def weight_module():
    spec = importlib.util.spec_from_file_location("weight", ROOT / "benchmarks" / "weight.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["weight"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_page_weights_meet_the_goal(example_site):
    weight = weight_module()
    weights = {w.page: w for w in weight.page_weights(example_site)}
    speed = weights[f"{REPORT}/speed.html"]
    assert speed.scripts == 2 and speed.total < 1_200_000  # the page script and the chart's
    assert weight.failures(list(weights.values())) == []
    # Every page without the interactive chart under 100 kB (an author page drawing the chart has the chart page's goal).
    # (and 100 bytes more for each figure a page lists one by one: the Numbers page, a tool-calling grid)
    assert all(w.total < 100_000 + 100 * w.listed for p, w in weights.items() if not p.endswith("speed.html") and not w.charts)
    assert not weights[f"{REPORT}/index.html"].charts and weights["highlights.html"].charts
    assert weights[f"{REPORT}/index.html"].scripts == 1  # the page script alone
    text = weight.report(list(weights.values()))
    assert f"{REPORT}/speed.html" in text and "Plotly basic partial bundle" in text
