"""The preview's HTTP server: serves whatever implements `Source`, knowing nothing of builds.

- `site_path(url)`: the only way from a request to a file; the answer is a key of the source's
  files, or None. Nothing is ever read from disk on a request, so a path outside the site cannot
  be served whatever its spelling.
- `AllowedHosts`: the names a request may carry (DNS rebinding); another policy can be passed in.
- `Server`: answers pages with the preview's script injected, a 404 or 503 placeholder that also
  follows the preview, and one server-sent event stream of the source's versions.
"""
from __future__ import annotations

import errno
import json
import mimetypes
import posixpath
import secrets
import socket
import socketserver
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from site_gen.preview.addresses import (AllowedHosts, is_loopback, parse_addr, request_path,  # noqa: F401
                                        site_path, split_host)

EVENTS = "/__sitegen__/events"
WORKER = "/__sitegen__/worker.js"  # holds the one event stream a browser's preview tabs share
PING = 15.0         # keep-alive comment on idle event streams
IDLE_TIMEOUT = 10.0  # seconds a connection may wait to send its request (or a send may block) before it is closed


def max_connections() -> int:
    """Connections kept open at once: well below the open-file limit, so that accepting a new one
    never fails for want of a file descriptor (at the usual limit of 1,024: 256)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 256
    return 256 if soft == getattr(resource, "RLIM_INFINITY", -1) else max(16, min(256, soft // 4))


# -- what is served ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """One consistent reading of a source: a build's files together with the version they are."""
    files: Mapping[str, bytes]
    version: int
    error: str | None = None   # shown over the pages until the next good version
    changed: tuple[str, ...] = ()  # the files this version changed; empty: a page reloads whole


class Source(Protocol):
    """What the server serves: the site now, and a way to wait for the next version."""

    def snapshot(self) -> Snapshot:
        """The files, version and error of one moment, read together (a page never carries a
        version number newer than its content)."""

    def wait_for_change(self, after: int, timeout: float) -> Snapshot | None:
        """The snapshot once its version passes `after`, or when `timeout` seconds have passed;
        None once the source is closed (an event stream then ends)."""


class HostPolicy(Protocol):
    def host(self, value: str | None) -> bool:
        """Whether a request's `Host` header names this server."""

    def origin(self, value: str | None) -> bool:
        """Whether a request's `Origin` header (None: absent) may follow the event stream."""


@dataclass
class Client:
    """The preview's scripts: the one injected into pages and the shared worker it connects to."""
    page: str
    worker: str


def content_type(key: str) -> str:
    ext = posixpath.splitext(key)[1].lower()
    known = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
             ".js": "text/javascript; charset=utf-8", ".json": "application/json",
             ".csv": "text/csv; charset=utf-8", ".svg": "image/svg+xml", ".md": "text/markdown; charset=utf-8"}
    return known.get(ext) or mimetypes.guess_type(key)[0] or "application/octet-stream"


def inject(html: bytes, script: str, version: int, instance: str) -> bytes:
    """The preview's script, before the last `</body>` (or at the end): served pages only."""
    body = script.replace("</", "<\\/")
    tag = (f'<script data-sitegen-preview data-version="{version}" data-instance="{instance}">{body}</script>\n'
           ).encode()
    at = html.lower().rfind(b"</body>")
    return html + tag if at < 0 else html[:at] + tag + html[at:]


def _placeholder(title: str, text: str) -> bytes:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f'<body data-sitegen-placeholder><main><h1>{title}</h1><p>{text}</p></main></body></html>').encode()


# The preview serves the site at the server's root, so "/" is its home from any depth.
NOT_FOUND = _placeholder("404 · Not found", 'No page at this address in the site; go to <a id="home" href="/">the home page</a>.')


# -- addresses and names ---------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server_version = "sitegen"
    protocol_version = "HTTP/1.0"
    server: Server

    def setup(self) -> None:
        # An idle connection does not hold a thread for long; read at each connection (typeshed calls
        # it a class variable; socketserver reads it from the instance).
        self.timeout = IDLE_TIMEOUT  # type: ignore[misc]
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, None)

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok:
            self.server.track(self.connection, "busy")  # no longer idle: never closed to make room
        return ok

    def log_message(self, format: str, *args) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        allowed = self.server.allowed
        if not allowed.host(self.headers.get("Host")):
            return self._refuse("this server answers to localhost, 127.0.0.1 or [::1] (or the name -a gives) only")
        scheme, absolute, _ = self.path.partition("://")
        if absolute and "/" not in scheme:
            # Absolute form (`GET http://host/path`): the host it names is the one asked for (RFC 9112
            # section 3.2.2), whatever the Host header says; only this server's own names are answered.
            target = urlsplit(self.path)
            if (target.scheme.lower() != "http" or target.username is not None or target.password is not None
                    or not allowed.host(target.netloc)):
                return self._refuse("a request in absolute form may name this server only")
        path = request_path(self.path)
        if path == EVENTS:
            if not allowed.origin(self.headers.get("Origin")):
                return self._refuse("a page of another site may not follow this preview")
            return self._events()
        if path == WORKER:
            return self._send(HTTPStatus.OK, self.server.client.worker.encode("utf-8"),
                              "text/javascript; charset=utf-8", "no-store", body)
        self._file(site_path(self.path), body)

    def _file(self, key: str | None, body: bool) -> None:
        snap = self.server.source.snapshot()  # one build's files and its version, read together
        files = snap.files
        if key is not None and key in files:
            ctype = content_type(key)
            html = ctype.startswith("text/html")
            data = self._page(files[key], snap) if html else files[key]
            cache = "max-age=3600" if key.startswith("assets/") else "no-store"
            self._send(HTTPStatus.OK, data, ctype, cache, body)
            if html and hasattr(self.server.source, "viewed"):
                # A page a browser has open: the next rebuild shows it first. Said once it is sent, so
                # a rebuild waiting for it (serve.py `_show_early`) does not contend with the sending.
                self.server.source.viewed(key)
            return
        if key is not None and not key.endswith("index.html") and key + "/index.html" in files:
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", request_path(self.path) + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if not files:
            page = _placeholder("Build failed", "No page could be built yet; the message below says why.")
            return self._send(HTTPStatus.SERVICE_UNAVAILABLE, self._page(page, snap), "text/html; charset=utf-8",
                              "no-store", body)
        return self._send(HTTPStatus.NOT_FOUND, self._page(NOT_FOUND, snap), "text/html; charset=utf-8", "no-store", body)

    def _page(self, html: bytes, snap: Snapshot) -> bytes:
        return inject(html, self.server.client.page, snap.version, self.server.instance)

    def _send(self, status: HTTPStatus, data: bytes, ctype: str, cache: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    def _refuse(self, why: str) -> None:
        data = f"403 Forbidden: {why}\n".encode()
        self._send(HTTPStatus.FORBIDDEN, data, "text/plain; charset=utf-8", "no-store", self.command != "HEAD")

    def _events(self) -> None:
        """Server-sent events: the state now, then one `build` event per new version."""
        self.server.track(self.connection, "stream")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        source, seen = self.server.source, None
        try:
            self.wfile.write(b"retry: 500\n\n")
            snap: Snapshot | None = source.snapshot()
            while snap is not None:
                if snap.version != seen:
                    seen = snap.version
                    state = {"version": snap.version, "instance": self.server.instance, "error": snap.error,
                             "changed": list(snap.changed)}
                    self.wfile.write(f"event: build\ndata: {json.dumps(state)}\n\n".encode())
                else:
                    self.wfile.write(b": ping\n\n")
                self.wfile.flush()
                snap = source.wait_for_change(seen, PING)
        except (BrokenPipeError, ConnectionResetError, OSError):
            return


class Server(ThreadingHTTPServer):
    """Serves `source` on `host:port` once `start()` is called; `allowed` makes the host policy
    from the address bound (port 0 picks a free port)."""

    daemon_threads = False  # server_close() joins every request thread: none is left behind
    block_on_close = True
    # socketserver's backlog of 5 drops the connections of a sixth tab opened at once; each then waits
    # a second for its SYN to be sent again.
    request_queue_size = 128

    def __init__(self, host: str, port: int, source: Source, client: Client, *,
                 allowed: Callable[[str, int], HostPolicy] = AllowedHosts, log_requests: bool = False):
        self.source = source
        self.client = client
        self.log_requests = log_requests
        # One per server run: a page served by an earlier run reloads whole rather than patch.
        self.instance = secrets.token_hex(4)
        # Each open connection and what it does: "idle" (no request yet), "busy", "stream" (events).
        self._conns: dict[socket.socket, str] = {}
        self._conns_lock = threading.Lock()
        self.max_connections = max_connections()
        self._thread: threading.Thread | None = None
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), _Handler)
        self.allowed = allowed(host, self.server_address[1])

    def server_bind(self) -> None:
        # Like http.server.HTTPServer.server_bind without its reverse DNS lookup (slow on some hosts).
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), port

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    def start(self) -> Server:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="sitegen-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving and joins every thread. Close the source first: an open event stream
        waits on it and would hold this up for as long as `PING`."""
        if self._thread is not None:  # shutdown() waits for a serve_forever() that has started
            self.shutdown()
            self._thread.join()
        self.close_connections()
        self.server_close()  # joins the request threads

    def track(self, conn: socket.socket, state: str | None) -> None:
        """Records what a connection does now; None: it is closed."""
        with self._conns_lock:
            if state is None:
                self._conns.pop(conn, None)
            elif conn in self._conns:
                self._conns[conn] = state

    def process_request(self, request, client_address) -> None:
        """A new connection, kept within `max_connections`: past it, the oldest connection that has
        sent no request is closed (else the oldest event stream, which its browser opens again), so
        connections that only wait, however many, never stop the server answering."""
        with self._conns_lock:
            while len(self._conns) >= self.max_connections and self._close_one():
                pass
            self._conns[request] = "idle"
        super().process_request(request, client_address)

    def _close_one(self) -> bool:
        """Closes the oldest idle connection, else the oldest event stream (the caller holds the lock)."""
        for state in ("idle", "stream"):
            victim = next((c for c, s in self._conns.items() if s == state), None)  # dicts keep their order
            if victim is not None:
                del self._conns[victim]
                try:
                    victim.shutdown(socket.SHUT_RDWR)  # its thread's read or write ends at once
                except OSError:
                    pass
                return True
        return False

    def get_request(self):
        try:
            return super().get_request()
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):  # out of file descriptors: make room, try again
                with self._conns_lock:
                    self._close_one()
            raise

    def shutdown_request(self, request) -> None:
        self.track(request, None)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
