"""Cold-build wall time and peak memory, and the rebuild after one receipt edit, by site size.

    python benchmarks/build.py                 # example site and 100 reports, 5 runs each
    python benchmarks/build.py --reports 10 100 1000 --runs 3

Each cold build runs in a fresh process (imports, templates, everything), so peak memory is that
process's own maximum resident set. The edit figure is what `sitegen serve` does after a save:
the preview's Builder, warm, rebuilds after one receipt changed (median of several edits; the
browser's part, ~20 ms, is measured by benchmarks/preview.py). Prints medians.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "cuteafd-v4.0.0"


def make_site(folder: Path, reports: int) -> Path:
    """A project with `reports` copies of the example report, each under its own id and date."""
    data = folder / "data"
    data.mkdir(parents=True)
    receipt = json.loads((EXAMPLE / "SUMMARY.json").read_text())
    for i in range(reports):
        target = data / f"report-{i:04d}"
        target.mkdir()
        receipt["report"]["date"] = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        receipt["report"]["title"] = f"Example report {i}"
        (target / "SUMMARY.json").write_text(json.dumps(receipt))
        shutil.copy(EXAMPLE / "lede.md", target / "lede.md")
    (folder / "mkdocs.yml").write_text("site_name: Benchmark\nplugins:\n  - sitegen:\n      data_dir: data\n")
    return folder / "mkdocs.yml"


def one_build(config: Path, site: Path) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-q", "-f", str(config), "-d", str(site)],
                            cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"build failed for {config}")
    return wall, usage.ru_maxrss / 1024  # ru_maxrss is KiB on Linux


def edit_latency(config: Path, edits: int = 5) -> float:
    """Median seconds for the warm preview Builder to rebuild after one receipt's speed cell changed."""
    # Edit a copy, never the project's own receipts.
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        copy.mkdir()
        shutil.copy(config, copy / "mkdocs.yml")
        shutil.copytree(config.parent / "data", copy / "data", ignore=shutil.ignore_patterns("*.py"))
        if (config.parent / "docs").is_dir():
            shutil.copytree(config.parent / "docs", copy / "docs")
        return _edit_latency(copy / "mkdocs.yml", edits)


def _edit_latency(config: Path, edits: int) -> float:
    from site_gen.build import Builder
    from site_gen.config import load_config

    builder = Builder(load_config(config), watched=True)  # as `sitegen serve` makes it
    builder.build()
    receipts = sorted((config.parent / "data").glob("*/SUMMARY.json"))
    with_speed = [r for r in receipts if "speed" in json.loads(r.read_text())]
    receipt = with_speed[len(with_speed) // 2]
    data = json.loads(receipt.read_text())
    times = []
    for i in range(edits):
        data["speed"]["cells"][0]["candidate"]["rate"] = data["speed"]["cells"][0]["baseline"]["rate"] * (1.2 + i / 100)
        receipt.write_text(json.dumps(data))
        builder.changed([receipt])
        start = time.perf_counter()
        builder.build()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(label: str, config: Path, runs: int) -> dict:
    walls, peaks = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            wall, peak = one_build(config, Path(tmp) / f"site{i}")
            walls.append(wall)
            peaks.append(peak)
        pages = sum(1 for _ in (Path(tmp) / "site0").rglob("*.html"))
    row = {"site": label, "pages": pages, "runs": runs, "median_s": statistics.median(walls),
           "peak_mb": statistics.median(peaks)}
    row["edit_ms"] = edit_latency(config) * 1000
    print(f"{label:<16} {pages:>6} pages  cold build median {row['median_s']:7.2f} s  peak {row['peak_mb']:6.0f} MB  "
          f"rebuild after one receipt edit {row['edit_ms']:6.0f} ms  ({runs} cold builds)", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reports", type=int, nargs="*", default=[100], help="generated site sizes (reports)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = [measure("example site", ROOT / "mkdocs.yml", args.runs)]
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.reports:
            config = make_site(Path(tmp) / f"r{n}", n)
            rows.append(measure(f"{n} reports", config, args.runs if n <= 100 else max(1, args.runs // 3)))
    if len(rows) > 2:
        base = rows[1]
        for row in rows[2:]:
            print(f"growth {base['site']} -> {row['site']}: build time x{row['median_s'] / base['median_s']:.1f}, "
                  f"memory x{row['peak_mb'] / base['peak_mb']:.1f}, edit rebuild x{row['edit_ms'] / base['edit_ms']:.1f}")


if __name__ == "__main__":
    main()
