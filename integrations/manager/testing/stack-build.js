#!/usr/bin/env node
'use strict';
// Manager builds and starts after each step of the stack (stack.json, stack.js), as on the
// unchanged tree: the client type-checks and builds with Manager's own script (`npm run
// client:build`: `tsc -b && vite build`, from a clean dist/ and no tsbuildinfo, so every step is
// type-checked whole), then Manager's own server.js starts on a sqlite file of its own (its
// migrations run), listens, serves the built client at `/`, answers `/api/v1/health` and a
// site's nodes (401 without a session), and
// stops on SIGTERM. The server has no build step of its own (plain CommonJS); server.js
// requiring every router is its check. One build at a time.
//
//   node integrations/manager/testing/stack-build.js <checkout-of-base> <out-dir> [--from N]
//
// The checkout is a plain `git archive` of stack.json's base with `npm ci` done in
// create-a-container/ and create-a-container/client/. Writes <out-dir>/build-steps.json (per
// tree: build ok and seconds, server listened, page statuses, how it stopped) and the logs;
// prints one line per tree and exits 1 if the base or a step fails to build or to serve.
//
// Bounds: a build 10 minutes; the server 90 s to listen, 15 s per request, 15 s to stop after
// SIGTERM (then SIGKILL, recorded as a failure).

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const { commitBase, git, load, run } = require('./stack');

const APP = 'create-a-container';
const BUILD_MS = 10 * 60 * 1000;
const LISTEN_MS = 90_000;
const REQUEST_MS = 15_000;
const STOP_MS = 15_000;
const PRELOAD = path.join(__dirname, 'server-port.js');
const HEALTH = '/api/v1/health';
const NODES = '/api/v1/sites/1/nodes';

/** The client's build from nothing: Manager's `client:build` script, timed, its log kept. */
function build(app, logFile) {
  const client = path.join(app, 'client');
  fs.rmSync(path.join(client, 'dist'), { recursive: true, force: true });
  // tsc -b skips a project its .tsbuildinfo says is up to date: without them each step is checked whole.
  fs.rmSync(path.join(client, 'node_modules', '.tmp'), { recursive: true, force: true });
  for (const f of fs.readdirSync(client)) if (f.endsWith('.tsbuildinfo')) fs.rmSync(path.join(client, f));
  const started = Date.now();
  const ran = spawnSync('npm', ['run', 'client:build'], { cwd: app, encoding: 'utf8', timeout: BUILD_MS, maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
  const log = `${ran.stdout || ''}${ran.stderr || ''}`;
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, log);
  const built = fs.existsSync(path.join(client, 'dist', 'index.html'));
  const ok = ran.status === 0 && built;
  const errors = log.split('\n').filter((l) => /error TS\d+|\[vite\].*error|Error:/i.test(l)).slice(0, 10);
  return { ok, seconds, exit: ran.status, signal: ran.signal, distIndex: built, errors };
}

/** GET path on 127.0.0.1:port within REQUEST_MS: { status, type, body } or { error }. */
function get(port, urlPath) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: REQUEST_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] || '', body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REQUEST_MS} ms`)));
    req.on('error', (e) => resolve({ error: e.message }));
  });
}

/**
 * Whether `/` is the built client, `/api/v1/health` the v1 router's JSON 200 and a site's nodes
 * (the route the change list edits) its JSON 401 without a session. An unknown path under /api
 * is Swagger UI's HTML 200, so a JSON answer is required.
 */
function judgePages(root, health, api) {
  const problems = [];
  if (root.error || root.status !== 200 || !/id="root"/.test(root.body) || !/<script[^>]+src="\/assets\//.test(root.body)) {
    problems.push(`/: ${root.error || `${root.status}, not the built client's index.html`}`);
  }
  if (health.error || health.status !== 200 || !/json/.test(health.type)) problems.push(`${HEALTH}: ${health.error || `${health.status} ${health.type}`}`);
  if (api.error || api.status !== 401 || !/json/.test(api.type)) problems.push(`${NODES}: ${api.error || `${api.status} ${api.type}`}`);
  return problems;
}

/**
 * Manager's server.js on a sqlite file of its own, a free port (server-port.js): how long until it
 * listens, what `/` and the two API routes answer, how it stops. The server never outlives this.
 */
async function serve(app, scratch, logFile) {
  const env = { ...process.env, NODE_ENV: 'development', DATABASE_DIALECT: 'sqlite', SQLITE_STORAGE: path.join(scratch, 'manager.sqlite'), TMPDIR: scratch };
  const out = fs.openSync(logFile, 'w');
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', PRELOAD, 'server.js'], { cwd: app, env, stdio: ['ignore', out, 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  const port = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), LISTEN_MS);
    child.stderr.on('data', (c) => {
      stderr += c;
      fs.writeSync(out, c);
      const m = /server-port: (\d+)/.exec(stderr);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    exited.then(() => { clearTimeout(timer); resolve(null); });
  });
  const result = { listened: port !== null, listenSeconds: Number(((Date.now() - started) / 1000).toFixed(1)), pages: {}, problems: [] };
  if (port === null) {
    const why = (stderr.match(/^.*(Error|Fatal)[^\n]*$/m) || [stderr.trim().split('\n').pop() || ''])[0].trim().slice(0, 300);
    result.problems.push(child.exitCode !== null || child.signalCode ? `exited before listening (${child.exitCode ?? child.signalCode}): ${why}`
      : `did not listen within ${LISTEN_MS / 1000} s`);
  } else {
    const root = await get(port, '/');
    const health = await get(port, HEALTH);
    const api = await get(port, NODES);
    result.pages = { '/': root.error || root.status, [HEALTH]: health.error || health.status, [NODES]: api.error || api.status };
    result.problems.push(...judgePages(root, health, api));
  }
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const stopped = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(null), STOP_MS))]);
  if (stopped === null) {
    child.kill('SIGKILL');
    await exited;
    result.problems.push(`still running ${STOP_MS / 1000} s after SIGTERM (killed)`);
  }
  result.stopped = stopped === null ? 'SIGKILL' : (stopped.signal || `exit ${stopped.code}`);
  result.ok = result.problems.length === 0;
  fs.closeSync(out);
  return result;
}

/** One tree's check, in a process of its own (stack.js's step hook is synchronous). */
function checkTree(app, label, logs) {
  const dir = path.join(logs, label);
  fs.mkdirSync(dir, { recursive: true });
  const built = build(app, path.join(dir, 'client-build.log'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-build-'));
  const ran = spawnSync(process.execPath, [__filename, '--serve', app, scratch, path.join(dir, 'server.log')], {
    encoding: 'utf8', timeout: LISTEN_MS + 2 * REQUEST_MS + STOP_MS + 30_000,
  });
  fs.rmSync(scratch, { recursive: true, force: true });
  let server;
  try {
    server = JSON.parse(ran.stdout);
  } catch (e) {
    server = { ok: false, problems: [`server check ended without a result (exit ${ran.status}, ${ran.signal}): ${(ran.stderr || '').trim().slice(-300)}`] };
  }
  return { build: built, server, ok: built.ok && server.ok };
}

function line(label, r) {
  const b = r.build.ok ? `client builds (${r.build.seconds} s)` : `client build FAILED (exit ${r.build.exit}${r.build.signal ? `, ${r.build.signal}` : ''}): ${r.build.errors.join(' | ')}`;
  const s = r.server.ok ? `server.js listens (${r.server.listenSeconds} s), ${Object.entries(r.server.pages).map(([p, st]) => `${p} ${st}`).join(', ')}, stops on ${r.server.stopped}`
    : `server FAILED: ${r.server.problems.join(' | ')}`;
  return `${r.ok ? 'ok' : 'FAILED'} ${label}: ${b}; ${s}\n`;
}

function main(argv) {
  const args = argv.slice();
  const fromAt = args.indexOf('--from');
  const from = fromAt >= 0 ? Number(args.splice(fromAt, 2)[1]) : 1;
  if (args.length !== 2) {
    process.stderr.write('usage: stack-build.js <checkout-of-base> <out-dir> [--from N]\n');
    return 2;
  }
  const [checkout, out] = args.map((a) => path.resolve(a));
  const app = path.join(checkout, APP);
  fs.mkdirSync(out, { recursive: true });
  const record = path.join(out, 'build-steps.json');
  const logs = path.join(out, 'build-logs');
  const results = from > 1 && fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : { base: null, steps: [] };
  const save = () => fs.writeFileSync(record, JSON.stringify(results, null, 1));
  let failed = false;
  if (!results.base) {
    commitBase(checkout, load().stack.base);
    if (git(checkout, 'rev-list', '--count', 'HEAD').trim() !== '1') throw new Error(`${checkout} already holds steps: give a fresh checkout of the base`);
    results.base = checkTree(app, 'base', logs);
    save();
    process.stdout.write(line('base', results.base));
    failed = !results.base.ok;
  }
  run(checkout, out, (step) => {
    const now = checkTree(app, step.id, logs);
    results.steps = results.steps.filter((s) => s.id !== step.id).concat([{ id: step.id, ...now }]);
    save();
    process.stdout.write(line(step.id, now));
    failed = failed || !now.ok;
  }, from);
  return failed ? 1 : 0;
}

if (require.main === module) {
  if (process.argv[2] === '--serve') {
    const [app, scratch, logFile] = process.argv.slice(3);
    serve(app, scratch, logFile).then((r) => process.stdout.write(JSON.stringify(r)), (e) => {
      process.stderr.write(`${e.stack}\n`);
      process.exitCode = 1;
    });
  } else {
    try {
      process.exitCode = main(process.argv.slice(2));
    } catch (err) {
      process.stderr.write(`${err.stack}\n`);
      process.exitCode = 1;
    }
  }
}

module.exports = { judgePages, checkTree };
