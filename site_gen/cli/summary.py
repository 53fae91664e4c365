"""`sitegen summary`: a report's verdicts in the terminal, as markdown, or as JSON."""
from __future__ import annotations

import argparse
import sys

from site_gen import api
from site_gen.cli.util import add_common, load

HELP = "Print a report's verdicts: counts, ranges, resolved gaps, KV ratios."
EPILOG = """examples:
  sitegen summary                                  # every report, plain text
  sitegen summary cuteafd-v4.0.0 --format markdown # for a pull-request comment
  sitegen summary --format json | jq '.reports[].speed'   # for scripts (site_gen/schema/summary-output-1.schema.json)
"""


def add_parser(sub) -> None:
    p = sub.add_parser("summary", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("report", nargs="?", help="report id (its folder name); default: every report, newest first")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.set_defaults(run=run)


def run(args) -> int:
    sys.stdout.write(api.summary(load(args), args.report, args.format))
    return 0
