"""The operations: Manager's verbs, composed from the rules and the kubectl boundary.

``provider`` is the list of Manager's operations (create, status, list, start, stop,
reconfigure, delete, network, check); each operation's steps live in a module named for it.
``listing`` (the hot path, no pydantic), ``waits`` (bounded rollout and deletion waits),
``plans`` (``--dry-run``) and ``cluster_checks`` (``check``, ``nodes``) sit beside it.
Operations may import the rules, the kubectl boundary and the contract; never the CLI.
"""
