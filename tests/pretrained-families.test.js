// The families of issue 33 (Qwen2/2.5, Qwen3, Gemma 2, Gemma 3 text, Phi-3/Phi-4-mini) are
// data over one runner: each test here shows that the config key the family adds is what
// makes its float64 PyTorch reference match (scripts/make-hf-fixtures.py), so a loader that
// ignored it would fail, and that the descriptor says what the runner does (head_dim, the
// window of each layer, the norm kind). pretrained-parity.test.js checks every logit, hidden
// state and attention map of these fixtures; pretrained-generate.test.js their greedy tokens.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { fixtureFiles, readSafetensors, writeSafetensors } from './helpers/safetensors.js';

const attn = await init();
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(`${root}${name}/reference.json`, 'utf8'));
const tol = { rtol: 1e-4, atol: 1e-5 };

// The fixture's files, its config.json as an object, and a forward of `input` under a config
// changed by `patch` (the model disposed afterwards).
function fixture(name) {
  const files = fixtureFiles(`${root}${name}`);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  const logits = async (patch, input) => {
    const model = await attn.loadModel({ ...files, 'config.json': { ...config, ...patch } });
    try {
      return model.forward(input).logits;
    } finally {
      model.dispose();
    }
  };
  return { files, config, logits };
}

const maxDiff = (a, b) => a.data.reduce((m, v, i) => Math.max(m, Math.abs(v - b.data[i])), 0);

// A config change that must move the logits away from the reference (> 1e-2 at some entry).
async function assertMatters(name, patch, what) {
  const { logits } = fixture(name);
  const c = reference(name).cases[0];
  const changed = await logits(patch, c.texts[0]);
  const diff = maxDiff(changed, c.logits);
  assert.ok(diff > 1e-2, `${name}: without ${what} the logits would still match (max |diff| ${diff})`);
}

test('tiny-qwen2: q/k/v biases without an o_proj bias; use_sliding_window false means no window though sliding_window is set', async () => {
  const { files, config, logits } = fixture('tiny-qwen2');
  assert.equal(config.use_sliding_window, false);
  assert.equal(config.sliding_window, 3);
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.deepEqual([d.qkvBias, d.outBias], [true, false]);
    assert.deepEqual(d.layerWindows, [0, 0]);
  } finally {
    model.dispose();
  }
  // Honouring the window (layer 1 and on, max_window_layers 1) leaves the reference.
  const c = reference('tiny-qwen2').cases[0];
  assertClose(await logits({}, c.texts[0]), c.logits, { ...tol, label: 'qwen2 as configured' });
  await assertMatters('tiny-qwen2', { use_sliding_window: true }, 'ignoring the window');
  // A checkpoint without a q/k/v bias the family has is refused by name; an o_proj bias it
  // does not have is never read.
  const tensors = readSafetensors(files['model.safetensors']);
  delete tensors['model.layers.1.self_attn.k_proj.bias'];
  await assert.rejects(attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(tensors) }), {
    name: 'RangeError',
    message: /has no tensor 'model\.layers\.1\.self_attn\.k_proj\.bias' \(the keyBias of layer 1\)/,
  });
});

test('tiny-qwen3: head_dim 16 with hidden 32 and 4 heads; per-head q/k RMS norms before RoPE; queries and keys come out per head', async () => {
  const { files } = fixture('tiny-qwen3');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.deepEqual([d.dModel, d.numHeads, d.numKvHeads, d.headDim, d.qkNorm], [32, 4, 2, 16, true]);
    const c = reference('tiny-qwen3').cases[0];
    const out = model.forward(c.texts[0], { attentions: true, queriesAndKeys: 1 });
    const T = c.lengths[0];
    assert.deepEqual(out.queries.shape, [1, 4, T, 16]);
    assert.deepEqual(out.keys.shape, [1, 2, T, 16]);
    // softmax(q·kᵀ/√16) over causal keys rebuilds layer 1's map (query head h on kv head h/2).
    const a = out.attentions[1];
    for (let h = 0; h < 4; h++) {
      for (let i = 0; i < T; i++) {
        const q = out.queries.data.subarray((h * T + i) * 16, (h * T + i + 1) * 16);
        const s = [];
        for (let j = 0; j <= i; j++) {
          const k = out.keys.data.subarray((Math.floor(h / 2) * T + j) * 16, (Math.floor(h / 2) * T + j + 1) * 16);
          s.push(q.reduce((acc, v, x) => acc + v * k[x], 0) / 4);
        }
        const m = Math.max(...s),
          z = s.reduce((acc, v) => acc + Math.exp(v - m), 0);
        for (let j = 0; j <= i; j++)
          assert.ok(
            Math.abs(Math.exp(s[j] - m) / z - a.data[(h * T + i) * T + j]) < 1e-5,
            `head ${h} query ${i} key ${j}`,
          );
      }
    }
  } finally {
    model.dispose();
  }
  // head_dim as hidden/heads (8) no longer fits the checkpoint's q_proj [64, 32]: refused by shape.
  await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...fixture('tiny-qwen3').config, head_dim: 8 } }), {
    name: 'RangeError',
    message: /q_proj\.weight' has shape \[64, 32\] but the query of layer 0 needs \[32, 32\]/,
  });
});

test('tiny-gemma2: the attention and final softcaps, the scale, the (1 + w) norms and the alternating windows each make it match', async () => {
  const { files, config } = fixture('tiny-gemma2');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.equal(d.norm, 'rms+1');
    assert.deepEqual(d.layerWindows, [3, 0, 3]);
    assert.equal(d.headDim, 16);
    assert.equal(d.attentionScale, 24 ** -0.5);
    assert.equal(d.embeddingMultiplier, Math.fround(Math.sqrt(32)));
  } finally {
    model.dispose();
  }
  assert.equal(config.attn_logit_softcapping, 1);
  await assertMatters('tiny-gemma2', { attn_logit_softcapping: null }, 'the attention softcap');
  await assertMatters('tiny-gemma2', { final_logit_softcapping: null }, 'the final softcap');
  await assertMatters('tiny-gemma2', { query_pre_attn_scalar: 16 }, 'query_pre_attn_scalar');
  await assertMatters(
    'tiny-gemma2',
    { layer_types: ['full_attention', 'full_attention', 'full_attention'] },
    'the sliding layers',
  );
  await assertMatters(
    'tiny-gemma2',
    { layer_types: ['sliding_attention', 'sliding_attention', 'sliding_attention'] },
    'the full layer',
  );
  for (const bad of [['sliding_attention'], ['local', 'global', 'local'], 'sliding_attention']) {
    await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...config, layer_types: bad } }), {
      name: 'RangeError',
      message: /layer_types must list 'sliding_attention' or 'full_attention' for each of the 3 layers/,
    });
  }
});

test('tiny-gemma3: local layers turn by rope_local_base_freq unscaled, the global one by rope_theta with linear scaling', async () => {
  const { files } = fixture('tiny-gemma3');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.deepEqual([d.qkNorm, d.norm, d.localRotaryBase, d.rotaryBase], [true, 'rms+1', 10000, 1000000]);
    assert.deepEqual(d.layerWindows, [3, 3, 0]);
  } finally {
    model.dispose();
  }
  await assertMatters('tiny-gemma3', { rope_local_base_freq: 1000000 }, 'the local base');
  await assertMatters('tiny-gemma3', { rope_scaling: null }, "the global layers' linear scaling");
});

test('tiny-phi3: fused qkv_proj and gate_up_proj, partial rotary, longrope short factors below the original context and long ones past it', async () => {
  const { files, config } = fixture('tiny-phi3');
  const ref = reference('tiny-phi3');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.equal(d.rotaryDim, 4);
    assert.equal(d.ropeScaling.type, 'longrope');
    assert.equal(d.ropeScaling.attentionFactor, Math.sqrt(1 + Math.log(64 / 16) / Math.log(16)));
    // 23 ids: positions past original_max_position_embeddings 16 pick the long factors.
    const long = model.forward([ref.long.ids]).logits;
    assertClose(long, ref.long.logits, { ...tol, label: 'phi3 long logits' });
  } finally {
    model.dispose();
  }
  await assertMatters(
    'tiny-phi3',
    { rope_scaling: { ...config.rope_scaling, short_factor: [1, 1] } },
    'the short factors',
  );
  await assertMatters(
    'tiny-phi3',
    { rope_scaling: { ...config.rope_scaling, attention_factor: 1 } },
    'the attention factor',
  );
  for (const [patch, message] of [
    [{ rope_scaling: { ...config.rope_scaling, long_factor: [1] } }, /long_factor must be a list of 2 numbers/],
    [{ rope_scaling: { ...config.rope_scaling, short_factor: [1, -2] } }, /1 must be a positive number/],
    [{ partial_rotary_factor: 0 }, /partial_rotary_factor must be in \(0, 1\]/],
    // Full rotary (8 columns) wants 4 factors per list: the checkpoint's 2 are refused.
    [{ partial_rotary_factor: 1 }, /short_factor must be a list of 4 numbers \(one per rotated pair\), got 2/],
    [{ rope_scaling: { type: 'yarn', factor: 2 } }, /type "yarn" is not supported/],
  ]) {
    await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...config, ...patch } }), {
      name: 'RangeError',
      message,
    });
  }
});

test('gemma3 (Gemma3ForConditionalGeneration, 4B and up): the text model from text_config and language_model.model.* weights, either prefix', async () => {
  const { files, config } = fixture('tiny-gemma3');
  const c = reference('tiny-gemma3').cases[0];
  const tensors = readSafetensors(files['model.safetensors']);
  const multimodal = {
    architectures: ['Gemma3ForConditionalGeneration'],
    model_type: 'gemma3',
    text_config: { ...config, architectures: undefined },
  };
  for (const prefix of ['language_model.model.', 'model.language_model.']) {
    const renamed = Object.fromEntries(
      Object.entries(tensors).map(([name, t]) => [name.replace(/^model\./, prefix), t]),
    );
    renamed['vision_tower.vision_model.embeddings.patch_embedding.weight'] = {
      dtype: 'F32',
      shape: [2],
      bytes: new Uint8Array(8),
    };
    const model = await attn.loadModel({
      ...files,
      'config.json': multimodal,
      'model.safetensors': writeSafetensors(renamed),
    });
    try {
      assert.equal(model.head, 'causal-lm');
      assertClose(model.forward(c.texts[0]).logits, c.logits, { ...tol, label: `gemma3 under ${prefix}` });
    } finally {
      model.dispose();
    }
  }
  await assert.rejects(attn.loadModel({ ...files, 'config.json': { model_type: 'gemma3' } }), {
    name: 'RangeError',
    message: /a gemma3 checkpoint must hold its text model in text_config/,
  });
});

test('transformers 5 configs: rope_parameters (one object, or one per layer type) read as 4.x read rope_theta, rope_scaling, partial_rotary_factor and rope_local_base_freq', async () => {
  const v5 = {
    // Qwen2: one object, the default type.
    'tiny-qwen2': (c) => ({
      ...c,
      rope_theta: undefined,
      rope_parameters: { rope_type: 'default', rope_theta: c.rope_theta },
    }),
    // Gemma 3: per layer type; the sliding layers' base is their rope_theta.
    'tiny-gemma3': (c) => ({
      ...c,
      rope_theta: undefined,
      rope_scaling: undefined,
      rope_local_base_freq: undefined,
      rope_parameters: {
        full_attention: { rope_type: 'linear', factor: 8, rope_theta: c.rope_theta },
        sliding_attention: { rope_type: 'default', rope_theta: c.rope_local_base_freq },
      },
    }),
    // Phi-3: longrope with its original context and partial factor inside, no factor (the ratio, as 5 computes it).
    'tiny-phi3': (c) => ({
      ...c,
      original_max_position_embeddings: undefined,
      partial_rotary_factor: undefined,
      rope_scaling: undefined,
      rope_parameters: {
        rope_type: 'longrope',
        rope_theta: c.rope_theta,
        partial_rotary_factor: c.partial_rotary_factor,
        original_max_position_embeddings: c.original_max_position_embeddings,
        short_factor: c.rope_scaling.short_factor,
        long_factor: c.rope_scaling.long_factor,
      },
    }),
  };
  for (const [name, rewrite] of Object.entries(v5)) {
    const { files, config } = fixture(name);
    const ref = reference(name);
    const model = await attn.loadModel({ ...files, 'config.json': JSON.parse(JSON.stringify(rewrite(config))) });
    try {
      assertClose(model.forward(ref.cases[0].texts[0]).logits, ref.cases[0].logits, {
        ...tol,
        label: `${name}, rope_parameters`,
      });
      if (ref.long)
        assertClose(model.forward([ref.long.ids]).logits, ref.long.logits, {
          ...tol,
          label: `${name}, rope_parameters, long`,
        });
    } finally {
      model.dispose();
    }
  }
  const { files, config } = fixture('tiny-gemma3');
  await assert.rejects(
    attn.loadModel({
      ...files,
      'config.json': {
        ...config,
        rope_parameters: { sliding_attention: { rope_type: 'linear', factor: 2, rope_theta: 10 } },
      },
    }),
    { name: 'RangeError', message: /rope_parameters\.sliding_attention of type "linear" is not supported/ },
  );
});

test("a config whose head_dim lies (1e9) is refused by the runner's check, not by building a 2 GB descriptor in JS", async () => {
  const { files, config } = fixture('tiny-qwen3');
  const start = performance.now();
  await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...config, head_dim: 1e9 } }), {
    name: 'RangeError',
    message: /config\.json describes a model the runner cannot hold|weights need/,
  });
  const ms = performance.now() - start;
  console.log(`# head_dim 1e9 refused in ${ms.toFixed(0)} ms (27 s before the lists were capped)`);
  assert.ok(ms < 5000, `${ms} ms`);
  const model = await attn.loadModel(files); // the module keeps working
  model.dispose();
});

test('tiny-smollm3: no_rope_layers 0 leaves a layer unrotated (NoPE); RoPE everywhere, or the window without use_sliding_window, leaves the reference', async () => {
  const { files, config, logits } = fixture('tiny-smollm3');
  assert.deepEqual(config.no_rope_layers, [1, 0, 1, 0]);
  const model = await attn.loadModel(files);
  try {
    assert.deepEqual(model.descriptor.layerNoRope, [false, true, false, true]);
    assert.deepEqual(model.descriptor.layerWindows, [0, 0, 0, 0]);
  } finally {
    model.dispose();
  }
  const c = reference('tiny-smollm3').cases[0];
  assertClose(await logits({}, c.texts[0]), c.logits, { ...tol, label: 'smollm3 as configured' });
  await assertMatters('tiny-smollm3', { no_rope_layers: [1, 1, 1, 1] }, 'its NoPE layers');
  // Without an explicit list, every no_rope_layer_interval-th layer is NoPE: interval 2 is the
  // fixture's own list.
  assertClose(await logits({ no_rope_layers: undefined }, c.texts[0]), c.logits, {
    ...tol,
    label: 'from the interval',
  });
  await assertMatters(
    'tiny-smollm3',
    { use_sliding_window: true, layer_types: undefined },
    'ignoring use_sliding_window',
  );
  await assert.rejects(
    logits({ no_rope_layers: [1, 2, 1, 0] }, 'x'),
    /no_rope_layers must list 1 \(RoPE\) or 0 \(NoPE\) for each of the 4 layers/,
  );
});

test('tiny-granite: embedding, attention and residual multipliers and logits_scaling each move the logits; the descriptor carries them', async () => {
  const { files, config, logits } = fixture('tiny-granite');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.deepEqual(
      [d.embeddingMultiplier, d.attentionScale, d.residualMultiplier, d.logitsScaling],
      [config.embedding_multiplier, config.attention_multiplier, config.residual_multiplier, config.logits_scaling],
    );
  } finally {
    model.dispose();
  }
  const c = reference('tiny-granite').cases[0];
  assertClose(await logits({}, c.texts[0]), c.logits, { ...tol, label: 'granite as configured' });
  for (const key of ['embedding_multiplier', 'attention_multiplier', 'residual_multiplier', 'logits_scaling'])
    await assertMatters('tiny-granite', { [key]: 1 }, key);
  await assert.rejects(logits({ logits_scaling: 0 }, 'x'), /config.json: logits_scaling must be a positive number/);
});

test('tiny-olmo2: norms after attention and the MLP, none before; q/k norms over the whole projected width', async () => {
  const { files } = fixture('tiny-olmo2');
  const model = await attn.loadModel(files);
  try {
    const d = model.descriptor;
    assert.deepEqual([d.postNorms, d.inputNorms, d.qkNorm, d.qkNormFullWidth], [true, false, true, true]);
  } finally {
    model.dispose();
  }
  // The checkpoint has no input_layernorm: a loader that asked for one would fail; per-head q/k
  // norms cannot even take its [heads · head_dim] weights.
  const tensors = readSafetensors(files['model.safetensors']);
  assert.equal(tensors['model.layers.0.input_layernorm.weight'], undefined);
  assert.deepEqual(tensors['model.layers.0.self_attn.q_norm.weight'].shape, [32]);
  await assert.rejects(
    attn.loadModel({
      ...files,
      'config.json': { ...JSON.parse(new TextDecoder().decode(files['config.json'])), clip_qkv: 8 },
    }),
    /^RangeError: loadModel: config.json: clip_qkv 8 clamps the queries, keys and values, which is not supported/,
  );
});
