"""`sitegen summary`: a report's verdicts in the terminal, as markdown, or as JSON."""
from __future__ import annotations

import argparse
import sys

from site_gen.analyse.report import analyse
from site_gen.cli_util import add_common, load
from site_gen.errors import SitegenError
from site_gen.load import load_reports
from site_gen.render import summary

HELP = "Print a report's verdicts: counts, ranges, resolved gaps, KV ratios."
EPILOG = """examples:
  sitegen summary                                  # every report, plain text
  sitegen summary cuteafd-v4.0.0 --format markdown # for a pull-request comment
  sitegen summary --format json | jq .speed        # for scripts
"""


def add_parser(sub) -> None:
    p = sub.add_parser("summary", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("report", nargs="?", help="report id (its folder name); default: every report, newest first")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.set_defaults(run=run)


def run(args) -> int:
    config = load(args)
    reports = load_reports(config.data_dir, max_bytes=config.max_receipt_bytes)
    if args.report:
        chosen = [r for r in reports if r.id == args.report]
        if not chosen:
            raise SitegenError(f"no report '{args.report}'; reports: {', '.join(r.id for r in reports)}", config.data_dir)
        reports = chosen
    reports.sort(key=lambda r: (r.date, r.id), reverse=True)
    items = [summary.summary_data(analyse(r, config.noise_band, config.ratio_scale)) for r in reports]
    render = {"text": summary.as_text, "markdown": summary.as_markdown, "json": summary.as_json}[args.format]
    sys.stdout.write(render(items))
    return 0
