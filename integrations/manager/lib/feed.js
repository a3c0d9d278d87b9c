'use strict';
/**
 * One live feed per Kubernetes node: `kubectl-adapter list -w` kept running while Manager's
 * server runs and the node exists, so a containers page or a status read is answered from what
 * the feed has given, with no process started, and a change in the cluster is in the answer
 * as soon as the feed's line arrives (docs/cli.md, "Watching").
 *
 * The feed answers only while it can be trusted; otherwise the caller reads as it did before
 * (the adapter's `list`), and every answer says where it came from (`source`):
 *   - not before its `SYNCED` (the first list is complete), nor after a watch broke off inside
 *     the adapter until the next `SYNCED` (`-v` says `# a watch broke off` on stderr);
 *   - not while its process is down (ended, restarting, capped);
 *   - not when it has said nothing for longer than its own bound (`silenceMs`: the adapter
 *     lists again, ending with `SYNCED`, at least once an hour), when it is also restarted.
 * A workload the feed has not given since its `SYNCED` is `missing` (docs/cli.md).
 *
 * Lifecycle (state): starting → synced; an ending process → restarting (backoff) → starting …;
 * `maxRestarts` ends in a row without a `SYNCED` → capped, with the typed error of the last end
 * (lib/errors.js), shown as the node's connection verdict; stop() → stopped. The child gets
 * `--exit-with-parent` and a stdin this process never writes: when this process dies, however
 * (SIGKILL included), the kernel closes that stdin and the adapter ends with its kubectl.
 *
 * Memory: per workload the fields a status answer needs (toClusterResource's), replaced on each
 * change and dropped on DELETED; stdout and stderr are read line by line with bounded tails.
 */

const { spawn } = require('node:child_process');
const { EventEmitter } = require('node:events');
const readline = require('node:readline');
const errors = require('./errors');

const EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED', 'SYNCED']);
/** The adapter's -v says this on stderr when one of its watches ended and is started again. */
const WATCH_BROKE = '# a watch broke off';
const DEFAULTS = Object.freeze({
  // Waits between a feed's end and its next start, by how many ended in a row.
  backoffMs: Object.freeze([500, 1000, 2000, 4000, 8000]),
  // This many ends in a row without reaching SYNCED: the feed stops trying (capped).
  maxRestarts: 5,
  // The adapter's watches are started again (a new list, then SYNCED) at least once an hour
  // (operations/live.py RUN_SECONDS): silence beyond that and a minute means a stuck feed.
  silenceMs: (3600 + 60) * 1000,
  // SIGTERM, then SIGKILL after this: the adapter kills its kubectl on SIGTERM.
  killGraceMs: 5000,
});
const TAIL_CHARS = 64 * 1024;

/** What a status answer needs of a snapshot: the fields toClusterResource reads, nothing more. */
function compact(snapshot) {
  const drift = snapshot.drift
    ? { state: snapshot.drift.state, summary: snapshot.drift.summary || '', changes: snapshot.drift.changes || [], restored: snapshot.drift.restored || [] }
    : null;
  return {
    providerId: snapshot.providerId,
    name: snapshot.name,
    status: snapshot.status,
    message: snapshot.message,
    ipv4Address: snapshot.ipv4Address === undefined ? null : snapshot.ipv4Address,
    containerId: snapshot.containerId === undefined ? null : snapshot.containerId,
    drift,
  };
}

/**
 * Apply one feed line to the workloads map; returns the state it leaves ('synced' on SYNCED).
 * Pure apart from the map it is given: the decision of what a line means lives here.
 */
function applyEvent(workloads, event) {
  if (event.type === 'SYNCED') return 'synced';
  const snapshot = event.snapshot || {};
  if (typeof snapshot.providerId !== 'string') return null;
  if (event.type === 'DELETED') workloads.delete(snapshot.providerId);
  else workloads.set(snapshot.providerId, compact(snapshot));
  return null;
}

/** The typed error a feed process's end means: its error document, else how it ended. */
function endError(tail, code, signal, stderrTail) {
  let doc = null;
  const text = tail.trim();
  if (text) {
    try {
      doc = JSON.parse(text.slice(text.lastIndexOf('\n{"error"') + 1));
    } catch (e) {
      doc = null;
    }
  }
  if (doc && doc.error) return errors.fromCliError(doc.error, code);
  const how = signal ? `signal ${signal}` : `exit ${code}`;
  const why = stderrTail.trim().split('\n').filter((l) => !l.startsWith('#')).slice(-1)[0] || '';
  return new errors.InternalError('InternalError', `the feed (kubectl-adapter list -w) ended with ${how}${why ? `: ${why}` : ''}`, {}, code);
}

class NodeFeed extends EventEmitter {
  /**
   * @param {object} options
   * @param {string} options.executable the adapter (as AdapterCli's)
   * @param {string[]} options.argv its arguments: global flags, `-v list -w -o json --exit-with-parent`
   * @param {string} [options.label] for messages (the node's name)
   * @param {number[]} [options.backoffMs] @param {number} [options.maxRestarts]
   * @param {number} [options.silenceMs] @param {number} [options.killGraceMs]
   */
  constructor(options) {
    super();
    this.executable = options.executable;
    this.argv = options.argv;
    this.label = options.label || '';
    this.backoffMs = options.backoffMs || DEFAULTS.backoffMs;
    this.maxRestarts = options.maxRestarts === undefined ? DEFAULTS.maxRestarts : options.maxRestarts;
    this.silenceMs = options.silenceMs || DEFAULTS.silenceMs;
    this.killGraceMs = options.killGraceMs === undefined ? DEFAULTS.killGraceMs : options.killGraceMs;
    this.state = 'stopped';
    this.workloads = new Map();
    this.error = null;
    this.failures = 0; // ends in a row without a SYNCED
    this.starts = 0;
    this.child = null;
    this.lastLineAt = 0;
    this.silence = null;
    this.silenced = null;
    this.retry = null;
    this.exited = Promise.resolve();
  }

  /** Start the process (from stopped, or again after a restart's wait). */
  start() {
    if (this.state !== 'stopped' && this.state !== 'restarting') return this;
    this.retry = null;
    this.setState('starting');
    this.workloads = new Map(); // a new process gives every workload again before its SYNCED
    this.starts += 1;
    let child;
    try {
      child = spawn(this.executable, this.argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      this.ended(new errors.ConfigurationError('ConfigurationError', `cannot run ${this.executable}: ${e.message}`, {}, 9));
      return this;
    }
    this.child = child;
    const run = { tail: '', stderr: '', synced: false, spawnError: null };
    this.exited = new Promise((resolve) => child.on('close', resolve));
    child.stdin.on('error', () => {}); // never written; its close is the adapter's lifeline
    child.on('error', (e) => { run.spawnError = e; });
    this.lastLineAt = Date.now();
    this.armSilence();
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.stdoutLine(run, line));
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      run.stderr = (run.stderr + line + '\n').slice(-4096);
      if (line.startsWith(WATCH_BROKE) && this.child === child && this.state === 'synced') this.setState('starting');
    });
    child.on('close', (code, signal) => {
      if (this.child !== child) return; // stopped on purpose, or replaced
      this.child = null;
      const error = this.silenced || (run.spawnError
        ? new errors.ConfigurationError('ConfigurationError', `cannot run ${this.executable}: ${run.spawnError.message}`, {}, 9)
        : endError(run.tail, code, signal, run.stderr));
      this.silenced = null;
      if (run.synced) this.failures = 0;
      this.ended(error);
    });
    return this;
  }

  stdoutLine(run, line) {
    if (this.silenced) return; // being ended for its silence: its last lines change nothing
    this.lastLineAt = Date.now();
    this.armSilence();
    let event = null;
    if (line.startsWith('{"type"')) {
      try {
        event = JSON.parse(line);
      } catch (e) {
        event = null;
      }
    }
    if (!event || !EVENTS.has(event.type)) {
      run.tail = (run.tail + line + '\n').slice(-TAIL_CHARS); // an error document, at the end
      return;
    }
    if (applyEvent(this.workloads, event) === 'synced') {
      run.synced = true;
      this.failures = 0;
      this.error = null;
      this.setState('synced');
    } else if (this.state === 'synced') {
      this.emit('change', event.type, event.snapshot && event.snapshot.providerId);
    }
  }

  /** The process ended (not by stop()): restart after a backoff, or give up at the cap. */
  ended(error) {
    this.clearSilence();
    this.failures += 1;
    this.error = error;
    this.emit('broken', error);
    if (this.failures > this.maxRestarts) {
      this.setState('capped');
      return;
    }
    this.setState('restarting');
    const wait = this.backoffMs[Math.min(this.failures - 1, this.backoffMs.length - 1)];
    this.retry = setTimeout(() => this.start(), wait);
    this.retry.unref();
  }

  armSilence() {
    if (this.silence) {
      this.silence.refresh();
      return;
    }
    this.silence = setTimeout(() => {
      this.silence = null;
      // Said nothing for longer than the adapter ever does: untrusted at once, ended, and
      // started again once it has exited (its 'close').
      if (!this.child) return;
      this.silenced = new errors.UnavailableError('Unavailable', `the feed said nothing for ${Math.round(this.silenceMs / 1000)} s (longer than its own bound): started again`, { silenceMs: this.silenceMs }, 8);
      this.setState('restarting');
      this.kill(this.child);
    }, this.silenceMs);
    this.silence.unref();
  }

  clearSilence() {
    if (this.silence) clearTimeout(this.silence);
    this.silence = null;
  }

  kill(child) {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), this.killGraceMs);
    killer.unref();
    child.on('close', () => clearTimeout(killer));
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', state);
    this.emit(state, this.error);
  }

  /** Whether an answer may come from the feed now (synced, its process up, not silent too long). */
  fresh(now = Date.now()) {
    return this.state === 'synced' && this.child !== null && now - this.lastLineAt <= this.silenceMs;
  }

  /** One workload's entry, `missing` when the synced feed has not given it; null if not fresh. */
  lookup(providerId) {
    if (!this.fresh()) return null;
    return this.workloads.get(providerId) || {
      providerId, name: providerId.split('/')[1], status: 'missing',
      message: 'deployment does not exist (not in the node\'s feed since its SYNCED)', ipv4Address: null, containerId: null, drift: null,
    };
  }

  /** Every workload's entry (provider ID order), or null if the feed is not fresh. */
  entries() {
    if (!this.fresh()) return null;
    return Array.from(this.workloads.values()).sort((a, b) => (a.providerId < b.providerId ? -1 : 1));
  }

  /** End the feed and its process; resolves once the adapter has exited (its kubectl with it). */
  stop() {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.clearSilence();
    const { child } = this;
    this.child = null;
    this.workloads = new Map();
    this.setState('stopped');
    if (!child) return Promise.resolve();
    const exited = new Promise((resolve) => child.on('close', resolve));
    this.kill(child);
    return exited;
  }

  /** The node's feed as a nodes list shows it: state, workloads, and the typed error if any. */
  describe() {
    return {
      state: this.state,
      workloads: this.workloads.size,
      restarts: Math.max(0, this.starts - 1),
      error: this.error ? errors.toPlain(this.error) : null,
    };
  }
}

/**
 * The feeds of Manager's server, one per node ID. Disabled until enable() (Manager's server
 * calls it at start-up): job scripts and tests that never enable it start no feed. A feed is
 * made on a node's first read (or ensure()) and started again when the node's connection
 * (its argv: kubeconfig, context, namespace, node ID, adapter) changes.
 */
class FeedRegistry extends EventEmitter {
  constructor(options = {}) {
    super();
    this.options = { ...options };
    this.enabled = false;
    this.feeds = new Map();
    this.deleted = new Set(); // node IDs deleted: a read still in flight must not start a feed
  }

  enable(options = {}) {
    Object.assign(this.options, options);
    this.enabled = true;
    return this;
  }

  /**
   * The node's feed, made (or restarted with the node's new connection) if needed; null when
   * disabled. `api` is the node's KubernetesApi (its feedArgv()).
   */
  ensure(api) {
    if (!this.enabled) return null;
    const id = String(api.node.id);
    if (this.deleted.has(id)) return null;
    const { executable, argv } = api.feedArgv();
    const key = JSON.stringify([executable, argv]);
    const existing = this.feeds.get(id);
    if (existing && existing.key === key) return existing;
    if (existing) existing.stop(); // the node was edited: a new connection, a new feed
    const feed = new NodeFeed({ ...this.options, executable, argv, label: api.node.name });
    feed.key = key;
    feed.nodeId = id;
    this.feeds.set(id, feed);
    this.emit('feed', feed, api.node);
    return feed.start();
  }

  /** The node's feed if it runs, without making one. */
  get(nodeId) {
    return this.feeds.get(String(nodeId)) || null;
  }

  /**
   * The node is gone, or no longer a Kubernetes node: end its feed. `{ deleted: true }`: the
   * node was deleted, and a read of it still in flight starts none again.
   */
  remove(nodeId, { deleted = false } = {}) {
    if (deleted) this.deleted.add(String(nodeId));
    const feed = this.feeds.get(String(nodeId));
    if (!feed) return Promise.resolve();
    this.feeds.delete(String(nodeId));
    return feed.stop();
  }

  /** Manager's server stops: every feed ends; resolves once every adapter has exited. */
  stopAll() {
    this.enabled = false;
    const ids = Array.from(this.feeds.keys());
    return Promise.all(ids.map((id) => this.remove(id)));
  }
}

/** The registry the client uses unless given another (options.feeds): one per process. */
const feeds = new FeedRegistry();

module.exports = { NodeFeed, FeedRegistry, feeds, applyEvent, compact, endError, DEFAULTS, WATCH_BROKE };
