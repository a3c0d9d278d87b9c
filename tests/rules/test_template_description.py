"""What describe shows of the Pod template and the revision history (issue 32), and the
identity-label restore command (``rules/ownership.py``)."""

from __future__ import annotations

import pytest

from kubectl_adapter.contract.errors import Conflict, InvalidInput
from kubectl_adapter.rules.ownership import check_identity, check_ownership
from kubectl_adapter.rules.template_description import pod_template, revisions, selector
from tests.k8s_objects import NODE, deployment, replicaset


def test_env_values_show_plainly_and_value_from_as_its_reference() -> None:
    dep = deployment(env={"KEY": "value"})
    main = dep["spec"]["template"]["spec"]["containers"][0]
    main["command"] = ["nginx", "-g", "daemon off;"]
    main["env"].append(
        {"name": "DB", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}
    )
    main["envFrom"] = [{"secretRef": {"name": "extra"}}]
    (container,) = pod_template(dep)["containers"]
    assert container["command"] == ["nginx", "-g", "daemon off;"]
    assert container["env"] == [
        {"name": "KEY", "value": "value", "valueFrom": None},
        {"name": "DB", "value": None, "valueFrom": "secretKeyRef db/password"},
    ]
    assert container["envFrom"] == ["secretRef extra"]
    assert container["limits"] == {"cpu": "1", "memory": "1Gi"}
    assert container["requests"]  # requests too, not only limits
    assert selector(dep) == (
        "org.mieweb.opensource-server.container-id=42,org.mieweb.opensource-server.managed=true"
    )


def test_the_revision_history_is_newest_first_with_the_current_one_marked() -> None:
    dep = deployment()
    old, new = replicaset(dep, "aaaaaaaaaa", 1), replicaset(dep, "bbbbbbbbbb", 2)
    history = revisions([old, new], new)
    assert [(r["revision"], r["replicaSet"], r["current"]) for r in history] == [
        (2, "web-1-bbbbbbbbbb", True),
        (1, "web-1-aaaaaaaaaa", False),
    ]


def test_an_identity_label_changed_by_hand_comes_with_the_command_that_restores_it() -> None:
    dep = deployment()
    dep["metadata"]["labels"][NODE] = "99"  # kubectl label deployment …; the template says 7
    with pytest.raises(InvalidInput) as refused:
        check_identity(dep, "42", "7")
    step = f"kubectl label deployment web-1 {NODE}=7 --overwrite -n testns"
    assert refused.value.details["nextStep"] == step
    assert refused.value.message.endswith(f"restore it: {step})")
    with pytest.raises(Conflict) as other_node:
        check_ownership(dep, node_id="7")
    assert other_node.value.details["nextStep"] == step
    # A spec for another node altogether: nothing says the label was changed by hand
    with pytest.raises(InvalidInput) as changed:
        check_identity(deployment(), "42", "8")
    assert "nextStep" not in changed.value.details
