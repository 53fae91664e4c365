"""Live preview latency: from the write of a file to the moment an open Chromium page shows it.

    .venv/bin/python benchmarks/preview.py [--edits 20] [--no-mkdocs]
    .venv/bin/python benchmarks/preview.py --reports 1000 --kinds receipt prose --no-mkdocs

Serves a temporary copy of the example site with `sitegen serve` (a separate process, as a user
runs it), opens the report's overview in headless Chromium, and times three kinds of edit:

- prose:    the report's lede (markdown) gets a new sentence;
- receipt:  one speed cell of SUMMARY.json turns slower and back, so a count on the page changes;
- template: an override of the overview template gets a new paragraph.

With `--reports N` the site grows to N reports (copies of the example report under their own ids
and dates, as benchmarks/build.py makes them) and the same report is edited: the goal is that a
receipt edit shows in under 300 ms whatever the number of reports.

The clock starts just before the file is written and stops when a MutationObserver in the page
(installed before any page script, so it also survives full reloads) sees the new text in the DOM.
Both clocks are the machine's wall clock. For comparison, the same prose edit is timed on
`mkdocs serve` with a one-page MkDocs project. Prints the median and 90th percentile per kind.
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
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
REPORT = "cuteafd-v4.0.0"
KINDS = ("prose", "receipt", "template")
TIMEOUT = 20.0

# Runs in every document before its own scripts: records when `__want` appears under `__sel`.
WATCH = """(() => {
  const check = () => {
    const want = sessionStorage.getItem("__want");
    if (!want || sessionStorage.getItem("__seenAt")) { return; }
    const root = document.querySelector(sessionStorage.getItem("__sel") || "body");
    if (root && root.textContent.includes(want)) {
      sessionStorage.setItem("__seenAt", String(performance.timeOrigin + performance.now()));
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true});
  document.addEventListener("DOMContentLoaded", check);
})();"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A serve process; its output lines are collected on a thread."""

    def __init__(self, argv: list[str], cwd: Path, ready: re.Pattern | None = None, url: str | None = None):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
        self.proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: list[str] = []
        self.url = url
        self._ready = threading.Event()
        self._pattern = ready
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 300  # a site of a thousand reports takes a minute to build first
        if ready is not None:
            if not self._ready.wait(300):
                self.stop()
                raise SystemExit("server did not start:\n" + "".join(self.lines))
        else:
            while time.monotonic() < deadline:
                try:
                    urllib.request.urlopen(self.url, timeout=2).read()
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                self.stop()
                raise SystemExit("server did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            if self._pattern is not None and not self._ready.is_set():
                m = self._pattern.search(line)
                if m:
                    self.url = m.group(1)
                    self._ready.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def timed_edit(page, write, selector: str, want: str) -> float:
    """Milliseconds from the write to `want` showing under `selector`."""
    page.evaluate("([sel, want]) => { sessionStorage.removeItem('__seenAt'); sessionStorage.setItem('__sel', sel);"
                  " sessionStorage.setItem('__want', want); }", [selector, want])
    start = time.time() * 1000
    write()
    page.wait_for_function("() => sessionStorage.getItem('__seenAt') !== null", timeout=TIMEOUT * 1000, polling=20)
    seen = float(page.evaluate("() => sessionStorage.getItem('__seenAt')"))
    page.evaluate("() => sessionStorage.removeItem('__want')")
    return seen - start


def settle(seconds: float = 0.4) -> None:
    time.sleep(seconds)  # lets the previous rebuild and page update finish before the next edit


def stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p90 = ordered[max(0, int(round(0.9 * len(ordered) + 0.5)) - 1)]  # nearest rank
    return statistics.median(ordered), p90


def sitegen_project(tmp: Path, reports: int = 0) -> Path:
    project = tmp / "sitegen"
    project.mkdir()
    shutil.copytree(ROOT / "data", project / "data", ignore=shutil.ignore_patterns("*.py"))
    existing = len([d for d in (project / "data").iterdir() if (d / "SUMMARY.json").is_file()])
    receipt = json.loads((ROOT / "data" / REPORT / "SUMMARY.json").read_text(encoding="utf-8"))
    for i in range(max(0, reports - existing)):
        target = project / "data" / f"report-{i:04d}"
        target.mkdir()
        receipt["report"]["date"] = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}"  # older than the edited report
        receipt["report"]["title"] = f"Example report {i}"
        (target / "SUMMARY.json").write_text(json.dumps(receipt), encoding="utf-8")
        shutil.copy(ROOT / "data" / REPORT / "lede.md", target / "lede.md")
    if (ROOT / "docs").is_dir():
        shutil.copytree(ROOT / "docs", project / "docs")
    (project / "overrides").mkdir()
    shutil.copy(ROOT / "site_gen" / "templates" / "overview.html", project / "overrides" / "overview.html")
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("data_dir: data", "data_dir: data\n      custom_dir: overrides", 1)
    assert "custom_dir: overrides" in text, "mkdocs.yml has no `data_dir: data` to put custom_dir beside"
    (project / "mkdocs.yml").write_text(text, encoding="utf-8")
    return project


def bench_sitegen(browser, tmp: Path, edits: int, reports: int = 0,
                  kinds: tuple[str, ...] = KINDS) -> tuple[dict[str, list[float]], list[float]]:
    project = sitegen_project(tmp, reports)
    server = Server([sys.executable, "-m", "site_gen", "serve", "-a", "127.0.0.1:0"], project,
                    ready=re.compile(r"Serving on (http://\S+)"))
    results: dict[str, list[float]] = {kind: [] for kind in kinds}
    try:
        page = browser.new_page()
        page.add_init_script(WATCH)
        page.goto(server.url + f"reports/{REPORT}/", wait_until="load")
        settle(1.0)

        lede = project / "data" / REPORT / "lede.md"
        prose = lede.read_text(encoding="utf-8")
        for i in range(edits + 2 if "prose" in kinds else 0):
            token = f"Prose edit number {i} landed."
            ms = timed_edit(page, lambda token=token: lede.write_text(prose.rstrip() + " " + token + "\n", encoding="utf-8"), "main", token)
            if i >= 2:  # the first two warm the caches up
                results["prose"].append(ms)
            settle()

        receipt = project / "data" / REPORT / "SUMMARY.json"
        original = receipt.read_bytes()
        data = json.loads(original)
        cell = data["speed"]["cells"][0]
        cell["candidate"]["rate"] = round(cell["baseline"]["rate"] * 0.5, 3)
        slower = json.dumps(data, indent=1).encode("utf-8")
        row = f"#speed-summary-{cell['metric']}"
        texts = {original: page.locator(row).text_content()}
        receipt.write_bytes(slower)
        page.wait_for_function("([sel, old]) => document.querySelector(sel).textContent !== old",
                               arg=[row, texts[original]], timeout=TIMEOUT * 1000)
        texts[slower] = page.locator(row).text_content()
        settle()
        for i in range(edits + 2 if "receipt" in kinds else 0):
            target = original if i % 2 == 0 else slower
            ms = timed_edit(page, lambda target=target: receipt.write_bytes(target), row, texts[target])
            if i >= 2:
                results["receipt"].append(ms)
            settle()

        template = project / "overrides" / "overview.html"
        source = template.read_text(encoding="utf-8")
        for i in range(edits + 2 if "template" in kinds else 0):
            token = f"Template edit number {i} landed."
            edited = source.replace("{% block content %}", "{% block content %}<p class=\"bench\">" + token + "</p>", 1)
            ms = timed_edit(page, lambda edited=edited: template.write_text(edited, encoding="utf-8"), "main", token)
            if i >= 2:
                results["template"].append(ms)
            settle()
        page.close()
    finally:
        server.stop()
    builds = [float(m.group(1)) * 1000 for line in server.lines if (m := re.search(r"^Rebuilt .* in (\d+\.\d+) s$", line))]
    return results, builds


def bench_mkdocs(browser, tmp: Path, edits: int) -> list[float] | None:
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        return None
    project = tmp / "mkdocs"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text("site_name: Benchmark\nnav:\n  - index.md\n", encoding="utf-8")
    index = project / "docs" / "index.md"
    prose = "# Report\n\n" + "\n\n".join(f"Paragraph {i}: some prose about the measurements." for i in range(20)) + "\n"
    index.write_text(prose, encoding="utf-8")
    port = free_port()
    server = Server([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}", "--livereload"], project,
                    url=f"http://127.0.0.1:{port}/")
    out = []
    try:
        page = browser.new_page()
        page.add_init_script(WATCH)
        page.goto(server.url, wait_until="load")
        settle(1.0)
        for i in range(edits + 2):
            token = f"Prose edit number {i} landed."
            ms = timed_edit(page, lambda token=token: index.write_text(prose + "\n" + token + "\n", encoding="utf-8"), "body", token)
            if i >= 2:
                out.append(ms)
            settle(0.6)
        page.close()
    finally:
        server.stop()
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--edits", type=int, default=20, help="timed edits per kind (default 20)")
    p.add_argument("--no-mkdocs", action="store_true", help="skip the `mkdocs serve` comparison")
    p.add_argument("--reports", type=int, default=0, help="grow the site to this many reports (default: the example's)")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="which edits to time")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write each kind's median and p90 (ms) here (benchmarks/peers.py reads it)")
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="sitegen-preview-bench-") as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            results, builds = bench_sitegen(browser, Path(tmp), args.edits, args.reports, tuple(args.kinds))
            mk = None if args.no_mkdocs else bench_mkdocs(browser, Path(tmp), args.edits)
        finally:
            browser.close()
    size = f"{args.reports} reports" if args.reports else "the example site"
    print(f"Write to new content in the DOM of an open Chromium page, {size}, {args.edits} edits each "
          f"({os.cpu_count()} CPUs, Python {sys.version.split()[0]}):")
    print(f"{'':28}{'median':>10}{'p90':>10}")
    for kind, values in results.items():
        med, p90 = stats(values)
        print(f"{'sitegen serve, ' + kind:28}{med:>8.0f} ms{p90:>7.0f} ms")
    if mk:
        med, p90 = stats(mk)
        print(f"{'mkdocs serve, prose':28}{med:>8.0f} ms{p90:>7.0f} ms")
    if builds:
        med, p90 = stats(builds)
        print(f"(sitegen's own rebuild times, all kinds: median {med:.0f} ms, p90 {p90:.0f} ms; "
              "the rest is the settle window (10 ms after a close, 50 ms otherwise), the fetch and the patch)")
    if args.json:
        args.json.write_text(json.dumps({kind: dict(zip(("median_ms", "p90_ms"), stats(v))) for kind, v in results.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
