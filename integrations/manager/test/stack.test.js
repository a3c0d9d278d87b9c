'use strict';
// The stack of patches (stack.json, testing/stack.js) partitions the change list exactly: every
// EDITS.md edit and every shipped file in one step, a step's tests shipped by then, the issue
// numbers Manager's tracker uses. Applying it to Manager's checkout is the doc's "Checked
// against Manager's code" run; this test keeps the partition honest whenever EDITS.md changes.

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { load, numbers, problems, stepEdits } = require('../testing/stack');

test('every edit and every shipped file is in exactly one step; tests are shipped by their step', () => {
  assert.deepEqual(problems(load()), []);
});

test('the steps are Manager\'s issues in order, then the extras', () => {
  const { stack } = load();
  const issues = stack.steps.map((s) => s.issue);
  assert.deepEqual(issues.filter((i) => i !== 'extra'), ['#459', '#460', '#461', '#462', '#463']);
  assert.equal(issues.lastIndexOf('#463') < issues.indexOf('extra'), true);
  for (const step of stack.steps) assert.ok(step.closes.length > 0, step.id);
});

test('a doctored stack is caught: an edit in two steps, a missing file, a test shipped later', () => {
  const loaded = load();
  const twice = structuredClone(loaded);
  twice.stack.steps[1].edits['models/node.js'] = '1';
  assert.ok(problems(twice).includes('models/node.js 1: in 2 steps'));
  const missing = structuredClone(loaded);
  missing.stack.steps[0].files = missing.stack.steps[0].files.filter((f) => f !== 'client');
  assert.ok(problems(missing).includes('client: in 0 steps'));
  const early = structuredClone(loaded);
  early.stack.steps[0].tests = ['create-a-container/bin/__tests__/deaths.kubernetes.test.js'];
  assert.ok(problems(early).some((p) => /459-node-type: test .*deaths/.test(p)));
  assert.deepEqual(numbers('1-3, 5'), [1, 2, 3, 5]);
  // In EDITS.md's order (its files alphabetically), not stack.json's.
  assert.equal(stepEdits(loaded.stack.steps[0], loaded.edits)[0].name, 'client/src/lib/types.ts 1/3');
});

test('stack-jest compares a step\'s suite with the unchanged tree\'s: a lost test, a failing shipped one, an abort', () => {
  const { compare } = require('../testing/stack-jest');
  const ran = (tests) => ({ status: 'ran', tests, note: '' });
  const base = { files: { 'a.test.js': ran({ 'a one': 'passed', 'a two': 'failed' }), 'b.test.js': { status: 'aborted', tests: {}, note: 'SQLITE_MISUSE' } } };
  const same = compare(base, { files: { ...base.files, 'k.test.js': ran({ 'k one': 'passed' }) } }, ['k.test.js']);
  assert.deepEqual(same, { same: 2, lost: [], changed: [], shippedPassed: 1, shippedFailing: [] });
  const worse = compare(base, {
    files: { 'a.test.js': ran({ 'a one': 'failed', 'a two': 'failed' }), 'b.test.js': ran({ 'b one': 'passed' }), 'k.test.js': ran({ 'k one': 'failed' }) },
  }, ['k.test.js']);
  assert.deepEqual(worse.lost, ['a.test.js: a one: passed -> failed']);
  assert.deepEqual(worse.changed, ['b.test.js: aborted -> ran ()']);
  assert.deepEqual(worse.shippedFailing, ['k.test.js: k one: failed']);
  const gone = compare(base, { files: { 'a.test.js': { status: 'aborted', tests: {}, note: 'x' }, 'b.test.js': base.files['b.test.js'] } }, ['k.test.js']);
  assert.deepEqual(gone.lost, ['a.test.js: ran -> aborted (x)', 'a.test.js: a one: passed -> absent']);
  assert.deepEqual(gone.changed, ['a.test.js: a two: failed -> absent']);
  assert.deepEqual(gone.shippedFailing, ['k.test.js: not run']);
});

test('stack-build accepts only the built client at /, the v1 router\'s JSON health and its JSON 401 for a site\'s nodes', () => {
  const { judgePages } = require('../testing/stack-build');
  const built = { status: 200, type: 'text/html', body: '<div id="root"></div><script type="module" crossorigin src="/assets/index-x1.js"></script>' };
  const health = { status: 200, type: 'application/json; charset=utf-8', body: '{}' };
  const api = { status: 401, type: 'application/json; charset=utf-8', body: '{}' };
  assert.deepEqual(judgePages(built, health, api), []);
  // The unbuilt index.html (vite's dev entry), a missing dist, Swagger UI's HTML for a path the router lacks, no answer.
  const unbuilt = { ...built, body: '<div id="root"></div><script type="module" src="/src/main.tsx"></script>' };
  assert.deepEqual(judgePages(unbuilt, health, api), ['/: 200, not the built client\'s index.html']);
  assert.deepEqual(judgePages({ status: 404, type: 'application/json', body: '{}' }, health, api), ['/: 404, not the built client\'s index.html']);
  const swagger = { status: 200, type: 'text/html; charset=utf-8', body: '<html>' };
  assert.deepEqual(judgePages(built, health, swagger), ['/api/v1/sites/1/nodes: 200 text/html; charset=utf-8']);
  assert.deepEqual(judgePages(built, swagger, api), ['/api/v1/health: 200 text/html; charset=utf-8']);
  assert.deepEqual(judgePages(built, health, { error: 'socket hang up' }), ['/api/v1/sites/1/nodes: socket hang up']);
});

test('server-port.js makes server.js\'s fixed listen(3000) a free port of 127.0.0.1 and says which', async () => {
  const { spawn } = require('node:child_process');
  const path = require('node:path');
  const { once } = require('node:events');
  const script = "require('http').createServer((q, s) => s.end('up')).listen(3000, () => console.log('cb'))";
  const child = spawn(process.execPath, ['-r', path.join(__dirname, '..', 'testing', 'server-port.js'), '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let err = '';
    child.stderr.setEncoding('utf8');
    const port = await new Promise((resolve, reject) => {
      child.stderr.on('data', (c) => { err += c; const m = /server-port: (\d+)/.exec(err); if (m) resolve(Number(m[1])); });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    assert.notEqual(port, 3000);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), 'up');
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
});
