"""The HTTP server alone: it serves any `Source` (here a dict of files), with no config, builder
or watcher behind it."""
from __future__ import annotations

import ast
import http.client
import json
import threading
from contextlib import contextmanager
from pathlib import Path

from site_gen.preview.server import EVENTS, WORKER, Client, Server, Snapshot

WAIT = 30.0


class Files:
    """The smallest source: a dict of files, published as versions one after another."""

    def __init__(self, files: dict[str, bytes]):
        self.cond = threading.Condition()
        self.current = Snapshot(dict(files), 1)
        self.closed = False

    def snapshot(self) -> Snapshot:
        with self.cond:
            return self.current

    def wait_for_change(self, after: int, timeout: float) -> Snapshot | None:
        with self.cond:
            self.cond.wait_for(lambda: self.current.version > after or self.closed, timeout)
            return None if self.closed else self.current

    def publish(self, files: dict[str, bytes], changed: tuple[str, ...] = (), error: str | None = None) -> None:
        with self.cond:
            self.current = Snapshot(dict(files), self.current.version + 1, error, changed)
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


PAGES = {"index.html": b"<html><body><p>home</p></body></html>", "docs/index.html": b"<body>docs</body>",
         "assets/site.css": b"p{}", "data.json": b'{"a": 1}'}


@contextmanager
def served(source: Files):
    server = Server("127.0.0.1", 0, source, Client("/* page script */", "/* worker script */")).start()
    try:
        yield server
    finally:
        source.close()
        server.stop()


def get(server: Server, path: str, host: str | None = None, origin: str | None = None):
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=WAIT)
    conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", host or f"127.0.0.1:{server.server_address[1]}")
    if origin is not None:
        conn.putheader("Origin", origin)
    conn.endheaders()
    return conn, conn.getresponse()


def fetch(server: Server, path: str, **headers) -> tuple[int, bytes, dict]:
    conn, resp = get(server, path, **headers)
    try:
        return resp.status, resp.read(), dict(resp.getheaders())
    finally:
        conn.close()


def next_event(resp) -> dict:
    """The data of the next `build` event of a stream (pings and the retry line skipped)."""
    while True:
        line = resp.fp.readline()
        assert line, "the stream ended"
        if line.startswith(b"data: "):
            return json.loads(line[len(b"data: "):])


def test_serves_the_sources_files_with_the_script_on_pages_only():
    with served(Files(PAGES)) as server:
        status, body, headers = fetch(server, "/")
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert body.startswith(b"<html><body><p>home</p><script data-sitegen-preview data-version=\"1\"")
        assert b"/* page script */" in body and body.endswith(b"</body></html>")
        assert fetch(server, "/data.json")[1] == b'{"a": 1}'  # not a page: byte for byte
        status, body, headers = fetch(server, "/assets/site.css")
        assert body == b"p{}" and headers["Cache-Control"] == "max-age=3600"
        status, _, headers = fetch(server, "/docs")
        assert status == 301 and headers["Location"] == "/docs/"
        assert fetch(server, WORKER)[1] == b"/* worker script */"


def test_traversal_and_unknown_paths_are_404_and_an_empty_source_503():
    secret = Path(__file__).read_bytes()
    with served(Files(PAGES)) as server:
        for raw in ("/../index.html", "/%2e%2e/tests/test_server.py", "/docs/../index.html", "/docs//index.html",
                    "/..%2fdata.json", "/index.html%00", "/tests/test_server.py", "/nothing.html"):
            status, body, _ = fetch(server, raw)
            assert status == 404, raw
            assert b"data-sitegen-placeholder" in body and secret[:200] not in body
            assert b'<a id="home" href="/">' in body  # the site's root, at any depth
    with served(Files({})) as server:
        status, body, _ = fetch(server, "/")
        assert status == 503 and b"Build failed" in body and b"data-sitegen-preview" in body


def test_the_event_stream_sends_each_version_of_the_source():
    source = Files(PAGES)
    with served(source) as server:
        conn, resp = get(server, EVENTS)
        try:
            assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
            first = next_event(resp)
            assert first["version"] == 1 and first["error"] is None and first["changed"] == []
            source.publish({**PAGES, "index.html": b"<body>new</body>"}, changed=("index.html",))
            second = next_event(resp)
            assert second == {**first, "version": 2, "changed": ["index.html"]}
            source.publish(PAGES, error="data/x.json: $.a: expected a number")
            assert next_event(resp)["error"] == "data/x.json: $.a: expected a number"
            assert b"<body>new</body>" not in fetch(server, "/")[1]  # the files of the last version
        finally:
            conn.close()


def test_other_hosts_and_origins_are_refused():
    with served(Files(PAGES)) as server:
        port = server.server_address[1]
        for host in (f"evil.example:{port}", f"127.0.0.1:{port + 1}", f"localhost.evil.example:{port}"):
            status, body, _ = fetch(server, "/", host=host)
            assert status == 403 and b"home" not in body, host
        assert fetch(server, "/", host=f"localhost:{port}")[0] == 200
        assert fetch(server, EVENTS, origin=f"http://evil.example:{port}")[0] == 403
        conn, resp = get(server, EVENTS, origin=f"http://127.0.0.1:{port}")
        conn.close()
        assert resp.status == 200


def test_the_host_policy_is_passed_in():
    class Only:
        def __init__(self, bound: str, port: int):
            self.port = port

        def host(self, value):
            return value == f"preview.test:{self.port}"

        def origin(self, value):
            return value is None

    source = Files(PAGES)
    server = Server("127.0.0.1", 0, source, Client("", ""), allowed=Only).start()
    try:
        port = server.server_address[1]
        assert fetch(server, "/", host=f"preview.test:{port}")[0] == 200
        assert fetch(server, "/", host=f"127.0.0.1:{port}")[0] == 403
    finally:
        source.close()
        server.stop()


def test_the_server_imports_nothing_of_the_build():
    # The server and its address rules reach the rest of sitegen only through the public API.
    for name in ("server.py", "addresses.py"):
        tree = ast.parse(Path(__file__).parents[1].joinpath("site_gen", "preview", name).read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        inside = {m for m in imported if m and m.startswith("site_gen")}
        assert inside - {"site_gen.preview.addresses"} <= {"site_gen.api"}, name
