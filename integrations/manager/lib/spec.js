'use strict';
/**
 * Pure translation between Manager's shapes (its Container record, the LXC-style option and
 * config objects its jobs pass to a node client, its clusterResources entries) and the
 * adapter's spec and snapshots. No I/O here: every decision is testable from plain data.
 */

const { invalidInput } = require('./errors');

/** Task strings follow Manager's Docker convention `<provider>:<kind>:<id>`. */
const TASK_PREFIX = 'kubernetes';

/** LXC config keys that mean nothing for a Deployment; a delta carrying them is not an error. */
const LXC_ONLY_KEYS = new Set([
  'swap', 'rootfs', 'tags', 'features', 'net0', 'searchdomain', 'onboot', 'unprivileged',
  'hookscript', 'description', 'mp0', 'ostemplate', 'storage', 'vmid', 'full', 'nameserver',
]);
/** LXC config keys a Deployment's Pod template carries. */
const POD_KEYS = new Set(['env', 'entrypoint', 'cores', 'memory', 'delete']);

function task(kind, providerId) {
  return `${TASK_PREFIX}:${kind}:${providerId}`;
}

/** The provider ID inside one of this client's task strings (null for any other string). */
function providerIdOfTask(taskId) {
  if (typeof taskId !== 'string') return null;
  const parts = taskId.split(':');
  if (parts[0] !== TASK_PREFIX || parts.length < 3) return null;
  return parts.slice(2).join(':');
}

/**
 * Manager's env in any of its three shapes: the NUL-separated `KEY=value` string its
 * buildLxcEnvConfig produces, the JSON text of Container.environmentVars, or an object.
 */
function parseEnv(value) {
  if (value === null || value === undefined || value === '') return {};
  if (typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  }
  if (typeof value !== 'string') throw invalidInput('env must be a string or an object', { field: 'env' });
  const env = {};
  for (const pair of value.split('\0')) {
    const eq = pair.indexOf('=');
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** The env a Manager Container record implies without Settings: user values over NVIDIA defaults. */
function recordEnv(container) {
  let user = {};
  if (container.environmentVars) {
    try {
      user = parseEnv(JSON.parse(container.environmentVars));
    } catch (e) {
      throw invalidInput(`container ${container.id}: environmentVars is not JSON: ${e.message}`, { field: 'environmentVars' });
    }
  }
  const nvidia = container.nvidiaRequested
    ? { NVIDIA_VISIBLE_DEVICES: 'all', NVIDIA_DRIVER_CAPABILITIES: 'utility compute' }
    : {};
  return { ...nvidia, ...user };
}

function blankToNull(value) {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

function required(value, field, where) {
  if (value === undefined || value === null || value === '') {
    throw invalidInput(`${where}: ${field} is required`, { field });
  }
  return value;
}

/**
 * The adapter spec for Manager's createLxc(nodeName, options): the options its Docker-image
 * path already builds (hostname, cores, memory, ...) plus `image`, `env`, `entrypoint` and
 * `containerId` (Manager's Container.id, the identity label the guards check).
 */
function createSpec(nodeId, options) {
  const where = 'createLxc';
  const spec = {
    containerId: String(required(options.containerId, 'containerId', where)),
    nodeId: String(required(nodeId, 'node.id', where)),
    hostname: required(options.hostname, 'hostname', where),
    image: required(options.image, 'image', where),
    cpus: Number(required(options.cores, 'cores', where)),
    memoryMb: Number(required(options.memory, 'memory', where)),
    env: parseEnv(options.env),
  };
  const entrypoint = blankToNull(options.entrypoint);
  if (entrypoint) spec.entrypoint = entrypoint;
  return spec;
}

/**
 * Split an updateLxcConfig delta into what a Deployment can apply and what it ignores.
 * Unknown keys are refused: a silently dropped setting is worse than a failed job.
 */
function splitDelta(config) {
  const pod = {};
  const ignored = [];
  for (const [key, value] of Object.entries(config || {})) {
    if (POD_KEYS.has(key)) pod[key] = value;
    else if (LXC_ONLY_KEYS.has(key)) ignored.push(key);
    else throw invalidInput(`updateLxcConfig: key ${JSON.stringify(key)} is not known for a Kubernetes node`, { field: key });
  }
  const deleted = typeof pod.delete === 'string' ? pod.delete.split(',').map((s) => s.trim()).filter(Boolean) : [];
  for (const key of deleted) {
    if (!POD_KEYS.has(key) && !LXC_ONLY_KEYS.has(key)) {
      throw invalidInput(`updateLxcConfig: cannot delete ${JSON.stringify(key)} on a Kubernetes node`, { field: 'delete' });
    }
  }
  delete pod.delete;
  return { pod, deleted, ignored };
}

/** True when the delta changes nothing a Deployment carries (e.g. only `tags`). */
function deltaIsEmpty({ pod, deleted }) {
  return Object.keys(pod).length === 0 && !deleted.includes('env') && !deleted.includes('entrypoint');
}

/**
 * The full spec for a reconfigure: Manager sends deltas, the adapter applies whole specs.
 *   identity, image  from the Container record (hostname never changes)
 *   env, entrypoint  delta, else `base` (Manager's effective env for the record)
 *   cpus, memory     delta, else the running Deployment (`current` snapshot)
 */
function reconfigureSpec({ nodeId, container, current, base, delta }) {
  const where = `updateLxcConfig(container ${container.id})`;
  const { pod, deleted } = delta;
  let env = deleted.includes('env') ? {} : base.env;
  if (pod.env !== undefined) env = parseEnv(pod.env);
  let entrypoint = deleted.includes('entrypoint') ? null : base.entrypoint;
  if (pod.entrypoint !== undefined) entrypoint = blankToNull(pod.entrypoint);
  const cpus = pod.cores !== undefined ? Number(pod.cores) : current.cpus;
  const memoryMb = pod.memory !== undefined ? Number(pod.memory) : current.memoryMb;
  const spec = {
    containerId: String(required(container.id, 'container.id', where)),
    nodeId: String(required(nodeId, 'node.id', where)),
    hostname: required(container.hostname, 'container.hostname', where),
    image: required(container.template || current.image, 'container.template', where),
    cpus: required(cpus, 'cores (not in the delta, unknown on the Deployment)', where),
    memoryMb: required(memoryMb, 'memory (not in the delta, unknown on the Deployment)', where),
    env: env || {},
  };
  if (entrypoint) spec.entrypoint = entrypoint;
  return spec;
}

/** Proxmox's running/stopped vocabulary for a snapshot (what getLxcStatus callers compare). */
function lxcState(snapshot) {
  if (snapshot.replicas === 0) return 'stopped';
  return snapshot.status === 'running' ? 'running' : snapshot.status;
}

/**
 * One entry of Manager's clusterResources('lxc') for a snapshot: `vmid` is the provider ID
 * (what Manager stores in Container.containerId, so findInSnapshot matches unchanged),
 * `status` is Proxmox's word, `managerStatus` the adapter's finer answer (running, offline,
 * creating, failed) that container-status.js can show as is. `drift` says whether the
 * workload still is what Manager last applied (from the same list call: no extra cost).
 */
function toClusterResource(snapshot, nodeName) {
  return {
    vmid: snapshot.providerId,
    name: snapshot.name,
    type: 'lxc',
    status: snapshot.status === 'running' ? 'running' : 'stopped',
    node: nodeName,
    managerStatus: snapshot.status,
    message: snapshot.message,
    ipv4Address: snapshot.ipv4Address,
    ephemeralIp: true,
    containerId: snapshot.containerId,
    drift: toDrift(snapshot.drift),
  };
}

/**
 * What Manager shows of a snapshot's drift: `state` ('in-sync', 'drifted' or 'unknown'),
 * `summary` (one line: "image changed to nginx:1.28 by kubectl-edit; env EXTRA added by
 * kubectl-client-side-apply") and `changes` ({what, change, path, name, by, value}). A
 * reconfigure with Manager's spec takes the changes back; its snapshot lists them in
 * `restored`. An adapter older than drift reports none: 'unknown'.
 */
function toDrift(drift) {
  if (!drift) return { state: 'unknown', summary: '', changes: [], restored: [] };
  return {
    state: drift.state,
    summary: drift.summary || '',
    changes: drift.changes || [],
    restored: drift.restored || [],
  };
}

/** The LXC-config-like view Manager's delete route and NetBox read-back use. */
function toLxcConfig(snapshot) {
  return {
    hostname: snapshot.name,
    cores: snapshot.cpus,
    memory: snapshot.memoryMb,
    image: snapshot.image,
    rootfs: null,
    net0: null,
    status: snapshot.status,
    drift: toDrift(snapshot.drift),
  };
}

module.exports = {
  toDrift,
  TASK_PREFIX,
  LXC_ONLY_KEYS,
  task,
  providerIdOfTask,
  parseEnv,
  recordEnv,
  createSpec,
  splitDelta,
  deltaIsEmpty,
  reconfigureSpec,
  lxcState,
  toClusterResource,
  toLxcConfig,
};
