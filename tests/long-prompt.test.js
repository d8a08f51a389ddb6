// Long prompts (issue 47 item 1): generate runs a prompt through the key/value cache in chunks
// of the runner's prefillChunk positions, each chunk's keys and values appended before the
// next attends over them, with the LM head on the last position only; attention maps are made
// only when forward asks for them. Checked on a small random Llama with many positions: the
// tokens and logits equal the uncached forward's at every chunk boundary (and a q8 cache
// reads the same keys whether they were prefilled in chunks or decoded); a prompt of
// thousands of tokens is accepted (the T² maps refused it before) and takes one chunk's
// activations; a refusal names what does not fit, its size and the heap's real size.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import createModule from '../dist/attention.js';
import { contractOf } from '../bindings/js/contract.js';
import { assertClose, rng } from './helpers/assert.js';
import { writeSafetensors } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const module = await createModule({ wasmBinary: readFileSync(new URL('../dist/attention.wasm', import.meta.url)) });
const CHUNK = contractOf(module).prefillChunk;

// A Llama of 4 layers, d_model 64, 8 query heads of 8 over 2 kv heads, 16,384 positions, its
// weights uniform in ±scale (seeded), as config.json and model.safetensors bytes.
const SHAPE = { vocab: 96, d: 64, ff: 128, layers: 4, heads: 8, kvHeads: 2, headDim: 8, positions: 16384 };
function randomLlama(shape = SHAPE, seed = 47) {
  const { vocab, d, ff, layers, heads, kvHeads, headDim, positions } = shape;
  const random = rng(seed);
  const uniform = (shape, scale) => ({
    shape,
    data: Float32Array.from({ length: shape.reduce((a, b) => a * b) }, () => random(-scale, scale)),
  });
  const ones = (n) => ({ shape: [n], data: new Float32Array(n).fill(1) });
  const tensors = { 'model.embed_tokens.weight': uniform([vocab, d], 1) };
  for (let l = 0; l < layers; l++) {
    const p = `model.layers.${l}.`;
    Object.assign(tensors, {
      [`${p}input_layernorm.weight`]: ones(d),
      [`${p}self_attn.q_proj.weight`]: uniform([heads * headDim, d], 0.4),
      [`${p}self_attn.k_proj.weight`]: uniform([kvHeads * headDim, d], 0.4),
      [`${p}self_attn.v_proj.weight`]: uniform([kvHeads * headDim, d], 0.4),
      [`${p}self_attn.o_proj.weight`]: uniform([d, heads * headDim], 0.2),
      [`${p}post_attention_layernorm.weight`]: ones(d),
      [`${p}mlp.gate_proj.weight`]: uniform([ff, d], 0.2),
      [`${p}mlp.up_proj.weight`]: uniform([ff, d], 0.2),
      [`${p}mlp.down_proj.weight`]: uniform([d, ff], 0.2),
    });
  }
  Object.assign(tensors, { 'model.norm.weight': ones(d), 'lm_head.weight': uniform([vocab, d], 0.5) });
  const config = {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: vocab,
    hidden_size: d,
    intermediate_size: ff,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: headDim,
    hidden_act: 'silu',
    max_position_embeddings: positions,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    tie_word_embeddings: false,
    bos_token_id: 1,
    eos_token_id: 2,
  };
  return {
    'config.json': new TextEncoder().encode(JSON.stringify(config)),
    'model.safetensors': writeSafetensors(tensors),
  };
}

const model = await attn.loadModel(randomLlama());
// `length` token ids in [3, vocab) (no end of sequence), seeded.
const promptOf = (length, seed, vocab = SHAPE.vocab) => {
  const random = rng(seed);
  return Array.from({ length }, () => 3 + Math.floor(random(0, 1) * (vocab - 3)));
};

test('the runner exports its prefill chunk', () => {
  assert.ok(Number.isInteger(CHUNK) && CHUNK >= 64, `prefillChunk ${CHUNK}`);
});

test('a prompt of thousands of tokens is accepted and takes one chunk of activations', async () => {
  const T = 4500; // [4 layers, 8 heads, T, T] maps would take 2.4 GiB (refused before)
  const before = attn.memory();
  const out = await model.generate(promptOf(T, 1), { maxNewTokens: 2, stopAtEos: false });
  assert.equal(out.newIds.length, 2);
  assert.ok(out.newIds.every((id) => id >= 0 && id < SHAPE.vocab));
  const { layers, kvHeads, headDim } = SHAPE;
  assert.equal(out.cacheBytes, 2 * layers * (T + 2) * kvHeads * headDim * 4, 'the float32 cache of T + 2 tokens');
  // The peak above what was in use: the cache, and activations of CHUNK rows (about 3 KiB a
  // row here: the state, the projections, the feed-forward's two hidden rows), far below T
  // rows' 12 MiB.
  const peak = attn.memory().peakBytes - before.inUseBytes;
  assert.ok(peak > out.cacheBytes, `peak ${peak} holds the cache ${out.cacheBytes}`);
  assert.ok(peak < out.cacheBytes + 3 * 1024 * CHUNK + 2 ** 20, `peak ${peak} above the cache ${out.cacheBytes}`);
  assert.equal(attn.memory().inUseBytes, before.inUseBytes, 'everything freed');
});

for (const length of [CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 1]) {
  test(`a prompt of ${length} tokens (chunk ${CHUNK}): the cached tokens and logits equal the uncached forward's`, async () => {
    const prompt = promptOf(length, length);
    const options = { maxNewTokens: 3, stopAtEos: false, returnScores: true };
    const cached = await model.generate(prompt, options);
    const full = await model.generate(prompt, { ...options, useCache: false });
    assert.deepEqual(cached.newIds, full.newIds, 'the same greedy tokens');
    cached.scores.forEach((s, i) => assertClose(s, full.scores[i], { rtol: 1e-4, atol: 1e-5, label: `step ${i}` }));
    // The first step's logits are the last row of a plain forward over the prompt.
    const V = SHAPE.vocab;
    const forward = model.forward([prompt]).logits.data;
    assertClose(cached.scores[0], forward.subarray(forward.length - V), { label: 'prefill vs forward' });
  });
}

test('a q8 cache: a prompt prefilled in chunks and the same tokens decoded one by one read the same keys', async () => {
  // Run A prefills CHUNK + 2 tokens (two chunks), then decodes 3; run B prefills A's tokens up
  // to its last step's input in one go (its chunks end elsewhere). Each key and value is
  // rounded to its q8_0 blocks once, when appended, whichever way it came: B's first logits
  // are A's last step's.
  const options = { stopAtEos: false, returnScores: true, kvDtype: 'q8' };
  const a = await model.generate(promptOf(CHUNK + 2, 5), { ...options, maxNewTokens: 3 });
  const b = await model.generate(a.ids.slice(0, -1), { ...options, maxNewTokens: 1 });
  assert.equal(b.newIds[0], a.newIds.at(-1));
  assertClose(b.scores[0], a.scores.at(-1), { rtol: 1e-5, atol: 1e-6, label: 'prefilled vs decoded' });
  // And the rounding is there: float32's logits differ.
  const f32 = await model.generate(a.ids.slice(0, -1), { ...options, kvDtype: 'float32', maxNewTokens: 1 });
  assert.ok(
    f32.scores[0].some((x, j) => x !== b.scores[0][j]),
    'q8 rounds the keys and values',
  );
});

test('forward makes attention maps only on request; a refusal names them, their size and the heap', () => {
  const T = 4500;
  const ids = [promptOf(T, 2)];
  const plain = model.forward(ids);
  assert.deepEqual(plain.logits.shape, [1, T, SHAPE.vocab]);
  assert.equal(plain.attentions, undefined);
  assert.throws(
    () => model.forward(ids, { attentions: true }),
    (e) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(
        e.message,
        /^PretrainedModel\.forward: the attention maps \[4, 1, 8, 4500, 4500\] need 2\.4 GiB; one tensor must stay under 2 GiB \(the heap holds 4\.0 GiB in all\)$/,
      );
      return true;
    },
  );
  const estimate = attn.estimateMemory('PretrainedModel.forward', model, ids, { attentions: true });
  assert.equal(estimate.fits, false);
  const maps = estimate.blocks.find((b) => b.name === 'attention maps');
  assert.equal(maps.bytes, 4 * 4 * 8 * T * T);
});

test('a cache past one buffer is refused naming its bytes and the heap, before anything is allocated', async () => {
  // 1 layer of 8,192 kv heads of 8: a float32 cache of 10,001 tokens takes 2.4 GiB per buffer.
  const wide = await attn.loadModel(
    randomLlama({ ...SHAPE, vocab: 16, d: 8, ff: 8, layers: 1, heads: 8192, kvHeads: 8192, headDim: 8 }),
  );
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(wide.generate(promptOf(10000, 4, 16), { maxNewTokens: 1 }), (e) => {
    assert.ok(e instanceof RangeError, String(e));
    assert.match(
      e.message,
      /^PretrainedModel\.generate: the float32 key\/value cache of 10001 tokens needs 4\.9 GiB \(keys and values, 2\.4 GiB each\); one buffer must stay under 2 GiB \(the wasm heap holds 4\.0 GiB in all\)$/,
    );
    return true;
  });
  assert.equal(attn.memory().inUseBytes, inUse, 'nothing left allocated');
  wide.dispose();
});
