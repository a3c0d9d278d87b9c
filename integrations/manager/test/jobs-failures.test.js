'use strict';
// Manager's job sequences for a Kubernetes node when the image or the cluster fails: failed
// creates and failed node-side deletes (testing/manager-sim.js against the fake API server).
// After each scenario nothing may be left on the cluster that Manager has no row for.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');

const KubernetesApi = require('../kubernetes-api');

const { errors } = KubernetesApi;
const { RouteError } = require('../testing/manager-sim');
const { Scenario } = require('../testing/scenario');

const NS = 'failurens';
const STEP = { timeout: 120_000 };
const scenario = new Scenario(NS);
const { cluster } = scenario;
let manager;

before(async () => {
  await scenario.start();
  ({ manager } = scenario);
});
after(() => scenario.stop());

test('failed creates leave no orphan: the client deletes it, or the row keeps its provider ID', STEP, async () => {
  // Two creates whose Pods never start, run together (each waits out the adapter's check of
  // the Pods); the cleanup of the second fails because its DELETE calls fail.
  await cluster.failNext(50, 503, 'DELETE', '/deployments/stuck$');
  let broken;
  let stuck;
  try {
    [broken, stuck] = await Promise.all([
      scenario.createAndRun({ hostname: 'broken', template: 'fake.invalid/nope:1' }),
      scenario.createAndRun({ hostname: 'stuck', template: 'fake.invalid/nope:2' }),
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
  assert.equal(broken.job.error.orphanProviderId, null);
  assert.equal(broken.row.containerId, null);
  // Not cleaned up: the job stored the provider ID from the error, so nothing is orphaned.
  assert.ok(stuck.job.error instanceof errors.RolloutFailedError, String(stuck.job.error));
  assert.equal(stuck.job.error.orphanProviderId, `${NS}/stuck`);
  assert.ok(stuck.job.error.cleanup.error instanceof errors.UnavailableError, String(stuck.job.error.cleanup.error));
  assert.equal(stuck.row.containerId, `${NS}/stuck`);
  const statuses = await manager.statuses();
  assert.equal(statuses.get(broken.row.id), 'failed');
  assert.equal(statuses.get(stuck.row.id), 'failed');
  await scenario.assertNoOrphans();
  // Deleting both rows: the first has no provider ID, so its Deployment is looked for by the
  // one derived from the row (already gone), a real delete for the second.
  manager.calls.length = 0;
  await manager.deleteContainer(broken.row.id);
  assert.deepEqual(manager.calls, ['providerIdFor', 'deleteContainer']);
  await manager.deleteContainer(stuck.row.id);
  await scenario.assertNoOrphans();
  assert.deepEqual(await cluster.kubectlDeployments(), []);
});

test('a node-side delete that fails keeps the row; the error says retry or not', STEP, async () => {
  const { row, job } = await scenario.createAndRun({ hostname: 'keep-me', template: 'docker.io/library/nginx:latest' });
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

  assert.deepEqual(await manager.deleteContainer(row.id), { status: 200, deleted: true });
  await scenario.assertNoOrphans();
});

test('DELETE of a row with no provider ID looks for the Deployment by the ID derived from the row, and deletes only its own', STEP, async () => {
  // A create that applied and then lost its row's provider ID: the job was killed before it
  // stored it (or an older job script stored null over it). Status cannot see it...
  await cluster.downAfter('PATCH', '/deployments/lost$');
  const { row, job } = await scenario.createAndRun({ hostname: 'lost', template: 'docker.io/library/nginx:latest' });
  await cluster.up();
  assert.equal(job.status, 'failure');
  row.update({ containerId: null });
  assert.equal((await manager.statuses()).get(row.id), 'failed');
  // ...but DELETE still finds it: namespace/hostname, guarded by this row's Container.id.
  manager.calls.length = 0;
  assert.deepEqual(await manager.deleteContainer(row.id), { status: 200, deleted: true });
  assert.deepEqual(manager.calls, ['providerIdFor', 'deleteContainer']);
  assert.equal(await cluster.deploymentUid(`${NS}/lost`), null);
  await scenario.assertNoOrphans();

  // The same name in the same namespace made by another Manager node (another site): its
  // guards refuse it, so it stays, and the row without a provider ID is deleted.
  const other = new KubernetesApi({ ...scenario.k8s, id: 8, name: 'k8s-2' }, cluster.clientOptions());
  await other.createLxc('k8s-2', { hostname: 'twin', image: 'docker.io/library/nginx:latest', cores: 1, memory: 128, containerId: 99 });
  const twin = manager.containers.insert({ hostname: 'twin', template: 'docker.io/library/nginx:latest', username: 'bob', nodeId: 7, siteId: 1, environmentVars: null, entrypoint: null });
  assert.deepEqual(await manager.deleteContainer(twin.id), { status: 200, deleted: true });
  assert.equal(manager.containers.rows.has(twin.id), false);
  assert.match(manager.nodeLog[0], /another|not this|belongs/i);
  assert.ok(await cluster.deploymentUid(`${NS}/twin`), 'another node\'s Deployment is never deleted');
  await other.deleteContainer('k8s-2', `${NS}/twin`, true, true, { containerId: 99 });
  await scenario.assertNoOrphans();
});
