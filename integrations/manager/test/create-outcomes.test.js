'use strict';
// A failed create keeps the provider ID whenever its write may have reached the cluster,
// whatever the error's class (issue 31): decided by what the adapter says happened.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const KubernetesApi = require('../kubernetes-api');
const { FakeCluster } = require('../testing/cluster');

const { createMayHaveWritten } = KubernetesApi;
const NS = 'outcomesns';
const STEP = { timeout: 90_000 };
const cluster = new FakeCluster(NS);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'create-outcomes-'));

before(async () => { await cluster.start(); });
after(async () => { await cluster.stop(); fs.rmSync(tmp, { recursive: true, force: true }); });

/**
 * A stand-in adapter: answers each command from a plan (`{create: {doc, code}, delete: ...}`)
 * and records its argv, so each marker the real adapter may send is tried exactly.
 */
function stubAdapter(plan) {
  const dir = fs.mkdtempSync(path.join(tmp, 'stub-'));
  const script = path.join(dir, 'adapter.js');
  fs.writeFileSync(script, `
const fs = require('node:fs');
const plan = ${JSON.stringify(plan)};
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(path.join(dir, 'calls'))}, JSON.stringify(argv) + '\\n');
const command = argv.find((a) => plan[a]);
const answer = plan[command] || { doc: { error: { type: 'InternalError', message: 'unplanned' } }, code: 1 };
if (answer.doc !== undefined) process.stdout.write(JSON.stringify(answer.doc));
process.exitCode = answer.code;
`);
  return {
    command: [process.execPath, script],
    calls: () => (fs.existsSync(path.join(dir, 'calls'))
      ? fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)[JSON.parse(l).indexOf('--node-id') + 2])
      : []),
  };
}

const NODE = { id: 7, name: 'k8s-1', kubeNamespace: NS };
const CREATE = { vmid: null, hostname: 'web-9', image: 'nginx:latest', cores: 1, memory: 64, containerId: 9 };
const failure = (type, code, details = {}) => ({ doc: { error: { type, message: `${type} here`, details } }, code });
const DELETED = { doc: { providerId: `${NS}/web-9`, deleted: true, alreadyMissing: false }, code: 0 };

// [what the adapter answered, the cleanup's answer, calls expected, orphanProviderId]
const CASES = [
  // Nothing was sent: nothing to clean up, nothing to keep.
  ['read step failed (applied: false)', failure('Unavailable', 8, { applied: false }), DELETED, ['create'], null],
  ['write stopped before it left (writeSent: false)', failure('Timeout', 7, { writeSent: false }), DELETED, ['create'], null],
  ['missing permission found before the write (Forbidden, applied: false)', failure('Forbidden', 5, { applied: false }), DELETED, ['create'], null],
  // The write may have reached the cluster: cleaned up (null only because the cleanup says it is gone) ...
  ['Forbidden watch after the apply (an old Role)', failure('Forbidden', 5, { command: 'kubectl get pods --watch' }), DELETED, ['create', 'delete'], null],
  ['NotFound: another job deleted it meanwhile', failure('NotFound', 3), DELETED, ['create', 'delete'], null],
  ['an API conflict', failure('Conflict', 6, { command: 'kubectl apply' }), DELETED, ['create', 'delete'], null],
  ['an answer that may have reached the server (writeSent: true)', failure('Timeout', 7, { writeSent: true }), DELETED, ['create', 'delete'], null],
  ['a marker the client does not know (writeSent: "unknown")', failure('Unavailable', 8, { writeSent: 'unknown' }), DELETED, ['create', 'delete'], null],
  ['a failure with no details at all', failure('InternalError', 1), DELETED, ['create', 'delete'], null],
  // ... and kept when the cleanup fails, whatever the first error was.
  ['Forbidden watch, then the cleanup fails', failure('Forbidden', 5), failure('Forbidden', 5), ['create', 'delete'], `${NS}/web-9`],
  ['NotFound, then the cleanup fails', failure('NotFound', 3), failure('Unavailable', 8), ['create', 'delete'], `${NS}/web-9`],
  // The create may well have completed: not undone, the ID kept for a retry to converge on.
  ['answer lost (exit 11, no document)', { code: 11 }, DELETED, ['create'], `${NS}/web-9`],
  ['stopped by a signal', failure('Interrupted', 143, { signal: 'SIGTERM' }), DELETED, ['create'], `${NS}/web-9`],
];

for (const [name, answer, cleanup, calls, orphan] of CASES) {
  test(`first-run create: ${name}`, async () => {
    const stub = stubAdapter({ create: answer, delete: cleanup });
    const api = new KubernetesApi(NODE, { command: stub.command });
    const error = await api.createLxc('k8s-1', CREATE).then(() => assert.fail('create resolved'), (e) => e);
    assert.deepEqual(stub.calls(), calls);
    assert.equal(error.orphanProviderId, orphan);
  });
}

test('a re-run keeps the stored provider ID whatever the failure, and cleans nothing up', async () => {
  for (const answer of [failure('Forbidden', 5, { applied: false }), failure('Forbidden', 5), { code: 11 }]) {
    const stub = stubAdapter({ create: answer, delete: DELETED });
    const api = new KubernetesApi(NODE, { command: stub.command });
    const error = await api.createLxc('k8s-1', { ...CREATE, vmid: `${NS}/web-9` }).then(() => assert.fail('resolved'), (e) => e);
    assert.deepEqual(stub.calls(), ['create']);
    assert.equal(error.orphanProviderId, `${NS}/web-9`);
  }
});

test('an adapter that cannot be started sent nothing: no cleanup, no provider ID', async () => {
  const api = new KubernetesApi(NODE, { command: path.join(tmp, 'no-such-adapter') });
  const error = await api.createLxc('k8s-1', CREATE).then(() => assert.fail('resolved'), (e) => e);
  assert.equal(error.details.writeSent, false);
  assert.equal(error.orphanProviderId, null);
  assert.equal(error.cleanup, undefined);
});

test('createMayHaveWritten reads the markers, not the class', () => {
  assert.equal(createMayHaveWritten({ type: 'Forbidden', details: {} }), true);
  assert.equal(createMayHaveWritten({ type: 'Forbidden', details: { applied: false } }), false);
  assert.equal(createMayHaveWritten({ type: 'Interrupted', details: { writeSent: false } }), false);
  assert.equal(createMayHaveWritten({ type: 'OutputFailed' }), 'outcome-unknown');
});

/** A node whose Role predates the Pods' watch (set up before issue 24): its user and context. */
async function oldRoleNode() {
  const user = await cluster.addUser('old-role', NS);
  await cluster.grantRole('old-role', (text) => text.replace(
    /(resources: \["pods"\]\n\s+verbs: )\["list", "watch"\]/, '$1["list"]'));
  return cluster.node({ kubeContext: user.context, waitTimeout: 20 });
}

test('an upgraded node whose Role lacks watch on pods: the connection test says to apply rbac/role.yaml again, and a create leaves nothing untracked', STEP, async () => {
  const node = await oldRoleNode();
  const api = new KubernetesApi(node, cluster.clientOptions());
  const tested = await api.connectionTest();
  assert.equal(tested.ok, false);
  assert.deepEqual(tested.check.missingPermissions, ['watch pods (core)']);
  assert.deepEqual(tested.hints, ["this node's Role lacks watch on pods: apply rbac/role.yaml again"]);
  // The adapter may see the Deployment available before the Pods' watch is refused (then the
  // create succeeds and its task names the Deployment): either way nothing is left untracked.
  const outcome = await api.createLxc('k8s-1', { ...CREATE, hostname: 'web-old', containerId: 11 }).then((task) => ({ task }), (error) => ({ error }));
  const left = (await cluster.kubectlDeployments()).filter((id) => id === `${NS}/web-old`);
  if (outcome.task) {
    assert.equal(KubernetesApi.spec.providerIdOfTask(outcome.task), `${NS}/web-old`);
    await new KubernetesApi(cluster.node(), cluster.clientOptions()).deleteContainer('k8s-1', `${NS}/web-old`, true, true, { containerId: 11 }).catch(() => {});
    return;
  }
  assert.equal(outcome.error.type, 'Forbidden', outcome.error.message);
  if (outcome.error.orphanProviderId === null) assert.deepEqual(left, [], `untracked Deployment left: ${JSON.stringify(outcome.error.cleanup)}`);
  else assert.equal(outcome.error.orphanProviderId, `${NS}/web-old`);
});

test('roleHints: one line per missing permission, none when nothing is missing', () => {
  assert.deepEqual(KubernetesApi.roleHints({ missingPermissions: ['watch pods (core)', 'patch deployments (apps)'] }), [
    "this node's Role lacks watch on pods: apply rbac/role.yaml again",
    "this node's Role lacks patch on deployments: apply rbac/role.yaml again",
  ]);
  assert.deepEqual(KubernetesApi.roleHints({ missingPermissions: [] }), []);
  assert.deepEqual(KubernetesApi.roleHints(null), []);
});

test('roleFix: one line and the one command, however many permissions are missing', () => {
  const one = { namespace: 'apps', missingPermissions: ['watch pods (core)'] };
  assert.deepEqual(KubernetesApi.roleFix(one), {
    summary: "this node's Role lacks watch on pods: apply rbac/role.yaml again",
    command: 'sed "s/namespace: manager$/namespace: apps/" rbac/role.yaml | kubectl apply -f -',
    missing: 1,
  });
  const many = { namespace: 'apps', missingPermissions: ['get deployments (apps)', 'list deployments (apps)', 'watch pods (core)'] };
  assert.equal(KubernetesApi.roleFix(many).summary, "this node's Role lacks 3 permissions the adapter needs: apply rbac/role.yaml again");
  assert.equal(KubernetesApi.roleFix({ namespace: 'apps', missingPermissions: [] }), null);
  assert.equal(KubernetesApi.roleFix(null), null);
});

test('connectionSummary: the verdict a nodes list keeps, one line and the hints', () => {
  const at = new Date('2026-12-02T05:00:00Z');
  const check = { namespace: 'apps', namespaceExists: true, missingPermissions: [], serverVersion: 'v1.32.0' };
  assert.deepEqual(KubernetesApi.connectionSummary({ ok: true, check, hints: [] }, at),
    { at: '2026-12-02T05:00:00.000Z', ok: true, summary: 'Server v1.32.0, namespace apps exists', hints: [], fix: null });
  const old = { ...check, missingPermissions: ['watch pods (core)'] };
  assert.deepEqual(KubernetesApi.connectionSummary({ ok: false, check: old, hints: KubernetesApi.roleHints(old) }, at).summary, 'missing permissions: watch pods (core)');
  assert.equal(KubernetesApi.connectionSummary({ ok: false, check: { ...check, namespaceExists: false } }, at).summary, 'namespace apps does not exist');
  assert.equal(KubernetesApi.connectionSummary({ ok: false, check: { ...check, namespaceExists: null } }, at).summary, 'namespace apps cannot be read');
  assert.equal(KubernetesApi.connectionSummary({ ok: false, check: null, error: { name: 'TlsVerificationError', message: 'x509' } }, at).summary, 'TlsVerificationError: x509');
});
