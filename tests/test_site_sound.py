"""A sound site: every built page parses as HTML5 without error, has unique ids, links and loads
only files and anchors that exist, and every chart has a text equivalent. Checked on the example
site and on the payload site (tests/payloads.py), whose strings try hard to break the markup."""
from __future__ import annotations

import html
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import html5lib
import pytest

from conftest import sitegen_here
from payloads import payload_project

LINK_ATTRS = {"a": "href", "link": "href", "area": "href", "script": "src", "img": "src", "source": "src",
              "iframe": "src", "video": "src", "audio": "src", "track": "src", "use": "href", "image": "href"}
XLINK = "{http://www.w3.org/1999/xlink}href"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def payload_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sound-payloads")
    payload_project(root)
    result = sitegen_here("build", "-q", cwd=root)
    assert result.returncode == 0, result.stderr
    return root / "site"


@pytest.fixture(params=["example", "payloads"])
def site(request, example_site) -> Path:
    return example_site if request.param == "example" else request.getfixturevalue("payload_site")


class Page:
    """One parsed page: its elements, ids, and the parser's complaints."""

    def __init__(self, site: Path, path: Path):
        self.path = path
        self.url = path.relative_to(site).as_posix()
        parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
        self.raw = path.read_bytes()
        self.doc = parser.parse(self.raw)
        self.errors = parser.errors
        self.elements = [el for el in self.doc.iter() if isinstance(el.tag, str)]
        self.ids = [el.get("id") for el in self.elements if el.get("id") is not None]

    def local(self, tag: str) -> str:
        return tag.rsplit("}", 1)[-1]


def load_pages(site: Path) -> dict[str, Page]:
    pages = {p.relative_to(site).as_posix(): Page(site, p) for p in sorted(site.rglob("*.html"))}
    assert pages, f"no pages in {site}"
    return pages


_cache: dict[Path, dict[str, Page]] = {}


def pages_of(site: Path) -> dict[str, Page]:
    if site not in _cache:
        _cache[site] = load_pages(site)
    return _cache[site]


@pytest.mark.slow
def test_html5_parses_without_errors(site):
    for url, page in pages_of(site).items():
        assert page.errors == [], f"{url}: {[(pos, code, vars) for pos, code, vars in page.errors][:5]}"
        assert page.raw.startswith(b"<!doctype html>") or page.raw.lower().startswith(b"<!doctype html>"), url


@pytest.mark.slow
def test_no_duplicate_ids(site):
    for url, page in pages_of(site).items():
        dupes = sorted({i for i in page.ids if page.ids.count(i) > 1})
        assert dupes == [], f"{url}: duplicate ids {dupes}"
        assert all(i and not re.search(r"\s", i) for i in page.ids), f"{url}: empty id or id with spaces"


def references(page: Page) -> list[str]:
    out = []
    for el in page.elements:
        name = page.local(el.tag)
        for attr in (LINK_ATTRS.get(name), XLINK if name in ("use", "image", "a") else None):
            if attr and el.get(attr) is not None:
                out.append(el.get(attr))
        if el.get("srcset"):
            out += [part.strip().split()[0] for part in el.get("srcset").split(",") if part.strip()]
    return out


def test_internal_links_and_assets_resolve(site):
    check_links(site)


def check_links(site: Path, rooted: tuple[str, ...] = ()) -> int:
    """Every relative href/src names a file of the site, and its #anchor an id on that page (a folder
    is its index.html, as a web server serves it); returns how many links were checked. The pages of
    `rooted` link from the site's root (`/img/x`): MkDocs' 404 page, which a host serves at any depth."""
    pages = pages_of(site)
    checked = 0
    for url, page in pages.items():
        for ref in references(page):
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith("//"):
                assert parts.scheme in ("http", "https", "mailto", "data"), f"{url}: link {ref!r}"
                continue
            path = unquote(parts.path)
            if url in rooted and path.startswith("/"):
                target = posixpath.normpath(path.lstrip("/"))
            else:
                target = url if not path else posixpath.normpath(posixpath.join(posixpath.dirname(url), path))
            assert not target.startswith("../") and target != "..", f"{url}: {ref!r} leaves the site"
            if parts.path.endswith("/") or (site / target).is_dir():
                target = posixpath.join(target, "index.html")
            assert (site / target).is_file(), f"{url}: {ref!r} -> {target} does not exist"
            if parts.fragment and target.endswith(".html"):
                anchor = unquote(parts.fragment)
                assert anchor in pages[target].ids or any(
                    el.get("name") == anchor for el in pages[target].elements), f"{url}: {ref!r}: no #{anchor} on {target}"
            checked += 1
    assert checked > len(pages)
    return checked


def test_stylesheet_urls_resolve(site):
    for css in site.rglob("*.css"):
        for ref in re.findall(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)", css.read_text(encoding="utf-8")):
            if ref.startswith(("data:", "http:", "https:", "#")):
                continue
            target = (css.parent / unquote(ref.split("#")[0].split("?")[0])).resolve()
            assert target.is_file() and site.resolve() in target.parents, f"{css.name}: url({ref}) missing"


def _seen_text(el) -> str:
    """An element's text as seen: a visually hidden part (.vh, read aloud only) left out."""
    if "vh" in (el.get("class") or "").split():
        return ""
    return (el.text or "") + "".join(_seen_text(c) + (c.tail or "") for c in el)


def _cells(row) -> list[str]:
    return [re.sub(r"\s+", " ", _seen_text(c)).strip() for c in row if c.tag in ("td", "th")]


def test_every_chart_has_a_text_equivalent(site):
    check_charts(site)


def test_example_site_charts_were_checked(example_site):
    charts, svgs = check_charts(example_site)
    assert charts > 0 and svgs > 0, "the example site has no chart: nothing was checked"


def check_charts(site: Path) -> tuple[int, int]:
    """Each drawn chart sits in a figure whose caption states figures, and a table on the page holds
    every point it draws (workload, input, streams and ratio); every inline SVG chart is labelled
    with its figures or hidden from assistive technology as decoration."""
    charts = svgs = 0
    for url, page in pages_of(site).items():
        rows = [_cells(tr) for tr in page.doc.iter("tr")]
        parents = {child: parent for parent in page.doc.iter() for child in parent}
        for el in page.elements:
            if el.get("data-figure") is None:
                continue
            charts += 1
            figure = el
            while figure is not None and figure.tag != "figure":
                figure = parents.get(figure)
            assert figure is not None, f"{url}: chart outside a <figure>"
            caption = figure.find("figcaption")
            assert caption is not None and re.search(r"\d", "".join(caption.itertext())), f"{url}: chart caption without figures"
            source = el.get("data-spec")
            assert source is not None, f"{url}: chart data of #{el.get('data-figure')} missing"
            spec = json.loads(source)
            points = 0
            for trace in spec["data"]:
                for label, text in zip(trace["y"], trace["text"]):
                    workload, size, streams = (html.unescape(p) for p in label.rsplit(" · ", 2))
                    ratio = text.split(" · ")[0]
                    # A cell whose receipt gives no input size (schema 1.1): its table row says so.
                    size = "not measured" if size == "input not measured" else size.removesuffix(" in")
                    streams = streams.lstrip("×")
                    match = [r for r in rows if r[:3] == [workload, size, streams] and ratio in r]
                    assert match, f"{url}: chart point {label!r} {ratio} is in no table row"
                    points += 1
            assert points > 0, f"{url}: an empty chart"
        for svg in page.doc.iter(SVG + "svg"):
            if svg.get("aria-hidden") == "true":
                continue
            svgs += 1
            label = svg.get("aria-label") or "".join(t for title in svg.iter(SVG + "title") for t in title.itertext())
            assert svg.get("role") == "img" and re.search(r"\d", label or ""), \
                f"{url}: an SVG with no text equivalent: {html5lib.serialize(svg)[:120]}"
        for img in page.doc.iter("img"):
            assert img.get("alt") is not None, f"{url}: <img> without alt"
    return charts, svgs


BROKEN = {
    "parse": "<!doctype html><html><head><title>t</title></head><body><p>a</b></p></body></html>",
    "ids": "<!doctype html><html><head><title>t</title></head><body><p id=x>a</p><p id=x>b</p></body></html>",
    "links": "<!doctype html><html><head><title>t</title></head><body><a href=missing.html>x</a></body></html>",
    "anchor": "<!doctype html><html><head><title>t</title></head><body><a href='#nowhere'>x</a></body></html>",
    "chart": "<!doctype html><html><head><title>t</title></head><body><svg role=img><rect/></svg></body></html>",
}
CHECKS = {"parse": test_html5_parses_without_errors, "ids": test_no_duplicate_ids,
          "links": test_internal_links_and_assets_resolve, "anchor": test_internal_links_and_assets_resolve,
          "chart": test_every_chart_has_a_text_equivalent}


@pytest.mark.parametrize("flaw", sorted(BROKEN))
def test_the_checks_catch_a_broken_site(tmp_path, flaw):
    """Each check fails on a site with its flaw (and passes without it)."""
    site = tmp_path / "site"
    site.mkdir()
    good = "<!doctype html><html><head><title>t</title></head><body><a href='other.html#top'>x</a></body></html>"
    (site / "other.html").write_text("<!doctype html><html><head><title>o</title></head><body>"
                                     "<h1 id=top>o</h1><a href=index.html>home</a><a href=index.html>again</a></body></html>")
    (site / "index.html").write_text(good)
    CHECKS[flaw](site)
    _cache.clear()
    (site / "index.html").write_text(BROKEN[flaw])
    with pytest.raises(AssertionError):
        CHECKS[flaw](site)
    _cache.clear()
