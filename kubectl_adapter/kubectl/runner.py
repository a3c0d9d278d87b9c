"""The one place that builds kubectl argv and runs kubectl.

Every call: a list argv (never a shell string), a timeout, manifests on stdin, stdout and
stderr captured, failures translated by ``kubectl_errors.classify``. With ``verbose`` each
command is logged as bash an operator can paste (``transcript``), followed by its outcome as
a comment; kubectl's own stderr is logged too from ``verbose`` 2 (``-vv``). A wait loop
passes ``wait=transcript.Wait(...)`` on each slice, so the log shows the whole wait once.

Bounds: a read-only kubectl (``get``, ``version``) lives at most ``--request-timeout`` plus a
grace, any other non-wait call ``--call-timeout``, a wait its own timeout plus a grace; and
every one of them at most what is left of the command's overall deadline. Each kubectl runs
in its own process group, killed as a whole on every way out (bound, error, signal), so no
``rollout status`` or exec credential plugin outlives the command.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from time import monotonic
from typing import IO, Any, NamedTuple

from ..contract.errors import AdapterError, ConfigurationError, InternalError, Timeout, Unavailable
from ..contract.naming import DNS1123_RULE, is_dns1123_label
from ..contract.redact import redact, register_kubeconfig_secrets
from . import progress
from .bounds import READ_GRACE_SECONDS
from .config import ClusterConfig
from .interrupts import deferred
from .kubectl_errors import classify, explain_kubeconfig, is_fatal_wait_line
from .shapes import output_problem
from .transcript import Wait, kubectl_stderr, outcome, seconds_arg
from .transcript import command as transcript_command
from .transcript import display as transcript_display

log = logging.getLogger("kubectl_adapter")

# Extra time a waiting kubectl gets beyond its own --timeout before we kill it: it must be
# allowed to report its own timeout (with its own words) before we call it a hang.
WAIT_GRACE_SECONDS = 15.0

# A non-empty current-context in kubeconfig YAML or JSON.
_CURRENT_CONTEXT = re.compile(r"""(?<![\w-])["']?current-context["']?\s*:\s*["']?[^"'\s,}]""")

# How long we still read a killed kubectl's pipes: a child it started (an exec credential
# plugin) can hold them open, and must not turn our bounded call into an unbounded one.
KILL_DRAIN_SECONDS = 5.0

# kubectl verbs that only read: bounded by the request timeout (plus READ_GRACE_SECONDS),
# not by the much longer --call-timeout. ``config view`` reads only the kubeconfig, yet the
# Cloud SDK dispatcher build may run the exec credential plugin for it (to ask the server's
# version): a hanging plugin must cost a read's bound, not --call-timeout.
READ_VERBS = frozenset({"get", "version", "config"})

# The context's own namespace, exactly: ``{..namespace}`` would also match a ``namespace``
# key anywhere else in the minified kubeconfig (a cluster's ``extensions``), in map order.
CONTEXT_NAMESPACE = [
    "config",
    "view",
    "--minify",
    "-o",
    "jsonpath={.contexts[0].context.namespace}",
]

# A waiting kubectl whose watch is refused (401/403) this many times is stopped: it would
# retry until its --timeout (the whole wait slice) and then time out for nothing.
REFUSALS_TO_GIVE_UP = 2

# HOME for kubectl when ours is not a directory (HOME=/dev/null for a service user): the
# Cloud SDK dispatcher stats $HOME/.kube/config even with --kubeconfig and fails on ENOTDIR
# ("not a directory"); under the conventional no-home path it finds no file and carries on.
NO_HOME = "/nonexistent"


class KubectlResult(NamedTuple):
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str


_seconds = seconds_arg


class KubectlRunner:
    """Runs kubectl for one ClusterConfig; the only module that touches ``subprocess``."""

    def __init__(self, config: ClusterConfig, *, progress: IO[str] | None = None) -> None:
        self.config = config
        self.progress = progress if progress is not None else sys.stderr
        self._binary: str | None = None
        self._deadline_at: float | None = None
        if config.deadline is not None:
            started = config.started if config.started is not None else monotonic()
            self._deadline_at = started + config.deadline

    def remaining(self) -> float | None:
        """Seconds left of the command's overall deadline (``None``: no deadline)."""
        return None if self._deadline_at is None else self._deadline_at - monotonic()

    def default_bound(self, args: Sequence[str]) -> float:
        """The process bound of a non-wait call: reads get their request timeout plus grace."""
        cfg = self.config
        if args and str(args[0]) in READ_VERBS:
            return min(cfg.call_timeout, cfg.request_timeout + READ_GRACE_SECONDS)
        return cfg.call_timeout

    # -- argv -------------------------------------------------------------------------------

    @property
    def binary(self) -> str:
        """kubectl's path: ``--kubectl`` if given, else the first on PATH."""
        if self._binary is None:
            wanted = self.config.kubectl or "kubectl"
            found = shutil.which(wanted)
            if found is None:
                where = "on PATH" if self.config.kubectl is None else f"at {wanted!r}"
                raise ConfigurationError(
                    f"kubectl not found {where}: install kubectl or pass --kubectl PATH",
                    {"kubectl": wanted},
                )
            self._binary = found
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
            argv += ["--request-timeout", _seconds(cfg.request_timeout)]
        argv += [str(arg) for arg in args]
        return argv

    @staticmethod
    def display(argv: Sequence[str]) -> str:
        """The command as an operator would type it (``kubectl``, not its resolved path)."""
        return transcript_display(argv)

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
        wait: Wait | None = None,
    ) -> KubectlResult:
        """Run kubectl; return its output on exit 0, raise the mapped error otherwise.

        ``wait``: this run is one slice of a longer wait (see ``transcript``)."""
        argv = self.argv(args, namespace=namespace, request_timeout=request_timeout)
        shown = self.display(argv)
        verbose = int(self.config.verbose)
        if verbose:
            log.info("%s", transcript_command(argv, stdin=stdin, wait=wait))
        bound = timeout if timeout is not None else self.default_bound(args)
        remaining = self.remaining()
        cut = remaining is not None and remaining < bound
        if remaining is not None and remaining <= 0:
            if verbose:
                log.info("# not run: the command's overall deadline (--deadline) was reached")
            raise Timeout(
                f"the command's overall deadline ({self.config.deadline:g}s, --deadline) "
                f"was reached before: {shown}",
                {"command": shown, "reason": "deadline", "deadlineSeconds": self.config.deadline},
            )
        if cut:
            assert remaining is not None
            bound = remaining
        began = monotonic()
        returncode, stdout, stderr = self._execute(argv, stdin, bound, stream)
        if returncode != 0 or (verbose and stderr.strip()):
            # Before any message is built: kubectl's stderr may repeat a credential bare.
            register_kubeconfig_secrets(self._kubeconfig_paths())
        if verbose:
            log.info("%s", outcome(returncode, monotonic() - began, stderr))
            if verbose > 1 and stderr.strip():
                log.info("%s", kubectl_stderr(stderr))
        if returncode is None:
            error = classify(shown, -1, stderr, timed_out=True)
            error.details["timeoutSeconds"] = bound
            if cut and isinstance(error, Timeout):
                error.details["reason"] = "deadline"
                error.details["deadlineSeconds"] = self.config.deadline
            raise error
        if returncode != 0:
            # kubectl get prints an empty List on stdout even when the LIST failed:
            # only the exit status tells, so stdout is never looked at here.
            raise self._explain_kubeconfig(classify(shown, returncode, stderr))
        return KubectlResult(argv, returncode, stdout, stderr)

    def _kubeconfig_paths(self) -> list[str]:
        """The kubeconfig files kubectl reads: ``--kubeconfig``, else ``$KUBECONFIG``'s list,
        else ``~/.kube/config``."""
        if self.config.kubeconfig:
            return [self.config.kubeconfig]
        env = os.environ.get("KUBECONFIG")
        if env:
            return [path for path in env.split(os.pathsep) if path]
        return [os.path.expanduser("~/.kube/config")]

    def _kubeconfig_looked_for(self) -> str:
        """Which kubeconfig kubectl read, as an operator would name it."""
        if self.config.kubeconfig:
            return f"--kubeconfig {self.config.kubeconfig}"
        if os.environ.get("KUBECONFIG"):
            return f"$KUBECONFIG={os.environ['KUBECONFIG']}"
        return f"{self._kubeconfig_paths()[0]} (no --kubeconfig, $KUBECONFIG unset)"

    def _kubeconfig_usable(self) -> bool:
        """Some kubeconfig file exists and names a context (``--context`` or current-context)."""
        for path in self._kubeconfig_paths():
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(1 << 20)
            except OSError:
                continue
            if self.config.context or _CURRENT_CONTEXT.search(text):
                return True
        return False

    def _explain_kubeconfig(self, error: AdapterError) -> AdapterError:
        if not isinstance(error, ConfigurationError | Unavailable):
            return error
        return explain_kubeconfig(error, self._kubeconfig_looked_for(), self._kubeconfig_usable())

    def context_namespace(self) -> str:
        """``-n``, else the context's namespace, else ``default``: the namespace kubectl would use.

        Costs one local kubectl call (no API request) when ``-n`` was not given; a dry run
        assumes ``default`` rather than run anything.
        """
        if self.config.namespace:
            return self.config.namespace
        if self.config.dry_run:
            return "default"
        found = self.run(CONTEXT_NAMESPACE).stdout.strip()
        if not found:
            return "default"
        if not is_dns1123_label(found):
            looked_for = self._kubeconfig_looked_for()
            raise ConfigurationError(
                f"the kubeconfig context's namespace {found!r} {DNS1123_RULE} "
                f"(kubeconfig: {looked_for}); fix the context or pass -n",
                {"namespace": found, "kubeconfig": looked_for},
            )
        return found

    def run_json(self, args: Sequence[str], **kwargs: Any) -> Any:
        """Run a kubectl command that prints JSON; empty output (``--ignore-not-found``) is None.

        The JSON is checked against the fields the adapter reads (``shapes``): what the pure
        rules get is typed, and anything else is InternalError naming the command.
        """
        result = self.run(args, **kwargs)
        shown = self.display(result.argv)
        if not result.stdout or result.stdout.isspace():  # isspace stops at the first byte
            if _ignores_not_found(args):
                return None  # kubectl's only silent success: the named object is absent
            # Never "absent": a kubectl (or a wrapper) that exits 0 and prints nothing where
            # JSON is due would otherwise turn a running Deployment into "missing".
            raise InternalError(
                f"{shown} exited 0 but printed nothing where JSON was expected",
                {"command": shown, "problem": "output is empty"},
            )
        try:
            data = json.loads(result.stdout)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InternalError(
                f"kubectl printed output that is not JSON: {exc}", {"command": shown}
            ) from None
        problem = output_problem(args, data)
        if problem is not None:
            raise InternalError(
                f"{shown} printed JSON the adapter cannot read: the output{problem}",
                {"command": shown, "problem": f"output{problem}"},
            )
        return data

    def _execute(
        self, argv: list[str], stdin: str | None, timeout: float, stream: bool
    ) -> tuple[int | None, str, str]:
        """Run the process; ``None`` as exit status means it was killed at ``timeout``."""
        proc: subprocess.Popen[Any] | None = None
        try:
            # A signal while Popen starts kubectl waits until we hold the process (see
            # ``interrupts``): unwinding earlier would leave kubectl running, unknown to us.
            with deferred():
                proc = self._spawn(argv, stdin is not None, stream)
            if stream:
                return self._execute_streaming(proc, stdin, timeout)
            data = stdin.encode("utf-8") if stdin is not None else None
            try:
                stdout, stderr = proc.communicate(data, timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                try:
                    stdout, stderr = proc.communicate(timeout=KILL_DRAIN_SECONDS)
                except subprocess.TimeoutExpired:
                    stdout, stderr = b"", b""
                return None, _text(stdout), _text(stderr)
            return proc.returncode, _text(stdout), _text(stderr)
        finally:
            # On every way out (a bound, a signal, a bug of ours, and after a normal exit,
            # for a credential plugin kubectl left behind): the whole group dies.
            if proc is not None:
                _kill_group(proc)
                for pipe in (proc.stdin, proc.stdout, proc.stderr):
                    if pipe is not None:
                        pipe.close()

    @staticmethod
    def _spawn(argv: list[str], has_stdin: bool, stream: bool) -> subprocess.Popen[Any]:
        """Start kubectl in its own process group; a kubectl that cannot run is configuration."""
        try:
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if has_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                # Bytes unless streaming: text mode would translate newlines over the whole
                # of a big `get -o json` (tens of MB) for nothing; we decode once instead.
                text=stream,
                encoding="utf-8" if stream else None,
                errors="replace" if stream else None,
                # Its own process group: kubectl and whatever it starts (exec credential
                # plugins) are killed together, and a terminal's Ctrl-C reaches only us.
                start_new_session=True,
                env=kubectl_environment(),
            )
        except FileNotFoundError:
            raise ConfigurationError(
                f"kubectl not found at {argv[0]!r}", {"kubectl": argv[0]}
            ) from None
        except PermissionError:
            raise ConfigurationError(
                f"kubectl at {argv[0]!r} is not executable", {"kubectl": argv[0]}
            ) from None
        except OSError as exc:  # e.g. ENOEXEC: not a program for this machine
            raise ConfigurationError(
                f"kubectl at {argv[0]!r} cannot be run: {exc.strerror or exc}",
                {"kubectl": argv[0]},
            ) from None

    def _execute_streaming(
        self, proc: subprocess.Popen[str], stdin: str | None, timeout: float
    ) -> tuple[int | None, str, str]:
        """Echo kubectl's stdout (rollout progress) to our stderr line by line as it comes."""
        out: list[str] = []
        err: list[str] = []
        refusals: list[str] = []

        def feed() -> None:
            # Without this a kubectl reading ``-f -`` would wait for stdin until killed.
            if proc.stdin is None:
                return
            try:
                if stdin:
                    proc.stdin.write(stdin)
                proc.stdin.close()
            except (BrokenPipeError, ValueError):
                pass  # kubectl exited (or was killed) before reading all of it

        def pump(source: IO[str] | None, sink: list[str], echo: bool) -> None:
            if source is None:
                return
            try:
                for line in iter(source.readline, ""):
                    sink.append(line)
                    if echo and not progress.note(redact(line.rstrip())):
                        # Under -v stderr is a pasteable log: progress goes in as comments.
                        mark = "# " if self.config.verbose else ""
                        self.progress.write(f"{mark}kubectl: {redact(line.rstrip())}\n")
                        self.progress.flush()
                    elif is_fatal_wait_line(line):
                        refusals.append(line)
                        # A refused watch (401/403) is retried until --timeout for nothing.
                        # Not at the first refusal: client-go refreshes an exec plugin's
                        # credential after a 401, so only a second one is final.
                        if len(refusals) >= REFUSALS_TO_GIVE_UP:
                            _kill_group(proc)
            except (OSError, ValueError):
                pass  # the pipe was closed under us after the drain period

        threads = [
            threading.Thread(target=pump, args=(proc.stdout, out, True), daemon=True),
            threading.Thread(target=pump, args=(proc.stderr, err, False), daemon=True),
            threading.Thread(target=feed, daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            returncode: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
            returncode = None
        for thread in threads:
            thread.join(timeout=KILL_DRAIN_SECONDS)
        return returncode, "".join(out), "".join(err)


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL kubectl's whole process group (it leads it: ``start_new_session``).

    The group outlives kubectl while any member lives, so its ID is not reused by then; once
    the group is empty the kill finds nothing. A pid below 2 is never a group we made
    (``killpg(0)`` would be our own group): then only the process itself is killed.
    """
    if proc.pid is not None and proc.pid > 1:
        # ESRCH: the group is gone, nothing of it is left to kill.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()


def _ignores_not_found(args: Sequence[str]) -> bool:
    """``--ignore-not-found`` is on: an absent object is printed as nothing at all."""
    flags = [str(arg) for arg in args if str(arg).startswith("--ignore-not-found")]
    return bool(flags) and flags[-1] in ("--ignore-not-found", "--ignore-not-found=true")


def kubectl_environment() -> dict[str, str] | None:
    """kubectl's environment: ours (``None``), unless HOME is set but not a directory."""
    home = os.environ.get("HOME")
    if home is None or os.path.isdir(home):
        return None
    return {**os.environ, "HOME": NO_HOME}


def _text(output: bytes | str | None) -> str:
    if not output:
        return ""
    return output if isinstance(output, str) else output.decode("utf-8", "replace")


def wait_timeout_args(seconds: float) -> list[str]:
    """``--timeout=Ns`` for kubectl's own waits."""
    return [f"--timeout={_seconds(seconds)}"]


def process_bound(wait_seconds: float) -> float:
    """How long a waiting kubectl may live: its own timeout plus grace to say why."""
    return wait_seconds + WAIT_GRACE_SECONDS
