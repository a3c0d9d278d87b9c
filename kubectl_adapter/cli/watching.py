"""``list -w`` and ``status -w`` as they reach stdout: a row per change on a terminal, a JSON
line per change on a pipe.

The operation (``operations.live``) gives ``(event, snapshot)`` pairs. The first list is
held until it is complete (``SYNCED``), then printed at once, sorted (by provider ID, or
``--sort-by``), so the table's columns fit it, as ``kubectl get -w`` prints its first list;
every later change follows as it comes, one row padded to those columns. A row is printed
only when it differs from the workload's last one (a Pod's resourceVersion moving changes
no cell; ``-o wide``'s AGE is left out of the comparison).

On a pipe (and with ``-o json``) each line is one WatchEvent document
(``docs/schema/watch-event.json``): ``{"type": "ADDED"|"MODIFIED"|"DELETED", "snapshot":
Snapshot}``, and ``{"type": "SYNCED", "snapshot": null}`` once the lines so far describe
every workload as the cluster now shows it (after the first list and after each resumed
watch). Every line is flushed as it is written; a reader that goes away ends the command
(``OutputFailed``, exit 11, like any other stdout that cannot take the document).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from .output import WRITE_FAILURES, put

__all__ = ["FeedLost", "WatchView"]

Document = dict[str, Any]


class FeedLost(Exception):
    """stdout cannot take the feed any more (closed, full, its reader gone)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _put(out: IO[str], text: str) -> None:
    try:
        put(out, text)
    except WRITE_FAILURES as exc:
        raise FeedLost(exc) from exc


class WatchView:
    """Writes the feed in one format (``json``, ``yaml``, ``table``, ``wide``, ``name``)."""

    def __init__(
        self,
        fmt: str,
        out: IO[str],
        err: IO[str],
        *,
        headers: bool = True,
        order: Callable[[Document], Any] | None = None,
    ) -> None:
        self.fmt = fmt
        self.out = out
        self.err = err
        self.headers = headers
        self.order = order
        self.first: list[tuple[str, Document]] | None = []  # held until the first SYNCED
        self.widths: list[int] = []
        self.rows: dict[str, list[str]] = {}  # provider ID -> the row last printed
        self.header: list[str] | None = None  # still to print, above the first row

    def __call__(self, event: str, snapshot: Document | None) -> None:
        if self.first is not None:
            if event != "SYNCED":
                assert snapshot is not None
                self.first.append((event, snapshot))
                return
            held, self.first = self.first, None
            held.sort(key=lambda pair: str(pair[1].get("providerId")))
            if self.order is not None:
                from .sorting import sort_items

                document = {"items": [snapshot for _, snapshot in held]}
                sort_items(document, self.order)
                held = [("ADDED", snapshot) for snapshot in document["items"]]
            self._first(held)
            return
        if event == "SYNCED":
            if self.fmt in ("json", "yaml"):
                self._document(event, None)
            return
        assert snapshot is not None
        self._change(event, snapshot)

    # -- the first list ---------------------------------------------------------------------

    def _first(self, held: list[tuple[str, Document]]) -> None:
        if self.fmt in ("table", "wide"):
            from .tables import snapshot_columns

            columns = list(snapshot_columns(self.fmt == "wide"))
            rows = [self._cells(snapshot) for _, snapshot in held]
            shown = ([columns] if self.headers else []) + rows
            self.widths = [
                max((len(row[i]) for row in shown), default=0) for i in range(len(columns))
            ]
            if not rows:  # as kubectl: the header comes with the first row
                self._note("No Manager workloads found (watching).")
                self.header = columns if self.headers else None
                return
            text = "".join(self._line(row) for row in shown)
            for (_, snapshot), row in zip(held, rows, strict=True):
                self.rows[str(snapshot.get("providerId"))] = self._compared(row)
            if text:
                _put(self.out, text)
            return
        for event, snapshot in held:
            self._change(event, snapshot)
        if self.fmt in ("json", "yaml"):
            self._document("SYNCED", None)

    # -- each change --------------------------------------------------------------------------

    def _change(self, event: str, snapshot: Document) -> None:
        pid = str(snapshot.get("providerId"))
        if self.fmt in ("json", "yaml"):
            self._document(event, snapshot)
        elif self.fmt == "name":
            _put(self.out, f"deployment.apps/{snapshot.get('name')}\n")
        else:
            row = self._cells(snapshot)
            compared = self._compared(row)
            if self.rows.get(pid) == compared:
                return
            self.rows[pid] = compared
            if event == "DELETED":
                del self.rows[pid]
            header, self.header = self.header, None
            _put(self.out, (self._line(header) if header else "") + self._line(row))

    def _document(self, event: str, snapshot: Document | None) -> None:
        document = {"type": event, "snapshot": snapshot}
        if self.fmt == "yaml":
            from .yaml_text import dump

            _put(self.out, "---\n" + dump(document))
        else:  # one line each, whatever stdout is: a feed is read line by line
            _put(self.out, json.dumps(document, check_circular=False) + "\n")

    def _cells(self, snapshot: Document) -> list[str]:
        from .tables import snapshot_row

        moment = None
        if self.fmt == "wide":
            from ..rules.clock import utc_now

            moment = utc_now()
        return snapshot_row(snapshot, moment)

    def _compared(self, row: list[str]) -> list[str]:
        """The cells a change must alter to be shown: all but AGE."""
        from .tables import AGE_COLUMN

        return row[:AGE_COLUMN] + row[AGE_COLUMN + 1 :]

    def _line(self, row: list[str]) -> str:
        widths = self.widths + [0] * (len(row) - len(self.widths))
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])]
        return "   ".join([*cells, row[-1]]).rstrip() + "\n"

    def _note(self, line: str) -> None:
        try:
            self.err.write(line + "\n")
            self.err.flush()
        except WRITE_FAILURES:
            pass
