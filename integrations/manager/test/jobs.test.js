'use strict';
// Manager's job sequences for a Kubernetes node (testing/manager-sim.js: the routes, the create
// and reconfigure jobs and the status resolver, changed as docs/manager-integration.md says)
// driving KubernetesApi against the fake API server. After every scenario, nothing may be
// left on the cluster that Manager has no row for.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');

const KubernetesApi = require('../kubernetes-api');
const { errors } = KubernetesApi;
const { FakeCluster } = require('../testing/cluster');
const { ManagerSim, RouteError } = require('../testing/manager-sim');

const NS = 'jobsns';
const STEP = { timeout: 120_000 };
const cluster = new FakeCluster(NS);
let manager;

before(async () => {
  await cluster.start();
  const node = cluster.node();
  // node.api() for a kubernetes node: one client per call, like Manager's jobs and routes.
  manager = new ManagerSim(node, (row) => new KubernetesApi(row, cluster.clientOptions()));
});
after(async () => { await cluster.stop(); });

/** What a cluster admin sees (kubectl get deployments -A) equals what Manager's rows point at. */
async function assertNoOrphans() {
  const rows = [...manager.containers.rows.values()].map((r) => r.containerId).filter(Boolean).sort();
  assert.deepEqual(await cluster.kubectlDeployments(), rows);
  assert.deepEqual(await cluster.storedDeployments(), rows);
  const listed = (await manager.api(manager.node).clusterResources('lxc')).map((r) => r.vmid).sort();
  assert.deepEqual(listed, rows);
}

function podTemplate(providerId) {
  const [namespace, name] = providerId.split('/');
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['--kubeconfig', cluster.kubeconfig, '--context', cluster.context, '--cache-dir', cluster.freshCache(),
      '-n', namespace, 'get', 'deployment', name, '-o', 'json'], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(stderr));
      else {
        const [c] = JSON.parse(stdout).spec.template.spec.containers;
        resolve({ env: Object.fromEntries((c.env || []).map((e) => [e.name, e.value])), command: c.command || null, resources: c.resources });
      }
    });
  });
}

async function createAndRun(values, { expectCreating = false } = {}) {
  const { row, job } = manager.postContainer(values);
  if (expectCreating) assert.equal((await manager.statuses()).get(row.id), 'creating');
  await manager.run(job);
  return { row, job };
}

/**
 * Manager's sequence for one container: create job, provider ID stored, status from
 * clusterResources, reconfigure with a delta, restart (stop/start), delete. Round 1 runs a
 * second container beside it (a second create on the same node) and more deltas.
 */
async function lifecycle(round) {
  const full = round === 1;
  const { row: a, job: jobA } = await createAndRun(
    { hostname: 'web-a', template: 'docker.io/library/nginx:latest', environmentVars: { GREETING: `hello-${round}` } },
    { expectCreating: true },
  );
  assert.equal(jobA.status, 'success', String(jobA.error));
  assert.equal(a.containerId, `${NS}/web-a`);
  assert.equal(a.macAddress, null);
  assert.equal(a.ipv4Address, null, 'an ephemeral Pod IP is never stored');
  assert.match(manager.lastPodIp, /^\d+\.\d+\.\d+\.\d+$/);
  let b = null;
  if (full) {
    let jobB;
    ({ row: b, job: jobB } = await createAndRun({ hostname: 'web-b', template: 'docker.io/library/nginx:latest', entrypoint: "nginx -g 'daemon off;'" }));
    assert.equal(jobB.status, 'success', String(jobB.error));
    assert.equal(b.containerId, `${NS}/web-b`);
  }
  let statuses = await manager.statuses();
  assert.equal(statuses.get(a.id), 'running');
  if (b) assert.equal(statuses.get(b.id), 'running');

  // PUT env change: one rolling update, no stop/start, Settings' default env kept.
  const envJob = await manager.run(manager.putContainer(a.id, { environmentVars: { GREETING: 'bye', EXTRA: `${round}` } }));
  assert.equal(envJob.status, 'success', String(envJob.error));
  assert.deepEqual((await podTemplate(a.containerId)).env, { TZ: 'UTC', GREETING: 'bye', EXTRA: `${round}` });

  if (full) {
    // An approved resource request: a memory-only delta keeps env and entrypoint.
    manager.approved.set('web-b', { cpus: 1, memory: 128 });
    const memJob = await manager.run(manager.approveResource('web-b', 'memory', 192));
    assert.equal(memJob.status, 'success', String(memJob.error));
    const templateB = await podTemplate(b.containerId);
    assert.equal(templateB.resources.limits.memory, '192Mi');
    assert.deepEqual(templateB.command, ['nginx', '-g', 'daemon off;']);
    assert.deepEqual(templateB.env, { TZ: 'UTC' });
    // Clearing the entrypoint is a `delete` in Manager's delta: the image default runs.
    const clearJob = await manager.run(manager.putContainer(b.id, { entrypoint: null }));
    assert.equal(clearJob.status, 'success', String(clearJob.error));
    assert.equal((await podTemplate(b.containerId)).command, null);
  }

  // PUT restart: the explicit stop/start path of the reconfigure job.
  const restartJob = await manager.run(manager.putContainer(a.id, { restart: true }));
  assert.equal(restartJob.status, 'success', String(restartJob.error));
  statuses = await manager.statuses();
  assert.equal(statuses.get(a.id), 'running');
  await assertNoOrphans();

  assert.deepEqual(await manager.deleteContainer(a.id), { deleted: true });
  if (b) assert.deepEqual(await manager.deleteContainer(b.id), { deleted: true });
  assert.equal(manager.containers.rows.size, 0);
  await assertNoOrphans();
}

test('create, status, reconfigure deltas, stop/start, delete: round 1 (two containers)', STEP, () => lifecycle(1));
test('the same again on the same node and hostname: round 2 leaves nothing behind either', STEP, () => lifecycle(2));

test('failed creates leave no orphan: the client deletes it, or the row keeps its provider ID', STEP, async () => {
  // Two creates whose Pods never start, run together (each waits out the adapter's check of
  // the Pods); the cleanup of the second fails because its DELETE calls fail.
  await cluster.failNext(50, 503, 'DELETE', '/deployments/stuck$');
  let broken;
  let stuck;
  try {
    [broken, stuck] = await Promise.all([
      createAndRun({ hostname: 'broken', template: 'fake.invalid/nope:1' }),
      createAndRun({ hostname: 'stuck', template: 'fake.invalid/nope:2' }),
    ]);
  } finally {
    await cluster.clearFaults();
  }
  // Cleaned up: the row stays without a provider ID and shows `failed`.
  assert.equal(broken.job.status, 'failure');
  assert.ok(broken.job.error instanceof errors.RolloutFailedError, String(broken.job.error));
  assert.equal(broken.job.error.retryable, false);
  assert.match(broken.job.error.message, /fake\.invalid\/nope:1/);
  assert.deepEqual(broken.job.error.cleanup, { providerId: `${NS}/broken`, deleted: true, alreadyMissing: false });
  assert.equal(broken.row.containerId, null);
  // Not cleaned up: the job stored the provider ID from the error, so nothing is orphaned.
  assert.ok(stuck.job.error instanceof errors.RolloutFailedError, String(stuck.job.error));
  assert.equal(stuck.job.error.orphanProviderId, `${NS}/stuck`);
  assert.ok(stuck.job.error.cleanup.error instanceof errors.UnavailableError, String(stuck.job.error.cleanup.error));
  assert.equal(stuck.row.containerId, `${NS}/stuck`);
  const statuses = await manager.statuses();
  assert.equal(statuses.get(broken.row.id), 'failed');
  assert.equal(statuses.get(stuck.row.id), 'failed');
  await assertNoOrphans();
  // Deleting both rows: no node call for the first, a real delete for the second.
  await manager.deleteContainer(broken.row.id);
  await manager.deleteContainer(stuck.row.id);
  await assertNoOrphans();
  assert.deepEqual(await cluster.kubectlDeployments(), []);
});

test('a node-side delete that fails keeps the row; the error says retry or not', STEP, async () => {
  const { row, job } = await createAndRun({ hostname: 'keep-me', template: 'docker.io/library/nginx:latest' });
  assert.equal(job.status, 'success', String(job.error));

  await cluster.failNext(50, 403, 'DELETE', '/deployments/');
  const forbidden = await manager.deleteContainer(row.id).catch((e) => e);
  await cluster.clearFaults();
  assert.ok(forbidden instanceof RouteError, String(forbidden));
  assert.equal(forbidden.status, 502);
  assert.ok(forbidden.cause instanceof errors.ForbiddenError, String(forbidden.cause));
  assert.equal(forbidden.cause.retryable, false);
  assert.ok(manager.containers.rows.has(row.id));

  await cluster.failNext(50, 503, 'DELETE', '/deployments/');
  const unavailable = await manager.deleteContainer(row.id).catch((e) => e);
  await cluster.clearFaults();
  assert.equal(unavailable.status, 503);
  assert.ok(unavailable.cause instanceof errors.UnavailableError, String(unavailable.cause));
  assert.equal(unavailable.cause.retryable, true);
  assert.ok(manager.containers.rows.has(row.id));
  assert.equal((await manager.statuses()).get(row.id), 'running');

  assert.deepEqual(await manager.deleteContainer(row.id), { deleted: true });
  await assertNoOrphans();
});
