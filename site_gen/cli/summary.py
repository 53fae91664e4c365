"""`sitegen summary`: a report's verdicts in the terminal, as markdown, or as JSON."""
from __future__ import annotations

import argparse
import sys

from site_gen.build.assembly import assemble
from site_gen.cli.util import add_common, load
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
    site = assemble(load(args), only=args.report)
    items = [summary.summary_data(a) for a in site.analyses]
    render = {"text": summary.as_text, "markdown": summary.as_markdown, "json": summary.as_json}[args.format]
    sys.stdout.write(render(items))
    return 0
