"""The operations: Manager's verbs, composed from the rules and the kubectl boundary.

``provider`` is the list of Manager's operations (create, status, list, start, stop,
reconfigure, delete, network, check) on one node; it parses provider IDs once. Each
operation's module (``create``, ``lifecycle``, ``reconfigure``, ``reading``, ``describing``)
writes its steps once, as ``plans.Step``s: ``--dry-run``'s plan (``plans.build``) and the
run read them from the same place. A write's wait is one ``waits.Wait`` (``awaited``: the
rollout, the Pods gone) run by ``waits.await_``, which starts the wait's watches before the
write (``write_first``), so the API server proves their permissions before anything is
written; a broken
watch starts again as ``resume.Resumption`` says (the live feed, ``live``, too).
``workload`` holds the reads every operation shares, ``pod_owners`` which Pods a wait
counts, ``listing`` the hot path (no pydantic), ``cluster_checks`` ``check`` and ``nodes``.
Operations may import the rules, the kubectl boundary and the contract; never the CLI.
"""
