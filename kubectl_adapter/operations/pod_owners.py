"""Which of the Pods a wait's watch shows the Deployment owns (issue 30).

The Pods' watch selects by label, and a label is not ownership: a Pod made by hand with the
workload's labels, or another controller's Pod carrying them, would hold a stop to its
``--timeout``. A Pod names its ReplicaSet (and its uid) in its ``ownerReferences``, and the
ReplicaSet names the Deployment's uid in its own; the Pods' watch shows only the first link,
so a stop reads the ReplicaSets (one ``kubectl get replicasets -l SEL``, never one call per
Pod), and only when a Pod of a ReplicaSet it has not seen would change its verdict. What it
learnt holds for the whole wait: a ReplicaSet's owner does not change under a live
Deployment.

A Pod is the workload's when the read shows its ReplicaSet the Deployment's. A ReplicaSet the
read (by the workload's labels) does not find is another's, unless it bears the name the
Deployment gives its own (NAME-HASH): then it may just have been deleted (the Deployment
deleted meanwhile, an old revision cleaned up) while its Pods still run their containers,
and they still hold a stop. A rollout's wait never reads for
this: a Pod of an unknown ReplicaSet matters there only when it fails, and the read that
confirms a failure (``Workloads.wait``) selects by owner already.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..contract.errors import AdapterError, Forbidden, Unavailable
from ..rules.selection import named_as_its_replicaset, owned_replicaset_keys, replicaset_key
from ..rules.wait_verdicts import Seen, Verdict

Document = dict[str, Any]
# What both watches have shown, judged over the Pods given.
Verdicts = Callable[[Seen, datetime], Verdict]


class PodOwners:
    """The Deployment's own Pods among those a wait's watch shows, learnt lazily."""

    def __init__(self, read_replicasets: Callable[[], list[Document]]) -> None:
        self._read = read_replicasets
        self._known: dict[tuple[str, str], bool] = {}  # ReplicaSet key -> the Deployment's?
        # What the last verdict not done was given: the Deployment, its Pods, Pods not known.
        self._last: tuple[Document | None, list[Document], list[Document]] = (None, [], [])

    def learn(self, deployment: Document, replicasets: list[Document]) -> None:
        """Record what a read of the workload's ReplicaSets says."""
        for key in owned_replicaset_keys(deployment, replicasets):
            self._known[key] = True
        for rs in replicasets:
            meta = rs.get("metadata") or {}
            for key in (("uid", str(meta.get("uid", ""))), ("name", str(meta.get("name", "")))):
                self._known.setdefault(key, False)

    def split(self, pods: list[Document]) -> tuple[list[Document], list[Document]]:
        """(the workload's, not known yet); a Pod shown to be another's is neither."""
        owned: list[Document] = []
        unknown: list[Document] = []
        for pod in pods:
            key = replicaset_key(pod)
            if key is None:
                continue  # no ReplicaSet controls it: made by hand, no Deployment's
            found = self._known.get(key)
            if found is None:
                unknown.append(pod)
            elif found:
                owned.append(pod)
        return owned, unknown

    def judge(self, verdicts: Verdicts, seen: Seen, now: datetime, *, read: bool = True) -> Verdict:
        """``verdicts`` over the workload's Pods. ``read``: a Pod of a ReplicaSet not seen yet
        costs one read of the ReplicaSets, when the verdict depends on it; without it (a
        rollout), such a Pod is judged as the workload's."""
        deployment = seen.deployment
        owned, unknown = self.split(list(seen.pods))
        if not unknown or deployment is None or not read:
            verdict = verdicts(seen._replace(pods=owned + unknown), now)
            return self._given(verdict, deployment, owned, unknown)
        without = verdicts(seen._replace(pods=owned), now)
        if verdicts(seen._replace(pods=owned + unknown), now) == without:
            return self._given(without, deployment, owned, unknown)
        try:
            replicasets = self._read()
        except (Unavailable, Forbidden):
            # Not known either way (the API server out of reach, or a Role without ``list
            # replicasets``): the workload's, and asked again at the next event.
            verdict = verdicts(seen._replace(pods=owned + unknown), now)
            return self._given(verdict, deployment, owned, unknown)
        self.learn(deployment, replicasets)
        owned = self.settle(deployment, list(seen.pods))
        return self._given(verdicts(seen._replace(pods=owned), now), deployment, owned, [])

    def settle(self, deployment: Document, pods: list[Document]) -> list[Document]:
        """After a read: the workload's Pods, a Pod of a ReplicaSet it did not find counted
        by its ReplicaSet's name."""
        for pod in pods:
            key = replicaset_key(pod)
            if key is not None and key not in self._known:
                self._known[key] = named_as_its_replicaset(deployment, pod)
        return self.split(pods)[0]

    def holding(self) -> list[Document]:
        """The workload's Pods when the last verdict was given (not over): the ones that hold
        a wait that runs out of time. Pods not known then cost one read now."""
        deployment, owned, unknown = self._last
        if not unknown or deployment is None:
            return owned
        try:
            self.learn(deployment, self._read())
        except AdapterError:
            return owned + unknown
        return self.settle(deployment, owned + unknown)

    def _given(
        self,
        verdict: Verdict,
        deployment: Document | None,
        owned: list[Document],
        unknown: list[Document],
    ) -> Verdict:
        self._last = (None, [], []) if verdict.done else (deployment, owned, unknown)
        return verdict


def pod_names(pods: list[Document]) -> list[str]:
    return [str((pod.get("metadata") or {}).get("name", "?")) for pod in pods]
