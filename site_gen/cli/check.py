"""`sitegen check`: everything a build checks (receipts, blocks, checked statements), nothing written."""
from __future__ import annotations

import argparse

from site_gen import api
from site_gen.cli.util import add_common, load, say, warn

HELP = "Validate receipts, blocks and checked statements without writing the site."
EPILOG = """examples:
  sitegen check                  # exit 0 when the site would build, 1 with the first error
  sitegen check --strict         # warnings fail too (for a pre-commit hook or CI)
"""


def add_parser(sub) -> None:
    p = sub.add_parser("check", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("-s", "--strict", action="store_true", help="treat warnings as errors")
    p.set_defaults(run=run, collect_between=True)  # cli `collector`


def run(args) -> int:
    config = load(args)
    result = api.build_files(config)
    if args.strict:  # decided here, once, on every warning the check found
        api.refuse_warnings(result.warnings)
    for message in result.warnings:
        warn(message)
    n = len(result.warnings)
    say(args, f"OK: {result.reports} report{'s' if result.reports != 1 else ''}, {result.pages} pages checked "
              f"in {result.seconds:.2f} s" + (f", {n} warning{'s' if n != 1 else ''}" if n else ""))
    return 0
