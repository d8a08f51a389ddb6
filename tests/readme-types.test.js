// TypeScript users (issue 36 item 3): every JavaScript example of the README and of docs/
// (fenced ```js; source excerpts in the contributor's docs are fenced ```javascript)
// compiles under `tsc --strict` as a TypeScript module (module and resolution nodenext, as the
// README's TypeScript note says), against the package's own typings: an output the snippet
// asked for (returnWeights, attentions, hiddenStates, text tokens) needs no `!`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertTypeChecks } from './helpers/tsc.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// The ```js blocks of a markdown file, those fenced ```js browser (not run in Node) included.
const snippets = (file) =>
  [...readFileSync(`${root}${file}`, 'utf8').matchAll(/```js(?: browser| network)?\n([\s\S]*?)```/g)].map((m) => m[1]);

test("the README's and docs/' JavaScript snippets compile under tsc --strict", () => {
  const files = [
    'README.md',
    ...readdirSync(`${root}docs`)
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  // Inside the package, so that 'attention-wasm' resolves to it by its own name.
  const dir = `${root}tests/.readme-ts-${process.pid}/`;
  mkdirSync(dir, { recursive: true });
  try {
    const written = [];
    for (const file of files) {
      snippets(file).forEach((code, i) => {
        const name = `${dir}${file.replace(/[/.]/g, '_')}_${i}.ts`;
        writeFileSync(name, `${code}\nexport {};\n`);
        written.push(name);
      });
    }
    // A library the README's sanitizing example uses, untyped: declared as any.
    writeFileSync(`${dir}shims.d.ts`, "declare module 'sanitize-html';\n");
    assert.ok(written.length >= 10, `${written.length} snippets`);
    assertTypeChecks([`${dir}shims.d.ts`, ...written]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
