"""What this provider offers Manager's shared jobs, as Manager reads it (camelCase JSON).

A plain constant, so ``kubectl-adapter capabilities`` answers without importing pydantic;
``models.Capabilities`` describes the same document (a test keeps them equal).
"""

from __future__ import annotations

CAPABILITIES: dict[str, bool] = {
    "stableMacAddress": False,
    "stableIpAddress": False,
    "vmid": False,
    "storage": False,
    "templates": False,
    "registerNetbox": False,
    "registerDns": False,
    "podIpEphemeral": True,
}
