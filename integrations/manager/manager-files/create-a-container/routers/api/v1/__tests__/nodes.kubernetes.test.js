/**
 * Kubernetes nodes (#459, "tests for configuration and dispatch"): the node type and its
 * fields through the real routes, serialization without kubeconfig content, Proxmox, Docker
 * and Dummy unchanged, Node#api() dispatch, capabilities, and the form's connection test
 * through a stand-in adapter (KUBECTL_ADAPTER) whose verdict the nodes list keeps.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const request = require('supertest');
const { buildApp, bearer } = require('../../../../tests/helpers/app');
const { resetDb, closeDb, createUser, createApiKey } = require('../../../../tests/helpers/db');
const { Node, Site } = require('../../../../models');
const KubernetesApi = require('../../../../utils/kubernetes/kubernetes-api');

/**
 * A stand-in `kubectl-adapter`: answers `check` from DIR/check.json when there is one, else a
 * TLS failure. (A file, not an env var: jest sandboxes process.env, child processes do not see it.)
 */
function standInAdapter(dir) {
  const file = path.join(dir, 'kubectl-adapter');
  fs.writeFileSync(file, `#!${process.execPath}
const fs = require('fs');
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(path.join(dir, 'argv'))}, JSON.stringify(argv) + '\\n');
const planned = ${JSON.stringify(path.join(dir, 'check.json'))};
if (fs.existsSync(planned) && argv.includes('check')) {
  process.stdout.write(fs.readFileSync(planned, 'utf8'));
  process.exit(5);
}
process.stdout.write(JSON.stringify({ error: { type: 'ConfigurationError',
  message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority',
  details: { reason: 'TLS verification failed', stderr: 'token=sekret-token-123 was redacted upstream' } } }));
process.exit(9);
`, { mode: 0o755 });
  return file;
}

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('Kubernetes nodes', () => {
  let app;
  let adminKey;
  let site;
  let tmp;
  const base = () => `/api/v1/sites/${site.id}/nodes`;

  beforeAll(async () => {
    await resetDb();
    app = buildApp();
    const admin = await createUser({ uid: 'kubeadmin' });
    adminKey = (await createApiKey(admin, 'admin key')).plainKey;
    site = await Site.create({ name: 'k8s-site', internalDomain: 'k8s.test' });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-nodes-'));
    process.env.KUBECTL_ADAPTER = standInAdapter(tmp);
  });

  afterAll(async () => {
    delete process.env.KUBECTL_ADAPTER;
    fs.rmSync(tmp, { recursive: true, force: true });
    await closeDb();
  });

  const post = (body) => request(app).post(base()).set(...bearer(adminKey)).send(body);

  test('kubernetes is a node type; kubeNamespace defaults to "default"; the form\'s strings are read', async () => {
    const bare = await post({ name: 'k8s-bare', nodeType: 'kubernetes' });
    expect(bare.status).toBe(201);
    expect(bare.body.data).toMatchObject({ nodeType: 'kubernetes', kubeconfigPath: null, kubeContext: null, kubeNamespace: 'default', waitTimeout: null, lastConnectionTest: null });
    const full = await post({ name: 'k8s-full', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/k8s.kubeconfig', kubeContext: 'prod', kubeNamespace: 'apps', waitTimeout: '120' });
    expect(full.status).toBe(201);
    expect(full.body.data).toMatchObject({ kubeconfigPath: '/etc/manager/k8s.kubeconfig', kubeContext: 'prod', kubeNamespace: 'apps', waitTimeout: 120 });
    const stored = await Node.findByPk(full.body.data.id);
    expect([stored.kubeconfigPath, stored.kubeNamespace, stored.waitTimeout]).toEqual(['/etc/manager/k8s.kubeconfig', 'apps', 120]);
    const edited = await request(app).put(`${base()}/${stored.id}`).set(...bearer(adminKey)).send({ name: 'k8s-full', kubeNamespace: '', waitTimeout: '' });
    expect(edited.status).toBe(200);
    expect([edited.body.data.kubeNamespace, edited.body.data.waitTimeout]).toEqual(['default', null]);
  });

  test.each([
    [{ kubeconfigPath: 'relative.kubeconfig' }, 'invalid_kubeconfig_path'],
    [{ kubeconfigPath: 'apiVersion: v1\nclusters:\n- cluster: {}' }, 'invalid_kubeconfig_path'],
    [{ kubeContext: 'two words' }, 'invalid_kube_context'],
    [{ kubeNamespace: 'Bad_NS' }, 'invalid_kube_namespace'],
    [{ waitTimeout: '0' }, 'invalid_wait_timeout'],
    [{ waitTimeout: '1.5' }, 'invalid_wait_timeout'],
    [{ waitTimeout: '86401' }, 'invalid_wait_timeout'],
  ])('refuses %j with 400 %s', async (fields, code) => {
    const res = await post({ name: 'k8s-bad', nodeType: 'kubernetes', ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });

  test('Proxmox, Docker and Dummy nodes store none of the fields, and keep their behaviour', async () => {
    for (const body of [
      { name: 'pve-x', nodeType: 'proxmox', apiUrl: 'https://pve.test:8006', tokenId: 'root@pam!t', secret: 's', kubeNamespace: 'apps' },
      { name: 'docker-x', nodeType: 'docker', apiUrl: 'unix:///var/run/docker.sock', kubeconfigPath: '/x' },
      { name: 'dummy-x', nodeType: 'dummy', waitTimeout: '5' },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ kubeconfigPath: null, kubeContext: null, kubeNamespace: null, waitTimeout: null });
    }
    const wrongType = await post({ name: 'x', nodeType: 'lxd' });
    expect(wrongType.body.error.message).toBe('Node type must be proxmox, docker, dummy, or kubernetes');
  });

  test('Node#api() builds a KubernetesApi with the row\'s flags; capabilities need no client', async () => {
    const node = Node.build({ id: 9, name: 'k8s-9', nodeType: 'kubernetes', kubeconfigPath: '/k', kubeContext: 'c', kubeNamespace: 'apps', waitTimeout: 45 });
    expect(node.hasApiAccess()).toBe(true);
    const api = await node.api();
    expect(api).toBeInstanceOf(KubernetesApi);
    expect(api.cli.globalArgs).toEqual(['--context', 'c', '--kubeconfig', '/k', '-n', 'apps', '--node-id', '9', '--timeout', '45']);
    expect(node.capabilities()).toMatchObject({ createConverges: true, stableIpAddress: false, vmid: false });
    expect(Node.build({ name: 'p', nodeType: 'proxmox' }).capabilities()).toMatchObject({ createConverges: false, vmid: true });
    expect(Node.build({ name: 'd', nodeType: 'docker' }).capabilities()).toMatchObject({ vmid: false, stableIpAddress: true });
    const bare = await Node.create({ name: 'k8s-only-name', nodeType: 'kubernetes', siteId: site.id });
    const provisionable = await Node.findAll({ where: { siteId: site.id, ...Node.provisionableWhere() } });
    expect(provisionable.map((n) => n.name)).toContain('k8s-only-name');
    await bare.destroy();
  });

  test('the connection test answers the typed failure without any secret', async () => {
    const res = await request(app).post(`${base()}/test-connection`).set(...bearer(adminKey))
      .send({ name: 'k8s-new', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/k8s.kubeconfig' });
    expect(res.status).toBe(200);
    expect(res.body.data.ok).toBe(false);
    expect(res.body.data.error).toMatchObject({ name: 'TlsVerificationError', retryable: false });
    expect(JSON.stringify(res.body)).not.toContain('sekret-token-123');
    const other = await request(app).post(`${base()}/test-connection`).set(...bearer(adminKey)).send({ name: 'd', nodeType: 'dummy' });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('connection_test_unsupported');
  });

  test('an upgraded node\'s Role lacking watch on pods: the test says to apply rbac/role.yaml again, and the nodes list keeps it', async () => {
    const check = {
      ok: false, kubectl: 'kubectl', clientVersion: 'v1.32.0', serverVersion: 'v1.32.0', context: 'old', namespace: 'apps',
      namespaceExists: true, permissions: [], missingPermissions: ['watch pods (core)'], capabilities: {},
    };
    fs.writeFileSync(path.join(tmp, 'check.json'), JSON.stringify(check));
    const node = (await post({ name: 'k8s-old', nodeType: 'kubernetes', kubeNamespace: 'apps', kubeContext: 'old' })).body.data;
    const res = await request(app).post(`${base()}/test-connection`).set(...bearer(adminKey)).send({ ...node, id: node.id });
    fs.rmSync(path.join(tmp, 'check.json'));
    expect(res.body.data.hints).toEqual(["this node's Role lacks watch on pods: apply rbac/role.yaml again"]);
    const listed = (await request(app).get(base()).set(...bearer(adminKey))).body.data.find((n) => n.id === node.id);
    expect(listed).toMatchObject({ kubeContext: 'old', kubeNamespace: 'apps' });
    expect(listed.lastConnectionTest).toMatchObject({ ok: false, summary: 'missing permissions: watch pods (core)', hints: res.body.data.hints });
  });
});
