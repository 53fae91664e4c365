"""`sitegen import FORMAT SOURCE… -o data/ID`: a harness's own files -> a checked SUMMARY.json."""
from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from site_gen.cli_util import say
from site_gen.importers import FORMATS
from site_gen.importers.common import check_output, write_receipt

HELP = "Turn the files a benchmark harness wrote into a SUMMARY.json receipt."
EPILOG = """examples:
  sitegen import ledger ../ledger --comparison COMPARISON_ID -o data/pair
  sitegen import ledger ../ledger --baseline RUN_A --candidate RUN_B -o data/pair
  sitegen import cuteafd-study path/to/comparison.json -o data/study

Runs the source's rules call not comparable are refused; --allow NAME (comparable, protocol,
questions, or a config field such as model.revision) lets them through, and the report says so.

-o names a report folder directly in the data folder of the config (data_dir of mkdocs.yml, or of
-f CONFIG); a receipt already there is replaced only with --force. The importer reads only inside
the source it is given, and writes the receipt only once sitegen would accept it.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("import", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("format", choices=sorted(FORMATS), help="the source's format")
    p.add_argument("sources", nargs="+", metavar="SOURCE", help="the source folder or file(s)")
    p.add_argument("-o", "--output", required=True, metavar="data/ID",
                   help="report folder to write SUMMARY.json into, directly in the config's data folder")
    p.add_argument("-f", "--config-file", metavar="CONFIG", default="mkdocs.yml",
                   help="configuration file whose data_dir receives the report (default: mkdocs.yml)")
    p.add_argument("--force", action="store_true", help="replace a receipt already in the report folder")
    p.add_argument("--comparison", metavar="ID", help="ledger: the comparison to import")
    p.add_argument("--baseline", metavar="NAME", help="ledger: baseline run; cuteafd-study: baseline arm")
    p.add_argument("--candidate", metavar="NAME", help="ledger: candidate run; cuteafd-study: candidate arm")
    p.add_argument("--allow", action="append", default=[], metavar="NAME",
                   help="what may differ although the source's rules say not comparable (repeatable)")
    p.add_argument("--attribution", metavar="TEXT", help="the credit the source's licence asks for, shown on every page")
    p.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS, help="show a Python traceback on errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    p.set_defaults(run=run)


def run(args) -> int:
    from site_gen.config import load_config

    # The config first: a wrong -o is refused before any source is read.
    data_dir = load_config(args.config_file).data_dir
    out = Path(args.output)
    check_output(out, data_dir, args.force)
    made = importlib.import_module(FORMATS[args.format]).run(args)
    target = write_receipt(made.doc, out, data_dir=data_dir, force=args.force, prov=made.prov, source=made.source)
    say(args, f"Wrote {target}")
    return 0
