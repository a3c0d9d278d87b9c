'use strict';
// Shared steps of the job-sequence tests: one fake cluster, and one simulated Manager with a
// Kubernetes node on it (site 1) and, in site 2, a Docker node, a Proxmox node with an API
// token and a password-login Proxmox node whose API is down; NetBox on a local stub. Plus
// the checks that nothing is left behind on the cluster.

const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const net = require('node:net');

const KubernetesApi = require('../kubernetes-api');
const { FakeCluster } = require('./cluster');
const { ManagerSim } = require('./manager-sim');
const { NetboxStub } = require('./netbox-stub');
const { DockerStub, ProxmoxStub } = require('./other-nodes');

/** A loopback port nothing listens on: a node whose API is down. */
function closedPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

class Scenario {
  /**
   * @param {string} namespace the Kubernetes node's namespace
   * @param {object} [options]
   * @param {object} [options.size] the fake cluster's node size ({cpu, memory})
   * @param {object} [options.node] overrides for the Kubernetes Node row (e.g. waitTimeout)
   */
  constructor(namespace, { size = {}, node = {} } = {}) {
    this.cluster = new FakeCluster(namespace, size);
    this.namespace = namespace;
    this.nodeOverrides = node;
    this.netbox = new NetboxStub();
    this.docker = new Map(); // the Docker node's engine: container ID -> { hostname }
    this.pve = new Map(); // the Proxmox node's guests: VMID -> { hostname }
  }

  async start() {
    await Promise.all([this.cluster.start(), this.netbox.start()]);
    const k8s = this.cluster.node(this.nodeOverrides);
    const nodes = [
      k8s,
      { id: 21, name: 'docker-1', nodeType: 'docker', siteId: 2, apiUrl: 'http://127.0.0.1:2375' },
      { id: 22, name: 'pve-1', nodeType: 'proxmox', siteId: 2, apiUrl: 'https://127.0.0.1:8006', tokenId: 'root@pam!manager', secret: 's' },
      { id: 23, name: 'pve-2', nodeType: 'proxmox', siteId: 3, apiUrl: `http://127.0.0.1:${await closedPort()}`, tokenId: 'root@pam', secret: 'password' },
    ];
    this.manager = new ManagerSim({
      nodes,
      netbox: this.netbox,
      clients: {
        // node.api() for a kubernetes node: a new client per call, as in Manager's jobs and routes.
        kubernetes: { Class: KubernetesApi, create: (row) => new KubernetesApi(row, this.cluster.clientOptions()) },
        docker: { Class: DockerStub, create: (row) => new DockerStub(row, this.docker) },
        proxmox: { Class: ProxmoxStub, create: (row) => new ProxmoxStub(row, this.pve) },
      },
    });
    this.k8s = k8s;
    return this;
  }

  stop() {
    return Promise.all([this.cluster.stop(), this.netbox.stop()]);
  }

  /** POST /containers, then the job runner runs its create job. */
  async createAndRun(values, { expectCreating = false } = {}) {
    const { row, job } = await this.manager.postContainer(values);
    if (expectCreating) assert.equal((await this.manager.statuses()).get(row.id), 'creating');
    await this.manager.run(job);
    return { row, job };
  }

  /** The Kubernetes rows' provider IDs. */
  k8sProviderIds() {
    return [...this.manager.containers.rows.values()].filter((r) => r.nodeId === this.k8s.id)
      .map((r) => r.containerId).filter(Boolean).sort();
  }

  /** kubectl get deployments -A, the server's store and the adapter's list all equal Manager's rows. */
  async assertNoOrphans() {
    const rows = this.k8sProviderIds();
    assert.deepEqual(await this.cluster.kubectlDeployments(), rows);
    assert.deepEqual(await this.cluster.storedDeployments(), rows);
    const listed = (await (await this.manager.nodeApi(this.k8s)).clusterResources('lxc')).map((r) => r.vmid).sort();
    assert.deepEqual(listed, rows);
  }

  /** The Deployment's container as kubectl shows it: env, command, resources. */
  podTemplate(providerId) {
    const [namespace, name] = providerId.split('/');
    const { cluster } = this;
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', cluster.kubeconfig, '--context', cluster.context, '--cache-dir', cluster.freshCache(),
          '-n', namespace, 'get', 'deployment', name, '-o', 'json'],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          if (error) {
            reject(new Error(stderr));
            return;
          }
          const [c] = JSON.parse(stdout).spec.template.spec.containers;
          resolve({ env: Object.fromEntries((c.env || []).map((e) => [e.name, e.value])), command: c.command || null, resources: c.resources });
        },
      );
    });
  }
}

module.exports = { Scenario, closedPort };
