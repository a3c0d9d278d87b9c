"""The notes under docs/performance.md's tables: how to read the figures, measured by hand
where a table cannot show it. ``run.py`` writes them after the tables."""

NOTES = """
## Reading the figures

- `list` is one kubectl call (`get deployments,replicasets,pods -l …`) for any number of
  workloads, and two when there are none: kubectl lists a missing namespace as an empty List,
  so only an empty answer is followed by `get namespace NS --ignore-not-found -o name` to tell
  an empty namespace (`{"items": []}`) from a missing one (NotFound), still within `<= 2`.
  Its objects are grouped by owner UID in one pass, so the cost per workload is flat.
- Before any rule reads it, `list`'s JSON is checked against the fields the rules read. An
  answer of 1 MiB or more is decoded by msgspec straight into those fields, typed
  (`workload_fields.py`): 0.06 s at 5,000 workloads where `json.loads` takes 0.10 s and the
  hand-written checks (`shapes.py`, still the path for small answers and for naming what
  msgspec refuses) 0.06 s more; the rules then walk small dicts. msgspec's import (~8 ms) is
  paid only then.
- Drift costs no kubectl call but bytes: `--show-managed-fields` keeps every object's
  managedFields in the one answer. At 5,000 workloads whose Deployments carry realistic
  managedFields (Manager's apply, the controller, one other manager) and whose ReplicaSets and
  Pods carry none, the answer grew from 17.6 MB to 26.8 MB and parsing plus building the
  documents from 0.61 s to 1.05 s; the drift rules themselves are 10-15 µs per workload (a
  loaded 2-core machine, in-process, 2026-12-01). On a real cluster Pods carry the kubelet's
  managedFields too, so expect the answer to roughly double. Measured apart from the table
  above, which predates drift.
- The baseline reads the same stub kubectl's bytes through a pipe, as the adapter does. What
  the adapter adds is its start-up, the status rules per workload (about 20 µs each, the
  owner index included) and writing the answer; it decodes faster than `json.load` (above),
  imports no pydantic and runs with the cyclic GC off (the baseline keeps it on, which is
  why the ratio can drop below 1 at 20,000: the GC rescans the parsed objects as they grow).
  Small N is dominated by the fixed start-up of both processes. Measured by hand on a loaded
  2-core machine, 2026-12-01, installed packages, 9 paired runs at 5,000, in several runs as
  the load changed: 1.48-1.62 before the typed decode, 1.08-1.30 after (1.8 and 1.1-1.3
  against `json.load` of the file as stdin).
- Against the fake API server with 5,000 workloads (every object carrying the fake's
  managedFields: 94 MB), `kubectl get deployments,replicasets,pods -o json` alone takes
  10-14 s, nearly all of it the fake and kubectl; `list` ran at 0.98x and 1.24x of it in
  two runs of 5-7 pairs (the noise of the fake's serialisation), the adapter's own part being
  0.78 s of it (1.06 s before the typed decode; the same bytes from a stub, 5 pairs).
- Reads whose answer grows are bounded per request (issue 26: kubectl's `-v=6` logs each
  answered request, a page of 500 objects; `node-configuration.md`). Against the fake with
  3,000 running workloads and one workload with 3,000 evicted Pods (default flags, a loaded
  2-core machine, 2026-12-01; the objects written with
  `fc.create_object`, controller stopped, the CLI run as a process): `list` answered 3,001
  items in 22.5 s (`kubectl get` of the same objects alone: 23.5 s); before, it failed
  Timeout (exit 7) after 30.2 s (15 s, then once more with a warm cache). `status` of the
  workload among its 3,000 Failed Pods: `running` in 14.1 s (14.5 s before, within 0.5 s of
  its old 15 s bound). `list` and `status` stay one kubectl call each: leaving ReplicaSets'
  and Pods' managedFields (33% of the answer's bytes on the fake; `--show-managed-fields`
  applies to every type of one `get`) or ended Pods (a field selector cannot go on a get of
  several types) out would take a second `get` per read, a second kubectl process (~0.1 s,
  as much as a whole `status` here) on every small node to save bytes only on big ones; the
  per-request bound is what keeps big ones answering.
- An API server that accepts connections and never answers, cold discovery cache, default
  flags: `start` and `stop` used to take 55.2 s to say `Unavailable` (their first call is the
  patch, whose discovery kubectl retried five times); now `Timeout` with
  `details.writeSent: false` in 15.5 s, as `status` (15.3 s, `unknown`), `list`, `delete` and
  `create` (15.1-15.5 s) always did. The patch runs with `-v=7`, which logs its PATCH before
  sending it; it is stopped only while none is logged.
  Reading kubectl's pipes until it exits (not until they close) and pacing its requests
  left `list`'s parse figures within the load's noise: at 5,000 workloads from a stub, 1.24
  and 1.27 of `json.load` against 1.17 and 1.11 on the code before; at 1,000, 1.92 and 1.98
  against 2.35 and 2.33 (two runs each of 7 pairs, load 10-14, `parse_scaling` in
  `benchmarks/parsing.py`).
- `render` start-up is the interpreter (~20 ms) and ~50 ms of imports, ~20 ms of them
  jinja2's (`python -X importtime`, 2026-12-01); it imports no pydantic
  (`tests/cli/test_startup.py` enforces that). The spec is validated by plain functions for
  this reason.
- Waits end on kubectl's watches of the Deployment and of its Pods (`get deployments
  --watch -o json` and `get pods -l … --watch -o json`, at once), judged event by event, not on
  a poll: latency is the watch event plus killing kubectl and the CLI's own exit. How soon
  each wait answers once the API server shows its end state or its failure, and its kubectl
  processes: `benchmarks/waits.py` (issue 24; figures in the section below).
- Targets for kubectl calls (issue 17): list 1, status 1, create 2, start 2, stop 2,
  reconfigure 2, delete 1. Met: list, status and network (1), start when already running (1),
  stop when already stopped (1), reconfigure of a stopped workload or with no change (2),
  delete of a missing one (1). Every wait is two watches at once since issue 24 (create 4,
  3 since issue 38, start 3, stop 3, a reconfigure that rolls out 4): the Pods' watch is
  what sees a Pod still running through its grace period after its ReplicaSet stopped
  counting it (stop answered
  `offline` while it ran) and a Pod that cannot start as soon as the API server shows it; it
  replaced the 10 s slices, each of which cost one more watch and one more read. No
  operation reads after its wait: the snapshot is the Deployment the wait's watch delivered
  last, or what the write printed when that
  already shows it done (so create, start and reconfigure answer with no Pod IP; `status`,
  `network` and `list` give it). One over, and why (docs/architecture.md, Cost): create's
  ownership check, which a server-side apply cannot make, reads its wait's Deployment
  watch (by name alone), at no process of its own; a
  reconfigure that rolls out reads the uid and resourceVersion its apply is pinned to;
  delete's read is the uid that tells a re-created Deployment (Conflict) from a false 404
  (Unavailable). status and network are 1 (one `get deployments,replicasets,pods` selecting
  on the name label) for every Deployment Manager applied since that label; one applied
  before it costs the old 3 until its next reconfigure.
- The adapter's time beside the hand-typed commands is mostly Python: each adapter command
  is a fresh interpreter (~20 ms before any import of ours), and its imports (the table
  above) cost about as much as a warm-cache `kubectl get` against this fake; a command's
  first read runs beside them where its arguments name it. No command imports pydantic,
  `dataclasses` (with `inspect`), `logging` or the kubectl error table before its first
  kubectl call
  (`tests/cli/test_startup.py` counts the modules: status 164 -> 143). The figures include
  the interpreter's own `site` and `encodings` (~2 ms) and, in this editable development
  install (`./dev`), its import finder, which an installed package does not have: ~5 ms of
  every command (status until kubectl starts: 32 ms editable, 26 installed from the wheel;
  medians of 9, 2026-12-01). They are taken with bytecode
  caches, as an installed package runs: with `PYTHONDONTWRITEBYTECODE=1` every start would
  compile the adapter's modules (~25 ms more; earlier tables here include that).
- The imports table has two columns. "Until kubectl starts": the stub kubectl kills the
  adapter as it starts, so only what was imported by then is printed. `list`, `status`,
  `describe`, `network`, `create`, `reconfigure` and `delete` start their first read from
  the CLI, before the operation's modules are imported (`runner.open_read`,
  docs/architecture.md); `start` and `stop` begin with their wait's watches, started
  before the rules that judge them are imported (issue 38). "Until its first answer is
  used": the stub fails at once, and the command imports
  what it needs to take that answer, the error path included (the error table, redaction);
  `create` and `reconfigure` include jinja2 (~15 ms), imported while their first read runs.
- A wait's watches broken by the API server (closed, `410 Expired`, a reset, a restart) cost
  two processes more each time they are started again; a Pod that fails costs one read (is
  it the newest ReplicaSet's?), which also gives the failure's diagnostics. A
  `reconfigure` whose precondition is refused because only the resourceVersion moved (a
  status update or a scale between its read and its apply) adds one read and one apply.
- Issue 30 (until issue 38): create, start, stop and reconfigure (one that waits) ran one
  kubectl more before their write: the `create -f -` of their wait's
  SelfSubjectAccessReviews, so that a Role without a permission the wait needs refuses
  before anything is written
  (`--validate=false`: median 0.10 s, 0.09-0.12 s, 8 runs on the fake at load 5). Whole
  operations, medians of 3 at load 5, before -> after: create 0.96 -> 1.08 s, stop 0.55 ->
  0.60 s, start 0.66 -> 0.78 s, reconfigure 1.01 -> 1.11 s, start of a running one 0.38 ->
  0.69 s, reconfigure without change 0.57 -> 0.96 s. A stop reads its ReplicaSets once when a
  Pod is still there as the scale is observed (which Pods are the Deployment's); a stop of a
  stopped workload reads its ReplicaSets and Pods once (3 calls, was 1: 0.39 -> 0.83 s).
- Issue 38's start-up, counted by `tests/cli/test_startup.py` (modules loaded when a
  command starts its first kubectl; the probe loads 85 before the CLI, the interpreter 68),
  before -> after: list 138 -> 118, status, describe and delete 140 -> 120, create 147 ->
  126, reconfigure 149 -> 128, start and stop 153 -> 132. Taken off that path: shutil and
  the compressors it imports (argparse's formatter asked it the terminal width, the runner
  `shutil.which`: now `parser.terminal_columns` and `runner.which`, with os), glob (the
  discovery cache's count, with `os.scandir`), fractions (the cpus rule, with
  `Decimal.as_integer_ratio`), the ctypes package (libc's `prctl` for the parent-death
  signal built from `_ctypes`, as ctypes builds it: `kubectl/lifetime.py`), and what only a
  call's end or the `-v` log needs (classify, outcome, shapes, progress, transcript, shlex,
  redact, the ownership rule, mistyped, several), now imported while kubectl runs. Their
  own import time until the first kubectl (`python -X importtime`, the modules after the
  probe's, medians of 9 interleaved, load 5.5, 2 cores): status 49.5 -> 35.1 ms, stop 61.9
  -> 48.5 ms. create and reconfigure read and check the spec first (decimal and the spec's
  modules); start and stop started their watches after the operation's modules (since:
  below).
- Since issue 38 the SelfSubjectAccessReview process is gone: the wait's two watches start
  before the write, and the API server answering them proves the wait's permissions.
  `./dev bench --lifecycle --rounds 3` on the commit before and after, back to back (Pods
  ready 0.3 s, gone 0.2 s; medians of 3 interleaved rounds; load 4.7 then 4.2, 2 cores),
  kubectl processes / HTTP requests per command, before -> after: create 5/18 -> 4/12,
  status 1/4 -> 1/4, list 1/4 -> 1/4, stop 5/17 -> 4/11 (the fourth: the ReplicaSets' read
  that tells which Pods are the Deployment's), start 4/15 -> 3/9, reconfigure 5/18 -> 4/12,
  delete 2/8 -> 2/8; the lifecycle 23/84 -> 19/60 (by hand 11/44), 3.18 s -> 2.97 s, 1.69x
  -> 1.65x the hand-typed sequence (1.88 s, 1.81 s): the seconds are the interpreter's start
  per command more than kubectl's. A start of a running workload costs 3 processes (was 2:
  the review and the patch), a stop of a stopped one 3 (was 3: the review, the patch, a
  read). Modules loaded when the first kubectl starts: start and stop 146 (was 172: the
  rules that judge the wait are imported once its watches run), the others unchanged (list,
  status, describe, delete 135; create, reconfigure 144).
- Issue 38, the lifecycle against the hand-typed sequence (this table, `./dev bench
  --lifecycle --rounds 3`). The bench now starts the adapter as the shipped launcher does
  (`packaging/manager/bin/kubectl-adapter`: `python -S -P`, the package installed as a tree
  on PYTHONPATH); before, it ran `.venv/bin/python -m kubectl_adapter`, whose `site` runs
  the dev venv's `.pth` files: the editable install's import hook alone imports `pathlib`
  and some 25 modules per command (`--with-site` measures that way still). start and stop
  open their wait's watches from the CLI before the operation's modules are imported
  (`runner.open_watches`), create opens them beside its read; a successful read no longer
  imports shlex, redaction, hashlib or urllib.parse. Modules when the first kubectl starts:
  list 118 -> 116, status, describe and delete 120 -> 118, start and stop 132 -> 118, create
  126 -> 124, reconfigure 128 -> 126 (the last two still above 120: they read and check the
  spec first, `decimal` and the spec's five modules). Processes / requests per command are
  unchanged: create 4/12, status 1/4, list 1/4, stop 4/11 (its fourth, the ReplicaSets'
  read, is still its own process: no call that runs already returns a ReplicaSet, and
  kubectl watches one kind per process), start 3/9, reconfigure 4/12, delete 2/8; the
  lifecycle 19/60 (by hand 11/44): every kubectl, the adapter's or an operator's, sends the
  same requests for the same verb (`GET /version`, then its own; an apply adds the two
  OpenAPI reads); `-v=6`/`-v=7` add none. One interleaved run of 7 rounds (load 6.5-7.0, 2
  cores), lifecycle medians: main's adapter as before (site) 4.24 s, 2.07x the hand-typed
  2.09 s (median of the rounds' ratios); this one with site 3.88 s, 2.01x; as the launcher
  starts it 3.98 s, 1.90x. On these shared cores the time follows CPU: measured with
  `getrusage` over 3 rounds, the adapter's lifecycle costs 1.76 CPU seconds to the
  hand-typed 0.65: about 0.055 s a kubectl process (19 against 11: 0.45 s of the
  difference) and, per adapter command, 0.06-0.08 s of Python (status with a stub kubectl:
  62 -> 55 ms; the interpreter 2 ms, imports about 35 ms, argparse's parser about 5 ms) and
  for create and reconfigure about 45 ms more for jinja2 (`import jinja2` 43-49 ms CPU,
  `inspect`, `ast`, `hashlib` with it, and 7 ms to compile the template). Starting kubectl
  beside the imports (the first read, the watches) hides their time only on a core left
  idle. So the ratio stays near 2 at this load (1.56 was main's figure at a lower one).
- Issue 38, create's read rides on its wait's watch: the Deployment's watch selects by name
  alone (`--field-selector metadata.name=NAME`, no `-l`), so its list shows a Deployment of
  that name whoever's it is; the ownership check runs on it once both watches have listed,
  before the apply, and the wait sees each event as the managed-label watch would
  (`commands.in_view`). `get deployment NAME` is gone: create 4/12 -> 3/10 kubectl processes /
  HTTP requests, the lifecycle 19/60 -> 18/58 (by hand 11/44), the others unchanged
  (`./dev bench --lifecycle --rounds 3`; the table above, load 1.0-1.4: create 0.58 s, 1.52x
  the hand-typed 0.38 s, the lifecycle 2.76 s, 1.54x the hand-typed 1.79 s; main's run before
  it, load 0.6-0.9: create 0.67 s, 1.76x, the lifecycle 3.06 s, 1.69x. A run at load 9 the
  same day: create 0.86 s, the lifecycle 4.03 s, 1.84x).
- Reproduce: `./dev bench` (full), `./dev bench --lifecycle [--rounds N]` (the lifecycle
  beside the hand-typed commands only; `--with-site` starts the adapter through the dev
  venv's site) or `.venv/bin/python benchmarks/run.py --quick`.
"""
