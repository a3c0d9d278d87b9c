'use strict';
// A node whose namespace is called "deployment": kubectl would read `deployment/web-7` as a
// type and a name, so the client passes every provider ID under --provider-ids
// (lib/adapter-cli.js), and the lifecycle works against the real adapter and kubectl.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');

const KubernetesApi = require('../kubernetes-api');
const { FakeCluster } = require('../testing/cluster');

const NS = 'deployment';
const PID = `${NS}/web-7`;
const cluster = new FakeCluster(NS);

before(async () => { await cluster.start(); });
after(async () => { await cluster.stop(); });

test('create, status, stop and delete in a namespace called deployment', { timeout: 120_000 }, async () => {
  const api = new KubernetesApi(cluster.node(), cluster.clientOptions());
  const task = await api.createLxc('k8s-1', {
    vmid: null, hostname: 'web-7', image: 'nginx:latest', cores: 0.1, memory: 64, swap: 0,
    tags: '', env: '', containerId: 7,
  });
  assert.equal(task, `kubernetes:create:${PID}`);
  const running = await api.status(PID);
  assert.equal(running.status, 'running');
  assert.equal(running.providerId, PID);
  assert.equal(await api.stopLxc('k8s-1', PID, { containerId: 7 }), `kubernetes:stop:${PID}`);
  assert.equal((await api.status(PID)).status, 'offline');
  const deleted = await api.deleteContainer('k8s-1', PID, false, false, { containerId: 7 });
  assert.equal(deleted.providerId, PID);
  assert.equal(deleted.deleted, true);
  assert.equal((await api.status(PID)).status, 'missing');
});
