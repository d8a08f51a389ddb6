// The README's and docs/' examples run as printed and print what the text says they print,
// and the links between these files lead somewhere.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const read = (file) => readFileSync(new URL(file, root), 'utf8');
// README.md and every markdown file of docs/, by path from the package root.
const DOC_FILES = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
// A file's ```js snippets in order, each with whether its fence says it runs only in a browser
// or needs the network (```js browser, ```js network: type-checked by readme-types.test.js, not
// run here).
const snippets = (file) =>
  [...read(file).matchAll(/```js( browser| network)?\n([\s\S]*?)```/g)].map((m) => ({
    browser: Boolean(m[1]),
    code: m[2],
  }));

test('the README first example runs and its commented output is right', () => {
  const code = snippets('README.md')[0].code;
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

// Every ```js snippet of each file, run as written (as its own .mjs file inside the package,
// so `import 'attention-wasm'` resolves to it), and what it prints, checked against the output
// its comments promise: per file, one entry per snippet in order; `BROWSER` for a snippet
// fenced ```js browser, which is not run.
const BROWSER = 'browser';
const ATTENTION = [/^\[ \[ 1, 2 \], \[ 2\.339522\d*, 3\.339523\d* \] \]\n\[ 2, 3 \] baseline\n$/, 'attention'];
const LOAD_MODEL = [/^\[ 'The', 'Ġ', 'c', 'at', 'Ġsat' \] \[ 1, 4, 5, 5 \]\n3 length\n$/, 'loadModel'];
const TINY_TRANSFORMER = [/^\[ 1, 8, 10 \] 2\n$/, 'TinyTransformer'];
const PROMISES = {
  'README.md': [ATTENTION, LOAD_MODEL, TINY_TRANSFORMER],
  'docs/adding-an-architecture.md': [],
  'docs/api.md': [
    [/^0\.5\n$/, 'out'],
    [/^\[ 6 \] \[ 1, 2, 1, 4 \]\n$/, 'KVCache'],
    TINY_TRANSFORMER,
    [/^false \{ name: 'weights', shape: \[ 65536, 65536 \], bytes: 17179869184 \}\n$/, 'estimateMemory'],
  ],
  'docs/benchmarks.md': [],
  'docs/contributing.md': [],
  'docs/elements.md': [
    [
      /^<attention-matrix label="weights" value="\[\[0\.49,0\.51\],\[0\.52,0\.48\]\]"><\/attention-matrix>\n$/,
      'sanitize-html',
    ],
    BROWSER,
  ],
  'docs/glossary.md': [],
  'docs/gguf.md': [
    [/^llama 2 32\n\[1,304,269,298,316,278,293,261\]\n\[ 1, 8, 349 \] true\n$/, 'GGUF'],
    [/^q4 \{"F32":2\} \{"q4_0":16\}\n$/, 'matrix storage'],
  ],
  'docs/models.md': [LOAD_MODEL, [/^\[ 'mean' \] true\n\[ 2, 32 \] 0\.880\n\[ 1, 64 \]\n$/, 'embed']],
  'docs/quantization.md': [[/^q8 151808 44416\ntrue\n$/, 'dtype q8']],
  'docs/quantization-quality.md': [
    [
      /^float32 2035968 "rde the the the the the the same"\nq8 622848 "rde the the the the the the same"\nq4 377088 "rkerne the the the the the the t"\n$/,
      'trained model, three dtypes',
    ],
  ],
  'docs/security.md': [],
  'docs/text-classification-probe.md': [
    [
      /^embedded 8 of 8\nepoch 10: loss 0\.388\nepoch 20: loss 0\.242\nepoch 30: loss 0\.164\nepoch 40: loss 0\.119\nlinear-probe \[ 'negative', 'positive' \] positive\n\[CLS\] a great film \[SEP\] \| 2 layers of 4 heads\n1\n$/,
      'linear probe',
    ],
    [
      /^\[ 'config\.json', 'model\.safetensors' \]\n\{\n  source: 'tests\/fixtures\/hf\/tiny-bert',\n  revision: null,\n  modelType: 'bert',\n  dModel: 32,\n  vocabSize: 55,\n  numLayers: 2\n\}\n\[ 0\.23295137286186218, 0\.7670486569404602 \] \[ 0\.23295137286186218, 0\.7670486569404602 \]\ntrue\nfalse\n$/,
      'probe files',
    ],
    BROWSER,
  ],
  'docs/text-classification.md': [
    [/^negative \[CLS\] the food was cold and the waiter ignored us \.\n2 4 11\n$/, 'TextClassifier'],
  ],
  'docs/threads-and-builds.md': [[/^2 null\n$/, 'Threads']],
};

test('every markdown file of README and docs/ has its snippets listed here', () => {
  assert.deepEqual(Object.keys(PROMISES).sort(), [...DOC_FILES].sort(), 'a new docs/ file needs its entry in PROMISES');
  for (const file of DOC_FILES) {
    const kinds = snippets(file).map((s) => (s.browser ? BROWSER : 'node'));
    const promised = PROMISES[file].map((p) => (p === BROWSER ? BROWSER : 'node'));
    assert.deepEqual(kinds, promised, `${file}: a new snippet needs its promised output here`);
  }
});

for (const file of DOC_FILES) {
  const runnable = snippets(file)
    .map((s, i) => ({ ...s, promise: PROMISES[file]?.[i] }))
    .filter((s) => !s.browser);
  if (runnable.length === 0) continue;
  test(
    `every JavaScript snippet of ${file} runs as written and prints what its comments say`,
    { timeout: 120_000 },
    () => {
      runnable.forEach(({ code, promise }, i) => {
        assert.ok(Array.isArray(promise), `${file} snippet ${i} has a promised output`);
        const tmp = fileURLToPath(new URL(`./readme-snippet-${i}.tmp.mjs`, import.meta.url));
        writeFileSync(tmp, code);
        try {
          const out = execFileSync(process.execPath, [tmp], { encoding: 'utf8' });
          assert.match(out, promise[0], `${file}: the ${promise[1]} snippet printed:\n${out}`);
        } finally {
          rmSync(tmp, { force: true });
        }
      });
    },
  );
}

// GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered.
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

test('every relative link of README and docs/ leads to a file, and to a heading that exists', () => {
  let checked = 0;
  for (const file of DOC_FILES) {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path, hash] = target.split('#');
      const to = path ? new URL(path, new URL(file, root)) : new URL(file, root);
      assert.ok(existsSync(to), `${file}: the link ${target} leads to no file`);
      if (hash) {
        const names = anchors(readFileSync(to, 'utf8'));
        assert.ok(names.has(hash), `${file}: the link ${target} names no heading (${[...names].join(', ')})`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 40, `${checked} links checked`);
});

test('docs/models.md lists every model_type the loader reads, and no other', async () => {
  const { MODEL_TYPES } = await import('../bindings/js/models/architectures.js');
  // The table's rows: what follows its header and its |---| line.
  const section = read('docs/models.md').split('## Supported architectures')[1].split('\n## ')[0];
  const rows = section.slice(section.indexOf('|---'));
  const listed = [...rows.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...listed].sort(), [...MODEL_TYPES].sort());
});

// The classifier results the README and docs/ show, each as the shipped classifier gives it now: the
// element's example (label, p, the words the element says), the mistakes it names, seed
// 001's first review, the made-up-word range, and the calibration table.
test("the docs' classifier results are what the shipped review classifier gives", async () => {
  const { init } = await import('attention-wasm');
  const { confidenceWords } = await import('../web/elements/confidence.js');
  const { EXAMPLES, reviewSplits } = await import('../web/elements/training/review-recipe.js');
  const { readReviewFiles, madeUpWords } = await import('../scripts/review-training.mjs');
  const { calibrationMetrics, logitRows, softmax64 } = await import('../scripts/review-calibration.mjs');
  const readme = DOC_FILES.map(read).join('\n').replace(/\s+/g, ' ');
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
