"""The page's trust boundary (docs/window.md has the threat model): whom `educable serve` obeys.

Two checks, after Jupyter's server and Starlette's TrustedHostMiddleware:

- **Host.**  Every request, reads included, must be addressed to the server by a name it knows:
  127.0.0.1, localhost or [::1] at its own port, the ``--host`` it listens on, or a name given with
  ``--allow-host``.  A page elsewhere whose name is rebound to 127.0.0.1 (DNS rebinding) reaches the
  server with its own name in ``Host`` and is refused, so it can read nothing.  A server listening on
  every address (``--host 0.0.0.0``) also takes any address written as digits: rebinding needs a name.
- **Secret.**  Every POST must come from one of those origins and carry the server's secret, made
  at start and written into its own pages (and printed with the address), in the header
  ``X-Educable-Token``.  A page of another origin can neither read the secret nor send that header
  without the browser asking first (CORS), which this server never allows.
"""
from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

TOKEN_HEADER = "x-educable-token"  # noqa: S105  (the name of a header, not a secret)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")  # noqa: S104  (compared with --host, never bound)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def make_token() -> str:
    """A new secret for one run of the server."""
    return secrets.token_urlsafe(24)


def bracketed(host: str) -> str:
    """An address as it stands in a Host header ([::1] for ::1)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header's name (lower case, IPv6 in brackets) and port; None when it is not one."""
    value = value.strip().lower()
    if not value or any(c.isspace() or c in "/@?#\\" for c in value):
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[:end + 1], value[end + 1:]
        if rest == "":
            return name, None
        if not rest.startswith(":"):
            return None
        port_text = rest[1:]
    else:
        if value.count(":") > 1:                    # an IPv6 address stands in brackets in a Host
            return None
        name, sep, port_text = value.partition(":")
        if not sep:
            return name, None
    if not (port_text.isascii() and port_text.isdigit() and 0 < len(port_text) <= 5):
        return None
    return name, int(port_text)


def is_address_literal(name: str) -> bool:
    """Whether a Host name is an IP address written as such (no name a DNS server could rebind)."""
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


class Boundary:
    """What the server accepts: the names it answers to, its secret."""

    def __init__(self, listen_host: str = "127.0.0.1", allowed: tuple[str, ...] = (), token: str | None = None) -> None:
        self.names = {*LOOPBACK_NAMES, bracketed(listen_host.lower()), *(bracketed(a.lower()) for a in allowed)}
        self.names.discard("")
        self.any_address = listen_host in WILDCARDS
        self.token = token or make_token()

    def host_ok(self, host: str | None, port: int | None) -> bool:
        """Whether a request's Host header names this server at its port."""
        parts = split_host(host or "")
        if parts is None:
            return False
        name, given_port = parts
        if given_port != port and not (given_port is None and port == 80):
            return False
        return name in self.names or (self.any_address and is_address_literal(name))

    def origin_ok(self, origin: str | None, port: int | None) -> bool:
        """Whether a request's Origin (where one is sent) is this server's own."""
        if origin is None:
            return True
        scheme, sep, rest = origin.partition("://")
        return sep != "" and scheme == "http" and self.host_ok(rest, port)

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def allowed_names(self, port: int | None) -> str:
        shown = sorted(n for n in self.names if n not in LOOPBACK_NAMES)
        return ", ".join(f"{n}:{port}" for n in [*LOOPBACK_NAMES, *shown])


class HostGuard:
    """ASGI middleware: a request whose Host is not this server's is answered 403 in one line
    (JSON under /api/, text elsewhere) and reaches no handler."""

    def __init__(self, app: App, boundary: Boundary) -> None:
        self.app = app
        self.boundary = boundary

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        port = (scope.get("server") or (None, None))[1]
        if self.boundary.host_ok(headers.get("host"), port):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        line = (f"this server answers only requests addressed to {self.boundary.allowed_names(port)}; "
                f"one addressed to {headers.get('host', '(no host)')[:80]!r} is refused (a page under another "
                "name: DNS rebinding)")
        api = str(scope.get("path", "")).startswith("/api/")
        body = json.dumps({"error": line}).encode() if api else (line + "\n").encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"application/json" if api else b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
