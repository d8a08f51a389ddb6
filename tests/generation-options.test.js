// generate as transformers users drive it (issue 33 C): generation_config.json's values as
// defaults (explicit options win), the logits processors in transformers' order — repetition
// penalty, temperature, top-k, top-p, min-p — each step's processed scores equal to a float64
// reference written from transformers' processors, end-of-sequence id lists, and stop strings
// (the text ends before the stop string; onToken never shows it).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const llama = fixtureFiles(`${root}tiny-llama`);
const PROMPT = 'The cat sat on the mat. The cat';
const BUILT_IN = { maxNewTokens: 20, temperature: 0, topK: 0, topP: 1, minP: 0, repetitionPenalty: 1 };
const withGenerationConfig = (json) => attn.loadModel({ ...llama, 'generation_config.json': json });

// transformers' processors (generation/logits_process.py), in float64, in its order.
// Returns the processed scores and how many tokens each warper removed.
function reference(logits, seen, { temperature, topK, topP, minP, repetitionPenalty }) {
  let s = Array.from(logits);
  // RepetitionPenaltyLogitsProcessor: gather, score < 0 ? score * p : score / p, scatter.
  for (const id of new Set(seen)) s[id] = s[id] < 0 ? s[id] * repetitionPenalty : s[id] / repetitionPenalty;
  const removed = { topK: 0, topP: 0, minP: 0 };
  if (temperature === 0) return { scores: s, removed };
  s = s.map((x) => x / temperature); // TemperatureLogitsWarper
  const remove = (i, by) => {
    if (s[i] === -Infinity) return;
    s[i] = -Infinity;
    removed[by]++;
  };
  const softmax = (xs) => {
    const max = Math.max(...xs);
    const e = xs.map((x) => Math.exp(x - max));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  };
  if (topK > 0) {
    // TopKLogitsWarper: scores < topk(scores, k)[-1] removed
    const kth = s.slice().sort((a, b) => b - a)[Math.min(topK, s.length) - 1];
    s.forEach((x, i) => {
      if (x < kth) remove(i, 'topK');
    });
  }
  if (topP < 1) {
    // TopPLogitsWarper: ascending sort, cumsum of softmax <= 1 - p removed, the last kept
    const ascending = Array.from(s.keys()).sort((a, b) => s[a] - s[b] || a - b);
    const p = softmax(ascending.map((i) => s[i]));
    let cumulative = 0;
    ascending.forEach((i, j) => {
      cumulative += p[j];
      if (cumulative <= 1 - topP && j < ascending.length - 1) remove(i, 'topP');
    });
  }
  if (minP > 0) {
    // MinPLogitsWarper: probs < min_p * max(probs) removed
    const p = softmax(s);
    const top = Math.max(...p);
    p.forEach((q, i) => {
      if (q < minP * top) remove(i, 'minP');
    });
  }
  return { scores: s, removed };
}

// Each step's processed scores equal the reference on that step's raw logits and the ids so far.
function assertProcessed(result, promptLength, options) {
  const removed = { topK: 0, topP: 0, minP: 0 };
  result.processedScores.forEach((processed, step) => {
    const seen = result.ids.slice(0, promptLength + step);
    const ref = reference(result.scores[step], seen, options);
    for (const key of Object.keys(removed)) removed[key] += ref.removed[key];
    ref.scores.forEach((e, i) => {
      const a = processed[i];
      const ok = e === -Infinity ? a === -Infinity : Math.abs(a - e) <= 1e-12 * Math.max(1, Math.abs(e));
      assert.ok(ok, `step ${step}, token ${i}: ${a} vs the reference's ${e}`);
    });
    const id = result.newIds[step];
    if (options.temperature === 0)
      assert.equal(
        id,
        ref.scores.indexOf(Math.max(...ref.scores)),
        `step ${step}: greedy takes the largest processed score`,
      );
    else assert.ok(processed[id] > -Infinity, `step ${step}: the drawn token ${id} was kept`);
  });
  return removed;
}

test("generation_config.json: its values are generate's defaults, as transformers reads them; options win", async () => {
  const qwenLike = {
    bos_token_id: 1,
    do_sample: true,
    eos_token_id: [4, 2],
    repetition_penalty: 1.1,
    temperature: 0.7,
    top_p: 0.8,
    top_k: 20,
    min_p: 0.05,
    max_new_tokens: 7,
    pad_token_id: null,
    transformers_version: '4.37.0',
  };
  const model = await withGenerationConfig(qwenLike);
  assert.deepEqual(model.generationDefaults, {
    maxNewTokens: 7,
    temperature: 0.7,
    topK: 20,
    topP: 0.8,
    minP: 0.05,
    repetitionPenalty: 1.1,
    eosTokenId: [4, 2],
  });
  assert.ok(Object.isFrozen(model.generationDefaults));
  const byDefault = await model.generate(PROMPT, { seed: 3, stopAtEos: false, returnScores: true });
  const explicit = await model.generate(PROMPT, {
    seed: 3,
    stopAtEos: false,
    returnScores: true,
    maxNewTokens: 7,
    temperature: 0.7,
    topK: 20,
    topP: 0.8,
    minP: 0.05,
    repetitionPenalty: 1.1,
  });
  assert.equal(byDefault.newIds.length, 7);
  assert.deepEqual(byDefault.ids, explicit.ids);
  assert.deepEqual(byDefault.processedScores, explicit.processedScores);
  // An option wins over the file: temperature 0 is greedy, with the file's repetition penalty.
  const greedy = await model.generate(PROMPT, {
    temperature: 0,
    maxNewTokens: 5,
    stopAtEos: false,
    returnScores: true,
  });
  assertProcessed(greedy, greedy.ids.length - 5, { ...BUILT_IN, repetitionPenalty: 1.1 });
  model.dispose();
  // do_sample false (or absent): greedy whatever temperature the file says; true with no
  // other key: transformers' own defaults (temperature 1, top_k 50, top_p 1).
  const cases = [
    [
      { do_sample: false, temperature: 0.6, top_p: 0.9 },
      { ...BUILT_IN, topP: 0.9, eosTokenId: [2] },
    ],
    [{ temperature: 0.6 }, { ...BUILT_IN, eosTokenId: [2] }],
    [{ do_sample: true }, { ...BUILT_IN, temperature: 1, topK: 50, eosTokenId: [2] }],
    [
      { eos_token_id: 7, top_k: null },
      { ...BUILT_IN, eosTokenId: [7] },
    ],
  ];
  for (const [file, defaults] of cases) {
    const m = await withGenerationConfig(file);
    assert.deepEqual(m.generationDefaults, defaults, JSON.stringify(file));
    m.dispose();
  }
  const none = await attn.loadModel(llama);
  assert.deepEqual(
    none.generationDefaults,
    { ...BUILT_IN, eosTokenId: [2] },
    "no file: this API's defaults, config.json's eos",
  );
  none.dispose();
});

test('generation_config.json values that cannot be used: a RangeError naming the file and the key', async () => {
  const cases = [
    [{ top_p: 0 }, /^loadModel: generation_config\.json: top_p must be a number in \(0, 1\], got a number \(0\)$/],
    [{ temperature: -1 }, /generation_config\.json: temperature must be a finite number >= 0/],
    [{ repetition_penalty: 0 }, /generation_config\.json: repetition_penalty must be a finite number > 0/],
    [{ min_p: 2 }, /generation_config\.json: min_p must be a number in \[0, 1\]/],
    [{ top_k: 2.5 }, /generation_config\.json: top_k must be an integer >= 0/],
    [{ max_new_tokens: 0 }, /generation_config\.json: max_new_tokens must be a positive integer/],
    [{ do_sample: 'yes' }, /generation_config\.json: do_sample must be true or false/],
    [
      { eos_token_id: [2, 'x'] },
      /^loadModel: generation_config\.json: eos_token_id\[1\] is a string \(x\), not a token id in \[0, 349\)$/,
    ],
    [{ eos_token_id: 349 }, /generation_config\.json: eos_token_id is a number \(349\), not a token id in \[0, 349\)/],
    [[1, 2], /^loadModel: generation_config\.json must hold an object, got an array/],
  ];
  for (const [file, pattern] of cases)
    await assert.rejects(
      withGenerationConfig(file),
      (e) => e instanceof RangeError && pattern.test(e.message),
      JSON.stringify(file),
    );
  await assert.rejects(
    attn.loadModel({ ...llama, 'generation_config.json': '{ "top_k": ' }),
    /^RangeError: loadModel: generation_config\.json is not valid JSON/,
  );
  // An encoder reads no generation_config.json.
  const bert = fixtureFiles(`${root}tiny-bert`);
  (await attn.loadModel({ ...bert, 'generation_config.json': { top_p: 0 } })).dispose();
});

test('repetition penalty (greedy): seen tokens divided by p when positive, multiplied when negative', async () => {
  const model = await attn.loadModel(llama);
  const plain = await model.generate(PROMPT, { maxNewTokens: 8, stopAtEos: false, returnScores: true });
  const penalized = await model.generate(PROMPT, {
    maxNewTokens: 8,
    stopAtEos: false,
    returnScores: true,
    repetitionPenalty: 2,
  });
  const promptLength = plain.ids.length - 8;
  assertProcessed(plain, promptLength, BUILT_IN);
  assertProcessed(penalized, promptLength, { ...BUILT_IN, repetitionPenalty: 2 });
  assert.notDeepEqual(penalized.newIds, plain.newIds, 'the penalty changes the greedy text');
  // By hand on step 0: a seen token with a positive logit is halved, one with a negative
  // logit doubled, an unseen one unchanged.
  const raw = penalized.scores[0];
  const processed = penalized.processedScores[0];
  const seen = new Set(penalized.ids.slice(0, promptLength));
  const positive = [...seen].find((id) => raw[id] > 0);
  const negative = [...seen].find((id) => raw[id] < 0);
  const unseen = raw.findIndex((_, id) => !seen.has(id));
  assert.ok(positive !== undefined && negative !== undefined && unseen >= 0);
  assert.equal(processed[positive], raw[positive] / 2);
  assert.equal(processed[negative], raw[negative] * 2);
  assert.equal(processed[unseen], raw[unseen]);
  model.dispose();
});

test("sampling: temperature, top-k, top-p and min-p in transformers' order, each step equal to the float64 reference", async () => {
  const model = await attn.loadModel(llama);
  const options = { temperature: 0.5, topK: 40, topP: 0.9, minP: 0.1, repetitionPenalty: 1.3 };
  const removed = { topK: 0, topP: 0, minP: 0 };
  for (const seed of [1, 2, 3]) {
    const r = await model.generate(PROMPT, { ...options, seed, maxNewTokens: 6, stopAtEos: false, returnScores: true });
    const by = assertProcessed(r, r.ids.length - 6, options);
    for (const key of Object.keys(removed)) removed[key] += by[key];
  }
  assert.ok(
    removed.topK > 0 && removed.topP > 0 && removed.minP > 0,
    `each warper removed tokens: ${JSON.stringify(removed)}`,
  );
  // Each warper alone, too (the others off).
  for (const alone of [{ topK: 3 }, { topP: 0.5 }, { minP: 0.5 }, { temperature: 2 }]) {
    const o = { ...BUILT_IN, temperature: 1, ...alone };
    const r = await model.generate(PROMPT, { ...o, seed: 9, maxNewTokens: 3, stopAtEos: false, returnScores: true });
    assertProcessed(r, r.ids.length - 3, o);
  }
  model.dispose();
});

test('end of sequence: an id list from options or generation_config.json; stopAtEos false ignores it', async () => {
  const model = await attn.loadModel(llama);
  const free = await model.generate(PROMPT, { maxNewTokens: 10, stopAtEos: false });
  const never = Array.from({ length: 349 }, (_, i) => i).find((id) => !free.newIds.includes(id));
  const third = free.newIds[2];
  assert.ok(!free.newIds.slice(0, 2).includes(third), "the fixture's third token is new");
  const byOption = await model.generate(PROMPT, { maxNewTokens: 10, eosTokenId: [never, third] });
  assert.equal(byOption.stopped, 'eos');
  assert.deepEqual(byOption.newIds, free.newIds.slice(0, 3));
  assert.equal((await model.generate(PROMPT, { maxNewTokens: 10, eosTokenId: third })).newIds.length, 3);
  assert.equal((await model.generate(PROMPT, { maxNewTokens: 10, eosTokenId: [] })).stopped, 'length');
  model.dispose();
  const fromFile = await withGenerationConfig({ eos_token_id: [never, third] });
  assert.deepEqual((await fromFile.generate(PROMPT, { maxNewTokens: 10 })).newIds, free.newIds.slice(0, 3));
  assert.equal((await fromFile.generate(PROMPT, { maxNewTokens: 10, stopAtEos: false })).stopped, 'length');
  fromFile.dispose();
});

test('stop strings: the text ends before the first one, onToken never shows it, a stop split over tokens is held back', async () => {
  const model = await attn.loadModel(llama);
  const pieces = [];
  const free = await model.generate(PROMPT, {
    maxNewTokens: 16,
    stopAtEos: false,
    onToken: (t) => {
      pieces.push(t.text);
    },
  });
  assert.equal(pieces.join(''), free.text, 'the pieces make the text');
  const text = free.text;
  // The fixture's greedy text: ", keys and valu, keys and values: the heads attend to the w…".
  const pieceEnds = pieces.map((_, i) => pieces.slice(0, i + 1).join('').length);
  for (const stop of [': the', 'valu, k', ['zzz', 'and v'], 'heads attend']) {
    const first = Math.min(
      ...[stop]
        .flat()
        .map((s) => text.indexOf(s))
        .filter((at) => at >= 0),
    );
    const seen = [];
    const r = await model.generate(PROMPT, {
      maxNewTokens: 16,
      stopAtEos: false,
      stop,
      onToken: (t) => {
        seen.push(t.text);
      },
    });
    assert.equal(r.stopped, 'stop', String(stop));
    assert.equal(r.text, text.slice(0, first), String(stop));
    assert.equal(seen.join(''), r.text, `${stop}: onToken showed exactly the text`);
    // It stopped at the token whose text completes the stop string.
    const completes = pieceEnds.findIndex(
      (end) => end >= first + [stop].flat().find((s) => text.indexOf(s) === first).length,
    );
    assert.deepEqual(r.newIds, free.newIds.slice(0, completes + 1), String(stop));
  }
  assert.equal((await model.generate(PROMPT, { maxNewTokens: 16, stopAtEos: false, stop: 'never there' })).text, text);
  model.dispose();
});

test('the new options: typed errors naming the option', async () => {
  const model = await attn.loadModel(llama);
  const bad = [
    [
      { minP: 1.5 },
      RangeError,
      /^PretrainedModel\.generate: options\.minP must be in \[0, 1\] \(0: off\), got a number \(1\.5\)$/,
    ],
    [{ minP: '0.1' }, RangeError, /options\.minP must be in \[0, 1\]/],
    [
      { repetitionPenalty: 0 },
      RangeError,
      /^PretrainedModel\.generate: options\.repetitionPenalty must be a finite number > 0 \(1: off\), got a number \(0\)$/,
    ],
    [{ repetitionPenalty: Infinity }, RangeError, /options\.repetitionPenalty must be a finite number > 0/],
    [
      { eosTokenId: 'x' },
      TypeError,
      /^PretrainedModel\.generate: options\.eosTokenId must be a token id or an array of them, got a string \(x\)$/,
    ],
    [
      { eosTokenId: [2, 349] },
      RangeError,
      /^PretrainedModel\.generate: options\.eosTokenId\[1\] is a number \(349\), not a token id in \[0, 349\)$/,
    ],
    [{ eosTokenId: -1 }, RangeError, /options\.eosTokenId is a number \(-1\), not a token id/],
    [
      { stop: 5 },
      TypeError,
      /^PretrainedModel\.generate: options\.stop must be a string or an array of strings, got a number \(5\)$/,
    ],
    [{ stop: ['a', 5] }, TypeError, /options\.stop\[1\] must be a string/],
    [{ stop: '' }, RangeError, /options\.stop is empty/],
    [
      { stop: ['</s>'] },
      RangeError,
      /^PretrainedModel\.generate: options\.stop\[0\] "<\/s>" holds a special token, which the text leaves out; stop on it by id: eosTokenId: \[2\]$/,
    ],
    [
      { repetition_penalty: 1.1 },
      TypeError,
      /unknown option 'repetition_penalty' \(did you mean 'repetitionPenalty'\?/,
    ],
  ];
  for (const [options, type, pattern] of bad) {
    await assert.rejects(
      model.generate(PROMPT, options),
      (e) => e instanceof type && pattern.test(e.message),
      JSON.stringify(options),
    );
  }
  model.dispose();
  const noTokenizer = await attn.loadModel({
    'config.json': llama['config.json'],
    'model.safetensors': llama['model.safetensors'],
  });
  await assert.rejects(
    noTokenizer.generate([5, 6], { stop: 'x' }),
    /^RangeError: PretrainedModel\.generate: options\.stop needs a tokenizer/,
  );
  noTokenizer.dispose();
});
