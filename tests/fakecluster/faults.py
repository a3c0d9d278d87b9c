"""Fault injection state and the request log."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FailRule:
    count: int
    code: int
    method: str | None = None
    path_regex: re.Pattern[str] | None = None
    retry_after: int | None = None
    include_discovery: bool = False
    body: dict[str, Any] | bytes | None = None
    content_type: str | None = None

    def matches(self, method: str, path: str, is_resource: bool) -> bool:
        if not is_resource and not self.include_discovery:
            return False
        if self.method and self.method.upper() != method:
            return False
        return not (self.path_regex and not self.path_regex.search(path))


@dataclass
class Hook:
    """Run test code at an exact point of one request: ``before`` it is handled, ``after`` it
    was handled but before the answer is sent. Races become deterministic interleavings."""

    before: Callable[[], Any] | None
    after: Callable[[], Any] | None
    method: str | None = None
    path_regex: re.Pattern[str] | None = None
    query: dict[str, str] = field(default_factory=dict)
    kubectl_command: str | None = None
    count: int = 1
    fired: threading.Event = field(default_factory=threading.Event)
    errors: list[BaseException] = field(default_factory=list)

    def matches(self, method: str, path: str, query: dict[str, str], command: str) -> bool:
        if self.method and self.method.upper() != method:
            return False
        if self.path_regex and not self.path_regex.search(path):
            return False
        if self.kubectl_command is not None and command != self.kubectl_command:
            return False
        return all(query.get(k) == v for k, v in self.query.items())

    def run(self, callback: Callable[[], Any] | None) -> None:
        if callback is None:
            return
        try:
            callback()
        except BaseException as exc:  # reported to the test through ``errors``
            self.errors.append(exc)


@dataclass(frozen=True)
class RequestRecord:
    time: float  # time.monotonic() when the request arrived
    method: str
    path: str
    query: dict[str, str]
    raw_query: str
    user: str
    content_type: str
    kubectl_command: str
    user_agent: str
    status: int
    body: Any = None

    @property
    def is_discovery(self) -> bool:
        return not self.path.startswith(("/api/v1/", "/apis/")) or self.path.count("/") <= 3


@dataclass
class Faults:
    lock: threading.Lock = field(default_factory=threading.Lock)
    rules: list[FailRule] = field(default_factory=list)
    latency: float = 0.0
    black_hole: threading.Event = field(default_factory=threading.Event)
    black_hole_released: threading.Event = field(default_factory=threading.Event)
    black_hole_regex: re.Pattern[str] | None = None
    hooks: list[Hook] = field(default_factory=list)
    # black_hole_after: (method, path regex) of the request whose change is made, and whose
    # answer is then lost with the API gone silent.
    hole_after: tuple[str | None, re.Pattern[str] | None] | None = None

    def take_hole_after(self, method: str, path: str) -> bool:
        """This request is the one ``black_hole_after`` waits for (used up)."""
        with self.lock:
            if self.hole_after is None:
                return False
            wanted, regex = self.hole_after
            if (wanted and wanted.upper() != method) or (regex and not regex.search(path)):
                return False
            self.hole_after = None
            return True

    def add_hook(self, hook: Hook) -> None:
        with self.lock:
            self.hooks.append(hook)

    def take_hook(self, method: str, path: str, query: dict[str, str], command: str) -> Hook | None:
        """The first matching hook, used up by this request (so a hook's own requests,
        made from its callbacks, never trigger it again)."""
        with self.lock:
            for hook in self.hooks:
                if hook.count > 0 and hook.matches(method, path, query, command):
                    hook.count -= 1
                    if hook.count == 0:
                        self.hooks.remove(hook)
                    return hook
        return None

    def add(self, rule: FailRule) -> None:
        with self.lock:
            self.rules.append(rule)

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
            self.hooks.clear()
            self.hole_after = None
            self.latency = 0.0
        self.set_black_hole(False)

    def take(self, method: str, path: str, is_resource: bool) -> FailRule | None:
        with self.lock:
            for rule in self.rules:
                if rule.count > 0 and rule.matches(method, path, is_resource):
                    rule.count -= 1
                    if rule.count == 0:
                        self.rules.remove(rule)
                    return rule
        return None

    def set_black_hole(self, on: bool, path_regex: str | None = None) -> None:
        self.black_hole_regex = re.compile(path_regex) if on and path_regex else None
        if on:
            self.black_hole_released.clear()
            self.black_hole.set()
        else:
            self.black_hole.clear()
            self.black_hole_released.set()


@dataclass
class RequestLog:
    lock: threading.Lock = field(default_factory=threading.Lock)
    records: list[RequestRecord] = field(default_factory=list)

    def add(self, rec: RequestRecord) -> None:
        with self.lock:
            self.records.append(rec)

    def snapshot(self) -> list[RequestRecord]:
        with self.lock:
            return list(self.records)

    def clear(self) -> None:
        with self.lock:
            self.records.clear()


def now() -> float:
    return time.monotonic()
