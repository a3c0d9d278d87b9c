'use strict';
// EDITS.md is applied by its anchors alone: these tests hold the applier to the rules the file
// states (an anchor on exactly one line; "the first Y after A"; replace N lines), so the check
// that applying it to Manager gives the tested tree means what it says.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { edit, parse } = require('../testing/apply-edits');

const EDITS = fs.readFileSync(path.join(__dirname, '..', 'manager-files', 'EDITS.md'), 'utf8');

function one(heading, code) {
  const [e] = parse(`${heading}\n\n\`\`\`js\n${code}\n\`\`\`\n`);
  return e;
}

test('every edit heading of EDITS.md parses, each with its code and one anchor', () => {
  const headings = EDITS.split('\n').filter((line) => line.startsWith('**`'));
  const edits = parse(EDITS);
  assert.equal(edits.length, headings.length);
  assert.ok(edits.length > 0);
  for (const e of edits) {
    assert.ok(e.anchor.trim().length > 0, e.name);
    assert.ok(e.code.some((line) => line.trim()), e.name);
  }
});

test('an edit heading the applier cannot read stops the run', () => {
  assert.throws(() => parse('**`a.js` 1/1** · top level: put it somewhere:\n\n```js\nx\n```\n'), /not an edit heading/);
});

test('insert after, insert before and replace act on the anchor line', () => {
  const lines = ['a', 'function f() {', '  return 1;', '}'];
  edit(lines, one('**`a.js` 1/3** · in `function f`: insert after the line containing `function f`:', '  // x'));
  edit(lines, one('**`a.js` 2/3** · in `function f`: insert before the line containing `return 1`:', '  // y'));
  edit(lines, one('**`a.js` 3/3** · in `function f`: replace the line containing `return 1` with:', '  return 2;'));
  assert.deepEqual(lines, ['a', 'function f() {', '  // x', '  // y', '  return 2;', '}']);
});

test('an anchor on no line or on two lines stops the run, naming the edit', () => {
  const lines = ['  return 1;', '  return 1;'];
  assert.throws(() => edit(lines, one('**`a.js` 1/1** · top level: replace the line containing `return 1` with:', 'x')),
    /a\.js 1\/1: `return 1` is on 2 lines, not exactly one/);
  assert.throws(() => edit(lines, one('**`a.js` 1/1** · top level: insert after the line containing `nope`:', 'x')),
    /is on 0 lines/);
});

test('"the first Y after A" picks the Y below the unique A, not an earlier one', () => {
  const lines = ['<A>', ')}', '<B>', '  x', ')}', ')}'];
  edit(lines, one('**`a.tsx` 1/1** · in `function P`: insert after the first line containing `)}` after the line containing `<B>`:', 'new'));
  assert.deepEqual(lines, ['<A>', ')}', '<B>', '  x', ')}', 'new', ')}']);
});

test('replace N lines takes the anchor line and the N-1 below it', () => {
  const lines = ['a', 'b', 'c', 'd'];
  edit(lines, one('**`a.js` 1/1** · top level: replace the 2 lines starting at the line containing `b` with:', 'B\nC\nC2'));
  assert.deepEqual(lines, ['a', 'B', 'C', 'C2', 'd']);
});
