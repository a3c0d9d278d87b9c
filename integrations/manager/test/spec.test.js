'use strict';
// Pure translation between Manager's shapes and the adapter's spec and snapshots.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const spec = require('../lib/spec');
const { InvalidInputError } = require('../lib/errors');

test('task strings carry the provider ID like Docker tasks carry a container ID', () => {
  const task = spec.task('create', 'ns/web-1');
  assert.equal(task, 'kubernetes:create:ns/web-1');
  assert.equal(spec.providerIdOfTask(task), 'ns/web-1');
  assert.equal(spec.providerIdOfTask('docker:create:abc'), null);
  assert.equal(spec.providerIdOfTask('UPID:pve:0001:vzcreate'), null);
  assert.equal(spec.providerIdOfTask('kubernetes:create'), null);
  assert.equal(spec.providerIdOfTask(null), null);
});

test('parseEnv reads the NUL-separated string, JSON objects and empty values', () => {
  assert.deepEqual(spec.parseEnv('A=1\0B=x=y\0\0bad'), { A: '1', B: 'x=y' });
  assert.deepEqual(spec.parseEnv({ A: 1, B: true }), { A: '1', B: 'true' });
  assert.deepEqual(spec.parseEnv(undefined), {});
  assert.deepEqual(spec.parseEnv(''), {});
  assert.throws(() => spec.parseEnv(['A=1']), InvalidInputError);
});

test('recordEnv: user values over NVIDIA defaults, JSON errors are typed', () => {
  assert.deepEqual(spec.recordEnv({ environmentVars: '{"A":"1"}', nvidiaRequested: false }), { A: '1' });
  assert.deepEqual(
    spec.recordEnv({ environmentVars: '{"NVIDIA_VISIBLE_DEVICES":"0"}', nvidiaRequested: true }),
    { NVIDIA_VISIBLE_DEVICES: '0', NVIDIA_DRIVER_CAPABILITIES: 'utility compute' },
  );
  assert.deepEqual(spec.recordEnv({ environmentVars: null }), {});
  assert.throws(() => spec.recordEnv({ id: 3, environmentVars: '{' }), InvalidInputError);
});

test('createSpec: Manager create options to the adapter spec; LXC-only keys dropped', () => {
  const options = {
    vmid: null, hostname: 'web-1', image: 'docker.io/library/nginx:latest', cores: 2, memory: 512,
    swap: 0, tags: 'alice', net0: 'name=eth0', env: 'A=1\0B=2', entrypoint: "  nginx -g 'daemon off;' ", containerId: 42,
  };
  assert.deepEqual(spec.createSpec(7, options), {
    containerId: '42', nodeId: '7', hostname: 'web-1', image: 'docker.io/library/nginx:latest',
    cpus: 2, memoryMb: 512, env: { A: '1', B: '2' }, entrypoint: "nginx -g 'daemon off;'",
  });
  const { entrypoint, ...withoutEntrypoint } = options;
  assert.equal('entrypoint' in spec.createSpec(7, { ...withoutEntrypoint, entrypoint: '  ' }), false);
  for (const field of ['containerId', 'hostname', 'image', 'cores', 'memory']) {
    assert.throws(() => spec.createSpec(7, { ...options, [field]: undefined }), (e) => e instanceof InvalidInputError && e.details.field === field);
  }
  assert.throws(() => spec.createSpec(null, options), InvalidInputError);
});

test('splitDelta keeps Pod keys, ignores LXC-only keys, refuses unknown ones', () => {
  assert.deepEqual(spec.splitDelta({ env: 'A=1', cores: 2, swap: 0, tags: 'bob', delete: 'entrypoint,mp0' }), {
    pod: { env: 'A=1', cores: 2 }, deleted: ['entrypoint', 'mp0'], ignored: ['swap', 'tags'],
  });
  assert.ok(spec.deltaIsEmpty(spec.splitDelta({ tags: 'bob' })));
  assert.ok(spec.deltaIsEmpty(spec.splitDelta({ rootfs: 'local-lvm:60', delete: 'mp0' })));
  assert.ok(!spec.deltaIsEmpty(spec.splitDelta({ delete: 'env' })));
  assert.throws(() => spec.splitDelta({ color: 'blue' }), (e) => e instanceof InvalidInputError && e.details.field === 'color');
  assert.throws(() => spec.splitDelta({ delete: 'color' }), InvalidInputError);
});

const container = { id: 42, hostname: 'web-1', template: 'docker.io/library/nginx:latest' };
const current = { cpus: 1, memoryMb: 256, image: 'docker.io/library/nginx:latest' };
const base = { env: { TZ: 'UTC', A: '1' }, entrypoint: 'nginx' };

function reconfigure(config) {
  return spec.reconfigureSpec({ nodeId: 7, container, current, base, delta: spec.splitDelta(config) });
}

test('reconfigureSpec: a resources-only delta keeps env and entrypoint from the record', () => {
  assert.deepEqual(reconfigure({ memory: 1024 }), {
    containerId: '42', nodeId: '7', hostname: 'web-1', image: 'docker.io/library/nginx:latest',
    cpus: 1, memoryMb: 1024, env: { TZ: 'UTC', A: '1' }, entrypoint: 'nginx',
  });
});

test('reconfigureSpec: an env delta replaces env and keeps resources from the Deployment', () => {
  assert.deepEqual(reconfigure({ env: 'B=2', entrypoint: 'httpd -f' }), {
    containerId: '42', nodeId: '7', hostname: 'web-1', image: 'docker.io/library/nginx:latest',
    cpus: 1, memoryMb: 256, env: { B: '2' }, entrypoint: 'httpd -f',
  });
});

test('reconfigureSpec: `delete` clears env and entrypoint (the image default runs)', () => {
  const body = reconfigure({ delete: 'env,entrypoint', cores: 3 });
  assert.deepEqual(body.env, {});
  assert.equal('entrypoint' in body, false);
  assert.equal(body.cpus, 3);
});

test('reconfigureSpec: resources unknown everywhere is a typed error, not a guess', () => {
  assert.throws(
    () => spec.reconfigureSpec({ nodeId: 7, container, current: { cpus: null, memoryMb: 256 }, base, delta: spec.splitDelta({ env: 'A=1' }) }),
    (e) => e instanceof InvalidInputError && /cores/.test(e.message),
  );
});

test('lxcState: Proxmox words for getLxcStatus', () => {
  assert.equal(spec.lxcState({ replicas: 1, status: 'running' }), 'running');
  assert.equal(spec.lxcState({ replicas: 0, status: 'offline' }), 'stopped');
  assert.equal(spec.lxcState({ replicas: 1, status: 'creating' }), 'creating');
  assert.equal(spec.lxcState({ replicas: 1, status: 'failed' }), 'failed');
});

test('toClusterResource: vmid is the provider ID; managerStatus keeps the finer answer', () => {
  const snapshot = {
    providerId: 'ns/web-1', name: 'web-1', status: 'failed', message: 'ImagePullBackOff',
    ipv4Address: null, containerId: '42',
  };
  assert.deepEqual(spec.toClusterResource(snapshot, 'k8s-1'), {
    vmid: 'ns/web-1', name: 'web-1', type: 'lxc', status: 'stopped', node: 'k8s-1',
    managerStatus: 'failed', message: 'ImagePullBackOff', ipv4Address: null, ephemeralIp: true, containerId: '42',
    drift: { state: 'unknown', summary: '', changes: [], restored: [] },
  });
  assert.equal(spec.toClusterResource({ ...snapshot, status: 'running' }, 'k8s-1').status, 'running');
});

test('toLxcConfig: hostname is the Deployment name', () => {
  assert.deepEqual(spec.toLxcConfig({ name: 'web-1', cpus: 0.5, memoryMb: 64, image: 'nginx', status: 'missing' }), {
    hostname: 'web-1', cores: 0.5, memory: 64, image: 'nginx', rootfs: null, net0: null, status: 'missing',
    drift: { state: 'unknown', summary: '', changes: [], restored: [] },
  });
});

test('toDrift: the snapshot\'s drift as Manager shows it', () => {
  const change = {
    what: 'image', change: 'changed', path: 'spec.template.spec.containers[name=main].image',
    name: null, by: ['kubectl-edit'], value: 'nginx:1.28',
  };
  const drift = {
    state: 'drifted', changes: [change], summary: 'image changed to nginx:1.28 by kubectl-edit', restored: [],
  };
  assert.deepEqual(spec.toDrift(drift), drift);
  assert.equal(spec.toClusterResource({ providerId: 'ns/w', drift }, 'k8s-1').drift.summary, drift.summary);
  assert.deepEqual(spec.toDrift(undefined), { state: 'unknown', summary: '', changes: [], restored: [] });
});
