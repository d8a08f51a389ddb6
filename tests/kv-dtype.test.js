// generate({ kvDtype }) (issue 34 item 3, issue 47 item 2): a bfloat16 or float16 key/value
// cache takes half the bytes of a float32 one, rounds each key and value once (to nearest even)
// and reads it back exactly; a q8 cache (llama.cpp's q8_0: rows in blocks of 32, a float16
// scale and int8 codes) takes 34 bytes per 32 and reads back d·q. Checked against an
// independent float64 GPT-2 whose keys and values are rounded by arithmetic
// (tests/helpers/gpt2-reference.js); bad values are TypeErrors before anything is allocated.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { init } from 'attention-wasm';
import { gpt2Logits, gpt2Weights, roundToBf16 } from './helpers/gpt2-reference.js';
import { roundToHalf } from './helpers/quantized-reference.js';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const greedyOf = (name) => JSON.parse(readFileSync(`${root}${name}/reference.json`, 'utf8')).greedy;
const HALVES = { bfloat16: roundToBf16, float16: roundToHalf };

// max |a − b| over every step's logits, and whether some element differs at all.
function difference(a, b) {
  let worst = 0,
    differs = false;
  a.forEach((row, s) =>
    row.forEach((x, j) => {
      worst = Math.max(worst, Math.abs(x - b[s][j]));
      differs ||= x !== b[s][j];
    }),
  );
  return { worst, differs };
}

test('tiny-gpt2: the cached logits with a bf16/f16 cache equal a float64 GPT-2 over rounded keys and values', async () => {
  const folder = `${root}tiny-gpt2`;
  const config = JSON.parse(readFileSync(`${folder}/config.json`, 'utf8'));
  const weights = gpt2Weights(new Uint8Array(readFileSync(`${folder}/model.safetensors`)));
  const model = await attn.loadModel(folder);
  const { prompt } = greedyOf('tiny-gpt2');
  const options = { maxNewTokens: 12, stopAtEos: false, returnScores: true };
  const f32 = await model.generate(prompt, options);
  // The reference's logits at the positions generate scored: the prompt's last, then each new one.
  const prompted = f32.ids.length - f32.newIds.length; // the prompt's tokens
  const steps = (ids, roundKv) => gpt2Logits(weights, config, ids, roundKv).slice(prompted - 1, -1);
  const plain = steps(f32.ids);
  assert.ok(difference(f32.scores, plain).worst < 2e-5, 'the float32 cache matches the reference');
  for (const [kvDtype, round] of Object.entries(HALVES)) {
    const half = await model.generate(prompt, { ...options, kvDtype });
    assert.deepEqual(half.newIds, f32.newIds, `${kvDtype}: the same greedy tokens`);
    const rounded = steps(half.ids, round);
    const toRounded = difference(half.scores, rounded).worst;
    const toPlain = difference(half.scores, plain).worst;
    console.log(
      `${kvDtype}: max |logit − rounded reference| ${toRounded.toExponential(2)}, − unrounded ${toPlain.toExponential(2)}`,
    );
    // float32 arithmetic against float64 (and a key a float32 error may round the other way):
    // far below what the rounding itself moves the logits.
    assert.ok(toRounded < 2e-5, `${kvDtype}: ${toRounded} from the rounded reference`);
    assert.ok(toPlain > 100 * toRounded, `${kvDtype}: the rounding shows (${toPlain} from the unrounded one)`);
  }
  model.dispose();
});

for (const name of ['tiny-gpt2', 'tiny-llama']) {
  test(`${name}: bf16/f16 caches give float32's greedy tokens, logits within a bound but not bit-equal, half the bytes`, async () => {
    const model = await attn.loadModel(`${root}${name}`);
    const { prompt } = greedyOf(name);
    const options = { maxNewTokens: 12, stopAtEos: false, returnScores: true };
    // The cache's bytes as the heap sees them: malloc's in-use bytes while a token is reported,
    // over those between calls (the same activations either way; the caches' blocks differ).
    const between = attn.memory().inUseBytes;
    const run = async (kvDtype) => {
      let during = 0;
      const onToken = () => void (during ||= attn.memory().inUseBytes - between);
      return { ...(await model.generate(prompt, { ...options, kvDtype, onToken })), during };
    };
    const f32 = await run('float32');
    const { descriptor: m } = model;
    const capacity = Math.min(m.contextLength, f32.ids.length); // prompt + maxNewTokens
    assert.equal(f32.cacheBytes, 2 * m.numLayers * capacity * m.numKvHeads * m.headDim * 4);
    for (const [kvDtype, bound] of [
      ['bfloat16', 0.05],
      ['float16', 0.01],
    ]) {
      const half = await run(kvDtype);
      assert.deepEqual(half.newIds, f32.newIds, `${kvDtype}: the same greedy tokens`);
      const { worst, differs } = difference(half.scores, f32.scores);
      assert.ok(worst < bound, `${kvDtype}: logits within ${bound} of float32's (${worst})`);
      assert.ok(differs, `${kvDtype}: not bit-equal to float32 (the keys and values were rounded)`);
      assert.equal(half.cacheBytes * 2, f32.cacheBytes, `${kvDtype}: half the cache bytes`);
      assert.equal(f32.during - half.during, f32.cacheBytes / 2, `${kvDtype}: the heap holds half`);
    }
    assert.equal((await model.generate(prompt, { maxNewTokens: 2, useCache: false })).cacheBytes, 0);
    assert.equal(attn.memory().inUseBytes, between, 'the cache is freed after each call');
    model.dispose();
  });
}

// A row of keys (or values) as a q8_0 cache holds it, element i of `row` (the reference's
// float64 row, rounded to float32 as the runner computes it): ggml's quantize_row_q8_0_ref on
// the block of 32 that holds i, d = max|x| / 127 and q = round(x · (1/d)) (half away from zero)
// in float32, d kept as its float16, read back as d·q (exact). Blocks are cached per row.
function q8Rounder() {
  const rows = new WeakMap();
  const blocksOf = (row) => {
    const blocks = [];
    for (let start = 0; start < row.length; start += 32) {
      let amax = 0;
      for (let k = start; k < Math.min(start + 32, row.length); k++)
        amax = Math.max(amax, Math.abs(Math.fround(row[k])));
      const d = Math.fround(amax / 127);
      blocks.push({ scale: roundToHalf(d), inverse: d !== 0 ? Math.fround(1 / d) : 0 });
    }
    return blocks;
  };
  return (x, i, row) => {
    if (!rows.has(row)) rows.set(row, blocksOf(row));
    const { scale, inverse } = rows.get(row)[Math.floor(i / 32)];
    const t = Math.fround(Math.fround(x) * inverse);
    return scale * Math.sign(t) * Math.round(Math.abs(t));
  };
}

// A query row as q8_0 keys in whole blocks read it (a head of a multiple of 32 elements): per
// block of 32, e the smallest integer with max|q| <= 32767 · 2^e, q̂ = 2^e · round(q / 2^e)
// with ties to even (the runner's float32 q, of which this is the float64, may sit on the
// other side of a half step: one code step, ≤ max|q| / 32767, now and then).
function codedQueries(row) {
  const out = [];
  for (let start = 0; start < row.length; start += 32) {
    const block = row.slice(start, start + 32).map(Math.fround);
    const amax = Math.max(...block.map(Math.abs));
    let e = -160;
    while (amax > 32767 * 2 ** e) e++;
    for (const x of block) {
      const t = x / 2 ** e;
      let code = Math.round(t);
      if (code - t === 0.5 && code % 2 !== 0) code -= 1; // a tie: to even
      out.push(amax === 0 ? 0 : code * 2 ** e);
    }
  }
  return out;
}

// generate with a q8 cache against the float64 GPT-2 over q8_0-rounded keys and values (and,
// where the heads' key rows are whole blocks, coded queries).
async function q8AgainstReference(label, config, safetensors, { codesQueries }) {
  const weights = gpt2Weights(safetensors);
  const files = { ...fixtureFiles(`${root}tiny-gpt2`), 'config.json': JSON.stringify(config) };
  const model = await attn.loadModel(files);
  const { prompt } = greedyOf('tiny-gpt2');
  const q8 = await model.generate(prompt, { maxNewTokens: 12, stopAtEos: false, returnScores: true, kvDtype: 'q8' });
  const prompted = q8.ids.length - q8.newIds.length;
  const steps = (roundKv, readQuery) => gpt2Logits(weights, config, q8.ids, roundKv, readQuery).slice(prompted - 1, -1);
  const toRounded = difference(q8.scores, steps(q8Rounder(), codesQueries ? codedQueries : undefined)).worst;
  const toPlain = difference(q8.scores, steps()).worst;
  console.log(
    `q8, ${label}: max |logit − q8_0 reference| ${toRounded.toExponential(2)}, − unrounded ${toPlain.toExponential(2)}`,
  );
  assert.ok(toRounded < 2e-5, `q8, ${label}: ${toRounded} from the rounded reference`);
  assert.ok(toPlain > 100 * toRounded, `q8, ${label}: the rounding shows (${toPlain} from the unrounded one)`);
  model.dispose();
}

const tinyGpt2 = () => ({
  config: JSON.parse(readFileSync(`${root}tiny-gpt2/config.json`, 'utf8')),
  safetensors: new Uint8Array(readFileSync(`${root}tiny-gpt2/model.safetensors`)),
});

test('tiny-gpt2: with a q8 cache the logits equal a float64 GPT-2 over keys and values rounded to q8_0 blocks', async () => {
  const { config, safetensors } = tinyGpt2();
  await q8AgainstReference('4 heads of 8', config, safetensors, { codesQueries: false });
});

test('tiny-gpt2 as one head of 32: key rows in whole q8_0 blocks, scored in integers against coded queries, equal the same reference', async () => {
  // The same weights read as one head: each cached key row is one whole block of 32, scored
  // against the query coded per block as int16 (4 heads of 8 share their blocks and are
  // widened to floats instead).
  const { config, safetensors } = tinyGpt2();
  await q8AgainstReference('1 head of 32', { ...config, n_head: 1 }, safetensors, { codesQueries: true });
});

for (const name of ['tiny-gpt2', 'tiny-llama']) {
  test(`${name}: a q8 cache takes 34 bytes per 32 values (blocks of a row), gives float32's greedy tokens, logits within a bound`, async () => {
    const model = await attn.loadModel(`${root}${name}`);
    const { prompt } = greedyOf(name);
    const options = { maxNewTokens: 12, stopAtEos: false, returnScores: true };
    const between = attn.memory().inUseBytes;
    const run = async (kvDtype) => {
      let during = 0;
      const onToken = () => void (during ||= attn.memory().inUseBytes - between);
      return { ...(await model.generate(prompt, { ...options, kvDtype, onToken })), during };
    };
    const f32 = await run('float32');
    const q8 = await run('q8');
    const { descriptor: m } = model;
    const capacity = Math.min(m.contextLength, f32.ids.length);
    const rowBytes = Math.ceil((m.numKvHeads * m.headDim) / 32) * 34;
    assert.equal(q8.cacheBytes, 2 * m.numLayers * capacity * rowBytes, 'keys and values, rows of q8_0 blocks');
    assert.equal(f32.during - q8.during, f32.cacheBytes - q8.cacheBytes, 'the heap holds the q8 cache');
    assert.deepEqual(q8.newIds, f32.newIds, 'the same greedy tokens');
    const { worst, differs } = difference(q8.scores, f32.scores);
    assert.ok(worst < 0.1, `logits within 0.1 of float32's (${worst})`);
    assert.ok(differs, 'not bit-equal to float32 (the keys and values were rounded)');
    assert.equal(attn.memory().inUseBytes, between, 'the cache is freed');
    model.dispose();
  });
}

test('a bad kvDtype is a TypeError naming generate and the option; nothing allocated; the model keeps working', async () => {
  const model = await attn.loadModel(`${root}tiny-llama`);
  const { prompt } = greedyOf('tiny-llama');
  const before = await model.generate(prompt, { maxNewTokens: 4, kvDtype: 'bfloat16' });
  const inUse = attn.memory().inUseBytes;
  for (const kvDtype of ['fp16', 'Float16', 'float64', 'Q8', 'q8_0', 'int8', 16, null, ['float16']]) {
    await assert.rejects(model.generate(prompt, { kvDtype }), (e) => {
      assert.ok(e instanceof TypeError, String(e));
      assert.match(
        e.message,
        /^PretrainedModel\.generate: options\.kvDtype must be 'float32', 'bfloat16', 'float16' or 'q8', got /,
      );
      return true;
    });
    await assert.rejects(model.generate({ messages: [{ role: 'user', content: 'hi' }], kvDtype }), TypeError);
  }
  assert.equal(attn.memory().inUseBytes, inUse, 'nothing allocated by the failed calls');
  const after = await model.generate(prompt, { maxNewTokens: 4, kvDtype: 'bfloat16' });
  assert.deepEqual(after.ids, before.ids);
  model.dispose();
});

test('a q8 cache in the relaxed build: 6-row and 4-row tiles give the same logits, bit for bit', () => {
  // The integer scores (and each row's value sums) do not depend on the tile's height, so a
  // prompt prefilled in 6-row tiles (browsers) and in 4-row ones (Node) gives the same bits.
  const script = fileURLToPath(new URL('./helpers/q8-tile-rows.js', import.meta.url));
  const runs = JSON.parse(
    execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', script], { encoding: 'utf8' }),
  );
  assert.deepEqual(
    runs.map((r) => r.tileRows),
    [6, 4],
  );
  assert.equal(runs[0].scores.length, 6);
  assert.deepEqual(runs[0].scores, runs[1].scores);
  assert.ok(runs[0].scores.flat().every(Number.isFinite));
});
