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
  [
    /^<attention-matrix label="weights" value="\[\[0\.49,0\.51\],\[0\.52,0\.48\]\]"><\/attention-matrix>\n$/,
    'sanitize-html',
  ],
  [/^2 null\n$/, 'Threads'],
  [/^0\.5\n$/, 'out'],
  [/^\[ 6 \] \[ 1, 2, 1, 4 \]\n$/, 'KVCache'],
  [/^\[ 1, 8, 10 \] 2\n$/, 'TinyTransformer'],
  [/^\[ 'The', 'Ġ', 'c', 'at', 'Ġsat' \] \[ 1, 4, 5, 5 \]\n3 length\n$/, 'loadModel'],
  [/^\[ 'mean' \] true\n\[ 2, 32 \] 0\.880\n\[ 1, 64 \]\n$/, 'embed'],
  [/^negative \[CLS\] the food was cold and the waiter ignored us \.\n2 4 11\n$/, 'TextClassifier'],
  [/^false \{ name: 'weights', shape: \[ 65536, 65536 \], bytes: 17179869184 \}\n$/, 'estimateMemory'],
];

test(
  'every JavaScript snippet in the README runs as written and prints what its comments say',
  { timeout: 120_000 },
  () => {
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
  },
);

// The classifier results the README shows, each as the shipped classifier gives it now: the
// element's example (label, p, the words the element says), the mistakes it names, seed
// 001's first review, the made-up-word range, and the calibration table.
test("the README's classifier results are what the shipped review classifier gives", async () => {
  const { init } = await import('attention-wasm');
  const { confidenceWords } = await import('../web/elements/confidence.js');
  const { EXAMPLES, reviewSplits } = await import('../web/elements/training/review-recipe.js');
  const { readReviewFiles, madeUpWords } = await import('../scripts/review-training.mjs');
  const { calibrationMetrics, logitRows, softmax64 } = await import('../scripts/review-calibration.mjs');
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const attn = await init({ simd: 'baseline', threads: 1 });
  const classifier = await attn.TextClassifier.load(
    fileURLToPath(new URL('../web/elements/models/review-sentiment/', import.meta.url)),
  );
  const shown = (text) => {
    const p = classifier.predict(text);
    return { label: p.label, p: p.probabilities[p.labelId], raw: Math.max(...softmax64(p.logits)) };
  };
  const gold = (text) => EXAMPLES.find(([, t]) => t === text)?.[0];
  try {
    // Every <attention-sentiment text="…"> carries its result in a comment, and it is right.
    const elements = [
      ...readme.matchAll(
        /<attention-sentiment text="([^"]+)"><\/attention-sentiment> <!-- (\w+), p = ([\d.]+): ([a-z ]+) -->/g,
      ),
    ];
    assert.equal(
      elements.length,
      readme.split('<attention-sentiment text=').length - 1,
      'every <attention-sentiment text> example says what it shows',
    );
    for (const [, text, label, p, words] of elements) {
      const r = shown(text);
      assert.deepEqual([label, p, words], [r.label, r.p.toFixed(3), confidenceWords(r.p)], text);
      assert.equal(gold(text) ?? label, label, `${text}: an example the model gets wrong must say so`);
    }
    // The mistakes the element's paragraph names: the model's label and p, and wrong indeed.
    const mistakes = [...readme.matchAll(/"([^"]+)" \((negative|positive), p = ([\d.]+)/g)];
    assert.ok(mistakes.length >= 2);
    for (const [, text, label, p] of mistakes) {
      const r = shown(text);
      assert.deepEqual([label, p], [r.label, r.p.toFixed(3)], text);
      assert.notEqual(gold(text), label, `${text} is named as a mistake`);
    }
    const seed = shown(EXAMPLES[0][1]);
    assert.notEqual(seed.label, EXAMPLES[0][0]);
    assert.match(readme, new RegExp(`seed 001's first review \\(${seed.label}, p = ${seed.p.toFixed(3)}\\)`));
    assert.match(readme, new RegExp(`the first of the four is labelled wrong, at p = ${seed.p.toFixed(3)}\\)`));
    // The calibration paragraph and table.
    const notBad = shown('the acting was not bad');
    assert.match(
      readme,
      new RegExp(
        `"the acting was not bad" is still ${notBad.label}, now at p = ${notBad.p.toFixed(3)} instead of ${notBad.raw.toFixed(3)}`,
      ),
    );
    const pasta = shown('The pasta arrived cold and the manager shrugged.');
    assert.match(
      readme,
      new RegExp(
        `"The pasta arrived cold and the manager shrugged\\." is still ${pasta.label} at ${pasta.p.toFixed(3)} \\(${pasta.raw.toFixed(3)} raw\\)`,
      ),
    );
    const T = classifier.temperature.toFixed(2);
    const m = calibrationMetrics(
      logitRows(classifier, Object.values(reviewSplits(readReviewFiles().uci).heldOut).flat()),
      classifier.temperature,
    );
    assert.match(readme, new RegExp(`by T = ${T} before the softmax`));
    assert.match(
      readme,
      new RegExp(
        `\\| expected calibration error \\(15 equal-width bins\\) \\| ${m.eceBefore.toFixed(4)} \\| ${m.eceAfter.toFixed(4)} \\|`,
      ),
    );
    assert.match(
      readme,
      new RegExp(
        `\\| negative log-likelihood \\(nats per sentence\\) \\| ${m.nllBefore.toFixed(3)} \\| ${m.nllAfter.toFixed(3)} \\|`,
      ),
    );
    const words = madeUpWords(classifier);
    assert.match(readme, new RegExp(`p\\(positive\\) ${words.min.toFixed(3)}–${words.max.toFixed(3)} over 200 texts`));
  } finally {
    classifier.dispose();
  }
});
