"""``list -w`` / ``status -w`` run: the feed's scope from the arguments, its view on stdout,
the lifeline to the parent; kept apart from ``dispatch`` so only a feed loads it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..kubectl.runner import KubectlRunner

__all__ = ["run_feed"]


def run_feed(args: argparse.Namespace, runner: KubectlRunner) -> int:
    """``list -w`` / ``status -w``: the feed written as it comes, until a signal ends it; the
    exit code (``dispatch`` wraps it as ``Streamed``: it printed its own output)."""
    import sys

    from ..contract.naming import parse_provider_id
    from ..operations.live import watch_snapshots
    from .output import lost, stdout
    from .parser import PROG
    from .watching import FeedLost, WatchView

    only = None
    all_namespaces = False
    node_id = selector = None
    if args.command == "status":
        only = parse_provider_id(args.provider_id)
        namespace: str | None = only.namespace
    else:
        all_namespaces = args.all_namespaces
        namespace = None if all_namespaces else runner.context_namespace()
        node_id, selector = args.node_id, args.selector
    view = WatchView(
        args.shown_format,
        stdout(),
        sys.stderr,
        headers=not args.no_headers,
        order=getattr(args, "sort_key", None),
    )
    if args.exit_with_parent:
        from .lifeline import end_with_stdin

        end_with_stdin()
    try:
        watch_snapshots(
            runner, namespace, view, node_id=node_id, selector=selector,
            all_namespaces=all_namespaces, only=only,
        )  # fmt: skip
    except FeedLost as exc:  # the reader went away: the feed has no one to go to
        return lost(exc.cause, 0, f"the feed of {args.command} --watch", PROG)
    raise AssertionError("a watch ends only by raising")  # pragma: no cover
