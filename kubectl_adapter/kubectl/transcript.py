"""What an operator sees of the kubectl commands: the ``-v`` log and the ``--dry-run`` plan.

Both are bash that pastes as is, and this module is the one place that writes it: every
command is shown exactly as run (``kubectl``, not its resolved path; secrets redacted),
everything else (outcomes, notes) is a ``#`` comment. Three rules make a paste do what the
adapter did, later too:

- A manifest kubectl reads on stdin (``-f -``) follows its command as a quoted heredoc.
- A wait is shown once, as the one command that waits the whole ``--timeout``. The
  adapter's waits are watches (``kubectl get … --watch``, the Deployment's and its Pods' at
  once) it judges event by event and kills once decided: pasted, such a watch would never
  end. So the watches are shown as comments, and the pasteable line is the kubectl command
  that waits for the same end state (``Wait.by_hand``: ``rollout status``,
  ``wait --for=delete``) with the whole ``--timeout``; watches started again after one
  broke off are comments only.
- A read whose 404 the adapter took for "absent" ends in ``|| true``: pasted under
  ``bash -e`` it goes on, as the adapter did.
- A guarded apply's manifest keeps its ``metadata.uid`` (pasted after the Deployment was
  deleted and re-created, the apply fails with a 409 rather than change the new one) but not
  its ``resourceVersion``: that only guards the instant between the adapter's read and its
  apply, and pasted a minute later it would fail with "the object has been modified".
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import NamedTuple

from .bounds import seconds_arg
from .requests_log import KLOG_START


def redact(text: str) -> str:
    """``contract.redact.redact``, imported by the first line shown (a -v log, an error's
    command), not by every command before its first kubectl."""
    from ..contract.redact import redact as redacted

    return redacted(text)


class Wait(NamedTuple):
    """These watches belong to a wait the adapter bounds at ``total`` seconds; ``first``
    unless they are started again. ``by_hand``: the kubectl arguments that wait for the
    same end state, pasteable (its ``--timeout`` becomes ``total``)."""

    total: float
    first: bool
    by_hand: tuple[str, ...] = ()


# A top-level metadata field of a rendered manifest (two-space indent, as our template
# writes it): only the Deployment's own resourceVersion, never one deeper in the document.
_RESOURCE_VERSION = re.compile(r"^  resourceVersion: (.*)\n", re.M)
_TIMEOUT = re.compile(r"^--timeout=\d+s$")
# kubectl's own verbosity (a paced read's ``-v=6``, a write's ``-v=7``, a watch's ``-v=6``:
# its log lines follow the requests). Pasted, it would flood the terminal with round-tripper
# lines and whole objects.
_VERBOSITY = re.compile(r"^--?v=\d+$")


def display(argv: Sequence[str]) -> str:
    """The command on one line as an operator would type it (``kubectl``, not its path)."""
    shown = ["kubectl", *argv[1:]] if argv and os.path.basename(argv[0]) == "kubectl" else argv
    import shlex

    return redact(shlex.join(shown))


def quiet(argv: Sequence[str]) -> list[str]:
    """The command without kubectl's own ``-v=N``, which changes nothing but its stderr."""
    return [arg for arg in argv if not _VERBOSITY.match(arg)]


def whole_wait(argv: Sequence[str], total: float) -> list[str]:
    """A wait slice's argv with the whole wait's ``--timeout``."""
    return [f"--timeout={seconds_arg(total)}" if _TIMEOUT.match(a) else a for a in argv]


def pasteable_manifest(manifest: str) -> tuple[str, str | None]:
    """The manifest without its resourceVersion precondition, and that value (if any)."""
    found = _RESOURCE_VERSION.search(manifest)
    if found is None:
        return manifest, None
    return _RESOURCE_VERSION.sub("", manifest, count=1), found.group(1)


def _delimiter(text: str) -> str:
    lines = set(text.splitlines())
    word, n = "MANIFEST", 1
    while word in lines:
        n += 1
        word = f"MANIFEST{n}"
    return word


def command(
    argv: Sequence[str],
    *,
    stdin: str | None = None,
    note: str = "",
    absent: bool = False,
    kubectl_verbosity: bool = False,
) -> str:
    """One command as pasteable bash: the line, its note as a comment, its stdin heredoc.
    ``absent``: the adapter read this command's 404 as "absent", so a paste goes on after it.

    kubectl's own ``-v=N`` is left out unless ``kubectl_verbosity`` (``-vv``, which shows
    kubectl's stderr too): it changes nothing in the cluster, and pasted it floods the
    terminal. The run keeps it.
    """
    shown = display(argv if kubectl_verbosity else quiet(argv))
    notes = [note] if note else []
    if absent:
        shown = f"{shown} || true"
        notes.append('a 404 (NotFound) here is "absent" to the adapter, which goes on')
    comment = f"  # {'; '.join(notes)}" if notes else ""
    if stdin is None:
        return f"{shown}{comment}"
    body, version = pasteable_manifest(redact(stdin))
    if version is not None:
        body_note = (
            f"the adapter sends resourceVersion {version} too (the version it read just "
            "before), left out here so this still applies when pasted later; the uid stays: "
            "pasted after the Deployment was re-created, it fails (409 or 422) and changes nothing"
        )
        comment = f"{comment}; {body_note}" if comment else f"  # {body_note}"
    delimiter = _delimiter(body)
    return f"{shown} <<'{delimiter}'{comment}\n{body.rstrip(chr(10))}\n{delimiter}"


def watches(
    argvs: Sequence[Sequence[str]],
    wait: Wait,
    by_hand: Sequence[str] | None,
    *,
    kubectl_verbosity: bool = False,
) -> str:
    """The watches one wait runs at once, as comments, above the command that waits for the
    same end state; a watch started again (``wait.first`` false: one broke) is only a
    comment. kubectl's own ``-v=N`` as in ``command``."""
    shown = [display(argv if kubectl_verbosity else quiet(argv)) for argv in argvs]
    listed = "\n".join(
        f"# {'the adapter watches' if n == 0 else 'and at once'}: {line}"
        for n, line in enumerate(shown)
    )
    if not wait.first:
        return f"# a watch broke off: watching again\n{listed}"
    if by_hand is None:
        return listed
    return f"{listed}\n{waits_by_hand(by_hand, wait.total, kubectl_verbosity=kubectl_verbosity)}"


def waits_by_hand(by_hand: Sequence[str], total: float, *, kubectl_verbosity: bool = False) -> str:
    """The command that waits as the watches above it do, for the whole ``total``: below
    them, or below the write they started before (where it pastes)."""
    pasted = display(whole_wait(by_hand if kubectl_verbosity else quiet(by_hand), total))
    return (
        "# (judging each event, killed once the wait is decided; pasted, a watch "
        f"never ends: the next line waits for the same end state)\n{pasted}"
    )


def outcome(returncode: int | None, seconds: float, stderr: str) -> str:
    """The comment after a command: how it ended, and kubectl's first words when it failed."""
    if returncode is None:
        return f"# killed after {seconds:.1f} s (its time bound)"
    if returncode == 0:
        return f"# exit 0 in {seconds:.2f} s"
    lines = [line for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if not KLOG_START.match(line)), lines[0] if lines else "")
    said = f": {redact(first.strip())}" if first else ""
    return f"# exit {returncode} in {seconds:.2f} s{said}"


def watched(ended: bool | None, returncode: int | None, seconds: float, stderr: str) -> str:
    """The comment after a wait's watches."""
    if ended is True:
        return f"# the watches decided the wait after {seconds:.2f} s"
    if ended is False:
        return f"# the wait's time ran out after {seconds:.1f} s"
    if not returncode:
        return f"# a watch ended after {seconds:.2f} s (the server closed it, or the connection)"
    return outcome(returncode, seconds, stderr)


def kubectl_stderr(stderr: str) -> str:
    """kubectl's own stderr (``-vv``), one comment per line."""
    return "\n".join(f"# kubectl: {line}" for line in redact(stderr.strip()).splitlines())
