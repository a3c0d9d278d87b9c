#!/usr/bin/env node
'use strict';
// Applies the change list to a checkout of Manager as a reader of EDITS.md would, so the list is
// checked by doing exactly what it says: copy manager-files/ and the client in whole, then make
// each edit of EDITS.md by its anchor. An anchor that is missing or found more than once stops
// the run, naming the edit: a list that needs interpretation fails here first.
//
//   node integrations/manager/testing/apply-edits.js <manager-checkout>

const fs = require('node:fs');
const path = require('node:path');

const HERE = path.resolve(__dirname, '..');
const FILES = path.join(HERE, 'manager-files');

// "the line containing `A`" or "the first line containing `Y` after the line containing `X`"
const LOCATOR = '(?:the first line containing `([^`]*)` after )?the line containing `([^`]*)`';
const HEADING = new RegExp(
  '^\\*\\*`([^`]+)` (\\d+)/(\\d+)\\*\\* · [^\\n]*?: '
    + `(insert after|insert before|replace(?: the (\\d+) lines starting at)?) ${LOCATOR}(?: with)?:$`,
);

function fail(edit, why) {
  throw new Error(`${edit}: ${why}`);
}

/** The one line holding `text`, else the edit fails: the anchor is what makes it unambiguous. */
function onlyLine(lines, text, edit) {
  const hits = lines.flatMap((line, i) => (line.includes(text) ? [i] : []));
  if (hits.length !== 1) fail(edit, `\`${text}\` is on ${hits.length} lines, not exactly one`);
  return hits[0];
}

function locate(lines, first, anchor, edit) {
  const at = onlyLine(lines, anchor, edit);
  if (first === undefined) return at;
  const next = lines.findIndex((line, i) => i > at && line.includes(first));
  if (next < 0) fail(edit, `no line with \`${first}\` below \`${anchor}\``);
  return next;
}

/** The edits of EDITS.md in order: file, operation, anchor and the code (the next fenced block). */
function parse(text) {
  const lines = text.split('\n');
  const edits = [];
  for (let i = 0; i < lines.length; i += 1) {
    const m = HEADING.exec(lines[i]);
    if (!m) {
      if (lines[i].startsWith('**`')) throw new Error(`EDITS.md line ${i + 1}: not an edit heading: ${lines[i]}`);
      continue;
    }
    let j = i + 1;
    while (!/^`{3,}/.test(lines[j])) j += 1;
    const fence = /^`+/.exec(lines[j])[0];
    const end = lines.findIndex((line, k) => k > j && line === fence);
    edits.push({
      name: `${m[1]} ${m[2]}/${m[3]}`, file: m[1], op: m[4].split(' the ')[0],
      count: m[5] ? Number(m[5]) : 1, first: m[6], anchor: m[7], code: lines.slice(j + 1, end),
    });
    i = end;
  }
  return edits;
}

/** Makes one parsed edit to a file's lines, in place. */
function edit(lines, e) {
  const at = locate(lines, e.first, e.anchor, e.name);
  if (e.op === 'insert after') lines.splice(at + 1, 0, ...e.code);
  else if (e.op === 'insert before') lines.splice(at, 0, ...e.code);
  else lines.splice(at, e.count, ...e.code);
}

function apply(checkout) {
  const app = path.join(checkout, 'create-a-container');
  fs.cpSync(path.join(FILES, 'create-a-container'), app, { recursive: true });
  const client = path.join(app, 'utils', 'kubernetes');
  fs.mkdirSync(client, { recursive: true });
  fs.copyFileSync(path.join(HERE, 'kubernetes-api.js'), path.join(client, 'kubernetes-api.js'));
  fs.cpSync(path.join(HERE, 'lib'), path.join(client, 'lib'), { recursive: true });
  const edits = parse(fs.readFileSync(path.join(FILES, 'EDITS.md'), 'utf8'));
  const files = new Map();
  for (const e of edits) {
    const file = path.join(app, e.file);
    if (!files.has(file)) files.set(file, fs.readFileSync(file, 'utf8').split('\n'));
    edit(files.get(file), e);
  }
  for (const [file, lines] of files) fs.writeFileSync(file, lines.join('\n'));
  return edits.length;
}

if (require.main === module) {
  if (process.argv.length !== 3) {
    process.stderr.write('usage: apply-edits.js <manager-checkout>\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`applied ${apply(process.argv[2])} edits\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

module.exports = { apply, edit, parse };
