"""`sitegen serve`: path handling, debouncing, incremental rebuilds, the server, and a live browser page."""
from __future__ import annotations

import gc
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, as_from_a_terminal, run_sitegen
from site_gen.building.builder import Builder, build_files
from site_gen.core.config import load_config
from site_gen.core.errors import SitegenError
from site_gen.preview.serve import Preview, describe
from site_gen.preview.server import inject, is_loopback, parse_addr, site_path
from site_gen.preview.watch import Debouncer, ignored

REPORT = "cuteafd-v4.0.0"
WAIT = 30.0  # generous: a loaded 2-core machine may be slow, but never this slow


# -- helpers ---------------------------------------------------------------------------------------


@pytest.fixture
def project(small_project):
    """What the preview follows and serves does not depend on the number of reports: two of the
    example's (conftest.FEW_REPORTS), whose builds take a fifth of the example's."""
    return small_project


@contextmanager
def serving(project: Path, **kwargs):
    lines: list[str] = []
    errors: list[str] = []
    preview = Preview(project / "mkdocs.yml", dev_addr="127.0.0.1:0", out=lines.append, err=errors.append, **kwargs)
    preview.lines, preview.errors = lines, errors  # type: ignore[attr-defined]
    preview.start()
    try:
        yield preview
    finally:
        preview.stop()


def get(preview: Preview, raw_path: str) -> tuple[int, bytes, dict]:
    """A request with the path sent byte for byte as given (http.client does not normalise it)."""
    host, port = preview.httpd.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=WAIT)
    try:
        conn.putrequest("GET", raw_path, skip_accept_encoding=True)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read(), dict(resp.getheaders())
    finally:
        conn.close()


def edit_and_wait(preview: Preview, write, until=None) -> None:
    """Makes an edit and waits for the rebuild it causes, and until `until()` holds when given."""
    version = preview.version
    write()
    assert preview.wait_version(version, WAIT), "no rebuild after the edit"
    deadline = time.monotonic() + WAIT
    while until is not None and not until() and time.monotonic() < deadline:
        preview.wait_version(preview.version, 0.5)
    assert until is None or until(), "the rebuilds after the edit did not give the expected state"


def summary(project: Path, report: str = REPORT) -> Path:
    return project / "data" / report / "SUMMARY.json"


def slower_cell(project: Path) -> tuple[bytes, bytes, str, str]:
    """The receipt as it is, and with its first speed cell's candidate at half the baseline (slower)."""
    raw = summary(project).read_bytes()
    data = json.loads(raw)
    cell = data["speed"]["cells"][0]
    cell["candidate"]["rate"] = round(cell["baseline"]["rate"] * 0.5, 3)
    return raw, json.dumps(data, indent=1).encode(), cell["checkpoint"], cell["metric"]


# -- paths -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [
    "/../../etc/passwd", "/..", "/../", "/reports/../../etc/passwd", "/reports/../index.html",
    "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E/%2E%2E/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/..%2F..%2Fetc/passwd",
    "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/.%2e/etc/passwd", "/..%5c..%5cetc%5cpasswd", "/..\\..\\etc\\passwd",
    "/./index.html", "//etc/passwd", "/reports//index.html", "/etc/passwd%00.html", "/%c0%ae%c0%ae/etc/passwd",
    "etc/passwd", "",
])
def test_site_path_refuses_traversal(raw):
    assert site_path(raw) is None


def test_site_path_maps_folders_to_index_and_decodes_once():
    assert site_path("/") == "index.html"
    assert site_path("/reports/x/") == "reports/x/index.html"
    assert site_path("/reports/x/speed.html?tab=1#top") == "reports/x/speed.html"
    assert site_path("/a%20b.html") == "a b.html"
    # %252e decodes once to the literal text "%2e", never on to "."
    assert site_path("/%252e%252e/etc/passwd") == "%2e%2e/etc/passwd"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "%2e%2e", "%2E.", "%252e%252e", "etc", "passwd", "", "%2f", "%5c",
                                 "\\", "index.html", "reports", "%00", "a b"]), max_size=8))
def test_site_path_never_climbs(segments):
    key = site_path("/" + "/".join(segments))
    if key is not None:
        assert not key.startswith("/")
        assert ".." not in key.split("/") and "." not in key.split("/")
        assert "\\" not in key and "\x00" not in key


@pytest.mark.slow
def test_http_traversal_gets_404_and_nothing_outside_the_site(project):
    (project / "secret.txt").write_text("TOP SECRET")
    with serving(project) as preview:
        status, body, _ = get(preview, "/")
        assert status == 200 and b"data-sitegen-preview" in body
        attempts = ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E/%2E%2E/etc/passwd",
                    "/..%2f..%2fetc%2fpasswd", "/%252e%252e/%252e%252e/etc/passwd", "/..%5c..%5cetc%5cpasswd",
                    "/reports/../../etc/passwd", "/../secret.txt", "/secret.txt", "/%2e%2e/secret.txt",
                    "/mkdocs.yml", "/../mkdocs.yml", "/data/cuteafd-v4.0.0/SUMMARY.json",
                    "/reports/cuteafd-v4.0.0/../../../secret.txt", "/etc/passwd%00.html"]
        for raw in attempts:
            status, body, _ = get(preview, raw)
            assert status == 404, (raw, status)
            assert b"root:" not in body and b"TOP SECRET" not in body and b"site_name" not in body
        # Every file the server answers with 200 is one of the build's files, byte for byte.
        status, body, headers = get(preview, f"/reports/{REPORT}/SUMMARY.json")
        assert status == 200 and body == preview.files[f"reports/{REPORT}/SUMMARY.json"]
        assert headers["Content-Type"] == "application/json"
        status, _, headers = get(preview, f"/reports/{REPORT}")
        assert status == 301 and headers["Location"] == f"/reports/{REPORT}/"


def test_parse_addr_and_loopback():
    assert parse_addr("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert parse_addr("[::1]:0") == ("::1", 0)
    assert parse_addr("localhost:8080") == ("localhost", 8080)
    for bad in ("8000", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"):
        with pytest.raises(SitegenError):
            parse_addr(bad)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


@pytest.mark.slow
def test_script_is_injected_only_by_the_preview(example_site):
    for html in example_site.rglob("*.html"):
        assert b"data-sitegen-preview" not in html.read_bytes() and b"__sitegen__" not in html.read_bytes()
    page = b"<html><body><p>x</p></body></html>"
    out = inject(page, "console.log('</script>')", 3, "abc")
    assert out.startswith(b"<html><body><p>x</p><script data-sitegen-preview") and out.endswith(b"</body></html>")
    assert b"<\\/script>" in out and out.count(b"</script>") == 1


# -- debounce and ignored files ----------------------------------------------------------------


def test_ignored_files():
    for name in ("data/r/.SUMMARY.json.swp", "data/r/SUMMARY.json~", "data/r/.#SUMMARY.json", "data/r/4913",
                 "docs/.index.md.kate-swp", "data/r/SUMMARY.json.tmp", "templates/x.html___jb_tmp___",
                 "data/.git/index", "static/__pycache__/x.pyc", "data/r/sedj3Mt8Z", "docs/sedAB12cd"):
        assert ignored(name), name
    for name in ("data/r/SUMMARY.json", "data/r/lede.md", "templates/base.html", "static/sitegen.css", "mkdocs.yml",
                 "docs/sedimentary.md", "data/sediment"):
        assert not ignored(name), name


def test_debounce_coalesces_a_burst_into_one_rebuild():
    batches: list[list[str]] = []
    done = threading.Event()

    def callback(paths):
        batches.append(paths)
        done.set()

    d = Debouncer(callback, quiet=0.3).start()
    try:
        # One save by an editor: temp file, write, rename over the target, swap file: a burst.
        d.add(["data/r/SUMMARY.json.tmp"])
        d.add(["data/r/SUMMARY.json"])
        d.add(["data/r/SUMMARY.json", "data/r/lede.md"])
        assert done.wait(WAIT)
        time.sleep(0.6)  # a second batch, if there were one, would have come by now
    finally:
        d.stop()
    assert batches == [["data/r/SUMMARY.json.tmp", "data/r/SUMMARY.json", "data/r/lede.md"]]


def test_debounce_runs_one_rebuild_at_a_time_and_keeps_events_that_arrive_during_one():
    running = threading.Lock()
    overlapped = []
    batches: list[list[str]] = []
    started, release, second = threading.Event(), threading.Event(), threading.Event()

    def callback(paths):
        if not running.acquire(blocking=False):
            overlapped.append(paths)
            return
        try:
            batches.append(paths)
            if len(batches) == 1:
                started.set()
                release.wait(WAIT)
            else:
                second.set()
        finally:
            running.release()

    d = Debouncer(callback, quiet=0.01).start()
    try:
        d.add(["a"])
        assert started.wait(WAIT)
        d.add(["b"])
        d.add(["c"])
        release.set()
        assert second.wait(WAIT)
    finally:
        d.stop()
    assert not overlapped
    assert batches == [["a"], ["b", "c"]]


def test_debounce_waits_for_a_file_being_written_to_be_closed():
    batches: list[list[str]] = []
    got = threading.Event()

    def callback(paths):
        batches.append(paths)
        got.set()

    d = Debouncer(callback, quiet=0.02, max_wait=WAIT).start()
    try:
        d.add(["a"], "closed")  # the platform reports closes
        assert got.wait(WAIT)
        got.clear()
        d.add(["r/SUMMARY.json"], "modified")  # truncated, not yet written and closed
        time.sleep(0.3)
        assert batches == [["a"]]  # held back: no build of half a file
        d.add(["r/SUMMARY.json"], "closed")
        assert got.wait(WAIT)
    finally:
        d.stop()
    assert batches == [["a"], ["r/SUMMARY.json"]]


def test_debounce_starts_sooner_once_every_changed_file_was_closed(monkeypatch):
    """When a rebuild is due, read on a clock the test holds still: `settle` after the last event once
    every changed file was closed, the whole `quiet` after a file only created, `max_wait` after the
    first event while a file is still being written."""
    from site_gen.preview import watch

    clock = [1000.0]
    monkeypatch.setattr(watch, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    quiet, max_wait, settle = 1.0, 5.0, 0.01

    def debouncer() -> Debouncer:  # not started: no rebuild runs, the pending paths stay
        d = Debouncer(lambda paths: None, quiet=quiet, max_wait=max_wait, settle=settle)
        d.add(["a"], "closed")  # the platform reports closes: learnt from the first close event
        return d

    d = debouncer()
    clock[0] = 1000.25
    d.add(["r/SUMMARY.json"], "modified")  # being written: held back
    assert d.due() == 1000.0 + max_wait
    clock[0] = 1000.5
    d.add(["r/SUMMARY.json"], "closed")  # written and closed: its writer is done
    assert d.due() == 1000.5 + settle
    clock[0] = 2000.0
    d = debouncer()
    clock[0] = 2000.25
    d.add(["r/lede.md"], "created")  # created, maybe not yet written: the whole quiet window
    assert d.due() == 2000.25 + quiet


def test_debouncer_stop_joins_its_thread():
    d = Debouncer(lambda paths: None).start()
    d.stop()
    assert not d._thread.is_alive()


# -- incremental builds ----------------------------------------------------------------------------


# What a lede or receipt edit redoes, against a fresh build: tests/test_dependencies.py
# (test_incremental_equals_fresh_after_each_kind_of_edit).


@pytest.mark.slow
def test_builder_template_edit_rerenders_only_pages_using_it(project):
    custom = project / "overrides"
    custom.mkdir()
    text = (project / "mkdocs.yml").read_text()
    (project / "mkdocs.yml").write_text(text.replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    config = load_config(project / "mkdocs.yml")
    b = Builder(config)
    before = b.build()
    (custom / "speed.html").write_text((ROOT / "site_gen" / "sections" / "speed" / "templates" / "speed.html").read_text().replace(
        "{% block content %}", "{% block content %}<p id=\"override-mark\">overridden</p>", 1))
    b.changed([custom / "speed.html"])
    after = b.build()
    assert b.stats.get("contexts", 0) == 0 and b.stats.get("loaded", 0) == 0  # nothing but rendering redone
    report_pages = [k for k in before.files if k.startswith("reports/") and k.endswith(".html")]
    speed_pages = [k for k in report_pages if k.endswith("/speed.html")]
    assert len(speed_pages) < len(report_pages)
    site_pages = [k for k in before.files if k.endswith(".html") and not k.startswith("reports/")]
    assert b.stats["rendered"] <= len(speed_pages) + len(site_pages)  # no other report page re-rendered
    assert after.files == build_files(config).files
    changed = [k for k in after.files if after.files[k] != before.files[k]]
    assert changed and all(k.endswith("/speed.html") for k in changed)
    assert b'id="override-mark"' in after.files[f"reports/{REPORT}/speed.html"]


@pytest.mark.slow
def test_builder_follows_created_renamed_and_deleted_reports(project):
    config = load_config(project / "mkdocs.yml")
    b = Builder(config)
    b.build()
    shutil.copytree(project / "data" / REPORT, project / "data" / "copy-v1")
    assert b.build().files == build_files(config).files
    os.rename(project / "data" / "copy-v1", project / "data" / "renamed-v1")
    result = b.build()
    assert result.files == build_files(config).files
    assert "reports/renamed-v1/index.html" in result.files and not any("copy-v1" in k for k in result.files)
    shutil.rmtree(project / "data" / "renamed-v1")
    result = b.build()
    assert not any("renamed-v1" in k for k in result.files) and result.files == build_files(config).files


# -- the preview, in this process ------------------------------------------------------------------


@pytest.mark.slow
def test_preview_rebuilds_keeps_last_good_pages_on_error_and_recovers(project):
    raw, slower, _, _ = slower_cell(project)
    with serving(project) as preview:
        good = dict(preview.files)
        key = f"reports/{REPORT}/SUMMARY.json"
        edit_and_wait(preview, lambda: summary(project).write_bytes(slower),
                      until=lambda: preview.files.get(key) == slower and preview.error is None)
        assert preview.error is None
        assert preview.files[f"reports/{REPORT}/SUMMARY.json"] == slower
        edited = dict(preview.files)
        assert edited != good
        assert re.search(rf"^Rebuilt .*reports/{REPORT}.* \(data/{REPORT}/SUMMARY\.json changed\) in \d+\.\d\d s$",
                         preview.lines[-1]), preview.lines

        edit_and_wait(preview, lambda: summary(project).write_bytes(slower[:-40]), until=lambda: preview.error)
        assert preview.error and f"data/{REPORT}/SUMMARY.json" in preview.error and "invalid JSON" in preview.error
        assert preview.files == edited  # the last good pages stay
        status, body, _ = get(preview, f"/reports/{REPORT}/")
        assert status == 200 and body.startswith(edited[f"reports/{REPORT}/index.html"][:200])
        assert preview.errors[-1] == preview.error

        edit_and_wait(preview, lambda: summary(project).write_bytes(raw), until=lambda: preview.files == good)
        assert preview.error is None and preview.files == good


@pytest.mark.slow
def test_preview_error_message_is_the_one_build_prints(project, monkeypatch):
    monkeypatch.chdir(project)  # paths in messages are shown relative to where the command runs
    summary(project).write_text('{"schema_version": 1, "report": 3}')
    cli = run_sitegen("build", "-q", "-d", str(project / "out"), cwd=project)
    assert cli.returncode == 1
    with serving(project) as preview:
        assert preview.files == {} and preview.error
        assert cli.stderr.strip() == f"Error: {preview.error}"
        status, body, _ = get(preview, "/")
        assert status == 503 and b"data-sitegen-placeholder" in body


@pytest.mark.slow
def test_preview_follows_new_renamed_and_deleted_reports_and_config(project):
    with serving(project) as preview:
        edit_and_wait(preview, lambda: shutil.copytree(project / "data" / REPORT, project / "data" / "extra-v1"))
        deadline = time.monotonic() + WAIT
        while "reports/extra-v1/index.html" not in preview.files and time.monotonic() < deadline:
            preview.wait_version(preview.version, 1.0)
        assert "reports/extra-v1/index.html" in preview.files
        edit_and_wait(preview, lambda: os.rename(project / "data" / "extra-v1", project / "data" / "moved-v1"))
        deadline = time.monotonic() + WAIT
        while "reports/moved-v1/index.html" not in preview.files and time.monotonic() < deadline:
            preview.wait_version(preview.version, 1.0)
        assert "reports/moved-v1/index.html" in preview.files and "reports/extra-v1/index.html" not in preview.files
        edit_and_wait(preview, lambda: shutil.rmtree(project / "data" / "moved-v1"))
        deadline = time.monotonic() + WAIT
        while any("moved-v1" in k for k in preview.files) and time.monotonic() < deadline:
            preview.wait_version(preview.version, 1.0)
        assert not any("moved-v1" in k for k in preview.files)

        page = project / "docs" / "made-while-serving.md"
        page.parent.mkdir(exist_ok=True)
        edit_and_wait(preview, lambda: page.write_text("# Made while serving\n\nNew prose.\n", encoding="utf-8"),
                      until=lambda: b"New prose." in preview.files.get("made-while-serving.html", b""))
        edit_and_wait(preview, lambda: page.write_text("# Made while serving\n\nEdited prose.\n", encoding="utf-8"),
                      until=lambda: b"Edited prose." in preview.files.get("made-while-serving.html", b""))
        edit_and_wait(preview, page.unlink, until=lambda: "made-while-serving.html" not in preview.files)

        config = project / "mkdocs.yml"
        edit_and_wait(preview, lambda: config.write_text(config.read_text().replace(
            "site_name: Inference engine benchmarks", "site_name: Renamed while serving")),
            until=lambda: b"Renamed while serving" in preview.files.get("index.html", b""))
        assert b"Renamed while serving" in preview.files["index.html"]


@pytest.mark.slow
def test_stop_leaves_no_thread_behind(project):
    before = set(threading.enumerate())
    with serving(project) as preview:
        host, port = preview.httpd.server_address[:2]
        events = http.client.HTTPConnection(host, port, timeout=WAIT)
        events.request("GET", "/__sitegen__/events")
        resp = events.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
        assert b"event: build" in resp.fp.readline() + resp.fp.readline() + resp.fp.readline()
    events.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, left


@pytest.mark.slow
def test_reading_the_inputs_wakes_no_watcher_only_writing_them_does(project, monkeypatch):
    """The rebuild opens and reads receipts, pages and templates: inotify is asked for the events
    the preview acts on only, so those reads come back as no event at all (each would wake the
    watcher's threads during the rebuild), while a write still starts one."""
    from site_gen.preview import watch
    seen: list[tuple[str, str]] = []
    forward = watch.Forward.dispatch
    monkeypatch.setattr(watch.Forward, "dispatch", lambda self, e: (seen.append((e.event_type, os.fsdecode(e.src_path))), forward(self, e)))
    with serving(project) as preview:
        for path in (summary(project), project / "docs" / "index.md", project / "mkdocs.yml"):
            if path.is_file():
                path.read_bytes()
        raw, slower, _, _ = slower_cell(project)
        edit_and_wait(preview, lambda: summary(project).write_bytes(slower))
    kinds = {kind for kind, _ in seen}
    assert not kinds & {"opened", "closed_no_write"}, seen
    assert ("closed", str(summary(project))) in seen or ("modified", str(summary(project))) in seen, seen


def test_describe():
    files = {"index.html": b"", "reports/a/index.html": b"", "reports/a/speed.html": b"", "reports/b/index.html": b""}
    assert describe(["reports/a/index.html", "reports/a/speed.html"], [], files) == "reports/a"
    assert describe(["reports/a/index.html"], [], files) == "reports/a/index.html"
    assert describe(list(files), [], files) == "all 4 pages"
    assert describe([], [], files) == "nothing (no page changed)"
    # The report first, then the pages that show its figures (a guide of many pages among them).
    docs = [f"guide/{n}.html" for n in "abcde"]
    assert describe([*docs, "index.html", "reports/a/index.html", "reports/a/speed.html"], [], files) \
        == "reports/a, guide/a.html, guide/b.html, 4 more"


# -- the command, as a user runs it ------------------------------------------------------------


@pytest.mark.slow
def test_serve_command_prints_one_line_per_rebuild_and_stops_cleanly_on_ctrl_c(project):
    proc = subprocess.Popen([sys.executable, "-m", "site_gen", "serve", "-a", "127.0.0.1:0"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=as_from_a_terminal)
    try:
        lines = []
        while not any(line.startswith("Serving on ") for line in lines):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
        assert re.match(r"Built \d+ pages from \d+ reports? in \d+\.\d\d s", lines[0])
        url = lines[-1].split()[2]
        assert url.startswith("http://127.0.0.1:")
        _, slower, _, _ = slower_cell(project)
        summary(project).write_bytes(slower)
        line = proc.stdout.readline()
        assert re.match(rf"Rebuilt .* \(data/{REPORT}/SUMMARY\.json changed\) in \d+\.\d\d s$", line), line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out.strip().endswith("Stopped.") and "Traceback" not in err


# -- in the browser ----------------------------------------------------------------------------

SLOWER_JS = """([cp, metric]) => {
  const t = document.querySelector('#speed-summary table');
  const heads = [...t.querySelectorAll('thead th')].map(th => th.textContent.trim());
  const cell = t.querySelector('#speed-summary-' + metric).children[heads.indexOf(cp)];
  return Number(/(\\d+) slower/.exec(cell.textContent)[1]);
}"""


@pytest.mark.slow
def test_browser_follows_receipt_edits_and_shows_and_clears_the_error_overlay(project, page):
    raw, slower, cp, metric = slower_cell(project)
    bad: list[str] = []
    page.on("response", lambda r: bad.append(r.url) if r.status >= 400 else None)
    with serving(project) as preview:
        page.goto(preview.url + f"reports/{REPORT}/", wait_until="load")
        before = page.evaluate(SLOWER_JS, [cp, metric])
        page.evaluate("() => { window.__notReloaded = true; window.scrollTo(0, document.body.scrollHeight); }")
        scroll = page.evaluate("() => window.scrollY")
        assert scroll > 0

        summary(project).write_bytes(slower)
        page.wait_for_function(f"([cp, metric]) => ({SLOWER_JS})([cp, metric]) === {before + 1}", arg=[cp, metric],
                               timeout=WAIT * 1000)
        assert page.evaluate("() => window.__notReloaded") is True  # patched in place, not reloaded
        assert page.evaluate("() => window.scrollY") == scroll

        summary(project).write_bytes(slower[:-40])  # broken JSON
        overlay = page.locator("#sitegen-preview-overlay")
        overlay.wait_for(state="visible", timeout=WAIT * 1000)
        text = overlay.inner_text()
        assert f"data/{REPORT}/SUMMARY.json" in text and "invalid JSON" in text
        assert page.evaluate(SLOWER_JS, [cp, metric]) == before + 1  # the last good page stays

        summary(project).write_bytes(raw)  # fixed
        overlay.wait_for(state="detached", timeout=WAIT * 1000)
        page.wait_for_function(f"([cp, metric]) => ({SLOWER_JS})([cp, metric]) === {before}", arg=[cp, metric],
                               timeout=WAIT * 1000)
        assert page.evaluate("() => window.__notReloaded") is True
    assert not [e for e in page.errors if "status of 404" not in e], page.errors
    assert not [r for r in bad if not r.endswith("/favicon.ico")], bad  # every 404 above was the favicon


@pytest.mark.slow
def test_browser_keeps_a_charts_zoom_when_another_chart_changes(project, page):
    data = json.loads(summary(project).read_text())
    cells = data["speed"]["cells"]
    checkpoints = list(dict.fromkeys(c["checkpoint"] for c in cells))
    assert len(checkpoints) >= 2
    other = next(c for c in cells if c["checkpoint"] == checkpoints[1])
    other["candidate"]["rate"] = round(other["baseline"]["rate"] * 0.5, 3)
    with serving(project) as preview:
        page.goto(preview.url + f"reports/{REPORT}/speed.html", wait_until="load")
        page.wait_for_function("() => document.querySelectorAll('[data-figure].ready').length >= 2", timeout=WAIT * 1000)
        page.evaluate("""() => {
          const charts = document.querySelectorAll('[data-figure]');
          window.__first = charts[0]; window.__second = charts[1];
          window.__patched = 0; document.addEventListener('sitegen:patched', () => window.__patched++);
          charts[0].scrollIntoView();
        }""")
        unzoomed = page.evaluate("() => window.__first.innerHTML")
        box = page.locator("[data-figure]").first.locator("svg").first.bounding_box()
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + box["width"] * 0.45, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.6, y, steps=5)
        page.mouse.move(box["x"] + box["width"] * 0.75, y, steps=5)
        page.mouse.up()
        zoomed = page.evaluate("() => window.__first.innerHTML")
        assert zoomed != unzoomed  # the drag zoomed the first chart
        second = page.evaluate("() => window.__second.dataset.spec")

        summary(project).write_text(json.dumps(data, indent=1))  # changes a cell of the second chart only
        page.wait_for_function("() => window.__patched > 0", timeout=WAIT * 1000)
        page.wait_for_function("(spec) => window.__second.dataset.spec !== spec",
                               arg=second, timeout=WAIT * 1000)
        kept = page.evaluate("""() => {
          const charts = document.querySelectorAll('[data-figure]');
          return {same: charts[0] === window.__first && charts[1] === window.__second,
                  first: charts[0].innerHTML, secondReady: charts[1].classList.contains('ready')};
        }""")
        assert kept["same"] and kept["secondReady"]
        assert kept["first"] == zoomed  # the first chart, zoom and all, was not touched


@pytest.mark.slow
def test_preview_edits_do_not_pin_their_garbage(project):
    """The whole site is frozen out of the collector's full passes once built; an edit's objects
    are not, so what an edit replaces is collected (freezing after every edit kept ~1 MB an edit)."""
    preview = Preview(project / "mkdocs.yml", dev_addr="127.0.0.1:0", out=lambda m: None, err=lambda m: None)
    try:
        preview.rebuild(None)
        frozen = gc.get_freeze_count()
        assert frozen > 0
        original, slower, _, _ = slower_cell(project)
        for i in range(6):
            summary(project).write_bytes(slower if i % 2 == 0 else original)
            preview.rebuild([str(summary(project))])
            assert preview.error is None
        assert gc.get_freeze_count() <= frozen  # frozen objects an edit replaced are freed; none are added
    finally:
        gc.unfreeze()
