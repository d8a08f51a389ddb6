// The README's Node example runs as printed and prints what the README says it prints.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('the README first example (Start here) runs and its commented output is right', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Start here'));
  const code = section.slice(section.indexOf('```js') + 5, section.indexOf('```', section.indexOf('```js') + 5));
  // Inside the package folder, so `import 'attention-wasm'` resolves to this package.
  const file = fileURLToPath(new URL('./readme-example.tmp.mjs', import.meta.url));
  writeFileSync(file, code);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
    // The README says: [[1, 2], [2.34…, 3.34…]] and [2, 3] baseline
    const rows = JSON.parse(out.split('\n')[0].replace(/\s+/g, ''));
    assert.deepEqual(rows[0], [1, 2]);
    assert.ok(Math.abs(rows[1][0] - 2.3395) < 1e-4 && Math.abs(rows[1][1] - 3.3395) < 1e-4, out);
    assert.match(out, /\n\[ 2, 3 \] baseline\n/);
  } finally {
    rmSync(file, { force: true });
  }
});

// Every ```js snippet in the README, run as written (as its own .mjs file inside the
// package, so `import 'attention-wasm'` resolves to it), and what it prints, checked against
// the output its comments promise.
const PROMISES = [
  [/^\[ \[ 1, 2 \], \[ 2\.339522\d*, 3\.339523\d* \] \]\n\[ 2, 3 \] baseline\n$/, 'Start here'],
  [/^<attention-matrix label="weights" value="\[\[0\.49,0\.51\],\[0\.52,0\.48\]\]"><\/attention-matrix>\n$/, 'sanitize-html'],
  [/^2 null\n$/, 'Threads'],
  [/^0\.5\n$/, 'out'],
  [/^\[ 6 \] \[ 1, 2, 1, 4 \]\n$/, 'KVCache'],
  [/^\[ 1, 8, 10 \] 2\n$/, 'TinyTransformer'],
  [/^\[ 'The', 'Ġ', 'c', 'at', 'Ġsat' \] \[ 1, 4, 5, 5 \]\n3 length\n$/, 'loadModel'],
  [/^\[ 'mean' \] true\n\[ 2, 32 \] 0\.880\n\[ 1, 64 \]\n$/, 'embed'],
  [/^negative \[CLS\] the food was cold and the waiter ignored us \.\n2 4 11\n$/, 'TextClassifier'],
  [/^false \{ name: 'weights', shape: \[ 65536, 65536 \], bytes: 17179869184 \}\n$/, 'estimateMemory'],
];

test('every JavaScript snippet in the README runs as written and prints what its comments say', { timeout: 120_000 }, () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const snippets = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(snippets.length, PROMISES.length, 'a new snippet needs its promised output here');
  snippets.forEach((code, i) => {
    const file = fileURLToPath(new URL(`./readme-snippet-${i}.tmp.mjs`, import.meta.url));
    writeFileSync(file, code);
    try {
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
      assert.match(out, PROMISES[i][0], `${PROMISES[i][1]} snippet printed:\n${out}`);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
