#!/usr/bin/env node
'use strict';
// Manager's whole jest suite on the unchanged tree, then after each step of the stack
// (stack.json, stack.js): every test Manager has gives what it gave on the unchanged tree, and
// every test of the shipped jest files added so far passes; the app module loads after each
// step. Each jest test file runs in a jest process of its own (`--testTimeout=60000`, its own
// TMPDIR: Manager's jest keeps its sqlite file there; unhandled rejections as warnings, below):
// one file that still ends its jest process then costs that file only, and is recorded as
// "aborted" instead of hiding the others.
//
//   node integrations/manager/testing/stack-jest.js <checkout-of-base> <out-dir> [--from N]
//
// The checkout is a plain `git archive` of stack.json's base with `npm ci` done in
// create-a-container/ (nothing else). Writes <out-dir>/jest-steps.json (per step: each test's
// status and how it compares) and the patches (stack.js); prints one line per step and exits 1
// if a step loses a test, fails a shipped one, or does not load.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { commitBase, git, load, run } = require('./stack');

const APP = 'create-a-container';
const PER_FILE_MS = 15 * 60 * 1000;

/** The test files Manager's jest config selects on the tree as it is now (paths under create-a-container/). */
function testFiles(app) {
  const listed = spawnSync(path.join(app, 'node_modules', '.bin', 'jest'), ['--listTests', '--json'], { cwd: app, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`jest --listTests: ${listed.stderr}`);
  return JSON.parse(listed.stdout).map((f) => path.relative(app, f)).sort();
}

/** One file's jest run: { status: 'ran'|'suite-failed'|'aborted', tests: { fullName: status }, note }. */
function runFile(app, file, scratch, logFile) {
  const tmp = fs.mkdtempSync(path.join(scratch, 'jest-'));
  const json = path.join(tmp, 'result.json');
  const ran = spawnSync(path.join(app, 'node_modules', '.bin', 'jest'), ['--ci', '--testTimeout=60000', '--json', `--outputFile=${json}`, file], {
    cwd: app,
    encoding: 'utf8',
    timeout: PER_FILE_MS,
    maxBuffer: 64 * 1024 * 1024,
    // Manager's buildApp() starts an unawaited Sessions sync; when a short file's afterAll
    // closes the database first, that query's rejection ends the jest process before any result
    // is written (SQLITE_MISUSE, on the unchanged tree as on ours, more often the busier the
    // machine). As a warning it ends nothing: the file's results are written, and the warning is
    // counted in the note.
    env: { ...process.env, TMPDIR: tmp, NODE_OPTIONS: `${process.env.NODE_OPTIONS || ''} --unhandled-rejections=warn`.trim() },
  });
  const log = `${ran.stdout}${ran.stderr}`;
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, log);
  let result;
  if (!fs.existsSync(json)) {
    const why = (log.match(/SQLITE_MISUSE[^\n]*|ConnectionManager[^\n]*|Error:[^\n]*/) || [`exit ${ran.status}, signal ${ran.signal}`])[0];
    result = { status: 'aborted', tests: {}, note: why.trim().slice(0, 200) };
  } else {
    const doc = JSON.parse(fs.readFileSync(json, 'utf8'));
    const suite = doc.testResults[0] || { assertionResults: [], message: 'no result' };
    const tests = Object.fromEntries(suite.assertionResults.map((t) => [t.fullName, t.status]));
    const rejections = (log.match(/\(rejection id: \d+\)/g) || []).length;
    result = suite.assertionResults.length === 0 && suite.status === 'failed'
      ? { status: 'suite-failed', tests, note: suite.message.split('\n').find((l) => l.trim()).trim().slice(0, 200) }
      : { status: 'ran', tests, note: rejections ? `${rejections} unhandled rejections, as warnings` : '' };
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  return result;
}

/** The whole suite on the tree as it is now, and whether the app module loads. */
function runSuite(app, scratch, label, logs) {
  const loads = spawnSync(process.execPath, ['-e', "require('./app')"], { cwd: app, encoding: 'utf8', timeout: 120_000, env: { ...process.env, TMPDIR: scratch } });
  const files = {};
  for (const file of testFiles(app)) {
    const started = Date.now();
    // A jest process ended by an error after the database closed (a race of Manager's own
    // suites, seen on both trees) is run again, five times at most; the attempts are recorded.
    let attempts = 0;
    do {
      attempts += 1;
      files[file] = { ...runFile(app, file, scratch, path.join(logs, label, `${file.replace(/\//g, '_')}.${attempts}.log`)), attempts };
    } while (files[file].status === 'aborted' && attempts < 6);
    const counts = Object.values(files[file].tests);
    process.stdout.write(`  ${label}: ${file}: ${files[file].status} (attempt ${attempts}), ${counts.filter((s) => s === 'passed').length} passed, `
      + `${counts.filter((s) => s !== 'passed').length} not, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  return { appLoads: loads.status === 0, appLoadError: loads.status === 0 ? '' : loads.stderr.trim().split('\n').slice(-3).join(' '), files };
}

/**
 * How a step's suite compares with the unchanged tree's: `lost` (a test of Manager's that passed
 * there and does not now, or a file that ran there and does not now), `changed` (any other
 * difference in Manager's own files), and the shipped files' tests that do not pass.
 */
function compare(base, now, shipped) {
  const lost = [];
  const changed = [];
  const shippedFailing = [];
  let same = 0;
  for (const [file, was] of Object.entries(base.files)) {
    const is = now.files[file];
    if (!is) {
      lost.push(`${file}: not run`);
      continue;
    }
    if (was.status !== is.status) (was.status === 'ran' ? lost : changed).push(`${file}: ${was.status} -> ${is.status} (${is.note})`);
    for (const [name, status] of Object.entries(was.tests)) {
      const after = is.tests[name] || 'absent';
      if (after === status) same += 1;
      else (status === 'passed' ? lost : changed).push(`${file}: ${name}: ${status} -> ${after}`);
    }
  }
  let shippedPassed = 0;
  for (const file of shipped) {
    const is = now.files[file];
    if (!is || is.status !== 'ran') {
      shippedFailing.push(`${file}: ${is ? `${is.status} (${is.note})` : 'not run'}`);
      continue;
    }
    for (const [name, status] of Object.entries(is.tests)) {
      if (status === 'passed') shippedPassed += 1;
      else shippedFailing.push(`${file}: ${name}: ${status}`);
    }
  }
  const other = Object.keys(now.files).filter((f) => !base.files[f] && !shipped.includes(f));
  for (const f of other) changed.push(`${f}: a test file neither Manager's nor shipped`);
  return { same, lost, changed, shippedPassed, shippedFailing };
}

function main(argv) {
  const args = argv.slice();
  const fromAt = args.indexOf('--from');
  const from = fromAt >= 0 ? Number(args.splice(fromAt, 2)[1]) : 1;
  if (args.length !== 2) {
    process.stderr.write('usage: stack-jest.js <checkout-of-base> <out-dir> [--from N]\n');
    return 2;
  }
  const [checkout, out] = args.map((a) => path.resolve(a));
  const app = path.join(checkout, APP);
  fs.mkdirSync(out, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-jest-'));
  const record = path.join(out, 'jest-steps.json');
  const logs = path.join(out, 'jest-logs');
  const results = from > 1 && fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : { base: null, steps: [] };
  const save = () => fs.writeFileSync(record, JSON.stringify(results, null, 1));
  if (!results.base) {
    // The base as a commit first, as every step is one: Manager's code reads `git rev-parse`
    // (agents.checkin), so both trees must be in a repository for the comparison to be fair.
    commitBase(checkout, load().stack.base);
    if (git(checkout, 'rev-list', '--count', 'HEAD').trim() !== '1') throw new Error(`${checkout} already holds steps: give a fresh checkout of the base`);
    results.base = runSuite(app, scratch, 'base', logs);
    save();
  }
  let failed = false;
  const { steps } = load().stack;
  run(checkout, out, (step, index) => {
    const shipped = steps.slice(0, index + 1).flatMap((s) => s.files)
      .filter((f) => /__tests__\/.*\.test\.js$/.test(f)).map((f) => path.relative(APP, f));
    const now = runSuite(app, scratch, step.id, logs);
    const verdict = compare(results.base, now, shipped);
    results.steps = results.steps.filter((s) => s.id !== step.id).concat([{ id: step.id, ...now, ...verdict }]);
    save();
    const ok = now.appLoads && verdict.lost.length === 0 && verdict.shippedFailing.length === 0;
    failed = failed || !ok;
    process.stdout.write(`${ok ? 'ok' : 'FAILED'} ${step.id}: app ${now.appLoads ? 'loads' : `does not load: ${now.appLoadError}`}; `
      + `Manager's tests: ${verdict.same} as on the unchanged tree, ${verdict.lost.length} lost, ${verdict.changed.length} otherwise changed; `
      + `shipped: ${verdict.shippedPassed} passed, ${verdict.shippedFailing.length} not\n`);
    for (const line of [...verdict.lost, ...verdict.changed, ...verdict.shippedFailing]) process.stdout.write(`    ${line}\n`);
  }, from);
  fs.rmSync(scratch, { recursive: true, force: true });
  return failed ? 1 : 0;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  }
}

module.exports = { compare };
