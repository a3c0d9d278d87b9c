"""Before a write: may this identity run the wait that follows it (issue 30)?

create, start, stop and reconfigure write first and then watch the Deployment and its Pods.
A Role that lets the write through but not the wait (every node set up before the Pods'
watch) used to fail Forbidden after the change had landed, with nothing saying so. So each
asks first, in one ``kubectl create`` of a SelfSubjectAccessReview per permission its wait
needs (``permissions.WAIT_NEEDS``), and refuses before writing. Where it cannot ask (a
cluster that refuses the reviews themselves), or the Role changes between the question and
the wait, the error after the write says that the write was made and what it left.
"""

from __future__ import annotations

import json

from ..contract.errors import AdapterError, Forbidden, InternalError
from ..contract.naming import ProviderId
from ..contract.permissions import WAIT_NEEDS
from ..kubectl import commands
from ..kubectl.runner import KubectlRunner
from .cluster_checks import access_reviews, json_documents


def wait_review_document(namespace: str) -> str:
    """What a write's check feeds ``kubectl create -f -``: its wait's permissions."""
    return json.dumps(access_reviews(list(WAIT_NEEDS), namespace), indent=1)


def check_wait_permissions(runner: KubectlRunner, pid: ProviderId, verb: str) -> None:
    """Forbidden, nothing written, when the Role lacks a permission the wait needs."""
    try:
        answer = runner.run(
            commands.wait_access_reviews(),
            namespace=pid.namespace,
            stdin=wait_review_document(pid.namespace),
            changes=False,  # a review changes nothing: its failure never says "may have"
        )
    except Forbidden:
        return  # it may not ask: a refusal after the write will say what was written
    items = json_documents(answer.stdout)
    if len(items) != len(WAIT_NEEDS):
        raise InternalError(
            f"kubectl create answered {len(items)} of {len(WAIT_NEEDS)} access reviews",
            {"providerId": str(pid), "writeSent": False},
        )
    missing = [
        need.label
        for need, item in zip(WAIT_NEEDS, items, strict=True)
        if not (item.get("status") or {}).get("allowed")
    ]
    if missing:
        raise Forbidden(
            f"{verb} of {pid} needs {', '.join(missing)} for its wait, which this node's Role "
            "does not grant (a Role from before this version: apply rbac/role.yaml again); "
            "nothing was changed",
            {"providerId": str(pid), "missingPermissions": missing, "writeSent": False},
        )


def after_write(error: AdapterError, pid: ProviderId, verb: str, left: str) -> AdapterError:
    """A refusal once the write has landed (the Role changed after the check, or the check
    could not be made): the error says the write was made and what it left."""
    if not isinstance(error, Forbidden):
        return error
    details = dict(error.details)
    details.update({"providerId": str(pid), "writeSent": True, "written": left})
    return Forbidden(
        f"{error.message} | {verb} had already written: {left}; run it again once the Role "
        "grants what is missing (apply rbac/role.yaml again)",
        details,
    )
