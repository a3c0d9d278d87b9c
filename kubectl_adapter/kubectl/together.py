"""A wait's watches run at once (``KubectlRunner.watch_together``): decided as every call is
(``call.decide``), run through the seam, and a watch that exited typed by ``classify``.

Imported when a wait runs, after the command's first kubectl has started: not at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

from ..contract.errors import AdapterError
from .call import decide
from .config import kubeconfig_paths
from .process import Ended

if TYPE_CHECKING:
    from subprocess import Popen

    from .config import ClusterConfig
    from .outcome import WatchEnd
    from .seam import Kubectl
    from .transcript import Wait
    from .watches import Watching


class Runner(Protocol):
    """What of ``KubectlRunner`` a wait's watches use (a Protocol: the runner imports this
    module, so this module does not import the runner)."""

    config: ClusterConfig
    kubectl: Kubectl

    def argv(
        self, args: Sequence[str], *, namespace: str | None = None, request_timeout: bool = True
    ) -> list[str]: ...

    def remaining(self) -> float | None: ...

    def take_watches(self, argvs: list[list[str]]) -> list[Popen[Any]]: ...


def watch_together(
    runner: Runner,
    commands: Sequence[Sequence[str]],
    watching: Watching,
    *,
    namespace: str | None,
    seconds: float,
    wait: Wait,
) -> WatchEnd:
    """``KubectlRunner.watch_together``'s work (its docstring says what it returns)."""
    argvs = [runner.argv(args, namespace=namespace, request_timeout=False) for args in commands]
    verbose = int(runner.config.verbose)
    if verbose:
        by_hand: list[str] | None = None
        if wait.by_hand:
            by_hand = runner.argv(wait.by_hand, namespace=namespace, request_timeout=False)
        from .transcript import watches

        _log(watches(argvs, wait, by_hand, kubectl_verbosity=verbose > 1))
    remaining = runner.remaining()
    calls = [
        decide(runner.config, argv, args, remaining=remaining, timeout=seconds, watch=True)
        for argv, args in zip(argvs, commands, strict=True)
    ]
    if calls[0].spent:
        from .classify import deadline_reached

        raise deadline_reached("before", calls[0])
    began = monotonic()
    from .watches import Unanswered

    try:
        ended, index, returncode, stderrs = runner.kubectl.watch(
            calls, watching, started=runner.take_watches(argvs)
        )
    except Unanswered as silent:
        from .classify import stopped_unanswered

        raise stopped_unanswered(calls[silent.index], silent) from None
    from .classify import classify, deadline_reached
    from .outcome import WatchEnd

    stderr = stderrs[index] if index >= 0 else "".join(stderrs)
    if returncode:
        from ..contract.redact import register_kubeconfig_secrets

        register_kubeconfig_secrets(kubeconfig_paths(runner.config))
    if verbose:
        from .transcript import kubectl_stderr, watched

        _log(watched(ended, returncode, monotonic() - began, stderr))
        if verbose > 1 and stderr.strip():
            _log(kubectl_stderr(stderr))
    if ended is False and calls[0].cut:
        raise deadline_reached("during", calls[0])
    if ended is not None or not returncode:
        return WatchEnd(ended, None)
    from .requests_log import read as read_log

    error = classify(calls[index], Ended(returncode, "", stderr), read_log(stderr))
    assert isinstance(error, AdapterError)  # it exited non-zero
    return WatchEnd(None, error)


def _log(line: str) -> None:
    """Under ``-v`` only, as the runner logs: ``logging`` is imported then."""
    import logging

    logging.getLogger("kubectl_adapter").info("%s", line)
