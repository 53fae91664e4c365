"""`sitegen import FORMAT SOURCE… -o data/ID`: a harness's own files -> a checked SUMMARY.json."""
from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from site_gen.cli.util import say
from site_gen.core.errors import SitegenError
from site_gen.importers import FORMATS
from site_gen.importers.common import check_output, write_receipt

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
    p.add_argument("format", choices=sorted(FORMATS), help="the source's format")
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
    from site_gen.core.config import load_config

    # The config first: a wrong -o is refused before any source is read.
    args.data_dir = load_config(args.config_file).data_dir
    out = Path(args.output)
    check_output(out, args.data_dir, args.force)
    module = importlib.import_module(FORMATS[args.format])
    if hasattr(module, "run_and_write"):  # vllm-bench, guidellm, lm-eval: checked and written by the importer
        target = module.run_and_write(args)
        say(args, f"Wrote {target}")
        return 0
    if not args.sources:
        raise SitegenError(f"the {args.format} format takes its source as SOURCE")
    for role in ("baseline", "candidate"):  # one run or arm each
        names = getattr(args, role)
        if names is not None and len(names) != 1:
            raise SitegenError(f"--{role} takes one name for the {args.format} format; got {len(names)}")
        setattr(args, role, names[0] if names else None)
    made = module.run(args)
    target = write_receipt(made.doc, out, data_dir=args.data_dir, force=args.force, prov=made.prov, source=made.source)
    say(args, f"Wrote {target}")
    return 0
