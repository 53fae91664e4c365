"""sitegen side by side with MkDocs (and the import floor) on one machine, in one run: the goals of
issue 17, each printed with its ratio.

    .venv/bin/python benchmarks/peers.py            # every goal, 5 runs of the small ones
    .venv/bin/python benchmarks/peers.py --quick    # 3 runs, 100 reports once, no 1,000 reports
    .venv/bin/python benchmarks/peers.py --preview  # also benchmarks/preview.py's receipt edits
    .venv/bin/python benchmarks/peers.py --scale 1000  # only the goals of a 1,000-report site

Every figure is a whole process (`sitegen build`, `mkdocs build`, `python -c ...`) started fresh,
timed from start to exit: wall time, CPU time of it and its workers (from wait4), and the peak
resident set of the largest of them. Pairs run back to back, in alternating order, and each ratio
is the median of the ratios of the pairs (on a shared machine both sides of a pair see the same load).

What is compared:
- cold: `sitegen build --no-cache` into an empty folder: nothing from an earlier process.
- first build: the user cache holds compiled templates and the validator (any earlier build made
  them), the site folder is new: what a build after changing a receipt costs at most.
- warm: `sitegen build` again, nothing changed (the site folder is checked, file by file).
- MkDocs: `mkdocs build` of a generated site of plain markdown pages (8 per report) with the
  default theme, as large in pages as the sitegen site it is set against.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import EXAMPLE, ROOT, make_site  # noqa: E402  (benchmarks/build.py: N copies of the example report)

PY = sys.executable
DEVNULL = subprocess.DEVNULL


def run(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB of the largest process) of one command, which must succeed."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def sitegen(project: Path, site: Path, *extra: str) -> list[str]:
    return [PY, "-m", "site_gen", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site), *extra]


def mkdocs_site(folder: Path, pages: int) -> Path:
    """A plain MkDocs project of `pages` markdown pages made of the example's prose and a table."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    prose = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    prose += "\n\n" + (EXAMPLE / "lede.md").read_text(encoding="utf-8")
    table = "| cell | baseline | candidate | ratio |\n|---|---:|---:|---:|\n" + "".join(
        f"| c{i} | {100 + i} | {120 + i} | {1 + i / 100:.2f} |\n" for i in range(40))
    for i in range(pages):
        (docs / ("index.md" if i == 0 else f"page-{i:04d}.md")).write_text(
            f"# Page {i}\n\n{prose}\n\n## Cells\n\n{table}", encoding="utf-8")
    (folder / "mkdocs.yml").write_text("site_name: Peer\n", encoding="utf-8")
    return folder


def mkdocs(project: Path, site: Path) -> list[str]:
    return [PY, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site)]


def pairs(a, b, runs: int) -> tuple[list[tuple], list[tuple]]:
    """`runs` pairs of (a(), b()), the order alternating."""
    out_a, out_b = [], []
    for i in range(runs):
        if i % 2:
            out_b.append(b())
            out_a.append(a())
        else:
            out_a.append(a())
            out_b.append(b())
    return out_a, out_b


def med(values) -> float:
    return statistics.median(values)


def fresh(tmp: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp))


class Table:
    def __init__(self):
        self.rows: list[tuple[str, str, str, str, str]] = []

    def goal(self, what: str, mine: str, other: str, ratio: float | None, target: str, met: bool,
             cpu: str = "") -> None:
        shown = f"{ratio:.2f}x" if ratio is not None else ""
        self.rows.append((what, mine, other, shown, cpu, f"{target}: {'met' if met else 'NOT met'}"))
        print(f"{what}: {mine} vs {other} -> {shown} {cpu} [{target}: {'met' if met else 'NOT met'}]", flush=True)

    def markdown(self) -> str:
        head = "| work | sitegen | peer | ratio (wall) | CPU, ratio | goal |\n|---|---:|---:|---:|---:|---|\n"
        return head + "".join(f"| {' | '.join(r)} |\n" for r in self.rows)


def ratio_of(a: list[tuple], b: list[tuple], i: int = 0) -> float:
    return med([x[i] / y[i] for x, y in zip(a, b)])


def cpu(a: list[tuple], b: list[tuple]) -> str:
    """CPU seconds of both sides and their ratio: steadier than wall time on a loaded machine."""
    return f"{med(x[1] for x in a):.2f} s vs {med(x[1] for x in b):.2f} s, {ratio_of(a, b, 1):.2f}x"


def example_goals(tmp: Path, runs: int, t: Table) -> float:
    project = ROOT
    peer = mkdocs_site(fresh(tmp), 8)
    cache = fresh(tmp)
    cold = lambda: run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project)  # noqa: E731
    a, b = pairs(cold, lambda: run(mkdocs(peer, fresh(tmp) / "site"), peer), runs)
    t.goal("example site, cold, vs an 8-page MkDocs site", f"{med(x[0] for x in a):.2f} s",
           f"{med(x[0] for x in b):.2f} s", ratio_of(a, b), "at most 1.0x", ratio_of(a, b) <= 1.0, cpu(a, b))
    floor = lambda: run([PY, "-c", "import pandas, jinja2, markdown"], tmp)  # noqa: E731
    a2, f = pairs(cold, floor, runs)
    t.goal("example site, cold, vs `import pandas, jinja2, markdown`", f"{med(x[0] for x in a2):.2f} s",
           f"{med(x[0] for x in f):.2f} s", ratio_of(a2, f), "at most 1.5x", ratio_of(a2, f) <= 1.5, cpu(a2, f))
    run(sitegen(project, fresh(tmp) / "site", "--cache-dir", str(cache)), project)  # fills the compile caches
    first = lambda: run(sitegen(project, fresh(tmp) / "site", "--cache-dir", str(cache)), project)  # noqa: E731
    a3, b3 = pairs(first, lambda: run(mkdocs(peer, fresh(tmp) / "site"), peer), runs)
    t.goal("example site, first build (compile caches warm), vs the 8-page MkDocs site",
           f"{med(x[0] for x in a3):.2f} s", f"{med(x[0] for x in b3):.2f} s", ratio_of(a3, b3), "at most 1.0x",
           ratio_of(a3, b3) <= 1.0, cpu(a3, b3))
    site = fresh(tmp) / "site"
    run(sitegen(project, site, "--cache-dir", str(cache)), project)
    warm = lambda: run(sitegen(project, site, "--cache-dir", str(cache)), project)  # noqa: E731
    a4, b4 = pairs(warm, cold, runs)
    t.goal("example site, warm (nothing changed), vs cold", f"{med(x[0] for x in a4):.2f} s",
           f"{med(x[0] for x in b4):.2f} s", ratio_of(a4, b4), "at most 0.3x", ratio_of(a4, b4) <= 0.3, cpu(a4, b4))
    return med(x[0] for x in a)


def edit_one(project: Path) -> None:
    """One receipt changed: a speed cell's candidate rate, as an edited rerun would."""
    receipt = sorted((project / "data").glob("*/SUMMARY.json"))[len(list((project / "data").iterdir())) // 2]
    data = json.loads(receipt.read_text())
    cell = data["speed"]["cells"][0]["candidate"]
    cell["rate"] = cell["rate"] * 1.01
    receipt.write_text(json.dumps(data))


def scale_goals(tmp: Path, reports: int, runs: int, t: Table, vs_mkdocs: bool) -> None:
    project = make_site(fresh(tmp), reports).parent
    pages = 9 * reports + 3
    if vs_mkdocs:
        peer = mkdocs_site(fresh(tmp), 8 * reports)
        a, b = pairs(lambda: run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project),
                     lambda: run(mkdocs(peer, fresh(tmp) / "site"), peer), runs)
        t.goal(f"{reports} reports ({pages} pages), cold, vs a {8 * reports}-page MkDocs site",
               f"{med(x[0] for x in a):.1f} s", f"{med(x[0] for x in b):.1f} s", ratio_of(a, b),
               "at most 0.5x", ratio_of(a, b) <= 0.5, cpu(a, b))
    else:
        a = [run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project) for _ in range(runs)]
        wall, peak = med(x[0] for x in a), max(x[2] for x in a)
        t.goal(f"{reports} reports ({pages} pages), cold: time", f"{wall:.1f} s", "", None, "under 30 s", wall < 30)
        t.goal(f"{reports} reports, cold: peak memory (largest process)", f"{peak:.0f} MB", "", None,
               "under 600 MB", peak < 600)
    cache, site = fresh(tmp), fresh(tmp) / "site"
    cold = run(sitegen(project, site, "--cache-dir", str(cache)), project)
    warm = run(sitegen(project, site, "--cache-dir", str(cache)), project)
    t.goal(f"{reports} reports, warm (nothing changed), vs cold", f"{warm[0]:.2f} s", f"{cold[0]:.1f} s",
           warm[0] / cold[0], "at most 0.3x", warm[0] / cold[0] <= 0.3,
           f"{warm[1]:.2f} s vs {cold[1]:.1f} s, {warm[1] / cold[1]:.2f}x")
    edit_one(project)
    edited = run(sitegen(project, site, "--cache-dir", str(cache)), project)
    t.goal(f"{reports} reports, one receipt changed (warm caches), vs cold", f"{edited[0]:.1f} s", f"{cold[0]:.1f} s",
           edited[0] / cold[0], "under 5 s", edited[0] < 5, f"{edited[1]:.1f} s vs {cold[1]:.1f} s")


def preview_goals(reports: list[int]) -> None:
    for n in reports:
        argv = [PY, str(ROOT / "benchmarks" / "preview.py"), "--edits", "10", "--no-mkdocs", "--kinds", "receipt", "prose"]
        print(f"\nbenchmarks/preview.py, {'the example' if not n else f'{n} reports'} "
              "(goals: receipt under 100 ms / 200 ms at 1,000 reports, prose under 50 ms):", flush=True)
        subprocess.run(argv + (["--reports", str(n)] if n else []), cwd=ROOT, check=False)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 runs, 100 reports once, no 1,000 reports")
    p.add_argument("--runs", type=int, help="pairs per small comparison (default 5, quick 3)")
    p.add_argument("--preview", action="store_true", help="also run benchmarks/preview.py (receipt and prose edits)")
    p.add_argument("--scale", type=int, metavar="N", help="only the goals of a site of N reports (MkDocs beside it up to 100)")
    args = p.parse_args()
    runs = args.runs or (3 if args.quick else 5)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
    t = Table()
    with tempfile.TemporaryDirectory(prefix="sitegen-peers-") as tmp:
        tmp = Path(tmp)
        if args.scale:
            scale_goals(tmp, args.scale, 1, t, vs_mkdocs=args.scale <= 100)
        else:
            example_goals(tmp, runs, t)
            scale_goals(tmp, 100, 1 if args.quick else 3, t, vs_mkdocs=True)
            if not args.quick:
                scale_goals(tmp, 1000, 1, t, vs_mkdocs=False)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end\n\n" + t.markdown(), flush=True)
    if args.preview:
        preview_goals([0] if args.quick else [0, 1000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
