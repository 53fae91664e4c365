"""Screenshots of a built site in Chromium, for review by eye and for the README's pictures.

    python benchmarks/screenshots.py SITE_DIR OUT_DIR [--widths 390,768,1280] [--schemes light,dark]
                                     [--pages reports/x/index.html,...] [--full]

Each page at each width and colour scheme becomes OUT_DIR/<page>-<width>-<scheme>.png (the first
screen, or the whole page with --full): for review by eye before a change to the theme is done.
Prints one line per picture and the seconds taken. (The README's pictures: .github/readme/shoot.py.)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def pages_of(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def shoot(site: Path, out: Path, pages: list[str], widths: list[int], schemes: list[str], full: bool) -> int:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        page = context.new_page()
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            for width in widths:
                page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
                for name in pages:
                    page.goto((site / name).as_uri())
                    page.wait_for_load_state("load")
                    target = out / f"{name.replace('/', '_').removesuffix('.html')}-{width}-{scheme}.png"
                    page.screenshot(path=str(target), full_page=full)
                    print(target)
                    n += 1
        context.close()
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path, nargs="?", default=Path("/tmp/sitegen-shots"))
    ap.add_argument("--widths", default="390,768,1280")
    ap.add_argument("--schemes", default="light,dark")
    ap.add_argument("--pages", default="")
    ap.add_argument("--full", action="store_true")
    a = ap.parse_args(argv)
    start = time.perf_counter()
    pages = a.pages.split(",") if a.pages else pages_of(a.site)
    n = shoot(a.site, a.out, pages, [int(w) for w in a.widths.split(",")], a.schemes.split(","), a.full)
    print(f"{n} screenshots")
    print(f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
