"""What the sitegen plugin costs MkDocs: `mkdocs build` of a minimal two-page site with and without
the plugin, and with one report (the plugin's fixed cost, against its goal of under 0.7 s); then,
under a warm `mkdocs serve`, the time from a receipt edit to the docs page that embeds its figure
showing the new value.

    python benchmarks/mkdocs_plugin.py            # 5 runs each, medians
    python benchmarks/mkdocs_plugin.py --runs 9 --no-serve

Each build runs in a fresh process (imports and all), as a user's `mkdocs build` does; peak memory is
that process's largest resident set. Each site has a persistent cache of its own (site_gen/building/cache.py),
empty at first: the first build of a site is shown apart (it renders every report page), the
medians are of the builds after it, as a user's every build after their first.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = "cuteafd-v4.0.0"
GOAL = 0.7  # seconds the plugin with one report may add to `mkdocs build` of the two-page site
PAGES = {"index.md": "# Minimal\n\nA home page and [one more](about.md).\n", "about.md": "# About\n\nText.\n"}
FIGURE = "The KV pool on K4 is {{ kv_ratio report=cuteafd-v4.0.0 checkpoint=K4 }}.\n"
# One build in a child process; prints its wall time, the child's peak resident set (KB) and its CPU
# time (user and system: on a busy machine a steadier measure than the wall time).
TIMED = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
         "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
         "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
         "print(time.perf_counter() - t, u.ru_maxrss, u.ru_utime + u.ru_stime)")


def project(folder: Path, *, plugin: bool, reports: int = 0, figure: bool = False) -> Path:
    (folder / "docs").mkdir(parents=True)
    config = "site_name: Minimal\n"
    if plugin:
        config += "plugins:\n  - search\n  - sitegen:\n      data_dir: data\n"
        (folder / "data").mkdir()
        if reports:
            shutil.copytree(ROOT / "data" / REPORT, folder / "data" / REPORT)
    (folder / "mkdocs.yml").write_text(config)
    for name, text in PAGES.items():
        (folder / "docs" / name).write_text(text + (FIGURE if figure and name == "about.md" else ""))
    return folder


BYTECODE = True  # --no-bytecode: keep PYTHONDONTWRITEBYTECODE as the environment has it


def environment(folder: Path) -> dict[str, str]:
    """The environment of a build in `folder`: that site's own sitegen cache, no MkDocs 2 notice;
    and Python writing bytecode, as for an installed package (pip compiles MkDocs' and pandas'
    at install; PYTHONDONTWRITEBYTECODE would have sitegen's modules compiled in every process)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "XDG_CACHE_HOME": str(folder / "cache")}
    env.pop("SITEGEN_NO_CACHE", None)
    if BYTECODE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def build_once(folder: Path) -> tuple[float, float, float]:
    """Wall time (s), peak memory (MB) and CPU time (s) of one `mkdocs build` in a new process."""
    out = subprocess.run([sys.executable, "-c", TIMED, sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"],
                         cwd=folder, capture_output=True, text=True, check=True, env=environment(folder)).stdout.split()
    return float(out[0]), int(out[1]) / 1024, float(out[2])


def build_times(folders: list[Path], runs: int) -> list[tuple[float, float, float, float]]:
    """For each site: its first build's wall time (s), then the median wall time, median peak
    memory (MB) and median CPU time (s) of `runs` builds after it. The sites take turns, so that
    a change in the machine's load falls on each of them alike."""
    samples: list[list[tuple[float, float, float]]] = [[] for _ in folders]
    for _ in range(runs + 1):
        for folder, out in zip(folders, samples):
            out.append(build_once(folder))
    return [(s[0][0], *(statistics.median(x[i] for x in s[1:]) for i in range(3))) for s in samples]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8")
    except OSError:
        return ""


def serve_edit(folder: Path, dirty: bool, edits: int) -> list[float]:
    """Seconds from each receipt edit to the docs page that shows its figure with the new value."""
    port = free_port()
    args = [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"] + (["--dirty"] if dirty else [])
    server = subprocess.Popen(args, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=environment(folder))
    url = f"http://127.0.0.1:{port}/about/"
    try:
        deadline = time.time() + 120
        while "KV pool" not in fetch(url):
            if time.time() > deadline or server.poll() is not None:
                raise RuntimeError("mkdocs serve did not come up")
            time.sleep(0.1)
        receipt = folder / "data" / REPORT / "SUMMARY.json"
        out = []
        for i in range(edits):
            data = json.loads(receipt.read_text())
            pool = {m["engine"]: m for m in data["memory"]["kv_pool"] if m["checkpoint"] == "K4"}
            ratio = 1.5 + 0.1 * (i + 1)
            pool["candidate"]["tokens"] = round(pool["baseline"]["tokens"] * ratio)
            want = f"{ratio:.2f}x"
            time.sleep(1.2)  # a later modification time than the last build's
            start = time.perf_counter()
            receipt.write_text(json.dumps(data, indent=1))
            while want not in re.sub(r"<[^>]+>", "", fetch(url)):
                if time.perf_counter() - start > 60:
                    raise RuntimeError(f"the docs page never showed {want}")
                time.sleep(0.05)
            out.append(time.perf_counter() - start)
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--no-serve", action="store_true", help="only the builds")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE if set (sitegen's modules compiled in every build)")
    args = parser.parse_args(argv)
    global BYTECODE
    BYTECODE = not args.no_bytecode
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        plain, empty, one = build_times([project(tmp / "plain", plugin=False), project(tmp / "plugin", plugin=True),
                                         project(tmp / "one", plugin=True, reports=1)], args.runs)
        compiled = "" if BYTECODE or not os.environ.get("PYTHONDONTWRITEBYTECODE") else ", no bytecode written"
        print(f"mkdocs build, 2 pages, median of {args.runs} after a first build (load average "
              f"{os.getloadavg()[0]:.1f}{compiled}):")
        print("                           wall     CPU      memory  added wall (CPU)")
        for name, (first, wall, mb, cpu) in (("without the plugin", plain), ("with it, no reports", empty),
                                             ("with it, one report", one)):
            added = f"{wall - plain[1]:+.2f} s ({cpu - plain[3]:+.2f} s)" if name != "without the plugin" else "       "
            print(f"  {name:24s} {wall:.2f} s   {cpu:.2f} s   {mb:3.0f} MB   {added}   (first build {first:.2f} s)")
        wall, cpu = one[1] - plain[1], one[3] - plain[3]
        print(f"fixed cost of the plugin with one report: {wall:+.2f} s wall, {cpu:+.2f} s CPU; "
              f"goal under {GOAL} s: {'met' if max(wall, cpu) < GOAL else 'NOT met'}")
        if not args.no_serve:
            for dirty in (False, True):
                folder = project(tmp / f"serve-{dirty}", plugin=True, reports=1, figure=True)
                times = serve_edit(folder, dirty, args.edits)
                print(f"mkdocs serve{' --dirty' if dirty else ''}: receipt edit to updated docs page, median of "
                      f"{len(times)}: {statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
