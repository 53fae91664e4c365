"""CPU time of the analysis per report, each section apart, and of the history frames.

    python benchmarks/analysis.py                 # the example's receipts
    python benchmarks/analysis.py PROJECT --runs 5

Receipts are loaded once; then every report is analysed `--runs` times (process time, so a busy
machine counts less). Prints medians in ms per report. Goal (issue 17): the analysis of an
example-size report well under 60 ms, the whole build's budget per report.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from site_gen.analysis import history
from site_gen.analysis import report as analysis
from site_gen.core.config import load_config
from site_gen.receipts.load import load_reports
from site_gen.sections import all_sections

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", type=Path, default=ROOT, help="a folder holding mkdocs.yml")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.chdir(args.project)
    config = load_config(Path("mkdocs.yml"))
    reports = load_reports(config.data_dir, max_bytes=config.max_receipt_bytes)
    settings = (config.noise_band, config.ratio_scale, config.headline_input)
    whole, frames, parts = [], [], {}
    for _ in range(args.runs):
        start = time.process_time()
        analyses = [analysis.analyse(r, *settings) for r in reports]
        whole.append(time.process_time() - start)
        start = time.process_time()
        history.frames(analyses)
        frames.append(time.process_time() - start)
        for r in reports:
            base = analysis._base(r, *settings)
            for s in all_sections():
                if s.analyse and (part := r.data.get(s.name)) is not None:
                    start = time.process_time()
                    analysis._analysed(s, base, part, "")
                    parts.setdefault(s.name, []).append(time.process_time() - start)
    n = len(reports)
    print(f"{n} reports, ms CPU per report (the whole: median of {args.runs} runs; sections: their mean)")
    print(f"  analysis        {statistics.median(whole) * 1000 / n:7.2f}")
    for name, times in parts.items():
        print(f"    {name:14s}{sum(times) / args.runs * 1000 / n:7.2f}")
    print(f"  history frames  {statistics.median(frames) * 1000 / n:7.2f}")


if __name__ == "__main__":
    main()
