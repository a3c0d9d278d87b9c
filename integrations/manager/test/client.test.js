'use strict';
// KubernetesApi method by method against the fake API server and the real kubectl: the shapes
// Manager's call sites read, the guards, and the typed errors.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const KubernetesApi = require('../kubernetes-api');
const { errors } = KubernetesApi;
const { FakeCluster } = require('../testing/cluster');

const NS = 'clientns';
const STEP = { timeout: 60_000 };
const cluster = new FakeCluster(NS);

before(async () => { await cluster.start(); });
after(async () => { await cluster.stop(); });

function client(nodeOverrides = {}, options = {}) {
  return new KubernetesApi(cluster.node(nodeOverrides), cluster.clientOptions(options));
}

const CREATE = {
  vmid: null, hostname: 'web-42', image: 'nginx:latest', cores: 0.1, memory: 64, swap: 0,
  tags: 'alice', env: 'GREETING=hello', containerId: 42,
};
const PID = `${NS}/web-42`;

test('constructor refuses a node without id or name, or with a kubeNamespace that is no DNS label', () => {
  assert.throws(() => new KubernetesApi({ name: 'k', kubeNamespace: NS }), errors.InvalidInputError);
  assert.throws(() => new KubernetesApi({ id: 1, kubeNamespace: NS }), errors.InvalidInputError);
  assert.throws(() => new KubernetesApi({ id: 1, name: 'k', kubeNamespace: 'Not_A_Label' }),
    (e) => e instanceof errors.InvalidInputError && e.details.field === 'kubeNamespace');
});

test('the node\'s fields are #459\'s: kubeconfigPath, kubeContext, kubeNamespace (default "default")', () => {
  const bare = new KubernetesApi({ id: 1, name: 'k' });
  assert.deepEqual(bare.cli.globalArgs, ['-n', 'default', '--node-id', '1']);
  assert.equal(bare.providerId('default/web-1'), 'default/web-1');
  for (const unset of [null, '']) {
    assert.deepEqual(new KubernetesApi({ id: 1, name: 'k', kubeNamespace: unset }).cli.globalArgs.slice(0, 2), ['-n', 'default']);
  }
  const full = new KubernetesApi({ id: 2, name: 'k', kubeconfigPath: '/etc/manager/k.kubeconfig', kubeContext: 'prod', kubeNamespace: 'apps' });
  assert.deepEqual(full.cli.globalArgs, ['--context', 'prod', '--kubeconfig', '/etc/manager/k.kubeconfig', '-n', 'apps', '--node-id', '2']);
});

test('capabilities: a constant of the node type, the adapter\'s document plus the client\'s keys', STEP, async () => {
  const expected = {
    stableMacAddress: false, stableIpAddress: false, vmid: false, storage: false, templates: false,
    registerNetbox: false, registerDns: false, podIpEphemeral: true,
    reconfigureRollsOut: true, createStarts: true, createConverges: true, derivedProviderId: true,
  };
  // Without a client, a process or the network: a node whose adapter cannot even be found answers.
  assert.deepEqual(KubernetesApi.capabilities(), expected);
  const nowhere = client({}, { command: path.join(cluster.tmp, 'no-such-kubectl-adapter') });
  assert.deepEqual(nowhere.capabilities(), expected);
  // The adapter's own document is the first eight keys.
  const { AdapterCli } = require('../lib/adapter-cli');
  const adapter = await new AdapterCli({ command: cluster.clientOptions().command }).run(['capabilities']);
  const { reconfigureRollsOut, createStarts, createConverges, derivedProviderId, ...adapterKeys } = expected;
  assert.deepEqual(adapter, adapterKeys);
  const api = client();
  assert.equal(await api.nextId(), null);
  assert.deepEqual(await api.datastores('k8s-1', 'vztmpl', true), []);
  assert.equal(await api.getLxcMacAddress('k8s-1', PID), null);
});

test('the node\'s waitTimeout is the adapter\'s --timeout; the process bound stays above it', () => {
  const api = new KubernetesApi({ id: 1, name: 'k', kubeNamespace: NS, waitTimeout: 45 });
  assert.deepEqual(api.cli.globalArgs.slice(-2), ['--timeout', '45']);
  assert.equal(api.cli.processTimeoutMs, 15 * 60 * 1000);
  assert.equal(new KubernetesApi({ id: 1, name: 'k', kubeNamespace: NS, waitTimeout: 3600 }).cli.processTimeoutMs, (7200 + 180) * 1000);
  assert.ok(!new KubernetesApi({ id: 1, name: 'k', kubeNamespace: NS }).cli.globalArgs.includes('--timeout'));
  for (const bad of [0, -1, 1.5, 86401, 'soon']) {
    assert.throws(() => new KubernetesApi({ id: 1, name: 'k', kubeNamespace: NS, waitTimeout: bad }),
      (e) => e instanceof errors.InvalidInputError && e.details.field === 'waitTimeout', String(bad));
  }
});

test('createLxc for a row that stored another provider ID is refused before anything runs', async () => {
  // A command that cannot run: a refusal must come from the client, not from the adapter.
  const api = client({}, { command: path.join(cluster.tmp, 'no-such-kubectl-adapter') });
  assert.equal(api.providerIdFor('web-42'), PID);
  await assert.rejects(api.createLxc('k8s-1', { ...CREATE, vmid: `${NS}/web-43` }),
    (e) => e instanceof errors.InvalidInputError && e.details.field === 'vmid' && !('orphanProviderId' in e));
  await assert.rejects(api.createLxc('k8s-1', { ...CREATE, vmid: `other/web-42` }), errors.InvalidProviderIdError);
  // The row's own provider ID is a re-run: a failure keeps pointing at it, nothing is cleaned up.
  const failed = await api.createLxc('k8s-1', { ...CREATE, vmid: PID }).catch((e) => e);
  assert.ok(failed instanceof errors.ConfigurationError, String(failed));
  assert.equal(failed.orphanProviderId, PID);
  assert.equal(failed.cleanup, undefined);
});

test('createLxc resolves with a task carrying the provider ID; waitForTask confirms it', STEP, async () => {
  const api = client();
  const task = await api.createLxc('k8s-1', CREATE);
  assert.equal(task, `kubernetes:create:${PID}`);
  assert.deepEqual(await api.waitForTask('k8s-1', task), { status: 'stopped', exitstatus: 'OK' });
  await assert.rejects(api.waitForTask('k8s-1', 'UPID:pve:1'), errors.InvalidInputError);
  const snapshot = await api.status(PID);
  assert.equal(snapshot.status, 'running');
  assert.equal(snapshot.containerId, '42');
  assert.equal(snapshot.node, '7');
});

test('clusterResources: Proxmox-shaped entries for this node only', STEP, async () => {
  const entries = await client().clusterResources('lxc');
  assert.equal(entries.length, 1);
  const [entry] = entries;
  assert.equal(entry.vmid, PID);
  assert.equal(entry.name, 'web-42');
  assert.equal(entry.type, 'lxc');
  assert.equal(entry.status, 'running');
  assert.equal(entry.managerStatus, 'running');
  assert.equal(entry.node, 'k8s-1');
  assert.equal(entry.drift.state, 'in-sync');
  assert.match(entry.ipv4Address, /^\d+\.\d+\.\d+\.\d+$/);
  assert.deepEqual(await client().clusterResources('storage'), []);
  assert.deepEqual(await client({ id: 8, name: 'k8s-2' }).clusterResources('lxc'), []);
});

test('lxcConfig, getLxcStatus and getLxcIpAddress read the Deployment', STEP, async () => {
  const api = client();
  const config = await api.lxcConfig('k8s-1', PID);
  assert.equal(config.hostname, 'web-42');
  assert.equal(config.cores, 0.1);
  assert.equal(config.memory, 64);
  assert.deepEqual(await api.getLxcStatus('k8s-1', PID), { status: 'running', vmid: PID, managerStatus: 'running' });
  const ip = await api.getLxcIpAddress('k8s-1', PID);
  assert.match(ip, /^\d+\.\d+\.\d+\.\d+$/);
  assert.deepEqual(await api.getLxcNetworkInfo('k8s-1', PID), { macAddress: null, ipv4Address: ip });
  assert.equal((await api.lxcConfig('k8s-1', `${NS}/no-such`)).status, 'missing');
  await assert.rejects(api.getLxcStatus('k8s-1', `${NS}/no-such`), errors.NotFoundError);
});

test('stopLxc then startLxc, guarded by the container ID', STEP, async () => {
  const api = client();
  await assert.rejects(api.stopLxc('k8s-1', PID), (e) => e instanceof errors.InvalidInputError && e.details.field === 'containerId');
  await assert.rejects(api.stopLxc('k8s-1', PID, { containerId: 41 }), (e) => e instanceof errors.OwnershipConflictError && !e.retryable);
  assert.equal(await api.stopLxc('k8s-1', PID, { containerId: 42 }), `kubernetes:stop:${PID}`);
  assert.deepEqual(await api.getLxcStatus('k8s-1', PID), { status: 'stopped', vmid: PID, managerStatus: 'offline' });
  const [entry] = await api.clusterResources('lxc');
  assert.equal(entry.status, 'stopped');
  assert.equal(entry.managerStatus, 'offline');
  assert.equal(await api.startLxc('k8s-1', PID, { container: { id: 42 } }), `kubernetes:start:${PID}`);
  assert.equal((await api.status(PID)).status, 'running');
});

test('another node may not touch this node\'s Deployment', STEP, async () => {
  await assert.rejects(
    client({ id: 8, name: 'k8s-2' }).stopLxc('k8s-2', PID, { containerId: 42 }),
    (e) => e instanceof errors.OwnershipConflictError && e.details.expectedNodeId === '8',
  );
});

test('updateLxcConfig applies a delta as a full spec, in place', STEP, async () => {
  const api = client();
  const record = { id: 42, hostname: 'web-42', template: 'nginx:latest', environmentVars: '{"GREETING":"hello"}', entrypoint: null };
  const before = await api.status(PID);
  assert.equal(await api.updateLxcConfig('k8s-1', PID, { memory: 96, swap: 0 }, { container: record }), `kubernetes:update:${PID}`);
  const after = await api.status(PID);
  assert.equal(after.memoryMb, 96);
  assert.equal(after.cpus, 0.1);
  assert.equal(after.status, 'running');
  assert.ok(after.generation > before.generation);
  // Only LXC-only keys: nothing to do, nothing asked of the cluster (no record needed).
  assert.equal(await api.updateLxcConfig('k8s-1', PID, { tags: 'bob' }), `kubernetes:update:${PID}`);
  assert.equal((await api.status(PID)).generation, after.generation);
  await assert.rejects(api.updateLxcConfig('k8s-1', PID, { cores: 1 }), (e) => e instanceof errors.InvalidInputError && e.details.field === 'container');
  await assert.rejects(
    api.updateLxcConfig('k8s-1', PID, { cores: 1 }, { container: { ...record, id: 41 } }),
    (e) => e instanceof errors.InvalidInputError && e.details.field === 'containerId',
  );
});

test('a provider ID outside the node\'s namespace is refused before anything runs', async () => {
  const api = client();
  await assert.rejects(api.status('otherns/web-42'), (e) => e instanceof errors.InvalidProviderIdError && !e.retryable);
  await assert.rejects(api.deleteContainer('k8s-1', '12345', true, true, { containerId: 42 }), errors.InvalidProviderIdError);
  await assert.rejects(api.status(`${NS}/Bad_Name`), (e) => e instanceof errors.InvalidProviderIdError && e.exitCode === 2);
});

test('deleteContainer: guarded, then gone; already missing is success', STEP, async () => {
  const api = client();
  await assert.rejects(api.deleteContainer('k8s-1', PID, true, true, { containerId: 41 }), errors.OwnershipConflictError);
  assert.deepEqual(await api.deleteContainer('k8s-1', PID, true, true, { containerId: 42 }), {
    data: null, providerId: PID, deleted: true, alreadyMissing: false,
  });
  assert.deepEqual(await api.clusterResources('lxc'), []);
  assert.equal((await api.deleteContainer('k8s-1', PID, true, true, { containerId: 42 })).alreadyMissing, true);
  assert.deepEqual(await cluster.kubectlDeployments(), []);
});

test('an unreachable API is a retryable UnavailableError', STEP, async () => {
  const text = fs.readFileSync(cluster.kubeconfig, 'utf8');
  const refused = text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:1');
  assert.notEqual(refused, text);
  const kubeconfigPath = path.join(cluster.tmp, 'refused.kubeconfig');
  fs.writeFileSync(kubeconfigPath, refused);
  const api = client({ kubeconfigPath });
  await assert.rejects(api.clusterResources('lxc'), (e) => e instanceof errors.UnavailableError && e.retryable && e.exitCode === 8);
  await assert.rejects(api.lxcConfig('k8s-1', PID), (e) => e instanceof errors.UnavailableError);
});

test('nodes: the cluster\'s nodes with Ready and their internal and external IPs', STEP, async () => {
  const nodes = await client().nodes();
  assert.equal(nodes.length, 1);
  const [node] = nodes;
  assert.equal(node.name, 'fake-node-1');
  assert.equal(node.ready, true);
  assert.match(node.internalIp, /^\d+\.\d+\.\d+\.\d+$/);
  assert.equal(node.externalIp, null);
});

// #460's failures, each typed, through the form's connection test (which runs `check`) and
// a plain call; none of them may carry the kubeconfig's token or certificates.
async function failures() {
  const kubeconfig = fs.readFileSync(cluster.kubeconfig, 'utf8');
  const secrets = [...kubeconfig.matchAll(/(?:token|certificate-authority-data|client-key-data): (\S+)/g)].map((m) => m[1]);
  assert.ok(secrets.length >= 2, 'the fake kubeconfig has a token and a CA');
  const write = (name, text) => {
    const file = path.join(cluster.tmp, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const refused = write('refused-460.kubeconfig', kubeconfig.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:1'));
  const invalid = write('invalid-460.kubeconfig', `${kubeconfig}\n  this: [is not yaml`);
  const wrongCa = path.join(cluster.tmp, 'wrong-ca.kubeconfig');
  await cluster.writeWrongCaKubeconfig(wrongCa);
  const nobody = await cluster.addUser('nobody', NS);
  const revoked = await cluster.addUser('revoked', NS);
  await cluster.revokeToken(revoked.token);
  return {
    secrets,
    cases: [
      ['kubeconfig not found', { kubeconfigPath: path.join(cluster.tmp, 'no-such.kubeconfig') }, errors.KubeconfigNotFoundError, /kubeconfig not found: --kubeconfig \S+no-such\.kubeconfig/],
      ['invalid kubeconfig', { kubeconfigPath: invalid }, errors.InvalidKubeconfigError, /error loading config file/],
      ['context not found', { kubeContext: 'no-such-context' }, errors.ContextNotFoundError, /context "?no-such-context"?/],
      ['API unreachable', { kubeconfigPath: refused }, errors.UnavailableError, /127\.0\.0\.1:1 was refused/],
      ['unauthorized', { kubeContext: revoked.context }, errors.UnauthorizedError, /must be logged in/],
      ['TLS verification', { kubeconfigPath: wrongCa }, errors.TlsVerificationError, /x509: certificate signed by unknown authority/],
    ],
    nobody,
  };
}

test('#460\'s connection failures are typed, through check() and a read, and carry no secret', STEP, async () => {
  const { secrets, cases, nobody } = await failures();
  for (const [what, node, Class, message] of cases) {
    const api = client(node);
    await assert.rejects(api.check(), (e) => e instanceof Class && message.test(e.message), what);
    await assert.rejects(api.nodes(), (e) => e instanceof Class, `${what}: nodes`);
    const tested = await api.connectionTest();
    assert.equal(tested.ok, false, what);
    assert.equal(tested.error.name, Class.name, what);
    assert.equal(tested.error.retryable, Class === errors.UnavailableError, what);
    const shown = JSON.stringify(tested);
    for (const secret of secrets) assert.ok(!shown.includes(secret), `${what}: a secret of the kubeconfig in ${shown}`);
  }
  // Forbidden: the check names every permission RBAC denies; a read is a ForbiddenError.
  const forbidden = client({ kubeContext: nobody.context });
  const tested = await forbidden.connectionTest();
  assert.equal(tested.ok, false);
  assert.equal(tested.error, null);
  assert.ok(tested.check.missingPermissions.includes('patch deployments (apps)'), tested.check.missingPermissions.join(', '));
  // A person reads one line and one command; the full list is the hints (the form's disclosure).
  const missing = tested.check.missingPermissions.length;
  assert.ok(missing > 1 && tested.hints.length === missing, tested.hints.join('\n'));
  assert.deepEqual(tested.fix, {
    summary: `this node's Role lacks ${missing} permissions the adapter needs: apply rbac/role.yaml again`,
    command: `sed "s/namespace: manager$/namespace: ${NS}/" rbac/role.yaml | kubectl apply -f -`,
    missing,
  });
  await assert.rejects(forbidden.nodes(), (e) => e instanceof errors.ForbiddenError && /cannot list resource "nodes"/.test(e.message));
  await assert.rejects(forbidden.clusterResources('lxc'), errors.ForbiddenError);
  assert.ok(!JSON.stringify(tested).includes(nobody.token));
});

test('connectionTest of a working node: the check passed and the node list', STEP, async () => {
  const tested = await client().connectionTest();
  assert.equal(tested.ok, true);
  assert.equal(tested.error, null);
  assert.equal(tested.check.namespace, NS);
  assert.deepEqual(tested.nodes.map((n) => [n.name, n.ready]), [['fake-node-1', true]]);
});

test('a missing adapter executable is a ConfigurationError, not a crash', async () => {
  const api = client({}, { command: path.join(cluster.tmp, 'no-such-kubectl-adapter') });
  await assert.rejects(api.status(PID), (e) => e instanceof errors.ConfigurationError && e.exitCode === 9);
});

test('an adapter that exits without reading its stdin rejects, it does not crash Manager', async () => {
  // Writing a spec larger than the pipe buffer to an exited process fails with EPIPE.
  const api = client({}, { command: [process.execPath, '-e', 'process.exit(0)', '--'] });
  const big = { ...CREATE, env: { BIG: 'x'.repeat(1 << 20) } };
  await assert.rejects(api.createLxc('k8s-1', big), (e) => e instanceof errors.InternalError && e.exitCode === 0);
});

test('an adapter whose document was lost (exit 11, OutputFailed) rejects as retryable: read the status', async () => {
  const lost = "process.stderr.write('kubectl-adapter: the result of stop could not be written to stdout (Broken pipe); the command succeeded: exit 11 (OutputFailed)\\n'); process.exit(11)";
  const api = client({}, { command: [process.execPath, '-e', lost, '--'] });
  await assert.rejects(api.status(PID), (e) => e instanceof errors.OutputLostError && e.retryable && e.exitCode === 11 && /document was lost/.test(e.message));
});

test('a hung adapter is killed at the process bound: a retryable timeout', async () => {
  const api = client({}, { command: [process.execPath, '-e', 'setTimeout(() => {}, 60000)', '--'], processTimeoutMs: 300 });
  await assert.rejects(api.status(PID), (e) => e instanceof errors.WaitTimeoutError && e.retryable);
});

test('a hung adapter that ignores SIGTERM is SIGKILLed after the grace', async () => {
  const ignoring = "process.on('SIGTERM', () => {}); setTimeout(() => {}, 60000)";
  const api = client({}, { command: [process.execPath, '-e', ignoring, '--'], processTimeoutMs: 300, killGraceMs: 200 });
  const started = Date.now();
  await assert.rejects(api.status(PID), (e) => e instanceof errors.WaitTimeoutError && e.retryable);
  assert.ok(Date.now() - started < 10_000);
});

test('check resolves with its document when it reports ok:false (the CLI exits non-zero)', async () => {
  const doc = { ok: false, namespace: NS, checks: [{ name: 'namespace', ok: false, message: 'namespace clientns not found' }] };
  const printer = `process.stdout.write(${JSON.stringify(JSON.stringify(doc))}); process.exitCode = 3`;
  const api = client({}, { command: [process.execPath, '-e', printer, '--'] });
  assert.deepEqual(await api.check(), doc);
});

test('an error document from check still rejects with its typed error', async () => {
  const doc = { error: { type: 'Unavailable', message: 'connection refused', details: {} } };
  const printer = `process.stdout.write(${JSON.stringify(JSON.stringify(doc))}); process.exitCode = 8`;
  const api = client({}, { command: [process.execPath, '-e', printer, '--'] });
  await assert.rejects(api.check(), (e) => e instanceof errors.UnavailableError);
});
