'use strict';
// Manager's Kubernetes provider: spawns `kubectl-adapter` and parses its one JSON document.
// Drop-in shape for Manager's provider surface: create, clusterResources (status of all),
// status, start, stop, reconfigure, delete, network, capabilities, check.

const { spawn } = require('node:child_process');

class AdapterError extends Error {
  /** A typed failure from kubectl-adapter: `type` and `exitCode` are its stable contract. */
  constructor(type, message, details, exitCode) {
    super(message);
    this.name = 'AdapterError';
    this.type = type;
    this.details = details || {};
    this.exitCode = exitCode;
  }
}

class KubernetesProvider {
  /**
   * @param {object} node Manager node settings for a Kubernetes node.
   * @param {string} [node.kubeconfig] kubeconfig path
   * @param {string} [node.context] kubeconfig context
   * @param {string} node.namespace namespace holding the node's Deployments
   * @param {string|number} [node.id] Manager node ID (filters list, guards mutations)
   * @param {string|string[]} [node.command] adapter executable (default `kubectl-adapter`),
   *   or an argv prefix such as ['/usr/bin/python3', '-m', 'kubectl_adapter']
   * @param {string[]} [node.extraArgs] more global flags (e.g. ['--timeout', '120'])
   */
  constructor(node) {
    this.node = node;
    const command = node.command || 'kubectl-adapter';
    [this.command, ...this.commandArgs] = Array.isArray(command) ? command : [command];
  }

  globalArgs() {
    const n = this.node;
    const args = [];
    if (n.kubeconfig) args.push('--kubeconfig', n.kubeconfig);
    if (n.context) args.push('--context', n.context);
    if (n.namespace) args.push('-n', n.namespace);
    if (n.id !== undefined && n.id !== null) args.push('--node-id', String(n.id));
    return args.concat(n.extraArgs || []);
  }

  /** Run one adapter command; resolve with its JSON, reject with an AdapterError. */
  run(args, stdin) {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...this.commandArgs, ...this.globalArgs(), ...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => { out += chunk; });
      child.stderr.on('data', (chunk) => { err += chunk; });
      // An adapter (or wrapper) that exits before reading all of its stdin closes the pipe:
      // writing the spec then fails with EPIPE, which unhandled would end Manager's process.
      // The 'close' handler below reports the failure.
      child.stdin.on('error', () => {});
      child.on('error', (e) => reject(new AdapterError('ConfigurationError', e.message, {}, 9)));
      child.on('close', (code) => {
        let doc;
        try {
          doc = JSON.parse(out);
        } catch (e) {
          reject(new AdapterError('InternalError', `adapter printed no JSON (exit ${code}): ${err.trim().slice(-500)}`, {}, code));
          return;
        }
        const failed = doc !== null && typeof doc === 'object' && doc.error;
        if (code === 0 && !failed) resolve(doc);
        else {
          const e = failed || {};
          reject(new AdapterError(e.type || 'InternalError', e.message || `exit ${code}`, e.details, code));
        }
      });
      child.stdin.end(stdin || '');
    });
  }

  capabilities() { return this.run(['capabilities']); }
  check() { return this.run(['check']); }

  /** Manager's create job: returns a snapshot; store snapshot.providerId as containerId. */
  create(spec) { return this.run(['create', '--spec', '-'], JSON.stringify(spec)); }

  /** Manager's clusterResources(): every container of this node in one call. */
  async clusterResources() { return (await this.run(['list'])).items; }

  status(providerId) { return this.run(['status', providerId]); }
  start(providerId) { return this.run(['start', providerId]); }
  stop(providerId) { return this.run(['stop', providerId]); }
  delete(providerId) { return this.run(['delete', providerId]); }
  network(providerId) { return this.run(['network', providerId]); }

  reconfigure(providerId, spec, { rollbackOnFailure = false } = {}) {
    const args = ['reconfigure', providerId, '--spec', '-'];
    if (rollbackOnFailure) args.push('--rollback-on-failure');
    return this.run(args, JSON.stringify(spec));
  }
}

/** Manager's findInSnapshot works unchanged: vmid === providerId === Container.containerId. */
function findInSnapshot(items, containerId) {
  return items.find((item) => item.vmid === containerId) || null;
}

/** What a shared create job should do with the network result, by capability. */
function networkRegistrationPlan(capabilities, network) {
  return {
    registerNetbox: Boolean(capabilities.registerNetbox && capabilities.stableIpAddress),
    registerDns: Boolean(capabilities.registerDns && capabilities.stableIpAddress),
    storeMac: Boolean(capabilities.stableMacAddress && network.macAddress),
    displayIp: network.ipv4Address || null,
  };
}

module.exports = { KubernetesProvider, AdapterError, findInSnapshot, networkRegistrationPlan };
