/**
 * No death loses a Deployment (issue 40): the job process or its adapter is SIGKILLed at each
 * step of create (before its apply, after it, during a failed create's cleanup), reconfigure,
 * restart (stop, apply, start) and delete, and afterwards the row still points at what may
 * exist: the provider ID `namespace/hostname` is stored before the create starts, so status
 * reads the Deployment, "Retry create" (or the same job again) converges on it, and DELETE
 * deletes it. The jobs run as the job runner runs them (their own process, the test's sqlite
 * file); the adapter is a stand-in (KUBECTL_ADAPTER) keeping its Deployments in a file, which
 * kills its parent (the job, or Manager's server for a DELETE) and itself when told.
 */

const { execFile } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const request = require('supertest');
const { buildApp, bearer } = require('../../tests/helpers/app');
const { resetDb, closeDb, createUser, createApiKey } = require('../../tests/helpers/db');
const { Container, Job, JobStatus, Node, Site } = require('../../models');
const { computeContainerState } = require('../../utils/container-status');

const ROOT = path.join(__dirname, '..', '..');
// Each test runs several job processes (a node start-up each, ~0.5 s on a loaded machine).
jest.setTimeout(60000);

const COMMANDS = ['list', 'status', 'create', 'reconfigure', 'start', 'stop', 'delete', 'check', 'nodes'];

/**
 * The stand-in: Deployments in state.json; plan.json says at which command and step
 * (`start`: before any write, `written`: after it) to die, and who dies with it (`job`: its
 * parent process too). `failCreate` makes the create fail after its write (RolloutFailed), so
 * the client's cleanup delete runs.
 */
function standInAdapter(dir) {
  const file = path.join(dir, 'kubectl-adapter');
  fs.writeFileSync(file, `#!${process.execPath}
const fs = require('fs');
const dir = ${JSON.stringify(dir)};
const argv = process.argv.slice(2);
const command = argv.find((a) => ${JSON.stringify(COMMANDS)}.includes(a));
const ns = argv[argv.indexOf('-n') + 1];
const read = (f, d) => { try { return JSON.parse(fs.readFileSync(dir + '/' + f, 'utf8')); } catch (e) { return d; } };
const state = read('state.json', {});
const plan = read('plan.json', null);
fs.appendFileSync(dir + '/calls.log', command + '\\n');
const die = (at) => {
  if (!plan || plan.command !== command || plan.at !== at) return;
  fs.writeFileSync(dir + '/plan.json', 'null');
  if (plan.who === 'parent') process.kill(process.ppid, 'SIGKILL');
  process.kill(process.pid, 'SIGKILL');
};
const save = () => fs.writeFileSync(dir + '/state.json', JSON.stringify(state));
const snapshot = (id) => {
  const [namespace, name] = id.split('/');
  const d = state[id];
  if (!d) return { providerId: id, namespace, name, status: 'missing', message: 'deployment not found' };
  return { providerId: id, namespace, name, status: d.replicas ? 'running' : 'offline', message: '', containerId: d.containerId,
    nodeId: d.nodeId, replicas: d.replicas, readyReplicas: d.replicas, image: d.image, cpus: d.cpus, memoryMb: d.memoryMb,
    ipv4Address: null, ephemeralIp: true, drift: null };
};
const out = (doc) => { process.stdout.write(JSON.stringify(doc)); process.exit(0); };
die('start');
if (command === 'list') out({ items: Object.keys(state).filter((id) => id.startsWith(ns + '/')).map(snapshot) });
const id = argv[argv.indexOf(command) + 1];
if (command === 'status') out(snapshot(id));
if (command === 'create') {
  const spec = JSON.parse(fs.readFileSync(0, 'utf8'));
  const made = ns + '/' + spec.hostname;
  state[made] = { containerId: spec.containerId, nodeId: spec.nodeId, replicas: 1, image: spec.image, cpus: spec.cpus, memoryMb: spec.memoryMb };
  save();
  die('written');
  if (plan && plan.failCreate) {
    process.stdout.write(JSON.stringify({ error: { type: 'RolloutFailed', message: 'Pod web crashed', retryable: false, details: {} } }));
    process.exit(10);
  }
  out(snapshot(made));
}
if (command === 'reconfigure') {
  const spec = JSON.parse(fs.readFileSync(0, 'utf8'));
  Object.assign(state[id], { image: spec.image, cpus: spec.cpus, memoryMb: spec.memoryMb });
  save();
  die('written');
  out(snapshot(id));
}
if (command === 'stop' || command === 'start') {
  state[id].replicas = command === 'start' ? 1 : 0;
  save();
  die('written');
  out(snapshot(id));
}
if (command === 'delete') {
  const existed = !!state[id];
  delete state[id];
  save();
  die('written');
  out({ providerId: id, deleted: existed, alreadyMissing: !existed });
}
process.stdout.write(JSON.stringify({ error: { type: 'InternalError', message: 'unplanned ' + command } }));
process.exit(1);
`, { mode: 0o755 });
  return file;
}

/** Runs a job script as the job runner does; resolves with how it ended. */
function runJob(dir, script, args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT, env: { ...process.env, KUBECTL_ADAPTER: path.join(dir, 'kubectl-adapter') } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, signal: error ? error.signal : null, out: stdout + stderr }));
  });
}

/** Manager's DELETE in a server process of its own (the real app on the test's sqlite file), so it can die. */
function deleteInServer(dir, siteId, containerId, key) {
  const script = `
const request = require('supertest');
const { buildApp, bearer } = require('./tests/helpers/app');
request(buildApp()).delete('/api/v1/sites/${siteId}/containers/${containerId}').set(...bearer(${JSON.stringify(key)}))
  .then((res) => { process.stdout.write('\\nHTTP ' + res.status + ' ' + JSON.stringify(res.body) + '\\n'); process.exit(0); });
`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { cwd: ROOT, env: { ...process.env, KUBECTL_ADAPTER: path.join(dir, 'kubectl-adapter') } },
      (error, stdout) => {
        const answer = /^HTTP (\d+) (.*)$/m.exec(stdout);
        resolve({ signal: error ? error.signal : null, status: answer ? Number(answer[1]) : null, body: answer ? JSON.parse(answer[2]) : null });
      });
  });
}

const CREATE_STEPS = [
  ['before its apply', { command: 'create', at: 'start' }],
  ['after its apply', { command: 'create', at: 'written' }],
  ["during a failed create's cleanup, before the delete", { command: 'delete', at: 'start', failCreate: true }],
];
const RECONFIGURE_STEPS = [
  ['reading the Deployment', { command: 'status', at: 'start' }],
  ['before the apply', { command: 'reconfigure', at: 'start' }],
  ['after the apply', { command: 'reconfigure', at: 'written' }],
];
const RESTART_STEPS = [
  ['before the stop', { command: 'stop', at: 'start' }],
  ['after the stop', { command: 'stop', at: 'written' }],
  ['after the apply', { command: 'reconfigure', at: 'written' }],
  ['after the start', { command: 'start', at: 'written' }],
];
const DELETE_STEPS = [
  ['reading the Deployment', { command: 'status', at: 'start' }],
  ['before the delete', { command: 'delete', at: 'start' }],
];
const WHO = [['the job', 'parent'], ['the adapter', 'self']];

describe('a SIGKILL at any step never loses a Kubernetes Deployment', () => {
  let app;
  let ownerKey;
  let site;
  let node;
  let tmp;
  let serial = 0;

  beforeAll(async () => {
    await resetDb();
    app = buildApp();
    await createUser({ uid: 'first-admin' });
    const owner = await createUser({ uid: 'alice' });
    ownerKey = (await createApiKey(owner, 'key')).plainKey;
    site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', siteId: site.id });
  });

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-deaths-'));
    standInAdapter(tmp);
    fs.writeFileSync(path.join(tmp, 'state.json'), '{}');
    process.env.KUBECTL_ADAPTER = path.join(tmp, 'kubectl-adapter');
  });

  afterEach(() => {
    delete process.env.KUBECTL_ADAPTER;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  afterAll(closeDb);

  const state = () => JSON.parse(fs.readFileSync(path.join(tmp, 'state.json'), 'utf8'));
  const plan = (step) => fs.writeFileSync(path.join(tmp, 'plan.json'), JSON.stringify(step));
  const url = (suffix = '') => `/api/v1/sites/${site.id}/containers${suffix}`;
  const load = (id) => Container.findByPk(id, { include: [{ association: 'node' }, { association: 'creationJob' }] });

  /** A row and its create job, as POST / leaves them, and the job's process run as the runner does. */
  async function createRow() {
    serial += 1;
    const job = await Job.create({ command: 'create', status: 'running' });
    const row = await Container.create({
      hostname: `web${serial}`, username: 'alice', template: 'nginx:latest', nodeId: node.id, siteId: site.id, creationJobId: job.id,
    });
    return { row, job };
  }

  /** What the job runner records when its child ends (job-runner.js: exit code, failure when not 0). */
  async function recordEnd(job, run) {
    await JobStatus.create({ jobId: job.id, output: `${run.out}Process exited with code ${run.signal ? null : run.code}\n` });
    await job.update({ status: run.code === 0 ? 'success' : 'failure' });
  }

  /** A running container as a create job that succeeded leaves it (the create itself is tested above). */
  async function runningRow() {
    const { row, job } = await createRow();
    const providerId = `apps/${row.hostname}`;
    await row.update({ containerId: providerId });
    await job.update({ status: 'success' });
    const deployments = state();
    deployments[providerId] = { containerId: String(row.id), nodeId: String(node.id), replicas: 1, image: row.template, cpus: 4, memoryMb: 4096 };
    fs.writeFileSync(path.join(tmp, 'state.json'), JSON.stringify(deployments));
    return load(row.id);
  }

  /** After a death: the row points at the Deployment, status finds it, DELETE deletes it. */
  async function expectFoundAndDeleted(rowId, expectedStatus) {
    const row = await load(rowId);
    const providerId = `apps/${row.hostname}`;
    expect(row.containerId).toBe(providerId);
    const { status } = await computeContainerState({ container: row, Job });
    expect(status).toBe(expectedStatus);
    const gone = await request(app).delete(url(`/${row.id}`)).set(...bearer(ownerKey));
    expect(gone.status).toBe(200);
    expect(await Container.findByPk(row.id)).toBeNull();
    expect(state()[providerId]).toBeUndefined();
  }

  for (const [who, kills] of WHO) {
    for (const [step, die] of CREATE_STEPS) {
      test(`create: ${who} killed ${step}: the row keeps the provider ID, the retry converges, DELETE deletes it`, async () => {
        const { row, job } = await createRow();
        plan({ ...die, who: kills });
        const run = await runJob(tmp, 'bin/create-container.js', [`--container-id=${row.id}`]);
        expect(run.code).not.toBe(0);
        if (kills === 'parent') expect(run.signal).toBe('SIGKILL');
        await recordEnd(job, run);
        const providerId = `apps/${row.hostname}`;
        await row.reload();
        expect(row.containerId).toBe(providerId);
        const exists = !!state()[providerId];
        expect(exists).toBe(die.at === 'written' || !!die.failCreate);
        const { status } = await computeContainerState({ container: await load(row.id), Job });
        expect(status).toBe(exists ? 'running' : 'failed');

        const retry = await request(app).post(url(`/${row.id}/retry-create`)).set(...bearer(ownerKey));
        expect(retry.status).toBe(201);
        const again = await runJob(tmp, 'bin/create-container.js', [`--container-id=${row.id}`]);
        expect(again.out).toContain('Container creation completed successfully!');
        await recordEnd(await Job.findByPk(retry.body.data.jobId), again);
        expect(state()[providerId]).toMatchObject({ containerId: String(row.id), replicas: 1 });
        await expectFoundAndDeleted(row.id, 'running');
      });
    }

    for (const [step, die] of RECONFIGURE_STEPS) {
      test(`reconfigure: ${who} killed ${step}: the row keeps the provider ID, the job again applies, DELETE deletes it`, async () => {
        const row = await runningRow();
        plan({ ...die, who: kills });
        const run = await runJob(tmp, 'bin/reconfigure-container.js', [`--container-id=${row.id}`, '--cpus=2']);
        expect(run.code).not.toBe(0);
        const again = await runJob(tmp, 'bin/reconfigure-container.js', [`--container-id=${row.id}`, '--cpus=2']);
        expect(again.out).toContain('Container reconfiguration completed successfully!');
        expect(state()[row.containerId]).toMatchObject({ cpus: 2, replicas: 1 });
        await expectFoundAndDeleted(row.id, 'running');
      });
    }

    for (const [step, die] of RESTART_STEPS) {
      test(`restart: ${who} killed ${step}: the row keeps the provider ID, the restart again starts it, DELETE deletes it`, async () => {
        const row = await runningRow();
        plan({ ...die, who: kills });
        const run = await runJob(tmp, 'bin/reconfigure-container.js', [`--container-id=${row.id}`, '--restart=true']);
        expect(run.code).not.toBe(0);
        const stopped = state()[row.containerId].replicas === 0;
        // The job starts the container again even when its apply failed; only its own death skips that.
        expect(stopped).toBe((die.command === 'stop' && die.at === 'written') || (die.command === 'reconfigure' && kills === 'parent'));
        const { status } = await computeContainerState({ container: await load(row.id), Job });
        expect(status).toBe(stopped ? 'offline' : 'running');
        const again = await runJob(tmp, 'bin/reconfigure-container.js', [`--container-id=${row.id}`, '--restart=true']);
        expect(again.out).toContain('Container reconfiguration completed successfully!');
        expect(state()[row.containerId].replicas).toBe(1);
        await expectFoundAndDeleted(row.id, 'running');
      });
    }
  }

  for (const [who, kills] of [['Manager\'s server', 'parent'], ['the adapter', 'self']]) {
    for (const [step, die] of DELETE_STEPS) {
      test(`delete: ${who} killed ${step}: the row stays with its provider ID, and DELETE again deletes it`, async () => {
        const row = await runningRow();
        plan({ ...die, who: kills });
        const first = await deleteInServer(tmp, site.id, row.id, ownerKey);
        if (kills === 'parent') expect(first.signal).toBe('SIGKILL');
        else {
          expect(first.status).toBe(503);
          expect(first.body.error.message).toMatch(/\(Interrupted: the adapter was killed by signal 9 \(SIGKILL\)/);
        }
        await expectFoundAndDeleted(row.id, 'running');
      });
    }
  }

  test('delete: Manager\'s server killed after the node-side delete: the row stays; DELETE again finds it already gone', async () => {
    const row = await runningRow();
    plan({ command: 'delete', at: 'written', who: 'parent' });
    const first = await deleteInServer(tmp, site.id, row.id, ownerKey);
    expect(first.signal).toBe('SIGKILL');
    const kept = await load(row.id);
    expect(kept.containerId).toBe(`apps/${row.hostname}`);
    expect((await computeContainerState({ container: kept, Job })).status).toBe('missing');
    const gone = await request(app).delete(url(`/${row.id}`)).set(...bearer(ownerKey));
    expect(gone.status).toBe(200);
    expect(await Container.findByPk(row.id)).toBeNull();
  });
});
