"""A write whose wait's watches start before it (``Write``), and what a refusal says.

The API server answering the watches proves the wait's permissions before anything is
written (``waits.await_`` runs the write once both have listed). A refusal before the write
names the permission the Role lacks and says nothing was changed; one after it (the Role
changed while the wait ran) says what the write left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..contract.errors import AdapterError, Forbidden
from ..contract.naming import ProviderId


class Write(NamedTuple):
    """A write whose wait's watches start before it. ``run`` makes the write and returns
    the wait it starts, or the Deployment it left when there is nothing to wait for;
    ``left`` says what it leaves if that wait is refused after it. ``check``: judges the
    Deployment the watch listed (None: none) before the write, and raises to refuse it with
    nothing written (create's ownership check: its watch lists the name whatever its labels)."""

    verb: str
    provider_id: ProviderId
    run: Callable[[], object]  # a ``waits.Wait``, or the Deployment (a dict)
    left: str
    check: Callable[[dict[str, Any] | None], None] | None = None


def refused(error: AdapterError, write: Write) -> AdapterError:
    """A fault met before the write: the command ends with nothing written
    (``details.writeSent: false``). Its message is the one any call meeting the fault says
    (issue 38: one fault, one message, whichever call meets it first), but for a refusal that
    names a permission of the wait the Role lacks: that one says so, and what to do."""
    details = {**error.details, "providerId": str(write.provider_id), "writeSent": False}
    from ..contract.permissions import refused_label

    label = refused_label(error.message) if isinstance(error, Forbidden) else None
    if label is None:
        return type(error)(error.message, details)
    details["missingPermissions"] = [label]
    return Forbidden(
        f"{write.verb} of {write.provider_id} needs {label} for its wait, which this node's Role "
        "does not grant (a Role from before this version: apply rbac/role.yaml again); "
        "nothing was changed",
        details,
    )


def refused_after(error: AdapterError, write: Write) -> AdapterError:
    """A refusal once the write has landed (the Role changed while the wait ran): the error
    says the write was made and what it left."""
    if not isinstance(error, Forbidden):
        return error
    details = dict(error.details)
    details.update({"providerId": str(write.provider_id), "writeSent": True, "written": write.left})
    return Forbidden(
        f"{error.message} | {write.verb} had already written: {write.left}; run it again "
        "once the Role grants what is missing (apply rbac/role.yaml again)",
        details,
    )
