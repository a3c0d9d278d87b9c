#!/usr/bin/env node
'use strict';
/**
 * A stand-in `kubectl-adapter` for the node feed's tests (lib/feed.js): a process that prints
 * the feed's lines (docs/cli.md, "Watching") as a test tells it to.
 *
 * Run as `fake-feed-adapter.js DIR ARGS...` (DIR/kubectl-adapter, written by fake-feed-control.js,
 * does that: a file, not the environment, which jest sandboxes from child processes). Every
 * start appends its argv (one JSON line) to DIR/starts.log. `list -w` connects to the test's
 * unix socket DIR/control.sock, says `{"hello": pid, "argv": [...]}`, and then obeys
 * one JSON request per line:
 *   {"line": {...}}           print it as one feed line (an event, or an error document)
 *   {"stderr": "text"}        write a line on stderr (e.g. "# a watch broke off: watching again")
 *   {"exit": code}            end with that exit code
 * With `--exit-with-parent` it ends (exit 143, as the adapter on SIGTERM) once its stdin closes,
 * and it ends the same way on SIGTERM. A plain `list` answers DIR/list.json (`{"items": [...]}`),
 * `status P` the item of that provider ID (else `missing`).
 */

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const readline = require('node:readline');

const [dir, ...argv] = process.argv.slice(2);
fs.appendFileSync(path.join(dir, 'starts.log'), `${JSON.stringify({ pid: process.pid, argv })}\n`);

const watching = argv.includes('-w');
if (!watching) {
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'list.json'), 'utf8'));
  const at = argv.indexOf('status');
  if (at >= 0) {
    const providerId = argv[at + 1];
    const found = doc.items.find((s) => s.providerId === providerId);
    process.stdout.write(JSON.stringify(found || { providerId, name: providerId.split('/')[1], status: 'missing', message: 'deployment does not exist' }));
  } else {
    process.stdout.write(JSON.stringify(doc));
  }
  process.exit(0);
}

const interrupted = () => {
  process.stdout.write(`${JSON.stringify({ error: { type: 'Interrupted', message: 'interrupted by SIGTERM: the watch was stopped (it changes nothing)', details: { signal: 'SIGTERM' } } })}\n`, () => process.exit(143));
};
process.on('SIGTERM', interrupted);
process.stdout.on('error', () => process.exit(11));
if (argv.includes('--exit-with-parent')) {
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => process.exit(143));
  process.stdin.on('error', () => process.exit(143));
}

const socket = net.createConnection(path.join(dir, 'control.sock'), () => {
  socket.write(`${JSON.stringify({ hello: process.pid, argv })}\n`);
});
socket.on('error', () => process.exit(1));
readline.createInterface({ input: socket }).on('line', (text) => {
  const request = JSON.parse(text);
  if (request.line) process.stdout.write(`${JSON.stringify(request.line)}\n`);
  if (request.stderr) process.stderr.write(`${request.stderr}\n`);
  if (request.exit !== undefined) process.stdout.write('', () => process.exit(request.exit));
  socket.write(`${JSON.stringify({ done: true })}\n`);
});
