'use strict';
// The node as Manager's plan names it (#459) and what its form and container list show:
// the node routes' validation and serialization, Node#hasApiAccess/provisionable, Node#api()
// dispatch, the form's connection test (#460's failures, typed), and drift on the container
// JSON. Through the simulator's routes, against the fake API server and the real kubectl.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const KubernetesApi = require('../kubernetes-api');
const { RouteError, validateNodeInput } = require('../testing/manager-sim');
const { Scenario } = require('../testing/scenario');

const STEP = { timeout: 90_000 };
const scenario = new Scenario('nodesns');
let manager;

before(async () => {
  await scenario.start();
  ({ manager } = scenario);
});
after(() => scenario.stop());

const rejectsWith = (code) => (e) => e instanceof RouteError && e.status === 400 && e.code === code;

test('POST /nodes accepts kubernetes with #459\'s fields; kubeNamespace defaults to "default"', () => {
  const bare = manager.postNode(4, { name: 'k8s-bare', nodeType: 'kubernetes' });
  assert.equal(bare.status, 201);
  assert.deepEqual(
    [bare.body.nodeType, bare.body.kubeconfigPath, bare.body.kubeContext, bare.body.kubeNamespace, bare.body.waitTimeout],
    ['kubernetes', null, null, 'default', null],
  );
  const full = manager.postNode(4, {
    name: 'k8s-full', nodeType: 'kubernetes', kubeconfigPath: '/etc/manager/prod.kubeconfig', kubeContext: 'prod',
    kubeNamespace: 'apps', waitTimeout: '120',
  }).body;
  assert.deepEqual([full.kubeconfigPath, full.kubeContext, full.kubeNamespace, full.waitTimeout], ['/etc/manager/prod.kubeconfig', 'prod', 'apps', 120]);
  const edited = manager.putNode(full.id, { name: 'k8s-full', kubeNamespace: '', waitTimeout: '' }).body;
  assert.deepEqual([edited.nodeType, edited.kubeNamespace, edited.waitTimeout, edited.kubeContext], ['kubernetes', 'default', null, null]);
});

test('create and update refuse a Kubernetes configuration that cannot work', () => {
  const k = (fields) => ({ name: 'k', nodeType: 'kubernetes', ...fields });
  for (const [fields, code] of [
    [{ kubeNamespace: 'Apps_1' }, 'invalid_kube_namespace'],
    [{ kubeNamespace: 'a'.repeat(64) }, 'invalid_kube_namespace'],
    [{ kubeconfigPath: 'relative/kubeconfig' }, 'invalid_kubeconfig_path'],
    // A kubeconfig pasted into the field is refused, so its content is never stored.
    [{ kubeconfigPath: '/apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: LS0t' }, 'invalid_kubeconfig_path'],
    [{ kubeContext: 'two words' }, 'invalid_kube_context'],
    [{ waitTimeout: 0 }, 'invalid_wait_timeout'],
    [{ waitTimeout: '1.5' }, 'invalid_wait_timeout'],
    [{ waitTimeout: 86401 }, 'invalid_wait_timeout'],
  ]) {
    assert.throws(() => manager.postNode(4, k(fields)), rejectsWith(code), JSON.stringify(fields));
  }
  const [stored] = manager.nodes.filter((n) => n.name === 'k8s-full');
  assert.throws(() => manager.putNode(stored.id, { kubeNamespace: 'UPPER' }), rejectsWith('invalid_kube_namespace'));
  assert.equal(stored.kubeNamespace, 'default');
  assert.throws(() => manager.postNode(4, { name: 'x', nodeType: 'k8s' }), rejectsWith('invalid_node_type'));
});

test('Proxmox, Docker and Dummy nodes are created as before and store no Kubernetes field', () => {
  for (const body of [
    { name: 'pve-9', apiUrl: 'https://pve:8006', tokenId: 'root@pam!t', secret: 's', kubeNamespace: 'apps' },
    { name: 'docker-9', nodeType: 'docker', apiUrl: 'unix:///var/run/docker.sock', kubeconfigPath: '/k' },
    { name: 'dummy-9', nodeType: 'dummy' },
  ]) {
    const { body: node } = manager.postNode(5, body);
    assert.equal(node.nodeType, body.nodeType || 'proxmox');
    assert.deepEqual([node.kubeconfigPath, node.kubeContext, node.kubeNamespace, node.waitTimeout], [null, null, null, null]);
  }
  assert.deepEqual(validateNodeInput({}).nodeType, 'proxmox');
});

test('serialization answers the kubeconfig\'s path, never its content or a secret', () => {
  const { body } = manager.getNode(scenario.k8s.id);
  assert.equal(body.kubeconfigPath, scenario.cluster.kubeconfig);
  const content = fs.readFileSync(scenario.cluster.kubeconfig, 'utf8');
  const secrets = [...content.matchAll(/(?:token|certificate-authority-data): (\S+)/g)].map((m) => m[1]);
  assert.ok(secrets.length >= 2);
  const shown = JSON.stringify(body);
  for (const secret of secrets) assert.ok(!shown.includes(secret));
  assert.ok(!('secret' in body));
});

test('a Kubernetes node with only a name is provisionable, and Node#api() builds its KubernetesApi', STEP, async () => {
  const node = manager.postNode(6, { name: 'k8s-defaults', nodeType: 'kubernetes' }).body;
  const row = manager.node(node.id);
  assert.equal(manager.hasApiAccess(row), true);
  const client = await manager.nodeApi(row);
  assert.ok(client instanceof KubernetesApi);
  assert.deepEqual(client.cli.globalArgs.slice(0, 4), ['-n', 'default', '--node-id', String(node.id)]);
  const scenarioClient = await manager.nodeApi(scenario.k8s);
  assert.deepEqual(scenarioClient.cli.globalArgs.slice(0, 6), [
    '--context', scenario.cluster.context, '--kubeconfig', scenario.cluster.kubeconfig, '-n', 'nodesns',
  ]);
  // POST /containers places a container on it (site 6 has no other node).
  const { row: container } = await manager.postContainer({ hostname: 'placed-1', template: 'nginx:latest', siteId: 6 });
  assert.equal(container.nodeId, node.id);
});

test('the form\'s connection test runs check: a working node, then #460\'s failures typed', STEP, async () => {
  const form = { name: 'k8s-new', nodeType: 'kubernetes', kubeconfigPath: scenario.cluster.kubeconfig, kubeContext: scenario.cluster.context, kubeNamespace: 'nodesns' };
  const good = await manager.testNodeConnection(1, form);
  assert.equal(good.status, 200);
  assert.equal(good.body.ok, true);
  assert.equal(good.body.check.namespaceExists, true);
  assert.deepEqual(good.body.nodes.map((n) => [n.name, n.ready, typeof n.internalIp]), [['fake-node-1', true, 'string']]);

  const missingNs = await manager.testNodeConnection(1, { ...form, kubeNamespace: 'not-there' });
  assert.equal(missingNs.body.ok, false);
  assert.equal(missingNs.body.check.namespaceExists, false);

  const wrongCa = path.join(scenario.cluster.tmp, 'form-wrong-ca.kubeconfig');
  await scenario.cluster.writeWrongCaKubeconfig(wrongCa);
  for (const [fields, name] of [
    [{ kubeconfigPath: path.join(scenario.cluster.tmp, 'none.kubeconfig') }, 'KubeconfigNotFoundError'],
    [{ kubeContext: 'nope' }, 'ContextNotFoundError'],
    [{ kubeconfigPath: wrongCa }, 'TlsVerificationError'],
  ]) {
    const { body } = await manager.testNodeConnection(1, { ...form, ...fields });
    assert.equal(body.ok, false);
    assert.equal(body.error.name, name, JSON.stringify(body.error));
    assert.equal(body.error.retryable, false);
  }
  await assert.rejects(manager.testNodeConnection(1, { ...form, kubeNamespace: 'BAD' }), rejectsWith('invalid_kube_namespace'));
  await assert.rejects(manager.testNodeConnection(1, { name: 'd', nodeType: 'dummy' }), rejectsWith('connection_test_unsupported'));
});

test('drift: the container JSON says what changed outside Manager; a reconfigure restores it', STEP, async () => {
  const { row, job } = await scenario.createAndRun({ hostname: 'drifty', template: 'nginx:latest' });
  assert.equal(job.status, 'success', job.output.join('\n'));
  const listed = () => manager.listContainers().then((all) => all.find((c) => c.id === row.id));
  assert.deepEqual(await listed(), { id: row.id, hostname: 'drifty', nodeId: scenario.k8s.id, containerId: row.containerId, status: 'running', drift: { state: 'in-sync', summary: '', changes: [] },
    nodeType: 'kubernetes', creationJob: { id: job.id, status: 'success', headline: null }, canRetryCreate: false });

  await scenario.cluster.setImage(row.containerId, 'nginx:1.28');
  const drifted = await listed();
  assert.equal(drifted.drift.state, 'drifted');
  assert.match(drifted.drift.summary, /image changed to nginx:1\.28 by kubectl-set/);
  assert.equal(drifted.status, 'running');

  // "Restore Manager's configuration": the reconfigure job with the stored spec, no change.
  const restore = await manager.putContainer(row.id, {});
  await manager.run(restore);
  assert.equal(restore.status, 'success', restore.output.join('\n'));
  assert.equal((await listed()).drift.state, 'in-sync');
  assert.equal((await scenario.podTemplate(row.containerId)).env.TZ, 'UTC');

  // Nodes that report no drift (Proxmox, Docker, Dummy) answer null.
  const other = manager.containers.insert({ hostname: 'pve-guest', nodeId: 22, siteId: 2, containerId: '104', template: 'debian' });
  assert.equal((await manager.listContainers()).find((c) => c.id === other.id).drift, null);
  other.destroy();
  await scenario.assertNoOrphans();
});

test('an upgraded node whose Role lacks watch on pods: the nodes list shows its context, namespace and what to apply', STEP, async () => {
  const { cluster } = scenario;
  const user = await cluster.addUser('upgraded', cluster.namespace);
  await cluster.grantRole('upgraded', (text) => text.replace(/(resources: \["pods"\]\n\s+verbs: )\["list", "watch"\]/, '$1["list"]'));
  const node = manager.postNode(5, {
    name: 'k8s-old', nodeType: 'kubernetes', kubeconfigPath: cluster.kubeconfig, kubeContext: user.context,
    kubeNamespace: cluster.namespace, waitTimeout: '20',
  }).body;
  const listed = () => manager.listNodes(5).body.find((n) => n.id === node.id);
  assert.deepEqual([listed().kubeContext, listed().kubeNamespace, listed().lastConnectionTest], [user.context, cluster.namespace, null]);

  // The form's Test connection on the saved node: its verdict is kept for the list.
  const tested = (await manager.testNodeConnection(5, { ...node, id: node.id })).body;
  assert.deepEqual(tested.hints, ["this node's Role lacks watch on pods: apply rbac/role.yaml again"]);
  const last = listed().lastConnectionTest;
  assert.equal(last.ok, false);
  assert.equal(last.summary, 'missing permissions: watch pods (core)');
  assert.deepEqual(last.hints, tested.hints);
  assert.ok(!Number.isNaN(Date.parse(last.at)));

  // A working node's verdict reads as the form shows it.
  const good = (await manager.testNodeConnection(1, { ...scenario.k8s, id: scenario.k8s.id })).body;
  assert.equal(good.ok, true);
  assert.match(manager.listNodes(1).body.find((n) => n.id === scenario.k8s.id).lastConnectionTest.summary, /^Server v1\.\d+\.\d+, namespace nodesns exists$/);
});
