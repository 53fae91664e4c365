"""Cold-build wall time and peak memory, and the rebuild after one receipt edit, by site size.

    python benchmarks/build.py                 # example site and 100 reports, 5 runs each
    python benchmarks/build.py --reports 10 100 1000 --runs 3

Each cold build runs in a fresh process (imports, templates, everything). Peak memory is given
twice: the largest resident set of any one process (the builder or a forked worker), and the peak
of all of them together, sampled every 0.5 s as proportional set size (pages a worker shares with
the builder count once). The edit figure is what `sitegen serve` does after a save:
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


def _tree(pid: int) -> list[int]:
    """The process and its descendants (forked build workers), from /proc."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return out


def _pss_mb(pids: list[int]) -> float:
    """Proportional set size of these processes together: pages the forked workers share with the
    parent count once, so the sum is what the build takes from the machine."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
    return total / 1024


def one_build(config: Path, site: Path) -> tuple[float, float, float]:
    """Wall seconds; peak resident MB of the largest single process; peak PSS MB of all of them together."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "site_gen", "build", "-q", "-f", str(config), "-d", str(site)],
                            cwd=ROOT)
    together, sampled = 0.0, 0.0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        # Reading smaps_rollup walks the processes' page tables (~10 ms for a big build): often
        # enough to follow memory, which grows smoothly, rarely enough not to slow the build.
        if time.perf_counter() - sampled >= 0.5:
            together = max(together, _pss_mb(_tree(proc.pid)))
            sampled = time.perf_counter()
        time.sleep(0.02)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"build failed for {config}")
    return wall, usage.ru_maxrss / 1024, together  # ru_maxrss is KiB on Linux


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
    from site_gen.building.builder import Builder
    from site_gen.core.config import load_config

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
    walls, peaks, together = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            wall, peak, pss = one_build(config, Path(tmp) / f"site{i}")
            walls.append(wall)
            peaks.append(peak)
            together.append(pss)
        pages = sum(1 for _ in (Path(tmp) / "site0").rglob("*.html"))
    row = {"site": label, "pages": pages, "runs": runs, "median_s": statistics.median(walls),
           "peak_mb": statistics.median(peaks), "together_mb": statistics.median(together)}
    row["edit_ms"] = edit_latency(config) * 1000
    print(f"{label:<16} {pages:>6} pages  cold build median {row['median_s']:7.2f} s  peak {row['peak_mb']:6.0f} MB "
          f"(all processes {row['together_mb']:5.0f} MB)  rebuild after one receipt edit {row['edit_ms']:6.0f} ms  "
          f"({runs} cold builds)", flush=True)
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
                  f"memory x{row['together_mb'] / base['together_mb']:.1f}, edit rebuild x{row['edit_ms'] / base['edit_ms']:.1f}")


if __name__ == "__main__":
    main()
