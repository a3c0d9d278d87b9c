'use strict';
// The prose and the edits are one thing (issue 40): docs/manager-integration.md's table "Every
// edit, what it does, and the test that proves it" must cite every edit of EDITS.md exactly
// once, each with a shipped jest test that exists and holds the words cited (or, for client
// types, pages and the OpenAPI document, the headless check or a `none` saying why), and no
// `N/M` cited anywhere in the page may name an edit that does not exist. An edit added without
// prose, a renumbering that leaves a stale citation, or a test renamed away fails here.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { parse } = require('../testing/apply-edits');

const HERE = path.resolve(__dirname, '..');
const APP = path.join(HERE, 'manager-files', 'create-a-container');
const DOC = fs.readFileSync(path.join(HERE, '..', '..', 'docs', 'manager-integration.md'), 'utf8');
const EDITS = parse(fs.readFileSync(path.join(HERE, 'manager-files', 'EDITS.md'), 'utf8'));
const HEADING = '## Every edit, what it does, and the test that proves it';

/** Edit IDs by file: `file` → its edit count (the M of N/M). */
function editCounts(edits) {
  const counts = new Map();
  const seen = new Map();
  for (const e of edits) {
    const [, n, m] = /(\d+)\/(\d+)$/.exec(e.name);
    seen.set(e.file, (seen.get(e.file) || 0) + 1);
    assert.equal(Number(n), seen.get(e.file), `${e.name}: numbered in order`);
    counts.set(e.file, Number(m));
  }
  for (const [file, m] of counts) assert.equal(edits.filter((e) => e.file === file).length, m, `${file}: M is its edit count`);
  return counts;
}

/** "1–3, 5, 9–17" → [1, 2, 3, 5, 9, ...]. */
function numbers(list) {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.trim().split(/[–-]/).map(Number);
    assert.ok(Number.isInteger(a) && (b === undefined || b >= a), `not a range: ${part}`);
    return Array.from({ length: (b || a) - a + 1 }, (_, i) => a + i);
  });
}

/** The table's rows: [{ids: ['file N', ...], what, proof}]. */
function tableRows(doc) {
  const start = doc.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, `the page has "${HEADING}"`);
  const body = doc.slice(start + HEADING.length + 2).split('\n## ')[0];
  const rows = body.split('\n').filter((line) => line.startsWith('| `'));
  assert.ok(rows.length > 0);
  return rows.map((line) => {
    const [cited, what, proof] = line.slice(2, -2).split(' | ');
    const ids = [];
    for (const m of cited.matchAll(/`([^`]+)` ([\d–, -]+?)(?=,\s*`|$)/g)) {
      for (const n of numbers(m[2])) ids.push(`${m[1]} ${n}`);
    }
    assert.ok(ids.length > 0, `a row cites no edit: ${line}`);
    return { line, ids, what, proof };
  });
}

/** Each cited test: `path` "words"; the file must exist and hold the words. */
function provers(proof) {
  return [...proof.matchAll(/`([^`]+\.js)` "([^"]+)"/g)].map((m) => ({ file: m[1], words: m[2] }));
}

function fileOfProver(file) {
  return file.startsWith('testing/') ? path.join(HERE, file) : path.join(APP, file);
}

test('every edit of EDITS.md is cited exactly once in the table, and every cited edit exists', () => {
  const counts = editCounts(EDITS);
  const all = EDITS.map((e) => `${e.file} ${/(\d+)\/\d+$/.exec(e.name)[1]}`);
  const cited = tableRows(DOC).flatMap((row) => row.ids);
  const twice = cited.filter((id, i) => cited.indexOf(id) !== i);
  assert.deepEqual(twice, [], 'cited twice');
  assert.deepEqual(cited.filter((id) => !all.includes(id)), [], 'cited but not an edit');
  assert.deepEqual(all.filter((id) => !cited.includes(id)), [], 'an edit the prose does not cite');
  assert.ok(counts.size > 0);
});

test('every row names a proof that exists: a jest test with its words, the headless check, or none with why', () => {
  for (const row of tableRows(DOC)) {
    const found = provers(row.proof);
    const jsEdit = row.ids.some((id) => id.split(' ')[0].endsWith('.js'));
    if (jsEdit) {
      assert.ok(found.some((p) => p.file.endsWith('.test.js')), `a .js edit without a jest test: ${row.line}`);
    }
    if (!found.length) {
      assert.match(row.proof, /^none: \S/, `neither a test nor "none: why": ${row.line}`);
      continue;
    }
    for (const { file, words } of found) {
      const where = fileOfProver(file);
      assert.ok(fs.existsSync(where), `${file} does not exist`);
      const text = fs.readFileSync(where, 'utf8').replace(/\\'/g, "'");
      assert.ok(text.includes(words), `${file} has no test with "${words}"`);
    }
  }
});

test('every shipped jest test is cited, so none proves a behaviour the prose does not name', () => {
  const shipped = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.js')) shipped.push(path.relative(APP, full));
    }
  };
  walk(APP);
  const cited = new Set(tableRows(DOC).flatMap((row) => provers(row.proof).map((p) => p.file)));
  // The client's own tests (utils/kubernetes) prove the client, cited in "#460, box by box".
  const uncited = shipped.filter((file) => !cited.has(file) && !DOC.includes(file));
  assert.deepEqual(uncited, []);
});

test('every `file` N/M cited anywhere in the page is an edit with that number and that M', () => {
  const counts = editCounts(EDITS);
  const stale = [];
  for (const m of DOC.matchAll(/`([^`]+)`\s+(\d+)\/(\d+)/g)) {
    const [, name, n, total] = m;
    // A path of EDITS.md, or its end (`ContainersListPage.tsx` 1/3); other `x` N/M are counts.
    const files = [...counts.keys()].filter((file) => file === name || file.endsWith(`/${name}`));
    if (!files.length) continue;
    if (files.length > 1 || counts.get(files[0]) !== Number(total) || Number(n) > Number(total)) stale.push(m[0]);
  }
  assert.deepEqual(stale, []);
});

test('the checker itself: a missing edit, a stale N/M and an unknown test are found', () => {
  const doctored = DOC.replace('| `bin/create-container.js` 4 |', '| `bin/create-container.js` 99 |');
  const cited = tableRows(doctored).flatMap((row) => row.ids);
  assert.ok(cited.includes('bin/create-container.js 99') && !cited.includes('bin/create-container.js 4'));
  assert.deepEqual(numbers('1–3, 5, 9–10'), [1, 2, 3, 5, 9, 10]);
  assert.deepEqual(provers('`a.test.js` "x y"; `b.test.js` "z"'), [{ file: 'a.test.js', words: 'x y' }, { file: 'b.test.js', words: 'z' }]);
});
