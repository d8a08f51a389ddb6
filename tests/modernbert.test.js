// ModernBERT (issue 46) against a float64 PyTorch reference written from modeling_modernbert.py
// (scripts/make-hf-fixtures.py make_modernbert): global layers (every third, from layer 0) with
// global_rope_theta and every key, local layers with local_rope_theta and |i - j| <= 2, a GeGLU,
// LayerNorms without bias, no norm before layer 0's attention, the masked-LM head's transform
// without bias and the tied decoder with its bias. Logits, every hidden state and attention map
// of one text and a right-padded batch match at rtol 1e-4, atol 1e-5; as a base model, embed's
// mean pooling equals the mean of the reference's last hidden state over the real tokens.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { fixtureFiles } from './helpers/safetensors.js';

const attn = await init();
const folder = fileURLToPath(new URL('./fixtures/hf/tiny-modernbert', import.meta.url));
const ref = JSON.parse(readFileSync(`${folder}/reference.json`, 'utf8'));
const files = fixtureFiles(folder);
const config = JSON.parse(new TextDecoder().decode(files['config.json']));
const tol = { rtol: 1e-4, atol: 1e-5 };

test('ModernBERT as a masked LM: logits, hidden states and attention maps match the reference', async () => {
  const model = await attn.loadModel(folder);
  try {
    const d = model.descriptor;
    assert.equal(model.head, 'masked-lm');
    assert.deepEqual(Array.from(d.layerWindows), [0, 3, 3, 0]);
    assert.deepEqual([d.causal, d.normBiases, d.firstAttentionNorm, d.lmTransformBias], [false, false, false, false]);
    assert.deepEqual([d.rotaryBase, d.localRotaryBase], [160000, 10000]);
    for (const c of ref.cases) {
      const out = model.forward(c.texts.length === 1 ? c.texts[0] : c.texts, { hiddenStates: true, attentions: true });
      assert.deepEqual(
        out.ids,
        c.ids.map((row, b) => row.slice(0, c.lengths[b])),
        'token ids',
      );
      assertClose(out.logits, c.logits, { ...tol, label: `logits (${c.texts.length} texts)` });
      out.hiddenStates.forEach((h, l) => assertClose(h, c.hidden_states[l], { ...tol, label: `hidden state ${l}` }));
      out.attentions.forEach((a, l) => assertClose(a, c.attentions[l], { ...tol, label: `attention ${l}` }));
      const fused = model.forward(c.texts.length === 1 ? c.texts[0] : c.texts);
      assertClose(fused.logits, c.logits, { ...tol, label: 'logits, fused kernel' });
    }
  } finally {
    model.dispose();
  }
});

test('ModernBERT as a base model: embed mean-pools the reference last hidden state', async () => {
  const model = await attn.loadModel({ ...files, 'config.json': { ...config, architectures: ['ModernBertModel'] } });
  try {
    assert.equal(model.head, 'base');
    const c = ref.cases[1];
    const out = model.embed(c.texts, { pooling: 'mean' });
    const [B, T, d] = c.hidden_states.at(-1).shape;
    const expected = [];
    for (let b = 0; b < B; b++)
      for (let x = 0; x < d; x++) {
        let sum = 0;
        for (let t = 0; t < c.lengths[b]; t++) sum += c.hidden_states.at(-1).data[(b * T + t) * d + x];
        expected.push(sum / c.lengths[b]);
      }
    assertClose(out, { data: expected, shape: [B, d] }, { ...tol, label: 'mean pooled' });
  } finally {
    model.dispose();
  }
});

test('ModernBERT: the local windows and the local RoPE base each matter; a classifier is refused by name', async () => {
  const c = ref.cases[0];
  for (const [patch, what] of [
    [{ global_attn_every_n_layers: 1 }, 'every layer global'],
    [{ local_rope_theta: 160000 }, 'one RoPE base'],
  ]) {
    const model = await attn.loadModel({ ...files, 'config.json': { ...config, ...patch } });
    try {
      const logits = model.forward(c.texts[0]).logits.data;
      const diff = logits.reduce((m, v, i) => Math.max(m, Math.abs(v - c.logits.data[i])), 0);
      assert.ok(diff > 1e-2, `${what}: the logits still match (${diff})`);
    } finally {
      model.dispose();
    }
  }
  await assert.rejects(
    attn.loadModel({ ...files, 'config.json': { ...config, architectures: ['ModernBertForSequenceClassification'] } }),
    /^RangeError: loadModel: a modernbert sequence classifier is not supported/,
  );
});
