// ModernBERT's GGUF form (issue 46): tests/fixtures/gguf/tiny-modernbert-f32.gguf is
// tiny-modernbert's base model written as llama.cpp's converter writes a ModernBertModel
// (scripts/make-gguf-fixtures.py make_modernbert: general.architecture modern-bert, Wqkv as
// attn_qkv, Wi as ffn_up, no attn_norm on layer 0, the global and local RoPE bases as
// rope.freq_base and rope.freq_base_swa, local_attention and global_attn_every_n_layers as
// attention.sliding_window and its pattern). It has no tokenizer (the fixture's WordPiece
// vocabulary is not one the converter's GPT-2 BPE writer takes), so it is run on token ids:
// every hidden state and attention map equals its safetensors twin's bit for bit, and the last
// hidden state matches the float64 PyTorch reference.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertTwins } from './helpers/gguf_twin.js';

const attn = await init();
const folder = fileURLToPath(new URL('./fixtures/hf/tiny-modernbert', import.meta.url));
const file = fileURLToPath(new URL('./fixtures/gguf/tiny-modernbert-f32.gguf', import.meta.url));
const ref = JSON.parse(readFileSync(`${folder}/reference.json`, 'utf8'));

test("ModernBERT's GGUF reads as its safetensors twin's base model: layers, bases, hidden states, attention maps", async () => {
  const gguf = await attn.loadModel(file);
  const twin = await attn.loadModel(folder);
  try {
    assert.equal(gguf.head, 'base', 'ModernBertModel: the base model');
    assert.equal(gguf.tokenizer, null);
    assert.deepEqual(gguf.unusedTensors, []);
    // Global layers 0 and 3 (every third from 0), sliding ones |i - j| <= 4 / 2 between.
    assert.deepEqual(Array.from(gguf.descriptor.layerWindows), [0, 3, 3, 0]);
    for (const key of [
      'layerWindows',
      'rotaryBase',
      'localRotaryBase',
      'normBiases',
      'firstAttentionNorm',
      'causal',
      'gatedFfn',
      'activation',
      'normEps',
    ])
      assert.deepEqual(gguf.descriptor[key], twin.descriptor[key], key);
    for (const c of ref.cases) {
      const input = {
        inputIds: c.ids,
        attentionMask: c.ids.map((row, b) => row.map((_, i) => (i < c.lengths[b] ? 1 : 0))),
      };
      assertTwins(gguf, twin, input, c);
    }
  } finally {
    gguf.dispose();
    twin.dispose();
  }
});
