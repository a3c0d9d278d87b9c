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
