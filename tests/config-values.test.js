// Silent downgrades and misleading messages (issue 44, items 8-9): config values of the wrong
// type that changed what loaded without a word are refused by name; the tensors a model does
// not read are listed (model.unusedTensors) and a tensor of a layer past the config's count
// is refused; messages name the real source (a GGUF file's metadata, not config.json), print
// NaN and strings as they are, and an unsupported GGUF type as unsupported.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { fixtureFiles, readSafetensors, writeSafetensors } from './helpers/safetensors.js';
import { ggufBytes, ggufWithString } from './helpers/gguf.js';

const attn = await init({ simd: 'baseline' });
const hfDir = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const llama = fixtureFiles(`${hfDir}tiny-llama`);
const llamaConfig = JSON.parse(new TextDecoder().decode(llama['config.json']));
const withConfig = (changes) => attn.loadModel({ ...llama, 'config.json': { ...llamaConfig, ...changes } });

test('config values of the wrong type or range are refused by name', async () => {
  const cases = [
    [
      { architectures: 'LlamaForCausalLM' },
      /^loadModel: config\.json: architectures must be a list of class names \(\["LlamaForCausalLM"\]\), got 'LlamaForCausalLM'$/,
    ],
    [
      { architectures: ['__proto__'] },
      /^loadModel: config\.json: architectures\[0\] is '__proto__', not a class this loader knows/,
    ],
    [{ architectures: [] }, /architectures must be a list of class names/],
    [{ eos_token_id: -5 }, /^loadModel: config\.json: eos_token_id must be a token id in \[0, \d+\), got -5$/],
    [{ eos_token_id: [2, 1e9] }, /^loadModel: config\.json: eos_token_id\[1\] must be a token id/],
    [{ bos_token_id: '1' }, /^loadModel: config\.json: bos_token_id must be a token id in \[0, \d+\), got '1'$/],
    [
      { tie_word_embeddings: 'false' },
      /^loadModel: config\.json: tie_word_embeddings must be true or false, got 'false'$/,
    ],
    [
      { hidden_act: ['silu'] },
      /^loadModel: config\.json: hidden_act must be an activation's name \(a string\), got an array$/,
    ],
  ];
  for (const [changes, pattern] of cases) {
    await assert.rejects(
      withConfig(changes),
      (e) => e instanceof RangeError && pattern.test(e.message),
      JSON.stringify(changes),
    );
  }
  // What was right before still loads: a list of ids, a base class name, no architectures.
  for (const changes of [{ eos_token_id: [1, 2] }, { architectures: ['LlamaModel'] }, { architectures: undefined }]) {
    const model = await withConfig(changes);
    assert.ok(model.descriptor.numLayers > 0);
    model.dispose();
  }
});

test('unusedTensors lists what the model does not read; a tensor of a layer past the count is refused', async () => {
  const causal = await attn.loadModel(llama);
  assert.deepEqual(causal.unusedTensors, []);
  causal.dispose();
  const base = await withConfig({ architectures: ['LlamaModel'] });
  const tensors = readSafetensors(llama['model.safetensors']);
  const heads = Object.keys(tensors).filter((n) => n.startsWith('lm_head'));
  assert.deepEqual(base.unusedTensors, heads, 'the lm_head under a base head');
  base.dispose();
  // A layer the config does not have, in a Hugging Face folder and in a GGUF file.
  const layers = llamaConfig.num_hidden_layers;
  const extra = {};
  for (const [n, t] of Object.entries(tensors)) extra[n] = t;
  const q = tensors['model.layers.0.self_attn.q_proj.weight'];
  extra[`model.layers.${layers + 3}.self_attn.q_proj.weight`] = q;
  await assert.rejects(
    attn.loadModel({ ...llama, 'model.safetensors': writeSafetensors(extra) }),
    (e) =>
      e instanceof RangeError &&
      e.message ===
        `loadModel: the checkpoint holds tensor 'model.layers.${layers + 3}.self_attn.q_proj.weight' of layer ${layers + 3}, but config.json says the model has ${layers} layers; the file and its config disagree`,
  );
  const gguf = new Uint8Array(readFileSync(`${ggufDir}tiny-llama-f32.gguf`));
  const fewer = ggufWithString(gguf, 'llama.block_count', 1);
  await assert.rejects(
    attn.loadModel(fewer),
    /the checkpoint holds tensor 'blk\.1\.[a-z_.]+' of layer 1, but the GGUF file's metadata says the model has 1 layers/,
  );
  const next = await attn.loadModel(gguf);
  assert.deepEqual(next.unusedTensors, []);
  next.dispose();
});

test("messages name the real source: a GGUF file's metadata, an unsupported type, the header's cap", async () => {
  const gguf = new Uint8Array(readFileSync(`${ggufDir}tiny-llama-f32.gguf`));
  // An odd rotary dimension: named, and blamed on the file's metadata.
  await assert.rejects(
    attn.loadModel(ggufWithString(gguf, 'llama.rope.dimension_count', 3)),
    (e) =>
      e instanceof RangeError &&
      /^loadModel: the GGUF file's metadata describes a model the runner cannot hold: the rotary dimension \(.*rope\.dimension_count\) is 3; it must be even/.test(
        e.message,
      ),
  );
  // A string token id prints as a string; NaN and infinity as themselves (not "null").
  await assert.rejects(
    attn.loadModel(ggufWithString(gguf, 'tokenizer.ggml.bos_token_id', '1')),
    /^RangeError: loadModel: the config read from the GGUF bytes given's metadata: bos_token_id must be a token id in \[0, \d+\), got '1'$/,
  );
  await assert.rejects(
    attn.loadModel(ggufWithString(gguf, 'llama.attention.layer_norm_rms_epsilon', { float32: NaN })),
    /rms_norm_eps must be a positive number float32 holds \(in \[1\.2e-38, 3\.4e38\]\), got NaN$/,
  );
  await assert.rejects(
    attn.loadModel(ggufWithString(gguf, 'llama.rope.freq_base', { float32: Infinity })),
    /rope_theta.*Infinity/,
  );
  // Q5_K rows of 32: the type is not read, whatever its block size.
  await assert.rejects(
    attn.loadModel(
      ggufBytes({
        metadata: [{ key: 'general.architecture', type: 8, value: 'llama' }],
        tensors: [{ name: 'blk.0.attn_q.weight', type: 13, dims: [32, 2], bytes: new Uint8Array(352) }],
      }),
    ),
    /tensor 'blk\.0\.attn_q\.weight' is Q5_K, which this reader does not read/,
  );
  // 13 M vocabulary tokens in a header: the header's cap, not "bytes left of the file".
  const huge = ggufBytes({
    metadata: [
      { key: 'general.architecture', type: 8, value: 'llama' },
      { key: 'tokenizer.ggml.tokens', type: 9, value: { type: 8, items: [], length: 13_000_000 } },
    ],
  });
  const padded = new Uint8Array(150_000_000);
  padded.set(huge);
  await assert.rejects(
    attn.loadModel(padded),
    /'tokenizer\.ggml\.tokens' claims 13000000 elements \(104000000 bytes at least\) but only \d+ bytes are left of the header's 100000000-byte cap/,
  );
});
