"""The preview recovers, keeps answering and serves only its own names (issue 26, finding 8):

- a receipt made readable again by `chmod` is built again without being rewritten (the watcher
  hears of a change of a file's mode, not only of its bytes);
- connections are bounded and idle ones time out: 1,100 connections that send nothing do not stop
  the server answering, even under the usual limit of 1,024 open files;
- a request in absolute form (`GET http://other-host/ HTTP/1.1`) is answered only when the host it
  names is one the server answers to;
- `--cache-dir` inside an input folder or the site (where a build would publish it) is refused.
"""
from __future__ import annotations

import http.client
import os
import resource
import socket
import stat
import subprocess
import sys

import pytest

from conftest import ROOT, one_error_line, sitegen_here
from site_gen.receipts import parse
from site_gen.core.errors import SitegenError
from test_serve import REPORT, WAIT, serving, summary
from test_serve_safety import project, wait_for  # noqa: F401 (the fixture)


# -- a receipt fixed by chmod ------------------------------------------------------------------------

def permissions_bite(monkeypatch) -> None:
    """Reading as a user who is not root: a file without read permission cannot be read (the tests
    run as root, where permissions do not bite, so the refusal is simulated where receipts are read)."""
    real = parse.read_limited

    def read(file, *args, **kwargs):
        if os.path.exists(file) and not os.stat(file).st_mode & 0o444:
            raise SitegenError("cannot read: Permission denied", file)
        return real(file, *args, **kwargs)

    monkeypatch.setattr(parse, "read_limited", read)


def test_a_receipt_made_unreadable_then_readable_by_chmod_is_followed(project, monkeypatch):  # noqa: F811 (the fixture)
    permissions_bite(monkeypatch)
    receipt = summary(project)
    page = f"reports/{REPORT}/index.html"
    with serving(project) as preview:
        assert preview.error is None and page in preview.files
        version = preview.version
        os.chmod(receipt, 0)
        assert wait_for(lambda: preview.error is not None, preview=preview), "chmod 000 went unnoticed"
        assert "Permission denied" in preview.error and preview.version > version
        os.chmod(receipt, 0o644)  # the fix: the bytes are as they were, only the mode changed
        assert wait_for(lambda: preview.error is None, preview=preview), "the error stayed after chmod 644"
        assert page in preview.files


def test_a_receipt_unreadable_when_the_preview_starts_recovers_by_chmod(project, monkeypatch):  # noqa: F811 (the fixture)
    permissions_bite(monkeypatch)
    receipt = summary(project)
    os.chmod(receipt, 0)
    with serving(project) as preview:
        assert preview.error and "Permission denied" in preview.error
        os.chmod(receipt, stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
        assert wait_for(lambda: preview.error is None, preview=preview), "the overlay stayed after chmod 644"
        status = _get(preview.httpd.server_address[1], f"/reports/{REPORT}/")[0]
        assert status == 200


# -- connections -------------------------------------------------------------------------------------

SERVE_A_DICT = """
import sys, threading
from site_gen.preview.server import Client, Server, Snapshot

class Files:
    def __init__(self):
        self.cond = threading.Condition()
    def snapshot(self):
        return Snapshot({"index.html": b"<html><body>home</body></html>"}, 1)
    def wait_for_change(self, after, timeout):
        with self.cond:
            self.cond.wait(timeout)
        return self.snapshot()

if len(sys.argv) > 1:  # a listen backlog that holds a burst of this many connections
    Server.request_queue_size = int(sys.argv[1])
server = Server("127.0.0.1", 0, Files(), Client("", "")).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
"""


def _closed_by_the_server(s: socket.socket) -> bool:
    """Whether the server closed this connection (read without waiting: end of stream, or a reset)."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def _get(port: int, path: str, target: str | None = None, host: str | None = None, timeout: float = WAIT):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest("GET", target or path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host or f"127.0.0.1:{port}")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_eleven_hundred_idle_connections_do_not_stop_the_server(tmp_path):
    """The server in a process of its own under the usual limit of 1,024 open files; 1,100
    connections that never send a request; then a page is asked for, and answered at once."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip("this process may not open the 1,100 connections")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400) if hard == resource.RLIM_INFINITY else max(soft, min(hard, 4096)), hard))

    def usual_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))

    # The 1,100 come in a burst, faster than any browser opens them: a listen backlog that holds them
    # all lets the server take each one in turn, as it takes connections that come less quickly. (With
    # the preview's 128, each connection past it waits for the kernel to send its SYN again a second
    # later: ~8 s of this test, and no more of what it tests.)
    proc = subprocess.Popen([sys.executable, "-c", SERVE_A_DICT, "1200"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            cwd=ROOT, preexec_fn=usual_limit, text=True)
    idle: list[socket.socket] = []
    try:
        port = int(proc.stdout.readline())
        assert _get(port, "/")[0] == 200
        for _ in range(1100):
            s = socket.socket()
            s.settimeout(WAIT)
            s.connect(("127.0.0.1", port))
            idle.append(s)
        status, body = _get(port, "/")  # queued after the 1,100: the server has taken them all before it
        assert status == 200 and b"home" in body
        assert proc.poll() is None
        # Answered because the server keeps at most 256 connections (a quarter of the 1,024 files it
        # may open): accepting each one past that closed the oldest idle one, before this request's.
        closed = sum(_closed_by_the_server(s) for s in idle)
        assert closed >= len(idle) + 1 - 256, closed
        assert not any(_closed_by_the_server(s) for s in idle[-100:])  # the newest are kept
    finally:
        for s in idle:
            s.close()
        proc.stdin.close()
        proc.terminate()
        proc.wait(WAIT)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_an_idle_connection_is_closed_after_the_idle_timeout(monkeypatch):
    from site_gen.preview import server as srv
    from test_server import PAGES, Files, served

    monkeypatch.setattr(srv, "IDLE_TIMEOUT", 0.5)
    timeouts: list[float | None] = []  # each connection's timeout on the server's side, as its handler set it
    setup = srv._Handler.setup

    def recording(self) -> None:
        setup(self)
        timeouts.append(self.connection.gettimeout())

    monkeypatch.setattr(srv._Handler, "setup", recording)
    with served(Files(PAGES)) as server:
        s = socket.create_connection(server.server_address[:2], timeout=WAIT)
        try:
            assert s.recv(1) == b""  # closed by the server, without a request
        finally:
            s.close()
    assert timeouts == [0.5]  # the idle timeout, not the client's patience, closed it


# -- absolute-form requests -----------------------------------------------------------------------------

def test_an_absolute_form_request_for_another_host_is_refused():
    from test_server import PAGES, Files, served

    with served(Files(PAGES)) as server:
        port = server.server_address[1]
        for target in ("http://other-host/", f"http://other-host:{port}/", "http://evil.example/index.html",
                       "https://other-host/", "http://127.0.0.1:1/", "http://other-host/__sitegen__/events",
                       "http://127.0.0.1@other-host/"):
            status, body = _get(port, "/", target=target)
            assert status == 403 and b"home" not in body, target
        status, body = _get(port, "/", target=f"http://127.0.0.1:{port}/")
        assert status == 200 and b"home" in body
        status, body = _get(port, "/", target=f"http://localhost:{port}/index.html", host=f"127.0.0.1:{port}")
        assert status == 200


# -- --cache-dir where a build would publish it -------------------------------------------------------

@pytest.mark.parametrize("where", ["docs/cache", "docs", "data/cache", "site/cache", "site", "overrides/c"])
def test_a_cache_dir_inside_an_input_or_the_site_is_refused(tmp_path, where):
    root = tmp_path / "project"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("data_dir: data", "data_dir: data\n      custom_dir: overrides"))
    (root / "overrides").mkdir()
    existed = (root / where).exists()
    for command in ("build", "check"):
        r = sitegen_here(command, "-q", "--cache-dir", where, cwd=root)
        one_error_line(r.returncode, r.stderr, f"{where}: --cache-dir lies in")
    assert (root / where).exists() == existed and not (root / "site").exists()


def test_a_cache_dir_beside_the_project_is_fine(tmp_path):
    root = tmp_path / "project"
    assert sitegen_here("new", "-q", str(root)).returncode == 0
    r = sitegen_here("build", "-q", "--cache-dir", str(tmp_path / "cache"), cwd=root)
    assert r.returncode == 0, r.stderr
    assert not any("cache" in p.name for p in (root / "site").rglob("*"))
