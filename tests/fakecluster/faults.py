"""Fault injection state and the request log."""

from __future__ import annotations

import re
import threading
import time
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
    body: dict[str, Any] | None = None

    def matches(self, method: str, path: str, is_resource: bool) -> bool:
        if not is_resource and not self.include_discovery:
            return False
        if self.method and self.method.upper() != method:
            return False
        return not (self.path_regex and not self.path_regex.search(path))


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

    def add(self, rule: FailRule) -> None:
        with self.lock:
            self.rules.append(rule)

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
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
