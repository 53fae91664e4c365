"""`sitegen history` (`--changes`, its one mode): the change points of every series (the reports of one setup over
time); exit 1 when the newest points begin a confirmed regression (by `--fail-on`), or on bad input."""
from __future__ import annotations

import argparse
import sys

from site_gen import api
from site_gen.cli.util import add_common, load

HELP = "Print where each series' figures changed level (change points), for a nightly CI job."
EPILOG = """A series is the reports of one setup over time: the same engine, model, hardware and
workload, or the reports whose receipts name one series (sitegen import ... --series NAME --commit SHA).
Each figure of a series (throughput, TTFT and TPOT percentiles, speed ratios, accuracy, KV pool,
startup) is searched for the points where its level shifts; a change is confirmed once three points
hold the new level, suspected while only the newest two show it.

exit status: 0 nothing fails by --fail-on; 1 something does, or the input is bad (a series with a
commit twice, reports of another setup, dates out of order, --series naming a series of one point).

--fail-on (the words of sitegen compare):
           new-regression (the default): a confirmed regression that the newest point confirms
           (with --since DATE: any confirmed regression beginning on or after DATE);
           worse: any confirmed regression (with --since DATE: beginning on or after DATE);
           slower: the same, of a speed figure (throughput, latency, speed ratio, startup);
           any: any confirmed change, either way; never: report only

Change points are the command's one mode: --changes may be given or left out.

examples:
  sitegen history                                            # every series, every change point
  sitegen history --since 2026-10-01 --format markdown > comment.md
  sitegen history --series vllm-nightly --format json | jq '.series[].changes[]'
"""


def add_parser(sub) -> None:
    p = sub.add_parser("history", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("--changes", action="store_true",
                   help="print each series' change points (the command's one mode, the default: may be left out)")
    p.add_argument("--since", metavar="DATE", help="only changes beginning on or after DATE (YYYY-MM-DD)")
    p.add_argument("--series", metavar="NAME", help="only the series a receipt names so (or whose key starts with NAME)")
    p.add_argument("--format", choices=api.COMPARE_FORMATS, default="text")
    p.add_argument("--fail-on", choices=api.HISTORY_FAIL_ON, default="new-regression",
                   help="what makes the exit status 1 (default: new-regression; the words of sitegen compare)")
    p.set_defaults(run=run)


def run(args) -> int:
    result = api.history_changes(load(args), since=args.since, fail_on=args.fail_on, fmt=args.format, series=args.series)
    sys.stdout.write(result.text)
    return 1 if result.failed else 0
