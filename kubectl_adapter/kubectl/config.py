"""How to reach one Manager node's cluster: the kubectl flags every call carries, the
bounds on every call and on the whole command, and what kubectl finds on this host (its
binary, its kubeconfig files and context's namespace, its HOME, its discovery cache)."""

from __future__ import annotations

import contextlib
import os
import re
from typing import NamedTuple

from ..contract.errors import ConfigurationError
from ..contract.naming import DNS1123_RULE, is_dns1123_label
from .bounds import DEFAULT_CALL_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WAIT_TIMEOUT

__all__ = [
    "CONTEXT_NAMESPACE",
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_WAIT_TIMEOUT",
    "ClusterConfig",
    "context_in_use",
    "context_namespace_of",
    "current_context_of",
    "discovery_stamp",
    "kubeconfig_looked_for",
    "kubeconfig_missing",
    "kubeconfig_paths",
    "kubeconfig_usable",
    "kubectl_binary",
    "kubectl_environment",
    "which",
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


# The top-level current-context of a YAML kubeconfig (a key at column 0), its value plain or
# quoted, a comment after it allowed.
_CURRENT_CONTEXT = re.compile(
    r"""^(?:current-context|"current-context"|'current-context')[ \t]*:[ \t]*"""
    r"""(?:"(?P<double>(?:[^"\\\n]|\\.)*)"|'(?P<single>(?:[^'\n]|'')*)'|"""
    r"""(?P<plain>[^\s#'"][^\n]*?))?(?:[ \t]+#[^\n]*)?[ \t]*$""",
    re.M,
)


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
    if config.context:
        return any(text is not None for text in _kubeconfig_texts(config))
    return context_in_use(config) is not None


def context_in_use(config: ClusterConfig) -> str | None:
    """The context kubectl uses: ``--context``, else the first current-context the kubeconfig
    files set, in kubectl's order (the first file to set it wins); None when none does.

    Read from the files, not with ``kubectl config current-context``: that costs a process.
    """
    if config.context:
        return config.context
    for text in _kubeconfig_texts(config):
        found = current_context_of(text) if text is not None else None
        if found:
            return found
    return None


def current_context_of(text: str) -> str | None:
    """A kubeconfig's (YAML or JSON) current-context; None when it sets none (or ``""``)."""
    if text.lstrip().startswith("{"):
        import json

        try:
            document = json.loads(text)
        except ValueError:
            return None
        value = document.get("current-context") if isinstance(document, dict) else None
        return value if isinstance(value, str) and value else None
    found = _CURRENT_CONTEXT.search(text)
    if found is None:
        return None
    if found["double"] is not None:
        import json

        try:
            value = json.loads(f'"{found["double"]}"')
        except ValueError:
            return None
    elif found["single"] is not None:
        value = found["single"].replace("''", "'")
    else:
        value = found["plain"] or ""
    return str(value) or None


def _kubeconfig_texts(config: ClusterConfig) -> list[str | None]:
    """Each kubeconfig file's text (its first MiB), None for one that cannot be read."""
    texts: list[str | None] = []
    for path in kubeconfig_paths(config):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                texts.append(handle.read(1 << 20))
        except OSError:
            texts.append(None)
    return texts


def kubeconfig_missing(config: ClusterConfig) -> bool:
    """No kubeconfig file kubectl would read exists (a wrong path, or none at all)."""
    return not any(os.path.exists(path) for path in kubeconfig_paths(config))


# HOME for kubectl when $HOME/.kube/config cannot even be looked up: the Cloud SDK
# dispatcher stats that path even with --kubeconfig or $KUBECONFIG and fails on any error
# but "no such file" (HOME=/dev/null for a service user, ~/.kube a regular file or a symlink
# loop: "not a directory", "too many levels of symbolic links"); under the conventional
# no-home path it finds no file and carries on, reading only the kubeconfig it was given.
NO_HOME = "/nonexistent"


# A kubectl that lives as long as the live feed (its watch of the Deployments, for hours):
# Go's collector keeps the heap its first list grew to (the pages of every object, long
# since printed) resident unless a memory limit asks it to collect and give it back. A soft
# limit: it changes when Go collects, never what kubectl does or prints. Not when the
# person running the adapter set a limit themselves; a GOGC of theirs composes with it (Go
# collects at whichever comes first), so theirs is kept and the limit still applies.
LEAN_GO = {"GOMEMLIMIT": "16MiB"}


def kubectl_environment(lean: bool = False) -> dict[str, str] | None:
    """kubectl's environment: ours (``None``), unless kubectl would fail on
    ``$HOME/.kube/config`` before reading the kubeconfig it was given; ``lean``: a
    long-lived watch, with ``LEAN_GO``."""
    home = os.environ.get("HOME")
    changes: dict[str, str] = {}
    if lean and "GOMEMLIMIT" not in os.environ:
        changes.update(LEAN_GO)
    if home is not None:
        try:
            os.stat(os.path.join(home, ".kube", "config"))
        except FileNotFoundError:
            pass
        except OSError:
            changes["HOME"] = NO_HOME
    return {**os.environ, **changes} if changes else None


def _servergroups(discovery: str) -> list[str]:
    """``glob(discovery/*/servergroups.json)`` with os alone (glob is one more module before
    every read's kubectl): one file per API server kubectl has cached, hidden folders not."""
    try:
        with os.scandir(discovery) as entries:
            names = [entry.name for entry in entries if not entry.name.startswith(".")]
    except OSError:
        return []
    found = (os.path.join(discovery, name, "servergroups.json") for name in names)
    return [path for path in found if os.path.lexists(path)]


def discovery_stamp(cache_dir: str | None) -> tuple[int, int]:
    """How many discovery caches kubectl has written, and the newest one's time."""
    root = cache_dir or os.environ.get("KUBECACHEDIR")
    if not root:
        root = os.path.join(os.path.expanduser("~"), ".kube", "cache")
    found = _servergroups(os.path.join(root, "discovery"))
    newest = 0
    for path in found:
        with contextlib.suppress(OSError):
            newest = max(newest, os.stat(path).st_mtime_ns)
    return len(found), newest


def which(name: str) -> str | None:
    """kubectl's path: ``shutil.which(name)`` for an executable, without importing shutil
    (with zlib, bz2 and lzma: 7 modules a command never uses) before its first kubectl."""

    def runnable(path: str) -> bool:
        return os.access(path, os.F_OK | os.X_OK) and not os.path.isdir(path)

    if os.path.dirname(name):
        return name if runnable(name) else None
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder or os.curdir, name)
        if runnable(path):
            return path
    return None


# The context's own namespace, exactly: ``{..namespace}`` would also match a ``namespace``
# key anywhere else in the minified kubeconfig (a cluster's ``extensions``), in map order.
CONTEXT_NAMESPACE = [
    "config",
    "view",
    "--minify",
    "-o",
    "jsonpath={.contexts[0].context.namespace}",
]


def context_namespace_of(config: ClusterConfig, found: str) -> str:
    """The namespace the kubeconfig's context names (``CONTEXT_NAMESPACE``'s output), else
    ``default``; one that is no namespace name is the kubeconfig's fault."""
    if not found:
        return "default"
    if not is_dns1123_label(found):
        looked_for = kubeconfig_looked_for(config)
        raise ConfigurationError(
            f"the kubeconfig context's namespace {found!r} {DNS1123_RULE} "
            f"(kubeconfig: {looked_for}); fix the context or pass -n",
            {"namespace": found, "kubeconfig": looked_for},
        )
    return found


def kubectl_binary(config: ClusterConfig) -> str:
    """kubectl's path: ``--kubectl`` if given, else the first on PATH."""
    wanted = config.kubectl or "kubectl"
    found = which(wanted)
    if found is None:
        where = "on PATH" if config.kubectl is None else f"at {wanted!r}"
        raise ConfigurationError(
            f"kubectl not found {where}: install kubectl or pass --kubectl PATH",
            {"kubectl": wanted},
        )
    return found
