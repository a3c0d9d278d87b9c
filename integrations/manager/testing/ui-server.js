#!/usr/bin/env node
'use strict';
// Serves a Manager checkout with the change list applied (apply-edits.js; client built with
// `npm run build`) on a free port of 127.0.0.1 against the fake cluster, with Manager's own job
// runner, for ui-check.js. Seeds: k8s-1 (working), k8s-old (a user bound to the Role without
// watch on pods), k8s-2 (working now, its stored verdict the failed test of k8s-old's Role: the
// Role since applied again), pve-01; web-old on k8s-2 (its create job failed after the apply, the
// Deployment runs), web-drift (image changed with kubectl set image), web-crash (the same, and
// its stored image now crashes: a restore fails). Writes <out>/run.json (with the port); SIGTERM
// stops the runner and the fake.
//
//   node integrations/manager/testing/ui-server.js <manager-checkout> <out-dir>
const path = require('node:path');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { FakeCluster } = require('./cluster.js');

const [checkout, OUT] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!checkout || !OUT) {
  process.stderr.write('usage: ui-server.js <manager-checkout> <out-dir>\n');
  process.exit(2);
}
const M = path.join(checkout, 'create-a-container') + path.sep;
fs.mkdirSync(OUT, { recursive: true });
process.chdir(M);
process.env.NODE_ENV = 'development';
process.env.DATABASE_DIALECT = 'sqlite';
process.env.SQLITE_STORAGE = path.join(OUT, 'manager-ui.sqlite');
process.env.KUBECTL_ADAPTER = process.env.KUBECTL_ADAPTER || path.resolve(__dirname, '..', '..', '..', '.venv', 'bin', 'kubectl-adapter');
process.env.JOB_RUNNER_POLL_MS = '1000';
fs.rmSync(process.env.SQLITE_STORAGE, { force: true });

(async () => {
  const cluster = new FakeCluster('manager');
  await cluster.start();
  const old = await cluster.addUser('old-role', 'manager');
  await cluster.grantRole('old-role', (t) => t.replace(/(resources: \["pods"\]\n\s+verbs: )\["list", "watch"\]/, '$1["list"]'));
  const models = require(M + 'models');
  const { runMigrations } = require(M + 'utils/migrate');
  await runMigrations(models.sequelize);
  const { Site, Node, Container, Job, JobStatus, Group } = models;
  if (!(await Group.findByPk(2000))) {
    await Group.bulkCreate([{ gidNumber: 2000, cn: 'sysadmins', isAdmin: true }, { gidNumber: 2001, cn: 'ldapusers', isAdmin: false }]).catch(() => {});
  }
  const site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
  const good = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', siteId: site.id, kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'manager', waitTimeout: 60 });
  const stale = await Node.create({ name: 'k8s-old', nodeType: 'kubernetes', siteId: site.id, kubeconfigPath: cluster.kubeconfig, kubeContext: old.context, kubeNamespace: 'manager', waitTimeout: 20 });
  await Node.create({ name: 'pve-01', nodeType: 'proxmox', siteId: site.id, apiUrl: 'https://10.0.0.1:8006', tokenId: 'root@pam!t', secret: 's', ipv4Address: '10.0.0.1' });
  const api = await good.api();
  // k8s-2: the verdict its last test stored is the old Role's (a real test through that user);
  // the Role has been applied again since, so an operation on it now succeeds.
  const { connectionSummary } = require(M + 'utils/kubernetes/kubernetes-api');
  const staleVerdict = connectionSummary(await (await stale.api()).connectionTest());
  const retried = await Node.create({ name: 'k8s-2', nodeType: 'kubernetes', siteId: site.id, kubeconfigPath: cluster.kubeconfig, kubeContext: cluster.context, kubeNamespace: 'manager', waitTimeout: 60, lastConnectionTest: staleVerdict });
  // web-old: its create job failed after the apply; the Deployment runs.
  const job = await Job.create({ command: 'node bin/create-container.js --container-id=1', status: 'failure', createdBy: 'dev-admin' });
  const row = await Container.create({ hostname: 'web-old', username: 'dev-admin', template: 'nginx:latest', nodeId: retried.id, siteId: site.id, creationJobId: job.id });
  await (await retried.api()).createLxc('k8s-2', { vmid: null, hostname: 'web-old', image: 'nginx:latest', cores: 1, memory: 256, containerId: row.id });
  await row.update({ containerId: 'manager/web-old' });
  await JobStatus.create({ jobId: job.id, output: 'Container creation failed: pods is forbidden: User "old-role" cannot watch resource "pods" in API group "" in the namespace "manager"\nError type: Forbidden, retryable: false\n' });
  // web-drift: created by a successful job, then its image changed outside Manager.
  const ok = await Job.create({ command: 'node bin/create-container.js --container-id=2', status: 'success', createdBy: 'dev-admin' });
  const drift = await Container.create({ hostname: 'web-drift', username: 'dev-admin', template: 'nginx:latest', nodeId: good.id, siteId: site.id, creationJobId: ok.id, environmentVars: JSON.stringify({ MODE: 'prod' }) });
  await api.createLxc('k8s-1', { vmid: null, hostname: 'web-drift', image: 'nginx:latest', cores: 1, memory: 256, env: 'MODE=prod', containerId: drift.id });
  await drift.update({ containerId: 'manager/web-drift' });
  await cluster.setImage('manager/web-drift', 'nginx:1.27');
  // web-crash: drifted too, and the image Manager stores for it now crashes (a bad tag pushed
  // again): "Restore Manager's configuration" rolls out a Pod that never starts.
  const okCrash = await Job.create({ command: 'node bin/create-container.js --container-id=3', status: 'success', createdBy: 'dev-admin' });
  const crash = await Container.create({ hostname: 'web-crash', username: 'dev-admin', template: 'nginx:restore-crash', nodeId: good.id, siteId: site.id, creationJobId: okCrash.id });
  await api.createLxc('k8s-1', { vmid: null, hostname: 'web-crash', image: 'nginx:restore-crash', cores: 1, memory: 256, containerId: crash.id });
  await crash.update({ containerId: 'manager/web-crash' });
  await cluster.setImage('manager/web-crash', 'nginx:1.27');
  await cluster.setImageBehaviour('restore-crash', 'crash');
  const runner = spawn(process.execPath, ['job-runner.js'], { cwd: M, env: process.env, stdio: ['ignore', fs.openSync(path.join(OUT, 'job-runner.log'), 'w'), 'inherit'] });
  const { buildApp } = require(M + 'app');
  const app = buildApp({ sessionSecrets: ['ui-secret'], rateLimit: false, accessLog: false });
  const listener = app.listen(0, '127.0.0.1', () => {
    fs.writeFileSync(path.join(OUT, 'run.json'), JSON.stringify({
      port: listener.address().port, siteId: site.id, good: good.id, stale: stale.id, retried: retried.id, row: row.id, drift: drift.id, crash: crash.id,
      runner: runner.pid, kubeconfig: cluster.kubeconfig, context: cluster.context,
    }));
    console.log('listening');
  });
  process.on('SIGTERM', async () => { runner.kill('SIGTERM'); await cluster.stop(); process.exit(0); });
})().catch((e) => { console.error(e); process.exit(1); });
