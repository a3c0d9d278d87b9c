"""``--dry-run`` plans: the commands a real run would execute, as the ``-v`` log shows them.

Each step is the argument list from ``commands`` (the same the real run passes to the
runner) and a note. ``kubectl.transcript`` writes them, as it writes the ``-v`` log: the note
becomes a shell comment (when or how often the command runs), the manifest of an ``-f -``
follows as a heredoc, and a wait is the one command that waits the whole ``--timeout``. So a
plan pastes into bash as is, a minute later too. A wait the adapter runs as a watch is shown
as a comment, followed by the kubectl command that waits for the same end state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..kubectl.commands import wait_watches
from ..kubectl.runner import KubectlRunner

if TYPE_CHECKING:
    from ..contract.models import DryRunPlan


class Step(NamedTuple):
    """One command of a plan. ``by_hand``: the command is the adapter's watch (with
    ``beside``, the watches run at the same time), and this is what an operator pastes to
    wait the same way. ``absent_ok``: a read whose 404 the operation takes for "absent".
    ``stdin``: what its ``-f -`` reads, when not the plan's manifest."""

    args: list[str]
    note: str = ""
    by_hand: list[str] | None = None
    absent_ok: bool = False
    beside: tuple[list[str], ...] = ()
    stdin: str | None = None


# The runner gives these no --request-timeout (it would cut a long wait short).
_WAITS = ("rollout", "wait", "delete")


def _is_wait(args: list[str]) -> bool:
    return args[0] in _WAITS or "--watch" in args


def build(
    runner: KubectlRunner,
    *steps: Step | tuple[list[str], str],
    namespace: str,
    manifest: str | None = None,
) -> DryRunPlan:
    """Each command as the real run passes it to kubectl, shell-quoted, ready to paste. A
    wait's watches followed by steps start before them (the write they see land): the
    command that waits the same way pastes below the last, as the ``-v`` log shows it."""
    # Imported by a plan, not by the run that shares its steps (status: ~1.5 ms less).
    from ..kubectl.transcript import Wait, command, pasteable_manifest, waits_by_hand, watches

    shown: list[str] = []
    total = runner.config.timeout
    after_next: str | None = None  # the wait by hand, below the write
    for index, step in enumerate(steps):
        args, note, by_hand, absent_ok, beside, own_stdin = Step(*step)
        argv = runner.argv(args, namespace=namespace, request_timeout=not _is_wait(args))
        if by_hand is not None:
            watched = [argv, *(runner.argv(more, namespace=namespace, request_timeout=False)
                               for more in beside)]  # fmt: skip
            by_hand_argv = runner.argv(by_hand, namespace=namespace, request_timeout=False)
            if index + 1 < len(steps):
                lines = watches(watched, Wait(total, True), None)
                after_next = waits_by_hand(by_hand_argv, total)
            else:
                lines = watches(watched, Wait(total, True), by_hand_argv)
            shown.append(f"{lines}  # {note}" if note else lines)
            continue
        stdin = own_stdin if own_stdin is not None else manifest if "-f" in args else None
        shown.append(command(argv, stdin=stdin, note=note, absent=absent_ok))
    if after_next is not None:
        shown.append(after_next)
    from ..contract.models import DryRunPlan

    pasted = pasteable_manifest(manifest)[0] if manifest is not None else None
    return DryRunPlan(commands=shown, manifest=pasted)


def watch_step(
    name: str, selector: str, by_hand: list[str], note: str = "", *, any_labels: bool = False
) -> Step:
    """A wait: the watches of the Deployment and of its Pods (``selector``), judged event by
    event (killed when it is over); ``by_hand`` waits for the same end state when pasted.
    ``any_labels``: the Deployment by its name alone (``commands.wait_watches``)."""
    deployment, pods = wait_watches(name, selector, any_labels=any_labels)
    return Step(deployment, note, by_hand, beside=(pods,))
