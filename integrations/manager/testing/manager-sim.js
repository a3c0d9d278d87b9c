'use strict';
/**
 * A simulator of Manager's job sequences for a Kubernetes node, as docs/manager-integration.md
 * proposes to change them: the POST/PUT/DELETE container routes, the create and reconfigure
 * job scripts, the resource-request job, and the status resolver. Written for these tests
 * (not Manager's code); it keeps Manager's data rules that matter here: the Container row's
 * unique indexes, the provider ID in Container.containerId, job statuses, and the order in
 * which each job calls the node client.
 */

const { providerIdOfTask } = require('../lib/spec');

class UniqueConstraintError extends Error {}

/** Container rows with Manager's unique indexes ((nodeId, containerId), (siteId, hostname), ...). */
class ContainerTable {
  constructor() {
    this.rows = new Map();
    this.nextId = 1;
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
    const row = new ContainerRow({ id: this.nextId, containerId: null, macAddress: null, ipv4Address: null, ...values }, this);
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

class RouteError extends Error {
  constructor(status, code, message, cause) {
    super(message);
    this.status = status;
    this.code = code;
    this.cause = cause;
  }
}

class ManagerSim {
  /**
   * @param {object} node Manager's Node row
   * @param {function(object): object} api node.api(): the client for a node row
   */
  constructor(node, api) {
    this.node = node;
    // Every client method Manager's code calls is logged, per job (job.calls) or else here.
    this.calls = [];
    this.log = this.calls;
    this.api = (row) => {
      const client = api(row);
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
    };
    this.site = { id: 1, internalDomain: 'example.internal' };
    this.containers = new ContainerTable();
    this.containers.systemDefaultEnv = { TZ: 'UTC' };
    this.approved = new Map(); // hostname -> { cpus, memory } (ResourceRequest approvals)
    this.jobs = [];
  }

  // -- routes -------------------------------------------------------------------------------

  /** POST /containers: the row (containerId null) and a pending create job. */
  postContainer({ hostname, template, environmentVars = null, entrypoint = null, username = 'alice' }) {
    const row = this.containers.insert({
      hostname, template, username, nodeId: this.node.id, siteId: this.site.id,
      environmentVars: environmentVars ? JSON.stringify(environmentVars) : null,
      entrypoint, nvidiaRequested: false,
    });
    const job = this.enqueue('create', row.id);
    row.update({ creationJobId: job.id });
    return { row, job };
  }

  /** PUT /containers/:id: env/entrypoint change or `restart`, then a reconfigure job. */
  putContainer(id, { environmentVars, entrypoint, restart = false }) {
    const row = this.containers.rows.get(id);
    const values = {};
    if (environmentVars !== undefined) values.environmentVars = environmentVars ? JSON.stringify(environmentVars) : null;
    if (entrypoint !== undefined) values.entrypoint = entrypoint || null;
    row.update(values);
    return this.enqueue('reconfigure', id, restart ? { restart: true } : {});
  }

  /** An approved resource request: a reconfigure job carrying the one changed value. */
  approveResource(hostname, resourceType, value) {
    this.approved.set(hostname, { ...this.approved.get(hostname), [resourceType]: value });
    const row = [...this.containers.rows.values()].find((r) => r.hostname === hostname && r.containerId);
    return row ? this.enqueue('reconfigure', row.id, { [resourceType]: value }) : null;
  }

  /**
   * DELETE /containers/:id. The node-side delete must succeed (or find nothing) before the
   * row goes; otherwise the route fails with the client's typed error and the row stays.
   */
  async deleteContainer(id) {
    const row = this.containers.rows.get(id);
    if (row.containerId) {
      const client = this.api(this.node);
      try {
        const config = await client.lxcConfig(this.node.name, row.containerId);
        if (config.hostname && config.hostname !== row.hostname) {
          throw new RouteError(409, 'hostname_mismatch', `hostname mismatch (${row.hostname} vs ${config.hostname})`);
        }
        await client.deleteContainer(this.node.name, row.containerId, true, true, { containerId: row.id });
      } catch (err) {
        if (err instanceof RouteError) throw err;
        throw new RouteError(err.retryable ? 503 : 502, 'node_delete_failed', err.message, err);
      }
    }
    row.destroy();
    return { deleted: true };
  }

  // -- jobs ---------------------------------------------------------------------------------

  enqueue(kind, containerId, args = {}) {
    const job = { id: this.jobs.length + 1, kind, containerId, args, status: 'pending', error: null, calls: [] };
    this.jobs.push(job);
    return job;
  }

  /** The job runner: run one job to success or failure (like a job script's exit code). */
  async run(job) {
    job.status = 'running';
    this.log = job.calls;
    try {
      if (job.kind === 'create') await this.createJob(job.containerId);
      else await this.reconfigureJob(job.containerId, job.args);
      job.status = 'success';
    } catch (err) {
      job.status = 'failure';
      job.error = err;
    } finally {
      this.log = this.calls;
    }
    return job;
  }

  /** bin/create-container.js main(), with its LXC-only steps gated by capabilities. */
  async createJob(id) {
    const row = this.containers.rows.get(id);
    if (row.containerId) throw new Error('already has a provider ID; refusing to re-create');
    const client = this.api(this.node);
    const caps = await client.capabilities();
    const resources = this.approved.get(row.hostname) || {};
    let vmid = caps.vmid ? await client.nextId() : null;
    if (caps.storage || caps.templates) throw new Error('simulator covers Kubernetes nodes only');
    const envConfig = await row.buildLxcEnvConfig();
    let created;
    try {
      created = await client.createLxc(this.node.name, {
        vmid, hostname: row.hostname, image: row.template, cores: resources.cpus || 1,
        memory: resources.memory || 128, swap: 0, tags: row.username, onboot: 1,
        env: envConfig.env, entrypoint: envConfig.entrypoint, containerId: row.id,
      });
    } catch (err) {
      if (err.orphanProviderId) row.update({ containerId: err.orphanProviderId });
      throw err;
    }
    if (!caps.vmid) vmid = providerIdOfTask(created);
    await client.waitForTask(this.node.name, created);
    row.update({ containerId: String(vmid) }); // stored before anything else can fail
    const started = await client.startLxc(this.node.name, vmid, { containerId: row.id });
    await client.waitForTask(this.node.name, started);
    const macAddress = await client.getLxcMacAddress(this.node.name, vmid);
    if (caps.stableMacAddress && !macAddress) throw new Error('no MAC address');
    const ipv4Address = await client.getLxcIpAddress(this.node.name, vmid);
    if (caps.stableIpAddress) {
      if (!ipv4Address) throw new Error('no IP address');
      row.update({ macAddress, ipv4Address });
    }
    this.lastPodIp = ipv4Address;
  }

  /** bin/reconfigure-container.js main(): one delta, no stop/start after a rollout. */
  async reconfigureJob(id, args) {
    const row = this.containers.rows.get(id);
    if (!row.containerId) throw new Error('no provider ID; cannot reconfigure');
    const client = this.api(this.node);
    const caps = await client.capabilities();
    const lxcConfig = await row.buildLxcEnvConfig({ deleteMissing: true });
    const resourceConfig = {};
    if (args.memory) resourceConfig.memory = args.memory;
    if (args.cpus) resourceConfig.cores = args.cpus;
    await client.updateLxcConfig(this.node.name, row.containerId, { ...lxcConfig, ...resourceConfig }, { container: row });
    const hasEnvChanges = Object.keys(lxcConfig).some((k) => k !== 'delete');
    if (args.restart || (hasEnvChanges && !caps.reconfigureRollsOut)) {
      const { status } = await client.getLxcStatus(this.node.name, row.containerId);
      if (status === 'running') {
        await client.waitForTask(this.node.name, await client.stopLxc(this.node.name, row.containerId, { containerId: row.id }));
      }
      await client.waitForTask(this.node.name, await client.startLxc(this.node.name, row.containerId, { containerId: row.id }));
    }
  }

  // -- status -------------------------------------------------------------------------------

  /** utils/container-status.js for every row: one clusterResources('lxc') for the node. */
  async statuses() {
    let snapshot = { ok: false, data: null };
    try {
      snapshot = { ok: true, data: await this.api(this.node).clusterResources('lxc') };
    } catch (err) {
      snapshot = { ok: false, data: null, error: err };
    }
    const result = new Map();
    for (const row of this.containers.rows.values()) result.set(row.id, this.decide(row, snapshot));
    return result;
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

module.exports = { ManagerSim, ContainerTable, RouteError, UniqueConstraintError };
