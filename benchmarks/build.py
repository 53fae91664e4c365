"""Cold-build wall time and peak memory: the example site, and generated sites of many reports.

    python benchmarks/build.py                 # example site and 100 reports, 5 runs each
    python benchmarks/build.py --reports 10 100 1000 --runs 3

Each build runs in a fresh process (a cold start: imports, templates, everything), so peak
memory is that process's own maximum resident set. Prints medians.
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
    print(f"{label:<16} {pages:>6} pages  median {row['median_s']:7.2f} s  peak {row['peak_mb']:7.0f} MB  "
          f"({runs} cold builds; {row['median_s'] / pages * 1000:.1f} ms per page)", flush=True)
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
            print(f"growth {base['site']} -> {row['site']}: time x{row['median_s'] / base['median_s']:.1f}, "
                  f"memory x{row['peak_mb'] / base['peak_mb']:.1f}")


if __name__ == "__main__":
    main()
