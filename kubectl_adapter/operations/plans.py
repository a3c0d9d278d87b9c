"""``--dry-run`` plans: the commands a real run would execute, shown ready to paste.

Each step is the argument list from ``commands`` (the same the real run passes to the
runner) and a note. The note becomes a shell comment after the command, so the line stays
pasteable while saying when or how often the command runs (a wait's 10 s slices).
"""

from __future__ import annotations

from ..contract.models import DryRunPlan
from ..contract.naming import owner_labels
from ..kubectl.commands import rollout_status, watch_deployment
from ..kubectl.runner import KubectlRunner
from .waits import SLICE_SECONDS

Step = tuple[list[str], str]

# The runner gives these no --request-timeout (it would cut a long wait short).
_WAITS = ("rollout", "wait", "delete")


def _is_wait(args: list[str]) -> bool:
    return args[0] in _WAITS or "--watch" in args


def build(
    runner: KubectlRunner, *steps: Step, namespace: str, manifest: str | None = None
) -> DryRunPlan:
    """Each command exactly as the real run passes it to kubectl, shell-quoted."""
    shown = []
    for args, note in steps:
        argv = runner.argv(args, namespace=namespace, request_timeout=not _is_wait(args))
        line = runner.display(argv)
        shown.append(f"{line}  # {note}" if note else line)
    return DryRunPlan(commands=shown, manifest=manifest)


def first_slice(timeout: float) -> float:
    """The ``--timeout`` of a wait's first kubectl run."""
    return min(timeout, SLICE_SECONDS)


def slice_note(timeout: float, what: str) -> str:
    """How a sliced wait repeats; nothing when one slice is the whole wait."""
    if timeout <= SLICE_SECONDS:
        return ""
    return (
        f"first {SLICE_SECONDS:g} s slice; repeated, with a read of {what} between slices, "
        f"until --timeout {timeout:g} s has passed"
    )


def rollout_step(name: str, timeout: float, note: str = "") -> Step:
    text = "; ".join(part for part in (note, slice_note(timeout, "the workload")) if part)
    return rollout_status(name, first_slice(timeout)), text


def watch_step(name: str, timeout: float, note: str = "") -> Step:
    """A wait: the Deployment's watch, judged event by event (killed when it is over)."""
    text = "; ".join(
        part
        for part in (note, "ends when the wait is decided", slice_note(timeout, "the workload"))
        if part
    )
    return watch_deployment(name, owner_labels(None, None)), text
