"""Every speed goal in one run, each printed with its measured figure, the peer's figure where there
is one, the ratio and "met" or "not met", with the machine and its load average; a full run writes
the guide's results page (docs/guide/performance-results.md), the one page of the project that holds
measured timings.

    .venv/bin/python benchmarks/peers.py            # every goal (1,000 reports included: minutes)
    .venv/bin/python benchmarks/peers.py --quick    # fewer runs, no 1,000-report runs; writes no page
    .venv/bin/python benchmarks/peers.py --no-preview   # leave out the browser (preview) goals
    .venv/bin/python benchmarks/peers.py --quick --page /tmp/results.md   # a page of a quick run, elsewhere

Every build, import and peer is a whole process started fresh (`sitegen build`, `mkdocs build`,
`python -c "import pandas, jinja2, markdown"`), timed from start to exit: wall time, the CPU time of
it and its workers (from wait4), the peak resident set of its largest process and, sampled every
0.5 s, the proportional set size of all its processes together (forked workers share pages with the
builder). Before each command, what earlier ones wrote is flushed to disk (`os.sync`). Pairs run
back to back in alternating order, and a ratio is the median of the pairs' ratios: on a shared
machine both sides of a pair see the same load. The CPU ratio is printed beside the wall ratio
because it moves less with other people's work.

What is compared:
- cold: `sitegen build --no-cache` into an empty folder, nothing kept from an earlier process; at
  1,000 reports three of them (their median), with the part of their CPU time spent in the kernel
  (writing ~10,000 files: it moves a lot with how busy the file system is).
- MkDocs: `mkdocs build` (default theme) of plain markdown pages made of the example's prose and a
  table, as many pages as the sitegen site it is set against has HTML pages. On a 1,000-report site
  MkDocs is stopped once it has taken 2.5 times sitegen's time (its nav makes each page cost more as
  the site grows): it would take at least that long, so the ratio is printed as an upper bound.
- one receipt changed: `sitegen build` with its (data-only) build cache after one receipt's speed
  cell changed, the site folder kept from the previous build; three edits one after another (one
  with --quick at 100 reports), each once the site the last one swapped out is removed, and their
  median against the goal.
- preview: benchmarks/preview.py in headless Chromium, from the write of the file to the new text in
  the DOM of an open page (median of its edits).
- per-request data: 20 reports of 2 sides x 4 load points x 1,000 requests (tests/serving_receipts.py)
  built cold; the import: `sitegen import vllm-bench` of one vLLM file of 5,000 requests
  (benchmarks/import_serving.py makes it), a whole process.
The test suite's goals (tests/run.sh) are measured by running it, not here.
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
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from build import EXAMPLE, ROOT, _pss_mb, _tree, make_site  # noqa: E402  (benchmarks/build.py)
from site_gen import api  # noqa: E402

PY = sys.executable
DEVNULL = subprocess.DEVNULL
# Every command runs with Python's bytecode caches on, as a user's shell has them: with
# PYTHONDONTWRITEBYTECODE set (some CI images and sandboxes set it) and a venv installed without
# compiling (uv), each process would compile every module it imports from source, a cost that
# depends on what the installer did, not on the tool (the import floor took several times longer
# without them). Each command runs once, untimed, to write them.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
QUICK_SKIP = "not measured (--quick)"


class Stopped(Exception):
    pass


def run(argv: list[str], cwd: Path, limit: float | None = None) -> tuple[float, float, float, float, float]:
    """(wall s, CPU s, peak MB of the largest process, peak MB of all its processes together, CPU s
    of it in the kernel) of one command, which must succeed; past `limit` seconds it is killed and
    Stopped raised."""
    # What the commands before wrote is flushed first: its write-back would otherwise fall into this
    # command's time as kernel time (a 1,000-report build started right after another spent several
    # times the kernel time of one started after a sync).
    os.sync()
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=DEVNULL, stderr=err, env=ENV)
        together, sampled = 0.0, 0.0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.perf_counter()
            if limit is not None and now - start > limit:
                for p in reversed(_tree(proc.pid)):
                    try:
                        os.kill(p, 9)
                    except OSError:
                        pass
                os.wait4(proc.pid, 0)
                raise Stopped(now - start)
            if now - sampled >= 0.5:
                together = max(together, _pss_mb(_tree(proc.pid)))
                sampled = time.perf_counter()
            time.sleep(0.01)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.read().decode()[-2000:]}")
    peak = usage.ru_maxrss / 1024
    return wall, usage.ru_utime + usage.ru_stime, peak, max(together, peak), usage.ru_stime


def sitegen(project: Path, site: Path, *extra: str) -> list[str]:
    return [PY, "-m", "site_gen", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site), *extra]


def html_pages(site: Path) -> int:
    return sum(1 for _ in site.rglob("*.html"))


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
    return statistics.median(list(values))


def fresh(tmp: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp))


def ratio_of(a: list[tuple], b: list[tuple], i: int = 0) -> float:
    return med(x[i] / y[i] for x, y in zip(a, b))


def cpu(a: list[tuple], b: list[tuple]) -> str:
    return f"{med(x[1] for x in a):.2f} s vs {med(x[1] for x in b):.2f} s ({ratio_of(a, b, 1):.2f}x)"


def secs(values, digits: int = 2) -> str:
    values = list(values)
    if len(values) == 1:
        return f"{values[0]:.{digits}f} s"
    return f"{med(values):.{digits}f} s (median of {len(values)}, {min(values):.{digits}f}–{max(values):.{digits}f})"


class Table:
    def __init__(self):
        self.rows: list[tuple[str, ...]] = []

    def goal(self, what: str, mine: str, peer: str, ratio: str, target: str, met: bool | None, cpu_: str = "") -> None:
        verdict = QUICK_SKIP if met is None else ("met" if met else "not met")
        self.rows.append((what, mine, peer, ratio, cpu_, target, verdict))
        print(f"{what}: {mine or '-'} | peer {peer or '-'} | ratio {ratio or '-'} | CPU {cpu_ or '-'} "
              f"| goal {target}: {verdict}", flush=True)

    def markdown(self) -> str:
        head = ("| goal | sitegen | peer | ratio (wall) | CPU (sitegen vs peer) | target | result |\n"
                "|---|---:|---:|---:|---:|---|---|\n")
        return head + "".join(f"| {' | '.join(r)} |\n" for r in self.rows)


# -- the example site --------------------------------------------------------------------------------

def example_goals(tmp: Path, runs: int, t: Table) -> None:
    project = ROOT
    cold = lambda: run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project)  # noqa: E731
    floor = lambda: run([PY, "-c", "import pandas, jinja2, markdown"], tmp)  # noqa: E731
    cold(), floor()  # untimed: each writes the bytecode caches it reads (see ENV)
    a, f = pairs(cold, floor, runs)
    r = ratio_of(a, f)
    t.goal("example site, cold, vs `python -c \"import pandas, jinja2, markdown\"`", secs(x[0] for x in a),
           secs(x[0] for x in f), f"{r:.2f}x", "at most 1.5x", r <= 1.5, cpu(a, f))
    probe = fresh(tmp) / "site"
    run(sitegen(project, probe, "--no-cache"), project)
    pages = html_pages(probe)
    peer = mkdocs_site(fresh(tmp), pages)
    run(mkdocs(peer, fresh(tmp) / "site"), peer)  # untimed, as above
    a2, b2 = pairs(cold, lambda: run(mkdocs(peer, fresh(tmp) / "site"), peer), runs)
    r = ratio_of(a2, b2)
    t.goal(f"example site ({pages} pages), cold, vs MkDocs on {pages} pages", secs(x[0] for x in a2),
           secs(x[0] for x in b2), f"{r:.2f}x", "at most 0.5x", r <= 0.5, cpu(a2, b2))


# -- generated sites of many reports -----------------------------------------------------------------

def edit_one(project: Path) -> None:
    """One receipt changed: a speed cell's candidate rate, as an edited rerun would."""
    receipts = sorted((project / "data").glob("*/SUMMARY.json"))
    receipt = receipts[len(receipts) // 2]
    data = json.loads(receipt.read_text())
    cell = data["speed"]["cells"][0]["candidate"]
    cell["rate"] = cell["rate"] * 1.01
    receipt.write_text(json.dumps(data))


def scale_goals(tmp: Path, reports: int, runs: int, t: Table, edit_runs: int = 3) -> None:
    project = make_site(fresh(tmp), reports).parent
    cold = lambda: run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project)  # noqa: E731
    probe = fresh(tmp) / "site"
    first = run(sitegen(project, probe, "--no-cache"), project)
    pages = html_pages(probe)
    peer = mkdocs_site(fresh(tmp), pages)
    what = f"{reports:,} reports ({pages:,} pages), cold, vs MkDocs on {pages:,} pages"
    if reports < 1000:
        a, b = pairs(cold, lambda: run(mkdocs(peer, fresh(tmp) / "site"), peer), runs)
        r = ratio_of(a, b)
        t.goal(what, secs((x[0] for x in a), 1), secs((x[0] for x in b), 1), f"{r:.2f}x", "at most 0.5x", r <= 0.5,
               cpu(a, b))
    else:
        a = [first] + [cold() for _ in range(runs - 1)]  # `runs`: 3 in the full run (main)
        limit = 2.5 * max(x[0] for x in a)
        try:
            b = run(mkdocs(peer, fresh(tmp) / "site"), peer, limit=limit)
            r = med(x[0] for x in a) / b[0]
            t.goal(what, secs((x[0] for x in a), 1), f"{b[0]:.1f} s", f"{r:.2f}x", "at most 0.5x", r <= 0.5,
                   f"{med(x[1] for x in a):.1f} s vs {b[1]:.1f} s")
        except Stopped as stop:
            r = med(x[0] for x in a) / stop.args[0]
            t.goal(what, secs((x[0] for x in a), 1), f"> {stop.args[0]:.0f} s (stopped)", f"< {r:.2f}x",
                   "at most 0.5x", r <= 0.5)
        wall, peak, together = med(x[0] for x in a), max(x[2] for x in a), max(x[3] for x in a)
        t.goal(f"{reports:,} reports, cold: time", secs((x[0] for x in a), 1), "", "", "under 30 s", wall < 30,
               f"{med(x[1] for x in a):.1f} s, of it {med(x[4] for x in a):.1f} s in the kernel")
        t.goal(f"{reports:,} reports, cold: peak memory", f"{peak:.0f} MB largest process, {together:.0f} MB all "
               "processes (PSS)", "", "", "under 600 MB", max(peak, together) < 600)
    cache, site = fresh(tmp), fresh(tmp) / "site"
    run(sitegen(project, site, "--cache-dir", str(cache)), project)
    run(sitegen(project, site, "--cache-dir", str(cache)), project)
    edits = []
    for _ in range(edit_runs):
        settled(site)
        edit_one(project)
        edits.append(run(sitegen(project, site, "--cache-dir", str(cache)), project))
    wall = med(x[0] for x in edits)
    t.goal(f"{reports:,} reports, one receipt changed (`sitegen build` with its cache)", secs(x[0] for x in edits),
           "", "", "under 2 s" + ("" if reports >= 1000 else " (the goal is 1,000 reports')"), wall < 2,
           f"{med(x[1] for x in edits):.2f} s")


def settled(site: Path, limit: float = 120.0) -> None:
    """Waits until the site swapped out by the last build is removed (`sitegen build` leaves that to a
    process of its own, after the command): an edit timed meanwhile would share the disk with it."""
    start = time.perf_counter()
    old = f"{api.site_prefix()}{site.name}.old-*"
    while any(site.parent.glob(old)) and time.perf_counter() - start < limit:
        time.sleep(0.2)


# -- per-request data ----------------------------------------------------------------------------------

def serving_goals(tmp: Path, runs: int, t: Table) -> None:
    import serving_receipts as sr  # tests/serving_receipts.py: drawn serving receipts
    from import_serving import big_file  # benchmarks/import_serving.py

    project = fresh(tmp)
    for i in range(20):
        sr.write(project / "data" / f"serving-{i:02d}", sr.pair(seed=i, n=1000, points=4, scale=1.03, failed=5,
                                                                one_token=3))
    (project / "mkdocs.yml").write_text("site_name: Serving\nplugins:\n  - sitegen:\n      data_dir: data\n"
                                        "      slo: {ttft_p99_ms: 500, tpot_p50_ms: 50}\n")
    a = [run(sitegen(project, fresh(tmp) / "site", "--no-cache"), project) for _ in range(runs)]
    wall = med(x[0] for x in a)
    t.goal("20 reports x 2 sides x 4 load points x 1,000 requests, cold", secs(x[0] for x in a), "", "",
           "under 10 s", wall < 10, f"{med(x[1] for x in a):.2f} s")
    big = project / "big.json"
    big_file(big, 5000)
    argv = [PY, "-m", "site_gen", "import", "vllm-bench", "--candidate", str(big), "-o", str(project / "data" / "big"),
            "--force", "-q", "-f", str(project / "mkdocs.yml")]
    b = [run(argv, project) for _ in range(runs)]
    t.goal(f"import of one vLLM file of 5,000 requests ({big.stat().st_size / 1e6:.0f} MB), whole process",
           secs(x[0] for x in b), "", "", "under 2 s", med(x[0] for x in b) < 2, f"{med(x[1] for x in b):.2f} s")


# -- the preview ---------------------------------------------------------------------------------------

def preview_goals(tmp: Path, reports: int, edits: int, t: Table) -> None:
    out = fresh(tmp) / "preview.json"
    argv = [PY, str(ROOT / "benchmarks" / "preview.py"), "--edits", str(edits), "--no-mkdocs", "--kinds", "receipt",
            "prose", "--json", str(out)] + (["--reports", str(reports)] if reports else [])
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    where = f"{reports:,} reports" if reports else "the example site"
    if done.returncode != 0 or not out.exists():
        t.goal(f"preview on {where}", "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1], "", "",
               "benchmarks/preview.py runs", False)
        return
    got = json.loads(out.read_text())
    for kind, goal in (("receipt", 200 if reports >= 1000 else 100), ("prose", 50)):
        m = got[kind]
        t.goal(f"preview, {where}: a {kind} edit shown (write to DOM)",
               f"{m['median_ms']:.0f} ms (p90 {m['p90_ms']:.0f}, {edits} edits)", "", "", f"median under {goal} ms",
               m["median_ms"] < goal)


PAGE = ROOT / "docs" / "guide" / "performance-results.md"


def page(*, machine: str, when: str, commit: str, start_load: str, end_load: str, seconds: float, summary: str,
         table: str, quick: bool = False) -> str:
    """The guide's results page: the run's machine, date, commit and load, then each goal with its figure."""
    kind = "a quick run (`--quick`: fewer runs, no 1,000-report runs)" if quick else "a full run"
    return (
        "# Performance results\n\n"
        "Written by `benchmarks/peers.py` from " + kind + "; run it again to replace this page. What each goal\n"
        "means and how it is measured: [Performance](performance.md). The figures are of one run on one\n"
        "machine, whose speed moves with its load: read the ratios first.\n\n"
        f"- **Machine**: {machine}\n"
        f"- **Run**: {when}, at commit `{commit}`, {seconds:.0f} s in all\n"
        f"- **Load average at the start**: {start_load}\n"
        f"- **Load average at the end**: {end_load}\n"
        f"- **Goals**: {summary}\n\n"
        "## Each goal\n\n" + table)


def commit() -> str:
    """The checkout's commit, `-dirty` when it has changes."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    return (f"{model}, {os.cpu_count()} cores ({platform.machine()}), {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min)"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 runs of the small comparisons, 1 of 100 reports, "
                   "no 1,000-report runs, 5 preview edits")
    p.add_argument("--runs", type=int, help="pairs per small comparison (default 5, quick 3)")
    p.add_argument("--no-preview", action="store_true", help="leave out the preview goals (headless Chromium)")
    p.add_argument("--page", type=Path, metavar="FILE",
                   help=f"write the results page here (default: a full run writes {PAGE.relative_to(ROOT)}; --quick, none)")
    args = p.parse_args()
    runs = args.runs or (3 if args.quick else 5)
    start_load, when, at = load(), datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), commit()
    head = f"machine: {machine()}\nload average at start: {start_load}"
    print(head, flush=True)
    started = time.perf_counter()
    t = Table()
    with tempfile.TemporaryDirectory(prefix="sitegen-peers-") as tmp:
        tmp = Path(tmp)
        example_goals(tmp, runs, t)
        scale_goals(tmp, 100, 1 if args.quick else 3, t, edit_runs=1 if args.quick else 3)
        if args.quick:
            t.goal("1,000 reports, cold, vs MkDocs on as many pages", "", "", "", "at most 0.5x", None)
            t.goal("1,000 reports, cold: time", "", "", "", "under 30 s", None)
            t.goal("1,000 reports, cold: peak memory", "", "", "", "under 600 MB", None)
            t.goal("1,000 reports, one receipt changed", "", "", "", "under 2 s", None)
        else:
            scale_goals(tmp, 1000, 3, t)
        serving_goals(tmp, 1 if args.quick else 3, t)
        if args.no_preview:
            for what, goal in (("example site: a receipt edit", "under 100 ms"), ("example site: a prose edit", "under 50 ms"),
                               ("1,000 reports: a receipt edit", "under 200 ms")):
                t.goal(f"preview, {what}", "", "", "", goal, None)
        else:
            preview_goals(tmp, 0, 5 if args.quick else 10, t)
            if args.quick:
                t.goal("preview, 1,000 reports: a receipt edit shown", "", "", "", "median under 200 ms", None)
            else:
                preview_goals(tmp, 1000, 10, t)
        shutil.rmtree(tmp, ignore_errors=True)
    end_load, seconds = load(), time.perf_counter() - started
    tail = f"load average at the end: {end_load}; {seconds:.0f} s in all"
    met = sum(r[-1] == "met" for r in t.rows)
    measured = sum(r[-1] != QUICK_SKIP for r in t.rows)
    summary = f"{met} of {measured} goals measured are met" + (
        f"; {len(t.rows) - measured} not measured (--quick)" if measured < len(t.rows) else "")
    print(f"\n{head}\n{tail}\n{summary}\n\n{t.markdown()}", flush=True)
    out = args.page or (None if args.quick else PAGE)
    if out is not None:
        out.write_text(page(machine=machine(), when=when, commit=at, start_load=start_load, end_load=end_load,
                            seconds=seconds, summary=summary, table=t.markdown(), quick=args.quick), encoding="utf-8")
        print(f"Wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
