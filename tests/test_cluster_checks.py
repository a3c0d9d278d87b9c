"""check's pieces: the access reviews it sends and the stream kubectl create prints back."""

from __future__ import annotations

import json

import pytest

from kubectl_adapter.cluster_checks import _json_documents, access_reviews
from kubectl_adapter.errors import InternalError
from kubectl_adapter.permissions import CLUSTER_NEEDS, NAMESPACED_NEEDS


def test_one_review_per_permission_namespaced_or_cluster_wide() -> None:
    needs = [*NAMESPACED_NEEDS, *CLUSTER_NEEDS]
    reviews = access_reviews(needs, "testns")["items"]
    assert len(reviews) == len(needs)
    scale = next(r for r in reviews if r["spec"]["resourceAttributes"]["subresource"] == "scale")
    assert scale["spec"]["resourceAttributes"] == {
        "namespace": "testns",
        "verb": "patch",
        "group": "apps",
        "resource": "deployments",
        "subresource": "scale",
    }
    nodes = reviews[-1]["spec"]["resourceAttributes"]
    assert (nodes["resource"], nodes["namespace"]) == ("nodes", "")


def test_stream_of_objects_and_lists_are_both_read() -> None:
    one = {"kind": "SelfSubjectAccessReview", "status": {"allowed": True}}
    two = {"kind": "SelfSubjectAccessReview", "status": {"allowed": False}}
    stream = json.dumps(one, indent=4) + "\n" + json.dumps(two, indent=4) + "\n"
    assert _json_documents(stream) == [one, two]
    assert _json_documents(json.dumps({"kind": "List", "items": [one, two]})) == [one, two]
    assert _json_documents("  \n") == []


def test_garbage_is_an_internal_error() -> None:
    with pytest.raises(InternalError, match="not JSON"):
        _json_documents('{"kind": "SelfSubjectAccessReview"}\nerror: oops')
