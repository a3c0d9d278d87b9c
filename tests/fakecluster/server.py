"""HTTPS plumbing: TLS per connection, auth, faults, request log, watch streaming."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import socket
import ssl
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .api import Api, Request, Route, authz_namespace, parse_route, verb_for
from .faults import Faults, RequestLog, RequestRecord
from .rbac import UserInfo
from .status import ApiError, Target, forbidden, injected, status, unauthorized
from .store import WatchEvent

CLOSE, RESET, EXPIRE = "close", "reset", "expire"


class _ResetConnection(Exception):
    """The watch's connection was reset on purpose (``FakeCluster.reset_watches``)."""


@dataclass
class WatchCuts:
    """Ways to break watches, set by the test: for the open streams, ``open`` maps each
    watch (its handler) to how it ends; ``expire_next`` answers that many new watches
    (whose path matches ``expire_regex``) with a 410 Expired ERROR event."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    open: dict[Handler, str | None] = field(default_factory=dict)
    paths: dict[Handler, str] = field(default_factory=dict)
    expire_next: int = 0
    expire_regex: re.Pattern[str] | None = None

    def register(self, handler: Handler, path: str) -> None:
        with self.lock:
            self.open[handler] = None
            self.paths[handler] = path

    def unregister(self, handler: Handler) -> None:
        with self.lock:
            self.open.pop(handler, None)
            self.paths.pop(handler, None)

    def cut(self, how: str, path_regex: str | None = None) -> int:
        """Mark every open watch (whose path matches) to end ``how``; returns how many."""
        rx = re.compile(path_regex) if path_regex else None
        with self.lock:
            hit = [h for h, p in self.paths.items() if rx is None or rx.search(p)]
            for h in hit:
                self.open[h] = how
            return len(hit)

    def take(self, handler: Handler) -> str | None:
        with self.lock:
            return self.open.get(handler)

    def take_expire(self, path: str) -> bool:
        with self.lock:
            if self.expire_next <= 0:
                return False
            if self.expire_regex is not None and not self.expire_regex.search(path):
                return False
            self.expire_next -= 1
            return True


class ServerState:
    """Everything the request handlers share."""

    def __init__(
        self, api: Api, faults: Faults, log: RequestLog, tokens: dict[str, UserInfo]
    ) -> None:
        self.api = api
        self.faults = faults
        self.log = log
        self.tokens = tokens
        self.stopping = threading.Event()
        self.conns: set[socket.socket] = set()
        self.conns_lock = threading.Lock()
        self.watches = WatchCuts()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, addr: tuple[str, int], state: ServerState, ctx: ssl.SSLContext) -> None:
        self.state = state
        self.ssl_ctx = ctx
        super().__init__(addr, Handler)

    def finish_request(self, request: Any, client_address: Any) -> None:
        st = self.state
        try:
            request.settimeout(10)
            # Headers and body leave in one segment; without NODELAY each response would wait
            # out the client's delayed ACK (~40 ms), which real API servers never add.
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            tls = self.ssl_ctx.wrap_socket(request, server_side=True)
            tls.settimeout(None)
        except (OSError, ssl.SSLError):
            with contextlib.suppress(OSError):
                request.close()
            return
        with st.conns_lock:
            st.conns.add(tls)
        try:
            Handler(tls, client_address, self)
        except (OSError, ssl.SSLError):
            pass
        except _ResetConnection:
            pass  # the descriptor is closed (RST sent); the shutdown below finds nothing
        finally:
            with st.conns_lock:
                st.conns.discard(tls)
            with contextlib.suppress(OSError, ssl.SSLError):
                tls.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                tls.close()

    def shutdown_request(self, request: Any) -> None:
        with contextlib.suppress(OSError):
            request.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakecluster/1.32"
    # Buffered: a response's headers and body go out in one write (flushed per request and
    # explicitly per watch event).
    wbufsize = 1 << 16
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr access log
        pass

    @property
    def state(self) -> ServerState:
        return self.server.state

    def handle_one_request(self) -> None:
        faults = self.state.faults
        if faults.black_hole.is_set() and faults.black_hole_regex is None:
            self._hang()
            return
        super().handle_one_request()

    def _hang(self) -> None:
        """Black hole: never answer; drop the connection once the black hole is lifted."""
        faults = self.state.faults
        while not faults.black_hole_released.wait(0.2):
            if self.state.stopping.is_set():
                break
        self.close_connection = True

    def do_GET(self) -> None:
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # -- response helpers --------------------------------------------------
    def _send(self, code: int, body: Any, headers: dict[str, str] | None = None) -> None:
        headers = dict(headers or {})
        if isinstance(body, bytes):
            data = body
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
        else:
            data = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        self.send_response(code)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _dispatch(self) -> None:
        st = self.state
        started = time.monotonic()
        parts = urlsplit(self.path)
        path = parts.path
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if st.faults.latency:
            time.sleep(st.faults.latency)
        hole = st.faults.black_hole_regex
        if st.faults.black_hole.is_set() and hole is not None and hole.search(path):
            self._hang()
            return
        ctype = self.headers.get("Content-Type", "")
        route = parse_route(path)
        verb = verb_for(self.command, route, query)
        auth = self.headers.get("Authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        user = st.tokens.get(token) if token else None
        uname = user.name if user else ""
        target = Target(
            route.info.resource if route.info else route.unknown_resource,
            route.group,
            route.name,
            authz_namespace(route),
            route.subresource,
            verb,
            uname,
            path,
        )
        code = 500

        def record(c: int) -> None:
            parsed: Any = None
            if body and ("json" in ctype or "yaml" in ctype):
                with contextlib.suppress(ValueError):
                    parsed = json.loads(body)
            st.log.add(
                RequestRecord(
                    started,
                    self.command,
                    path,
                    query,
                    parts.query,
                    uname,
                    ctype,
                    self.headers.get("Kubectl-Command", ""),
                    self.headers.get("User-Agent", ""),
                    c,
                    parsed,
                )
            )

        hook = st.faults.take_hook(
            self.command, path, query, self.headers.get("Kubectl-Command", "")
        )
        if hook is not None:
            hook.run(hook.before)
            hook.fired.set()
        try:
            rule = st.faults.take(self.command, path, route.is_resource)
            if rule is not None:
                if rule.body is not None:
                    code, body_out = rule.code, rule.body
                    hdrs = {"Content-Type": rule.content_type} if rule.content_type else {}
                else:
                    apply = ctype.startswith("application/apply-patch")
                    body_out, hdrs = injected(
                        rule.code, target, apply=apply, retry_after=rule.retry_after
                    )
                    code = rule.code
                record(code)
                self._send(code, body_out, hdrs)
                return
            if user is None:
                code = 401
                record(code)
                self._send(401, unauthorized())
                return
            req = Request(
                self.command,
                route,
                query,
                body,
                ctype,
                user,
                self.headers.get("User-Agent", ""),
                verb,
                target,
            )
            decision = st.api.authorizer.authorize(user, st.api.attributes(req))
            if not decision.allowed:
                code = 403
                record(code)
                self._send(403, forbidden(target))
                return
            if not route.is_resource:
                code, out, hdrs = st.api.nonresource(path, self.headers.get("Accept", ""))
            elif verb == "watch":
                record(200)
                self._watch(req)
                return
            else:
                code, out, hdrs = st.api.handle(req)
        except ApiError as e:
            code, out, hdrs = e.code, e.body, e.headers
        except _ResetConnection:
            raise
        except Exception as e:  # a bug in the fake: answer like the real server would
            import traceback

            traceback.print_exc(file=sys.stderr)
            code, out, hdrs = 500, status(500, f"Internal error occurred: {e}"), {}
        if hook is not None:
            hook.run(hook.after)
        record(code)
        if st.faults.take_hole_after(self.command, path):
            st.faults.set_black_hole(True)  # carried out; its answer and all after it lost
            self._hang()
            return
        self._send(code, out, hdrs)

    # -- watch -------------------------------------------------------------
    def _client_gone(self) -> bool:
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(r)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _watch(self, req: Request) -> None:
        st = self.state
        store = st.api.store
        route: Route = req.route
        info = route.info
        assert info is not None
        pred = st.api.list_filter(req)
        try:
            timeout = float(req.query.get("timeoutSeconds") or 1800)
        except ValueError:
            timeout = 1800.0
        deadline = time.monotonic() + timeout
        rv_param = req.query.get("resourceVersion", "")
        ns = route.namespace

        def relevant(ev: WatchEvent) -> bool:
            return ev.resource == info.resource and (not ns or ev.namespace == ns)

        initial: list[dict[str, Any]] = []
        with store.lock:
            if rv_param in ("", "0"):
                initial = [o for o in store.list(info.resource, ns or None) if pred(o)]
                cursor = store.rv
            else:
                try:
                    cursor = int(rv_param)
                except ValueError:
                    cursor = -1
                if store.events_after(cursor) is None or cursor > store.rv:
                    initial = []
                    cursor = -2
        if st.watches.take_expire(route_path := self.path.split("?", 1)[0]):
            cursor = -2
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()  # a watch may have nothing to send for a while: headers go now
        self.close_connection = True
        st.watches.register(self, route_path)
        try:
            if cursor == -2:
                self._expired(rv_param or "0")
                return
            for o in initial:
                self._chunk(json.dumps({"type": "ADDED", "object": o}).encode() + b"\n")
            while not st.stopping.is_set():
                cut = st.watches.take(self)
                if cut == RESET:
                    self._reset()
                if cut == EXPIRE:
                    self._expired(str(cursor))
                    return
                if cut == CLOSE:
                    break
                with store.log_cond:  # not the store's lock: see ``Store.log_cond``
                    evs = store.events_after(cursor) or []
                    if not evs:
                        store.log_cond.wait(min(0.5, max(0.0, deadline - time.monotonic())))
                        evs = store.events_after(cursor) or []
                for ev in evs:
                    cursor = ev.rv
                    if not relevant(ev):
                        continue
                    now_m = pred(ev.obj)
                    was = ev.prev is not None and pred(ev.prev)
                    etype = ev.type
                    if etype == "MODIFIED":
                        if now_m and not was:
                            etype = "ADDED"
                        elif was and not now_m:
                            etype = "DELETED"
                        elif not now_m:
                            continue
                    elif not now_m:
                        continue
                    self._chunk(json.dumps({"type": etype, "object": ev.obj}).encode() + b"\n")
                if time.monotonic() >= deadline or store.closed or self._client_gone():
                    break
            self._chunk(b"")
        except (OSError, ssl.SSLError):
            return
        finally:
            st.watches.unregister(self)

    def _expired(self, rv: str) -> None:
        """The watch cache's answer to a resourceVersion it no longer has: an ERROR event
        with a 410 Expired Status, then the end of the stream."""
        now = self.state.api.store.rv
        gone = status(410, f"too old resource version: {rv} ({now})", reason="Expired")
        self._chunk(json.dumps({"type": "ERROR", "object": gone}).encode() + b"\n")
        self._chunk(b"")

    def _reset(self) -> None:
        """Drop the connection with a TCP RST (SO_LINGER 0), as a crashed peer or a proxy
        does: the client reads ``connection reset by peer``, not the end of the stream."""
        sock = self.connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # detach, then close the descriptor: socket.close() would wait for rfile/wfile.
        fd = sock.detach()
        with contextlib.suppress(OSError):
            os.close(fd)
        raise _ResetConnection


def make_server(host: str, port: int, state: ServerState, ctx: ssl.SSLContext) -> _Server:
    return _Server((host, port), state, ctx)
