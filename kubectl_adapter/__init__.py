"""kubectl-adapter: Manager containers as one-replica Kubernetes Deployments, through kubectl.

The Python API mirrors the CLI::

    from kubectl_adapter import ClusterConfig, KubernetesProvider, parse_spec
    provider = KubernetesProvider(ClusterConfig(context="kind-kind", namespace="manager"))
    snapshot = provider.create(parse_spec({...}))

Names are loaded lazily so that ``import kubectl_adapter`` stays cheap for the CLI.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .contract.errors import (
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
