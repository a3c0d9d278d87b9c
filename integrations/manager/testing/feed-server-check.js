#!/usr/bin/env node
'use strict';
// Manager's server with the change list applied (apply-edits.js, node_modules installed), its
// node feeds started as server.js starts them, against the fake cluster through the real
// adapter and kubectl (issue 42's "done when"). Prints one line per check and exits non-zero on
// the first that fails:
//   - a containers page load starts no process once the feed has synced;
//   - a Pod deleted by hand shows in GET /containers/:id within 1 s;
//   - editing the node's namespace, deleting the node, and SIGKILL of the server leave no
//     adapter or kubectl of the feed.
//
//   node integrations/manager/testing/feed-server-check.js <manager-checkout>
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawn, execFile } = require('node:child_process');
const { once } = require('node:events');
const { performance } = require('node:perf_hooks');
const readline = require('node:readline');
const { FakeCluster, adapterCommand } = require('./cluster.js');

const checkout = process.argv[2] && path.resolve(process.argv[2]);
if (!checkout) {
  process.stderr.write('usage: feed-server-check.js <manager-checkout>\n');
  process.exit(2);
}
const M = path.join(checkout, 'create-a-container') + path.sep;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-server-check-'));
const startsLog = path.join(tmp, 'adapter-starts.log');
const quoted = [].concat(adapterCommand()).map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
const adapter = path.join(tmp, 'kubectl-adapter');
fs.writeFileSync(adapter, `#!/bin/sh\necho "$*" >> '${startsLog}'\nexec ${quoted} "$@"\n`, { mode: 0o755 });
Object.assign(process.env, {
  NODE_ENV: 'development', DATABASE_DIALECT: 'sqlite', SQLITE_STORAGE: path.join(tmp, 'manager.sqlite'), KUBECTL_ADAPTER: adapter,
});
process.chdir(M);

const starts = () => (fs.existsSync(startsLog) ? fs.readFileSync(startsLog, 'utf8').split('\n').filter(Boolean).length : 0);
const check = (ok, what) => {
  process.stdout.write(`${ok ? 'ok' : 'FAILED'}: ${what}\n`);
  if (!ok) throw new Error(what);
};

/** The live processes of the feed on this kubeconfig: the adapter (`--exit-with-parent`) and its kubectl watches. */
function feedProcesses(kubeconfig, namespace = null) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^\d+ \(.*\) [ZX]/s.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      const words = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!words.includes(kubeconfig)) continue;
      if (namespace && words[words.indexOf('-n') + 1] !== namespace) continue;
      if (words.includes('--exit-with-parent') || words.includes('--watch')) found.push(Number(entry));
    } catch (e) {
      // gone meanwhile
    }
  }
  return found;
}

async function until(condition, boundMs, everyMs = 50) {
  const deadline = performance.now() + boundMs;
  for (;;) {
    // eslint-disable-next-line no-await-in-loop
    const value = await condition();
    if (value || performance.now() > deadline) return value;
    // eslint-disable-next-line no-await-in-loop
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

(async () => {
  // A replacement Pod is Ready 2 s after it is made: `creating` meanwhile, long enough for
  // Manager's answers (each a few database reads) to be sampled on a loaded machine.
  const cluster = new FakeCluster('manager', { podReadyDelay: 2 });
  await cluster.start();
  let server = null;
  try {
    const models = require(`${M}models`);
    await require(`${M}utils/migrate`).runMigrations(models.sequelize);
    const { Site, Node, Container, Group } = models;
    await Group.bulkCreate([{ gidNumber: 2000, cn: 'sysadmins', isAdmin: true }, { gidNumber: 2001, cn: 'ldapusers', isAdmin: false }]).catch(() => {});
    const { createUser, createApiKey } = require(`${M}tests/helpers/db`);
    const key = (await createApiKey(await createUser({ uid: 'feedcheck' }), 'check')).plainKey;
    const site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    const node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', siteId: site.id, kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'manager' });
    const row = await Container.create({ hostname: 'web-1', username: 'feedcheck', template: 'nginx:1.27', nodeId: node.id, siteId: site.id });
    await (await node.api()).createLxc('k8s-1', { hostname: 'web-1', image: 'nginx:1.27', cores: 0.1, memory: 64, containerId: row.id });
    await row.update({ containerId: 'manager/web-1' });

    // Manager's server as server.js starts it (its issue-42 lines), on a free port.
    server = spawn(process.execPath, ['-e', `
      const { sequelize, Node } = require('./models');
      const { buildApp } = require('./app');
      const { startNodeFeeds, exitOnSignals } = require('./utils/kubernetes/node-feeds');
      (async () => {
        exitOnSignals();
        await startNodeFeeds(Node);
        const listener = buildApp({ sessionSecrets: ['check'], rateLimit: false, accessLog: false }).listen(0, '127.0.0.1', () => {
          process.stdout.write(listener.address().port + '\\n');
        });
      })();
    `], { cwd: M, env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    const serverClosed = once(server, 'close');
    const port = await new Promise((resolve) => {
      readline.createInterface({ input: server.stdout }).on('line', (line) => { if (/^\d+$/.test(line)) resolve(Number(line)); });
    });
    const api = async (method, url, body) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/sites/${site.id}${url}`, {
        method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
      });
      return { status: response.status, body: response.status === 204 ? null : await response.json() };
    };

    const synced = await until(async () => (await api('GET', `/nodes/${node.id}`)).body.data.feed?.state === 'synced', 60_000, 200);
    check(synced, 'the node\'s feed synced (GET /nodes/:id feed.state)');
    const before = starts();
    let page;
    for (let i = 0; i < 20; i += 1) page = await api('GET', '/containers'); // eslint-disable-line no-await-in-loop
    const shown = page.body.data.find((c) => c.id === row.id);
    check(shown.status === 'running' && shown.statusSource === 'feed', `the containers page: web-1 ${shown.status}, statusSource ${shown.statusSource}`);
    check(starts() === before, `20 containers page loads started ${starts() - before} adapter processes`);

    // Manager's own time to answer GET /containers/:id on this machine now (the feed's part is
    // what the change adds to it): the median of 5.
    const took = [];
    for (let i = 0; i < 5; i += 1) {
      const sent = performance.now();
      await api('GET', `/containers/${row.id}`); // eslint-disable-line no-await-in-loop
      took.push(performance.now() - sent);
    }
    const baseline = took.sort((a, b) => a - b)[2];
    const [pod] = await cluster.kubectlPods('manager/web-1');
    const asked = performance.now();
    await new Promise((resolve, reject) => execFile('kubectl', ['--kubeconfig', cluster.kubeconfig, '--context', cluster.context,
      '--cache-dir', cluster.freshCache(), '-n', 'manager', 'delete', 'pod', pod, '--wait=false'], (e) => (e ? reject(e) : resolve())));
    const deleted = performance.now();
    // GET /containers/:id back to back until an answer shows it (`creating`: the new Pod is
    // not Ready yet); its arrival is the time measured.
    let previous = deleted; // when the answer before the one that showed it arrived
    const change = await until(async () => {
      const sent = performance.now();
      const one = (await api('GET', `/containers/${row.id}`)).body.data;
      if (one.status !== 'running' && one.statusSource === 'feed') return { at: performance.now(), sent, previous, one };
      previous = performance.now();
      return null;
    }, 10_000, 0);
    process.stdout.write(`   (the answer that showed it was asked ${(change.sent - deleted).toFixed(0)} ms after kubectl delete returned and took ${(change.at - change.sent).toFixed(0)} ms; `
      + `the one before it arrived at ${(change.previous - deleted).toFixed(0)} ms)\n`);
    check(!!change, `GET /containers/:id showed the Pod's deletion (${change && change.one.status}) in an answer received ${change && (change.at - deleted).toFixed(0)} ms after kubectl delete returned (${change && (change.at - asked).toFixed(0)} ms after it started)`);
    check(change.at - deleted < 1000 + baseline, `within 1 s more than an unchanged GET /containers/:id takes now (${baseline.toFixed(0)} ms)`);
    check(starts() === before, 'and no process was started for it');

    const edited = await api('PUT', `/nodes/${node.id}`, { name: 'k8s-1', nodeType: 'kubernetes', kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'default' });
    check(edited.status === 200, 'PUT /nodes/:id with another namespace');
    const oldLeft = await until(() => feedProcesses(cluster.kubeconfig, 'manager').length === 0, 30_000);
    check(oldLeft, `editing the node left ${feedProcesses(cluster.kubeconfig, 'manager').length} adapter/kubectl of the old feed`);
    check(await until(() => feedProcesses(cluster.kubeconfig, 'default').length > 0, 30_000), 'the edited node\'s feed runs');

    await Container.destroy({ where: { id: row.id } });
    check((await api('DELETE', `/nodes/${node.id}`)).status === 204, 'DELETE /nodes/:id');
    check(await until(() => feedProcesses(cluster.kubeconfig).length === 0, 30_000), 'deleting the node left no adapter or kubectl');

    const made = await api('POST', '/nodes', { name: 'k8s-2', nodeType: 'kubernetes', kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'manager' });
    check(made.status === 201 && await until(() => feedProcesses(cluster.kubeconfig).length >= 2, 30_000), 'a new node\'s feed runs (adapter and kubectl)');
    server.kill('SIGKILL');
    await serverClosed;
    server = null;
    check(await until(() => feedProcesses(cluster.kubeconfig).length === 0, 30_000), 'SIGKILL of the server left no adapter or kubectl');
  } finally {
    if (server) server.kill('SIGKILL');
    await cluster.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
