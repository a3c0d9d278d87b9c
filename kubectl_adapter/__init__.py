"""kubectl-adapter: Manager containers as one-replica Kubernetes Deployments, through kubectl.

The Python API mirrors the CLI::

    from kubectl_adapter import ClusterConfig, KubernetesProvider, parse_spec
    provider = KubernetesProvider(ClusterConfig(context="kind-kind", namespace="manager"))
    snapshot = provider.create(parse_spec({...}))

Names are loaded lazily so that ``import kubectl_adapter`` stays cheap for the CLI.
"""

# First, before anything else of the adapter runs: as the CLI process (``python -m
# kubectl_adapter``, the ``kubectl-adapter`` script), SIGINT, SIGTERM and SIGHUP are held from
# here, with nothing but the interpreter's built-in signal module (loaded before any code
# runs), so that one landing while the CLI still imports is raised by
# ``kubectl.interrupts.interrupting`` as the Interrupted document and 128 + N, never a
# KeyboardInterrupt traceback or a silent death. Before this line the interpreter's default
# applies. A program importing the library keeps its own handlers.
import _signal  # type: ignore[import-not-found]
import sys as _sys

_HELD: list[int] = []  # the signals that landed before the CLI's handlers took over
_ARGV0 = (getattr(_sys, "argv", None) or [""])[0]  # "-m" while python -m finds our module
_HOLDING = _ARGV0 == "-m" or _ARGV0.rsplit("/", 1)[-1] == "kubectl-adapter"
if _HOLDING:
    for _signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(_signum, lambda signum, frame: _HELD.append(signum))

# The rest imports after the signals are held.
from importlib import import_module  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from .contract.errors import (  # noqa: E402
    AdapterError,
    ConfigurationError,
    Conflict,
    Forbidden,
    InternalError,
    Interrupted,
    InvalidInput,
    InvalidProviderId,
    NotFound,
    OutputFailed,
    RolloutFailed,
    Timeout,
    Unauthorized,
    Unavailable,
)

if TYPE_CHECKING:
    from .contract.models import Capabilities, DeleteResult, NetworkInfo, Snapshot
    from .contract.spec import ContainerSpec, load_spec, parse_spec
    from .contract.statuses import Status
    from .kubectl.config import ClusterConfig
    from .operations.provider import KubernetesProvider

__all__ = [
    "AdapterError",
    "Capabilities",
    "ClusterConfig",
    "ConfigurationError",
    "Conflict",
    "ContainerSpec",
    "DeleteResult",
    "Forbidden",
    "InternalError",
    "Interrupted",
    "InvalidInput",
    "InvalidProviderId",
    "KubernetesProvider",
    "NetworkInfo",
    "NotFound",
    "OutputFailed",
    "RolloutFailed",
    "Snapshot",
    "Status",
    "Timeout",
    "Unauthorized",
    "Unavailable",
    "load_spec",
    "parse_spec",
]

_LAZY = {
    "ClusterConfig": "kubectl.config",
    "Capabilities": "contract.models",
    "DeleteResult": "contract.models",
    "NetworkInfo": "contract.models",
    "Snapshot": "contract.models",
    "KubernetesProvider": "operations.provider",
    "ContainerSpec": "contract.spec",
    "load_spec": "contract.spec",
    "parse_spec": "contract.spec",
    "Status": "contract.statuses",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
