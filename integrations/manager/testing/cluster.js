'use strict';
// Test support: the fake Kubernetes API server (tests/fakecluster, via fake_cluster.py) with a
// control channel, the adapter command to test, and the real kubectl for independent checks.
//
// Environment overrides:
//   KUBECTL_ADAPTER  the adapter executable (default: <repo>/.venv/bin/kubectl-adapter, else
//                    `$PYTHON -m kubectl_adapter`)
//   PYTHON           interpreter for the fake cluster (and the adapter fallback); default
//                    <repo>/.venv/bin/python, else python3

const { spawn, execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = path.join(VENV_BIN, 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

function adapterCommand() {
  if (process.env.KUBECTL_ADAPTER) return process.env.KUBECTL_ADAPTER;
  const venv = path.join(VENV_BIN, 'kubectl-adapter');
  if (!process.env.PYTHON && fs.existsSync(venv)) return venv;
  return [python(), '-m', 'kubectl_adapter'];
}

class FakeCluster {
  /**
   * @param {object} [size] the one fake node's `cpu` and `memory` (default 4 CPUs, 8Gi), and
   *   `podReadyDelay`, the seconds a new Pod takes to be Ready (default 0.2)
   */
  constructor(namespace, size = {}) {
    this.namespace = namespace;
    this.size = size;
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'manager-k8s-test-'));
    this.caches = 0;
    this.pending = [];
    this.log = '';
  }

  /** Start the server; resolve once its kubeconfig is written. */
  start() {
    return new Promise((resolve, reject) => {
      this.proc = spawn(
        python(),
        [path.join(__dirname, 'fake_cluster.py'), '--dir', path.join(this.tmp, 'fake'), '--namespace', this.namespace,
          '--node-cpu', this.size.cpu || '4', '--node-memory', this.size.memory || '8Gi',
          '--pod-ready-delay', String(this.size.podReadyDelay || 0.2)],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      this.proc.stderr.on('data', (chunk) => { this.log += chunk; });
      const timer = setTimeout(() => reject(new Error(`fake cluster did not start in 30 s:\n${this.log}`)), 30_000);
      let ready = false;
      readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
        if (!ready) {
          ready = true;
          clearTimeout(timer);
          Object.assign(this, JSON.parse(line));
          resolve(this);
          return;
        }
        const waiter = this.pending.shift();
        if (waiter) waiter(JSON.parse(line));
      });
      this.proc.on('error', (e) => { clearTimeout(timer); reject(e); });
      this.proc.on('exit', (code) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`fake cluster exited with ${code}:\n${this.log}`));
      });
    });
  }

  /** One control request (see fake_cluster.py); rejects when the server says it failed. */
  control(request) {
    return new Promise((resolve, reject) => {
      this.pending.push((reply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
      this.proc.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  failNext(count, code, method, pathRegex) {
    return this.control({ op: 'failNext', count, code, method, pathRegex });
  }

  clearFaults() {
    return this.control({ op: 'clearFaults' });
  }

  /** The API stops listening (connection refused) until up(). */
  down() {
    return this.control({ op: 'down' });
  }

  up() {
    return this.control({ op: 'up' });
  }

  /** The API goes down right after it answered the next matching request. */
  downAfter(method, pathRegex) {
    return this.control({ op: 'downAfter', method, pathRegex });
  }

  /** A user the API server knows, with no RBAC at all: `{token, context}` (context in the kubeconfig). */
  addUser(name, namespace = null) {
    return this.control({ op: 'addUser', name, namespace });
  }

  /** The API server no longer accepts this token (401). */
  revokeToken(token) {
    return this.control({ op: 'revokeToken', token });
  }

  /** Pods made from now on whose image contains `image` behave so ('crash', 'pull_error', ...; null: as usual). */
  setImageBehaviour(image, behaviour) {
    return this.control({ op: 'imageBehaviour', image, behaviour });
  }

  /** Containers whose image contains `image` take `seconds` to stop once their Pod is deleted (null: as usual). */
  setStopDelay(image, seconds) {
    return this.control({ op: 'stopDelay', image, seconds });
  }

  /** Write a copy of the kubeconfig trusting another CA than the one that signed the server's certificate. */
  writeWrongCaKubeconfig(file) {
    return this.control({ op: 'wrongCaKubeconfig', path: file });
  }

  /** Change a Deployment the way an operator's kubectl would (kubectl set image, field manager kubectl-set). */
  setImage(providerId, image) {
    const [namespace, name] = providerId.split('/');
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', this.kubeconfig, '--context', this.context, '--cache-dir', this.freshCache(),
          '-n', namespace, 'set', 'image', `deployment/${name}`, `main=${image}`],
        { timeout: 30_000 },
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
      );
    });
  }

  /**
   * Grant user `name` in this namespace the project's Role as an earlier version shipped it:
   * rbac/role.yaml with `edit(text)` applied (e.g. without `watch` on pods, as before issue 24),
   * bound to the user. Applied with the admin's kubectl, as an operator would.
   */
  grantRole(name, edit = (text) => text) {
    const role = edit(fs.readFileSync(path.join(ROOT, 'rbac', 'role.yaml'), 'utf8'))
      .replace(/namespace: manager$/m, `namespace: ${this.namespace}`)
      .replace(/name: opensource-server-manager$/m, `name: role-${name}`);
    const binding = [
      'apiVersion: rbac.authorization.k8s.io/v1', 'kind: RoleBinding',
      `metadata: {name: role-${name}, namespace: ${this.namespace}}`,
      `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-${name}}`,
      `subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ${name}}]`,
    ].join('\n');
    return new Promise((resolve, reject) => {
      const child = execFile(
        'kubectl',
        ['--kubeconfig', this.kubeconfig, '--context', this.context, '--cache-dir', this.freshCache(), 'apply', '-f', '-'],
        { timeout: 30_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`kubectl apply failed: ${stderr}`)) : resolve(stdout)),
      );
      child.stdin.end(`${role}\n---\n${binding}\n`);
    });
  }

  /** The stored Deployment's metadata.uid (null when there is none). */
  async deploymentUid(providerId) {
    const [namespace, name] = providerId.split('/');
    return (await this.control({ op: 'deploymentUid', namespace, name })).uid;
  }

  /** Every Deployment in every namespace, as the server's store has it. */
  async storedDeployments() {
    return (await this.control({ op: 'deployments' })).items;
  }

  /** `kubectl get deployments -A`: what a cluster admin would see, independent of the adapter. */
  kubectlDeployments() {
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', this.kubeconfig, '--context', this.context, '--cache-dir', this.freshCache(),
          'get', 'deployments', '-A', '-o', 'json'],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`kubectl get deployments -A failed: ${stderr}`));
          else resolve(JSON.parse(stdout).items.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).sort());
        },
      );
    });
  }

  /** `kubectl get pods -n NS`: the names of the Pods of one Deployment (name-<hash>-<suffix>). */
  kubectlPods(providerId) {
    const [namespace, name] = providerId.split('/');
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', this.kubeconfig, '--context', this.context, '--cache-dir', this.freshCache(),
          '-n', namespace, 'get', 'pods', '-o', 'json'],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`kubectl get pods failed: ${stderr}`));
          else {
            const mine = new RegExp(`^${name}-[a-z0-9]+-[a-z0-9]+$`);
            resolve(JSON.parse(stdout).items.map((p) => p.metadata.name).filter((n) => mine.test(n)).sort());
          }
        },
      );
    });
  }

  freshCache() {
    this.caches += 1;
    return path.join(this.tmp, `cache-${this.caches}`);
  }

  /** The Manager Node row a Kubernetes node of this cluster would have (waits bounded at 30 s). */
  node(overrides = {}) {
    return {
      id: 7, name: 'k8s-1', nodeType: 'kubernetes', siteId: 1, kubeconfigPath: this.kubeconfig, kubeContext: this.context,
      kubeNamespace: this.namespace, waitTimeout: 30, ...overrides,
    };
  }

  /**
   * Client options: the adapter under test and one kubectl discovery cache for
   * this cluster (as on a Manager host; a fresh cache per call would re-read discovery each time).
   */
  clientOptions(extra = {}) {
    return { command: adapterCommand(), extraArgs: ['--cache-dir', path.join(this.tmp, 'cache')], ...extra };
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      await new Promise((resolve) => {
        const killer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
        this.proc.on('exit', () => { clearTimeout(killer); resolve(); });
        this.proc.stdin.end();
      });
    }
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

module.exports = { FakeCluster, adapterCommand, python, ROOT };
