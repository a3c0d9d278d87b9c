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

from .errors import (
    AdapterError,
    ConfigurationError,
    Conflict,
    Forbidden,
    InternalError,
    Interrupted,
    InvalidInput,
    InvalidProviderId,
    NotFound,
    RolloutFailed,
    Timeout,
    Unauthorized,
    Unavailable,
)

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .models import Capabilities, DeleteResult, NetworkInfo, Snapshot
    from .provider import KubernetesProvider
    from .spec import ContainerSpec, load_spec, parse_spec
    from .status import Status

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
    "ClusterConfig": "config",
    "Capabilities": "models",
    "DeleteResult": "models",
    "NetworkInfo": "models",
    "Snapshot": "models",
    "KubernetesProvider": "provider",
    "ContainerSpec": "spec",
    "load_spec": "spec",
    "parse_spec": "spec",
    "Status": "status",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
