// Generation with a key/value cache (issue 21 item 4): greedy tokens equal the PyTorch
// reference's (GPT-2 and Llama fixtures) with and without the cache, and the cached logits of
// every step equal the uncached ones; sampling repeats for a seed and follows the softmax of
// logits / temperature restricted by top-k and top-p; stopping by callback, AbortSignal and
// end-of-sequence; typed errors; nothing left allocated.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const greedyOf = (name) => JSON.parse(readFileSync(`${root}${name}/reference.json`, 'utf8')).greedy;

for (const name of [
  'tiny-gpt2',
  'tiny-llama',
  'tiny-mistral',
  'tiny-llama-rope-scaling',
  'tiny-llama-bf16',
  'tiny-qwen2',
  'tiny-qwen3',
  'tiny-gemma2',
  'tiny-gemma3',
  'tiny-phi3',
  'tiny-smollm',
  'tiny-smollm3',
  'tiny-granite',
  'tiny-olmo2',
]) {
  test(`${name}: greedy tokens equal PyTorch's, with and without the cache; cached logits equal uncached`, async () => {
    const ref = greedyOf(name);
    const model = await attn.loadModel(`${root}${name}`);
    const inUse = attn.memory().inUseBytes;
    const cached = await model.generate(ref.prompt, { maxNewTokens: 12, stopAtEos: false, returnScores: true });
    const full = await model.generate(ref.prompt, {
      maxNewTokens: 12,
      stopAtEos: false,
      returnScores: true,
      useCache: false,
    });
    assert.deepEqual(cached.ids, ref.ids, 'cached greedy = PyTorch greedy');
    assert.deepEqual(full.ids, ref.ids, 'uncached greedy = PyTorch greedy');
    assert.equal(cached.stopped, 'length');
    assert.equal(cached.newIds.length, 12);
    cached.scores.forEach((s, i) =>
      assertClose(s, full.scores[i], { rtol: 1e-4, atol: 1e-5, label: `step ${i} logits` }),
    );
    // The last step's logits equal a plain forward over the whole sequence's last row.
    const V = model.descriptor.vocabSize;
    const forward = model.forward(ref.ids.slice(0, -1)).logits.data;
    assertClose(cached.scores.at(-1), forward.subarray(forward.length - V), {
      rtol: 1e-4,
      atol: 1e-5,
      label: 'last step vs forward',
    });
    assert.equal(attn.memory().inUseBytes, inUse, 'the cache is freed');
    model.dispose();
  });
}

test('sampling: a seed repeats; top-k 1 and a tiny top-p are greedy; frequencies follow the softmax', async () => {
  const model = await attn.loadModel(`${root}tiny-llama`);
  const prompt = 'The cat';
  const greedy = await model.generate(prompt, { maxNewTokens: 8, stopAtEos: false });
  const sample = (o) => model.generate(prompt, { maxNewTokens: 8, stopAtEos: false, temperature: 1.5, ...o });
  assert.deepEqual((await sample({ seed: 7 })).ids, (await sample({ seed: 7 })).ids, 'same seed, same text');
  const seeds = new Set();
  for (let seed = 0; seed < 6; seed++) seeds.add(JSON.stringify((await sample({ seed })).newIds));
  assert.ok(seeds.size >= 4, `6 seeds gave ${seeds.size} different texts`);
  assert.deepEqual((await sample({ topK: 1, seed: 3 })).ids, greedy.ids, 'top-k 1 is greedy');
  assert.deepEqual((await sample({ topP: 1e-9, seed: 3 })).ids, greedy.ids, 'a tiny top-p is greedy');
  // One token, 3,000 seeds: each frequency within 4.5 sigma of softmax(logits / T) over the top-k.
  const logits = (await model.generate(prompt, { maxNewTokens: 1, returnScores: true, stopAtEos: false })).scores[0];
  const T = 2,
    K = 5,
    draws = 3000;
  const order = Array.from(logits.keys())
    .sort((a, b) => logits[b] - logits[a])
    .slice(0, K);
  const w = order.map((i) => Math.exp((logits[i] - logits[order[0]]) / T));
  const total = w.reduce((a, b) => a + b, 0);
  const counts = new Map();
  for (let seed = 0; seed < draws; seed++) {
    const id = (await model.generate(prompt, { maxNewTokens: 1, temperature: T, topK: K, seed, stopAtEos: false }))
      .newIds[0];
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  assert.ok(
    [...counts.keys()].every((id) => order.includes(id)),
    'only the top-k tokens are drawn',
  );
  order.forEach((id, r) => {
    const p = w[r] / total;
    const sigma = Math.sqrt(draws * p * (1 - p));
    assert.ok(
      Math.abs((counts.get(id) ?? 0) - draws * p) <= 4.5 * sigma + 1,
      `token ${id}: ${counts.get(id)} of ${draws}, expected ${(draws * p).toFixed(0)}`,
    );
  });
  model.dispose();
});

test('stopping: onToken returning false, an AbortSignal, the end-of-sequence token', async () => {
  const ref = greedyOf('tiny-gpt2');
  const model = await attn.loadModel(`${root}tiny-gpt2`);
  const seen = [];
  const byCallback = await model.generate(ref.prompt, {
    maxNewTokens: 10,
    onToken: (t) => (seen.push(t), t.index < 2),
  });
  assert.equal(byCallback.stopped, 'callback');
  assert.equal(byCallback.newIds.length, 3);
  assert.deepEqual(
    seen.map((t) => t.index),
    [0, 1, 2],
  );
  assert.deepEqual(
    seen.map((t) => t.id),
    byCallback.newIds,
  );
  const controller = new AbortController();
  const aborted = await model.generate(ref.prompt, {
    maxNewTokens: 10,
    signal: controller.signal,
    onToken: (t) => {
      if (t.index === 1) controller.abort();
    },
  });
  assert.equal(aborted.stopped, 'aborted');
  assert.equal(aborted.newIds.length, 2);
  model.dispose();
  // An eos id that greedy decoding reaches: the Llama fixture's 4th new token.
  const llama = greedyOf('tiny-llama');
  const newIds = llama.ids.slice(llama.ids.length - 12);
  const eos = newIds[3];
  const files = fixtureFiles(`${root}tiny-llama`);
  const config = { ...JSON.parse(new TextDecoder().decode(files['config.json'])), eos_token_id: eos };
  const withEos = await attn.loadModel({ ...files, 'config.json': config });
  const byEos = await withEos.generate(llama.prompt, { maxNewTokens: 10 });
  assert.equal(byEos.stopped, 'eos');
  assert.deepEqual(byEos.newIds, newIds.slice(0, newIds.indexOf(eos) + 1));
  withEos.dispose();
});

test('generate: typed errors; one generation at a time; dispose while generating; the module intact', async () => {
  const bert = await attn.loadModel(`${root}tiny-bert`);
  await assert.rejects(
    bert.generate('the cat'),
    /^RangeError: PretrainedModel.generate: this model's head is 'masked-lm'; generate needs a causal-LM head/,
  );
  bert.dispose();
  const model = await attn.loadModel(`${root}tiny-gpt2`);
  const inUse = attn.memory().inUseBytes;
  const bad = [
    [{ maxNewTokens: 0 }, RangeError, /options.maxNewTokens must be a positive integer/],
    [{ temperature: -1 }, RangeError, /options.temperature must be a finite number >= 0/],
    [{ topP: 0 }, RangeError, /options.topP must be in \(0, 1\]/],
    [{ topK: 1.5 }, RangeError, /options.topK must be an integer >= 0/],
    [{ seed: -2 }, RangeError, /options.seed must be an integer in \[0, 2\^32 - 1\]/],
    [{ onToken: 'x' }, TypeError, /options.onToken must be a function/],
    [{ signal: {} }, TypeError, /options.signal must be an AbortSignal/],
    [{ useCache: 1 }, TypeError, /options.useCache must be a boolean/],
  ];
  for (const [options, type, pattern] of bad) {
    await assert.rejects(
      model.generate('The cat', options),
      (e) => e instanceof type && pattern.test(e.message) && e.message.startsWith('PretrainedModel.generate: '),
    );
  }
  await assert.rejects(model.generate([]), /the prompt is empty/);
  await assert.rejects(model.generate([1, 99999]), /prompt\[1\] is 99999, not a token id in \[0, 305\)/);
  await assert.rejects(model.generate(new Array(32).fill(5)), /the prompt has 32 tokens; this model sees at most 32/);
  await assert.rejects(model.generate(42), TypeError);
  const first = model.generate('The cat', { maxNewTokens: 5 });
  await assert.rejects(model.generate('The cat'), /this model is already generating/);
  await first;
  assert.equal(attn.memory().inUseBytes, inUse);
  const running = model.generate('The cat', {
    maxNewTokens: 20,
    stopAtEos: false,
    onToken: (t) => {
      if (t.index === 2) model.dispose();
    },
  });
  await assert.rejects(running, /^Error: PretrainedModel.generate: this model was disposed/);
  const out = attn.attention(
    [[1, 0]],
    [
      [1, 0],
      [0, 1],
    ],
    [
      [1, 2],
      [3, 4],
    ],
    { scale: 0 },
  ).output;
  assert.deepEqual(Array.from(out.data), [2, 3]);
  assert.ok(attn.memory().inUseBytes < inUse, 'the disposed model freed its weights and cache');
});
