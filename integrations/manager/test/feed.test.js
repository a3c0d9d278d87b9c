'use strict';
// The node feed (lib/feed.js) through the client, against a stand-in adapter that prints the
// feed's lines as each test says (manager-files/.../fake-feed-adapter.js): every lifecycle
// transition, what a read costs in processes, and that nothing outlives the node or the server.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const { once } = require('node:events');

const KubernetesApi = require('../kubernetes-api');
const { FeedRegistry, NodeFeed, applyEvent, compact } = require('../lib/feed');
const errors = require('../lib/errors');

const FIXTURES = path.join(__dirname, '..', 'manager-files', 'create-a-container', 'utils', 'kubernetes', '__tests__');
const { FakeFeeds, snapshot } = require(path.join(FIXTURES, 'fake-feed-control.js'));

const NODE = { id: 7, name: 'k8s-1', kubeNamespace: 'apps', kubeconfigPath: '/etc/k8s/a.kubeconfig', kubeContext: 'a' };
const SYNCED = { type: 'SYNCED', snapshot: null };
const added = (s) => ({ type: 'ADDED', snapshot: s });

let fakes;
test.before(async () => {
  fakes = new FakeFeeds();
  await fakes.listen();
});
test.after(() => fakes.close());

function setup(options = {}, node = NODE) {
  const feeds = new FeedRegistry({ backoffMs: [20, 40], maxRestarts: 2, ...options }).enable();
  const api = new KubernetesApi(node, { command: fakes.command, feeds });
  return { feeds, api };
}

/** The state the feed reaches next (or is in already). */
function reach(feed, state) {
  return feed.state === state ? Promise.resolve() : once(feed, state);
}

test('applyEvent keeps per workload only what a status answer needs, and drops it on DELETED', () => {
  const map = new Map();
  const full = snapshot('apps/web', 'running', { env: { SECRET_LOOKING: 'x'.repeat(1000) }, pods: [{ name: 'p' }], labels: { a: 'b' } });
  assert.equal(applyEvent(map, added(full)), null);
  assert.deepEqual(Object.keys(map.get('apps/web')).sort(), ['containerId', 'drift', 'ipv4Address', 'message', 'name', 'providerId', 'status']);
  assert.equal(applyEvent(map, SYNCED), 'synced');
  applyEvent(map, { type: 'DELETED', snapshot: snapshot('apps/web', 'missing') });
  assert.equal(map.size, 0);
  assert.deepEqual(compact(full).drift, { state: 'in-sync', summary: '', changes: [], restored: [] });
});

test('synced: reads come from the feed and start no process; before SYNCED they are lists', async () => {
  const { feeds, api } = setup();
  fakes.setList([snapshot('apps/web', 'offline')]);
  const before = fakes.starts().length;
  const first = await api.clusterResources('lxc'); // starts the feed, answers with a list
  assert.equal(first[0].source, 'list');
  assert.equal(first[0].managerStatus, 'offline');
  const proc = await fakes.next();
  assert.deepEqual(proc.argv.slice(-6), ['-v', 'list', '-w', '-o', 'json', '--exit-with-parent']);
  assert.ok(proc.argv.includes('--kubeconfig') && proc.argv.includes('--node-id'));
  await proc.line(added(snapshot('apps/web')));
  assert.equal((await api.clusterResources('lxc'))[0].source, 'list', 'not before SYNCED');
  const feed = feeds.get(7);
  await proc.line(SYNCED);
  await reach(feed, 'synced');
  const starts = fakes.starts().length;
  for (let i = 0; i < 20; i += 1) {
    const [web] = await api.clusterResources('lxc');
    assert.equal(web.source, 'feed');
    assert.equal(web.managerStatus, 'running');
  }
  assert.equal((await api.liveStatus('apps/web')).source, 'feed');
  assert.equal(fakes.starts().length, starts, 'no process started by 21 reads once synced');
  assert.equal(starts - before, 3, 'the feed and the two lists before its SYNCED');
  // A change is in the next answer; a workload the feed never gave is missing.
  // proc.line resolves once the stand-in printed it; the feed applies it when it reads it.
  let changed = once(feed, 'change');
  await proc.line({ type: 'MODIFIED', snapshot: snapshot('apps/web', 'failed', { message: 'CrashLoopBackOff' }) });
  await changed;
  assert.equal((await api.clusterResources('lxc'))[0].managerStatus, 'failed');
  const other = await api.liveStatus('apps/other');
  assert.deepEqual([other.status, other.source], ['missing', 'feed']);
  changed = once(feed, 'change');
  await proc.line({ type: 'DELETED', snapshot: snapshot('apps/web', 'missing') });
  await changed;
  const none = await api.clusterResources('lxc');
  assert.deepEqual([none.length, none.source], [0, 'feed']);
  await feeds.stopAll();
  await proc.closed;
  assert.equal(proc.alive(), false);
});

test('broken inside the adapter: a watch that broke off sends reads to list until the next SYNCED', async () => {
  const { feeds, api } = setup();
  fakes.setList([snapshot('apps/web', 'unknown', { message: 'Unavailable: the API server is down' })]);
  api.feeds.ensure(api);
  const proc = await fakes.next();
  const feed = feeds.get(7);
  await proc.line(added(snapshot('apps/web')));
  await proc.line(SYNCED);
  await reach(feed, 'synced');
  await proc.stderr('# a watch broke off: watching again');
  await reach(feed, 'starting');
  const during = await api.clusterResources('lxc');
  assert.deepEqual([during[0].source, during[0].managerStatus], ['list', 'unknown']);
  await proc.line(SYNCED);
  await reach(feed, 'synced');
  assert.equal((await api.clusterResources('lxc'))[0].source, 'feed');
  await feeds.stopAll();
});

test('broken, restarting: an ended feed falls back to list, starts again after its backoff, and forgets what the new one does not give', async () => {
  const { feeds, api } = setup();
  fakes.setList([]);
  feeds.ensure(api);
  const first = await fakes.next();
  const feed = feeds.get(7);
  await first.line(added(snapshot('apps/web')));
  await first.line(added(snapshot('apps/gone')));
  await first.line(SYNCED);
  await reach(feed, 'synced');
  const broken = once(feed, 'broken');
  await first.exit(8, { type: 'Unavailable', message: 'the API server was unreachable for 30 s' });
  const [error] = await broken;
  assert.ok(error instanceof errors.UnavailableError);
  assert.equal(feed.state, 'restarting');
  assert.equal((await api.clusterResources('lxc')).length, 0, 'the list answers while it restarts');
  const second = await fakes.next();
  assert.deepEqual(second.argv, first.argv);
  await second.line(added(snapshot('apps/web', 'offline')));
  await second.line(SYNCED);
  await reach(feed, 'synced');
  const answer = await api.clusterResources('lxc');
  assert.deepEqual(answer.map((r) => [r.vmid, r.managerStatus, r.source]), [['apps/web', 'offline', 'feed']]);
  assert.equal(feed.describe().restarts, 1);
  await feeds.stopAll();
});

test('capped: ends in a row without a SYNCED stop the restarts with the typed error, shown as the node\'s verdict', async () => {
  const { feeds, api } = setup({ maxRestarts: 2 });
  feeds.ensure(api);
  const feed = feeds.get(7);
  const capped = once(feed, 'capped');
  for (let i = 0; i < 3; i += 1) {
    // eslint-disable-next-line no-await-in-loop
    const proc = await fakes.next();
    // eslint-disable-next-line no-await-in-loop
    await proc.exit(5, { type: 'Forbidden', message: 'pods is forbidden: User "u" cannot watch resource "pods"' });
  }
  const [error] = await capped;
  assert.ok(error instanceof errors.ForbiddenError);
  const verdict = feed.describe();
  assert.equal(verdict.state, 'capped');
  assert.deepEqual([verdict.error.name, verdict.error.type], ['ForbiddenError', 'Forbidden']);
  assert.equal(fakes.connected.length, 0, 'no fourth start');
  fakes.setList([snapshot('apps/web')]);
  assert.equal((await api.clusterResources('lxc'))[0].source, 'list');
  await feeds.stopAll();
});

test('silent longer than its bound: the feed is not trusted, is ended and started again', async () => {
  const { feeds, api } = setup({ silenceMs: 3000 });
  fakes.setList([snapshot('apps/web', 'offline')]);
  feeds.ensure(api);
  const first = await fakes.next();
  const feed = feeds.get(7);
  // Listened for before the lines: on a loaded machine the silence may end the feed before this
  // test would otherwise start listening (it hung there beside a second copy of the suite).
  const broken = once(feed, 'broken');
  let wasSynced = false;
  feed.once('synced', () => { wasSynced = true; });
  await first.line(added(snapshot('apps/web')));
  await first.line(SYNCED);
  const [error] = await broken; // killed for its silence
  assert.ok(wasSynced, 'it was synced, then silent');
  assert.ok(error instanceof errors.UnavailableError);
  assert.match(error.message, /said nothing/);
  await first.closed;
  assert.equal((await api.clusterResources('lxc'))[0].source, 'list');
  const second = await fakes.next();
  assert.ok(second.pid !== first.pid);
  await feeds.stopAll();
});

test('node edited: a new kubeconfig, context or namespace restarts the feed; a new waitTimeout does not', async () => {
  const { feeds, api } = setup();
  feeds.ensure(api);
  const first = await fakes.next();
  const feed = feeds.get(7);
  assert.equal(feeds.ensure(new KubernetesApi({ ...NODE, waitTimeout: 120 }, { command: fakes.command, feeds })), feed);
  for (const change of [{ kubeContext: 'b' }, { kubeNamespace: 'other' }, { kubeconfigPath: '/etc/k8s/b.kubeconfig' }]) {
    const before = feeds.get(7);
    // eslint-disable-next-line no-await-in-loop
    const replaced = feeds.ensure(new KubernetesApi({ ...NODE, ...change }, { command: fakes.command, feeds }));
    assert.notEqual(replaced, before);
    assert.equal(before.state, 'stopped');
    // eslint-disable-next-line no-await-in-loop
    const next = await fakes.next();
    const [flag, value] = Object.entries(change)[0];
    const argFlag = { kubeContext: '--context', kubeNamespace: '-n', kubeconfigPath: '--kubeconfig' }[flag];
    assert.equal(next.argv[next.argv.indexOf(argFlag) + 1], value);
  }
  await first.closed;
  assert.equal(first.alive(), false);
  await feeds.stopAll();
});

test('node deleted: its feed ends and its adapter is gone; other nodes keep theirs', async () => {
  const { feeds, api } = setup();
  feeds.ensure(api);
  const mine = await fakes.next();
  feeds.ensure(new KubernetesApi({ ...NODE, id: 8, name: 'k8s-2' }, { command: fakes.command, feeds }));
  const theirs = await fakes.next();
  await feeds.remove(7, { deleted: true });
  await mine.closed;
  assert.equal(mine.alive(), false);
  assert.equal(feeds.get(7), null);
  assert.equal(feeds.ensure(api), null, 'a read still in flight for the deleted node starts no feed');
  assert.equal(theirs.alive(), true);
  await feeds.stopAll();
  assert.equal(theirs.alive(), false);
});

test('shutdown: stopAll ends every feed; a disabled registry starts none', async () => {
  const { feeds, api } = setup();
  feeds.ensure(api);
  const proc = await fakes.next();
  await feeds.stopAll();
  assert.equal(proc.alive(), false);
  const starts = fakes.starts().length;
  fakes.setList([snapshot('apps/web')]);
  assert.equal((await api.clusterResources('lxc'))[0].source, 'list');
  assert.equal(fakes.starts().length, starts + 1, 'the list only: no feed after shutdown');
  const unused = new KubernetesApi(NODE, { command: fakes.command, feeds: new FeedRegistry() });
  assert.equal(unused.feeds.ensure(unused), null);
});

test('SIGKILL of the server: its feed adapter ends with it', async () => {
  // A "server": a process holding one feed, killed with SIGKILL once the feed runs.
  const server = spawn(process.execPath, ['-e', `
    const KubernetesApi = require(${JSON.stringify(path.join(__dirname, '..', 'kubernetes-api.js'))});
    KubernetesApi.feeds.enable();
    const api = new KubernetesApi(${JSON.stringify(NODE)}, { command: ${JSON.stringify(fakes.command)} });
    KubernetesApi.feeds.ensure(api);
    setInterval(() => {}, 1000);
  `], { stdio: 'ignore', env: process.env });
  const serverClosed = once(server, 'close');
  const proc = await fakes.next();
  assert.equal(proc.alive(), true);
  server.kill('SIGKILL');
  await proc.closed; // its stdin closed with the server: it ended
  await serverClosed;
  assert.equal(proc.alive(), false);
});

test('a feed whose adapter cannot be run is broken with a ConfigurationError, then capped', async () => {
  const feed = new NodeFeed({ executable: '/nonexistent/kubectl-adapter', argv: ['list', '-w'], backoffMs: [5], maxRestarts: 1 });
  const capped = once(feed, 'capped');
  feed.start();
  const [error] = await capped;
  assert.ok(error instanceof errors.ConfigurationError);
  await feed.stop();
});
