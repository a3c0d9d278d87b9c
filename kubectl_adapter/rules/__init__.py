"""The rules: pure decisions over plain data.

Status mapping, Pod selection and health, rollout diagnostics, race and ownership checks,
quantities, the snapshot documents and the manifest: each a function from dicts (what kubectl
printed, what Manager sent) to values, with ``now`` passed in (``clock`` is the only reader of
the wall clock). Rules may import the contract only; never the kubectl boundary or the
operations, so they stay testable from tables without a process in sight.
"""
