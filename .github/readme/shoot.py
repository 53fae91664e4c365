"""Pictures of the example site for README.md: the dashboard, the history page, and a report's
first screen on a desktop and on a phone (390 px).

    .venv/bin/python .github/readme/shoot.py      # builds the example site, then shoots it

Needs Chromium (/usr/bin/chromium) and Playwright, as the browser tests do. The pictures show
what `sitegen build` makes of the example receipts; rerun this when the example or the theme
changes.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REPORT = "reports/cuteafd-v4.0.0/index.html"
# (page, picture, element scrolled to the top, viewport)
SHOTS = [("index.html", "dashboard.png", None, (1100, 560)), ("history.html", "history.png", "#history-precision", (1100, 560)),
         (REPORT, "report-desktop.png", "#precision", (1100, 700)), (REPORT, "report-phone.png", "#precision", (390, 700))]


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        subprocess.run([sys.executable, "-m", "site_gen", "build", "-q", "-d", str(site)], cwd=ROOT, check=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"), executable_path="/usr/bin/chromium", headless=True,
                args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync"],
                viewport={"width": 1100, "height": 560}, device_scale_factor=1)
            page = browser.new_page()
            for url, name, anchor, (width, height) in SHOTS:
                page.set_viewport_size({"width": width, "height": height})
                page.goto((site / url).as_uri())
                if anchor:
                    page.evaluate("sel => document.querySelector(sel).scrollIntoView(true)", anchor)
                page.screenshot(path=str(HERE / name))
                print(f"wrote {HERE / name}")
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
