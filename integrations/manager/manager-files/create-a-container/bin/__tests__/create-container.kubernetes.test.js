/**
 * The create job on a Kubernetes node, run as the job runner runs it (its own process, the
 * test's sqlite file) against a stand-in adapter (KUBECTL_ADAPTER) that records each call and
 * answers as told: one create that starts the container, its provider ID stored at once; a
 * failed create keeps the provider ID whenever its write may have reached the cluster and never
 * nulls a stored one; a re-run converges instead of refusing; a Forbidden records the node's
 * connection test so the nodes list says what the Role lacks.
 */

const { execFile } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { resetDb, closeDb } = require('../../tests/helpers/db');
const { Container, Node, Site } = require('../../models');

const ROOT = path.join(__dirname, '..', '..');
const COMMANDS = ['list', 'status', 'create', 'reconfigure', 'start', 'stop', 'delete', 'check', 'nodes'];
const EXIT = { Forbidden: 5, Unavailable: 8, RolloutFailed: 10, Interrupted: 130 };

/** An adapter that logs `command` (and the create spec) and answers from `answers[command]`. */
function standInAdapter(dir, answers) {
  const file = path.join(dir, 'adapter');
  const calls = path.join(dir, 'calls.log');
  const specs = path.join(dir, 'specs.log');
  fs.writeFileSync(file, `#!${process.execPath}
const fs = require('fs');
const command = process.argv.slice(2).find((a) => ${JSON.stringify(COMMANDS)}.includes(a));
fs.appendFileSync(${JSON.stringify(calls)}, command + '\\n');
if (command === 'create') fs.appendFileSync(${JSON.stringify(specs)}, fs.readFileSync(0, 'utf8') + '\\n');
const answer = ${JSON.stringify(answers)}[command] || { doc: { ok: true } };
process.stdout.write(JSON.stringify(answer.doc));
process.exit(answer.exit || 0);
`, { mode: 0o755 });
  return { file, calls, specs };
}

const failure = (type, message, details = {}) => ({
  doc: { error: { type, message, retryable: !['Forbidden', 'RolloutFailed'].includes(type), details } }, exit: EXIT[type],
});

function runJob(rowId, adapter) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/create-container.js', `--container-id=${rowId}`],
      { cwd: ROOT, env: { ...process.env, KUBECTL_ADAPTER: adapter.file } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, out: stdout + stderr }));
  });
}

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('the create job on a Kubernetes node', () => {
  let tmp;
  let site;
  let node;

  beforeAll(async () => {
    await resetDb();
    site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', siteId: site.id });
  });

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-create-'));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  afterAll(closeDb);

  const calls = (adapter) => fs.readFileSync(adapter.calls, 'utf8').trim().split('\n');
  let serial = 0;
  const row = (fields = {}) => {
    serial += 1;
    return Container.create({
      hostname: `web${serial}`, username: 'alice', template: 'nginx:latest', nodeId: node.id, siteId: site.id,
      environmentVars: JSON.stringify({ MODE: 'prod' }), ...fields,
    });
  };

  test('one create that starts the container: provider ID stored, no VMID, start, storage or read-backs', async () => {
    const container = await row();
    const adapter = standInAdapter(tmp, {});
    const job = await runJob(container.id, adapter);
    expect(job.out).toContain('Container creation completed successfully!');
    expect(job.code).toBe(0);
    expect(calls(adapter)).toEqual(['create']);
    const spec = JSON.parse(fs.readFileSync(adapter.specs, 'utf8'));
    expect(spec).toMatchObject({ hostname: container.hostname, image: 'nginx:latest', containerId: String(container.id), cpus: 4, memoryMb: 4096 });
    expect(spec.env).toMatchObject({ MODE: 'prod' });
    await container.reload();
    expect(container.containerId).toBe(`apps/${container.hostname}`);
  });

  test('a create that failed after its apply and whose cleanup failed keeps the provider ID', async () => {
    const container = await row();
    const adapter = standInAdapter(tmp, {
      create: failure('RolloutFailed', 'Pod crashed'),
      delete: failure('Unavailable', 'connection refused'),
    });
    const job = await runJob(container.id, adapter);
    expect(job.code).toBe(1);
    expect(calls(adapter)).toEqual(['create', 'delete']);
    expect(job.out).toContain('Error type: RolloutFailed, retryable: false');
    await container.reload();
    expect(container.containerId).toBe(`apps/${container.hostname}`);
  });

  test('a create whose outcome is unknown (Interrupted) keeps the provider ID and deletes nothing', async () => {
    const container = await row();
    const adapter = standInAdapter(tmp, { create: failure('Interrupted', 'stopped by SIGTERM') });
    const job = await runJob(container.id, adapter);
    expect(job.code).toBe(1);
    expect(calls(adapter)).toEqual(['create']);
    await container.reload();
    expect(container.containerId).toBe(`apps/${container.hostname}`);
  });

  test('a re-run for a row that kept its provider ID converges, and a failure before its write keeps that ID', async () => {
    const container = await row();
    await container.update({ containerId: `apps/${container.hostname}` });
    const failing = standInAdapter(tmp, { create: failure('Unavailable', 'connection refused', { writeSent: false }) });
    const failed = await runJob(container.id, failing);
    expect(failed.code).toBe(1);
    expect(calls(failing)).toEqual(['create']);
    await container.reload();
    expect(container.containerId).toBe(`apps/${container.hostname}`);

    fs.rmSync(failing.calls);
    const again = await runJob(container.id, standInAdapter(tmp, {}));
    expect(again.code).toBe(0);
    expect(again.out).toContain('Container creation completed successfully!');
  });

  test('a Forbidden before any write: no provider ID, and the node records what its Role lacks', async () => {
    const container = await row();
    const check = {
      ok: false, kubectl: 'kubectl', clientVersion: 'v1.32.0', serverVersion: 'v1.32.0', context: 'old', namespace: 'apps',
      namespaceExists: true, permissions: [], missingPermissions: ['watch pods (core)'], capabilities: {},
    };
    const adapter = standInAdapter(tmp, {
      create: failure('Forbidden', 'pods is forbidden: cannot watch resource "pods"', { writeSent: false }),
      check: { doc: check, exit: 1 },
    });
    const job = await runJob(container.id, adapter);
    expect(job.code).toBe(1);
    expect(calls(adapter)).toEqual(['create', 'check']);
    expect(job.out).toContain("this node's Role lacks watch on pods: apply rbac/role.yaml again");
    await container.reload();
    expect(container.containerId).toBeNull();
    await node.reload();
    expect(node.lastConnectionTest).toMatchObject({
      ok: false, summary: 'missing permissions: watch pods (core)',
      hints: ["this node's Role lacks watch on pods: apply rbac/role.yaml again"],
    });
  });

  test('a create that succeeds after a refused one replaces the nodes list\'s failed verdict', async () => {
    await node.update({ lastConnectionTest: { at: new Date(0).toISOString(), ok: false, summary: 'missing permissions: watch pods (core)', hints: ['x'] } });
    const container = await row();
    const job = await runJob(container.id, standInAdapter(tmp, {}));
    expect(job.code).toBe(0);
    await node.reload();
    expect(node.lastConnectionTest).toMatchObject({
      ok: true, summary: `create of apps/${container.hostname} reached the cluster and succeeded`, hints: [], fix: null,
    });
  });
});
