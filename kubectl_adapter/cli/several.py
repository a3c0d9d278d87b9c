"""Several NAMEs in one command (``status a b``, ``stop a b``): each answered as if alone.

On a pipe the document is ``{"items": [...]}`` in the order the names were given: each item
is what that name alone prints (a Snapshot, a description, a delete result), or its error
document with the provider ID beside it, ``{"providerId": "ns/b", "error": {...}}``. The exit
code is the worst of them: the highest exit code any name got (0 when all succeeded). On a
terminal the rows of the names that answered make one table (describe: one text after
another, as ``kubectl describe a b``) and each failure is its own ``Error`` line on stderr.
"""

from __future__ import annotations

from typing import IO, Any, NamedTuple

from ..contract.errors import AdapterError
from .formats import HUMAN, SNAPSHOT_COMMANDS, Shown

__all__ = ["Several"]


class Several(NamedTuple):
    """The provider IDs, and for each one its document or its error (``dispatch`` makes it)."""

    provider_ids: tuple[str, ...]
    answers: tuple[Any, ...]

    @property
    def exit_code(self) -> int:
        """The worst: the highest exit code a name got; 0 when every one succeeded."""
        return max((a.exit_code for a in self.answers if isinstance(a, AdapterError)), default=0)

    def document(self) -> dict[str, Any]:
        pairs = zip(self.provider_ids, self.answers, strict=True)
        return {"items": [_item(pid, answer) for pid, answer in pairs]}

    def write(self, command: str, how: Shown, out: IO[str], err: IO[str]) -> None:
        """The whole document (``-o json|yaml``), or a person's view of each answer."""
        from .output import put, write_error, write_result

        if how.format not in HUMAN and not (command == "describe" and how.format == "table"):
            write_result(command, self.document(), how, out, err)
            return
        done = [a for a in self.answers if not isinstance(a, AdapterError)]
        if done and command in SNAPSHOT_COMMANDS:
            write_result("list", {"items": done}, how, out, err)
        else:
            for i, answer in enumerate(done):
                if i and command == "describe":
                    put(out, "\n")  # one blank line between two, as kubectl describe a b
                write_result(command, answer, how, out, err)
        for pid, answer in zip(self.provider_ids, self.answers, strict=True):
            if isinstance(answer, AdapterError):
                write_error(answer.to_json(), how.format, out, err, target=pid, prog=how.prog)


def _item(provider_id: str, answer: Any) -> Any:
    if isinstance(answer, AdapterError):
        return {"providerId": provider_id, **answer.to_json()}
    return answer
