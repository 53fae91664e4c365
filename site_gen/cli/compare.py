"""`sitegen compare OLD NEW`: a release against the previous one, figure by figure; exit 1 when
anything is worse beyond noise (by `--fail-on`), or when the two cannot be compared."""
from __future__ import annotations

import argparse
import sys

from site_gen import api
from site_gen.cli.util import add_common, load

HELP = "Compare a report with an earlier one of the same setup: better, worse or unchanged within noise."
EPILOG = """Each figure both reports hold (speed cells, latency percentiles and throughputs, precision gaps,
accuracy, KV pool, startup, measures) is compared by the report's own rule: one run each takes the
noise band; rows or repeats take the 95% interval, which must clear the band (a difference: exclude 0).

exit status: 0 nothing fails by --fail-on; 1 something does, or the reports are not comparable
(other model, hardware, baseline, workload or client: named; --allow FIELD compares anyway).

--fail-on (the words of sitegen history): slower (a speed figure got worse), worse (anything got
           worse; the default), new-regression (the same as worse: in a comparison of two reports
           every regression is new), any (anything changed beyond noise, either way), never (report only)

examples:
  sitegen compare cuteafd-v4.0.0 cuteafd-v4.0.1                   # ids of reports in the data folder
  sitegen compare published/reports/nightly-0412 data/nightly-0413 # or folders holding SUMMARY.json
  sitegen compare OLD NEW --format markdown > comment.md           # a pull-request comment
  sitegen compare OLD NEW --format json | jq '.changes[] | select(.outcome == "worse")'
  sitegen compare OLD NEW --fail-on slower --allow hardware
"""


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common(p)
    p.add_argument("old", metavar="OLD", help="the earlier report: its id (folder name in the data folder) or a folder holding SUMMARY.json")
    p.add_argument("new", metavar="NEW", help="the later report, named the same way")
    p.add_argument("--format", choices=api.COMPARE_FORMATS, default="text")
    p.add_argument("--fail-on", choices=api.FAIL_ON, default="worse", help="what makes the exit status 1 (default: worse)")
    p.add_argument("--allow", action="append", default=[], metavar="FIELD",
                   help="a difference of setup to compare across anyway (hardware, model, baseline, dataset, load-points, "
                        "protocol); repeatable")
    p.set_defaults(run=run)


def run(args) -> int:
    result = api.compare(load(args), args.old, args.new, fmt=args.format, fail_on=args.fail_on, allow=tuple(args.allow))
    sys.stdout.write(result.text)
    return 1 if result.failed else 0
