// Before/after of a runner change on whole models, one process, interleaved so the machine's
// drift hits both sides alike: `node --expose-gc bench/ab-models.js <old checkout> [threads]`.
// The old side is a built checkout of its own (`git worktree add /tmp/before <commit>`,
// `bash scripts/build.sh` there): its own JS drives its own wasm. Cases: the BERT-base and
// GPT-2-small shapes of `npm run bench` (bench/model-cases.js, the same seeded weights),
// BERT forward T = 128, GPT-2 prefill T = 128 and cached decode. Prints a table of the best
// and median of 7 rounds per side.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { init } from 'attention-wasm';
import { makeBert, makeGpt2 } from './model-cases.js';

const [before, threadArg = '1'] = process.argv.slice(2);
if (!before || !existsSync(join(before, 'dist', 'attention.wasm'))) {
  console.error('usage: node --expose-gc bench/ab-models.js <old built checkout> [threads]');
  process.exit(2);
}
const threads = Number(threadArg);
const initBefore = (await import(pathToFileURL(join(before, 'bindings', 'js', 'node.js')).href)).init;
const sides = { before: await initBefore({ threads }), after: await init({ threads }) };

const bert = makeBert(),
  gpt2 = makeGpt2();
const ids = (n, V, seed) => Array.from({ length: n }, (_, i) => (i * 7919 + seed * 104729) % V);
const models = {};
for (const [side, attn] of Object.entries(sides)) {
  models[side] = {
    bert: await attn.loadModel({ 'config.json': bert.config, 'model.safetensors': bert.safetensors }),
    gpt2: await attn.loadModel({ 'config.json': gpt2.config, 'model.safetensors': gpt2.safetensors }),
  };
}
const bertInput = ids(128, bert.config.vocab_size, 3),
  prompt = ids(128, gpt2.config.vocab_size, 9);
const cases = {
  'BERT-base, forward T = 128 (ms)': async (m) => {
    const t = performance.now();
    m.bert.forward(bertInput);
    return performance.now() - t;
  },
  'GPT-2-small, prefill T = 128 (ms)': async (m) => {
    const t = performance.now();
    m.gpt2.forward(prompt);
    return performance.now() - t;
  },
  'GPT-2-small, decode after 128 (ms/token)': async (m) => {
    let t0 = 0;
    const { newIds } = await m.gpt2.generate(prompt, {
      maxNewTokens: 49,
      stopAtEos: false,
      onToken: ({ index }) => {
        if (index === 0) t0 = performance.now();
      },
    });
    return (performance.now() - t0) / (newIds.length - 1);
  },
};
// Outputs agree first (the same weights on both sides).
const a = models.before.gpt2.forward(prompt).logits.data,
  b = models.after.gpt2.forward(prompt).logits.data;
let worst = 0;
for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
const rows = [
  '| case | before best | after best | before median | after median | change (median) |',
  '|---|---|---|---|---|---|',
];
for (const [name, run] of Object.entries(cases)) {
  const times = { before: [], after: [] };
  for (const side of ['before', 'after']) await run(models[side]); // warm-up
  for (let r = 0; r < 7; r++) {
    for (const side of r % 2 ? ['after', 'before'] : ['before', 'after']) {
      globalThis.gc?.();
      times[side].push(await run(models[side]));
    }
  }
  const best = (xs) => Math.min(...xs),
    median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const change = (median(times.after) / median(times.before) - 1) * 100;
  rows.push(
    `| ${name} | ${best(times.before).toFixed(1)} | ${best(times.after).toFixed(1)} | ${median(times.before).toFixed(1)} | ${median(times.after).toFixed(1)} | ${change >= 0 ? '+' : ''}${change.toFixed(1)}% |`,
  );
}
console.log(rows.join('\n'));
console.log(
  `(${threads} thread${threads > 1 ? 's' : ''}; GPT-2 prefill logits before vs after: max |diff| ${worst.toExponential(1)})`,
);
