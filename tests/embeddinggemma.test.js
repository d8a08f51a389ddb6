// EmbeddingGemma (issue 46): Gemma 3 with use_bidirectional_attention, a Gemma3TextModel in a
// sentence-transformers folder, against a float64 PyTorch reference written from
// modeling_gemma3.py (scripts/make-hf-fixtures.py make_embeddinggemma): no causal rule, global
// layers seeing every real key, sliding layers the keys j with |i - j| < sliding_window // 2 + 1.
// Every hidden state and attention map of one text and of a right-padded batch match at rtol
// 1e-4, atol 1e-5; the same checkpoint run causally (as a loader that ignored the flag would)
// misses.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init();
const name = 'tiny-embeddinggemma';
const folder = fileURLToPath(new URL(`./fixtures/hf/${name}`, import.meta.url));
const ref = JSON.parse(readFileSync(`${folder}/reference.json`, 'utf8'));
const tol = { rtol: 1e-4, atol: 1e-5 };

// The rows of real tokens only (axis 1 of [B, T, d], axis 2 of [B, H, T, T]): a padded query's
// window may hold only padded keys, where PyTorch spreads its weight and the kernels give 0.
function realRows(t, lengths, axis) {
  const { shape } = t;
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = shape.slice(1, axis).reduce((a, b) => a * b, 1);
  const T = shape[axis];
  const data = [];
  for (let b = 0; b < shape[0]; b++)
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < lengths[b]; i++) {
        const start = ((b * outer + o) * T + i) * inner;
        for (let x = 0; x < inner; x++) data.push(t.data[start + x]);
      }
  return { data: Float64Array.from(data), shape: [data.length] };
}

test('EmbeddingGemma: bidirectional layers, every hidden state and attention map match the reference', async () => {
  const model = await attn.loadModel(folder);
  try {
    assert.equal(model.head, 'base');
    assert.equal(model.descriptor.causal, false);
    // sliding_window 4 in config.json: |i - j| < 3 on the sliding layers (0 and 1), layer 2 global.
    assert.equal(ref.window, 3);
    assert.deepEqual(Array.from(model.descriptor.layerWindows), [3, 3, 0]);
    for (const c of ref.cases) {
      const out = model.forward(c.texts.length === 1 ? c.texts[0] : c.texts, { hiddenStates: true, attentions: true });
      assert.deepEqual(out.lengths, c.lengths);
      assert.equal(out.hiddenStates.length, c.hidden_states.length);
      out.hiddenStates.forEach((h, l) =>
        assertClose(realRows(h, c.lengths, 1), realRows(c.hidden_states[l], c.lengths, 1), {
          ...tol,
          label: `hidden state ${l} (${c.texts.length} texts)`,
        }),
      );
      out.attentions.forEach((a, l) =>
        assertClose(realRows(a, c.lengths, 2), realRows(c.attentions[l], c.lengths, 2), {
          ...tol,
          label: `attention ${l} (${c.texts.length} texts)`,
        }),
      );
      // Keys after the query get weight (no causal rule), within the window on sliding layers.
      const [, H, T] = out.attentions[0].shape;
      const at = (a, h, i, j) => a.data[(h * T + i) * T + j];
      assert.ok(at(out.attentions[2], 0, 0, c.lengths[0] - 1) > 0, 'global layer: the first query sees the last key');
      assert.equal(at(out.attentions[0], 0, 0, 3), 0, 'sliding layer: key 3 is outside the first query’s window');
      assert.ok(at(out.attentions[0], H - 1, 0, 2) > 0, 'sliding layer: key 2 is inside it');
      // The fused kernel (no maps asked for) gives the same last hidden state.
      const fused = model.forward(c.texts.length === 1 ? c.texts[0] : c.texts);
      assertClose(realRows(fused.lastHiddenState, c.lengths, 1), realRows(c.hidden_states.at(-1), c.lengths, 1), {
        ...tol,
        label: 'last hidden state, fused kernel',
      });
    }
  } finally {
    model.dispose();
  }
});

test('EmbeddingGemma run causally (the flag ignored) misses the reference', async () => {
  const files = fixtureFiles(folder);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  const model = await attn.loadModel({ ...files, 'config.json': { ...config, use_bidirectional_attention: false } });
  try {
    const c = ref.cases[0];
    const last = model.forward(c.texts[0]).lastHiddenState;
    const expected = c.hidden_states.at(-1).data;
    const worst = last.data.reduce((m, x, i) => Math.max(m, Math.abs(x - expected[i])), 0);
    assert.ok(worst > 1e-2, `causal attention misses by ${worst}`);
  } finally {
    model.dispose();
  }
});

test('EmbeddingGemma through embed: mean pooling, two Dense projections and Normalize match sentence-transformers', async () => {
  const model = await attn.loadModel(folder);
  try {
    const { texts, single, batch } = ref.embeddings;
    const out = model.embed(texts);
    assert.deepEqual(out.shape, batch.shape);
    assertClose(out, batch, { ...tol, label: 'the three texts as one batch' });
    texts.forEach((text, i) => assertClose(model.embed(text), single[i], { ...tol, label: `text ${i} alone` }));
    // Pooling other than the folder's gives the Dense modules a width they do not take.
    assert.throws(
      () => model.embed(texts, { pooling: ['cls', 'mean'] }),
      /^RangeError: PretrainedModel.embed: options.pooling gives 64 features per text, but this folder's first Dense module takes 32/,
    );
  } finally {
    model.dispose();
  }
});

test('a Dense module embed cannot run is named, and its in_features must fit', async () => {
  const files = fixtureFiles(folder);
  const read = (f) => new Uint8Array(readFileSync(`${folder}/${f}`));
  const all = {
    ...files,
    ...Object.fromEntries(
      [
        'modules.json',
        '1_Pooling/config.json',
        'sentence_bert_config.json',
        '2_Dense/config.json',
        '2_Dense/model.safetensors',
        '3_Dense/config.json',
        '3_Dense/model.safetensors',
      ].map((f) => [f, read(f)]),
    ),
  };
  const dense2 = JSON.parse(readFileSync(`${folder}/2_Dense/config.json`, 'utf8'));
  const relu = await attn.loadModel({
    ...all,
    '2_Dense/config.json': { ...dense2, activation_function: 'torch.nn.modules.activation.ReLU' },
  });
  try {
    assert.throws(
      () => relu.embed('The cat sat on the mat.'),
      /a Dense module \(2_Dense\) with activation_function "torch.nn.modules.activation.ReLU", which embed does not run/,
    );
  } finally {
    relu.dispose();
  }
  await assert.rejects(
    attn.loadModel({ ...all, '2_Dense/config.json': { ...dense2, in_features: 31 } }),
    /^RangeError: loadModel: 2_Dense\/config.json has in_features 31 but the module before it gives 32 features/,
  );
});
