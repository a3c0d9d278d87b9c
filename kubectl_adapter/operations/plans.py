"""``--dry-run`` plans: the commands a real run would execute, as the ``-v`` log shows them.

Each step is the argument list from ``commands`` (the same the real run passes to the
runner) and a note. ``kubectl.transcript`` writes them, as it writes the ``-v`` log: the note
becomes a shell comment (when or how often the command runs), the manifest of an ``-f -``
follows as a heredoc, and a wait is the one command that waits the whole ``--timeout``. So a
plan pastes into bash as is, a minute later too.
"""

from __future__ import annotations

from ..contract.models import DryRunPlan
from ..kubectl.commands import rollout_status
from ..kubectl.runner import KubectlRunner
from ..kubectl.transcript import Wait, command, pasteable_manifest
from .waits import SLICE_SECONDS

Step = tuple[list[str], str]

# The runner gives these no --request-timeout (it would cut a long wait short).
_WAITS = ("rollout", "wait", "delete")


def _sliced(args: list[str]) -> bool:
    """A wait the real run runs in slices (``rollout status``, ``wait --for=delete``)."""
    return args[:2] == ["rollout", "status"] or args[:1] == ["wait"]


def build(
    runner: KubectlRunner, *steps: Step, namespace: str, manifest: str | None = None
) -> DryRunPlan:
    """Each command as the real run passes it to kubectl, shell-quoted, ready to paste."""
    shown = []
    total = runner.config.timeout
    for args, note in steps:
        argv = runner.argv(args, namespace=namespace, request_timeout=args[0] not in _WAITS)
        stdin = manifest if "-f" in args else None
        wait = Wait(total, True, SLICE_SECONDS) if _sliced(args) else None
        shown.append(command(argv, stdin=stdin, note=note, wait=wait))
    pasted = pasteable_manifest(manifest)[0] if manifest is not None else None
    return DryRunPlan(commands=shown, manifest=pasted)


def first_slice(timeout: float) -> float:
    """The ``--timeout`` of a wait's first kubectl run."""
    return min(timeout, SLICE_SECONDS)


def rollout_step(name: str, timeout: float, note: str = "") -> Step:
    return rollout_status(name, first_slice(timeout)), note
