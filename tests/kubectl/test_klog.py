"""``klog``: kubectl's log entries, a Status body over many lines included, are told from
its own error lines (kubectl 1.32's ``-v=7`` stderr of a ``patch`` of a missing Deployment,
as it printed it against the fake API server)."""

from __future__ import annotations

from kubectl_adapter.kubectl.klog import without_klog
from kubectl_adapter.kubectl.kubectl_errors import clean_stderr

ANSWER = "Response Status: 404 Not Found in 0 milliseconds"
PATCH_404 = f"""\
I1202 05:21:58.873776    9258 loader.go:402] Config loaded from file:  /tmp/fake/kubeconfig
I1202 05:21:58.949429    9258 round_trippers.go:581] {ANSWER}
I1202 05:21:58.949651    9258 helpers.go:246] server response object: %s[{{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {{}},
  "status": "Failure",
  "message": "deployments.apps \\"nope\\" not found",
  "reason": "NotFound",
  "details": {{
    "name": "nope",
    "group": "apps",
    "kind": "deployments"
  }},
  "code": 404
}}]
Error from server (NotFound): deployments.apps "nope" not found
"""


def test_a_status_body_logged_over_many_lines_is_not_kubectls_error() -> None:
    assert (
        clean_stderr(PATCH_404) == 'Error from server (NotFound): deployments.apps "nope" not found'
    )


def test_brackets_inside_its_strings_do_not_end_the_entry() -> None:
    lines = [
        "I1202 05:21:58.949651    9258 helpers.go:246] server response object: %s[{",
        '  "message": "a ] and a } and \\" [ inside",',
        '  "code": 404',
        "}]",
        "error: the real line",
    ]
    assert without_klog(lines) == ["error: the real line"]


def test_an_entry_left_open_never_hides_kubectls_own_lines() -> None:
    """A bracket the entry never closes: only lines that go on it (indented, closing) count."""
    lines = [
        "I1202 05:21:58.949651    9258 cmd.go:1] running [kubectl",
        "  still the entry",
        "Error from server (Forbidden): deployments.apps is forbidden",
        "  a line of that error",
    ]
    assert without_klog(lines) == lines[2:]


def test_kubectls_own_lines_stay_as_they_are() -> None:
    lines = [
        'The Deployment "web-1" is invalid:',
        "* spec.template.spec.containers[0].image: Required value",
        '  {"kind": "not klog"}',
    ]
    assert without_klog(lines) == lines
