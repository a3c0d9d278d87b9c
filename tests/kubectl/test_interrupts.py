"""A signal while kubectl is being spawned is held until the runner holds the process."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

import pytest

from kubectl_adapter.kubectl import interrupts
from kubectl_adapter.kubectl.config import ClusterConfig
from kubectl_adapter.kubectl.runner import KubectlRunner
from tests.reliability.helpers import alive, await_true


def test_a_signal_inside_deferred_is_raised_when_it_ends() -> None:
    reached_end_of_block = False
    with (
        interrupts.interrupting(),
        pytest.raises(interrupts.Signalled) as info,
        interrupts.deferred(),
    ):
        os.kill(os.getpid(), signal.SIGTERM)
        reached_end_of_block = True
    assert reached_end_of_block
    assert info.value.signum == signal.SIGTERM


def test_a_signal_while_popen_starts_kubectl_still_kills_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The window that leaked kubectl: the signal lands before Popen has returned."""
    started: list[subprocess.Popen[Any]] = []
    real_popen = subprocess.Popen

    def popen_then_signal(argv: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
        proc = real_popen(["sleep", "60"], **kwargs)
        started.append(proc)
        os.kill(os.getpid(), signal.SIGTERM)  # still inside "Popen"
        return proc

    monkeypatch.setattr(subprocess, "Popen", popen_then_signal)
    runner = KubectlRunner(ClusterConfig(namespace="testns", kubectl="/bin/sh"))
    with interrupts.interrupting(), pytest.raises(interrupts.Signalled):
        runner.run(["get", "deployment", "web-1"])
    assert started
    await_true(lambda: not alive(started[0].pid), 5, "the spawned process killed")
    started[0].wait(timeout=5)


def test_a_signal_while_the_cli_imports_the_provider_waits_for_the_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pydantic-core (a Rust extension) aborts the process if a signal's exception surfaces
    inside its module initialisation: seen once in 36 start-up trials as a panic, exit 1 and
    no document. The CLI holds signals while it imports the provider."""
    import sys
    import types

    from kubectl_adapter.cli import app, dispatch

    finished: list[bool] = []

    class Importing(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name != "KubernetesProvider":
                raise AttributeError(name)
            os.kill(os.getpid(), signal.SIGTERM)  # lands inside the import
            finished.append(True)
            return lambda config, runner: config

    monkeypatch.setitem(sys.modules, "kubectl_adapter.operations.provider", Importing("p"))
    args = app.build_parser().parse_args(["-n", "testns", "status", "testns/web-1"])
    runner = KubectlRunner(dispatch.config_of(args))
    with interrupts.interrupting(), pytest.raises(interrupts.Signalled):
        dispatch.provider_of(args, runner)
    assert finished == [True]  # the import ran to its end before the signal was raised


def _frame_of(filename: str) -> Any:
    """A frame whose code says it is ``filename`` (as importlib's frozen modules do)."""
    scope: dict[str, Any] = {}
    exec(compile("import sys\nframe = sys._getframe()", filename, "exec"), scope)
    return scope["frame"]


def test_a_signal_inside_the_import_machinery_is_raised_just_after_it() -> None:
    """Python swallows an exception raised in importlib's module-lock weakref callback
    ("Exception ignored in: <function _get_module_lock.<locals>.cb>"): a SIGTERM raised there
    was lost, and the command went on ignoring every later signal. It is raised a moment
    later, out of importlib's own code."""
    with interrupts.interrupting(), pytest.raises(interrupts.Signalled) as info:
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        try:
            handler(signal.SIGTERM, _frame_of("<frozen importlib._bootstrap>"))
        except interrupts.Signalled:
            pytest.fail("raised inside importlib's own code, where Python may swallow it")
        # The retry's SIGALRM (RETRY_SECONDS) ends this wait with the Signalled; the wait's
        # length only bounds a broken retry.
        signal.sigtimedwait([signal.SIGUSR2], 5)
    assert info.value.signum == signal.SIGTERM
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_signal_in_a_module_being_imported_is_raised_at_once() -> None:
    """Code of a module being imported unwinds like any other: only importlib's own frames
    wait for the retry."""
    with interrupts.interrupting(), pytest.raises(interrupts.Signalled):
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, _frame_of("/site-packages/jinja2/environment.py"))
