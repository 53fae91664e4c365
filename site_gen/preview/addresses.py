"""What the preview server accepts: request paths that name a site file and nothing outside it,
the address it listens on, and the hosts and origins it answers (loopback names, or the one
host it was bound to)."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import unquote, urlsplit

from site_gen.api import SitegenError


# -- requests to files ---------------------------------------------------------------------------


def request_path(target: str) -> str:
    """The path of a request target, still encoded: no query, no fragment. `//x` stays a path."""
    if target.lower().startswith(("http://", "https://")):  # absolute form
        return urlsplit(target).path or "/"
    return target.split("?", 1)[0].split("#", 1)[0]


def site_path(url: str) -> str | None:
    """The site file a request path names, or None (404).

    The query and fragment are dropped, percent-encoding is decoded exactly once, and a path with
    a `..` or `.` segment, an empty segment, a backslash, a NUL or bytes that are not UTF-8 is
    refused rather than normalised: nothing can climb out of the site. `/` and `/dir/` name
    `index.html` in that folder.
    """
    path = request_path(url)
    if not path.startswith("/"):
        return None
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\\" in path or "\x00" in path or any(ord(ch) < 32 for ch in path):
        return None
    parts = path[1:].split("/")
    *dirs, name = parts
    if any(p in ("", ".", "..") for p in dirs) or name in (".", ".."):
        return None
    key = "/".join(parts)
    if key == "" or key.endswith("/"):
        key += "index.html"
    return key


def parse_addr(text: str) -> tuple[str, int]:
    """`IP:PORT`, `localhost:PORT` or `[IPv6]:PORT`, as `mkdocs serve -a` takes it."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise SitegenError(f"expected ADDR:PORT, e.g. 127.0.0.1:8000, got {text!r}", where="--dev-addr")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise SitegenError(f"expected a port number from 0 to 65535, got {port!r}", where="--dev-addr")
    return host, number


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, int | None] | None:
    """`name`, `name:port`, `[v6]` or `[v6]:port` (a Host header, an origin's netloc); None if malformed."""
    if value.startswith("["):
        name, sep, rest = value[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        name, _, port = value.partition(":")
    if not name or (port and not (port.isascii() and port.isdigit())) or (not port and value.endswith(":")):
        return None
    return name.lower(), int(port) if port else None


class AllowedHosts:
    """The host names a request may carry, so that a page of another site cannot read the preview.

    A page on an attacker's name that resolves to 127.0.0.1 (DNS rebinding) reaches this server
    as its own origin; its requests still carry the attacker's name in `Host` and `Origin`, so
    only loopback names and addresses (and the address `-a` names, when it names another one)
    with the serving port are answered. Served on a wildcard address (`-a 0.0.0.0:PORT`), any IP
    address and this machine's name are accepted too: an IP address cannot be rebound.
    """

    def __init__(self, bound: str, port: int):
        self.port = port
        self.wildcard = bound in ("", "0.0.0.0", "::")
        self.names = {"localhost", bound.lower()} | ({socket.gethostname().lower()} if self.wildcard else set())

    def host(self, value: str | None) -> bool:
        parsed = split_host(value or "")
        if parsed is None:
            return False
        name, port = parsed
        if (80 if port is None else port) != self.port:
            return False
        return name in self.names or is_loopback(name) or (self.wildcard and _is_ip(name))

    def origin(self, value: str | None) -> bool:
        """An `Origin` header: absent (a same-origin request), or this server's http origin."""
        if value is None:
            return True
        scheme, sep, netloc = value.partition("://")
        return bool(sep) and scheme.lower() == "http" and "/" not in netloc and self.host(netloc)


# -- the server ------------------------------------------------------------------------------------
