"""A signal at every millisecond from spawn to the first kubectl: the Interrupted document and
128 + N, or — before the interpreter reaches the adapter's first line — the interpreter's own
default; never a traceback from the adapter's code.

The window is measured in the same run, under the same load: a batch of CLIs spawned together
(as the sweep spawns them) and the time each takes until its first kubectl starts. The sweep
then sends SIGINT (the signal of the fault run: 2 of 113 trials at 25-27 ms printed a
traceback from ``kubectl/interrupts.py``), SIGTERM or SIGHUP at every millisecond of it,
spawning its trials in parallel batches (steps of 1 ms up to ``MOST_TRIALS`` trials, longer
on a machine so loaded that the window is longer than that).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import kubectl_adapter

from .helpers import alive, cli_argv, cli_env, script

# The first kubectl: it says when it started, then hangs until the adapter kills its group.
KUBECTL = 'echo $$ > "$DIR/$MARK.pid"\nexec sleep 600\n'
BATCH = 8  # CLIs spawned at once, in the baseline and in the sweep alike
# 1 ms steps on an idle machine (a window of about 200 ms); a loaded one stretches the window
# (2.6 s beside seven other suites), and the steps with it, so that the trials stay this many.
MOST_TRIALS = 300
# Python's own start-up: a SIGINT there is its KeyboardInterrupt, from its own frames.
INIT = Path(kubectl_adapter.__file__).resolve()
# The line of kubectl_adapter/__init__.py that puts the handlers in place (0: none does).
HELD_FROM_LINE = next(
    (n for n, line in enumerate(INIT.read_text().splitlines(), 1) if "_signal.signal(" in line),
    0,
)
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass
class Trial:
    delay_ms: float
    signum: signal.Signals
    proc: subprocess.Popen[str]
    mark: str
    spawned: float = 0.0
    stdout: str = ""
    stderr: str = ""
    caught: bool | None = None  # the adapter's handlers were in place as the signal went


def _catches_sigterm(pid: int) -> bool | None:
    """Whether the process catches SIGTERM (``SigCgt`` in /proc): the interpreter never does
    by itself, the adapter's first line does; None when it could not be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except OSError:
        return None
    return None


def _spawn(tmp_path: Path, kubectl: str, mark: str, patient: bool = False) -> subprocess.Popen[str]:
    # ``patient`` (the baseline batch): the stub's hang outlasts any bound of the CLI's own,
    # so a trial ends by its signal, never by the read's bound (10 s + 5 s: at load 40 a
    # batch's slowest start took longer, and a CLI answered "unknown", exit 0, unsignalled).
    # A sweep trial keeps the default bounds: a SIGINT the interpreter swallows before the
    # adapter's first line (accepted below) leaves a command that ends by them.
    bounds = ["--request-timeout", "10m", "--call-timeout", "10m"] if patient else []
    return subprocess.Popen(
        cli_argv(*bounds, "--kubectl", kubectl, "status", "testns/web-1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**cli_env(), "DIR": str(tmp_path), "MARK": mark},
    )


def _kill(tmp_path: Path, trial: Trial) -> None:
    """The trial's CLI if it still runs, and its kubectl stub's group if that is still there
    (the stub holds the trial's pipes open: killed before they are read to the end)."""
    if trial.proc.poll() is None:
        trial.proc.kill()
    pidfile = tmp_path / f"{trial.mark}.pid"
    text = pidfile.read_text().strip() if pidfile.exists() else ""
    if text and alive(int(text)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(text), signal.SIGKILL)


def _reap(tmp_path: Path, trial: Trial) -> None:
    """Collect a trial's output; kill what it left (the kubectl stub's group) if anything."""
    try:
        trial.stdout, trial.stderr = trial.proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # judged as a failure (killed: no 128 + N), not raised,
        _kill(tmp_path, trial)  # so that the rest of its batch is reaped too
        trial.stdout, trial.stderr = trial.proc.communicate()
        trial.stderr += "\n(still running 30 s after its signal: killed)"
    finally:
        running = trial.proc.poll() is None
        _kill(tmp_path, trial)
        if running:
            trial.proc.communicate()


def _window_ms(tmp_path: Path, kubectl: str) -> float:
    """The longest time from spawn to the first kubectl among a batch spawned together."""
    trials = []
    for i in range(BATCH):
        mark = f"baseline-{i}"
        trials.append(Trial(0, signal.SIGTERM, _spawn(tmp_path, kubectl, mark, True), mark))
        trials[-1].spawned = time.monotonic()
    started: dict[str, float] = {}
    deadline = time.monotonic() + 60
    while len(started) < len(trials):  # no event to await across processes: poll the files
        assert time.monotonic() < deadline, "the first kubectl never started"
        for trial in trials:
            if trial.mark not in started and (tmp_path / f"{trial.mark}.pid").exists():
                started[trial.mark] = time.monotonic() - trial.spawned
        time.sleep(0.0005)
    for trial in trials:
        with contextlib.suppress(ProcessLookupError):
            trial.proc.send_signal(signal.SIGTERM)
    for trial in trials:  # every one reaped before any is judged: none outlives the test
        _reap(tmp_path, trial)
    for trial in trials:
        assert trial.proc.returncode == 128 + signal.SIGTERM, (trial.stdout, trial.stderr)
    return max(started.values()) * 1000


def _verdict(trial: Trial) -> str | None:
    """None when the trial ended as promised; else what went wrong."""
    signum, code = trial.signum, trial.proc.returncode
    if code == 128 + signum:
        lines = trial.stdout.splitlines()
        document = json.loads(lines[0]) if len(lines) == 1 else None
        if not isinstance(document, dict) or document.get("error", {}).get("details") != {
            "signal": signum.name
        }:
            return f"exit {code} without the one Interrupted document: {trial.stdout!r}"
        return "a traceback" if "Traceback" in trial.stderr else None
    # The interpreter's default, only allowed before the adapter's handlers were in place:
    # killed by the signal, or for SIGINT Python's KeyboardInterrupt (re-raised as the
    # signal; exit 1 when it lands while the interpreter still initialises, in site).
    interpreters = signum == signal.SIGINT and trial.stderr.rstrip().endswith("KeyboardInterrupt")
    # Or, for SIGINT landing while site runs a .pth file's import, site's own answer: it
    # prints the error (the KeyboardInterrupt may come wrapped, e.g. in __set_name__'s
    # RuntimeError, which site catches), "Remainder of file ignored", and the interpreter goes
    # on, the signal spent: the command then runs as if never signalled (seen at load 8).
    in_site = (
        signum == signal.SIGINT
        and trial.stderr.startswith("Error processing line ")
        and "Remainder of file ignored" in trial.stderr
    )
    # Or Python's KeyboardInterrupt raised inside a callback the interpreter runs for itself
    # (importlib's module-lock weakref callback, while ``-m`` imports the package): it prints
    # "Exception ignored in: …" with the interpreter's frames only, and the command runs as if
    # never signalled (seen once in 300 trials in a clean-clone run, at 76 ms of 276). The
    # frames below are checked too: none may be the adapter's past its first line.
    swallowed = (
        signum == signal.SIGINT
        and code == 0
        and trial.stderr.startswith("Exception ignored in")
        and trial.stderr.rstrip().rstrip(":").endswith("KeyboardInterrupt")
    )
    # Or the interpreter's fatal error when the KeyboardInterrupt lands while it imports site
    # during its own initialisation: "Fatal Python error: init_import_site: …", exit 1, a
    # thread dump with no Python frame (seen once beside a second copy of the suite, at 103 ms).
    fatal_init = (
        signum == signal.SIGINT
        and code == 1
        and trial.stderr.startswith("Fatal Python error: init_import_site")
        and "KeyboardInterrupt" in trial.stderr
    )
    # Or none at all, for a signal sent before the adapter's first line (the process did not
    # catch SIGTERM yet: /proc's SigCgt, read just before the signal went): the command ran
    # to its answer as if never signalled, exit 0, nothing on stderr. Seen in clean-clone
    # runs at load 8, a SIGINT 0-2 ms after the spawn returned (1 of 301 trials, twice):
    # the interpreter's affair, as the forms above. Once the adapter catches SIGTERM, a lost
    # signal fails this test.
    lost_before = trial.caught is False and code == 0 and not trial.stderr
    if swallowed or in_site or lost_before or (fatal_init and not trial.stdout):
        pass
    elif trial.stdout or not (code == -signum or (interpreters and code == 1)):
        return f"exit {code}, stdout {trial.stdout[:200]!r}, stderr {trial.stderr[-600:]!r}"
    for path, line in _FRAME.findall(trial.stderr):
        ours = Path(path).resolve().is_relative_to(INIT.parent)  # not site's editable finder
        if ours and not (Path(path).resolve() == INIT and int(line) <= HELD_FROM_LINE):
            return f"the default after the adapter's first line: {trial.stderr[-600:]!r}"
    return None


def test_a_signal_at_every_millisecond_of_start_up(tmp_path: Path) -> None:
    kubectl = script(tmp_path / "kubectl", KUBECTL)
    window = _window_ms(tmp_path, kubectl)
    signals = [signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
    step = max(1.0, (window + 2) / MOST_TRIALS)
    delays = [i * step for i in range(int((window + 2) / step) + 1)]
    failures: list[tuple[float, str, str]] = []
    kinds = {"document": 0, "default": 0}
    for start in range(0, len(delays), BATCH):
        batch = []
        for index, delay in enumerate(delays[start : start + BATCH], start):
            mark = f"t{index}"
            signum = signals[index % len(signals)]
            batch.append(Trial(delay, signum, _spawn(tmp_path, kubectl, mark), mark))
            batch[-1].spawned = time.monotonic()
        for trial in sorted(batch, key=lambda t: t.spawned + t.delay_ms / 1000):
            pause = trial.spawned + trial.delay_ms / 1000 - time.monotonic()
            time.sleep(max(0.0, pause))  # the moment under test
            trial.caught = _catches_sigterm(trial.proc.pid)
            with contextlib.suppress(ProcessLookupError):
                trial.proc.send_signal(trial.signum)
        for trial in batch:
            _reap(tmp_path, trial)
            verdict = _verdict(trial)
            if verdict is not None:
                failures.append((trial.delay_ms, trial.signum.name, verdict))
            kinds["document" if trial.proc.returncode > 0 else "default"] += 1
    summary = [f"{delay:.0f} ms {name}: {verdict[-400:]}" for delay, name, verdict in failures]
    assert not failures, (f"window {window:.0f} ms, step {step:.1f} ms", kinds, summary)
    # The sweep reached past the handlers: most trials end in the document.
    assert kinds["document"] > kinds["default"], (window, kinds)
