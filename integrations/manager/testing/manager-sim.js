'use strict';
/**
 * A simulator of Manager's routes and jobs as docs/manager-integration.md changes them, for
 * one Manager with several node types: Kubernetes nodes (the real KubernetesApi against the
 * fake API server), Docker and Proxmox nodes (testing/other-nodes.js), and NetBox
 * (testing/netbox-stub.js). Written for these tests, not Manager's code. It keeps Manager's
 * rules that matter here (at ee03a1bc):
 *
 * - the Container row's unique indexes, the provider ID in Container.containerId, job rows
 *   whose `command` string is what the job script parses (`parseArgs`: only `--key=value`);
 * - `Node#api()` builds a client per call and logs a password-login Proxmox node in there;
 *   the change list's `Node#capabilities()` reads a constant by node type, no I/O;
 * - the order in which each route and job calls the node client, NetBox and Cloudflare.
 */

const { providerIdOfTask } = require('../lib/spec');

const { connectionSummary } = require('../kubernetes-api');

class UniqueConstraintError extends Error {}

/** Container rows with Manager's unique indexes ((nodeId, containerId), (siteId, hostname), ...). */
class ContainerTable {
  constructor() {
    this.rows = new Map();
    this.nextId = 1;
    this.systemDefaultEnv = {};
  }

  check(row) {
    for (const fields of [['nodeId', 'containerId'], ['siteId', 'hostname'], ['siteId', 'ipv4Address'], ['siteId', 'macAddress']]) {
      if (fields.some((f) => row[f] === null || row[f] === undefined)) continue; // NULLs never collide
      for (const other of this.rows.values()) {
        if (other.id !== row.id && fields.every((f) => other[f] === row[f])) {
          throw new UniqueConstraintError(`unique (${fields.join(', ')}) violated by ${JSON.stringify(fields.map((f) => row[f]))}`);
        }
      }
    }
  }

  insert(values) {
    const row = new ContainerRow({ id: this.nextId, containerId: null, macAddress: null, ipv4Address: null, services: [], ...values }, this);
    this.check(row);
    this.nextId += 1;
    this.rows.set(row.id, row);
    return row;
  }
}

/** One Container row; like Manager's model it can build its effective env (Settings < NVIDIA < user). */
class ContainerRow {
  constructor(values, table) {
    Object.assign(this, values);
    Object.defineProperty(this, 'table', { value: table });
  }

  update(values) {
    const next = new ContainerRow({ ...this, ...values }, this.table);
    this.table.check(next);
    Object.assign(this, values);
  }

  destroy() {
    this.table.rows.delete(this.id);
  }

  async buildLxcEnvConfig({ deleteMissing = false } = {}) {
    const env = {
      ...this.table.systemDefaultEnv,
      ...(this.nvidiaRequested ? { NVIDIA_VISIBLE_DEVICES: 'all' } : {}),
      ...(this.environmentVars ? JSON.parse(this.environmentVars) : {}),
    };
    const config = {};
    const deleted = [];
    const pairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    if (pairs.length) config.env = pairs.join('\0');
    else if (deleteMissing) deleted.push('env');
    if (this.entrypoint) config.entrypoint = this.entrypoint;
    else if (deleteMissing) deleted.push('entrypoint');
    if (deleted.length) config.delete = deleted.join(',');
    return config;
  }
}

/** An HTTP answer other than 2xx, like Manager's ApiError. */
class RouteError extends Error {
  constructor(status, code, message, cause) {
    super(message);
    this.status = status;
    this.code = code;
    this.cause = cause;
  }
}

/** Manager's utils/cli.js parseArgs, by its rule: only `--key=value` with a non-empty value. */
function parseArgs(argv) {
  const args = {};
  for (const arg of argv) {
    const match = /^--([^=]+)=(.+)$/.exec(arg);
    if (match) args[match[1]] = match[2];
  }
  return args;
}

/** Node types Manager accepts; `kubernetes` is new (#459). */
const NODE_TYPES = ['proxmox', 'docker', 'dummy', 'kubernetes'];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function blank(value) {
  return value === undefined || value === null || value === '';
}

/**
 * routers/api/v1/nodes.js validateNodeInput as changed: the type, and #459's fields for a
 * Kubernetes node (kubeNamespace defaulting to `default`, kubeconfigPath a file path and never
 * a kubeconfig's content, kubeContext one name, waitTimeout whole seconds 1-86400). Other
 * types store none of them. Answers the values to store, or throws a 400.
 */
function validateNodeInput(body) {
  const nodeType = body.nodeType || 'proxmox';
  if (!NODE_TYPES.includes(nodeType)) {
    throw new RouteError(400, 'invalid_node_type', 'Node type must be proxmox, docker, dummy, or kubernetes');
  }
  const values = {
    nodeType, apiUrl: body.apiUrl || null, tokenId: body.tokenId || null, secret: body.secret || null,
    kubeconfigPath: null, kubeContext: null, kubeNamespace: null, waitTimeout: null,
  };
  if (nodeType !== 'kubernetes') return values;
  const { kubeconfigPath, kubeContext, kubeNamespace, waitTimeout } = body;
  if (!blank(kubeconfigPath)) {
    if (typeof kubeconfigPath !== 'string' || !kubeconfigPath.startsWith('/') || kubeconfigPath.length > 1024 || /[\0-\x1f]/.test(kubeconfigPath)) {
      throw new RouteError(400, 'invalid_kubeconfig_path', 'kubeconfigPath must be an absolute file path on the Manager host (at most 1024 characters); paste the kubeconfig into a file, never into this field');
    }
    values.kubeconfigPath = kubeconfigPath;
  }
  if (!blank(kubeContext)) {
    if (typeof kubeContext !== 'string' || kubeContext.length > 253 || /[\s\0-\x1f]/.test(kubeContext)) {
      throw new RouteError(400, 'invalid_kube_context', 'kubeContext must be one context name of the kubeconfig');
    }
    values.kubeContext = kubeContext;
  }
  values.kubeNamespace = blank(kubeNamespace) ? 'default' : kubeNamespace;
  if (typeof values.kubeNamespace !== 'string' || !DNS_LABEL.test(values.kubeNamespace)) {
    throw new RouteError(400, 'invalid_kube_namespace', 'kubeNamespace must be a DNS-1123 label (lower-case letters, digits and -, at most 63)');
  }
  if (!blank(waitTimeout)) {
    const seconds = Number(waitTimeout);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86400) {
      throw new RouteError(400, 'invalid_wait_timeout', 'waitTimeout must be whole seconds from 1 to 86400');
    }
    values.waitTimeout = seconds;
  }
  return values;
}

/**
 * routers/api/v1/nodes.js serialize as changed: #459's fields beside today's. The kubeconfig is
 * a path on the Manager host; its content is never read by Manager, so it cannot be answered.
 */
function serializeNode(n) {
  return {
    id: n.id, name: n.name, nodeType: n.nodeType, siteId: n.siteId, apiUrl: n.apiUrl || null, tokenId: n.tokenId || null,
    hasSecret: !!n.secret, kubeconfigPath: n.kubeconfigPath || null, kubeContext: n.kubeContext || null,
    kubeNamespace: n.kubeNamespace || null, waitTimeout: n.waitTimeout || null,
    lastConnectionTest: n.lastConnectionTest || null,
  };
}

/**
 * The creation job's state for the container JSON (`creationJob`): the page shows a failed
 * job's headline beside the status, and offers "Retry create" when `canRetryCreate`.
 */
function creationJobOf(job) {
  if (!job) return null;
  if (job.status !== 'failure') return { id: job.id, status: job.status, headline: null };
  // The job's own "... failed: <message>" line, else its last line (Manager's JobStatus rows).
  const headline = [...job.output].reverse().find((line) => / failed: /.test(line)) || job.output[job.output.length - 1] || null;
  return { id: job.id, status: job.status, headline };
}

/** The drift Manager shows for a row: its clusterResources entry's, when the node reports one. */
function driftOf(row, snapshot) {
  const found = row.containerId && snapshot.ok ? snapshot.data.find((r) => String(r.vmid) === String(row.containerId)) : null;
  if (!found || !found.drift || found.drift.state === 'unknown') return null;
  return { state: found.drift.state, summary: found.drift.summary, changes: found.drift.changes };
}

/** Manager's defaults when no resource request was approved (bin/create-container.js L246-L247). */
const RESOURCE_DEFAULTS = Object.freeze({ cpus: 4, memory: 4096 });

class ManagerSim {
  /**
   * @param {object} options
   * @param {object[]} options.nodes Manager's Node rows (id, name, nodeType, siteId, ...)
   * @param {object} options.clients per nodeType, the client class (with a static
   *   capabilities()) and a factory `create(row)` for node.api()
   * @param {object} [options.netbox] the NetBox stub (Settings netbox_url / netbox_token)
   */
  constructor({ nodes, clients, netbox = null }) {
    this.nodes = nodes;
    this.clients = clients;
    this.netbox = netbox;
    // Every client method Manager's code calls is logged, per job (job.calls) or else here.
    this.calls = [];
    this.log = this.calls;
    this.dnsCalls = [];
    this.logins = 0;
    this.containers = new ContainerTable();
    this.containers.systemDefaultEnv = { TZ: 'UTC' };
    this.approved = new Map(); // hostname -> { cpus, memory } (ResourceRequest approvals)
    this.jobs = [];
  }

  node(id) {
    return this.nodes.find((n) => n.id === id);
  }

  // -- models/node.js as changed -------------------------------------------------------------

  /** Node#capabilities(): a constant of the node type's client; no client, login or I/O. */
  nodeCapabilities(node) {
    return this.clients[node.nodeType].Class.capabilities();
  }

  /** Node#api(): a new client per call; a password-login Proxmox node logs in here. */
  async nodeApi(node) {
    const client = this.clients[node.nodeType].create(node);
    if (node.nodeType === 'proxmox' && !node.tokenId.includes('!')) {
      this.logins += 1;
      try {
        await client.authenticate(node.tokenId, node.secret);
      } catch (error) {
        throw new Error(`Node ${node.name}: Authentication failed - ${error.message}`);
      }
    }
    return new Proxy(client, {
      get: (target, name) => {
        const value = target[name];
        if (typeof value !== 'function') return value;
        return (...args) => {
          this.log.push(name);
          return value.apply(target, args);
        };
      },
    });
  }

  // -- models/node.js and routers/api/v1/nodes.js as changed (#459's node) --------------------

  /**
   * Node#hasApiAccess(): what Node#api() needs. A Kubernetes node needs nothing stored: with
   * no kubeconfigPath kubectl reads the job runner's own kubeconfig, and kubeNamespace
   * defaults to `default`.
   */
  hasApiAccess(node) {
    if (node.nodeType === 'kubernetes' || node.nodeType === 'dummy') return true;
    if (node.nodeType === 'docker') return !!node.apiUrl;
    return !!(node.apiUrl && node.tokenId && node.secret);
  }

  /** Node.provisionableWhere() as a predicate: the rows POST /containers may place a container on. */
  provisionable(node) {
    return this.hasApiAccess(node);
  }

  /** POST /sites/:siteId/nodes: validated, stored, answered serialized (201). */
  postNode(siteId, body = {}) {
    const values = validateNodeInput(body);
    const node = { id: this.nodes.reduce((max, n) => Math.max(max, n.id), 0) + 1, name: body.name, siteId, ...values };
    this.nodes.push(node);
    return { status: 201, body: serializeNode(node) };
  }

  /** PUT /sites/:siteId/nodes/:id: the same validation against the stored type (200). */
  putNode(id, body = {}) {
    const node = this.node(id);
    if (!node) throw new RouteError(404, 'not_found', 'Node not found');
    const values = validateNodeInput({ ...body, nodeType: body.nodeType || node.nodeType });
    if (!values.secret) delete values.secret; // blank keeps the stored secret, as today
    Object.assign(node, { name: body.name || node.name }, values);
    return { status: 200, body: serializeNode(node) };
  }

  /** GET /sites/:siteId/nodes/:id */
  getNode(id) {
    const node = this.node(id);
    if (!node) throw new RouteError(404, 'not_found', 'Node not found');
    return { status: 200, body: serializeNode(node) };
  }

  /**
   * POST /sites/:siteId/nodes/test-connection: the node form's "Test connection" button, for
   * the values in the form (saved or not). Validated like a create; the client's
   * connectionTest() runs the adapter's `check` (and `nodes` when it passed) and always
   * answers 200 with `{ok, check, nodes, error}`; only Kubernetes nodes have one.
   */
  async testNodeConnection(siteId, body = {}) {
    const values = validateNodeInput(body);
    if (values.nodeType !== 'kubernetes') {
      throw new RouteError(400, 'connection_test_unsupported', 'Only Kubernetes nodes have a connection test');
    }
    const node = { id: body.id || 0, name: body.name || 'new-node', siteId, ...values };
    const client = this.clients[node.nodeType].create(node);
    const tested = await client.connectionTest();
    // A saved node's verdict is kept for the nodes list (the values tested are the form's).
    const saved = body.id ? this.node(Number(body.id)) : null;
    if (saved) saved.lastConnectionTest = connectionSummary(tested);
    return { status: 200, body: tested };
  }

  /**
   * GET /sites/:siteId/nodes as changed: a Kubernetes node shows its context, namespace and
   * last connection test (verdict, summary, hints) instead of IPv4 / API / credentials.
   */
  listNodes(siteId = 1) {
    return { status: 200, body: this.nodes.filter((n) => n.siteId === siteId).map(serializeNode) };
  }

  // -- routes ---------------------------------------------------------------------------------

  /**
   * POST /containers: the least-loaded provisionable node of the site, the row (containerId
   * null), its services and a pending create job. HTTP/transport services are refused on a
   * node without a stable IP (the site proxy could not reach them).
   */
  async postContainer({ hostname, template, siteId = 1, services = [], environmentVars = null, entrypoint = null, username = 'alice' }) {
    const count = (node) => [...this.containers.rows.values()].filter((r) => r.nodeId === node.id).length;
    const [node] = this.nodes.filter((n) => n.siteId === siteId && this.provisionable(n)).sort((a, b) => count(a) - count(b) || a.id - b.id);
    if (!node) throw new RouteError(409, 'no_node', 'No provisionable nodes available in this site');
    const caps = this.nodeCapabilities(node);
    if (!caps.stableIpAddress && services.some((s) => s.type !== 'srv')) {
      throw new RouteError(400, 'services_unsupported_on_node', `node ${node.name} has no stable container IP: HTTP and transport services cannot be routed`);
    }
    const row = this.containers.insert({
      hostname, template, username, nodeId: node.id, siteId,
      environmentVars: environmentVars ? JSON.stringify(environmentVars) : null,
      entrypoint, nvidiaRequested: false, services,
    });
    const job = this.enqueue(`node bin/create-container.js --container-id=${row.id}`);
    row.update({ creationJobId: job.id });
    return { status: 201, row, job };
  }

  /** PUT /containers/:id: env/entrypoint change or `restart`, then a reconfigure job. */
  async putContainer(id, { environmentVars, entrypoint, restart = false, services = [] }) {
    const row = this.containers.rows.get(id);
    const caps = this.nodeCapabilities(this.node(row.nodeId));
    if (!caps.stableIpAddress && services.some((s) => s.type !== 'srv')) {
      throw new RouteError(400, 'services_unsupported_on_node', 'HTTP and transport services cannot be routed');
    }
    const values = {};
    if (environmentVars !== undefined) values.environmentVars = environmentVars ? JSON.stringify(environmentVars) : null;
    if (entrypoint !== undefined) values.entrypoint = entrypoint || null;
    row.update(values);
    // The flag only for node types whose job reads it: a Proxmox job command stays as today.
    const flag = restart && caps.reconfigureRollsOut ? ' --restart=true' : '';
    return this.enqueue(`node bin/reconfigure-container.js --container-id=${id}${flag}`);
  }

  /**
   * POST /containers/:id/retry-create (new): queue the row's create job again when its last
   * one failed, on a node type whose create converges on what an earlier run left. The row's
   * creationJobId follows the new job, so status reads `creating` until it ends (or the
   * cluster's answer while a Deployment is there).
   */
  async retryCreate(id) {
    const row = this.containers.rows.get(id);
    const caps = this.nodeCapabilities(this.node(row.nodeId));
    if (!caps.createConverges) {
      throw new RouteError(409, 'retry_unsupported', 'this node type cannot re-run a create; delete the container and create it again');
    }
    const last = this.jobs.find((j) => j.id === row.creationJobId);
    if (!last || last.status !== 'failure') {
      throw new RouteError(409, 'create_not_failed', `the container's create job is ${last ? last.status : 'missing'}; only a failed one is retried`);
    }
    const job = this.enqueue(`node bin/create-container.js --container-id=${row.id}`);
    row.update({ creationJobId: job.id });
    return { status: 201, job };
  }

  /** An approved resource request: a reconfigure job carrying the one changed value. */
  approveResource(hostname, resourceType, value) {
    this.approved.set(hostname, { ...this.approved.get(hostname), [resourceType]: value });
    const row = [...this.containers.rows.values()].find((r) => r.hostname === hostname && r.containerId);
    return row ? this.enqueue(`node bin/reconfigure-container.js --container-id=${row.id} --${resourceType}=${value}`) : null;
  }

  /**
   * DELETE /containers/:id as changed. A node-side failure keeps the row only when the client
   * types its errors (`retryable` is defined) and says it is not "already gone"; other
   * clients keep today's outcome (the failure is logged and the row goes). Cloudflare and
   * NetBox clean-ups run after the node-side delete and only for node types that register
   * there. A row with no provider ID on a node type whose ID follows from the row is looked
   * for by that ID (a killed create job may have left it); the delete's guard refuses
   * another container's Deployment of that name, which then stays.
   */
  async deleteContainer(id, { force = false, admin = false } = {}) {
    const row = this.containers.rows.get(id);
    const node = this.node(row.nodeId);
    const caps = this.nodeCapabilities(node);
    this.nodeLog = [];
    if (!row.containerId && caps.derivedProviderId) {
      try {
        const client = await this.nodeApi(node);
        await client.deleteContainer(node.name, client.providerIdFor(row.hostname), true, true, { containerId: row.id });
      } catch (err) {
        if (err.type === 'Conflict' && !err.retryable) {
          this.nodeLog.push(`Node-side deletion skipped: ${err.message}`);
        } else if (force && admin) {
          this.nodeLog.push(`Node-side deletion skipped or failed: ${err.message}`);
        } else {
          throw new RouteError(err.retryable ? 503 : 502, 'node_delete_failed', err.message, err);
        }
      }
    }
    if (row.containerId) {
      try {
        const client = await this.nodeApi(node);
        const config = await client.lxcConfig(node.name, row.containerId);
        if (config.hostname && config.hostname !== row.hostname) {
          throw new RouteError(409, 'hostname_mismatch', `hostname mismatch (${row.hostname} vs ${config.hostname})`);
        }
        await client.deleteContainer(node.name, row.containerId, true, true, { containerId: row.id });
      } catch (err) {
        if (err instanceof RouteError) throw err;
        if (err.retryable === undefined || (force && admin)) {
          this.nodeLog.push(`Node-side deletion skipped or failed: ${err.message}`);
        } else {
          throw new RouteError(err.retryable ? 503 : 502, 'node_delete_failed', err.message, err);
        }
      }
    }
    const http = row.services.filter((s) => s.type === 'http' && s.externalDomain);
    if (caps.registerDns && http.length) this.dnsCalls.push(['delete', http.map((s) => s.externalHostname)]);
    row.destroy();
    if (caps.registerNetbox && this.netbox) await this.netboxDeleteVm(row.hostname);
    return { status: 200, deleted: true };
  }

  /** utils/netbox.js deleteVirtualMachine's lookup and delete, against the stub. */
  async netboxDeleteVm(hostname) {
    const headers = { Authorization: 'Token netbox-token', Accept: 'application/json' };
    const base = `${this.netbox.url}/api/virtualization/virtual-machines/`;
    const found = await (await fetch(`${base}?name=${encodeURIComponent(hostname)}&limit=1`, { headers })).json();
    if (!found.results.length) return;
    await fetch(`${base}${found.results[0].id}/`, { method: 'DELETE', headers });
  }

  // -- jobs -----------------------------------------------------------------------------------

  enqueue(command) {
    const job = { id: this.jobs.length + 1, command, status: 'pending', error: null, calls: [], output: [] };
    this.jobs.push(job);
    return job;
  }

  /** The job runner: run one job's script to success or failure (its exit code). */
  async run(job) {
    job.status = 'running';
    this.log = job.calls;
    const [, script, ...argv] = job.command.split(' ');
    const args = parseArgs(argv);
    try {
      if (script === 'bin/create-container.js') await this.createJob(args, job);
      else await this.reconfigureJob(args, job);
      job.status = 'success';
    } catch (err) {
      job.status = 'failure';
      job.error = err;
      job.output.push(`${script === 'bin/create-container.js' ? 'Container creation' : 'Container reconfiguration'} failed: ${err.message}`);
      if (err.type) job.output.push(`Error type: ${err.type}, retryable: ${err.retryable}`);
    } finally {
      this.log = this.calls;
    }
    return job;
  }

  /** bin/create-container.js main() on a Kubernetes node, its LXC-only steps gated. */
  async createJob(args, job) {
    const row = this.containers.rows.get(Number(args['container-id']));
    const node = this.node(row.nodeId);
    const caps = this.nodeCapabilities(node);
    if (row.containerId && !caps.createConverges) throw new Error('already has a provider ID; refusing to re-create');
    if (caps.templates) throw new Error('the simulator runs create jobs on Kubernetes nodes only');
    const resources = this.approved.get(row.hostname) || {};
    const client = await this.nodeApi(node);
    const envConfig = await row.buildLxcEnvConfig();
    let created;
    try {
      created = await client.createLxc(node.name, {
        // vmid: what an earlier run stored (null on a first run): a re-run never cleans it up.
        vmid: row.containerId, hostname: row.hostname, image: row.template,
        cores: resources.cpus || RESOURCE_DEFAULTS.cpus, memory: resources.memory || RESOURCE_DEFAULTS.memory,
        swap: 0, tags: row.username, onboot: 1, env: envConfig.env, entrypoint: envConfig.entrypoint, containerId: row.id,
      });
    } catch (err) {
      // The provider ID when something may exist on the cluster; a failure never erases one.
      if (err.orphanProviderId) row.update({ containerId: err.orphanProviderId });
      // A node whose Role lacks a permission fails every create until it is fixed: run the
      // connection test once so the nodes list (and this job's log) says what to apply.
      if (err.type === 'Forbidden' && typeof client.connectionTest === 'function') {
        const summary = connectionSummary(await client.connectionTest());
        node.lastConnectionTest = summary;
        for (const hint of summary.hints) job.output.push(hint);
      }
      throw err;
    }
    const vmid = caps.vmid ? null : providerIdOfTask(created);
    await client.waitForTask(node.name, created);
    row.update({ containerId: String(vmid) }); // stored before anything else can fail
    job.output.push(`Container provider ID ${vmid} stored in database`);
    if (!caps.createStarts) await client.waitForTask(node.name, await client.startLxc(node.name, vmid, { containerId: row.id }));
    const macAddress = caps.stableMacAddress ? await client.getLxcMacAddress(node.name, vmid) : null;
    if (caps.stableMacAddress && !macAddress) throw new Error('no MAC address');
    if (caps.stableIpAddress) {
      const ipv4Address = await client.getLxcIpAddress(node.name, vmid);
      if (!ipv4Address) throw new Error('no IP address');
      row.update({ macAddress, ipv4Address });
    } else {
      job.output.push(`Node type ${node.nodeType}: no stable IP or MAC address to store`);
    }
  }

  /**
   * bin/reconfigure-container.js main(). A node whose reconfigure rolls out gets one delta and
   * no status read; on `--restart=true` it is stopped first, the delta applied with no Pod to
   * roll, and started (an explicit restart restarts even when the stored spec's rollout is
   * stuck). Every other node type runs today's code, unchanged.
   */
  async reconfigureJob(args, job) {
    const row = this.containers.rows.get(Number(args['container-id']));
    if (!row.containerId) throw new Error('no provider ID; cannot reconfigure');
    const node = this.node(row.nodeId);
    const caps = this.nodeCapabilities(node);
    const client = await this.nodeApi(node);
    const lxcConfig = await row.buildLxcEnvConfig({ deleteMissing: true });
    const resourceConfig = {};
    if (args.memory) resourceConfig.memory = parseInt(args.memory, 10);
    if (args.cpus) resourceConfig.cores = parseInt(args.cpus, 10);
    if (args.swap) resourceConfig.swap = parseInt(args.swap, 10);
    if (args.rootfs) resourceConfig.rootfs = `local-lvm:${parseInt(args.rootfs, 10)}`;
    if (caps.reconfigureRollsOut) {
      // swap and rootfs mean nothing for a Deployment: the rolling branch sends sizes only.
      const { swap, rootfs, ...sizes } = resourceConfig;
      await this.rollingReconfigure(client, node, row, { ...lxcConfig, ...sizes }, args.restart === 'true', job);
    } else {
      await this.todaysReconfigure(client, node, row, lxcConfig, resourceConfig, args);
    }
    job.output.push('Container reconfiguration completed successfully!');
  }

  async rollingReconfigure(client, node, row, delta, restart, job) {
    const guard = { containerId: row.id };
    if (!restart) {
      await client.updateLxcConfig(node.name, row.containerId, delta, { container: row });
      return;
    }
    // Stopping a stopped Deployment is a no-op: no status read is needed to decide.
    await client.waitForTask(node.name, await client.stopLxc(node.name, row.containerId, guard));
    let applyError = null;
    try {
      await client.updateLxcConfig(node.name, row.containerId, delta, { container: row });
    } catch (err) {
      // Started again all the same: a restart must not leave the container stopped.
      applyError = err;
      job.output.push(`Applying the configuration failed; starting the container as it was: ${err.message}`);
    }
    await client.waitForTask(node.name, await client.startLxc(node.name, row.containerId, guard));
    if (applyError) throw applyError;
  }

  /** Manager's reconfigure job at ee03a1bc, as it stays for Proxmox, Docker and Dummy nodes. */
  async todaysReconfigure(client, node, row, lxcConfig, resourceConfig, args) {
    if (Object.keys(lxcConfig).length) await client.updateLxcConfig(node.name, row.containerId, lxcConfig);
    if (Object.keys(resourceConfig).length) await client.updateLxcConfig(node.name, row.containerId, resourceConfig);
    const requiresRestart = !!args.rootfs || Object.keys(lxcConfig).some((k) => k !== 'delete');
    const { status } = await client.getLxcStatus(node.name, row.containerId);
    if (requiresRestart) {
      if (status === 'running') await client.waitForTask(node.name, await client.stopLxc(node.name, row.containerId));
      await client.waitForTask(node.name, await client.startLxc(node.name, row.containerId));
      const macAddress = await client.getLxcMacAddress(node.name, row.containerId);
      const ipv4Address = await client.getLxcIpAddress(node.name, row.containerId);
      if (!macAddress || !ipv4Address) throw new Error('Could not get the MAC or IP address');
      row.update({ macAddress, ipv4Address });
    }
  }

  // -- status ---------------------------------------------------------------------------------

  /** utils/container-status.js computeContainerStatuses: container ID -> status string, as today. */
  async statuses() {
    const states = await this.containerStates();
    return new Map([...states].map(([id, state]) => [id, state.status]));
  }

  /**
   * computeContainerStates (new beside computeContainerStatuses): container ID -> `{status,
   * drift}` from the same one clusterResources('lxc') per node. `drift` is `{state, summary,
   * changes}` when the node reports drift (Kubernetes), else null (Proxmox, Docker, Dummy, or
   * a node that could not be asked).
   */
  async containerStates() {
    const result = new Map();
    for (const node of this.nodes) {
      const rows = [...this.containers.rows.values()].filter((r) => r.nodeId === node.id);
      if (!rows.length) continue;
      let snapshot;
      try {
        snapshot = { ok: true, data: await (await this.nodeApi(node)).clusterResources('lxc') };
      } catch (err) {
        snapshot = { ok: false, data: null, error: err };
      }
      for (const row of rows) result.set(row.id, { status: this.decide(row, snapshot), drift: driftOf(row, snapshot) });
    }
    return result;
  }

  /**
   * GET /containers as changed: each container's JSON gains `drift` beside `status`, so the
   * list can badge "Changed outside Manager" with the summary as its tooltip.
   */
  async listContainers() {
    const states = await this.containerStates();
    return [...this.containers.rows.values()].map((row) => {
      const node = this.node(row.nodeId);
      const job = creationJobOf(this.jobs.find((j) => j.id === row.creationJobId));
      return {
        id: row.id, hostname: row.hostname, nodeId: row.nodeId, containerId: row.containerId,
        status: states.get(row.id).status, drift: states.get(row.id).drift,
        nodeType: node.nodeType, creationJob: job,
        canRetryCreate: this.nodeCapabilities(node).createConverges && !!job && job.status === 'failure',
      };
    });
  }

  /** The clusterResources entry for a row, when its node answered and has it. */
  async resourceOf(id) {
    const row = this.containers.rows.get(id);
    const entries = await (await this.nodeApi(this.node(row.nodeId))).clusterResources('lxc');
    return entries.find((r) => String(r.vmid) === String(row.containerId)) || null;
  }

  decide(row, snapshot) {
    const job = this.jobs.find((j) => j.id === row.creationJobId);
    const creating = !!job && ['pending', 'running'].includes(job.status);
    const failed = !!job && job.status === 'failure';
    const found = row.containerId && snapshot.ok
      ? snapshot.data.find((r) => String(r.vmid) === String(row.containerId))
      : null;
    if (found) return found.managerStatus || (found.status === 'running' ? 'running' : 'offline');
    if (creating) return 'creating';
    if (row.containerId && !snapshot.ok) return 'unknown';
    return failed ? 'failed' : 'missing';
  }
}

module.exports = {
  ManagerSim, ContainerTable, RouteError, UniqueConstraintError, parseArgs, RESOURCE_DEFAULTS, validateNodeInput, serializeNode,
  creationJobOf,
};
