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
