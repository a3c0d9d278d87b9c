/**
 * A Kubernetes container whose create job failed after its apply (issue 31): its JSON carries
 * the node type, the failed job's headline and `canRetryCreate`, so the page can say why
 * beside "Running" and offer "Retry create"; the retry route re-queues the same job for the
 * same row (409 once it is not failed, and on node types whose create does not converge).
 * Status comes from a stand-in adapter (KUBECTL_ADAPTER) answering `list`.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const request = require('supertest');
const { buildApp, bearer } = require('../../../../tests/helpers/app');
const { resetDb, closeDb, createUser, createApiKey } = require('../../../../tests/helpers/db');
const { Container, Job, JobStatus, Node, Site } = require('../../../../models');

const PROVIDER_ID = 'apps/web-old';
// Someone ran `kubectl set image` on it: the adapter's `list` says so (docs/lifecycle.md).
const CHANGE = { what: 'image', change: 'changed', path: 'spec.template.spec.containers[name=main].image', name: null, by: ['kubectl-set'], value: 'nginx:1.28' };
const DRIFT = { state: 'drifted', changes: [CHANGE], summary: 'image changed to nginx:1.28 by kubectl-set', restored: [] };

function standInAdapter(dir) {
  const file = path.join(dir, 'kubectl-adapter');
  const running = {
    providerId: PROVIDER_ID, name: 'web-old', namespace: 'apps', status: 'running', message: '1/1 available',
    containerId: 'PLACEHOLDER', nodeId: 'PLACEHOLDER', replicas: 1, readyReplicas: 1, ipv4Address: '10.244.0.5', ephemeralIp: true, drift: DRIFT,
  };
  fs.writeFileSync(file, `#!${process.execPath}
const argv = process.argv.slice(2);
require('fs').appendFileSync(${JSON.stringify(path.join(dir, 'calls.log'))}, JSON.stringify(argv) + '\\n');
if (argv.includes('delete')) {
  const id = argv[argv.indexOf('delete') + 1];
  process.stdout.write(JSON.stringify({ providerId: id, deleted: false, alreadyMissing: true }));
  process.exit(0);
}
if (argv.includes('list')) { process.stdout.write(JSON.stringify({ items: [${JSON.stringify(running)}] })); process.exit(0); }
process.stdout.write(JSON.stringify({ error: { type: 'InternalError', message: 'unplanned ' + argv.join(' ') } }));
process.exit(1);
`, { mode: 0o755 });
  return file;
}

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('a Kubernetes container whose create failed after its apply', () => {
  let app;
  let ownerKey;
  let site;
  let tmp;
  let row;
  let failedJob;

  beforeAll(async () => {
    await resetDb();
    app = buildApp();
    await createUser({ uid: 'first-admin' });
    const owner = await createUser({ uid: 'alice' });
    ownerKey = (await createApiKey(owner, 'key')).plainKey;
    site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-containers-'));
    process.env.KUBECTL_ADAPTER = standInAdapter(tmp);
    const node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', siteId: site.id });
    failedJob = await Job.create({ command: 'node bin/create-container.js --container-id=1', status: 'failure' });
    await JobStatus.create({ jobId: failedJob.id, output: 'Creating container web-old on k8s-1\n' });
    await JobStatus.create({ jobId: failedJob.id, output: 'Container creation failed: pods is forbidden: User "old" cannot watch resource "pods"\nError type: Forbidden, retryable: false\n' });
    row = await Container.create({
      hostname: 'web-old', username: 'alice', template: 'nginx:latest', nodeId: node.id, siteId: site.id,
      containerId: PROVIDER_ID, creationJobId: failedJob.id,
    });
  });

  afterAll(async () => {
    delete process.env.KUBECTL_ADAPTER;
    fs.rmSync(tmp, { recursive: true, force: true });
    await closeDb();
  });

  const url = (suffix = '') => `/api/v1/sites/${site.id}/containers${suffix}`;

  test('the JSON says Running, the node type, the failed job\'s headline, the drift, and offers the retry', async () => {
    const list = await request(app).get(url()).set(...bearer(ownerKey));
    expect(list.status).toBe(200);
    const shown = list.body.data.find((c) => c.id === row.id);
    expect(shown).toMatchObject({
      status: 'running', nodeType: 'kubernetes', canRetryCreate: true,
      creationJob: { id: failedJob.id, status: 'failure', headline: 'Container creation failed: pods is forbidden: User "old" cannot watch resource "pods"' },
    });
    expect(shown.drift).toEqual({ state: 'drifted', summary: DRIFT.summary, changes: [CHANGE] });
    const one = await request(app).get(url(`/${row.id}`)).set(...bearer(ownerKey));
    expect(one.body.data.creationJob.headline).toBe(shown.creationJob.headline);
    expect(one.body.data.drift).toEqual(shown.drift);
  });

  test('retry-create queues the same job for the same row; a second retry is refused', async () => {
    const retry = await request(app).post(url(`/${row.id}/retry-create`)).set(...bearer(ownerKey));
    expect(retry.status).toBe(201);
    const job = await Job.findByPk(retry.body.data.jobId);
    expect([job.command, job.status]).toEqual([`node bin/create-container.js --container-id=${row.id}`, 'pending']);
    await row.reload();
    expect(row.creationJobId).toBe(job.id);
    const shown = (await request(app).get(url(`/${row.id}`)).set(...bearer(ownerKey))).body.data;
    expect(shown).toMatchObject({ canRetryCreate: false, creationJob: { id: job.id, status: 'pending', headline: null } });
    const again = await request(app).post(url(`/${row.id}/retry-create`)).set(...bearer(ownerKey));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('create_not_failed');
  });

  test('a node type whose create does not converge has no retry', async () => {
    const pve = await Node.create({ name: 'pve-1', nodeType: 'dummy', siteId: site.id });
    const job = await Job.create({ command: 'node bin/create-container.js --container-id=9', status: 'failure' });
    const guest = await Container.create({ hostname: 'guest', username: 'alice', nodeId: pve.id, siteId: site.id, creationJobId: job.id });
    const retry = await request(app).post(url(`/${guest.id}/retry-create`)).set(...bearer(ownerKey));
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('retry_unsupported');
    const shown = (await request(app).get(url(`/${guest.id}`)).set(...bearer(ownerKey))).body.data;
    expect(shown.drift).toBeNull();
  });

  test('PUT restore queues the reconfigure job and keeps env and entrypoint; restart asks a Kubernetes node to roll out', async () => {
    await row.update({ environmentVars: JSON.stringify({ MODE: 'prod' }), entrypoint: 'nginx -g "daemon off;"' });
    const restore = await request(app).put(url(`/${row.id}`)).set(...bearer(ownerKey)).send({ restore: true });
    expect(restore.status).toBe(200);
    const restoreJob = await Job.findByPk(restore.body.data.jobId);
    expect(restoreJob.command).toBe(`node bin/reconfigure-container.js --container-id=${row.id}`);
    await row.reload();
    expect([row.environmentVars, row.entrypoint]).toEqual([JSON.stringify({ MODE: 'prod' }), 'nginx -g "daemon off;"']);
    const restart = await request(app).put(url(`/${row.id}`)).set(...bearer(ownerKey)).send({ restart: 'true' });
    expect((await Job.findByPk(restart.body.data.jobId)).command).toBe(`node bin/reconfigure-container.js --container-id=${row.id} --restart=true`);
  });

  test('a restore whose job failed: the list and the container say so with its headline until a newer reconfigure job succeeds', async () => {
    const restoreJob = await Job.create({ command: `node bin/reconfigure-container.js --container-id=${row.id}`, status: 'failure' });
    await JobStatus.create({ jobId: restoreJob.id, output: `Reconfiguring container ${row.hostname}\n` });
    await JobStatus.create({ jobId: restoreJob.id, output: 'Container reconfiguration failed: rollout of apps/web-old cannot succeed: CrashLoopBackOff | next step: kubectl logs web-old-1 -c main --previous -n apps\nError type: RolloutFailed, retryable: false\n' });
    // Another container's job (its ID begins with this one's) is not this one's.
    await Job.create({ command: `node bin/reconfigure-container.js --container-id=${row.id}0 --restart=true`, status: 'success' });
    const headline = 'Container reconfiguration failed: rollout of apps/web-old cannot succeed: CrashLoopBackOff | next step: kubectl logs web-old-1 -c main --previous -n apps';
    const listed = (await request(app).get(url()).set(...bearer(ownerKey))).body.data.find((c) => c.id === row.id);
    expect(listed.failedReconfigureJob).toEqual({ id: restoreJob.id, status: 'failure', headline });
    const one = (await request(app).get(url(`/${row.id}`)).set(...bearer(ownerKey))).body.data;
    expect(one.failedReconfigureJob).toEqual(listed.failedReconfigureJob);
    await Job.create({ command: `node bin/reconfigure-container.js --container-id=${row.id} --restart=true`, status: 'success' });
    const after = (await request(app).get(url()).set(...bearer(ownerKey))).body.data.find((c) => c.id === row.id);
    expect(after.failedReconfigureJob).toBeNull();
  });

  test('DELETE keeps the row when the node cannot say what it deleted (502), even with a non-admin ?force=true', async () => {
    for (const suffix of [`/${row.id}`, `/${row.id}?force=true`]) {
      const gone = await request(app).delete(url(suffix)).set(...bearer(ownerKey));
      expect(gone.status).toBe(502);
      expect(gone.body.error.code).toBe('node_delete_failed');
    }
    expect(await Container.findByPk(row.id)).not.toBeNull();
  });

  test('DELETE of a row that never got its provider ID deletes the Deployment the row implies', async () => {
    const node = await Node.findOne({ where: { name: 'k8s-1' } });
    const orphan = await Container.create({ hostname: 'web-new', username: 'alice', template: 'nginx:latest', nodeId: node.id, siteId: site.id });
    const gone = await request(app).delete(url(`/${orphan.id}`)).set(...bearer(ownerKey));
    expect(gone.status).toBe(200);
    expect(await Container.findByPk(orphan.id)).toBeNull();
    const calls = fs.readFileSync(path.join(tmp, 'calls.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const del = calls.find((argv) => argv.includes('delete'));
    expect(del.slice(del.indexOf('delete'))).toEqual(['delete', 'apps/web-new', '--container-id', String(orphan.id)]);
  });

  test('PUT restart and DELETE on another node type keep today\'s job command and outcome', async () => {
    const dummy = await Node.create({ name: 'dummy-2', nodeType: 'dummy', siteId: site.id });
    const guest = await Container.create({ hostname: 'guest2', username: 'alice', nodeId: dummy.id, siteId: site.id, containerId: '100123' });
    const restart = await request(app).put(url(`/${guest.id}`)).set(...bearer(ownerKey)).send({ restart: true });
    expect(restart.status).toBe(200);
    expect((await Job.findByPk(restart.body.data.jobId)).command).toBe(`node bin/reconfigure-container.js --container-id=${guest.id}`);
    // and its DELETE is today's: the row goes
    expect((await request(app).delete(url(`/${guest.id}`)).set(...bearer(ownerKey))).status).toBe(200);
    expect(await Container.findByPk(guest.id)).toBeNull();
  });
});
