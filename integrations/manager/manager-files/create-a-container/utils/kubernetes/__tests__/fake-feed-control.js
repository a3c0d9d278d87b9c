'use strict';
/**
 * The test's side of fake-feed-adapter.js: a unix socket each fake `list -w` connects to, the
 * log of every fake adapter started, the `list` document a plain `list` answers, and
 * `fakes.command`, an executable file that runs the fake (for KUBECTL_ADAPTER or `command`).
 *
 *   const fakes = new FakeFeeds();            // await fakes.listen()
 *   const api = new KubernetesApi(node, { command: fakes.command, feeds });
 *   const proc = await fakes.next();          // the next feed process that started
 *   await proc.line({ type: 'SYNCED', snapshot: null });
 *   await proc.exit(8, { type: 'Unavailable', message: '...' });
 */

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const SCRIPT = path.join(__dirname, 'fake-feed-adapter.js');

class FakeFeedProcess {
  constructor(socket, hello) {
    this.socket = socket;
    this.pid = hello.hello;
    this.argv = hello.argv;
    this.waiting = [];
    this.closed = new Promise((resolve) => socket.on('close', resolve));
  }

  /** One request; resolves once the fake has acted on it. */
  send(request) {
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      this.socket.write(`${JSON.stringify(request)}\n`, (e) => (e ? reject(e) : null));
    });
  }

  line(event) {
    return this.send({ line: event });
  }

  stderr(text) {
    return this.send({ stderr: text });
  }

  /** End with `code`, after printing the error document when `error` is given. */
  async exit(code, error = null) {
    if (error) await this.line({ error });
    this.socket.write(`${JSON.stringify({ exit: code })}\n`);
    await this.closed;
  }

  /** Whether the fake's process still runs (a zombie no parent has reaped yet has ended). */
  alive() {
    try {
      process.kill(this.pid, 0);
    } catch (e) {
      return false;
    }
    try {
      const stat = fs.readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      return !/^\d+ \(.*\) [ZX]/s.test(stat);
    } catch (e) {
      return process.platform !== 'linux';
    }
  }
}

class FakeFeeds {
  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-feed-'));
    this.socketPath = path.join(this.dir, 'control.sock');
    this.log = path.join(this.dir, 'starts.log');
    this.listFile = path.join(this.dir, 'list.json');
    this.setList([]);
    this.connected = [];
    this.waiters = [];
    this.command = path.join(this.dir, 'kubectl-adapter');
    const quote = (word) => `'${word.replace(/'/g, "'\\''")}'`;
    fs.writeFileSync(this.command, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(SCRIPT)} ${quote(this.dir)} "$@"\n`, { mode: 0o755 });
  }

  listen() {
    this.server = net.createServer((socket) => {
      const lines = readline.createInterface({ input: socket });
      let proc = null;
      lines.on('line', (text) => {
        const message = JSON.parse(text);
        if (message.hello) {
          proc = new FakeFeedProcess(socket, message);
          const waiter = this.waiters.shift();
          if (waiter) waiter(proc);
          else this.connected.push(proc);
        } else if (message.done && proc) {
          const resolve = proc.waiting.shift();
          if (resolve) resolve();
        }
      });
      socket.on('error', () => {});
    });
    return new Promise((resolve) => this.server.listen(this.socketPath, resolve));
  }

  /** The next feed process to start (or the oldest one started and not yet taken). */
  next() {
    const ready = this.connected.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** What a plain `list` answers (and `status P` finds in). */
  setList(items) {
    fs.writeFileSync(this.listFile, JSON.stringify({ items }));
  }

  /** Every fake adapter started so far: `[{pid, argv}]`. */
  starts() {
    if (!fs.existsSync(this.log)) return [];
    return fs.readFileSync(this.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  }

  close() {
    if (this.server) this.server.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A snapshot as `list` gives it, with the fields a status answer reads. */
function snapshot(providerId, status = 'running', extra = {}) {
  return {
    providerId, name: providerId.split('/')[1], status, message: status === 'running' ? '1/1 ready' : status,
    ipv4Address: status === 'running' ? '10.0.0.9' : null, containerId: '42', nodeId: '7', image: 'nginx:1.27', cpus: 1, memoryMb: 512,
    drift: { state: 'in-sync', summary: '', changes: [], restored: [] }, ...extra,
  };
}

module.exports = { FakeFeeds, FakeFeedProcess, snapshot, SCRIPT };
