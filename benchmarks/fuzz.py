"""The fuzz test's engine (tests/fuzzing.py) on a longer run, with figures.

    python benchmarks/fuzz.py                         # 20,000 cases of seed 1
    python benchmarks/fuzz.py --cases 5000 --seed 7
    python benchmarks/fuzz.py --imports --cases 20000 # import cases: the ledger's protocols and the study
    python benchmarks/fuzz.py --seed 1 --case 1234 --write /tmp/repro   # one case, its project kept

Prints cases per second (wall and CPU), outcomes by input kind, and the distinct failures (exit 2,
a traceback, a hang, a wrong `Error:` count) grouped by exception type and sitegen location, each
with its reproducers (seed, case, mutation, the output's last lines).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import Fuzzer, Totals, make_case, make_import_case  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--bound", type=float, default=10.0, help="seconds after which a case is a hang")
    p.add_argument("--case", type=int, help="run this one case and show its whole output")
    p.add_argument("--write", metavar="DIR", help="with --case: leave the case's project in DIR")
    p.add_argument("--examples", type=int, default=3, help="reproducers shown per failure group")
    p.add_argument("--imports", action="store_true", help="import cases (sitegen import of mutated sources) instead")
    args = p.parse_args()
    make = make_import_case if args.imports else make_case
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-"))
    try:
        with Fuzzer(work, bound=args.bound) as fuzzer:
            if args.case is not None:
                return one(fuzzer, make(args.seed, args.case), args.write)
            totals = Totals()
            started, cpu = time.perf_counter(), time.process_time()
            for i in range(args.start, args.start + args.cases):
                totals.add(fuzzer.run(make(args.seed, i)))
                if (i - args.start + 1) % 1000 == 0:
                    print(f"  {i - args.start + 1} cases, {len(totals.failures)} failed", file=sys.stderr, flush=True)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(totals.line())
    print(f"wall {wall:.1f} s ({totals.cases / wall:.1f} cases/s), CPU {cpu:.1f} s ({totals.cases / cpu:.1f} cases/s); "
          f"slowest case {totals.slowest:.2f} s")
    for kind in ("receipt", "config", "page", "import"):
        row = {k[1]: v for k, v in totals.by_target.items() if k[0] == kind}
        print(f"  {kind:8} " + ", ".join(f"{code}: {n}" for code, n in sorted(row.items(), key=str)))
    groups = totals.groups()
    print(f"{len(groups)} distinct failures")
    print(totals.report(args.examples))
    return 1 if totals.failures else 0


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
