'use strict';
// Job outcomes Manager must be able to act on: Manager's default size on a small node, a Pod
// that never gets ready (bounded by the node's waitTimeout, not worth retrying), an API down
// before or lost right after the apply (a provider ID only when something may exist; a
// re-run create converges), and a failed reconfigure (logged with its type; status running,
// saying the rollout is stuck). testing/manager-sim.js against the fake API server, whose one
// node has 4 CPUs and 8Gi.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');

const { errors } = require('../kubernetes-api');
const { RouteError } = require('../testing/manager-sim');
const { Scenario } = require('../testing/scenario');

const NS = 'outcomens';
const STEP = { timeout: 120_000 };
// The node's waitTimeout is the scenario's 30 s, so a create or restart that succeeds is not
// cut short on a loaded machine; the never-ready test lowers it to WAIT through PUT /nodes/:id.
const WAIT = 6; // the Kubernetes node's waitTimeout for the never-ready create, seconds
const scenario = new Scenario(NS, { size: { cpu: '4', memory: '8Gi' } });
const { cluster } = scenario;
let manager;

before(async () => {
  await scenario.start();
  ({ manager } = scenario);
});
after(() => scenario.stop());

test('two containers of Manager\'s default size (4 CPUs, 4096 MB) both run on a 4-CPU node', STEP, async () => {
  const [one, two] = await Promise.all([
    scenario.createAndRun({ hostname: 'big-1', template: 'docker.io/library/nginx:latest' }),
    scenario.createAndRun({ hostname: 'big-2', template: 'docker.io/library/nginx:latest' }),
  ]);
  assert.equal(one.job.status, 'success', String(one.job.error));
  assert.equal(two.job.status, 'success', String(two.job.error));
  const statuses = await manager.statuses();
  assert.deepEqual([statuses.get(one.row.id), statuses.get(two.row.id)], ['running', 'running']);
  await manager.deleteContainer(one.row.id);
  await manager.deleteContainer(two.row.id);
  await scenario.assertNoOrphans();
});

/** PUT /nodes/:id with the Kubernetes node's connection as stored and this waitTimeout. */
function setWaitTimeout(seconds) {
  const { k8s } = scenario;
  return manager.putNode(k8s.id, {
    nodeType: 'kubernetes', kubeconfigPath: k8s.kubeconfigPath, kubeContext: k8s.kubeContext,
    kubeNamespace: k8s.kubeNamespace, waitTimeout: String(seconds),
  });
}

test('a Pod that never gets ready ends at the node\'s waitTimeout, as a permanent failure', STEP, async () => {
  // Baseline from this run: a create that gets ready and its delete, the work the failing
  // create does besides waiting (its apply, its cleanup), at this machine's present load.
  const t0 = Date.now();
  const ready = await scenario.createAndRun({ hostname: 'quick', template: 'docker.io/library/nginx:latest' });
  assert.equal(ready.job.status, 'success', String(ready.job.error));
  await manager.deleteContainer(ready.row.id);
  const baseline = (Date.now() - t0) / 1000;
  const stored = scenario.k8s.waitTimeout;
  assert.equal((await setWaitTimeout(WAIT)).body.waitTimeout, WAIT);
  let run;
  const started = Date.now();
  try {
    run = await scenario.createAndRun({ hostname: 'slow', template: 'docker.io/example/never-ready:1' });
  } finally {
    await setWaitTimeout(stored);
  }
  const seconds = (Date.now() - started) / 1000;
  const { row, job } = run;
  assert.equal(job.status, 'failure');
  assert.ok(job.error instanceof errors.PodNotReadyError, String(job.error));
  assert.equal(job.error.type, 'Timeout');
  assert.equal(job.error.retryable, false);
  assert.match(job.error.message, new RegExp(`rollout not complete after ${WAIT}s`));
  // The bound the message names is the one it waited, and it ended there: within the bound
  // plus three times what a create and a delete take in this run. Not before the bound less
  // the 0.7 s the wait keeps of it for the reads that explain it (docs/cli.md, --timeout:
  // EXPLAIN_RESERVE_SECONDS): on an idle machine the job ended 5.86 s into a 6 s bound.
  assert.ok(seconds >= WAIT - 0.7, `the create job took ${seconds} s with a ${WAIT} s bound`);
  assert.ok(seconds < WAIT + 3 * baseline, `the create job took ${seconds} s with a ${WAIT} s bound (a create and delete: ${baseline} s)`);
  assert.ok(job.output.includes('Error type: Timeout, retryable: false'), job.output.join('\n'));
  // Cleaned up: nothing on the cluster, no provider ID, status failed.
  assert.equal(job.error.orphanProviderId, null);
  assert.equal(row.containerId, null);
  assert.equal((await manager.statuses()).get(row.id), 'failed');
  await manager.deleteContainer(row.id);
  await scenario.assertNoOrphans();
});

test('the API down before anything was applied: the create fails retryable, no provider ID is stored', STEP, async () => {
  await cluster.down();
  let run;
  try {
    run = await scenario.createAndRun({ hostname: 'early', template: 'docker.io/library/nginx:latest' });
  } finally {
    await cluster.up();
  }
  const { row, job } = run;
  assert.equal(job.status, 'failure');
  assert.ok(job.error instanceof errors.UnavailableError, String(job.error));
  assert.equal(job.error.retryable, true);
  assert.equal(job.error.details.applied, false);
  assert.equal(job.error.cleanup, undefined, 'nothing to clean up');
  assert.equal(job.error.orphanProviderId, null);
  assert.equal(row.containerId, null);
  assert.equal((await manager.statuses()).get(row.id), 'failed');
  // Nothing there, so the same create job may simply run again.
  const again = await manager.run(manager.enqueue(job.command));
  assert.equal(again.status, 'success', String(again.error));
  assert.equal((await manager.statuses()).get(row.id), 'running');
  await manager.deleteContainer(row.id);
  await scenario.assertNoOrphans();
});

test('the API lost right after the apply: the row keeps the provider ID and a re-run create converges on it', STEP, async () => {
  await cluster.downAfter('PATCH', '/deployments/late$');
  const { row, job } = await scenario.createAndRun({ hostname: 'late', template: 'docker.io/library/nginx:latest' });
  await cluster.up();
  assert.equal(job.status, 'failure');
  assert.equal(job.error.retryable, true, String(job.error));
  assert.equal(job.error.orphanProviderId, `${NS}/late`, 'the cleanup could not reach the API either');
  assert.equal(row.containerId, `${NS}/late`);
  const uid = await cluster.deploymentUid(row.containerId);
  assert.ok(uid);
  // The cluster carried on: the Deployment is this container's and runs.
  assert.equal((await manager.statuses()).get(row.id), 'running');
  // The container JSON says so beside "Running": the failed job's headline and the retry.
  const shown = (await manager.listContainers()).find((c) => c.id === row.id);
  assert.equal(shown.status, 'running');
  assert.equal(shown.nodeType, 'kubernetes');
  assert.equal(shown.canRetryCreate, true);
  assert.equal(shown.creationJob.status, 'failure');
  assert.match(shown.creationJob.headline, /^Container creation failed: /);
  // Manager's way out: its retry route queues the same create job for this row, and the job
  // applies the same spec onto the Deployment (its labels carry this row's ID).
  const retry = await manager.retryCreate(row.id);
  assert.equal(retry.status, 201);
  assert.equal(retry.job.command, job.command);
  assert.equal(row.creationJobId, retry.job.id, 'status follows the retry');
  assert.equal((await manager.statuses()).get(row.id), 'running', 'the Deployment found wins over the pending job');
  const again = await manager.run(retry.job);
  assert.equal(again.status, 'success', String(again.error));
  assert.deepEqual(again.calls, ['createLxc', 'waitForTask']);
  assert.equal(await cluster.deploymentUid(row.containerId), uid, 'the same Deployment, not a new one');
  assert.deepEqual(manager.jobs.filter((j) => j.command === job.command).map((j) => j.status), ['failure', 'success']);
  const retried = (await manager.listContainers()).find((c) => c.id === row.id);
  assert.deepEqual([retried.canRetryCreate, retried.creationJob.status, retried.creationJob.headline], [false, 'success', null]);
  await scenario.assertNoOrphans();
  // A create that succeeded is not retried.
  const refused = await manager.retryCreate(row.id).catch((e) => e);
  assert.ok(refused instanceof RouteError && refused.status === 409 && refused.code === 'create_not_failed', String(refused));
  await manager.deleteContainer(row.id);
  await scenario.assertNoOrphans();
});

test('a failed reconfigure logs its type and retryability; status stays running, saying the rollout is stuck', STEP, async () => {
  const { row, job } = await scenario.createAndRun({ hostname: 'cfg', template: 'docker.io/library/nginx:latest' });
  assert.equal(job.status, 'success', String(job.error));
  const failed = await manager.run(await manager.putContainer(row.id, { environmentVars: { FAKE_CRASH: '1' } }));
  assert.equal(failed.status, 'failure');
  // RolloutFailed once the crash loop is seen, or PodNotReady if the bound ends first: permanent.
  assert.ok(failed.error instanceof errors.RolloutFailedError || failed.error instanceof errors.PodNotReadyError, String(failed.error));
  assert.ok(failed.output.includes(`Error type: ${failed.error.type}, retryable: false`), failed.output.join('\n'));
  // The previous Pod keeps serving: running, and the message says why the change is not live.
  assert.equal((await manager.statuses()).get(row.id), 'running');
  const entry = await manager.resourceOf(row.id);
  // Read at any moment of the crash loop: its back-off wait, or the instant between two waits
  // when the container shows its exit (on the fake 0.2 s of every 2.2 s once back-off is 2 s),
  // as the terminated state itself or as the restarted container's last state.
  assert.match(
    entry.message,
    /rollout stuck: pod cfg-[a-z0-9]+-[a-z0-9]+ container main: (CrashLoopBackOff|Error: exited with code 1(, restarted and not ready| \(restarts: \d+\)))/,
  );
  assert.match(entry.message, /the previous pod serves/);
  await manager.deleteContainer(row.id);
  await scenario.assertNoOrphans();
});

test('a create re-run while the API is down keeps the stored provider ID: status and DELETE still find the Deployment', STEP, async () => {
  // A first run applied, then lost the API: the row holds the provider ID, the Deployment runs.
  await cluster.downAfter('PATCH', '/deployments/rerun$');
  const { row, job } = await scenario.createAndRun({ hostname: 'rerun', template: 'docker.io/library/nginx:latest' });
  await cluster.up();
  assert.equal(job.status, 'failure');
  assert.equal(row.containerId, `${NS}/rerun`);
  // The create job runs again while the API is down: it fails before its apply.
  await cluster.down();
  let again;
  try {
    again = await manager.run(manager.enqueue(job.command));
  } finally {
    await cluster.up();
  }
  assert.equal(again.status, 'failure');
  assert.ok(again.error instanceof errors.UnavailableError, String(again.error));
  assert.equal(again.error.details.applied, false);
  assert.equal(again.error.cleanup, undefined, 'a Deployment of an earlier run is never cleaned up by a re-run');
  assert.equal(again.error.orphanProviderId, `${NS}/rerun`, 'the earlier run\'s Deployment may exist: this run cannot say otherwise');
  assert.equal(row.containerId, `${NS}/rerun`, 'a failure never erases a stored provider ID');
  assert.equal((await manager.statuses()).get(row.id), 'running');
  await scenario.assertNoOrphans();
  manager.calls.length = 0;
  assert.deepEqual(await manager.deleteContainer(row.id), { status: 200, deleted: true });
  assert.deepEqual(manager.calls, ['lxcConfig', 'deleteContainer']);
  assert.equal(await cluster.deploymentUid(`${NS}/rerun`), null);
  await scenario.assertNoOrphans();
});

test('an explicit restart on a stuck rollout restarts: stop, apply, start; the previous Pod is replaced', STEP, async () => {
  const { row, job } = await scenario.createAndRun({ hostname: 'kick', template: 'docker.io/library/nginx:latest' });
  assert.equal(job.status, 'success', String(job.error));
  const failed = await manager.run(await manager.putContainer(row.id, { environmentVars: { FAKE_CRASH: '1' } }));
  assert.equal(failed.status, 'failure');
  assert.equal((await manager.statuses()).get(row.id), 'running', 'the previous Pod serves');
  const before = await cluster.kubectlPods(row.containerId);
  assert.equal(before.length, 2, `the serving Pod and the crash-looping one: ${before}`);
  const uid = await cluster.deploymentUid(row.containerId);

  // PUT restart: true with nothing changed. The restart happens: every Pod is replaced, and the
  // stored configuration (which still crashes) is what starts, so the job fails saying why.
  const restart = await manager.run(await manager.putContainer(row.id, { restart: true }));
  assert.deepEqual(restart.calls, ['stopLxc', 'waitForTask', 'updateLxcConfig', 'startLxc'], restart.output.join('\n'));
  assert.equal(restart.status, 'failure');
  assert.ok(restart.error instanceof errors.RolloutFailedError || restart.error instanceof errors.PodNotReadyError, String(restart.error));
  const after = await cluster.kubectlPods(row.containerId);
  assert.equal(after.filter((name) => before.includes(name)).length, 0, `restarted: ${before} -> ${after}`);
  assert.equal(await cluster.deploymentUid(row.containerId), uid);
  assert.equal((await manager.statuses()).get(row.id), 'failed');

  // The usual way out: fix the env and restart. One Pod start with the new spec, no rollout first.
  const fixed = await manager.run(await manager.putContainer(row.id, { environmentVars: { GREETING: 'fixed' }, restart: true }));
  assert.equal(fixed.status, 'success', String(fixed.error));
  assert.deepEqual(fixed.calls, ['stopLxc', 'waitForTask', 'updateLxcConfig', 'startLxc', 'waitForTask']);
  assert.deepEqual((await scenario.podTemplate(row.containerId)).env, { TZ: 'UTC', GREETING: 'fixed' });
  assert.equal((await manager.statuses()).get(row.id), 'running');
  await manager.deleteContainer(row.id);
  await scenario.assertNoOrphans();
});
