/**
 * #460's "mocked unit tests": KubernetesApi against a stand-in `kubectl-adapter` (no cluster,
 * no kubectl): each connection failure #460 lists is its own class and carries no secret;
 * cluster discovery; the connection test's hints; and a failed create keeps its provider ID
 * whenever its write may have reached the cluster.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const KubernetesApi = require('../kubernetes-api');

const { errors } = KubernetesApi;
let tmp;

beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-api-')); });
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A stand-in adapter answering each command from `plan` ({command: {doc, code}}); logs the commands it ran. */
function client(plan) {
  const dir = fs.mkdtempSync(path.join(tmp, 'stub-'));
  const script = path.join(dir, 'adapter.js');
  fs.writeFileSync(script, `
const fs = require('fs');
const plan = ${JSON.stringify(plan)};
const argv = process.argv.slice(2);
const command = argv[argv.indexOf('--node-id') + 2];
fs.appendFileSync(${JSON.stringify(path.join(dir, 'calls'))}, command + '\\n');
const answer = plan[command] || { doc: { error: { type: 'InternalError', message: 'unplanned ' + command } }, code: 1 };
if (answer.doc !== undefined) process.stdout.write(JSON.stringify(answer.doc));
process.exitCode = answer.code;
`);
  const api = new KubernetesApi({ id: 7, name: 'k8s-1', kubeNamespace: 'apps' }, { command: [process.execPath, script] });
  api.calls = () => fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n');
  return api;
}

const failure = (type, code, message, details = {}) => ({ doc: { error: { type, message, details } }, code });
const TOKEN = 'sekret-token-123';

test.each([
  ['kubeconfig not found', failure('ConfigurationError', 9, 'kubeconfig not found: --kubeconfig /etc/k', { reason: 'kubeconfig missing' }), errors.KubeconfigNotFoundError],
  ['invalid kubeconfig', failure('ConfigurationError', 9, 'error loading config file', { reason: 'invalid kubeconfig' }), errors.InvalidKubeconfigError],
  ['context not found', failure('ConfigurationError', 9, 'error: context "prod" does not exist', { reason: 'unknown context' }), errors.ContextNotFoundError],
  ['API unreachable', failure('Unavailable', 8, 'The connection to the server 10.0.0.5:6443 was refused'), errors.UnavailableError],
  ['unauthorized', failure('Unauthorized', 4, 'error: You must be logged in to the server'), errors.UnauthorizedError],
  ['forbidden', failure('Forbidden', 5, 'nodes is forbidden: User "x" cannot list resource "nodes"'), errors.ForbiddenError],
  ['TLS errors', failure('ConfigurationError', 9, 'x509: certificate signed by unknown authority', { reason: 'TLS verification failed' }), errors.TlsVerificationError],
])('%s is its own class, in check() and in the connection test', async (what, answer, Class) => {
  const api = client({ check: answer, nodes: answer });
  await expect(api.check()).rejects.toBeInstanceOf(Class);
  await expect(api.nodes()).rejects.toBeInstanceOf(Class);
  const tested = await api.connectionTest();
  expect(tested).toMatchObject({ ok: false, check: null, nodes: null, hints: [] });
  expect(tested.error.name).toBe(Class.name);
  expect(tested.error.retryable).toBe(Class === errors.UnavailableError);
  expect(JSON.stringify(tested)).not.toContain(TOKEN);
});

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

test('discovery: the cluster\'s nodes with Ready, internal and external IP', async () => {
  const items = [{ name: 'n1', ready: true, internalIp: '172.18.0.2', externalIp: null, kubeletVersion: 'v1.32.0', capacity: {}, allocatable: {} }];
  const check = { ok: true, namespace: 'apps', namespaceExists: true, missingPermissions: [], serverVersion: 'v1.32.0' };
  const api = client({ check: { doc: check, code: 0 }, nodes: { doc: { items }, code: 0 } });
  expect(await api.nodes()).toEqual(items);
  expect(await api.connectionTest()).toEqual({ ok: true, check, nodes: items, error: null, hints: [], fix: null });
  expect(api.calls()).toEqual(['nodes', 'check', 'nodes']);
});

test('a Role set up before the Pods\' watch: check names it and the hint says what to apply', async () => {
  const check = { ok: false, namespace: 'apps', namespaceExists: true, missingPermissions: ['watch pods (core)'] };
  const tested = await client({ check: { doc: check, code: 5 } }).connectionTest();
  expect(tested.ok).toBe(false);
  expect(tested.hints).toEqual(["this node's Role lacks watch on pods: apply rbac/role.yaml again"]);
});

describe('a failed create keeps the provider ID whenever its write may have reached the cluster', () => {
  const CREATE = { vmid: null, hostname: 'web-1', image: 'nginx:1.27', cores: 1, memory: 512, containerId: 42 };
  const deleted = { doc: { providerId: 'apps/web-1', deleted: true, alreadyMissing: false }, code: 0 };

  test.each([
    ['nothing sent (applied: false)', failure('Forbidden', 5, 'x', { applied: false }), deleted, ['create'], null],
    ['nothing sent (writeSent: false)', failure('Timeout', 7, 'x', { writeSent: false }), deleted, ['create'], null],
    ['Forbidden after the apply, cleaned up', failure('Forbidden', 5, 'pods is forbidden: cannot watch'), deleted, ['create', 'delete'], null],
    ['Forbidden after the apply, cleanup failed', failure('Forbidden', 5, 'x'), failure('Unavailable', 8, 'down'), ['create', 'delete'], 'apps/web-1'],
    ['an answer that may have reached the server', failure('Timeout', 7, 'x', { writeSent: true }), failure('Unavailable', 8, 'down'), ['create', 'delete'], 'apps/web-1'],
    ['the answer lost (exit 11)', { code: 11 }, deleted, ['create'], 'apps/web-1'],
  ])('%s', async (what, answer, cleanup, calls, orphan) => {
    const api = client({ create: answer, delete: cleanup });
    const error = await api.createLxc('k8s-1', CREATE).catch((e) => e);
    expect(error).toBeInstanceOf(errors.AdapterError);
    expect(api.calls()).toEqual(calls);
    expect(error.orphanProviderId).toBe(orphan);
  });
});
