/**
 * The reconfigure job on a Kubernetes node, run as the job runner runs it (its own process,
 * the test's sqlite file): one apply that rolls out, with no status read for a stop/start and
 * no stop/start after it; PUT's restart (--restart=true) stops first and starts after, and
 * still starts when the apply fails. A stand-in adapter (KUBECTL_ADAPTER) records each call.
 */

const { execFile } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { resetDb, closeDb } = require('../../tests/helpers/db');
const { Container, Node, Site } = require('../../models');

const ROOT = path.join(__dirname, '..', '..');
const COMMANDS = ['list', 'status', 'create', 'reconfigure', 'start', 'stop', 'delete', 'check', 'nodes'];

function standInAdapter(dir, { failReconfigure = false } = {}) {
  const file = path.join(dir, failReconfigure ? 'adapter-failing' : 'adapter');
  const calls = path.join(dir, 'calls.log');
  const snapshot = {
    providerId: 'apps/web', name: 'web', namespace: 'apps', status: 'running', message: '1/1 available',
    containerId: 'PLACEHOLDER', nodeId: 'PLACEHOLDER', replicas: 1, readyReplicas: 1, ipv4Address: '10.244.0.5', ephemeralIp: true, drift: null,
    image: 'nginx:latest', cpus: 1, memoryMb: 512,
  };
  fs.writeFileSync(file, `#!${process.execPath}
const fs = require('fs');
const command = process.argv.slice(2).find((a) => ${JSON.stringify(COMMANDS)}.includes(a));
fs.appendFileSync(${JSON.stringify(calls)}, command + '\\n');
if (${failReconfigure} && command === 'reconfigure') {
  process.stdout.write(JSON.stringify({ error: { type: 'RolloutFailed', message: 'apps/web: Pod web-1 CrashLoopBackOff', retryable: false } }));
  process.exit(4);
}
const answer = ${JSON.stringify(snapshot)};
answer.containerId = process.env.ROW_ID; answer.nodeId = process.env.NODE_ID;
process.stdout.write(JSON.stringify(answer));
`, { mode: 0o755 });
  return { file, calls };
}

function runJob(args, env) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/reconfigure-container.js', ...args], { cwd: ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, out: stdout + stderr }));
  });
}

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('the reconfigure job on a Kubernetes node', () => {
  let tmp;
  let row;
  let node;

  beforeAll(async () => {
    await resetDb();
    const site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', siteId: site.id });
    row = await Container.create({
      hostname: 'web', username: 'alice', template: 'nginx:latest', nodeId: node.id, siteId: site.id,
      containerId: 'apps/web', environmentVars: JSON.stringify({ MODE: 'prod' }),
    });
  });

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-reconfigure-'));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  afterAll(closeDb);

  const calls = (file) => fs.readFileSync(file, 'utf8').trim().split('\n');

  test('without --restart: one apply, no status read for a stop/start, no stop or start', async () => {
    const adapter = standInAdapter(tmp);
    const job = await runJob([`--container-id=${row.id}`], { KUBECTL_ADAPTER: adapter.file, ROW_ID: String(row.id), NODE_ID: String(node.id) });
    expect(job.out).toContain('Container reconfiguration completed successfully!');
    expect(job.code).toBe(0);
    // `status` is the client's read of the current Deployment for the reconfigure spec
    expect(calls(adapter.calls)).toEqual(['status', 'reconfigure']);
  });

  test('with --restart=true: stop, apply, start', async () => {
    const adapter = standInAdapter(tmp);
    const job = await runJob([`--container-id=${row.id}`, '--restart=true'], { KUBECTL_ADAPTER: adapter.file, ROW_ID: String(row.id), NODE_ID: String(node.id) });
    expect(job.code).toBe(0);
    expect(calls(adapter.calls)).toEqual(['stop', 'status', 'reconfigure', 'start']);
  });

  test('a failed apply under --restart=true still starts the container, then fails the job with its type', async () => {
    const adapter = standInAdapter(tmp, { failReconfigure: true });
    const job = await runJob([`--container-id=${row.id}`, '--restart=true'], { KUBECTL_ADAPTER: adapter.file, ROW_ID: String(row.id), NODE_ID: String(node.id) });
    expect(job.code).toBe(1);
    expect(calls(adapter.calls)).toEqual(['stop', 'status', 'reconfigure', 'start']);
    expect(job.out).toContain('Error type: RolloutFailed, retryable: false');
  });

  test('a reconfigure that reached the cluster replaces the nodes list\'s failed verdict; a failed one keeps it', async () => {
    const refused = { at: new Date(0).toISOString(), ok: false, summary: 'missing permissions: watch pods (core)', hints: ['x'] };
    await node.update({ lastConnectionTest: refused });
    const env = { ROW_ID: String(row.id), NODE_ID: String(node.id) };
    const failed = await runJob([`--container-id=${row.id}`], { ...env, KUBECTL_ADAPTER: standInAdapter(tmp, { failReconfigure: true }).file });
    expect(failed.code).toBe(1);
    await node.reload();
    expect(node.lastConnectionTest).toEqual(refused);
    const job = await runJob([`--container-id=${row.id}`], { ...env, KUBECTL_ADAPTER: standInAdapter(tmp).file });
    expect(job.code).toBe(0);
    await node.reload();
    expect(node.lastConnectionTest).toMatchObject({ ok: true, summary: 'reconfigure of apps/web reached the cluster and succeeded', hints: [] });
  });
});

