'use strict';
/**
 * Stand-ins for the clients of Manager's existing node types, for the job simulator: what the
 * change list must keep working beside a Kubernetes node. Written for these tests (not
 * Manager's code); each keeps the behaviour of Manager's real client that the routes depend
 * on, at commit ee03a1bc:
 *
 * - DockerApi: `lxcConfig`/`deleteContainer` of a container that is gone reject the way axios
 *   does for the Engine's 404 ("No such container").
 * - ProxmoxApi: `lxcConfig` of a container that is gone rejects with HTTP 500 "... does not
 *   exist"; a password-login node authenticates inside `Node#api()` (a POST to
 *   /api2/json/access/ticket), so `api()` fails when its API is down.
 *
 * Each class has the static `capabilities()` the change list gives Manager's clients
 * (docs/manager-integration.md, "Capabilities"): a constant per node type, no I/O.
 */

/** An axios-shaped HTTP error, as Manager's clients surface them. */
function httpError(status, message) {
  const error = new Error(`Request failed with status code ${status}`);
  error.response = { status, data: { message, errors: message } };
  return error;
}

/** Today's behaviour of Proxmox and Dummy nodes, as capability flags. */
const PROXMOX_CAPABILITIES = Object.freeze({
  stableMacAddress: true, stableIpAddress: true, vmid: true, storage: true, templates: true,
  registerNetbox: true, registerDns: true, podIpEphemeral: false, reconfigureRollsOut: false,
  createStarts: false, createConverges: false, derivedProviderId: false,
});

/** Docker: the same, except that Docker assigns the container ID at create. */
const DOCKER_CAPABILITIES = Object.freeze({ ...PROXMOX_CAPABILITIES, vmid: false });

class DockerStub {
  static capabilities() {
    return { ...DOCKER_CAPABILITIES };
  }

  constructor(node, engine) {
    this.node = node;
    this.engine = engine; // Map: container ID -> { hostname }
  }

  capabilities() {
    return DockerStub.capabilities();
  }

  async lxcConfig(nodeName, vmid) {
    const found = this.engine.get(String(vmid));
    if (!found) throw httpError(404, `No such container: ${vmid}`);
    return { hostname: found.hostname, rootfs: null };
  }

  async deleteContainer(nodeName, vmid) {
    if (!this.engine.delete(String(vmid))) throw httpError(404, `No such container: ${vmid}`);
    return { data: null };
  }
}

class ProxmoxStub {
  static capabilities() {
    return { ...PROXMOX_CAPABILITIES };
  }

  constructor(node, guests) {
    this.node = node;
    this.guests = guests; // Map: VMID -> { hostname }
    this.logins = 0;
  }

  capabilities() {
    return ProxmoxStub.capabilities();
  }

  /** Password login, as ProxmoxApi#authenticate: a real request to the node's API URL. */
  async authenticate(username, password) {
    this.logins += 1;
    const response = await fetch(`${this.node.apiUrl}/api2/json/access/ticket`, {
      method: 'POST',
      body: JSON.stringify({ username, password }),
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) throw httpError(response.status, 'authentication failure');
  }

  async lxcConfig(nodeName, vmid) {
    const found = this.guests.get(String(vmid));
    if (!found) throw httpError(500, `Configuration file 'nodes/${nodeName}/lxc/${vmid}.conf' does not exist`);
    return { hostname: found.hostname, rootfs: 'local-lvm:vm-1-disk-0,size=50G' };
  }

  async deleteContainer(nodeName, vmid) {
    if (!this.guests.delete(String(vmid))) throw httpError(500, `CT ${vmid} does not exist`);
    return { data: 'UPID:pve:delete' };
  }

  guest(nodeName, vmid) {
    const found = this.guests.get(String(vmid));
    if (!found) throw httpError(500, `Configuration file 'nodes/${nodeName}/lxc/${vmid}.conf' does not exist`);
    return found;
  }

  /** PUT /nodes/{node}/lxc/{vmid}/config: the last config written is kept for the tests. */
  async updateLxcConfig(nodeName, vmid, config) {
    this.guest(nodeName, vmid).config = config;
    return null;
  }

  async getLxcStatus(nodeName, vmid) {
    return { status: this.guest(nodeName, vmid).status || 'running', vmid };
  }

  async stopLxc(nodeName, vmid) {
    this.guest(nodeName, vmid).status = 'stopped';
    return `UPID:${nodeName}:vzstop:${vmid}`;
  }

  async startLxc(nodeName, vmid) {
    this.guest(nodeName, vmid).status = 'running';
    return `UPID:${nodeName}:vzstart:${vmid}`;
  }

  async waitForTask() {
    return { status: 'stopped', exitstatus: 'OK' };
  }

  async getLxcMacAddress(nodeName, vmid) {
    this.guest(nodeName, vmid);
    return `bc:24:11:00:01:${Number(vmid).toString(16).padStart(2, '0')}`;
  }

  async getLxcIpAddress(nodeName, vmid) {
    this.guest(nodeName, vmid);
    return `10.0.0.${vmid}`;
  }
}

module.exports = { DockerStub, ProxmoxStub, DOCKER_CAPABILITIES, PROXMOX_CAPABILITIES, httpError };
