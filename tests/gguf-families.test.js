// Families of issue 46 as llama.cpp's converter writes them (scripts/make-gguf-fixtures.py, from
// the tests/fixtures/hf folders): Granite (general.architecture 'granite', the four multipliers
// as granite.embedding_scale, attention.scale, residual_scale and logit_scale, q/k rows permuted
// as LlamaModel does) and OLMo 2 ('olmo2', a TextModel: rows as Hugging Face has them; the
// full-width attn_q_norm/attn_k_norm, post_attention_norm and post_ffw_norm). Each float32 file
// reads back the folder's descriptor and gives the logits and greedy tokens of the float64
// PyTorch reference. SmolLM3 ('smollm3', q/k permuted, tokenizer.ggml.pre 'smollm') has no
// NoPE metadata: llama.cpp takes every fourth layer, and so does the loader.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init();
const hfDir = fileURLToPath(new URL('./fixtures/hf/tiny-granite', import.meta.url));
const file = fileURLToPath(new URL('./fixtures/gguf/tiny-granite-f32.gguf', import.meta.url));
const ref = JSON.parse(readFileSync(`${hfDir}/reference.json`, 'utf8'));
const olmoDir = fileURLToPath(new URL('./fixtures/hf/tiny-olmo2', import.meta.url));
const olmoFile = fileURLToPath(new URL('./fixtures/gguf/tiny-olmo2-f32.gguf', import.meta.url));

test('tiny-granite-f32.gguf: the multipliers from the metadata, the logits and greedy tokens of the reference', async () => {
  const gguf = await attn.loadModel(file);
  const folder = await attn.loadModel(hfDir);
  try {
    const pick = (d) => [d.embeddingMultiplier, d.attentionScale, d.residualMultiplier, d.logitsScaling];
    // GGUF keeps them as float32, read back as the shortest decimals: the folder's values.
    assert.deepEqual(pick(gguf.descriptor), pick(folder.descriptor));
    assert.deepEqual(pick(gguf.descriptor), [2, 0.3, 0.22, 8]);
    const c = ref.cases[1];
    const out = gguf.forward(c.texts);
    assertClose(out.logits, c.logits, { rtol: 1e-4, atol: 1e-5, label: 'GGUF logits vs PyTorch' });
    const options = { maxNewTokens: 12, stopAtEos: false };
    assert.deepEqual((await gguf.generate(ref.greedy.prompt, options)).ids, ref.greedy.ids);
  } finally {
    gguf.dispose();
    folder.dispose();
  }
});

test("tiny-olmo2-f32.gguf: the folder's descriptor, the logits and greedy tokens of the reference", async () => {
  const olmo = JSON.parse(readFileSync(`${olmoDir}/reference.json`, 'utf8'));
  const gguf = await attn.loadModel(olmoFile);
  const folder = await attn.loadModel(olmoDir);
  try {
    for (const key of ['postNorms', 'inputNorms', 'qkNorm', 'qkNormFullWidth', 'numKvHeads', 'headDim'])
      assert.equal(gguf.descriptor[key], folder.descriptor[key], key);
    const c = olmo.cases[1];
    assertClose(gguf.forward(c.texts).logits, c.logits, { rtol: 1e-4, atol: 1e-5, label: 'GGUF logits vs PyTorch' });
    const options = { maxNewTokens: 12, stopAtEos: false };
    assert.deepEqual((await gguf.generate(olmo.greedy.prompt, options)).ids, olmo.greedy.ids);
  } finally {
    gguf.dispose();
    folder.dispose();
  }
});

test('tiny-smollm3-f32.gguf: every fourth layer NoPE, as llama.cpp reads a smollm3 file', async () => {
  const smolDir = fileURLToPath(new URL('./fixtures/hf/tiny-smollm3', import.meta.url));
  const smolFile = fileURLToPath(new URL('./fixtures/gguf/tiny-smollm3-f32.gguf', import.meta.url));
  const gguf = await attn.loadModel(smolFile);
  // The folder (no_rope_layers [1, 0, 1, 0]) with llama.cpp's fixed step of 4 instead.
  const files = fixtureFiles(smolDir);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  const folder = await attn.loadModel({ ...files, 'config.json': { ...config, no_rope_layers: [1, 1, 1, 0] } });
  try {
    assert.deepEqual(gguf.descriptor.layerNoRope, [false, false, false, true]);
    const text = 'In 2026 there were 12345 tokens.';
    assert.deepEqual(gguf.tokenizer.encode(text).ids, folder.tokenizer.encode(text).ids);
    assertClose(gguf.forward(text).logits, folder.forward(text).logits, {
      rtol: 1e-6,
      atol: 1e-6,
      label: 'GGUF vs folder logits',
    });
  } finally {
    gguf.dispose();
    folder.dispose();
  }
});
