"""Hostile spec input: size, depth, devices and FIFOs are bounded, and end in InvalidInput
(exit 2) with a clear message, never a RecursionError, an unbounded read or a hang."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_adapter.contract.errors import InvalidInput
from kubectl_adapter.contract.spec import load_spec, parse_spec
from kubectl_adapter.contract.spec_input import MAX_SPEC_BYTES, MAX_SPEC_DEPTH
from tests.cost import child_cpu, grows_linearly

from .helpers import ROOT, cli_argv, cli_env

SPEC = {"containerId": "42", "nodeId": "7", "hostname": "web-1", "image": "nginx:latest",
        "cpus": 1, "memoryMb": 64, "env": {"A": "b"}}  # fmt: skip


def nested(depth: int) -> str:
    return '{"env": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("depth", [MAX_SPEC_DEPTH, 1000, 100_000, 500_000])
def test_deep_nesting_is_invalid_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, depth: int
) -> None:
    # Before the fix: RecursionError (an InternalError traceback) from 1000 levels on.
    monkeypatch.setattr("sys.stdin", io.StringIO(nested(depth)))
    with pytest.raises(InvalidInput, match=f"nested more than {MAX_SPEC_DEPTH} levels"):
        load_spec("-")
    path = tmp_path / "deep.json"
    path.write_text(nested(depth))
    with pytest.raises(InvalidInput, match="nested more than"):
        load_spec(str(path))


def test_nesting_up_to_the_limit_is_judged_by_the_spec_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(nested(MAX_SPEC_DEPTH - 1)))
    with pytest.raises(InvalidInput, match="env: must be an object"):
        load_spec("-")


@pytest.mark.parametrize("extra", [1, 4096])
def test_oversized_file_is_invalid_input(tmp_path: Path, extra: int) -> None:
    path = tmp_path / "big.json"
    body = json.dumps(SPEC)
    path.write_text(body[:-1] + " " * (MAX_SPEC_BYTES - len(body) + extra) + "}")
    with pytest.raises(InvalidInput, match=f"larger than {MAX_SPEC_BYTES} bytes"):
        load_spec(str(path))
    path.write_text(body[:-1] + " " * (MAX_SPEC_BYTES - len(body)) + "}")  # exactly the limit
    assert load_spec(str(path)) == parse_spec(SPEC)


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/null", "/dev/urandom", "DIR"])
def test_devices_and_directories_are_refused(tmp_path: Path, source: str) -> None:
    with pytest.raises(InvalidInput, match=r"not a regular file or a pipe|Is a directory"):
        load_spec(str(tmp_path) if source == "DIR" else source)


def _limited() -> None:
    # Before the fix /dev/zero was read without bound: cap memory so that fails fast.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.parametrize("how", ["--spec /dev/zero", "stdin from /dev/zero"])
def test_cli_reading_dev_zero_is_bounded(how: str) -> None:
    spec_args = ["--spec", "/dev/zero"] if how.startswith("--spec") else ["--spec", "-"]
    with open("/dev/zero", "rb") as zero, child_cpu() as cpu:
        proc = subprocess.run(
            cli_argv("-n", "default", "render", *spec_args),
            stdin=zero,
            capture_output=True,
            text=True,
            env=cli_env(),
            cwd=ROOT,
            timeout=30,
            preexec_fn=_limited,
            check=False,
        )
    # CPU seconds, which load does not add to: about 0.3 s; unbounded, it read until the
    # 1 GiB cap.
    assert cpu[0] < 5, cpu
    assert proc.returncode == 2, proc.stderr[-2000:]
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "InvalidInput"
    assert "larger than" in error["message"] or "not a regular file" in error["message"]


def _in_thread(fifo: Path, wait: float) -> tuple[threading.Thread, list[BaseException | object]]:
    outcome: list[BaseException | object] = []

    def target() -> None:
        try:
            outcome.append(load_spec(str(fifo), wait_seconds=wait))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, outcome


def _release(fifo: Path) -> None:
    """Unblock a reader stuck in open() (the behaviour before the fix) so no thread leaks."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return  # no reader is waiting
    os.close(fd)


def _sleeper(seconds: float) -> tuple[threading.Thread, list[float]]:
    """A thread that sleeps ``seconds`` and notes when it woke: the baseline of a wait, taken
    beside it, which a loaded machine delays as much as the wait it is compared with."""
    woke: list[float] = []
    thread = threading.Thread(target=lambda: (time.sleep(seconds), woke.append(time.monotonic())))
    thread.start()
    return thread, woke


def test_fifo_without_a_writer_ends_within_the_wait(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    reference, woke = _sleeper(0.3)
    thread, outcome = _in_thread(fifo, 0.3)
    thread.join(timeout=60)
    ended = time.monotonic()
    try:
        assert not thread.is_alive(), "load_spec blocked on a FIFO with no writer"
    finally:
        _release(fifo)
        thread.join(timeout=5)
    reference.join()
    # Ended about when a plain 0.3 s sleep started beside it did (before the fix: never).
    assert ended - woke[0] < 2, ended - woke[0]
    assert isinstance(outcome[0], InvalidInput)
    assert "no complete spec within 0.3s" in outcome[0].message


def test_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    thread, outcome = _in_thread(fifo, 10)
    with open(fifo, "w") as writer:  # blocks until the reader has opened it
        writer.write(json.dumps(SPEC))
    thread.join(timeout=10)
    assert outcome == [parse_spec(SPEC)]


def test_fifo_writer_that_never_finishes_is_cut(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    thread, outcome = _in_thread(fifo, 0.5)
    with open(fifo, "w") as writer:
        writer.write('{"containerId": ')
        writer.flush()
        thread.join(timeout=5)
    assert isinstance(outcome[0], InvalidInput)


def test_cli_fifo_without_a_writer_is_bounded_by_the_deadline(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    try:
        proc = subprocess.run(
            cli_argv("-n", "default", "--deadline", "1", "render", "--spec", str(fifo)),
            capture_output=True,
            text=True,
            env=cli_env(),
            cwd=ROOT,
            timeout=20,
            check=False,
        )
    finally:
        _release(fifo)
    assert proc.returncode == 2, proc.stderr[-2000:]
    error = json.loads(proc.stdout)["error"]
    assert "no complete spec within" in error["message"]
    # It waited what was left of the 1 s deadline, not the pipe's own 10 s (its seconds are
    # the process's start-up as much as the wait: the loaded machine's, not the code's).
    assert 0 < error["details"]["waitSeconds"] <= 1, error


# -- a big entrypoint string (issue 26: the shell-words split was quadratic) ------------------


def _parsed(length: int) -> Callable[[], None]:
    spec = {**SPEC, "entrypoint": "sh -c 'echo " + "y" * length + "'"}

    def parse() -> None:
        assert parse_spec(spec).entrypoint == ("sh", "-c", "echo " + "y" * length)

    return parse


def test_an_entrypoint_string_is_split_in_linear_time() -> None:
    """10x the entrypoint costs about 10x the CPU time, not 100x (quadratic: 200 KB 1.5 s,
    1 MB 63 s): the same run's smaller input is the baseline, so load cannot fail it
    (``tests/cost.py``). Both past the CPU caches (the text check's cost per character steps
    up near 200 KB). About 0.01 s for 300 KB; quadratic, over 1 s: past the 0.3 s limit."""
    grows_linearly(_parsed(300_000), _parsed(3_000_000), limit=0.3)


def test_cli_render_of_a_megabyte_entrypoint_is_quick(tmp_path: Path) -> None:
    """The issue's case: 63 s before, past any --timeout; now well inside the read bound."""
    path = tmp_path / "big-entrypoint.json"
    command = "echo " + "y" * 1_000_000
    path.write_text(json.dumps({**SPEC, "entrypoint": f"sh -c '{command}'"}))
    assert path.stat().st_size <= MAX_SPEC_BYTES
    with child_cpu() as cpu:
        proc = subprocess.run(
            cli_argv("-n", "manager", "render", "--spec", str(path)),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=cli_env(),
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.dumps(command) in proc.stdout
    # CPU seconds (load does not add to them): about 0.5 s; the quadratic split took 63 s.
    assert cpu[0] < 10, cpu
