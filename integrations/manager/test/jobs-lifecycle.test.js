'use strict';
// Manager's job sequences for a Kubernetes node, the happy path twice on one node: the routes,
// the create and reconfigure jobs and the status resolver of testing/manager-sim.js (changed
// as docs/manager-integration.md says) driving KubernetesApi against the fake API server.
// After each round nothing may be left on the cluster that Manager has no row for.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');

const { Scenario } = require('../testing/scenario');

const NS = 'lifecyclens';
const STEP = { timeout: 120_000 };
const scenario = new Scenario(NS);
let manager;

before(async () => {
  await scenario.start();
  ({ manager } = scenario);
});
after(() => scenario.stop());

/**
 * Manager's sequence for one container: create job, provider ID stored, status from
 * clusterResources, reconfigure with a delta, restart (stop/start), delete. Round 1 runs a
 * second container beside it (a second create on the same node) and more deltas.
 */
async function lifecycle(round) {
  const full = round === 1;
  const { row: a, job: jobA } = await scenario.createAndRun(
    { hostname: 'web-a', template: 'docker.io/library/nginx:latest', environmentVars: { GREETING: `hello-${round}` } },
    { expectCreating: true },
  );
  assert.equal(jobA.status, 'success', String(jobA.error));
  // Capabilities come from the node type (no call); create leaves it running: no startLxc.
  assert.deepEqual(jobA.calls, ['createLxc', 'waitForTask']);
  assert.equal(a.containerId, `${NS}/web-a`);
  assert.equal(a.macAddress, null);
  assert.equal(a.ipv4Address, null, 'an ephemeral Pod IP is never stored');
  const entry = await manager.resourceOf(a.id);
  assert.match(entry.ipv4Address, /^\d+\.\d+\.\d+\.\d+$/);
  assert.equal(entry.ephemeralIp, true);
  // Manager's defaults (4 CPUs, 4096 MB) are the limits; the scheduler reserves a quarter.
  // Read back as the API server stores them: quantities in canonical form (4000m is 4, 4096Mi 4Gi).
  assert.deepEqual((await scenario.podTemplate(a.containerId)).resources, {
    limits: { cpu: '4', memory: '4Gi' }, requests: { cpu: '1', memory: '1Gi' },
  });
  let b = null;
  if (full) {
    let jobB;
    ({ row: b, job: jobB } = await scenario.createAndRun({ hostname: 'web-b', template: 'docker.io/library/nginx:latest', entrypoint: "nginx -g 'daemon off;'" }));
    assert.equal(jobB.status, 'success', String(jobB.error));
    assert.equal(b.containerId, `${NS}/web-b`);
  }
  let statuses = await manager.statuses();
  assert.equal(statuses.get(a.id), 'running');
  if (b) assert.equal(statuses.get(b.id), 'running');

  // PUT env change: one rolling update, no stop/start, Settings' default env kept.
  const envJob = await manager.run(await manager.putContainer(a.id, { environmentVars: { GREETING: 'bye', EXTRA: `${round}` } }));
  assert.equal(envJob.status, 'success', String(envJob.error));
  // No status read either: its answer only fed the stop/start decision.
  assert.deepEqual(envJob.calls, ['updateLxcConfig'], 'no stop/start after a rollout');
  assert.deepEqual((await scenario.podTemplate(a.containerId)).env, { TZ: 'UTC', GREETING: 'bye', EXTRA: `${round}` });

  if (full) {
    // An approved resource request: a memory-only delta keeps env and entrypoint.
    manager.approved.set('web-b', { cpus: 1, memory: 128 });
    const memJob = await manager.run(manager.approveResource('web-b', 'memory', 192));
    assert.equal(memJob.status, 'success', String(memJob.error));
    const templateB = await scenario.podTemplate(b.containerId);
    assert.equal(memJob.command, `node bin/reconfigure-container.js --container-id=${b.id} --memory=192`);
    assert.deepEqual(templateB.resources.limits, { cpu: '4', memory: '192Mi' });
    assert.deepEqual(templateB.resources.requests, { cpu: '1', memory: '48Mi' });
    assert.deepEqual(templateB.command, ['nginx', '-g', 'daemon off;']);
    assert.deepEqual(templateB.env, { TZ: 'UTC' });
  }

  // PUT restart: the explicit stop/start path of the reconfigure job. Manager's parseArgs
  // keeps only --key=value, so the route writes --restart=true. Stopped first, the stored
  // spec is applied with no Pod to roll, and the start brings it up once.
  const restartJob = await manager.run(await manager.putContainer(a.id, { restart: true }));
  assert.equal(restartJob.command, `node bin/reconfigure-container.js --container-id=${a.id} --restart=true`);
  assert.equal(restartJob.status, 'success', String(restartJob.error));
  assert.deepEqual(restartJob.calls, ['stopLxc', 'waitForTask', 'updateLxcConfig', 'startLxc', 'waitForTask']);
  statuses = await manager.statuses();
  assert.equal(statuses.get(a.id), 'running');
  await scenario.assertNoOrphans();

  manager.calls.length = 0;
  assert.deepEqual(await manager.deleteContainer(a.id), { status: 200, deleted: true });
  assert.deepEqual(manager.calls, ['lxcConfig', 'deleteContainer']);
  if (b) assert.deepEqual(await manager.deleteContainer(b.id), { status: 200, deleted: true });
  assert.equal(manager.containers.rows.size, 0);
  await scenario.assertNoOrphans();
}

test('create, status, reconfigure deltas, stop/start, delete: round 1 (two containers)', STEP, () => lifecycle(1));
test('the same again on the same node and hostname: round 2 leaves nothing behind either', STEP, () => lifecycle(2));
