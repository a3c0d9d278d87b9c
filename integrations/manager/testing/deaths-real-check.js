#!/usr/bin/env node
'use strict';
// deaths.kubernetes.test.js's SIGKILLs of Manager's processes, through the REAL adapter and
// kubectl against the fake cluster (the jest test uses a stand-in adapter): Manager's create job
// killed while its adapter waits for the rollout, and Manager's server killed while its DELETE's
// adapter waits for the Pod to stop. After each: no adapter or kubectl of this cluster is left
// once the adapter's own wait bound has passed (the orphaned adapter finishes the write it
// started and ends: one-shot commands do not follow their parent), the row still points at the
// Deployment, and the retry (create) or a second DELETE converges on it. Prints one line per
// check; exits 1 at the first that fails.
//
//   node integrations/manager/testing/deaths-real-check.js <manager-checkout>
//
// The checkout has the change list applied (apply-edits.js or stack.js) and `npm ci` done.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawn } = require('node:child_process');
const { once } = require('node:events');
const { performance } = require('node:perf_hooks');
const readline = require('node:readline');
const { FakeCluster, adapterCommand } = require('./cluster.js');

const checkout = process.argv[2] && path.resolve(process.argv[2]);
if (!checkout) {
  process.stderr.write('usage: deaths-real-check.js <manager-checkout>\n');
  process.exit(2);
}
const M = path.join(checkout, 'create-a-container') + path.sep;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deaths-real-check-'));
const quoted = [].concat(adapterCommand()).map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
const adapter = path.join(tmp, 'kubectl-adapter');
fs.writeFileSync(adapter, `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
// The node's wait bound (its waitTimeout): an orphaned adapter ends within it + 1 s (docs/cli.md).
const WAIT_S = 20;
Object.assign(process.env, {
  NODE_ENV: 'development', DATABASE_DIALECT: 'sqlite', SQLITE_STORAGE: path.join(tmp, 'manager.sqlite'), KUBECTL_ADAPTER: adapter,
});
process.chdir(M);

const check = (ok, what) => {
  process.stdout.write(`${ok ? 'ok' : 'FAILED'}: ${what}\n`);
  if (!ok) throw new Error(what);
};

/** Live processes started for this cluster (the adapter and its kubectl both carry its kubeconfig), with their argv. */
function clusterProcesses(kubeconfig) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^\d+ \(.*\) [ZX]/s.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      const words = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (words.some((w) => w === kubeconfig || w === `--kubeconfig=${kubeconfig}`)) found.push({ pid: Number(entry), argv: words.filter(Boolean) });
    } catch (e) {
      // gone meanwhile
    }
  }
  return found;
}
const kubectls = (procs) => procs.filter((p) => path.basename(p.argv[0]) === 'kubectl');
const adapters = (procs) => procs.filter((p) => path.basename(p.argv[0]) !== 'kubectl');

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

/** After a SIGKILL: how long until no adapter or kubectl of this cluster is left (null: still some after the bound). */
async function leftovers(kubeconfig, killedAt) {
  const gone = await until(() => clusterProcesses(kubeconfig).length === 0, (WAIT_S + 5) * 1000);
  return gone ? performance.now() - killedAt : null;
}

(async () => {
  // Pods are Ready 4 s after they are made and take 4 s to stop: long enough to kill Manager's
  // process while its adapter waits, on a loaded machine.
  const cluster = new FakeCluster('manager', { podReadyDelay: 4 });
  await cluster.start();
  const children = new Set();
  try {
    await cluster.setStopDelay('slow-stop', 4);
    const models = require(`${M}models`);
    await require(`${M}utils/migrate`).runMigrations(models.sequelize);
    const { Site, Node, Container, Job, Group } = models;
    await Group.bulkCreate([{ gidNumber: 2000, cn: 'sysadmins', isAdmin: true }, { gidNumber: 2001, cn: 'ldapusers', isAdmin: false }]).catch(() => {});
    const { createUser, createApiKey } = require(`${M}tests/helpers/db`);
    const key = (await createApiKey(await createUser({ uid: 'deathcheck' }), 'check')).plainKey;
    const site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    const node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', siteId: site.id, kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'manager', waitTimeout: WAIT_S });
    const { computeContainerState } = require(`${M}utils/container-status`);
    const load = (id) => Container.findByPk(id, { include: [{ association: 'node' }, { association: 'creationJob' }] });
    const spawnTracked = (argv) => {
      const child = spawn(process.execPath, argv, { cwd: M, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c) => { out += c; });
      child.stderr.on('data', (c) => { out += c; });
      children.add(child);
      const closed = once(child, 'close').then(([code, signal]) => { children.delete(child); return { code, signal, out }; });
      return { child, closed };
    };

    // 1. The create job, killed while its adapter waits for the rollout.
    const job = await Job.create({ command: 'create', status: 'running' });
    const row = await Container.create({ hostname: 'web-1', username: 'deathcheck', template: 'nginx:slow-stop', nodeId: node.id, siteId: site.id, creationJobId: job.id });
    const create = spawnTracked(['bin/create-container.js', `--container-id=${row.id}`]);
    const waiting = await until(() => {
      const procs = clusterProcesses(cluster.kubeconfig);
      return adapters(procs).some((p) => p.argv.includes('create')) && kubectls(procs).length > 0 ? procs : null;
    }, 60_000, 20);
    check(!!waiting, `the create job's adapter and its kubectl run (${waiting ? waiting.length : 0} processes)`);
    create.child.kill('SIGKILL');
    let killedAt = performance.now();
    const ended = await create.closed;
    check(ended.signal === 'SIGKILL', 'the create job died of SIGKILL');
    await job.update({ status: 'failure' });
    let took = await leftovers(cluster.kubeconfig, killedAt);
    check(took !== null, `no adapter or kubectl left after the job's SIGKILL (all gone ${took === null ? 'never' : `after ${(took / 1000).toFixed(1)} s`}; bound ${WAIT_S + 1} s)`);
    await row.reload();
    check(row.containerId === 'manager/web-1', `the row keeps the provider ID (${row.containerId})`);
    check((await cluster.storedDeployments()).includes('manager/web-1'), 'the Deployment exists on the cluster');
    const { status } = await computeContainerState({ container: await load(row.id), Job });
    check(['running', 'creating'].includes(status), `status reads the Deployment (${status})`);
    const again = spawnTracked(['bin/create-container.js', `--container-id=${row.id}`]);
    const retried = await again.closed;
    check(retried.code === 0 && retried.out.includes('Container creation completed successfully!'), `the create again converges on it (exit ${retried.code})`);
    check(clusterProcesses(cluster.kubeconfig).length === 0, 'and leaves no adapter or kubectl');

    // 2. Manager's server, killed while its DELETE's adapter waits for the Pod to stop.
    const server = spawnTracked(['-e', `
      const { buildApp } = require('./app');
      const listener = buildApp({ sessionSecrets: ['check'], rateLimit: false, accessLog: false }).listen(0, '127.0.0.1', () => {
        process.stdout.write('PORT ' + listener.address().port + '\\n');
      });
    `]);
    const port = await new Promise((resolve) => {
      readline.createInterface({ input: server.child.stdout }).on('line', (line) => { const m = /^PORT (\d+)$/.exec(line); if (m) resolve(Number(m[1])); });
    });
    const api = (method, url, p = port) => fetch(`http://127.0.0.1:${p}/api/v1/sites/${site.id}${url}`, { method, headers: { authorization: `Bearer ${key}` } });
    const first = api('DELETE', `/containers/${row.id}`).then((r) => r.status, (e) => `no answer (${e.cause ? e.cause.code : e.message})`);
    const deleting = await until(() => {
      const procs = clusterProcesses(cluster.kubeconfig);
      return adapters(procs).some((p) => p.argv.includes('delete')) && kubectls(procs).some((p) => p.argv.includes('delete')) ? procs : null;
    }, 60_000, 20);
    check(!!deleting, 'the DELETE\'s adapter and its kubectl delete run');
    server.child.kill('SIGKILL');
    killedAt = performance.now();
    const serverEnded = await server.closed;
    check(serverEnded.signal === 'SIGKILL', `Manager's server died of SIGKILL (the DELETE: ${await first})`);
    took = await leftovers(cluster.kubeconfig, killedAt);
    check(took !== null, `no adapter or kubectl left after the server's SIGKILL (all gone ${took === null ? 'never' : `after ${(took / 1000).toFixed(1)} s`}; bound ${WAIT_S + 1} s)`);
    const kept = await load(row.id);
    check(kept !== null && kept.containerId === 'manager/web-1', `the row stays with its provider ID (${kept && kept.containerId})`);

    const server2 = spawnTracked(['-e', `
      const { buildApp } = require('./app');
      const listener = buildApp({ sessionSecrets: ['check'], rateLimit: false, accessLog: false }).listen(0, '127.0.0.1', () => {
        process.stdout.write('PORT ' + listener.address().port + '\\n');
      });
    `]);
    const port2 = await new Promise((resolve) => {
      readline.createInterface({ input: server2.child.stdout }).on('line', (line) => { const m = /^PORT (\d+)$/.exec(line); if (m) resolve(Number(m[1])); });
    });
    const second = await api('DELETE', `/containers/${row.id}`, port2);
    check(second.status === 200, `DELETE again: ${second.status}`);
    check(await Container.findByPk(row.id) === null, 'the row is gone');
    check(!(await cluster.storedDeployments()).includes('manager/web-1'), 'the Deployment is gone from the cluster');
    server2.child.kill('SIGTERM');
    await server2.closed;
    check(clusterProcesses(cluster.kubeconfig).length === 0, 'no adapter or kubectl left at the end');
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await cluster.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
