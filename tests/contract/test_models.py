"""The CLI's output classes (``models``, plain classes) and the pydantic models
``output_models`` derives from them for the JSON Schemas describe the same documents: same
fields, same wire names, same defaults, and each reads what the other writes."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from kubectl_adapter.contract import models, output_models
from kubectl_adapter.contract.statuses import Status

NAMES = [
    "DriftChange", "Drift", "Snapshot", "SnapshotList", "NetworkInfo", "DeleteResult",
    "Capabilities", "Permission", "CheckResult", "NodeInfo", "NodeList", "DryRunPlan",
    "ErrorBody", "ErrorOutput",
]  # fmt: skip

SNAPSHOT: dict[str, Any] = {
    "providerId": "ns/web-1", "vmid": "ns/web-1", "name": "web-1", "namespace": "ns",
    "node": "7", "containerId": "42", "status": "running", "message": "1/1 available",
    "podIp": "10.0.0.1", "ipv4Address": "10.0.0.1", "macAddress": None, "ephemeral": True,
    "image": "nginx", "cpus": 0.5, "memoryMb": 64, "replicas": 1, "readyReplicas": 1,
    "availableReplicas": 1, "updatedReplicas": 1, "generation": 2, "observedGeneration": 2,
    "drift": {
        "state": "drifted", "summary": "image changed by kubectl-edit",
        "changes": [{"what": "image", "change": "changed", "by": ["kubectl-edit"],
                     "path": "spec.template.spec.containers[name=main].image", "name": "main",
                     "value": "nginx:2", "reconfigure": "restores"}],
        "restored": [],
    },
    "podNode": "node-1", "createdAt": "2026-12-01T20:00:00Z",
}  # fmt: skip
DOCUMENTS: dict[str, dict[str, Any]] = {
    "Snapshot": SNAPSHOT,
    "SnapshotList": {"items": [SNAPSHOT]},
    "DeleteResult": {"providerId": "ns/a", "deleted": True, "alreadyMissing": False},
    "NodeList": {
        "items": [
            {
                "name": "n",
                "ready": True,
                "capacity": {"cpu": "4"},
                "allocatable": {"cpu": "4"},
                "kubeletVersion": None,
                "internalIp": "10.0.0.4",
                "externalIp": None,
            }
        ]
    },
    "ErrorOutput": {"error": {"type": "NotFound", "message": "gone", "details": {"a": 1}}},
    "DryRunPlan": {"dryRun": True, "commands": ["kubectl get x"], "manifest": None},
}


@pytest.mark.parametrize("name", NAMES)
def test_same_fields_wire_names_and_defaults(name: str) -> None:
    light = getattr(models, name)
    heavy = getattr(output_models, name)
    light_fields = {f.name: f for f in models.fields(light)}
    assert list(light_fields) == list(heavy.model_fields), name
    for field_name, info in heavy.model_fields.items():
        assert models.to_camel(field_name) == info.alias, (name, field_name)
        light_field = light_fields[field_name]
        factory = light_field.default_factory
        has_default = light_field.default is not models.MISSING
        assert (has_default or factory is not models.MISSING) == (not info.is_required()), (
            name,
            field_name,
        )
        if has_default:
            assert light_field.default == info.default, (name, field_name)
        elif factory is not models.MISSING:
            assert info.default_factory is not None, (name, field_name)
            assert factory() == info.default_factory(), (name, field_name)  # type: ignore[call-arg]


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_each_reads_what_the_other_writes(name: str) -> None:
    document = DOCUMENTS[name]
    light = getattr(models, name).model_validate(document)
    heavy = getattr(output_models, name).model_validate(document)
    assert light.to_json() == heavy.to_json() == document


def test_unknown_fields_and_statuses_are_refused() -> None:
    with pytest.raises(TypeError):
        models.Snapshot.model_validate(SNAPSHOT | {"extra": 1})
    with pytest.raises(ValueError):
        models.Snapshot.model_validate(SNAPSHOT | {"status": "sleeping"})
    assert models.Snapshot.model_validate(SNAPSHOT).status is Status.RUNNING


def test_output_classes_behave_as_the_dataclasses_they_replace() -> None:
    """``Output`` gives the classes dataclass behaviour without importing ``dataclasses``:
    keyword init with defaults, a fresh default per object, required fields, no strays,
    ``__post_init__``, value equality, fields in declaration order (bases first)."""

    class Base(models.Output):
        first: str
        tags: list[str] = models.field(default_factory=list)

    class Child(Base):
        count: int = 0
        seen: ClassVar[list[str]] = []

        def __post_init__(self) -> None:
            self.seen.append(self.first)

    assert [f.name for f in models.fields(Child)] == ["first", "tags", "count"]
    a, b = Child(first="a"), Child(first="a")
    assert a == b and a is not b and a.tags is not b.tags
    a.tags.append("x")
    assert a != b and b.tags == []
    assert Child(first="a", count=2) != Child(first="a")
    assert Child.seen == ["a", "a", "a", "a"]
    assert repr(Child(first="z")).endswith(".Child(first='z', tags=[], count=0)")
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'first'"):
        Child()
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Child(first="a", colour="red")
    with pytest.raises(TypeError):
        hash(a)  # mutable, compared by value: unhashable, as a dataclass with eq
    assert Base(first="a") != Child(first="a")  # another class is never equal
