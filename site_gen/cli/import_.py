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
  sitegen import vllm-bench --baseline runs/a/ --candidate runs/b/ -o data/serving
  sitegen import vllm-sweep --candidate results/EXPERIMENT -o data/sweep
  sitegen import vllm-bench --setup tp8 A/*.json --setup tp4pp2 B/*.json --setup tp4pp2 C/*.json \\
      --setup-set tp8:gpus=8 --setup-set tp4pp2:gpus=8 [--baseline tp8] -o data/study
  sitegen import guidellm --baseline a/benchmarks.json --candidate b/benchmarks.json -o data/guidellm
  sitegen import llmperf --baseline vllm/ --candidate tgi/ -o data/llmperf
  sitegen import aiperf --candidate artifacts/my-run/ -o data/aiperf
  sitegen import genai-perf --candidate artifacts/my-run/ -o data/genai-perf
  sitegen import lm-eval --baseline A/results_X.json --candidate B/results_Y.json -o data/eval
  sitegen import lm-eval --candidate results_X.json -o data/eval-one
  sitegen import lm-eval --setup llama A/results_X.json --setup llama B/results_Y.json --setup qwen C/results_Z.json \\
      [--baseline llama] -o data/eval-study
  sitegen import vllm-bench --candidate tonight/*.json --series vllm-nightly --commit $SHA -o data/nightly-$DATE

Runs the source's rules call not comparable are refused; --allow NAME lets them through, and the
report says so. The names: ledger and cuteafd-study: comparable, protocol, questions, or a config
field such as model.revision; vllm-bench, vllm-sweep, guidellm, llmperf, aiperf, genai-perf: model,
hardware, dataset, prompts, protocol, load-points; lm-eval: model, tasks, documents.

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
                   help="ledger: baseline run; cuteafd-study: baseline arm; the other formats: the baseline's files or folders")
    p.add_argument("--candidate", nargs="+", metavar="NAME",
                   help="ledger: candidate run; cuteafd-study: candidate arm; the other formats: the candidate's files or folders")
    p.add_argument("--label-baseline", metavar="TEXT", help="the baseline's name on the pages (not ledger, cuteafd-study)")
    p.add_argument("--label-candidate", metavar="TEXT", help="the candidate's name on the pages (not ledger, cuteafd-study)")
    p.add_argument("--set-baseline", action="append", default=[], metavar="KEY=VALUE",
                   help="serving formats: a fact of the baseline's setup its files do not record (model, engine, "
                        "engine_version, hardware, parallelism, dataset, command, date), or gpus=N: the GPUs its "
                        "engine used (throughput per GPU)")
    p.add_argument("--set-candidate", action="append", default=[], metavar="KEY=VALUE", help="the same for the candidate")
    p.add_argument("--setup", action="append", nargs="+", default=[], metavar="NAME FILE",
                   help="vllm-bench, guidellm, lm-eval: a study of two setups or more; NAME FILE… (or NAME=FILE) adds files to the "
                        "setup NAME (repeat a NAME for its next run); serving files are grouped into load points by their "
                        "contents, an lm-eval results file is one run; "
                        "--baseline NAME then names the setup the others are compared against")
    p.add_argument("--setup-label", action="append", default=[], metavar="NAME=TEXT",
                   help="a study: the setup's name on the pages (default NAME)")
    p.add_argument("--setup-set", action="append", default=[], metavar="NAME:KEY=VALUE",
                   help="a study: a fact of the setup its files do not record (model, engine, engine_version, hardware, "
                        "parallelism, dataset, command, date, gpus)")
    p.add_argument("--series", metavar="NAME",
                   help="the series this run is a point of (a nightly benchmark of one setup); default: its setup, "
                        "read from the files")
    p.add_argument("--commit", metavar="SHA", help="the revision the candidate was built from; names the point in its series "
                                                  "(default: the version the files record)")
    p.add_argument("--force", action="store_true", help="replace a receipt already in the report folder")
    p.add_argument("--allow", action="append", default=[], metavar="NAME",
                   help="what may differ although the source's rules say not comparable (repeatable): ledger, "
                        "cuteafd-study: comparable, protocol, questions, or a config field such as model.revision; "
                        "serving formats: model, hardware, dataset, prompts, protocol, load-points; lm-eval: model, "
                        "tasks, documents")
    p.add_argument("--attribution", metavar="TEXT", help="the credit the source's licence asks for, shown on every page")
    p.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS, help="show a Python traceback on errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    p.set_defaults(run=run)


def run(args) -> int:
    done = api.import_receipt(api.import_options(args.format, vars(args)))
    for warning in done.warnings:  # what it read and would not credit, or left unread, and what to do
        warn(warning)
    say(args, f"Wrote {done.receipt}")
    for note in done.notes:  # files a folder held that the format does not read, and why
        say(args, note)
    return 0
