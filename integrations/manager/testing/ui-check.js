#!/usr/bin/env node
'use strict';
// Headless Chromium (playwright-core) over the Manager ui-server.js serves: the node form's
// Kubernetes fields and Test connection, the containers list (failed headline, Retry create and
// its in-page message, the drift badge), the drift notice's Restore (the job's progress, then the
// refresh), and that every job a page starts ends on that page and in the lists without a reload
// (issue 40): a failed container's edit page has its headline and "Retry create"; a retry that
// succeeds turns the list's row to Running; a restore that fails says its headline and next step;
// the nodes list's verdict is the newest (an operation that reached the cluster replaces "Test
// failed"). One browser. Screenshots in <out-dir>/shots: look at them. Exit 1 unless all pass.
//
//   PLAYWRIGHT_CORE=<path to playwright-core> CHROMIUM=/usr/bin/chromium \
//     node integrations/manager/testing/ui-check.js <out-dir>
const fs = require('node:fs');
const path = require('node:path');

const OUT = path.resolve(process.argv[2] || '.');
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');
const run = JSON.parse(fs.readFileSync(path.join(OUT, 'run.json'), 'utf8'));
const BASE = `http://127.0.0.1:${run.port}`;
const shots = path.join(OUT, 'shots');
fs.mkdirSync(shots, { recursive: true });
const checks = [];
const check = (name, ok, detail = '') => { checks.push({ name, ok: !!ok, detail }); console.log(`${ok ? 'PASS' : 'FAIL'} ${name} ${detail}`); };
/** The text of the containers list's card (or table row) of `host`: its h2 (or first cell) and what is around it, no other container's. */
const rowText = (page, host) => page.evaluate((h) => {
  const title = [...document.querySelectorAll('h2, td')].find((e) => e.textContent.trim() === h);
  if (!title) return null;
  let el = title;
  const others = ['web-old', 'web-drift', 'web-crash'].filter((o) => o !== h);
  while (el.parentElement && !others.some((o) => el.parentElement.innerText.includes(o))) el = el.parentElement;
  return el.innerText;
}, host);
/** The nodes list's text for `name` (its card), no other node's. */
const nodeText = (page, name) => page.evaluate((n) => {
  const title = [...document.querySelectorAll('h2, h3, td, a')].find((e) => e.textContent.trim() === n);
  if (!title) return null;
  let el = title;
  const others = ['k8s-1', 'k8s-2', 'k8s-old', 'pve-01'].filter((o) => o !== n);
  while (el.parentElement && !others.some((o) => new RegExp(`\\b${o}\\b`).test(el.parentElement.innerText))) el = el.parentElement;
  return el.innerText;
}, name);
const until = async (fn, ms, step = 500) => { const end = Date.now() + ms; while (Date.now() < end) { const v = await fn(); if (v) return v; await new Promise((r) => setTimeout(r, step)); } return null; };

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${BASE}/login`);
    const token = await page.evaluate(async () => (await (await fetch('/api/v1/csrf-token')).json()).data.csrfToken);
    const login = await page.evaluate(async (t) => (await fetch('/api/v1/auth/dev', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': t }, body: JSON.stringify({ role: 'admin' }) })).status, token);
    check('dev login as admin', login === 200, `status ${login}`);
    const getJson = (url) => page.evaluate(async (u) => (await (await fetch(u)).json()).data, url);

    // 1. The node form of the working Kubernetes node: its fields, then Test connection.
    await page.goto(`${BASE}/sites/${run.siteId}/nodes/${run.good}/edit`);
    await page.waitForSelector('input[name=kubeconfigPath]');
    await page.waitForTimeout(500);
    let body = await page.innerText('body');
    const values = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('input')].filter((i) => i.name).map((i) => [i.name, i.value])));
    check('node form: Kubernetes fields shown with the stored values', ['Kubeconfig path', 'Context', 'Namespace', 'Wait timeout (s)'].every((l) => body.includes(l)) && values.kubeNamespace === 'manager' && values.waitTimeout === '60' && values.kubeconfigPath === run.kubeconfig && values.kubeContext === run.context, JSON.stringify(values));
    check('node form: Proxmox-only fields hidden', !/API URL|Token ID|Image storage|Network bridge|NVIDIA available/i.test(body));
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.waitForSelector('text=Connected', { timeout: 30000 }).catch(() => {});
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${shots}/1-node-form-k8s-1-tested.png`, fullPage: true });
    body = await page.innerText('body');
    check('Test connection (k8s-1): Connected, the server and namespace, the cluster nodes', body.includes('Connected') && /Server v1\.\d+\.\d+, namespace manager exists/.test(body) && /Ready/.test(body), (body.match(/Server[^\n]*/) || [''])[0]);

    // 2. The old Role's node: the test names what to apply.
    await page.goto(`${BASE}/sites/${run.siteId}/nodes/${run.stale}/edit`);
    await page.waitForSelector('input[name=kubeconfigPath]');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.waitForSelector('text=rbac/role.yaml', { timeout: 30000 }).catch(() => {});
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${shots}/2-node-form-k8s-old-tested.png`, fullPage: true });
    body = await page.innerText('body');
    check('Test connection (k8s-old): missing watch on pods and the hint, not Connected', body.includes("this node's Role lacks watch on pods: apply rbac/role.yaml again") && body.includes('watch pods (core)') && !body.includes('Connected'));

    // 3. A new node with Kubernetes chosen.
    await page.goto(`${BASE}/sites/${run.siteId}/nodes/new`);
    await page.waitForSelector('select');
    await page.selectOption('select', 'kubernetes');
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${shots}/3-node-form-new-kubernetes.png`, fullPage: true });
    const ph = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('input')].filter((i) => i.name).map((i) => [i.name, i.placeholder])));
    check('new node form, Kubernetes: placeholders', ph.name === 'k8s-01' && ph.kubeconfigPath === '/etc/manager/kubeconfigs/k8s-1.yaml' && ph.kubeNamespace === 'default' && ph.waitTimeout === '300', JSON.stringify(ph));

    // 3b. The nodes list: k8s-2's stored verdict is its last (failed) test.
    await page.goto(`${BASE}/sites/${run.siteId}/nodes`);
    await page.waitForSelector('text=k8s-2');
    await page.waitForTimeout(500);
    let k8s2 = await nodeText(page, 'k8s-2');
    check('nodes list before: k8s-2 shows the failed test it stored ("Test failed", what is missing)', k8s2 && k8s2.includes('Test failed') && k8s2.includes('watch pods'), JSON.stringify(k8s2));

    // 3c. A failed container's edit page: the failure's headline and "Retry create", as the list has them.
    await page.goto(`${BASE}/sites/${run.siteId}/containers/${run.row}/edit`);
    await page.waitForSelector('text=Container creation failed', { timeout: 15000 }).catch(() => {});
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${shots}/3c-failed-container-edit-page.png`, fullPage: true });
    body = await page.innerText('body');
    check('edit page of a failed container: the headline and "Retry create"', body.includes('Container creation failed: pods is forbidden') && (await page.getByRole('button', { name: 'Retry create' }).count()) === 1, (body.match(/Container creation failed[^\n]*/) || [''])[0]);

    // 4. Retry create: the message in the page, the job it queued, the row after it.
    await page.goto(`${BASE}/sites/${run.siteId}/containers`);
    await page.waitForSelector('text=Retry create');
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${shots}/4-containers-before-retry.png`, fullPage: true });
    const badges = await page.$$eval('[data-testid=drift-badge]', (els) => els.map((e) => e.title));
    check('containers list: web-drift and web-crash have the "Changed outside Manager" badge, its summary as tooltip', (await rowText(page, 'web-drift')).includes('Changed outside Manager') && badges.length === 2 && badges.every((b) => b.includes('nginx:1.27')), JSON.stringify(badges));
    const [resp] = await Promise.all([page.waitForResponse((r) => r.url().includes('retry-create')), page.getByRole('button', { name: 'Retry create' }).click()]);
    check('Retry create: 201', resp.status() === 201, `status ${resp.status()}`);
    const seen = await page.waitForSelector('text=queued again', { timeout: 8000 }).then(() => true, () => false);
    await page.screenshot({ path: `${shots}/5-containers-after-retry.png`, fullPage: true });
    body = await page.innerText('body');
    const queued = (body.match(/Create of web-old queued again: job (\d+)/) || [])[1];
    check('Retry create: the page says it is queued again, naming the job; the headline and button gone', seen && queued && !body.includes('Container creation failed') && (await page.getByRole('button', { name: 'Retry create' }).count()) === 0, `job ${queued}`);
    const retried = await until(async () => { const j = await getJson(`/api/v1/jobs/${queued}`); return j && ['success', 'failure'].includes(j.status) ? j : null; }, 120000, 1000);
    const oldRow = await getJson(`/api/v1/sites/${run.siteId}/containers/${run.row}`);
    check('the re-run create converged (job success, row keeps manager/web-old)', retried && retried.status === 'success' && oldRow.containerId === 'manager/web-old', JSON.stringify({ job: retried && retried.status, containerId: oldRow.containerId, creationJob: oldRow.creationJob }));
    // Without a reload: the page that started the job says it succeeded, and the row is Running.
    const ended = await until(async () => { const t = await rowText(page, 'web-old'); return t && t.includes(`Create of web-old succeeded: job ${queued}`) && /Running/.test(t) && !/Creating/.test(t) ? t : null; }, 30000);
    await page.screenshot({ path: `${shots}/5b-containers-after-retry-ended.png`, fullPage: true });
    check('Retry create, without a reload: the row says the create succeeded and reads Running, not Creating', !!ended, JSON.stringify(ended || await rowText(page, 'web-old')));

    // The nodes list, reached by its link (no reload): the create reached k8s-2's cluster, so
    // its verdict is no longer the old "Test failed".
    await page.getByRole('link', { name: 'Nodes', exact: true }).first().click();
    await page.waitForSelector('text=k8s-2');
    const verdict = await until(async () => { const t = await nodeText(page, 'k8s-2'); return t && t.includes('Connected') && !t.includes('Test failed') ? t : null; }, 10000);
    await page.screenshot({ path: `${shots}/5c-nodes-after-retry.png`, fullPage: true });
    k8s2 = await nodeText(page, 'k8s-2');
    check('nodes list after the retry succeeded: k8s-2 reads Connected, the create that reached the cluster', !!verdict && k8s2.includes('create of manager/web-old reached the cluster and succeeded'), JSON.stringify(k8s2));

    // 5. The drift notice, Restore, the job's progress, then the refresh.
    const before = await getJson(`/api/v1/sites/${run.siteId}/containers/${run.drift}`);
    check('container JSON: web-drift drifted', before.drift && before.drift.state === 'drifted', JSON.stringify(before.drift));
    await page.goto(`${BASE}/sites/${run.siteId}/containers/${run.drift}/edit`);
    await page.waitForSelector('[data-testid=drift-alert]', { timeout: 15000 }).catch(() => {});
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${shots}/6-drift-notice.png`, fullPage: true });
    body = await page.innerText('body');
    check('edit page: drift notice with what changed and Restore', body.includes('Changed outside Manager') && body.includes('nginx:1.27') && (await page.getByRole('button', { name: "Restore Manager's configuration" }).count()) === 1, (body.match(/Changed outside Manager[^\n]*/) || [''])[0]);
    await page.getByRole('button', { name: "Restore Manager's configuration" }).click();
    const progress = await page.waitForSelector('[data-testid=restore-running]', { timeout: 8000 }).then(() => true, () => false);
    await page.screenshot({ path: `${shots}/7-restore-running.png`, fullPage: true });
    body = await page.innerText('body');
    check('Restore: the notice says the job runs and links to it', progress && /Restoring…\s*job \d+/.test(body), (body.match(/Restoring…[^\n]*/) || [''])[0]);
    const done = await page.waitForSelector('[data-testid=restore-outcome]', { timeout: 120000 }).then(() => true, () => false);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${shots}/8-restore-done.png`, fullPage: true });
    body = await page.innerText('body');
    const after = await getJson(`/api/v1/sites/${run.siteId}/containers/${run.drift}`);
    check('Restore: without a reload the notice goes and the page says restored', done && !body.includes('Changed outside Manager') && /configuration restored: job \d+/.test(body), (body.match(/[^\n]*restored[^\n]*/) || [''])[0]);
    check('container JSON after Restore: no drift, env kept', after.drift && after.drift.state === 'in-sync' && after.environmentVars && after.environmentVars.MODE === 'prod', JSON.stringify({ drift: after.drift, env: after.environmentVars }));
    await page.goto(`${BASE}/sites/${run.siteId}/containers`);
    await page.waitForSelector('text=web-drift');
    await page.waitForTimeout(1000);
    await page.screenshot({ path: `${shots}/9-containers-after-restore.png`, fullPage: true });
    check('containers list after Restore: no drift badge on web-drift', !(await rowText(page, 'web-drift')).includes('Changed outside Manager') && (await page.$$('[data-testid=drift-badge]')).length === 1);

    // 6. A restore that fails: its image now crashes. The page says it failed, why, and what to do next.
    await page.goto(`${BASE}/sites/${run.siteId}/containers/${run.crash}/edit`);
    await page.waitForSelector('[data-testid=drift-alert]', { timeout: 15000 }).catch(() => {});
    await page.getByRole('button', { name: "Restore Manager's configuration" }).click();
    const crashed = await page.waitForSelector('[data-testid=restore-outcome]', { timeout: 180000 }).then(() => true, () => false);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${shots}/10-restore-failed.png`, fullPage: true });
    body = await page.innerText('body');
    const failedLine = (body.match(/The restore job ended[^\n]*/) || [''])[0];
    check('a failed Restore, without a reload: the page says it failed, with the headline', crashed && /The restore job ended failure: Container reconfiguration failed: .*crash/i.test(failedLine), failedLine);
    check('a failed Restore: the page says the next step', /next step|fix|then|retry|restore again/i.test(failedLine.replace(/^The restore job ended failure: /, '')), failedLine);
    await page.getByText('Back to containers').click();
    await page.waitForSelector('text=web-crash');
    await page.waitForTimeout(1000);
    await page.screenshot({ path: `${shots}/11-containers-after-failed-restore.png`, fullPage: true });
    const crashRow = await rowText(page, 'web-crash');
    check('containers list after the failed Restore: web-crash says the restore failed and why', /restore|reconfiguration/i.test(crashRow) && /failed/i.test(crashRow) && /crash/i.test(crashRow), JSON.stringify(crashRow));
  } finally {
    fs.writeFileSync(path.join(OUT, 'ui-checks.json'), JSON.stringify(checks, null, 1));
    console.log(`${checks.filter((c) => c.ok).length} of ${checks.length} checks passed`);
    await browser.close();
    if (checks.some((c) => !c.ok)) process.exitCode = 1;
  }
})().catch((e) => { console.error(e); process.exit(1); });
