'use strict';
/**
 * KubernetesApi: Manager's node client for `nodeType: 'kubernetes'`, shaped like its
 * ProxmoxApi / DockerApi / DummyApi (same method names, `(nodeName, vmid, ...)` arguments,
 * task strings for waitForTask). Each Manager container is one Deployment, driven by the
 * `kubectl-adapter` CLI; `vmid` is the provider ID `namespace/name`.
 *
 * What differs from an LXC node, and how Manager learns it: `capabilities()` (no VMID
 * allocation, no storages or templates, no MAC, an ephemeral Pod IP, changes applied by a
 * rolling update). Every mutation needs Manager's Container.id (`{ containerId }` or
 * `{ container }` as the last argument) and runs with `--node-id`, so the adapter refuses to
 * touch another container's or node's Deployment. Failures are typed (lib/errors.js).
 */

const { AdapterCli } = require('./lib/adapter-cli');
const errors = require('./lib/errors');
const { feeds: defaultFeeds, compact } = require('./lib/feed');
const spec = require('./lib/spec');

const { invalidInput } = errors;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** A node without kubeNamespace uses kubectl's own default namespace (Manager's #459). */
const DEFAULT_NAMESPACE = 'default';

/**
 * What a Kubernetes node can do, as Manager's shared jobs and routes read it. A constant: Manager
 * reads it from the node type alone (`Node#capabilities()`), before and without `node.api()`,
 * so no login, process or network call is ever needed to know it. The first eight keys are
 * the adapter's `kubectl-adapter capabilities` document (a test keeps them equal); the last
 * four are facts about this client.
 */
const CAPABILITIES = Object.freeze({
  stableMacAddress: false,
  stableIpAddress: false,
  vmid: false,
  storage: false,
  templates: false,
  registerNetbox: false,
  registerDns: false,
  podIpEphemeral: true,
  // updateLxcConfig resolves once the new Pod template is rolled out and available:
  // Manager's reconfigure job must not stop/start afterwards (that would be a second outage).
  reconfigureRollsOut: true,
  // createLxc resolves with the container running: a startLxc after it has nothing to do.
  createStarts: true,
  // createLxc again for a container whose Deployment exists (labelled with its Container.id)
  // applies the same spec onto it and waits: a re-run create job converges instead of refusing.
  createConverges: true,
  // The provider ID follows from the row (namespace/hostname; providerIdFor): a DELETE of a row
  // that holds none can still look for what a killed create job left, guarded by Container.id.
  derivedProviderId: true,
});

/** The adapter's --timeout bounds (docs/cli.md): whole seconds, at most a day. */
const MAX_WAIT_SECONDS = 86400;
/** The adapter's own bounds around a wait: 2 x --call-timeout (60 s), and slack for start-up. */
const CALL_TIMEOUT_SECONDS = 60;
const DEFAULT_PROCESS_TIMEOUT_MS = 15 * 60 * 1000;

class KubernetesApi {
  /**
   * The node's fields are those of Manager's plan (mieweb/opensource-server #459):
   *
   * @param {object} node Manager's Node (or a plain object with the same fields)
   * @param {number|string} node.id Manager node ID (label on every Deployment; guards)
   * @param {string} node.name Manager node name (clusterResources' `node`)
   * @param {string} [node.kubeNamespace] namespace holding this node's Deployments
   *   (default `default`)
   * @param {string} [node.kubeconfigPath] kubeconfig file on the Manager host: a path, never
   *   the file's content (default: kubectl's, `$KUBECONFIG` or `~/.kube/config`)
   * @param {string} [node.kubeContext] kubeconfig context (default: its current-context)
   * @param {number} [node.waitTimeout] seconds any one wait (create, start, stop, reconfigure,
   *   delete) may take before it ends with a Timeout: the adapter's --timeout (default 300)
   * @param {object} [options]
   * @param {string|string[]} [options.command] adapter executable or argv prefix; default
   *   $KUBECTL_ADAPTER, else `kubectl-adapter`
   * @param {string[]} [options.extraArgs] more global flags, e.g. ['--timeout', '120']
   * @param {number} [options.processTimeoutMs] last-resort bound on one adapter process
   * @param {number} [options.killGraceMs] how long a SIGTERMed adapter gets before SIGKILL
   * @param {object} [options.feeds] the FeedRegistry answering reads (lib/feed.js); default the
   *   process's one, which answers nothing until Manager's server enables it
   */
  constructor(node = {}, options = {}) {
    if (node.id === undefined || node.id === null) throw invalidInput('KubernetesApi requires node.id', { field: 'id' });
    if (!node.name) throw invalidInput('KubernetesApi requires node.name', { field: 'name' });
    const namespace = namespaceOf(node);
    const waitSeconds = waitBound(node);
    this.node = node;
    this.namespace = namespace;
    this.nodeId = String(node.id);
    const globalArgs = ['-n', namespace, '--node-id', this.nodeId];
    if (node.kubeconfigPath) globalArgs.unshift('--kubeconfig', node.kubeconfigPath);
    if (node.kubeContext) globalArgs.unshift('--context', node.kubeContext);
    this.feeds = options.feeds || defaultFeeds;
    // The node's feed: the connection flags, not the wait bound (editing waitTimeout keeps it).
    this.feedArgs = globalArgs.concat(options.extraArgs || [], ['-v', 'list', '-w', '-o', 'json', '--exit-with-parent']);
    if (waitSeconds !== null) globalArgs.push('--timeout', String(waitSeconds));
    this.cli = new AdapterCli({
      command: options.command || process.env.KUBECTL_ADAPTER || 'kubectl-adapter',
      globalArgs: globalArgs.concat(options.extraArgs || []),
      // The last-resort bound must not cut the adapter's own (a reconfigure that rolls back
      // waits twice): 2 x the wait + 2 x the call timeout + a minute, at least 15 minutes.
      processTimeoutMs: options.processTimeoutMs
        || Math.max(DEFAULT_PROCESS_TIMEOUT_MS, ((waitSeconds || 0) * 2 + CALL_TIMEOUT_SECONDS * 3) * 1000),
      killGraceMs: options.killGraceMs,
    });
  }

  // -- what this node can do ---------------------------------------------------------------

  /** What every Kubernetes node can do: no login, process or network call (see CAPABILITIES). */
  static capabilities() {
    return { ...CAPABILITIES };
  }

  /** The same answer from an instance, for code that already holds the client. */
  capabilities() {
    return KubernetesApi.capabilities();
  }

  /**
   * API reachable, namespace present, RBAC sufficient: the adapter's `check` document
   * (resolved even with `ok: false`, which names each failed check). Rejects typed when the
   * cluster cannot be asked at all: KubeconfigNotFoundError, InvalidKubeconfigError,
   * ContextNotFoundError, TlsVerificationError, UnavailableError, UnauthorizedError.
   */
  async check() {
    return this.cli.run(['check']);
  }

  /**
   * The cluster's nodes (#460's discovery): `[{name, ready, internalIp, externalIp,
   * kubeletVersion, capacity, allocatable}]`, one kubectl call. Listing nodes is a
   * cluster-wide permission the adapter does not otherwise need: ForbiddenError without it.
   */
  async nodes() {
    const { items } = await this.cli.run(['nodes']);
    return items;
  }

  /**
   * The node form's connection test: `check`, and the node list when the check passed.
   * Always resolves, with what a form shows: `{ok, check, nodes, error, hints, fix}` (`hints`:
   * roleHints, one line per permission the node's Role lacks; `fix`: roleFix, the one line and
   * the one command a person reads first); `error` is the
   * typed failure as plain data (`name`, `type`, `reason`, `message`, `retryable`), for
   * `check` itself or, with `ok` still true, for the optional node list. Messages come
   * from the adapter, which redacts tokens, keys and certificates; the kubeconfig's
   * content is never read here.
   */
  async connectionTest() {
    let check;
    try {
      check = await this.check();
    } catch (error) {
      return { ok: false, check: null, nodes: null, error: errors.toPlain(error), hints: [], fix: null };
    }
    const hints = roleHints(check);
    const fix = roleFix(check);
    if (!check.ok) return { ok: false, check, nodes: null, error: null, hints, fix };
    try {
      return { ok: true, check, nodes: await this.nodes(), error: null, hints, fix };
    } catch (error) {
      return { ok: true, check, nodes: null, error: errors.toPlain(error), hints, fix };
    }
  }

  /** operationVerdict for code that holds the client (Manager's reconfigure job). */
  operationVerdict(kind, providerId) {
    return operationVerdict(kind, providerId);
  }

  /** The provider assigns the ID at create (like Docker): there is no VMID to allocate. */
  async nextId() {
    return null;
  }

  /** A Kubernetes node has no Proxmox storages (GET /nodes/:id/storages shows none). */
  async datastores() {
    return [];
  }

  // -- create ------------------------------------------------------------------------------

  /**
   * Create the Deployment and wait until its Pod is available. Resolves with the task string
   * `kubernetes:create:<namespace>/<name>`; the provider ID after the second colon is what
   * Manager stores in Container.containerId.
   *
   * Every create failure carries `orphanProviderId`: the provider ID when a Deployment of this
   * container may exist on the cluster, else null. Whether it may exist is decided by what the
   * adapter says happened, whatever the error's class (createMayHaveWritten): only a failure
   * marked "nothing sent" (`details.applied: false` or `details.writeSent: false`) wrote
   * nothing. On a first run (`options.vmid` empty) any other failure is cleaned up first
   * (guarded by containerId), except one whose create may have completed (Interrupted, an
   * answer lost): its ID is kept. null then says the cleanup removed it or nothing was sent.
   * On a re-run (`options.vmid` is the row's stored provider ID) an earlier run's Deployment
   * may be there whatever this run did, so nothing is cleaned up and `orphanProviderId` is
   * always that ID. Manager stores it when it is not null and never stores null over a
   * provider ID.
   *
   * Called again for a container whose Deployment exists (it carries this Container.id's
   * labels), the create applies the same spec onto it and waits: it converges. A Deployment
   * of that name labelled for another container or node is an OwnershipConflictError.
   *
   * @param {string} nodeName Manager node name (unused; kept for Manager's call shape)
   * @param {object} options Manager's create options: hostname, cores, memory, and for
   *   Kubernetes image (Container.template), env (NUL-separated or object), entrypoint,
   *   containerId (Container.id), vmid (Container.containerId: null, or the provider ID an
   *   earlier run stored). LXC-only keys (swap, rootfs, net0, ...) are ignored.
   */
  async createLxc(nodeName, options = {}) {
    const body = spec.createSpec(this.node.id, options);
    const providerId = this.providerIdFor(body.hostname);
    const rerun = options.vmid !== undefined && options.vmid !== null && options.vmid !== '';
    // The row points elsewhere (another namespace, another name): converging here would leave it.
    if (rerun && this.providerId(options.vmid) !== providerId) {
      throw invalidInput(`createLxc: the row's provider ID ${JSON.stringify(options.vmid)} is not ${providerId}`, { field: 'vmid' });
    }
    try {
      await this.cli.run(['create', '--spec', '-'], JSON.stringify(body));
    } catch (error) {
      error.orphanProviderId = null;
      const written = createMayHaveWritten(error);
      // A re-run: the earlier run's Deployment may exist; this one is not to delete it.
      if (rerun) error.orphanProviderId = providerId;
      else if (written === 'outcome-unknown') error.orphanProviderId = providerId;
      else if (written) await this.cleanUpFailedCreate(providerId, body.containerId, error);
      throw error;
    }
    return spec.task('create', providerId);
  }

  /** The provider ID a container of this hostname has (or gets) on this node. */
  providerIdFor(hostname) {
    return `${this.namespace}/${hostname}`;
  }

  async cleanUpFailedCreate(providerId, containerId, error) {
    try {
      const result = await this.cli.run(['delete', providerId, '--container-id', containerId]);
      error.cleanup = { providerId, deleted: result.deleted, alreadyMissing: result.alreadyMissing };
    } catch (cleanupError) {
      // The Deployment may still run: Manager must keep a row pointing at it.
      error.cleanup = { providerId, error: cleanupError };
      error.orphanProviderId = providerId;
    }
  }

  /** Every call here finishes its work before resolving; a task is done when it is returned. */
  async waitForTask(nodeName, taskId) {
    if (spec.providerIdOfTask(taskId) === null) {
      throw invalidInput(`waitForTask: ${JSON.stringify(taskId)} is not a task of this client`, { field: 'upid' });
    }
    return { status: 'stopped', exitstatus: 'OK' };
  }

  // -- read --------------------------------------------------------------------------------

  /** The node's `list -w` as the feed registry starts it (lib/feed.js). */
  feedArgv() {
    return { executable: this.cli.executable, argv: [...this.cli.prefix, ...this.feedArgs] };
  }

  /**
   * One container's status for display: `{providerId, status, message, ipv4Address,
   * containerId, drift, source}`. From the node's feed when it is synced (`source: 'feed'`, no
   * process; a workload it has not given is `missing`), else the adapter's `status`
   * (`source: 'status'`). Writes never read this: they read `status()` afresh.
   */
  async liveStatus(vmid) {
    const providerId = this.providerId(vmid);
    const feed = this.feeds.ensure(this);
    const entry = feed && feed.lookup(providerId);
    if (entry) return { ...entry, source: 'feed' };
    const snapshot = await this.status(providerId);
    return { ...compact(snapshot), source: 'status' };
  }

  /** The adapter's snapshot of one container (status `missing`/`unknown` are answers, exit 0). */
  async status(vmid) {
    return this.cli.run(['status', this.providerId(vmid)]);
  }

  /** A snapshot that must be definite: `unknown` becomes its typed error, `missing` NotFound. */
  async definiteStatus(vmid) {
    const snapshot = await this.status(vmid);
    if (snapshot.status === 'unknown') throw errors.fromUnknownSnapshot(snapshot);
    if (snapshot.status === 'missing') {
      throw errors.fromCliError({ type: 'NotFound', message: `${snapshot.providerId}: ${snapshot.message}`, details: { providerId: snapshot.providerId } }, 3);
    }
    return snapshot;
  }

  /**
   * Manager's status source: every Deployment of this node. Entries look like Proxmox's (vmid,
   * name, type, status, node) plus managerStatus and `source`, which the array also carries
   * (an empty answer has a source too): `'feed'` from the node's synced feed (no process
   * started), else `'list'`, one adapter call (one kubectl call).
   */
  async clusterResources(type = null) {
    if (type && type !== 'lxc' && type !== 'vm') return [];
    const feed = this.feeds.ensure(this);
    const entries = feed && feed.entries();
    // The array's `source` is not enumerable: the entries are what a caller compares.
    const answer = (snapshots, source) => Object.defineProperty(
      snapshots.map((snapshot) => ({ ...spec.toClusterResource(snapshot, this.node.name), source })),
      'source', { value: source },
    );
    if (entries) return answer(entries, 'feed');
    const { items } = await this.cli.run(['list']);
    return answer(items, 'list');
  }

  /**
   * LXC-config-like view (hostname, cores, memory, image, status) for the delete route's
   * hostname check. A missing Deployment is an answer (status `missing`), so deleting a row
   * whose Deployment is already gone proceeds; an API that cannot answer is a typed error.
   */
  async lxcConfig(nodeName, vmid) {
    const snapshot = await this.status(vmid);
    if (snapshot.status === 'unknown') throw errors.fromUnknownSnapshot(snapshot);
    return spec.toLxcConfig(snapshot);
  }

  /** `{status: 'running'|'stopped'|..., vmid}` like Proxmox's; NotFound when it does not exist. */
  async getLxcStatus(nodeName, vmid) {
    const snapshot = await this.definiteStatus(vmid);
    return { status: spec.lxcState(snapshot), vmid, managerStatus: snapshot.status };
  }

  /** A Pod has no stable MAC address (capabilities.stableMacAddress is false). */
  async getLxcMacAddress() {
    return null;
  }

  /**
   * The current Pod IP, or null. Ephemeral: it changes on every restart and rollout, so it is
   * for display, never for Container.ipv4Address (capabilities.stableIpAddress is false).
   */
  async getLxcIpAddress(nodeName, vmid) {
    const network = await this.cli.run(['network', this.providerId(vmid)]);
    return network.ipv4Address;
  }

  async getLxcNetworkInfo(nodeName, vmid) {
    return { macAddress: null, ipv4Address: await this.getLxcIpAddress(nodeName, vmid) };
  }

  // -- change ------------------------------------------------------------------------------

  /**
   * Apply Manager's config delta as a full spec and wait for the rollout. The delta is what
   * Manager's jobs send today (env/entrypoint/delete from buildLxcEnvConfig, cores/memory
   * from a resource request, tags on an owner change); the rest of the spec comes from the
   * Container record (`options.container`) and the running Deployment. Keys that mean
   * nothing for a Deployment (swap, rootfs, tags, ...) are ignored; a delta of only those
   * resolves without touching the cluster. Replicas are untouched: a stopped container stays
   * stopped. Resolves with `kubernetes:update:<providerId>`.
   *
   * @param {object} options.container Manager's Container (id, hostname, template,
   *   environmentVars, entrypoint, nvidiaRequested; its buildLxcEnvConfig() is used when
   *   present so Settings' default env vars are kept)
   * @param {boolean} [options.rollbackOnFailure] undo the template change if the rollout fails
   */
  async updateLxcConfig(nodeName, vmid, config = {}, options = {}) {
    const providerId = this.providerId(vmid);
    const delta = spec.splitDelta(config);
    if (spec.deltaIsEmpty(delta)) return spec.task('update', providerId);
    const { container } = options;
    if (!container || container.id === undefined || container.id === null) {
      throw invalidInput('updateLxcConfig on a Kubernetes node needs { container } (Manager\'s Container record)', { field: 'container' });
    }
    const current = await this.definiteStatus(providerId);
    const base = await effectiveEnv(container, delta);
    const body = spec.reconfigureSpec({ nodeId: this.node.id, container, current, base, delta });
    const args = ['reconfigure', providerId, '--spec', '-'];
    if (options.rollbackOnFailure) args.push('--rollback-on-failure');
    await this.cli.run(args, JSON.stringify(body));
    return spec.task('update', providerId);
  }

  /** Scale to 1 and wait until available (a running container is left alone). */
  async startLxc(nodeName, vmid, options = {}) {
    const providerId = this.providerId(vmid);
    await this.cli.run(['start', providerId, '--container-id', guardId(options, 'startLxc')]);
    return spec.task('start', providerId);
  }

  /** Scale to 0 and wait until the Pod is gone; the Deployment (and its spec) stays. */
  async stopLxc(nodeName, vmid, options = {}) {
    const providerId = this.providerId(vmid);
    await this.cli.run(['stop', providerId, '--container-id', guardId(options, 'stopLxc')]);
    return spec.task('stop', providerId);
  }

  /**
   * Delete the Deployment and wait until its Pods are gone. Resolves with
   * `{data: null, providerId, deleted, alreadyMissing}`: an already missing Deployment is
   * success. Rejects (typed) when the node-side delete did not happen: Manager must then
   * keep its row. `force`/`purge` are Proxmox's and change nothing here.
   */
  async deleteContainer(nodeName, vmid, force = false, purge = false, options = {}) {
    const providerId = this.providerId(vmid);
    const result = await this.cli.run(['delete', providerId, '--container-id', guardId(options, 'deleteContainer')]);
    return { data: null, ...result };
  }

  // -- helpers -----------------------------------------------------------------------------

  /** The provider ID for a stored vmid, refused when it is outside this node's namespace. */
  providerId(vmid) {
    const fromTask = spec.providerIdOfTask(vmid);
    const id = fromTask !== null ? fromTask : vmid;
    if (typeof id !== 'string' || !id.startsWith(`${this.namespace}/`)) {
      throw errors.fromCliError({
        type: 'InvalidProviderId',
        message: `provider ID ${JSON.stringify(id)} is not namespace/name in this node's namespace ${this.namespace}`,
        details: { providerId: id, namespace: this.namespace },
      }, 2);
    }
    return id;
  }
}

/**
 * Whether a failed create may have written the Deployment, decided by what the adapter says
 * happened, never by the error's class: a Forbidden watch after the apply, a NotFound from a
 * concurrent delete or an answer lost in flight all leave a Deployment behind. Only a failure
 * that says nothing was sent (`details.applied: false` from create's read step,
 * `details.writeSent: false` from a write stopped before it left, or the client's own
 * "the adapter never ran") is `false`. Anything else, a missing or unknown marker included,
 * may have written: `true`, or `'outcome-unknown'` when the create may well have completed
 * (stopped from outside, or its answer lost): then nothing is cleaned up (the work is not
 * undone, docs/cli.md) and the ID is kept for a retry to converge on.
 */
function createMayHaveWritten(error) {
  const details = error.details || {};
  if (details.applied === false || details.writeSent === false) return false;
  if (error.type === 'Interrupted' || error.type === 'OutputFailed') return 'outcome-unknown';
  return true;
}

/**
 * What the admin should do about each namespaced permission `check` found missing, in the words
 * the nodes list and the node form show: a node set up before a version that needs more (the
 * Pods' watch since issue 24) fails every create until its Role is applied again.
 * `missingPermissions` labels read "watch pods (core)": verb, resource, group.
 */
function roleHints(check) {
  const missing = (check && check.missingPermissions) || [];
  return missing.map((label) => {
    const [verb, resource] = String(label).split(' ');
    return `this node's Role lacks ${verb} on ${resource}: apply rbac/role.yaml again`;
  });
}

/**
 * The one thing to read when the node's Role lacks permissions, however many: a line saying
 * what is missing and the one command that fixes it (rbac.md's, for the node's namespace).
 * `roleHints` stays the full list, for a disclosure and the job log. null when nothing is missing.
 */
function roleFix(check) {
  const hints = roleHints(check);
  if (!hints.length) return null;
  const summary = hints.length === 1
    ? hints[0]
    : `this node's Role lacks ${hints.length} permissions the adapter needs: apply rbac/role.yaml again`;
  const command = `sed "s/namespace: manager$/namespace: ${check.namespace}/" rbac/role.yaml | kubectl apply -f -`;
  return { summary, command, missing: hints.length };
}

/**
 * What a nodes list keeps of a connection test (Manager's `lastConnectionTest`): when, whether
 * it passed, one line of what it found, and the hints. The whole check document is not kept:
 * the list needs the verdict; the form runs the test again.
 */
function connectionSummary(tested, at = new Date()) {
  let summary;
  if (!tested.check) summary = `${tested.error.name}: ${tested.error.message}`;
  else if (tested.check.namespaceExists !== true) {
    summary = `namespace ${tested.check.namespace} ${tested.check.namespaceExists === false ? 'does not exist' : 'cannot be read'}`;
  } else if (tested.check.missingPermissions.length) summary = `missing permissions: ${tested.check.missingPermissions.join(', ')}`;
  else summary = `Server ${tested.check.serverVersion}, namespace ${tested.check.namespace} exists`;
  return { at: at.toISOString(), ok: tested.ok, summary, hints: tested.hints || [], fix: tested.fix || null };
}

/**
 * The verdict an operation that reached the cluster leaves for the nodes list: it is also a
 * connection that works (its Role let it through), so a "Test failed" kept from before the Role
 * was applied again gives way to it without anyone pressing "Test connection".
 */
function operationVerdict(kind, providerId, at = new Date()) {
  return { at: at.toISOString(), ok: true, summary: `${kind} of ${providerId} reached the cluster and succeeded`, hints: [], fix: null };
}

/** The node's kubeNamespace, `default` when unset (#459); refused unless a DNS-1123 label. */
function namespaceOf(node) {
  const value = node.kubeNamespace === undefined || node.kubeNamespace === null || node.kubeNamespace === ''
    ? DEFAULT_NAMESPACE : node.kubeNamespace;
  if (typeof value !== 'string' || !DNS_LABEL.test(value)) {
    throw invalidInput(`Node ${node.name}: kubeNamespace must be a DNS-1123 label, got ${JSON.stringify(value)}`, { field: 'kubeNamespace' });
  }
  return value;
}

/** The node's wait bound in seconds (`node.waitTimeout`), or null for the adapter's default. */
function waitBound(node) {
  const value = node.waitTimeout;
  if (value === undefined || value === null || value === '') return null;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS) {
    throw invalidInput(
      `Node ${node.name}: waitTimeout must be whole seconds from 1 to ${MAX_WAIT_SECONDS}, got ${JSON.stringify(value)}`,
      { field: 'waitTimeout' },
    );
  }
  return seconds;
}

/** Manager's Container.id from `{containerId}` or `{container}`: the guard on every mutation. */
function guardId(options, method) {
  const id = options.containerId !== undefined ? options.containerId : options.container && options.container.id;
  if (id === undefined || id === null || id === '') {
    throw invalidInput(`${method} on a Kubernetes node needs { containerId } (Manager's Container.id)`, { field: 'containerId' });
  }
  return String(id);
}

/**
 * Env and entrypoint to keep when the delta does not set them: Manager's own
 * buildLxcEnvConfig() when the record has it (Settings defaults < NVIDIA < user), else the
 * record's fields.
 */
async function effectiveEnv(container, delta) {
  const needsEnv = delta.pod.env === undefined && !delta.deleted.includes('env');
  const needsEntrypoint = delta.pod.entrypoint === undefined && !delta.deleted.includes('entrypoint');
  if (!needsEnv && !needsEntrypoint) return { env: {}, entrypoint: null };
  if (typeof container.buildLxcEnvConfig === 'function') {
    const config = await container.buildLxcEnvConfig({ deleteMissing: true });
    return { env: spec.parseEnv(config.env), entrypoint: config.entrypoint || null };
  }
  return { env: spec.recordEnv(container), entrypoint: container.entrypoint || null };
}

module.exports = KubernetesApi;
module.exports.KubernetesApi = KubernetesApi;
module.exports.CAPABILITIES = CAPABILITIES;
module.exports.createMayHaveWritten = createMayHaveWritten;
module.exports.roleHints = roleHints;
module.exports.roleFix = roleFix;
module.exports.connectionSummary = connectionSummary;
module.exports.operationVerdict = operationVerdict;
module.exports.errors = errors;
module.exports.spec = spec;
module.exports.feeds = defaultFeeds;
