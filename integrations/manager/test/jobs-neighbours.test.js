'use strict';
// What the change list must leave as it is for Manager's other node types, and what it must
// not touch for a Kubernetes one: NetBox records it never made, containers already gone on a
// Docker or Proxmox node, POST /containers beside a Proxmox node whose API is down, and the
// job flags Manager's parseArgs accepts (testing/manager-sim.js with testing/other-nodes.js
// and testing/netbox-stub.js).

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');

const KubernetesApi = require('../kubernetes-api');
const { RouteError, parseArgs } = require('../testing/manager-sim');
const { DOCKER_CAPABILITIES, PROXMOX_CAPABILITIES } = require('../testing/other-nodes');
const { Scenario } = require('../testing/scenario');

const NS = 'neighbourns';
const STEP = { timeout: 120_000 };
const scenario = new Scenario(NS);
let manager;

before(async () => {
  await scenario.start();
  ({ manager } = scenario);
});
after(() => scenario.stop());

/** A row of a Docker or Proxmox container, as its (non-simulated) create job would leave it. */
function provisioned(nodeId, siteId, hostname, containerId) {
  return manager.containers.insert({ hostname, template: 'debian-12', username: 'bob', nodeId, siteId, containerId, environmentVars: null, entrypoint: null });
}

test('deleting a Kubernetes container leaves NetBox alone; a Docker container\'s record still goes', STEP, async () => {
  // Another machine called web-1 is registered in NetBox; Manager never registered its own.
  scenario.netbox.add('web-1', 'a physical host, not Manager\'s');
  const { row, job } = await scenario.createAndRun({ hostname: 'web-1', template: 'docker.io/library/nginx:latest' });
  assert.equal(job.status, 'success', String(job.error));
  assert.deepEqual(await manager.deleteContainer(row.id), { status: 200, deleted: true });
  assert.deepEqual(scenario.netbox.names(), ['web-1']);
  assert.deepEqual(scenario.netbox.requests, [], 'no NetBox call for a node type that does not register there');
  await scenario.assertNoOrphans();

  // A Docker node registers in NetBox, so deleting its container still removes the record.
  scenario.docker.set('d0c4e1', { hostname: 'dock-1' });
  scenario.netbox.add('dock-1');
  const docker = provisioned(21, 2, 'dock-1', 'd0c4e1');
  assert.deepEqual(await manager.deleteContainer(docker.id), { status: 200, deleted: true });
  assert.equal(scenario.docker.size, 0);
  assert.deepEqual(scenario.netbox.names(), ['web-1']);
});

test('a Docker or Proxmox container already gone is deleted as today: 200 and the row goes', STEP, async () => {
  const docker = provisioned(21, 2, 'gone-d', 'ffff00');
  assert.deepEqual(await manager.deleteContainer(docker.id), { status: 200, deleted: true });
  assert.equal(manager.containers.rows.has(docker.id), false);
  assert.match(manager.nodeLog[0], /status code 404/);

  const pve = provisioned(22, 2, 'gone-p', '105');
  assert.deepEqual(await manager.deleteContainer(pve.id), { status: 200, deleted: true });
  assert.equal(manager.containers.rows.has(pve.id), false);
  assert.match(manager.nodeLog[0], /status code 500/);

  // A Kubernetes container already gone is an answer (alreadyMissing), not a failure.
  const { row } = await scenario.createAndRun({ hostname: 'gone-k', template: 'docker.io/library/nginx:latest' });
  await (await manager.nodeApi(scenario.k8s)).deleteContainer('k8s-1', row.containerId, true, true, { containerId: row.id });
  manager.calls.length = 0;
  assert.deepEqual(await manager.deleteContainer(row.id), { status: 200, deleted: true });
  assert.deepEqual(manager.calls, ['lxcConfig', 'deleteContainer']);
  assert.deepEqual(manager.nodeLog, []);
  await scenario.assertNoOrphans();
});

test('a Kubernetes node that cannot be reached keeps the row; an admin may force it', STEP, async () => {
  const { row } = await scenario.createAndRun({ hostname: 'kept', template: 'docker.io/library/nginx:latest' });
  await scenario.cluster.down();
  try {
    const refused = await manager.deleteContainer(row.id).catch((e) => e);
    assert.ok(refused instanceof RouteError, String(refused));
    assert.equal(refused.status, 503);
    assert.equal(refused.code, 'node_delete_failed');
    assert.ok(manager.containers.rows.has(row.id));
    assert.deepEqual(await manager.deleteContainer(row.id, { force: true, admin: true }), { status: 200, deleted: true });
    assert.match(manager.nodeLog[0], /refused/);
  } finally {
    await scenario.cluster.up();
  }
  // Forced: the row is gone and the Deployment is left, as the admin chose (cleaned here).
  await scenario.cluster.control({ op: 'clearFaults' });
  await (await manager.nodeApi(scenario.k8s)).deleteContainer('k8s-1', `${NS}/kept`, true, true, { containerId: row.id });
  await scenario.assertNoOrphans();
});

test('POST /containers beside a password-login Proxmox node whose API is down: 201, no login', STEP, async () => {
  const { status, row, job } = await manager.postContainer({ hostname: 'pw-1', template: 'debian-12', siteId: 3 });
  assert.equal(status, 201);
  assert.equal(row.nodeId, 23);
  assert.equal(job.status, 'pending');
  assert.equal(manager.logins, 0, 'capabilities need no node.api() (which logs in)');
  // The login does fail there: only a route that really needs the node calls node.api().
  await assert.rejects(manager.nodeApi(manager.node(23)), /Authentication failed/);
  assert.equal(manager.logins, 1);
});

test('capabilities come from the node type, for every client; services need a stable IP', async () => {
  assert.deepEqual(manager.nodeCapabilities(manager.node(7)), KubernetesApi.capabilities());
  assert.deepEqual(manager.nodeCapabilities(manager.node(21)), { ...DOCKER_CAPABILITIES });
  assert.deepEqual(manager.nodeCapabilities(manager.node(22)), { ...PROXMOX_CAPABILITIES });
  assert.deepEqual(Object.keys(DOCKER_CAPABILITIES).sort(), Object.keys(KubernetesApi.capabilities()).sort());
  const refused = await manager.postContainer({ hostname: 'svc', template: 'nginx', services: [{ type: 'http', internalPort: 80 }] }).catch((e) => e);
  assert.ok(refused instanceof RouteError && refused.status === 400 && refused.code === 'services_unsupported_on_node', String(refused));
  const dns = await manager.postContainer({ hostname: 'svc', template: 'nginx', services: [{ type: 'srv', internalPort: 53 }] });
  assert.equal(dns.status, 201);
  dns.row.destroy();
});

test('Manager\'s parseArgs keeps only --key=value: the restart flag is --restart=true', async () => {
  assert.deepEqual(parseArgs(['--container-id=3', '--restart']), { 'container-id': '3' });
  assert.deepEqual(parseArgs(['--container-id=3', '--restart=true']), { 'container-id': '3', restart: 'true' });
  const row = manager.containers.insert({ hostname: 'flag', template: 'nginx', username: 'bob', nodeId: 7, siteId: 1, containerId: `${NS}/flag` });
  const job = await manager.putContainer(row.id, { restart: true });
  assert.match(job.command, / --restart=true$/);
  row.destroy();
});

test('a Proxmox restart behaves as today: live without stop/start when no env is set, stop/start when it is', async () => {
  // Today the route never passes a restart flag and the job restarts a Proxmox container only
  // for rootfs or env/entrypoint values. The Kubernetes change must not alter that.
  scenario.pve.set('120', { hostname: 'pve-live', status: 'running' });
  const row = provisioned(22, 2, 'pve-live', '120');
  const defaults = manager.containers.systemDefaultEnv;
  manager.containers.systemDefaultEnv = {};
  try {
    const live = await manager.run(await manager.putContainer(row.id, { restart: true }));
    assert.equal(live.command, `node bin/reconfigure-container.js --container-id=${row.id}`);
    assert.equal(live.status, 'success', String(live.error));
    assert.deepEqual(live.calls, ['updateLxcConfig', 'getLxcStatus']);
    assert.deepEqual(scenario.pve.get('120').config, { delete: 'env,entrypoint' });

    const restarted = await manager.run(await manager.putContainer(row.id, { environmentVars: { A: '1' }, restart: true }));
    assert.equal(restarted.status, 'success', String(restarted.error));
    assert.deepEqual(restarted.calls, [
      'updateLxcConfig', 'getLxcStatus', 'stopLxc', 'waitForTask', 'startLxc', 'waitForTask', 'getLxcMacAddress', 'getLxcIpAddress',
    ]);
    assert.equal(row.ipv4Address, '10.0.0.120');
  } finally {
    manager.containers.systemDefaultEnv = defaults;
  }
  // The retry route is for node types whose create converges; a Proxmox create does not.
  const refused = await manager.retryCreate(row.id).catch((e) => e);
  assert.ok(refused instanceof RouteError && refused.status === 409 && refused.code === 'retry_unsupported', String(refused));
  await manager.deleteContainer(row.id);
});
