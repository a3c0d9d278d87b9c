"""How to reach one Manager node's cluster: the kubectl flags every call carries, and the
bounds on every call and on the whole command."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from .bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WAIT_TIMEOUT

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_WAIT_TIMEOUT",
    "ClusterConfig",
    "kubeconfig_looked_for",
    "kubeconfig_missing",
    "kubeconfig_paths",
    "kubeconfig_usable",
]


class ClusterConfig(NamedTuple):
    """A Manager node: kubeconfig + context + namespace, and the bounds on every wait.

    A NamedTuple (immutable, built by keyword), not a frozen dataclass: ``dataclasses``
    brings ``inspect`` into every command's start-up.

    ``timeout`` bounds each wait (rollout, pod deletion); ``call_timeout`` bounds any single
    kubectl process that is not a wait; ``request_timeout`` is kubectl's own per-request limit.
    ``deadline`` bounds the whole command: every kubectl process gets at most what is left of
    it, counted from ``started`` (a ``time.monotonic()`` value; default: when the runner is
    made). ``None`` means no overall deadline (library use); the CLI always sets one.
    """

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    kubectl: str | None = None
    timeout: float = DEFAULT_WAIT_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    cache_dir: str | None = None
    node_id: str | None = None
    verbose: int = 0  # 1: log each kubectl command (-v); 2: and kubectl's stderr (-vv)
    dry_run: bool = False
    deadline: float | None = None
    started: float | None = None


# A non-empty current-context in kubeconfig YAML or JSON.
_CURRENT_CONTEXT = re.compile(r"""(?<![\w-])["']?current-context["']?\s*:\s*["']?[^"'\s,}]""")


def kubeconfig_paths(config: ClusterConfig) -> list[str]:
    """The kubeconfig files kubectl reads: ``--kubeconfig``, else ``$KUBECONFIG``'s list,
    else ``~/.kube/config``."""
    if config.kubeconfig:
        return [config.kubeconfig]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [path for path in env.split(os.pathsep) if path]
    return [os.path.expanduser("~/.kube/config")]


def kubeconfig_looked_for(config: ClusterConfig) -> str:
    """Which kubeconfig kubectl read, as an operator would name it."""
    if config.kubeconfig:
        return f"--kubeconfig {config.kubeconfig}"
    if os.environ.get("KUBECONFIG"):
        return f"$KUBECONFIG={os.environ['KUBECONFIG']}"
    return f"{kubeconfig_paths(config)[0]} (no --kubeconfig, $KUBECONFIG unset)"


def kubeconfig_usable(config: ClusterConfig) -> bool:
    """Some kubeconfig file exists and names a context (``--context`` or current-context)."""
    for path in kubeconfig_paths(config):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(1 << 20)
        except OSError:
            continue
        if config.context or _CURRENT_CONTEXT.search(text):
            return True
    return False


def kubeconfig_missing(config: ClusterConfig) -> bool:
    """No kubeconfig file kubectl would read exists (a wrong path, or none at all)."""
    return not any(os.path.exists(path) for path in kubeconfig_paths(config))
