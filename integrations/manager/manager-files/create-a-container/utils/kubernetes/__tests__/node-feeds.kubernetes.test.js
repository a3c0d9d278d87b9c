/**
 * One live status feed per Kubernetes node (kubectl-adapter issue 42), through Manager's own
 * routes and models, against a stand-in adapter whose `list -w` prints the feed's lines as each
 * test says (fake-feed-adapter.js). Every lifecycle transition: synced (the containers list
 * and the status route answer from the feed, no process started), broken and restarting (they
 * answer from `list` meanwhile), capped (the typed error is the node's connection verdict),
 * node edited (a new context starts the feed again, a new waitTimeout does not), node deleted
 * (its adapter ends), and shutdown (stopNodeFeeds, SIGTERM and SIGKILL of the server process).
 */

const path = require('path');
const { spawn } = require('child_process');
const { once } = require('events');
const request = require('supertest');
const { buildApp, bearer } = require('../../../tests/helpers/app');
const { resetDb, closeDb, createUser, createApiKey } = require('../../../tests/helpers/db');
const { Node, Site, Container } = require('../../../models');
const { startNodeFeeds, stopNodeFeeds, feeds } = require('../node-feeds');
const { FakeFeeds, snapshot } = require('./fake-feed-control');

const PROVIDER_ID = 'apps/web';
const SYNCED = { type: 'SYNCED', snapshot: null };
const added = (s) => ({ type: 'ADDED', snapshot: s });

/** The state the feed reaches next (or is in already). */
function reach(feed, state) {
  return feed.state === state ? Promise.resolve() : once(feed, state);
}

describe('Kubernetes node feeds', () => {
  let app;
  let adminKey;
  let site;
  let node;
  let row;
  let fakes;
  let proc; // k8s-1's current feed process
  const containers = (suffix = '') => `/api/v1/sites/${site.id}/containers${suffix}`;
  const nodes = (suffix = '') => `/api/v1/sites/${site.id}/nodes${suffix}`;
  const get = (url) => request(app).get(url).set(...bearer(adminKey));

  beforeAll(async () => {
    await resetDb();
    app = buildApp();
    const admin = await createUser({ uid: 'feedadmin' });
    adminKey = (await createApiKey(admin, 'admin key')).plainKey;
    site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    fakes = new FakeFeeds();
    await fakes.listen();
    process.env.KUBECTL_ADAPTER = fakes.command;
    node = await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', kubeContext: 'a', siteId: site.id });
    row = await Container.create({ hostname: 'web', username: 'feedadmin', template: 'nginx:1.27', nodeId: node.id, siteId: site.id, containerId: PROVIDER_ID });
    fakes.setList([snapshot(PROVIDER_ID, 'offline')]);
    await startNodeFeeds(Node, { backoffMs: [20, 40], maxRestarts: 2 });
    proc = await fakes.next();
  });

  afterAll(async () => {
    await stopNodeFeeds();
    delete process.env.KUBECTL_ADAPTER;
    fakes.close();
    await closeDb();
  });

  test('synced: the containers list and the status route answer from the feed and start no process', async () => {
    expect(proc.argv.slice(-6)).toEqual(['-v', 'list', '-w', '-o', 'json', '--exit-with-parent']);
    expect(proc.argv[proc.argv.indexOf('--context') + 1]).toBe('a');
    // Before its SYNCED: a list, as before the feed.
    const early = (await get(containers(`/${row.id}`))).body.data;
    expect([early.status, early.statusSource]).toEqual(['offline', 'list']);
    await proc.line(added(snapshot(PROVIDER_ID, 'running')));
    await proc.line(SYNCED);
    await reach(feeds.get(node.id), 'synced');
    const before = fakes.starts().length;
    const list = (await get(containers())).body.data.find((c) => c.id === row.id);
    expect([list.status, list.statusSource]).toEqual(['running', 'feed']);
    const one = (await get(containers(`/${row.id}`))).body.data;
    expect([one.status, one.statusSource]).toEqual(['running', 'feed']);
    await proc.line({ type: 'MODIFIED', snapshot: snapshot(PROVIDER_ID, 'failed', { message: 'CrashLoopBackOff' }) });
    expect((await get(containers(`/${row.id}`))).body.data.status).toBe('failed');
    await proc.line({ type: 'DELETED', snapshot: snapshot(PROVIDER_ID, 'missing') });
    expect((await get(containers(`/${row.id}`))).body.data).toMatchObject({ status: 'missing', statusSource: 'feed' });
    await proc.line(added(snapshot(PROVIDER_ID, 'running')));
    expect(fakes.starts().length).toBe(before); // no process for any of these reads
    const shownNode = (await get(nodes(`/${node.id}`))).body.data;
    expect(shownNode.feed).toMatchObject({ state: 'synced', workloads: 1, error: null });
  });

  test('broken, then restarting: reads are lists until the new feed has synced', async () => {
    const feed = feeds.get(node.id);
    const broken = once(feed, 'broken');
    await proc.exit(8, { type: 'Unavailable', message: 'the API server was unreachable for 30 s' });
    const [error] = await broken;
    expect([error.name, feed.state]).toEqual(['UnavailableError', 'restarting']);
    expect((await get(containers(`/${row.id}`))).body.data).toMatchObject({ status: 'offline', statusSource: 'list' });
    proc = await fakes.next();
    await proc.line(added(snapshot(PROVIDER_ID, 'running')));
    await proc.line(SYNCED);
    await reach(feed, 'synced');
    expect((await get(containers(`/${row.id}`))).body.data).toMatchObject({ status: 'running', statusSource: 'feed' });
    expect((await get(nodes(`/${node.id}`))).body.data.feed.restarts).toBe(1);
  });

  test('node edited: a new context starts the feed again; a new waitTimeout keeps it', async () => {
    const put = (body) => request(app).put(nodes(`/${node.id}`)).set(...bearer(adminKey))
      .send({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', ...body });
    const starts = fakes.starts().length;
    expect((await put({ kubeContext: 'a', waitTimeout: '120' })).status).toBe(200);
    expect(fakes.starts().length).toBe(starts);
    const old = proc;
    expect((await put({ kubeContext: 'b', waitTimeout: '120' })).status).toBe(200);
    await old.closed;
    expect(old.alive()).toBe(false);
    proc = await fakes.next();
    expect(proc.argv[proc.argv.indexOf('--context') + 1]).toBe('b');
    expect((await get(containers(`/${row.id}`))).body.data.statusSource).toBe('list');
    await proc.line(added(snapshot(PROVIDER_ID, 'running')));
    await proc.line(SYNCED);
    await reach(feeds.get(node.id), 'synced');
    expect((await get(containers(`/${row.id}`))).body.data.statusSource).toBe('feed');
  });

  test('capped: a feed that never syncs stops trying, and its typed error is the node\'s connection verdict', async () => {
    const made = await request(app).post(nodes()).set(...bearer(adminKey)).send({ name: 'k8s-old', nodeType: 'kubernetes', kubeNamespace: 'apps' });
    expect(made.status).toBe(201);
    const feed = feeds.get(made.body.data.id);
    const capped = once(feed, 'capped');
    const stored = once(feeds, 'verdict');
    for (let i = 0; i < 3; i += 1) {
      // eslint-disable-next-line no-await-in-loop
      const bad = await fakes.next();
      // eslint-disable-next-line no-await-in-loop
      await bad.exit(5, { type: 'Forbidden', message: 'pods is forbidden: User "old" cannot watch resource "pods"' });
    }
    await capped;
    await stored;
    const verdict = (await Node.findByPk(made.body.data.id)).lastConnectionTest;
    expect(verdict).toMatchObject({ ok: false });
    expect(verdict.summary).toMatch(/live status feed stopped after 3 failed starts: ForbiddenError: pods is forbidden/);
    const listed = (await get(nodes())).body.data.find((n) => n.id === made.body.data.id);
    expect(listed.feed).toMatchObject({ state: 'capped', error: { name: 'ForbiddenError', type: 'Forbidden' } });
    expect(listed.lastConnectionTest.ok).toBe(false);
  });

  test('node deleted: its feed ends and its adapter is gone; the other node keeps its own', async () => {
    const made = await request(app).post(nodes()).set(...bearer(adminKey)).send({ name: 'k8s-gone', nodeType: 'kubernetes', kubeNamespace: 'gone' });
    const doomed = await fakes.next();
    expect(doomed.argv[doomed.argv.indexOf('-n') + 1]).toBe('gone');
    expect((await request(app).delete(nodes(`/${made.body.data.id}`)).set(...bearer(adminKey))).status).toBe(204);
    await doomed.closed;
    expect(doomed.alive()).toBe(false);
    expect(feeds.get(made.body.data.id)).toBeNull();
    expect(proc.alive()).toBe(true);
  });

  test('shutdown: stopNodeFeeds ends every feed; SIGTERM and SIGKILL of the server leave no adapter', async () => {
    await stopNodeFeeds();
    await proc.closed;
    expect(proc.alive()).toBe(false);
    for (const signal of ['SIGTERM', 'SIGKILL']) {
      // A server process holding one node's feed, as server.js starts them.
      const server = spawn(process.execPath, ['-e', `
        const nodeFeeds = require(${JSON.stringify(path.join(__dirname, '..', 'node-feeds.js'))});
        const KubernetesApi = require(${JSON.stringify(path.join(__dirname, '..', 'kubernetes-api.js'))});
        nodeFeeds.exitOnSignals();
        nodeFeeds.feeds.enable();
        nodeFeeds.feeds.ensure(new KubernetesApi({ id: 9, name: 'k8s-9', kubeNamespace: 'apps' }, { command: ${JSON.stringify(fakes.command)} }));
        setInterval(() => {}, 1000);
      `], { stdio: 'ignore' });
      const exited = once(server, 'exit');
      // eslint-disable-next-line no-await-in-loop
      const held = await fakes.next();
      server.kill(signal);
      // eslint-disable-next-line no-await-in-loop
      const [code, killedBy] = await exited;
      // eslint-disable-next-line no-await-in-loop
      await held.closed;
      expect(held.alive()).toBe(false);
      expect(signal === 'SIGTERM' ? code : killedBy).toBe(signal === 'SIGTERM' ? 143 : 'SIGKILL');
    }
  });
});
