/**
 * Routed services on a Kubernetes node (issue 40): the site proxy routes HTTP and transport
 * (TCP/UDP) services to the container's IP, which a Pod does not keep, so `POST /` and
 * `PUT /:id` answer 400 `services_unsupported_on_node` (`hasRoutedService`) and store nothing;
 * a DNS (SRV) service needs no IP and passes; a Dummy node takes a TCP service as before; the
 * owner change's `updateLxcConfig` carries `{ container }` and makes no cluster call.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const request = require('supertest');
const { buildApp, bearer } = require('../../../../tests/helpers/app');
const { resetDb, closeDb, createUser, createApiKey } = require('../../../../tests/helpers/db');
const { Container, Node, Service, Site } = require('../../../../models');
const KubernetesApi = require('../../../../utils/kubernetes/kubernetes-api');

const TCP = { 0: { type: 'tcp', internalPort: '22' } };
const SRV = { 0: { type: 'srv', internalPort: '5060', dnsName: '_sip._tcp' } };

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('routed services on a Kubernetes node', () => {
  let app;
  let adminKey;
  let k8sSite;
  let dummySite;
  let tmp;

  beforeAll(async () => {
    await resetDb();
    app = buildApp();
    const admin = await createUser({ uid: 'first-admin' });
    adminKey = (await createApiKey(admin, 'key')).plainKey;
    await createUser({ uid: 'bob' });
    k8sSite = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    dummySite = await Site.create({ name: 'dummy-site', internalDomain: 'dummy.test' });
    await Node.create({ name: 'k8s-1', nodeType: 'kubernetes', kubeNamespace: 'apps', siteId: k8sSite.id });
    await Node.create({ name: 'dummy-1', nodeType: 'dummy', siteId: dummySite.id });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-services-'));
    // Any adapter call is a failure of this test: the log must stay empty.
    const adapter = path.join(tmp, 'kubectl-adapter');
    fs.writeFileSync(adapter, `#!/bin/sh\necho "$@" >> ${path.join(tmp, 'calls.log')}\nexit 1\n`, { mode: 0o755 });
    process.env.KUBECTL_ADAPTER = adapter;
  });

  afterAll(async () => {
    delete process.env.KUBECTL_ADAPTER;
    fs.rmSync(tmp, { recursive: true, force: true });
    await closeDb();
  });

  const post = (site, body) => request(app).post(`/api/v1/sites/${site.id}/containers`).set(...bearer(adminKey))
    .send({ template: 'nginx:latest', ...body });
  const put = (site, id, body) => request(app).put(`/api/v1/sites/${site.id}/containers/${id}`).set(...bearer(adminKey)).send(body);

  test('POST / with a TCP service on a Kubernetes node: 400 services_unsupported_on_node, no row', async () => {
    const res = await post(k8sSite, { hostname: 'web-tcp', services: TCP });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('services_unsupported_on_node');
    expect(res.body.error.message).toMatch(/no stable container IP/);
    expect(await Container.findOne({ where: { hostname: 'web-tcp' } })).toBeNull();
  });

  test('POST / with an HTTP service on a Kubernetes node is refused the same way', async () => {
    const res = await post(k8sSite, { hostname: 'web-http', services: { 0: { type: 'http', internalPort: '80', externalHostname: 'web', externalDomainId: '1' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('services_unsupported_on_node');
  });

  test('POST / with only a DNS (SRV) service on a Kubernetes node: 201', async () => {
    const res = await post(k8sSite, { hostname: 'web-srv', services: SRV });
    expect(res.status).toBe(201);
    const row = await Container.findOne({ where: { hostname: 'web-srv' } });
    expect(await Service.count({ where: { containerId: row.id } })).toBe(1);
  });

  test('PUT /:id adding a TCP service to a Kubernetes container: 400, nothing stored; the owner change passes { container } with no cluster call', async () => {
    const row = await Container.findOne({ where: { hostname: 'web-srv' } });
    await row.update({ containerId: 'apps/web-srv' });
    const refused = await put(k8sSite, row.id, { services: TCP });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('services_unsupported_on_node');
    expect(await Service.count({ where: { containerId: row.id } })).toBe(1);

    const update = jest.spyOn(KubernetesApi.prototype, 'updateLxcConfig');
    const owner = await put(k8sSite, row.id, { username: 'bob', services: {} });
    expect(owner.status).toBe(200);
    expect(update).toHaveBeenCalledWith('k8s-1', 'apps/web-srv', { tags: 'bob' }, { container: expect.objectContaining({ id: row.id }) });
    update.mockRestore();
    await row.reload();
    expect(row.username).toBe('bob');
    expect(fs.existsSync(path.join(tmp, 'calls.log'))).toBe(false);
  });

  test('a Dummy node takes a TCP service, as before', async () => {
    const res = await post(dummySite, { hostname: 'dummy-tcp', services: TCP });
    expect(res.status).toBe(201);
    const row = await Container.findOne({ where: { hostname: 'dummy-tcp' } });
    expect(await Service.count({ where: { containerId: row.id, type: 'transport' } })).toBe(1);
  });
});
