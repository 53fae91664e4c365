"""The README's pictures of the plugin inside Material for MkDocs: a report page and a docs page with
blocks, in the light and the slate palette, as .github/readme/material-*.png
(beside the README's other pictures; not in docs/, which the example site copies).

    python tools/readme_screenshots.py            # needs mkdocs-material and Chromium (the test extras)
    python tools/readme_screenshots.py --out /tmp/shots

Builds a small Material site from the repository's receipts in a temporary folder, opens its pages
in headless Chromium at a fixed window size and saves one window-sized PNG each.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

CONFIG = """site_name: Engine benchmarks
theme:
  name: material
  font: false
  features: [navigation.instant, content.tabs.link]
  palette:
    - {scheme: default, toggle: {icon: material/brightness-7, name: Dark mode}}
    - {scheme: slate, toggle: {icon: material/brightness-4, name: Light mode}}
markdown_extensions: [admonition, attr_list, pymdownx.details, pymdownx.superfences,
                      {pymdownx.tabbed: {alternate_style: true}}, {toc: {permalink: true}}]
plugins:
  - search
  - sitegen:
      data_dir: data
      noise_band: 0.08
      ratio_scale: [0.8, 1.8]
"""

GUIDE = """---
report: cuteafd-v4.0.0
---
# Release notes

On K4, one-stream decode is {{ speed_range checkpoint=K4 }} and the KV pool {{ kv_ratio checkpoint=K4 }};
{{ check looped_replies == 0 : no reply looped }}.

=== "K4 chart"

    ```sitegen
    block: speed-cells
    checkpoint: K4
    chart: true
    ```

=== "Precision"

    {{ block precision-table }}

```sitegen
block: memory-table
```
"""

SHOTS = {"report": "reports/cuteafd-v4.0.0/index.html", "docs": "guide/index.html"}


def build(folder: Path) -> Path:
    (folder / "docs").mkdir(parents=True)
    (folder / "mkdocs.yml").write_text(CONFIG)
    (folder / "docs" / "index.md").write_text("# Engine benchmarks\n\nSee the [release notes](guide.md).\n")
    (folder / "docs" / "guide.md").write_text(GUIDE)
    for report in ("cuteafd-v3.0.1", "cuteafd-v4.0.0"):
        shutil.copytree(ROOT / "data" / report, folder / "data" / report)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=folder, check=True,
                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return folder / "site"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".github" / "readme")
    parser.add_argument("--width", type=int, default=1240)
    parser.add_argument("--height", type=int, default=720)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        site = build(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        for name, path in SHOTS.items():
            for scheme in ("default", "slate"):
                page.goto((site / path).as_uri())
                page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
                page.wait_for_function("() => [...document.querySelectorAll('[data-figure]')].every(h => h.matches('.ready'))")
                target = args.out / f"material-{name}-{'light' if scheme == 'default' else 'slate'}.png"
                page.screenshot(path=str(target))
                print(f"{target}  {target.stat().st_size // 1024} KB")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
