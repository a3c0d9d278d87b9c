"""``several``: NAME NAME... answered each as if alone; the document and the worst exit code."""

from __future__ import annotations

import io

from kubectl_adapter.cli.formats import Shown
from kubectl_adapter.cli.several import Several
from kubectl_adapter.contract.errors import Conflict, NotFound

RUNNING = {"providerId": "ns/a", "status": "running", "readyReplicas": 1, "replicas": 1}


def test_the_document_keeps_each_answer_in_order_and_errors_beside_their_id() -> None:
    answers = Several(("ns/a", "ns/b"), (RUNNING, NotFound("gone", {"providerId": "ns/b"})))
    assert answers.document() == {
        "items": [
            RUNNING,
            {
                "providerId": "ns/b",
                "error": {"type": "NotFound", "message": "gone", "details": {"providerId": "ns/b"}},
            },
        ]
    }


def test_the_exit_code_is_the_worst() -> None:
    assert Several(("ns/a",), (RUNNING,)).exit_code == 0
    assert Several(("a", "b", "c"), (NotFound("x"), RUNNING, Conflict("y"))).exit_code == 6


def test_a_person_gets_one_table_and_an_error_line_per_failure() -> None:
    out, err = io.StringIO(), io.StringIO()
    Several(("ns/a", "ns/b"), (RUNNING, NotFound("gone"))).write("status", Shown("table"), out, err)
    assert out.getvalue().splitlines()[1].split()[:2] == ["ns/a", "running"]
    assert err.getvalue().startswith("Error (NotFound): gone\n")


def test_json_is_the_whole_document() -> None:
    out, err = io.StringIO(), io.StringIO()
    Several(("ns/a",), (RUNNING,)).write("status", Shown("json"), out, err)
    assert (
        out.getvalue() == '{"items": [{"providerId": "ns/a", "status": "running", '
        '"readyReplicas": 1, "replicas": 1}]}\n'
    )
