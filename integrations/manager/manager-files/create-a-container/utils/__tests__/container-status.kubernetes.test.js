/**
 * Status and drift of Kubernetes containers: the adapter answers in Manager's words (a Pod
 * that will not start is `failed`, not `offline`) and says what changed outside Manager, in
 * the one clusterResources('lxc') call per node the list already makes. The entries are built
 * by the client's own spec.toClusterResource, as the node's api() returns them; Proxmox-shaped
 * entries (no managerStatus, no drift) keep today's running/offline and show no drift.
 */

const spec = require('../kubernetes/lib/spec');
const {
  decideStatus,
  computeContainerState,
  computeContainerStates,
  computeContainerStatuses,
} = require('../container-status');

function snapshot(name, status, drift) {
  return {
    providerId: `apps/${name}`, name, namespace: 'apps', status, message: '', containerId: '1', nodeId: '1',
    replicas: 1, readyReplicas: status === 'running' ? 1 : 0, ipv4Address: null, ephemeralIp: true, drift,
  };
}

function nodeWith(resources, calls) {
  return {
    id: 7,
    nodeType: 'kubernetes',
    hasApiAccess: () => true,
    api: async () => ({
      clusterResources: async (type) => {
        calls.push(type);
        return resources;
      },
    }),
  };
}

// the adapter's drift as `list` reports it (docs/lifecycle.md); Manager shows all but `restored`
const CHANGE = { what: 'image', change: 'changed', path: 'spec.template.spec.containers[name=main].image', name: null, by: ['kubectl-set'], value: 'nginx:1.28' };
const ADAPTER_DRIFT = { state: 'drifted', changes: [CHANGE], summary: 'image changed to nginx:1.28 by kubectl-set', restored: [] };
const DRIFTED = { state: 'drifted', summary: 'image changed to nginx:1.28 by kubectl-set', changes: [CHANGE] };

// Processes and a fresh sqlite schema per file: on a shared, loaded 2-core machine a hook takes
// longer than jest's default 5 s.
jest.setTimeout(30000);

describe('container status and drift from a Kubernetes node', () => {
  test('decideStatus shows the node\'s own word when it is one of Manager\'s, else running/offline', () => {
    const base = { proxmoxReachable: true, inProxmox: true, hasVmid: true, creating: false, createFailed: false };
    expect(decideStatus({ ...base, proxmoxRunning: false, providerStatus: 'failed' })).toBe('failed');
    expect(decideStatus({ ...base, proxmoxRunning: false, providerStatus: 'creating' })).toBe('creating');
    expect(decideStatus({ ...base, proxmoxRunning: true })).toBe('running');
    expect(decideStatus({ ...base, proxmoxRunning: false })).toBe('offline');
    expect(decideStatus({ ...base, proxmoxRunning: true, providerStatus: 'stopped' })).toBe('running');
  });

  test('one call per node gives every container its status and drift', async () => {
    const calls = [];
    const resources = [
      spec.toClusterResource(snapshot('web', 'failed', ADAPTER_DRIFT), 'k8s-1'),
      spec.toClusterResource(snapshot('api', 'running', { state: 'in-sync', summary: '', changes: [] }), 'k8s-1'),
      spec.toClusterResource(snapshot('old', 'running', undefined), 'k8s-1'),
    ];
    const node = nodeWith(resources, calls);
    const containers = ['web', 'api', 'old'].map((name, i) => ({
      id: i + 1, node, containerId: `apps/${name}`, creationJob: { id: 10 + i, status: 'success' },
    }));
    const states = await computeContainerStates(containers, {});
    expect(calls).toEqual(['lxc']);
    expect(states.get(1)).toEqual({ status: 'failed', drift: DRIFTED });
    expect(states.get(2)).toEqual({ status: 'running', drift: { state: 'in-sync', summary: '', changes: [] } });
    // an adapter that reports no drift: 'unknown', which the page does not show
    expect(states.get(3)).toEqual({ status: 'running', drift: null });
    const statuses = await computeContainerStatuses(containers, {});
    expect(Array.from(statuses)).toEqual([[1, 'failed'], [2, 'running'], [3, 'running']]);
  });

  test('a Proxmox-shaped entry keeps running/offline and has no drift', async () => {
    const calls = [];
    const node = nodeWith([{ vmid: 105, name: 'ct', type: 'lxc', status: 'stopped', node: 'pve-01' }], calls);
    const state = await computeContainerState({ container: { id: 1, node, containerId: 105, creationJob: null }, Job: {} });
    expect(state).toEqual({ status: 'offline', drift: null });
  });

  test('a container its node does not list reads missing or failed from its create job, without drift', async () => {
    const node = nodeWith([], []);
    const gone = await computeContainerState({ container: { id: 1, node, containerId: 'apps/gone', creationJob: { id: 1, status: 'success' } }, Job: {} });
    expect(gone).toEqual({ status: 'missing', drift: null });
    const failed = await computeContainerState({ container: { id: 2, node, containerId: null, creationJob: { id: 2, status: 'failure' } }, Job: {} });
    expect(failed).toEqual({ status: 'failed', drift: null });
  });
});
