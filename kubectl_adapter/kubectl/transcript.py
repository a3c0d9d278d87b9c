"""What an operator sees of the kubectl commands: the ``-v`` log and the ``--dry-run`` plan.

Both are bash that pastes as is, and this module is the one place that writes it: every
command is shown exactly as run (``kubectl``, not its resolved path; secrets redacted),
everything else (outcomes, notes) is a ``#`` comment. Three rules make a paste do what the
adapter did, later too:

- A manifest kubectl reads on stdin (``-f -``) follows its command as a quoted heredoc.
- A wait the adapter runs in slices (``Wait``) is shown once, as the one command that waits
  the whole ``--timeout``; the later slices are comments. Pasted, it waits as the adapter
  waits; the adapter only adds reads between slices, to stop early on a failure that cannot
  heal. The adapter's waits are watches (``kubectl get … --watch``) it judges event by event
  and kills once decided: pasted, such a watch would never end. So the watch is shown as a
  comment, and the pasteable line is the kubectl command that waits for the same end state
  (``Wait.by_hand``: ``rollout status``, ``wait --for=delete``) with the whole ``--timeout``.
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
import shlex
from collections.abc import Sequence
from typing import NamedTuple

from ..contract.redact import redact


class Wait(NamedTuple):
    """This kubectl run is one slice (at most ``slice`` seconds) of a wait the adapter
    bounds at ``total`` seconds; ``first`` for the first slice. ``by_hand``: for a watch,
    the kubectl arguments that wait for the same end state, pasteable (its ``--timeout``
    becomes ``total``)."""

    total: float
    first: bool
    slice: float
    by_hand: tuple[str, ...] = ()


# A top-level metadata field of a rendered manifest (two-space indent, as our template
# writes it): only the Deployment's own resourceVersion, never one deeper in the document.
_RESOURCE_VERSION = re.compile(r"^  resourceVersion: (.*)\n", re.M)
_TIMEOUT = re.compile(r"^--timeout=\d+s$")
# kubectl's own verbosity (``patch … -v=6``: its response lines type a 5xx whose body names
# no reason). Pasted, it would flood the terminal with round-tripper lines and whole objects.
_VERBOSITY = re.compile(r"^--?v=\d+$")
# kubectl's own log lines (``E1130 01:41:10.384773 14350 memcache.go:265] ...``).
_KLOG = re.compile(r"^[IWEF]\d{4} ")


def seconds_arg(value: float) -> str:
    """kubectl duration: whole seconds, at least 1 (``0`` would mean "no timeout")."""
    return f"{max(1, round(value))}s"


def display(argv: Sequence[str]) -> str:
    """The command on one line as an operator would type it (``kubectl``, not its path)."""
    shown = ["kubectl", *argv[1:]] if argv and os.path.basename(argv[0]) == "kubectl" else argv
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
    wait: Wait | None = None,
    by_hand: Sequence[str] | None = None,
    absent: bool = False,
    kubectl_verbosity: bool = False,
) -> str:
    """One command as pasteable bash: the line, its note as a comment, its stdin heredoc.

    kubectl's own ``-v=N`` is left out unless ``kubectl_verbosity`` (``-vv``, which shows
    kubectl's stderr too): it changes nothing in the cluster, and pasted it floods the
    terminal. The run keeps it.

    A later slice of a wait is only a comment: the first slice was shown as the whole wait.
    ``by_hand`` (the argv of ``wait.by_hand``): ``argv`` is a watch, shown as a comment
    above the command that waits the same way. ``absent``: the adapter read this command's
    404 as "absent", so a paste goes on after it.
    """
    if not kubectl_verbosity:
        argv = quiet(argv)
    if wait is not None and not wait.first:
        return f"# still waiting: next slice, {display(argv)}"
    watch = ""
    if wait is not None and by_hand is not None:
        watch = (
            f"# the adapter watches: {display(argv)}\n"
            "# (judging each event, killed once the wait is decided; pasted, a watch never "
            "ends: the next line waits for the same end state)\n"
        )
        argv = by_hand if kubectl_verbosity else quiet(by_hand)
    shown = display(whole_wait(argv, wait.total) if wait is not None else argv)
    notes = [note] if note else []
    if absent:
        shown = f"{shown} || true"
        notes.append('a 404 (NotFound) here is "absent" to the adapter, which goes on')
    if wait is not None and wait.total > wait.slice:
        notes.append(slicing_note(wait.total, wait.slice))
    comment = f"  # {'; '.join(notes)}" if notes else ""
    if stdin is None:
        return f"{watch}{shown}{comment}"
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


def slicing_note(total: float, slice_seconds: float) -> str:
    """How the adapter runs a wait that is shown whole."""
    whole = seconds_arg(total).removesuffix("s")  # as the command's own --timeout says it
    return (
        f"the adapter runs this wait in {slice_seconds:g} s slices until --timeout {whole} s, "
        "with a read between slices to stop early when the wait cannot succeed"
    )


def outcome(returncode: int | None, seconds: float, stderr: str) -> str:
    """The comment after a command: how it ended, and kubectl's first words when it failed."""
    if returncode is None:
        return f"# killed after {seconds:.1f} s (its time bound)"
    if returncode == 0:
        return f"# exit 0 in {seconds:.2f} s"
    lines = [line for line in stderr.splitlines() if line.strip()]
    first = next((line for line in lines if not _KLOG.match(line)), lines[0] if lines else "")
    said = f": {redact(first.strip())}" if first else ""
    return f"# exit {returncode} in {seconds:.2f} s{said}"


def watched(ended: bool | None, returncode: int | None, seconds: float, stderr: str) -> str:
    """The comment after one slice of a watch."""
    if ended is True:
        return f"# the watch decided the wait after {seconds:.2f} s"
    if ended is False:
        return f"# slice over after {seconds:.1f} s, the wait not decided yet"
    return outcome(returncode, seconds, stderr)


def kubectl_stderr(stderr: str) -> str:
    """kubectl's own stderr (``-vv``), one comment per line."""
    return "\n".join(f"# kubectl: {line}" for line in redact(stderr.strip()).splitlines())
