'use strict';
// Shared steps of the job-sequence tests: one fake cluster, one simulated Manager on one
// Kubernetes node, and the checks that nothing is left behind.

const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');

const KubernetesApi = require('../kubernetes-api');
const { FakeCluster } = require('./cluster');
const { ManagerSim } = require('./manager-sim');

class Scenario {
  constructor(namespace) {
    this.cluster = new FakeCluster(namespace);
    this.namespace = namespace;
  }

  async start() {
    await this.cluster.start();
    // node.api() for a kubernetes node: a new client per call, as in Manager's jobs and routes.
    this.manager = new ManagerSim(this.cluster.node(), (row) => new KubernetesApi(row, this.cluster.clientOptions()));
    return this;
  }

  stop() {
    return this.cluster.stop();
  }

  /** POST /containers, then the job runner runs its create job. */
  async createAndRun(values, { expectCreating = false } = {}) {
    const { row, job } = this.manager.postContainer(values);
    if (expectCreating) assert.equal((await this.manager.statuses()).get(row.id), 'creating');
    await this.manager.run(job);
    return { row, job };
  }

  /** kubectl get deployments -A, the server's store and the adapter's list all equal Manager's rows. */
  async assertNoOrphans() {
    const rows = [...this.manager.containers.rows.values()].map((r) => r.containerId).filter(Boolean).sort();
    assert.deepEqual(await this.cluster.kubectlDeployments(), rows);
    assert.deepEqual(await this.cluster.storedDeployments(), rows);
    const listed = (await this.manager.api(this.manager.node).clusterResources('lxc')).map((r) => r.vmid).sort();
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

module.exports = { Scenario };
