'use strict';
// The node feed end to end (issue 42): the client, the real adapter's `list -w` and the real
// kubectl against the fake API server. A synced feed answers a containers list with no process
// started; a Pod deleted by hand is in the client's answer within 1 s (or one `list`'s time,
// measured in the same run, if the shared machine is slower than that); editing and deleting
// the node, and SIGKILL of the process holding the feed, leave no adapter or kubectl.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { once } = require('node:events');
const { performance } = require('node:perf_hooks');

const KubernetesApi = require('../kubernetes-api');
const { FeedRegistry } = require('../lib/feed');
const { FakeCluster, adapterCommand } = require('../testing/cluster');

const STEP = { timeout: 120_000 };
const PID = 'feed/web-1';
let cluster;
let wrapper;
let startsLog;

/** An adapter command that logs each start (one line) before it runs the real adapter. */
function countingAdapter(dir) {
  const real = [].concat(adapterCommand());
  const script = path.join(dir, 'counting-adapter');
  startsLog = path.join(dir, 'starts.log');
  const quoted = real.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
  fs.writeFileSync(script, `#!/bin/sh\necho "$*" >> '${startsLog}'\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  return script;
}

const starts = () => (fs.existsSync(startsLog) ? fs.readFileSync(startsLog, 'utf8').split('\n').filter(Boolean).length : 0);

/** The processes whose argv holds `word` (a run's own --cache-dir names its kubectl). */
function processesWith(word, also = '') {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let words;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/^\d+ \(.*\) [ZX]/s.test(stat)) continue; // ended, not yet reaped
      words = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch (e) {
      continue;
    }
    if (words.includes(word) && (!also || words.includes(also))) found.push(Number(entry));
  }
  return found;
}

/** Until no process holds `word` (the processes are not ours to wait on: /proc is looked at). */
async function noneLeft(word, boundMs = 30_000) {
  const deadline = performance.now() + boundMs;
  let left = processesWith(word);
  while (left.length && performance.now() < deadline) {
    // eslint-disable-next-line no-await-in-loop
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = processesWith(word);
  }
  return left;
}

function kubectl(...args) {
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['--kubeconfig', cluster.kubeconfig, '--context', cluster.context, '--cache-dir', cluster.freshCache(), '-n', 'feed', ...args],
      { timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)));
  });
}

function clientWith(feeds, cacheName, node = {}) {
  return new KubernetesApi(cluster.node(node), { command: wrapper, extraArgs: ['--cache-dir', path.join(cluster.tmp, cacheName)], feeds });
}

test.before(async () => {
  cluster = new FakeCluster('feed');
  await cluster.start();
  wrapper = countingAdapter(cluster.tmp);
  const api = new KubernetesApi(cluster.node(), cluster.clientOptions());
  await api.createLxc('k8s-1', { hostname: 'web-1', image: 'nginx:1.27', cores: 0.1, memory: 64, containerId: 42 });
});
test.after(async () => cluster && cluster.stop());

test('synced: a containers list starts no process; a Pod deleted by hand is in the answer within 1 s', STEP, async () => {
  const feeds = new FeedRegistry().enable();
  const api = clientWith(feeds, 'cache-synced');
  // The baseline: what one status read cost before the feed (a `list`), in this run.
  const t0 = performance.now();
  const listed = await api.clusterResources('lxc');
  const listMs = performance.now() - t0;
  assert.equal(listed[0].source, 'list');
  const feed = feeds.get(7);
  if (feed.state !== 'synced') await once(feed, 'synced');
  const before = starts();
  let answer;
  for (let i = 0; i < 50; i += 1) {
    // eslint-disable-next-line no-await-in-loop
    answer = await api.clusterResources('lxc');
    assert.deepEqual(answer.map((r) => [r.vmid, r.managerStatus, r.source]), [[PID, 'running', 'feed']]);
  }
  assert.equal(starts(), before, '50 containers-list reads started no process');
  const [pod] = await cluster.kubectlPods(PID);
  const changed = new Promise((resolve) => {
    feed.on('change', (type, providerId) => { if (providerId === PID) resolve(performance.now()); });
  });
  const asked = performance.now();
  await kubectl('delete', 'pod', pod, '--wait=false');
  const deleted = performance.now(); // the API server has the deletion by now
  const seenAt = await changed;
  const [entry] = await api.clusterResources('lxc');
  assert.equal(entry.source, 'feed');
  assert.notDeepEqual([entry.managerStatus, entry.message, entry.ipv4Address], [answer[0].managerStatus, answer[0].message, answer[0].ipv4Address]);
  const latencyMs = seenAt - deleted;
  process.stdout.write(`# Pod deleted by hand -> client's answer: ${latencyMs.toFixed(0)} ms after kubectl delete returned, `
    + `${(seenAt - asked).toFixed(0)} ms after it was started (a list took ${listMs.toFixed(0)} ms)\n`);
  assert.ok(latencyMs < Math.max(1000, listMs), `${latencyMs} ms`);
  assert.equal(starts(), before, 'no process for the change either');
  await feeds.stopAll();
  assert.deepEqual(await noneLeft(path.join(cluster.tmp, 'cache-synced')), []);
});

test('node edited and deleted: the old feed\'s adapter and kubectl end; the new one answers', STEP, async () => {
  const feeds = new FeedRegistry().enable();
  const old = clientWith(feeds, 'cache-old');
  feeds.ensure(old);
  const first = feeds.get(7);
  if (first.state !== 'synced') await once(first, 'synced');
  assert.ok(processesWith(path.join(cluster.tmp, 'cache-old'), '--watch').length >= 1, 'its kubectl watch runs');
  const edited = clientWith(feeds, 'cache-new', { kubeNamespace: 'default' });
  const second = feeds.ensure(edited);
  assert.notEqual(second, first);
  assert.deepEqual(await noneLeft(path.join(cluster.tmp, 'cache-old')), []);
  if (second.state !== 'synced') await once(second, 'synced');
  assert.deepEqual(await edited.clusterResources('lxc'), [], 'the edited node\'s namespace has none');
  await feeds.remove(7);
  assert.deepEqual(await noneLeft(path.join(cluster.tmp, 'cache-new')), []);
});

test('SIGKILL of the process holding the feed leaves no adapter or kubectl', STEP, async () => {
  const cache = path.join(cluster.tmp, 'cache-killed');
  const server = spawn(process.execPath, ['-e', `
    const KubernetesApi = require(${JSON.stringify(path.join(__dirname, '..', 'kubernetes-api.js'))});
    KubernetesApi.feeds.enable();
    const api = new KubernetesApi(${JSON.stringify(cluster.node())}, { command: ${JSON.stringify(wrapper)}, extraArgs: ['--cache-dir', ${JSON.stringify(cache)}] });
    const feed = KubernetesApi.feeds.ensure(api);
    feed.on('synced', () => process.stdout.write(feed.child.pid + '\\n'));
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const closed = once(server, 'close');
  const [line] = await once(server.stdout, 'data');
  assert.match(String(line), /^\d+\n$/);
  assert.ok(processesWith(cache, '--watch').length >= 1);
  server.kill('SIGKILL');
  await closed;
  assert.deepEqual(await noneLeft(cache), [], 'the adapter and its kubectl ended with the server');
});
