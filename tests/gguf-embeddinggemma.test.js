// EmbeddingGemma's GGUF form (issue 46): tests/fixtures/gguf/tiny-embeddinggemma-6-f32.gguf is
// tiny-embeddinggemma-6 written as llama.cpp's converter writes a Gemma3TextModel with
// --sentence-transformers-dense-modules (scripts/make-gguf-fixtures.py make_embeddinggemma:
// general.architecture gemma-embedding, norms stored as 1 + w, the config's own sliding_window,
// pooling_type 1, dense_2/dense_3 and their feature counts; no layer pattern, no causal flag:
// llama.cpp fixes a global layer every sixth and no causal rule). Read back, it is its
// safetensors twin: the same descriptor, tokens, hidden states (bit for bit), attention maps,
// and embeddings, and those match the float64 PyTorch reference of make-hf-fixtures.py.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { assertTwins } from './helpers/gguf_twin.js';

const attn = await init();
const folder = fileURLToPath(new URL('./fixtures/hf/tiny-embeddinggemma-6', import.meta.url));
const file = fileURLToPath(new URL('./fixtures/gguf/tiny-embeddinggemma-6-f32.gguf', import.meta.url));
const ref = JSON.parse(readFileSync(`${folder}/reference.json`, 'utf8'));

test("EmbeddingGemma's GGUF reads as its safetensors twin: descriptor, tokens, hidden states, attention maps", async () => {
  const gguf = await attn.loadModel(file);
  const twin = await attn.loadModel(folder);
  try {
    assert.equal(gguf.head, 'base');
    assert.equal(gguf.descriptor.causal, false);
    // Five sliding layers of |i - j| < 4 // 2 + 1, then a global one (llama.cpp's fixed pattern).
    assert.deepEqual(Array.from(gguf.descriptor.layerWindows), [3, 3, 3, 3, 3, 0]);
    for (const key of [
      'layerWindows',
      'localRotaryBase',
      'rotaryBase',
      'attentionScale',
      'numKvHeads',
      'headDim',
      'normEps',
    ])
      assert.deepEqual(gguf.descriptor[key], twin.descriptor[key], key);
    assert.deepEqual(gguf.unusedTensors, [], 'dense_2 and dense_3 are read (by embed)');
    for (const c of ref.cases) {
      for (const text of c.texts)
        assert.deepEqual(
          gguf.tokenize(text).map((t) => t.id),
          c.ids[c.texts.indexOf(text)].slice(0, c.lengths[c.texts.indexOf(text)]),
        );
      assertTwins(gguf, twin, c.texts, c);
    }
  } finally {
    gguf.dispose();
    twin.dispose();
  }
});

test("EmbeddingGemma's GGUF embeds as the folder's pipeline: mean pooling, both Dense modules, unit length", async () => {
  const gguf = await attn.loadModel(file);
  try {
    assert.deepEqual(gguf.sentenceEmbedding.pooling, ['mean']);
    assert.deepEqual(
      gguf.sentenceEmbedding.dense.map((l) => [l.inFeatures, l.outFeatures]),
      [
        [32, 64],
        [64, 32],
      ],
    );
    const { texts, batch, single } = ref.embeddings;
    const out = gguf.embed(texts);
    assert.deepEqual(out.shape, batch.shape);
    assertClose(out, batch, {
      rtol: 1e-4,
      atol: 1e-6,
      label: 'embeddings of the batch vs sentence-transformers (float64)',
    });
    texts.forEach((t, i) =>
      assertClose(gguf.embed(t), single[i], { rtol: 1e-4, atol: 1e-6, label: `embedding of text ${i} alone` }),
    );
  } finally {
    gguf.dispose();
  }
});
