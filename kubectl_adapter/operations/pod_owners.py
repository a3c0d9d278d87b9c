"""Which of the Pods a wait's watch shows the Deployment owns (issue 30).

The Pods' watch selects by label, and a label is not ownership: a Pod made by hand with the
workload's labels, or one an earlier Deployment of that name left behind, would hold a stop
to its ``--timeout``. A Pod names its ReplicaSet (and its uid) in its ``ownerReferences``, and
the ReplicaSet names the Deployment's uid in its own; the Pods' watch shows only the first
link, so the wait reads the ReplicaSets (one ``kubectl get replicasets -l SEL``, never one call
per Pod), and only when a Pod of a ReplicaSet it has not seen would change its verdict. What
it learnt holds for the whole wait: a ReplicaSet's owner does not change under a live
Deployment.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..contract.errors import Unavailable
from ..rules.selection import owned_replicaset_keys, replicaset_key
from ..rules.wait_verdicts import Seen, Verdict

Document = dict[str, Any]
# What both watches have shown, judged over the Pods given (the owned ones).
Verdicts = Callable[[Seen, datetime], Verdict]


class PodOwners:
    """The Deployment's own Pods among those a wait's watch shows, learnt lazily."""

    def __init__(self, read_replicasets: Callable[[], list[Document]]) -> None:
        self._read = read_replicasets
        self._known: dict[tuple[str, str], bool] = {}  # ReplicaSet key -> the Deployment's?
        self.reads = 0
        self.holding: list[Document] = []  # the owned Pods of the last verdict not done

    def learn(self, deployment: Document, replicasets: list[Document]) -> None:
        """Record what a read of the workload's ReplicaSets says."""
        for key in owned_replicaset_keys(deployment, replicasets):
            self._known[key] = True
        for rs in replicasets:
            meta = rs.get("metadata") or {}
            for key in (("uid", str(meta.get("uid", ""))), ("name", str(meta.get("name", "")))):
                self._known.setdefault(key, False)

    def split(self, pods: list[Document]) -> tuple[list[Document], list[Document]]:
        """(owned, not known yet); a Pod no ReplicaSet controls, or whose ReplicaSet is
        another's (or none the read found), is neither."""
        owned: list[Document] = []
        unknown: list[Document] = []
        for pod in pods:
            key = replicaset_key(pod)
            if key is None:
                continue
            found = self._known.get(key)
            if found is None:
                unknown.append(pod)
            elif found:
                owned.append(pod)
        return owned, unknown

    def judge(self, verdicts: Verdicts, seen: Seen, now: datetime) -> Verdict:
        """``verdicts`` over the Deployment's own Pods. A Pod of a ReplicaSet not seen yet
        costs one read of the ReplicaSets, only when the verdict depends on it."""
        owned, unknown = self.split(list(seen.pods))
        verdict = verdicts(seen._replace(pods=owned), now)
        if (
            unknown
            and seen.deployment is not None
            and verdicts(seen._replace(pods=owned + unknown), now) != verdict
        ):
            try:
                replicasets = self._read()
            except Unavailable:
                # Not known either way: judge them as the workload's (a stop waits on), and
                # ask again at the next event.
                return self._held(verdicts(seen._replace(pods=owned + unknown), now), seen)
            self.reads += 1
            self.learn(seen.deployment, replicasets)
            for pod in unknown:
                key = replicaset_key(pod)
                if key is not None:
                    self._known.setdefault(key, False)  # not among the workload's
            owned, _ = self.split(list(seen.pods))
            verdict = verdicts(seen._replace(pods=owned), now)
        self.holding = [] if verdict.done else owned
        return verdict

    def _held(self, verdict: Verdict, seen: Seen) -> Verdict:
        owned, unknown = self.split(list(seen.pods))
        self.holding = [] if verdict.done else owned + unknown
        return verdict


def pod_names(pods: list[Document]) -> list[str]:
    return [str((pod.get("metadata") or {}).get("name", "?")) for pod in pods]
