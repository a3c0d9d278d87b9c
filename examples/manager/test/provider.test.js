'use strict';
// Drives kubernetes-provider.js, as Manager would, against the project's fake Kubernetes API
// server (tests/fakecluster) and the real kubectl: `node --test examples/manager/test/`.
//
// Environment overrides:
//   KUBECTL_ADAPTER  the adapter executable (default: <repo>/.venv/bin/kubectl-adapter, else
//                    `$PYTHON -m kubectl_adapter`)
//   PYTHON           the interpreter for the fake cluster (and the adapter fallback);
//                    default <repo>/.venv/bin/python, else python3

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const {
  KubernetesProvider,
  AdapterError,
  findInSnapshot,
  networkRegistrationPlan,
} = require('../kubernetes-provider.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');
const NAMESPACE = 'testns';
const STEP_TIMEOUT = 60_000;

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = path.join(VENV_BIN, 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

function adapterCommand() {
  if (process.env.KUBECTL_ADAPTER) return process.env.KUBECTL_ADAPTER;
  const venv = path.join(VENV_BIN, 'kubectl-adapter');
  if (!process.env.PYTHON && fs.existsSync(venv)) return venv;
  return [python(), '-m', 'kubectl_adapter'];
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'manager-provider-test-'));
let server = null;
let serverLog = '';
let cluster = null; // { kubeconfig, context }

/** Start `python -m tests.fakecluster`; resolve with its kubeconfig path and context. */
function startFakeCluster() {
  return new Promise((resolve, reject) => {
    server = spawn(
      python(),
      [
        '-m', 'tests.fakecluster',
        '--dir', path.join(tmp, 'fake'),
        '--namespace', NAMESPACE,
        '--pod-ready-delay', '0.2',
        '--termination-delay', '0.1',
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PYTHONPATH: [ROOT, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) },
      },
    );
    server.stderr.on('data', (chunk) => { serverLog += chunk; });
    const lines = [];
    const timer = setTimeout(() => reject(new Error(`fake cluster did not start in 20 s:\n${serverLog}`)), 20_000);
    readline.createInterface({ input: server.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 2) {
        clearTimeout(timer);
        const [kubeconfig, contextLine] = lines;
        assert.match(contextLine, /^context=/);
        resolve({ kubeconfig, context: contextLine.slice('context='.length) });
      }
    });
    server.on('error', (e) => { clearTimeout(timer); reject(e); });
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake cluster exited with ${code} before it was ready:\n${serverLog}`));
    });
  });
}

function stopFakeCluster() {
  return new Promise((resolve) => {
    if (!server || server.exitCode !== null || server.signalCode !== null) {
      resolve();
      return;
    }
    const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    server.on('exit', () => { clearTimeout(killer); resolve(); });
    server.kill('SIGTERM');
  });
}

let providers = 0;

/** A provider for Manager node 7 of the fake cluster, with a kubectl cache of its own. */
function provider(overrides = {}) {
  providers += 1;
  return new KubernetesProvider({
    kubeconfig: cluster.kubeconfig,
    context: cluster.context,
    namespace: NAMESPACE,
    id: 7,
    command: adapterCommand(),
    extraArgs: ['--cache-dir', path.join(tmp, `cache-${providers}`), '--timeout', '30'],
    ...overrides,
  });
}

function spec(changes = {}) {
  return {
    containerId: 'ctr-42',
    nodeId: '7',
    hostname: 'web-42',
    image: 'nginx:latest',
    cpus: 0.1,
    memoryMb: 64,
    env: { GREETING: 'hello' },
    ...changes,
  };
}

before(async () => {
  cluster = await startFakeCluster();
});

after(async () => {
  await stopFakeCluster();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// The lifecycle shares one container; node:test runs a file's tests in order.
const PROVIDER_ID = `${NAMESPACE}/web-42`;

test('create returns a running snapshot whose vmid is the provider ID', { timeout: STEP_TIMEOUT }, async () => {
  const snapshot = await provider().create(spec());
  assert.equal(snapshot.providerId, PROVIDER_ID);
  assert.equal(snapshot.vmid, PROVIDER_ID);
  assert.equal(snapshot.containerId, 'ctr-42');
  assert.equal(snapshot.node, '7');
  assert.equal(snapshot.status, 'running');
  assert.equal(snapshot.macAddress, null);
});

test('clusterResources lists it and findInSnapshot finds it by provider ID', { timeout: STEP_TIMEOUT }, async () => {
  const items = await provider().clusterResources();
  const found = findInSnapshot(items, PROVIDER_ID);
  assert.ok(found, `no ${PROVIDER_ID} in ${JSON.stringify(items)}`);
  assert.equal(found.status, 'running');
  assert.equal(found.image, 'nginx:latest');
  assert.equal(findInSnapshot(items, `${NAMESPACE}/no-such-container`), null);
  // Another Manager node's view of the same namespace does not include it.
  assert.deepEqual(await provider({ id: 8 }).clusterResources(), []);
});

test('status', { timeout: STEP_TIMEOUT }, async () => {
  const snapshot = await provider().status(PROVIDER_ID);
  assert.equal(snapshot.status, 'running');
  assert.equal(snapshot.readyReplicas, 1);
});

test('stop, then start', { timeout: STEP_TIMEOUT }, async () => {
  const p = provider();
  const stopped = await p.stop(PROVIDER_ID);
  assert.equal(stopped.status, 'offline');
  assert.equal(stopped.replicas, 0);
  assert.equal((await p.status(PROVIDER_ID)).status, 'offline');
  const started = await p.start(PROVIDER_ID);
  assert.equal(started.status, 'running');
  assert.equal(started.replicas, 1);
});

test('reconfigure changes the container in place', { timeout: STEP_TIMEOUT }, async () => {
  const p = provider();
  const before = await p.status(PROVIDER_ID);
  const after = await p.reconfigure(PROVIDER_ID, spec({ cpus: 0.25, env: { GREETING: 'bye' } }));
  assert.equal(after.providerId, PROVIDER_ID);
  assert.equal(after.status, 'running');
  assert.equal(after.cpus, 0.25);
  assert.ok(after.generation > before.generation, `generation ${before.generation} -> ${after.generation}`);
});

test('network: an ephemeral Pod IP, no MAC, nothing to register', { timeout: STEP_TIMEOUT }, async () => {
  const p = provider();
  const network = await p.network(PROVIDER_ID);
  assert.equal(network.providerId, PROVIDER_ID);
  assert.match(network.podIp, /^\d+\.\d+\.\d+\.\d+$/);
  assert.equal(network.ipv4Address, network.podIp);
  assert.equal(network.macAddress, null);
  assert.equal(network.stable, false);
  const capabilities = await p.capabilities();
  assert.deepEqual(networkRegistrationPlan(capabilities, network), {
    registerNetbox: false,
    registerDns: false,
    storeMac: false,
    displayIp: network.podIp,
  });
});

test('delete, and it is gone', { timeout: STEP_TIMEOUT }, async () => {
  const p = provider();
  assert.deepEqual(await p.delete(PROVIDER_ID), {
    providerId: PROVIDER_ID,
    deleted: true,
    alreadyMissing: false,
  });
  assert.equal(findInSnapshot(await p.clusterResources(), PROVIDER_ID), null);
  assert.equal((await p.status(PROVIDER_ID)).status, 'missing');
  assert.equal((await p.delete(PROVIDER_ID)).alreadyMissing, true);
});

test('a malformed provider ID rejects with a typed AdapterError', { timeout: STEP_TIMEOUT }, async () => {
  await assert.rejects(provider().status('not-a-provider-id'), (error) => {
    assert.ok(error instanceof AdapterError, String(error));
    assert.equal(error.type, 'InvalidProviderId');
    assert.equal(error.exitCode, 2);
    assert.match(error.message, /namespace\/name/);
    assert.deepEqual(error.details, { providerId: 'not-a-provider-id' });
    return true;
  });
  // The same through a command that is given a spec on stdin it never reads.
  await assert.rejects(provider().reconfigure('bad', spec()), { type: 'InvalidProviderId', exitCode: 2 });
});

test('a missing adapter executable rejects, it does not crash Manager', { timeout: STEP_TIMEOUT }, async () => {
  const missing = provider({ command: path.join(tmp, 'no-such-kubectl-adapter') });
  await assert.rejects(missing.status(PROVIDER_ID), { type: 'ConfigurationError', exitCode: 9 });
});

test('an adapter that exits without reading its stdin rejects, it does not crash Manager', { timeout: STEP_TIMEOUT }, async () => {
  // Writing a spec larger than the pipe buffer to a process that has exited fails with
  // EPIPE on the child's stdin stream; unhandled, that error would end Manager's process.
  const early = provider({ command: [process.execPath, '-e', 'process.exit(0)', '--'] });
  const big = spec({ env: { BIG: 'x'.repeat(1 << 20) } });
  await assert.rejects(early.create(big), { type: 'InternalError', exitCode: 0 });
});
