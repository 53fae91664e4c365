"""`sitegen import FORMAT SOURCE… -o data/ID`: a harness's own files -> a checked SUMMARY.json."""
from __future__ import annotations

import argparse

from site_gen import api
from site_gen.cli.util import say, warn

HELP = "Turn the files a benchmark harness wrote into a SUMMARY.json receipt."
EPILOG = """examples:
  sitegen import ledger ../ledger --comparison COMPARISON_ID -o data/pair
  sitegen import ledger ../ledger --baseline RUN_A --candidate RUN_B -o data/pair
  sitegen import cuteafd-study path/to/comparison.json -o data/study
  sitegen import vllm-bench --baseline A/*.json --candidate B/*.json -o data/serving
  sitegen import vllm-bench --candidate sglang_runs.jsonl --label-candidate "SGLang sweep" -o data/sweep
  sitegen import guidellm --baseline a/benchmarks.json --candidate b/benchmarks.json -o data/guidellm
  sitegen import lm-eval --baseline A/results_X.json --candidate B/results_Y.json -o data/eval

Runs the source's rules call not comparable are refused; --allow NAME (comparable, protocol,
questions, or a config field such as model.revision) lets them through, and the report says so.

-o names a report folder directly in the data folder of the config (data_dir of mkdocs.yml, or of
-f CONFIG); a receipt already there is replaced only with --force. The importer reads only inside
the source it is given, and writes the receipt only once sitegen would accept it.
"""


def add_parser(sub) -> None:
    p = sub.add_parser("import", help=HELP, description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("format", choices=sorted(api.import_formats()), help="the source's format")
    p.add_argument("sources", nargs="*", metavar="SOURCE", help="the source folder or file(s) (ledger, cuteafd-study)")
    p.add_argument("-o", "--output", required=True, metavar="data/ID",
                   help="report folder to write SUMMARY.json into, directly in the config's data folder")
    p.add_argument("-f", "--config-file", metavar="CONFIG", default="mkdocs.yml",
                   help="configuration file whose data_dir receives the report (default: mkdocs.yml)")
    p.add_argument("--comparison", metavar="ID", help="ledger: the comparison to import")
    p.add_argument("--baseline", nargs="+", metavar="NAME",
                   help="ledger: baseline run; cuteafd-study: baseline arm; vllm-bench, guidellm, lm-eval: the baseline's files")
    p.add_argument("--candidate", nargs="+", metavar="NAME",
                   help="ledger: candidate run; cuteafd-study: candidate arm; vllm-bench, guidellm, lm-eval: the candidate's files")
    p.add_argument("--label-baseline", metavar="TEXT", help="vllm-bench, guidellm, lm-eval: the baseline's name on the pages")
    p.add_argument("--label-candidate", metavar="TEXT", help="vllm-bench, guidellm, lm-eval: the candidate's name on the pages")
    p.add_argument("--set-baseline", action="append", default=[], metavar="KEY=VALUE",
                   help="vllm-bench, guidellm: a fact of the baseline's setup its files do not record (model, engine, "
                        "engine_version, hardware, parallelism, dataset, command, date)")
    p.add_argument("--set-candidate", action="append", default=[], metavar="KEY=VALUE", help="the same for the candidate")
    p.add_argument("--force", action="store_true", help="replace a receipt already in the report folder")
    p.add_argument("--allow", action="append", default=[], metavar="NAME",
                   help="what may differ although the source's rules say not comparable (repeatable)")
    p.add_argument("--attribution", metavar="TEXT", help="the credit the source's licence asks for, shown on every page")
    p.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS, help="show a Python traceback on errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    p.set_defaults(run=run)


def run(args) -> int:
    written = api.import_receipt(args)
    for note in api.import_notes():
        warn(note)
    say(args, f"Wrote {written}")
    return 0
