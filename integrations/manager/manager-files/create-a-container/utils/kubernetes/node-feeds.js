/**
 * node-feeds.js — one live status feed per Kubernetes node while Manager's server runs
 * (kubectl-adapter issue 42; the client's lib/feed.js does the work).
 *
 * server.js starts them once migrations are applied: from then on a Kubernetes node's
 * containers list and status route are answered from its feed (`kubectl-adapter list -w`) as
 * soon as it has synced, with no process started, and from `list` as before until then (the
 * container JSON's `statusSource` says which). The nodes routes tell it when a node is saved
 * (a new kubeconfig, context or namespace starts the feed again) or deleted (its feed ends).
 * A feed that keeps failing stops trying ("capped"): its typed error becomes the node's
 * connection verdict (`lastConnectionTest`, what the nodes list shows). SIGTERM and SIGINT end
 * every feed before the server exits; a SIGKILLed server's feeds end by themselves (the adapter
 * runs with --exit-with-parent). Job scripts (bin/*.js) never start one: they do not call this.
 */

const KubernetesApi = require('./kubernetes-api');

const { feeds } = KubernetesApi;
let stopping = null;

/** What a capped feed leaves as the node's verdict (the shape of connectionSummary's). */
function cappedVerdict(feed, error, at = new Date()) {
  return {
    at: at.toISOString(),
    ok: false,
    summary: `live status feed stopped after ${feed.describe().restarts + 1} failed starts: ${error.name}: ${error.message}`,
    hints: KubernetesApi.roleHints({ missingPermissions: (error.details && error.details.missingPermissions) || [] }),
  };
}

/**
 * Start the feeds of every Kubernetes node (Manager's server only). `Node` is the model;
 * `options` go to the registry (backoffMs, maxRestarts, silenceMs: lib/feed.js's defaults).
 */
async function startNodeFeeds(Node, options = {}) {
  feeds.enable(options);
  if (!feeds.listenerCount('feed')) {
    feeds.on('feed', (feed, node) => {
      feed.on('capped', (error) => {
        Node.update({ lastConnectionTest: cappedVerdict(feed, error) }, { where: { id: node.id } })
          .catch((e) => console.error(`Node ${node.name}: could not store the feed's verdict: ${e.message}`))
          .finally(() => feeds.emit('verdict', node.id));
      });
    });
  }
  const nodes = await Node.findAll({ where: { nodeType: 'kubernetes' } });
  for (const node of nodes) {
    try {
      feeds.ensure(await node.api());
    } catch (err) {
      console.error(`Node ${node.name}: no live status feed: ${err.message}`);
    }
  }
  return feeds;
}

/** A node was created or edited: its feed runs with its connection as saved now. */
async function nodeSaved(node) {
  if (!feeds.enabled) return null;
  if (node.nodeType !== 'kubernetes') return feeds.remove(node.id);
  return feeds.ensure(await node.api());
}

/** A node was deleted: its feed ends; resolves once its adapter has exited. */
function nodeDeleted(nodeId) {
  return feeds.remove(nodeId, { deleted: true });
}

/** The node's feed for the nodes JSON: `{state, workloads, restarts, error}`, or null. */
function feedState(node) {
  const feed = node.nodeType === 'kubernetes' ? feeds.get(node.id) : null;
  return feed ? feed.describe() : null;
}

/** End every feed (the server stops); resolves once every adapter has exited. */
function stopNodeFeeds() {
  if (!stopping) stopping = feeds.stopAll().finally(() => { stopping = null; });
  return stopping;
}

/** SIGTERM/SIGINT: end the feeds, then exit as Node.js would have (128 + the signal). */
function exitOnSignals() {
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]]) {
    process.once(signal, () => {
      stopNodeFeeds().finally(() => process.exit(code));
    });
  }
}

module.exports = { startNodeFeeds, nodeSaved, nodeDeleted, feedState, stopNodeFeeds, exitOnSignals, cappedVerdict, feeds };
