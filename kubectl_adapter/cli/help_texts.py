"""The words of ``--help``: what each command does, an example, the spec, the exit codes.

Plain strings only (importing this costs nothing); ``parser.build_parser`` puts them in place.
The full contract is docs/cli.md; ``tests/cli/test_help.py`` keeps the two in step, and
``tests/test_examples.py`` runs every example (from a clone's root: ``examples/`` exists).
"""

from __future__ import annotations

__all__ = [
    "COMMANDS",
    "DESCRIPTION",
    "DRY_RUN_HELP",
    "EPILOG",
    "EXIT_CODES",
    "GLOBAL_FLAGS_LINE",
    "NAME_HELP",
    "OUTPUT_HELP",
    "SPEC",
    "Command",
]

from typing import NamedTuple


class Command(NamedTuple):
    summary: str  # one line, for the command list
    examples: tuple[str, ...]
    notes: str = ""  # more words, when the summary is not enough
    spec: bool = False  # reads --spec: the spec format follows


DESCRIPTION = (
    "Run Manager containers on Kubernetes, one Deployment each, through kubectl.\n"
    "Manager reads one JSON document on stdout (a pipe); a terminal gets tables as kubectl\n"
    "get prints them, -o asks for json, yaml, table, wide or name, and describe shows one\n"
    "container as kubectl describe would."
)

DOCS = "Docs: docs/cli.md (every flag, output and error), docs/lifecycle.md (statuses)."

EXIT_CODES = """\
exit codes:
  0  success (also status "unknown"; check only with ok: true)
  1  InternalError        2  InvalidInput, InvalidProviderId   3  NotFound
  4  Unauthorized         5  Forbidden                         6  Conflict
  7  Timeout              8  Unavailable                       9  ConfigurationError
  10 RolloutFailed        11 OutputFailed (done; stdout could not take the result)
  128+N  Interrupted by signal N (130 SIGINT, 143 SIGTERM)"""

PLUGIN = """\
as a kubectl plugin (kubectl-adapter on PATH): kubectl adapter [FLAGS] COMMAND [ARGS]
  Flags go after "adapter" (kubectl refuses flags before a plugin's name):
    kubectl adapter -n manager list          not: kubectl -n manager adapter list
  kubectl's own flags are not passed on; $KUBECONFIG is (it is the environment)."""

SPEC = """\
spec (a JSON file, or - for stdin; schema: docs/schema/spec.json):
  {"containerId": "42", "nodeId": "7", "hostname": "web-1", "image": "nginx:latest",
   "cpus": 0.5, "memoryMb": 512, "env": {"KEY": "value"}, "entrypoint": "nginx -g 'daemon off;'"}
  containerId, nodeId  Kubernetes label values (Manager's IDs)
  hostname             DNS-1123 label: the Deployment's name, never renamed
  cpus, memoryMb       limits (0.5 -> 500m, 512 -> 512Mi); requests a quarter (125m, 128Mi)
  env, entrypoint      optional; entrypoint is a string (split like a shell) or a list
  Unknown fields are refused; every violation is named (InvalidInput, exit 2)."""

OUTPUT_HELP = (
    "output format: json (the default on a pipe: what Manager reads), yaml, table (list, "
    "status, nodes, check, and commands answering a snapshot; others print yaml; the "
    "default on a terminal for list, status, check, nodes and the writes, and "
    "describe's text "
    "everywhere), wide (a workload table with age, Pod IP, node and image), or name "
    "(deployment.apps/NAME lines for kubectl)"
)

NAME_HELP = (
    "the workload, as kubectl names a Deployment: NAME (with -n, else the context's "
    "namespace), deployment/NAME, deploy/NAME, deployment.apps/NAME, or the provider ID "
    "namespace/NAME"
)

# The last line of a command's --help, in kubectl's words: the global flags are listed once.
GLOBAL_FLAGS_LINE = (
    'Use "kubectl-adapter options" for a list of global command-line options (applies to all '
    "commands)."
)

DRY_RUN_HELP = (
    "write nothing: print the kubectl commands the run would execute (and the manifest). "
    "Commands given a NAME still run one read, `kubectl get deployment`, which the "
    "plan depends on; create, list, check and nodes run nothing"
)

EPILOG = f"""\
examples:
  kubectl-adapter -n manager check -o table
  kubectl-adapter -n manager create --spec examples/nginx.json
  kubectl-adapter status manager/web-1 -o table
  kubectl-adapter describe manager/web-1
  kubectl-adapter create --help        # each command: examples, its flags, exit codes

{PLUGIN}

shell completion: kubectl-adapter completion --help

{EXIT_CODES}

{DOCS}"""

COMMANDS: dict[str, Command] = {
    "render": Command(
        "print the Deployment manifest for a spec (no cluster)",
        ("kubectl-adapter -n manager render --spec examples/nginx.json",),
        "Prints YAML whatever -o says (only -o yaml is accepted); without -n it asks\n"
        "kubectl for the context's namespace (a local call, no API request).",
        spec=True,
    ),
    "create": Command(
        "create the container and wait until it is available",
        (
            "kubectl-adapter -n manager create --spec examples/nginx.json",
            "kubectl-adapter -n manager create --spec - < examples/nginx.json",
        ),
        "Applies the Deployment server-side, then waits for its rollout (--timeout).\n"
        "Prints the Snapshot; store its providerId (namespace/name).",
        spec=True,
    ),
    "check": Command(
        "check kubectl, the API connection, namespace and permissions",
        ("kubectl-adapter -n manager check -o table",),
        "Exit 0 only when ok: 3 when the namespace does not exist, 5 when a permission\n"
        "is missing; the document is printed either way. RBAC: docs/rbac.md.",
    ),
    "nodes": Command(
        "list the cluster's nodes (discovery)",
        ("kubectl-adapter nodes -o table",),
        "Needs list on nodes (cluster-wide), which check reports as optional.",
    ),
    "list": Command(
        "status of every Manager workload of this node (one kubectl call)",
        (
            "kubectl-adapter -n manager --node-id 7 list -o table",
            "kubectl-adapter -n manager list -l team=ops --sort-by status",
        ),
        "Lists the namespace's Manager Deployments (only --node-id's when given): a table on\n"
        "a terminal, JSON on a pipe. -l narrows within Manager's workloads, -A lists every\n"
        "namespace (an optional ClusterRole: docs/rbac.md), --sort-by orders by a column.\n"
        "-w keeps watching: a row per change (on a pipe a JSON line each; Ctrl-C ends it).",
    ),
    "capabilities": Command(
        "what this provider offers Manager's shared jobs",
        ("kubectl-adapter capabilities -o yaml",),
    ),
    "status": Command(
        "status of one container (or of each one named)",
        (
            "kubectl-adapter status manager/web-1 -o table",
            "kubectl-adapter -n manager status web-1 deploy/web-1   # NAME as kubectl takes it",
        ),
        "Statuses: running, offline, creating, failed, missing, unknown (docs/lifecycle.md).\n"
        "An API that cannot answer gives status unknown, exit 0. -w keeps watching it.",
    ),
    "describe": Command(
        "one container in detail: status, drift, Pods, container states, conditions, events",
        (
            "kubectl-adapter describe manager/web-1",
            "kubectl-adapter describe manager/web-1 -o yaml",
        ),
        "Text like kubectl describe, on a terminal and on a pipe (-o json or -o yaml for\n"
        "the document); two kubectl calls (the workload, then the namespace's events).",
    ),
    "network": Command(
        "the container's current (ephemeral) Pod IP; MAC is always null",
        ("kubectl-adapter network manager/web-1",),
    ),
    "start": Command(
        "scale to 1 and wait until available",
        ("kubectl-adapter start manager/web-1 --container-id 42",),
        "A running container is left alone. --container-id refuses another's Deployment.",
    ),
    "stop": Command(
        "scale to 0 and wait until the pods are gone",
        ("kubectl-adapter stop manager/web-1 --container-id 42",),
        "The Deployment stays (status offline); start brings it back.",
    ),
    "delete": Command(
        "delete the Deployment; Kubernetes removes its ReplicaSets and Pods",
        ("kubectl-adapter delete manager/web-1 --container-id 42",),
        "Waits until everything is gone; a missing Deployment is alreadyMissing, exit 0.",
    ),
    "reconfigure": Command(
        "re-apply env, entrypoint, CPU and memory; wait for rollout",
        (
            "kubectl-adapter reconfigure manager/web-1 --spec examples/nginx-reconfigured.json "
            "--rollback-on-failure",
        ),
        "The spec is the whole new spec: hostname and the IDs must stay the same.\n"
        "Replicas are untouched: a stopped container stays stopped.",
        spec=True,
    ),
    "options": Command(
        "print the global flags every command takes",
        ("kubectl-adapter options",),
        "As kubectl options: the flags given before or after any command.",
    ),
    "completion": Command(
        "print a shell completion script (bash or zsh)",
        (
            "source <(kubectl-adapter completion bash)             # bash, this shell",
            'kubectl-adapter completion zsh > "${fpath[1]}/_kubectl-adapter"   # zsh',
        ),
        "For `kubectl adapter <TAB>`, kubectl (1.26+) runs kubectl_complete-adapter,\n"
        "installed beside kubectl-adapter: keep both on PATH and source kubectl's own\n"
        "completion (source <(kubectl completion bash)). See docs/cli.md.",
    ),
}


def command_epilog(name: str) -> str:
    """``COMMAND --help``'s text after the flags: examples, the spec, exit codes, docs."""
    command = COMMANDS[name]
    parts = ["examples:\n" + "\n".join(f"  {example}" for example in command.examples)]
    if command.notes:
        parts.append(command.notes)
    if command.spec:
        parts.append(SPEC)
    if name != "completion":
        parts.append(EXIT_CODES)
    parts.append(DOCS)
    if name != "options":
        parts.append(GLOBAL_FLAGS_LINE)
    return "\n\n".join(parts)
