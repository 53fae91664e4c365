"""Every page's total weight: its HTML plus every file it loads (stylesheets, scripts, images, fonts).

    python benchmarks/weight.py                # builds the example site into a temporary folder
    python benchmarks/weight.py SITE_DIR       # a site already built
    python benchmarks/weight.py --plotly-basic plotly-basic.min.js   # measure that candidate too

Sizes are bytes as stored (gzip sizes beside them, for a host that compresses); kB and MB are
1,000 and 1,000,000 bytes. A file two pages share counts in each page's total (each page is
weighed as a first visit). Goal: a page with the interactive speed chart under 1.2 MB in all,
every other page under 100 kB, plus 100 bytes for each figure it lists one by one (a report's
Numbers page lists every figure with its source, a tool-calling page every scenario of every run:
they grow with the receipt). Exits 1 when a page misses it.

It also weighs the ways to draw the speed chart, as the speed page would weigh with each: the
inline SVG that static/sitegen.js draws (used), Plotly's basic partial bundle, Plotly's full
bundle. Plotly's files are measured when present (the plotly Python package ships the full
bundle; give the partial one with --plotly-basic), else their sizes recorded below are used.
"""
from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
SPEED_GOAL = 1_200_000
PAGE_GOAL = 100_000
# A page that lists every record of its receipt (the Numbers page's row per figure, a grid of every
# tool-calling scenario, every arm and cap) grows with the receipt: its goal has this many bytes more
# for each figure it lists, on top of PAGE_GOAL.
FIGURE_BYTES = 100
# A listed figure: a row of the Numbers page's table, a dense table's figure (no tab stop), or a
# build's row on a page that lists every build of a series (History: a row headed by its report's link).
LISTED = re.compile(rb'<span class="fig" title=|<tr><td>|<tr><th scope="row"><a href="reports/')
# Measured with `npm pack plotly.js-basic-dist-min@4.1.1` (plotly-basic.min.js) and from the plotly
# 7.1.0 Python package (package_data/plotly.min.js, plotly.js 4.1.1); the Plotly glue script is the
# sitegen.js that drew the chart with Plotly before the SVG chart replaced it.
RECORDED = {"plotly-basic": (1_191_749, 394_851), "plotly-full": (4_815_814, 1_467_745), "plotly-glue": (2_183, 942)}


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        a = {k: (v or "") for k, v in attrs}
        rel = a.get("rel", "").lower().split()
        if tag == "link" and a.get("href") and ({"stylesheet", "icon", "preload", "modulepreload"} & set(rel)):
            self.refs.append(a["href"])
        elif tag in ("script", "img", "iframe", "audio", "video", "source", "embed") and a.get("src"):
            self.refs.append(a["src"])
        elif tag in ("img", "source") and a.get("srcset"):
            self.refs.extend(part.split()[0] for part in a["srcset"].split(",") if part.strip())
        elif tag == "object" and a.get("data"):
            self.refs.append(a["data"])


CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def _local(base: Path, ref: str, site: Path) -> Path | None:
    """The file a reference names, or None for data: URLs, other sites and missing files."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = (base.parent / unquote(parts.path)).resolve()
    return path if path.is_file() and site.resolve() in path.parents else None


def _gz(data: bytes) -> int:
    return len(gzip.compress(data, 9, mtime=0))


@dataclass
class PageWeight:
    page: str
    html: int
    html_gz: int
    assets: dict[str, tuple[int, int]] = field(default_factory=dict)  # site path -> (bytes, gzip bytes)
    listed: int = 0  # figures the page lists one by one (LISTED)

    @property
    def total(self) -> int:
        return self.html + sum(b for b, _ in self.assets.values())

    @property
    def total_gz(self) -> int:
        return self.html_gz + sum(g for _, g in self.assets.values())

    @property
    def scripts(self) -> int:
        return sum(1 for a in self.assets if a.endswith((".js", ".mjs")))

    @property
    def charts(self) -> bool:
        """Whether the page draws the interactive speed chart (it loads the chart script): the
        speed page, and an author page with a `chart: true` speed-cells block."""
        return any(re.search(r"(^|/)(sitegen|plotly[-\w]*)\.[0-9a-f]+\.js$", a) for a in self.assets)

    @property
    def goal(self) -> int:
        if self.page.endswith("speed.html") or self.charts:
            return SPEED_GOAL
        return PAGE_GOAL + FIGURE_BYTES * self.listed


def page_weights(site: Path) -> list[PageWeight]:
    site = site.resolve()
    out = []
    for path in sorted(site.rglob("*.html")):
        data = path.read_bytes()
        parser = _Refs()
        parser.feed(data.decode("utf-8", "replace"))
        weight = PageWeight(path.relative_to(site).as_posix(), len(data), _gz(data), listed=len(LISTED.findall(data)))
        todo = [(path, ref) for ref in parser.refs]
        while todo:
            base, ref = todo.pop()
            file = _local(base, ref, site)
            if file is None:
                continue
            key = file.relative_to(site).as_posix()
            if key in weight.assets:
                continue
            body = file.read_bytes()
            weight.assets[key] = (len(body), _gz(body))
            if file.suffix == ".css":
                for m in CSS_URL.finditer(body.decode("utf-8", "replace")):
                    todo.append((file, m.group(1) or m.group(2)))
        out.append(weight)
    return out


def failures(weights: list[PageWeight]) -> list[str]:
    return [f"{w.page}: {w.total:,} bytes, goal under {w.goal:,}" for w in weights if w.total >= w.goal]


def _plotly_full() -> tuple[int, int, str]:
    try:
        from importlib import resources
        import plotly
        data = resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()
        return len(data), _gz(data), f"measured: plotly {plotly.__version__} package"
    except Exception:
        return (*RECORDED["plotly-full"], "recorded")


def candidates(weights: list[PageWeight], plotly_basic: Path | None) -> list[tuple[str, int, int, str]]:
    """(way, speed page total, gzip total, source of the figure) for each way to draw the chart."""
    speed = next((w for w in weights if w.page.endswith("speed.html")), None)
    if speed is None:
        return []
    js = {k: v for k, v in speed.assets.items() if k.endswith(".js")}
    base, base_gz = speed.total - sum(b for b, _ in js.values()), speed.total_gz - sum(g for _, g in js.values())
    glue, glue_gz = RECORDED["plotly-glue"]
    if plotly_basic:
        data = plotly_basic.read_bytes()
        basic = (len(data), _gz(data), f"measured: {plotly_basic.name}")
    else:
        basic = (*RECORDED["plotly-basic"], "recorded")
    full = _plotly_full()
    return [
        ("as built: " + ("Plotly" if any("plotly" in k for k in js) else "inline SVG by static/sitegen.js"),
         speed.total, speed.total_gz, "measured"),
        ("Plotly basic partial bundle", base + glue + basic[0], base_gz + glue_gz + basic[1], basic[2]),
        ("Plotly full bundle", base + glue + full[0], base_gz + glue_gz + full[1], full[2]),
    ]


def _kb(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB"


def report(weights: list[PageWeight], plotly_basic: Path | None = None) -> str:
    lines = [f"{'page':<44} {'HTML':>9} {'loads':>9} {'total':>9} {'gzip':>9} {'scripts':>7}  goal"]
    for w in weights:
        ok = "ok" if w.total < w.goal else "OVER"
        lines.append(f"{w.page:<44} {_kb(w.html):>9} {_kb(w.total - w.html):>9} {_kb(w.total):>9} "
                     f"{_kb(w.total_gz):>9} {w.scripts:>7}  {ok} (< {_kb(w.goal)})")
    ways = candidates(weights, plotly_basic)
    if ways:
        lines += ["", "Ways to draw the interactive speed chart, the speed page's total with each:"]
        for way, total, gz, source in ways:
            lines.append(f"  {way:<46} {_kb(total):>9} {_kb(gz):>9} gzip  "
                         f"{'meets' if total < SPEED_GOAL else 'misses'} the 1.2 MB goal  ({source})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("site", nargs="?", type=Path, help="a built site (default: build the example site)")
    p.add_argument("--plotly-basic", type=Path, metavar="FILE", help="plotly-basic.min.js to measure")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", "-d", str(site)], cwd=ROOT, check=True)
        weights = page_weights(site)
        print(report(weights, args.plotly_basic))
    missed = failures(weights)
    for line in missed:
        print("over the goal:", line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
