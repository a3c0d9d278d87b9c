#!/usr/bin/env node
'use strict';
/**
 * Manager's node client with one live feed per node (issue 42) against today's polling (one
 * status read, a `list`, a second), on the fake API server through the real adapter and
 * kubectl:
 *
 *   node benchmarks/manager_feed.js [--workloads 10,1000] [--seconds 60] [--every 5]
 *
 * N running workloads (seeded straight into the fake's store, made ready by its controllers);
 * during the window one workload is scaled to 0 or back to 1 every `--every` seconds. Each side
 * runs alone, in a Node.js process of its own (so its peak RSS is its own), reading the node's
 * status once a second as Manager's containers page would: processes started per minute (the
 * adapter, counted by a wrapper, and kubectl, counted by a wrapper given as `--kubectl`), the
 * time from a change being in the API server to the client's answer having it (median, max),
 * the Node.js process's peak RSS, and, for the feed, the feed's own resident memory at the end
 * (the adapter and its kubectl). Prints a Markdown table.
 */

const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { once } = require('node:events');
const { performance } = require('node:perf_hooks');

const MANAGER = path.join(__dirname, '..', 'integrations', 'manager');
const NS = 'bench';

function args() {
  const argv = process.argv.slice(2);
  const value = (flag, fallback) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : fallback);
  return {
    workloads: value('--workloads', '10,1000').split(',').map(Number),
    seconds: Number(value('--seconds', '60')),
    every: Number(value('--every', '5')),
  };
}

/** An executable that logs one line per start to `log`, then runs `real`. */
function counting(file, log, real) {
  const quoted = [].concat(real).map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
  fs.writeFileSync(file, `#!/bin/sh\necho x >> '${log}'\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  return file;
}

const lines = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

const median = (xs) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Resident memory (KiB) of every process whose argv holds `word`. */
function rssOf(word) {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const words = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!words.includes(word)) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'));
      if (m) total += Number(m[1]);
    } catch (e) {
      // gone meanwhile
    }
  }
  return total;
}

// -- the measured client (a child process per side) ----------------------------------------

async function client({ mode, kubeconfig, context, cache, adapter, kubectl, seconds, every }) {
  const KubernetesApi = require(path.join(MANAGER, 'kubernetes-api.js'));
  const { FeedRegistry } = require(path.join(MANAGER, 'lib', 'feed.js'));
  const feeds = new FeedRegistry();
  if (mode === 'feed') feeds.enable();
  const api = new KubernetesApi(
    { id: 7, name: 'k8s-1', kubeconfigPath: kubeconfig, kubeContext: context, kubeNamespace: NS },
    { command: adapter, extraArgs: ['--cache-dir', cache, '--kubectl', kubectl], feeds },
  );
  const ask = (request) => new Promise((resolve) => {
    process.once('message', resolve);
    process.send(request);
  });
  if (mode === 'feed') {
    const feed = feeds.ensure(api);
    if (feed.state !== 'synced') await once(feed, 'synced');
  }
  await ask({ op: 'ready' }); // the parent zeroes its counters now
  const latencies = [];
  let pending = null; // {name, was, at}
  let reads = 0;
  let last = await api.clusterResources('lxc');
  const seen = (entries, at) => {
    if (!pending) return;
    const entry = entries.find((e) => e.name === pending.name);
    const now = entry ? entry.managerStatus : 'missing';
    if (now !== pending.was) {
      latencies.push(at - pending.at);
      pending = null;
    }
  };
  if (mode === 'feed') {
    feeds.get(7).on('change', () => seen(feeds.get(7).entries() || [], performance.now()));
  }
  const started = performance.now();
  let nextChange = started + every * 1000;
  let changes = 0;
  while (performance.now() - started < seconds * 1000) {
    const tick = performance.now();
    if (tick >= nextChange && !pending) {
      const name = `w-${String(Math.floor(changes / 2) % 10).padStart(4, '0')}`;
      const before = last.find((e) => e.name === name); // as the last answer had it
      const replicas = changes % 2 === 0 ? 0 : 1;
      await ask({ op: 'scale', name, replicas });
      pending = { name, was: before ? before.managerStatus : 'missing', at: performance.now() };
      changes += 1;
      nextChange += every * 1000;
    }
    last = await api.clusterResources('lxc'); // one status read
    reads += 1;
    seen(last, performance.now());
    const wait = 1000 - (performance.now() - tick);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const elapsed = (performance.now() - started) / 1000;
  const feedRss = mode === 'feed' ? rssOf(cache) : 0;
  await feeds.stopAll();
  process.send({ op: 'done', latencies, reads, elapsed, peakRssKiB: process.resourceUsage().maxRSS, feedRssKiB: feedRss });
}

// -- the driver ----------------------------------------------------------------------------

async function side(cluster, tmp, mode, options) {
  const adapterLog = path.join(tmp, `${mode}-adapter.log`);
  const kubectlLog = path.join(tmp, `${mode}-kubectl.log`);
  const { adapterCommand } = require(path.join(MANAGER, 'testing', 'cluster.js'));
  const adapter = counting(path.join(tmp, `${mode}-adapter`), adapterLog, adapterCommand());
  const kubectl = counting(path.join(tmp, `${mode}-kubectl`), kubectlLog, 'kubectl');
  const child = fork(__filename, ['--client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send({
    mode, kubeconfig: cluster.kubeconfig, context: cluster.context, cache: path.join(tmp, `${mode}-cache`),
    adapter, kubectl, seconds: options.seconds, every: options.every,
  });
  let counted = null;
  const result = await new Promise((resolve, reject) => {
    child.on('message', async (message) => {
      if (message.op === 'ready') {
        counted = { adapter: lines(adapterLog), kubectl: lines(kubectlLog) };
        child.send({});
      } else if (message.op === 'scale') {
        await cluster.control({ op: 'scale', namespace: NS, name: message.name, replicas: message.replicas });
        child.send({});
      } else if (message.op === 'done') resolve(message);
    });
    child.on('exit', (code) => (code ? reject(new Error(`${mode} client exited ${code}`)) : null));
  });
  const minutes = result.elapsed / 60;
  return {
    mode,
    processesPerMinute: ((lines(adapterLog) - counted.adapter) + (lines(kubectlLog) - counted.kubectl)) / minutes,
    adapterPerMinute: (lines(adapterLog) - counted.adapter) / minutes,
    latencies: result.latencies,
    reads: result.reads,
    peakRssMiB: result.peakRssKiB / 1024,
    feedRssMiB: result.feedRssKiB / 1024,
  };
}

async function main() {
  const options = args();
  const { FakeCluster } = require(path.join(MANAGER, 'testing', 'cluster.js'));
  const rows = [];
  for (const n of options.workloads) {
    // A node large enough for every Pod to be scheduled (1,000 x 10m CPU, 16Mi).
    const cluster = new FakeCluster(NS, { cpu: '100', memory: '1Ti' });
    await cluster.start();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'manager-feed-bench-'));
    try {
      await cluster.control({ op: 'seed', namespace: NS, count: n, nodeId: '7' });
      const deadline = performance.now() + 900_000;
      while ((await cluster.control({ op: 'ready', namespace: NS })).ready < n) {
        if (performance.now() > deadline) throw new Error('workloads not ready');
        await new Promise((resolve) => setTimeout(resolve, 2000)); // polled: each look lists every Pod
      }
      process.stderr.write(`${n} workloads ready\n`);
      for (const mode of ['poll', 'feed']) {
        const r = await side(cluster, tmp, mode, options);
        process.stderr.write(`${n} ${mode}: ${JSON.stringify(r)}\n`);
        rows.push({ n, ...r });
      }
    } finally {
      await cluster.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const out = [
    `${options.seconds} s per side, one status read a second, a change every ${options.every} s; load average at the end: ${load}; ${os.cpus().length} CPUs`,
    '',
    '| workloads | client | processes started / min (adapter) | change → answer, median / max (s) | changes seen | peak RSS of the Node.js process (MiB) | feed RSS at the end (MiB) |',
    '|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const lat = r.latencies.length ? `${(median(r.latencies) / 1000).toFixed(2)} / ${(Math.max(...r.latencies) / 1000).toFixed(2)}` : 'n/a';
    out.push(`| ${r.n} | ${r.mode === 'feed' ? 'feed (`list -w`)' : 'polling (`list` each read)'} | ${r.processesPerMinute.toFixed(1)} (${r.adapterPerMinute.toFixed(1)}) | ${lat} | ${r.latencies.length} | ${r.peakRssMiB.toFixed(0)} | ${r.mode === 'feed' ? r.feedRssMiB.toFixed(0) : '—'} |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv.includes('--client')) {
  process.once('message', (options) => client(options).catch((e) => { console.error(e); process.exit(1); }));
} else {
  main().catch((e) => { console.error(e); process.exit(1); });
}
