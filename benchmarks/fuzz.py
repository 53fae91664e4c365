"""The fuzz test's engine (tests/fuzzing.py) on a longer run, with figures.

    python benchmarks/fuzz.py                         # 20,000 cases, a new seed (printed)
    python benchmarks/fuzz.py --cases 5000 --seed 7
    python benchmarks/fuzz.py --imports --cases 20000 # import cases: the ledger's protocols and the study
    python benchmarks/fuzz.py --importers --cases 5000 --seed 50   # 5,000 cases for each importer
    python benchmarks/fuzz.py --importers guidellm lm-eval --cases 500
    python benchmarks/fuzz.py --seed 1 --case 1234 --write /tmp/repro   # one case, its project kept
    python benchmarks/fuzz.py --importers sglang --seed 1 --case 12 --write /tmp/repro

Prints the seed, cases per second (wall and CPU), outcomes by input kind (each importer its own), and
the distinct failures (exit 2, a traceback, a hang, a wrong `Error:` count, a receipt sitegen refuses)
grouped by exception type and sitegen location, each with its reproducers (seed, case, mutation, the
output's last lines). Exit 0 when every case ended in exit 0 or 1 as the contract says.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import SERVING_FORMATS, Fuzzer, Totals, make_case, make_import_case, make_serving_case  # noqa: E402

IMPORTERS = ("ledger", "cuteafd-study", *SERVING_FORMATS)


def maker(importer: str):
    """Case `i` of seed `s` for one importer."""
    if importer == "ledger":
        return partial(make_import_case, study=False)
    if importer == "cuteafd-study":
        return partial(make_import_case, study=True)
    return lambda seed, i: make_serving_case(seed, i, importer)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=20000, help="cases (with --importers: for each importer)")
    p.add_argument("--seed", type=int, help="the seed (default: a new one, printed)")
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--bound", type=float, default=10.0, help="CPU seconds after which a case is a hang")
    p.add_argument("--case", type=int, help="run this one case and show its whole output")
    p.add_argument("--write", metavar="DIR", help="with --case: leave the case's project in DIR")
    p.add_argument("--examples", type=int, default=3, help="reproducers shown per failure group")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--imports", action="store_true", help="import cases (the ledger and the study, mixed) instead")
    kind.add_argument("--importers", nargs="*", metavar="IMPORTER", choices=IMPORTERS,
                      help=f"import cases of each of these importers (default: all: {', '.join(IMPORTERS)})")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10 ** 6)
    print(f"seed {seed}", flush=True)
    if args.importers is not None:
        runs = [(name, maker(name)) for name in (args.importers or IMPORTERS)]
    else:
        runs = [("imports" if args.imports else "pages", make_import_case if args.imports else make_case)]
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-"))
    failed = False
    try:
        with Fuzzer(work, bound=args.bound) as fuzzer:
            if args.case is not None:
                return one(fuzzer, runs[0][1](seed, args.case), args.write)
            for name, make in runs:
                failed |= run(fuzzer, name, make, seed, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def run(fuzzer: Fuzzer, name: str, make, seed: int, args) -> bool:
    totals = Totals()
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(args.start, args.start + args.cases):
        totals.add(fuzzer.run(make(seed, i)))
        if (i - args.start + 1) % 1000 == 0:
            print(f"  {name}: {i - args.start + 1} cases, {len(totals.failures)} failed", file=sys.stderr, flush=True)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{name}, seed {seed}, cases {args.start}-{args.start + args.cases - 1}: {totals.line()}")
    print(f"  wall {wall:.1f} s ({totals.cases / wall:.1f} cases/s), CPU {cpu:.1f} s ({totals.cases / cpu:.1f} cases/s); "
          f"slowest case {totals.slowest:.2f} s")
    for kind in sorted({k[0] for k in totals.by_target}):
        row = {k[1]: v for k, v in totals.by_target.items() if k[0] == kind}
        print(f"  {kind:20} " + ", ".join(f"{code}: {n}" for code, n in sorted(row.items(), key=str)))
    groups = totals.groups()
    print(f"  {len(groups)} distinct failures")
    if groups:
        print(totals.report(args.examples))
    return bool(totals.failures)


def one(fuzzer: Fuzzer, case, keep: str | None) -> int:
    outcome = fuzzer.run(case)
    print(case.describe().encode("utf-8", "backslashreplace").decode())
    print(f"exit {outcome.code} in {outcome.seconds:.2f} s; {outcome.failure or 'holds'}" + (f" ({outcome.where})" if outcome.where else ""))
    print(outcome.output.encode("utf-8", "backslashreplace").decode())
    if keep:
        target = Path(keep)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(fuzzer.workdir / "project", target)
        print(f"project written to {target}; run: cd {target} && sitegen {' '.join(case.argv)}")
    return 1 if outcome.failure else 0


if __name__ == "__main__":
    sys.exit(main())
