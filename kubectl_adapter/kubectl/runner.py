"""The one place that runs kubectl: each call decided, run, then checked.

``KubectlRunner.run`` is ``subprocess.run`` for kubectl: the call is decided once, before
its process starts (``call.decide``), logged, run through the seam (``process``; a wait's
watches at once: ``together``), then turned into its result or its one typed error by
``classify`` over kubectl's log (``requests_log.read``). Nothing below calls back up here.
With ``verbose`` each command is logged as bash to paste (``transcript``), its outcome as a
comment, kubectl's own stderr from ``-vv``. Each kubectl runs in its own process group,
killed as a whole on every way out (bound, error, signal).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from time import monotonic
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from ..contract.errors import AdapterError
from .bounds import seconds_arg
from .call import Call, again, decide, is_read
from .config import (
    CONTEXT_NAMESPACE,
    ClusterConfig,
    context_namespace_of,
    discovery_stamp,
    kubeconfig_paths,
    kubectl_binary,
)
from .process import Ended
from .seam import Kubectl

# classify, outcome, progress, requests_log, together, transcript: imported where used, after
# the first kubectl starts.
if TYPE_CHECKING:
    from subprocess import Popen

    from .classify import KubectlResult
    from .outcome import WatchEnd
    from .transcript import Wait
    from .watches import Watching


def _log(message: str, *args: object) -> None:
    """Log at INFO (only under ``-v``: ``logging`` is imported then, not on every command)."""
    import logging

    logging.getLogger("kubectl_adapter").info(message, *args)


def _register_secrets(config: ClusterConfig) -> None:
    """Before any message is built: kubectl's stderr may repeat a credential bare."""
    from ..contract.redact import register_kubeconfig_secrets

    register_kubeconfig_secrets(kubeconfig_paths(config))


class _Opened(NamedTuple):
    """A read started ahead of the run that asks for it (``KubectlRunner.open_read``)."""

    argv: list[str]
    proc: Popen[Any]
    began: float
    cold: tuple[int, int] | None


class KubectlRunner:
    """Runs kubectl for one ClusterConfig: decides each call, runs it, checks what came back."""

    def __init__(
        self,
        config: ClusterConfig,
        *,
        progress: IO[str] | None = None,
        kubectl: Kubectl | None = None,
    ) -> None:
        """``kubectl``: how calls run (the seam; default ``seam.DEFAULT``, processes)."""
        from . import seam

        self.config = config
        self.kubectl = kubectl if kubectl is not None else seam.DEFAULT
        self.progress = progress if progress is not None else sys.stderr
        self._binary: str | None = None
        self._opened: _Opened | None = None
        # A wait's watches started ahead (``open_watches``): their argv and processes.
        self._watches: tuple[list[list[str]], list[Popen[Any]]] | None = None
        self._deadline_at: float | None = None
        if config.deadline is not None:
            started = config.started if config.started is not None else monotonic()
            self._deadline_at = started + config.deadline

    def remaining(self) -> float | None:
        """Seconds left of the command's overall deadline (``None``: no deadline)."""
        return None if self._deadline_at is None else self._deadline_at - monotonic()

    # -- argv -------------------------------------------------------------------------------

    @property
    def binary(self) -> str:
        """kubectl's path: ``--kubectl`` if given, else the first on PATH."""
        if self._binary is None:
            self._binary = kubectl_binary(self.config)
        return self._binary

    def argv(
        self, args: Sequence[str], *, namespace: str | None = None, request_timeout: bool = True
    ) -> list[str]:
        """``kubectl [--kubeconfig P] [--context C] [--cache-dir D] [-n NS] [--request-timeout S]``
        then ``ARGS``; every flag is left out when unset.

        Waits pass ``request_timeout=False``: kubectl applies --request-timeout to the whole
        watch stream too, which would cut a long wait; the process bound covers them instead.
        """
        cfg = self.config
        argv = [self.config.kubectl or "kubectl"] if cfg.dry_run else [self.binary]
        if cfg.kubeconfig:
            argv += ["--kubeconfig", cfg.kubeconfig]
        if cfg.context:
            argv += ["--context", cfg.context]
        if cfg.cache_dir:
            argv += ["--cache-dir", cfg.cache_dir]
        ns = namespace or cfg.namespace
        if ns:
            argv += ["-n", ns]
        if request_timeout:
            argv += ["--request-timeout", seconds_arg(cfg.request_timeout)]
        argv += [str(arg) for arg in args]
        return argv

    @staticmethod
    def display(argv: Sequence[str]) -> str:
        """The command as an operator would type it (``kubectl``, not its resolved path)."""
        from .transcript import display

        return display(argv)

    # -- running ----------------------------------------------------------------------------

    def run(
        self,
        args: Sequence[str],
        *,
        namespace: str | None = None,
        stdin: str | None = None,
        timeout: float | None = None,
        stream: bool = False,
        request_timeout: bool = True,
        absent_ok: bool = False,
        raw: bool = False,
        changes: bool | None = None,
        guarded: str | None = None,
    ) -> KubectlResult:
        """Run kubectl; return its output on exit 0, raise the mapped error otherwise.

        ``timeout``: a wait, bounded so (else the bound of a read or a write, ``call``).
        ``absent_ok``: the caller reads a NotFound as "absent" (a read by name); the log
        says so, and its line goes on after a 404 when pasted under ``bash -e``. ``raw``:
        stdout comes as bytes, in ``raw`` (``stdout`` is then empty). ``changes`` False: a
        write verb that changes no workload (a permission review); ``guarded``: the provider
        ID a patch with ownership tests is about (``classify``)."""
        argv = self.argv(args, namespace=namespace, request_timeout=request_timeout)
        call = decide(
            self.config, argv, args, remaining=self.remaining(), timeout=timeout,
            stdin=stdin, absent=absent_ok, stream=stream, raw=raw, changes=changes,
            guarded=guarded,
        )  # fmt: skip
        verbose = int(self.config.verbose)
        if verbose:
            from .transcript import command

            shown = command(
                call.argv, stdin=call.stdin, absent=call.absent, kubectl_verbosity=verbose > 1
            )
            _log("%s", shown)
        if call.spent:
            if verbose:
                _log("# not run: the command's overall deadline (--deadline) was reached")
            from .classify import deadline_reached

            raise deadline_reached("before", call)
        call, ended, began = self._execute(call)
        from .classify import classify

        if ended.returncode != 0 or (verbose and ended.stderr.strip()):
            _register_secrets(self.config)
        if verbose:
            from .transcript import kubectl_stderr, outcome

            _log("%s", outcome(ended.returncode, monotonic() - began, ended.stderr))
            if verbose > 1 and ended.stderr.strip():
                _log("%s", kubectl_stderr(ended.stderr))
        from .requests_log import read as read_log

        result = classify(call, ended, read_log(ended.stderr))
        if isinstance(result, AdapterError):
            raise result
        return result

    def _execute(self, call: Call) -> tuple[Call, Ended, float]:
        """Run ``call`` (in the process ``open_read`` started for it, if any); once more if
        its bound went on discovery with a cold cache. The call last run, what it left, and
        when the first run began."""
        # A read bound covers one request, not kubectl's discovery before it: with a cold
        # cache on a slow API, discovery alone can use the bound up. If the killed run left
        # the discovery cache written, it did get through: once more, now with a warm cache.
        echo = self._echo if call.stream else None
        opened = self._take_opened(list(call.argv)) if call.stdin is None and echo is None else None
        if opened is not None:
            cold, began = opened.cold, opened.began
            ended = self.kubectl.run(call, began, started=opened.proc)
        else:
            cold = discovery_stamp(self.config.cache_dir) if call.kind == "read" else None
            began = monotonic()
            ended = self.kubectl.run(call, began, echo=echo)
        if (
            ended.returncode is None
            and call.pacing is None  # a paced read was stopped by one unanswered request
            and cold is not None
            and discovery_stamp(self.config.cache_dir) != cold
        ):
            once_more = again(call, self.remaining())
            if once_more is not None:
                _log("# kubectl spent its bound on discovery (cold cache): once more")
                call = once_more
                ended = self.kubectl.run(call, monotonic(), echo=echo)
        return call, ended, began

    def open_read(self, args: Sequence[str], *, namespace: str | None = None) -> None:
        """Start a command's first read now, before the imports the rest of the command
        needs: its kubectl (about as long as those imports) runs beside them. The ``run``
        asking for the same command takes it over (logged and bounded as its own); ``close``
        kills it if none does. Best effort: whatever stops it here (no kubectl, a deadline
        already spent) is left for that run to report, in its place."""
        if self._opened is not None or self.config.dry_run or not is_read(args):
            return
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return
        try:
            argv = self.argv(args, namespace=namespace)
        except AdapterError:
            return
        cold = discovery_stamp(self.config.cache_dir)
        began = monotonic()

        def keep(proc: Popen[Any]) -> None:
            self._opened = _Opened(argv, proc, began, cold)

        with contextlib.suppress(AdapterError):
            self.kubectl.start(argv, keep)

    def open_watches(self, commands: Sequence[Sequence[str]], *, namespace: str) -> None:
        """Start a wait's watches now (start's and stop's first kubectl), before the imports
        the rest of the command needs, as ``open_read`` starts a read: ``watch_together``
        asking for the same watches takes them over; ``close`` kills them if none does. They
        are reads: the API server answering them is what proves the wait's permissions, before
        the write, whoever started them. Best effort, like ``open_read``."""
        if self._watches is not None or self.config.dry_run:
            return
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return
        try:
            argvs = [self.argv(args, namespace=namespace, request_timeout=False)
                     for args in commands]  # fmt: skip
        except AdapterError:
            return
        procs: list[Popen[Any]] = []
        self._watches = (argvs, procs)  # ``close`` kills whatever started, whatever stops it
        try:
            for argv in argvs:
                self.kubectl.start(argv, procs.append)
        except AdapterError:  # all of them or none: the wait starts its watches itself
            self._drop_watches()

    def take_watches(self, argvs: list[list[str]]) -> list[Popen[Any]]:
        opened = self._watches
        if opened is None or opened[0] != argvs or len(opened[1]) != len(argvs):
            return []
        self._watches = None
        return opened[1]

    def _take_opened(self, argv: list[str]) -> _Opened | None:
        opened = self._opened
        if opened is None or opened.argv != argv:
            return None
        self._opened = None
        return opened

    def close(self) -> None:
        """Kill what ``open_read``/``open_watches`` started that no run took (it ended first)."""
        opened, self._opened = self._opened, None
        if opened is not None:
            self.kubectl.stop(opened.proc)
        self._drop_watches()

    def _drop_watches(self) -> None:
        watches, self._watches = self._watches, None
        for proc in watches[1] if watches is not None else ():
            self.kubectl.stop(proc)

    def context_namespace(self) -> str:
        """``-n``, else the context's namespace, else ``default``: the namespace kubectl would use.

        Costs one local kubectl call (no API request) when ``-n`` was not given; a dry run
        assumes ``default`` rather than run anything.
        """
        if self.config.namespace:
            return self.config.namespace
        if self.config.dry_run:
            return "default"
        return context_namespace_of(self.config, self.run(CONTEXT_NAMESPACE).stdout.strip())

    def run_json(
        self, args: Sequence[str], *, decode: Callable[[bytes], Any] | None = None, **kwargs: Any
    ) -> Any:
        """Run a kubectl command that prints JSON; empty output (``--ignore-not-found``) is None.

        The JSON is checked against the fields the adapter reads (``shapes``): what the pure
        rules get is typed, and anything else is InternalError naming the command. ``decode``:
        a quicker typed decoder for this answer (``workload_fields``); when it returns None the
        output is decoded and checked as above (``outcome.parse_json``).
        """
        result = self.run(args, raw=decode is not None, **kwargs)
        output: str | bytes = result.raw if decode is not None else result.stdout
        from . import outcome

        return outcome.parse_json(args, result.argv, output, decode)

    def watch_together(
        self,
        commands: Sequence[Sequence[str]],
        watching: Watching,
        *,
        namespace: str | None = None,
        seconds: float,
        wait: Wait,
    ) -> WatchEnd:
        """Run several ``kubectl get … --watch`` at once for at most ``seconds``, their output
        fed to ``watching`` as it comes (``together``, imported once a wait runs). ``decided``
        True: ``watching`` said the wait is over; False: the time passed. None: one kubectl
        exited first (a watch the server closed, a dropped connection), and ``failure`` is its
        error when it exited non-zero. The others are killed either way; watches ``watching``
        stops for want of an answer raise as such a read would."""
        from .together import watch_together

        return watch_together(self, commands, watching, namespace=namespace, seconds=seconds,
                              wait=wait)  # fmt: skip

    def stream_call(
        self, args: Sequence[str], *, namespace: str | None, seconds: float, first: bool = True
    ) -> Call:
        """One watch of the live feed (``feed_streams``), decided as ``watch_together``'s are:
        no ``--request-timeout`` (it would cut the stream), its process bound ``seconds``."""
        argv = self.argv(args, namespace=namespace, request_timeout=False)
        if int(self.config.verbose):
            from .transcript import Wait, watches

            _log("%s", watches([argv], Wait(seconds, first), None))
        call = decide(self.config, argv, args, remaining=self.remaining(), timeout=seconds)
        return call._replace(pacing=None)

    def stream_failure(
        self, call: Call, returncode: int | None, stderr: str
    ) -> AdapterError | None:
        """The typed error of a feed's watch that exited (None: exit 0), as ``run`` types it."""
        from .classify import classify

        if returncode:
            _register_secrets(self.config)
        if int(self.config.verbose):
            from .transcript import watched

            _log("%s", watched(None, returncode, 0.0, stderr))
        from .requests_log import read as read_log

        result = classify(call, Ended(returncode, "", stderr), read_log(stderr))
        return result if isinstance(result, AdapterError) else None

    def log_by_hand(self, by_hand: Sequence[str], total: float, namespace: str | None) -> None:
        """Under ``-v``: the command that waits as watches started before a write do, logged
        after that write, where it pastes (``transcript.waits_by_hand``)."""
        verbose = int(self.config.verbose)
        if verbose:
            argv = self.argv(by_hand, namespace=namespace, request_timeout=False)
            from .transcript import waits_by_hand

            _log("%s", waits_by_hand(argv, total, kubectl_verbosity=verbose > 1))

    def _echo(self, line: str) -> None:
        """kubectl's progress line: to the progress display, else to our stderr."""
        from ..contract.redact import redact
        from . import progress

        if not progress.note(redact(line.rstrip())):
            # Under -v stderr is a pasteable log: progress goes in as comments.
            mark = "# " if self.config.verbose else ""
            self.progress.write(f"{mark}kubectl: {redact(line.rstrip())}\n")
            self.progress.flush()
