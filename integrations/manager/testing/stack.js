#!/usr/bin/env node
'use strict';
// The change list as Manager plans the work: an ordered stack of patches, one per Manager issue
// (#459 ... #463) and one per extra (stack.json). Each step copies its new files and makes its
// EDITS.md edits (in EDITS.md's order within each file) on the tree the step before left; the
// run commits each step in a git repository made of the checkout and writes one patch per step.
//
//   node integrations/manager/testing/stack.js <checkout-of-base> <out-dir> [--each '<cmd>'] [--from N]
//
// --from N: the checkout already holds steps 1..N-1 as commits of an earlier run (one that
// stopped); they are not applied again.
// --each runs <cmd> (sh -c, cwd create-a-container/, $STEP and $TESTS set) after each step and
// stops at the first that fails: "each step builds, starts and passes its tests". run() also
// takes a function (step, index) instead of <cmd>: stack-jest.js runs Manager's whole jest so.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { edit, parse } = require('./apply-edits');

const HERE = path.resolve(__dirname, '..');
const FILES = path.join(HERE, 'manager-files');
const CLIENT = 'client';

function load() {
  return {
    stack: JSON.parse(fs.readFileSync(path.join(HERE, 'stack.json'), 'utf8')),
    edits: parse(fs.readFileSync(path.join(FILES, 'EDITS.md'), 'utf8')),
  };
}

/** "1-3, 5" -> [1, 2, 3, 5] */
function numbers(list) {
  return String(list).split(',').flatMap((part) => {
    const [a, b] = part.trim().split('-').map(Number);
    if (!Number.isInteger(a) || (b !== undefined && !(b >= a))) throw new Error(`not a range: ${part}`);
    return Array.from({ length: (b || a) - a + 1 }, (_, i) => a + i);
  });
}

const editId = (e) => `${e.file} ${/(\d+)\/\d+$/.exec(e.name)[1]}`;

/** A step's edits, in EDITS.md's order. */
function stepEdits(step, edits) {
  const wanted = new Set(Object.entries(step.edits).flatMap(([file, list]) => numbers(list).map((n) => `${file} ${n}`)));
  return edits.filter((e) => wanted.has(editId(e)));
}

/** Every file manager-files/ ships (paths as stack.json names them). */
function shippedFiles() {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name !== 'EDITS.md') out.push(path.relative(FILES, full));
    }
  };
  walk(FILES);
  return out.sort();
}

/** What is wrong with the stack: an edit or file in no step or in two, an unknown one, a test not shipped by then. */
function problems({ stack, edits }) {
  const found = [];
  const all = edits.map(editId);
  const cited = stack.steps.flatMap((s) => stepEdits(s, edits).map(editId));
  const named = stack.steps.flatMap((s) => Object.entries(s.edits).flatMap(([file, list]) => numbers(list).map((n) => `${file} ${n}`)));
  for (const id of named) if (!all.includes(id)) found.push(`${id}: not an edit of EDITS.md`);
  for (const id of all) {
    const n = cited.filter((c) => c === id).length;
    if (n !== 1) found.push(`${id}: in ${n} steps`);
  }
  const files = [...shippedFiles(), CLIENT];
  const listed = stack.steps.flatMap((s) => s.files);
  for (const f of files) if (listed.filter((l) => l === f).length !== 1) found.push(`${f}: in ${listed.filter((l) => l === f).length} steps`);
  for (const f of listed) if (!files.includes(f)) found.push(`${f}: not a shipped file`);
  const ids = stack.steps.map((s) => s.id);
  if (new Set(ids).size !== ids.length) found.push('step ids repeat');
  stack.steps.forEach((step, i) => {
    const before = stack.steps.slice(0, i + 1).flatMap((s) => s.files);
    for (const t of step.tests) if (!before.includes(t)) found.push(`${step.id}: test ${t} is not shipped by this step`);
    if (!/^(#4\d\d|extra)$/.test(step.issue)) found.push(`${step.id}: issue ${step.issue}`);
  });
  return found;
}

/** Copies a step's files into the checkout and makes its edits there. */
function applyStep(checkout, step, edits) {
  const app = path.join(checkout, 'create-a-container');
  for (const f of step.files) {
    if (f === CLIENT) {
      const client = path.join(app, 'utils', 'kubernetes');
      fs.mkdirSync(client, { recursive: true });
      fs.copyFileSync(path.join(HERE, 'kubernetes-api.js'), path.join(client, 'kubernetes-api.js'));
      fs.cpSync(path.join(HERE, 'lib'), path.join(client, 'lib'), { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true });
      fs.copyFileSync(path.join(FILES, f), path.join(checkout, f));
    }
  }
  const files = new Map();
  for (const e of stepEdits(step, edits)) {
    const file = path.join(app, e.file);
    if (!files.has(file)) files.set(file, fs.readFileSync(file, 'utf8').split('\n'));
    edit(files.get(file), e);
  }
  for (const [file, lines] of files) fs.writeFileSync(file, lines.join('\n'));
}

function git(checkout, ...args) {
  return execFileSync('git', ['-C', checkout, '-c', 'user.name=stack', '-c', 'user.email=stack@localhost', ...args], { encoding: 'utf8' });
}

/** The checkout as a git repository whose first commit is the base (once; a checkout holding steps keeps them). */
function commitBase(checkout, base) {
  if (fs.existsSync(path.join(checkout, '.git'))) return;
  git(checkout, 'init', '-q');
  git(checkout, 'add', '-A', '--', '.', ':!**/node_modules/**');
  git(checkout, 'commit', '-q', '-m', `base ${base}`);
}

function run(checkout, out, each, from = 1) {
  const loaded = load();
  const wrong = problems(loaded);
  if (wrong.length) throw new Error(`stack.json:\n${wrong.join('\n')}`);
  fs.mkdirSync(out, { recursive: true });
  commitBase(checkout, loaded.stack.base);
  const sizes = [];
  loaded.stack.steps.forEach((step, i) => {
    if (i + 1 < from) return;
    applyStep(checkout, step, loaded.edits);
    git(checkout, 'add', '-A', '--', '.', ':!**/node_modules/**', ':!**/client/dist/**');
    git(checkout, 'commit', '-q', '-m', `${step.issue === 'extra' ? 'Kubernetes' : step.issue}: ${step.title}`);
    const stat = git(checkout, 'show', '--numstat', '--format=', 'HEAD').trim().split('\n').map((l) => l.split('\t'));
    const added = stat.reduce((n, [a]) => n + Number(a), 0);
    const removed = stat.reduce((n, [, r]) => n + Number(r), 0);
    const name = `${String(i + 1).padStart(2, '0')}-${step.id}.patch`;
    fs.writeFileSync(path.join(out, name), git(checkout, 'format-patch', '-1', '--stdout', 'HEAD'));
    sizes.push({ name, issue: step.issue, files: stat.length, added, removed });
    process.stdout.write(`${name}: ${stat.length} files, +${added}/-${removed}\n`);
    if (typeof each === 'function') each(step, i);
    else if (each) {
      execFileSync('sh', ['-c', each], {
        cwd: path.join(checkout, 'create-a-container'), stdio: 'inherit',
        env: { ...process.env, STEP: step.id, TESTS: step.tests.map((t) => t.replace(/^create-a-container\//, '')).join(' ') },
      });
    }
  });
  return sizes;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--each');
  const each = at >= 0 ? args.splice(at, 2)[1] : null;
  const fromAt = args.indexOf('--from');
  const from = fromAt >= 0 ? Number(args.splice(fromAt, 2)[1]) : 1;
  if (args.length !== 2) {
    process.stderr.write('usage: stack.js <checkout-of-base> <out-dir> [--each <cmd>]\n');
    process.exit(2);
  }
  try {
    run(args[0], args[1], each, from);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

module.exports = { load, numbers, problems, stepEdits, applyStep, shippedFiles, run, commitBase, git };
