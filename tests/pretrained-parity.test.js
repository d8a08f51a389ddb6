// Pretrained models (issue 21) against independent float64 PyTorch forwards written from the
// Hugging Face modeling code (scripts/make-hf-fixtures.py): tiny random checkpoints in the
// exact Hub layout for GPT-2 (Conv1D [in, out], fused c_attn, tied LM head), BERT (masked-LM
// head tied to the embeddings), DistilBERT (a float16 sequence classifier) and Llama (RMSNorm,
// SwiGLU, rotary embeddings, grouped-query heads: 4 query heads on 2 key/value heads, an
// untied LM head, a SentencePiece-style BPE tokenizer with byte fallback) and RoBERTa
// (positions counted from padding_idx + 1, a three-label classifier, <s> … </s>) and Mistral
// (Llama's layers with sliding_window 3: each query sees itself and the 2 keys before) and
// Llama with Llama 3.1's rope_scaling ('llama3'; 'linear' on the same weights) and a bfloat16
// Llama (its matrices kept as bfloat16 panels). Logits, every
// hidden state and every attention map match at rtol 1e-4, atol 1e-5, for one text and a
// right-padded batch, through both kernels (step-by-step when attention maps are asked for,
// fused otherwise); the tokenizers match reference tokenizers written in Python; the loader
// reads the same checkpoint from a folder, bytes, Blobs, shards and bfloat16 alike.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { writeSafetensors, readSafetensors, fixtureFiles, toBf16Bits } from './helpers/safetensors.js';

// init() picks the build: baseline in plain Node, relaxed under --experimental-wasm-relaxed-simd
// (tests/variants.test.js runs this file that way too).
const attn = await init();
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const FIXTURES = [
  'tiny-gpt2',
  'tiny-bert',
  'tiny-distilbert-f16',
  'tiny-llama',
  'tiny-roberta',
  'tiny-mistral',
  'tiny-llama-rope-scaling',
  'tiny-llama-bf16',
  'tiny-qwen2',
  'tiny-qwen3',
  'tiny-gemma2',
  'tiny-gemma3',
  'tiny-phi3',
  'tiny-smollm',
  'tiny-smollm3',
  'tiny-granite',
  'tiny-olmo2',
];
const reference = (name) => JSON.parse(readFileSync(`${root}${name}/reference.json`, 'utf8'));
const tol = { rtol: 1e-4, atol: 1e-5 };

// The rows of real tokens only: t < lengths[b] on the sequence axis `axis` of a [B, ...]
// tensor (logits and hidden states: axis 1; attention maps [B, H, T, T]: the query axis 2).
// With a sliding window a padded query may see no key at all; PyTorch's finfo.min masking then
// spreads its weight evenly over every key, where the kernels give zeros: those rows are
// padding either way, so they are left out of the comparison for windowed models.
function realRows(t, lengths, axis) {
  const shape = t.shape,
    inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1),
    T = shape[axis];
  const outer = shape.slice(1, axis).reduce((a, b) => a * b, 1);
  const data = [];
  for (let b = 0; b < shape[0]; b++)
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < lengths[b]; i++) {
        const start = ((b * outer + o) * T + i) * inner;
        for (let x = 0; x < inner; x++) data.push(t.data[start + x]);
      }
  return { data: Float64Array.from(data), shape: [data.length] };
}

for (const name of FIXTURES) {
  test(`${name}: logits, hidden states and attention maps match the PyTorch reference`, async () => {
    const ref = reference(name);
    const model = await attn.loadModel(`${root}${name}`);
    const windowed = JSON.parse(readFileSync(`${root}${name}/config.json`, 'utf8')).sliding_window > 0;
    // tiny-llama-bf16 is a BF16 checkpoint written with torch's rounding: its matrices stay bfloat16.
    assert.equal(model.matrixDtype, name.endsWith('-bf16') ? 'bfloat16' : 'float32');
    try {
      for (const c of ref.cases) {
        const input = c.texts.length === 1 ? c.texts[0] : c.texts;
        const out = model.forward(input, { attentions: true, hiddenStates: true });
        assert.deepEqual(
          out.ids,
          c.ids.map((row, b) => row.slice(0, c.lengths[b])),
          'token ids',
        );
        assert.deepEqual(out.lengths, c.lengths);
        const rows = (t, axis) => (windowed ? realRows(t, c.lengths, axis) : t);
        assertClose(rows(out.logits, 1), rows(c.logits, 1), {
          ...tol,
          label: `${name} logits (${c.texts.length} texts)`,
        });
        assert.equal(out.hiddenStates.length, c.hidden_states.length);
        out.hiddenStates.forEach((h, l) =>
          assertClose(rows(h, 1), rows(c.hidden_states[l], 1), { ...tol, label: `${name} hidden state ${l}` }),
        );
        out.attentions.forEach((a, l) =>
          assertClose(rows(a, 2), rows(c.attentions[l], 2), { ...tol, label: `${name} attention ${l}` }),
        );
        assertClose(rows(out.lastHiddenState, 1), rows(c.hidden_states.at(-1), 1), {
          ...tol,
          label: `${name} last hidden state`,
        });
        // Rows sum to 1 over the real keys (rows of real queries, with a window); padded keys
        // get exactly 0.
        const [B, H, T] = out.attentions[0].shape;
        for (const a of out.attentions) {
          for (let b = 0; b < B; b++)
            for (let h = 0; h < H; h++)
              for (let i = 0; i < (windowed ? c.lengths[b] : T); i++) {
                const row = a.data.subarray(((b * H + h) * T + i) * T, ((b * H + h) * T + i + 1) * T);
                assert.ok(Math.abs(row.reduce((s, v) => s + v, 0) - 1) < 1e-5, 'row sums to 1');
                for (let j = c.lengths[b]; j < T; j++) assert.equal(row[j], 0, 'padded key gets 0');
              }
        }
        // The fused kernel (no maps asked for) gives the same logits.
        const fused = model.forward(input);
        assertClose(rows(fused.logits, 1), rows(c.logits, 1), { ...tol, label: `${name} logits, fused kernel` });
        assert.equal(fused.attentions, undefined);
      }
    } finally {
      model.dispose();
    }
  });
}

test('queriesAndKeys: softmax(q·kᵀ/√d) of the returned queries and keys rebuilds every attention map (GQA included)', async () => {
  for (const name of ['tiny-bert', 'tiny-llama']) {
    const model = await attn.loadModel(`${root}${name}`);
    const d = model.descriptor;
    const text = 'The cat sat on the mat.';
    for (let layer = 0; layer < d.numLayers; layer++) {
      const out = model.forward(text, { attentions: true, queriesAndKeys: layer });
      const [, H, T, hd] = out.queries.shape;
      assert.deepEqual(out.keys.shape, [1, d.numKvHeads, T, hd]);
      const group = H / d.numKvHeads;
      const maps = out.attentions[layer].data;
      for (let h = 0; h < H; h++)
        for (let i = 0; i < T; i++) {
          const scores = [];
          for (let j = 0; j < T; j++) {
            if (d.causal && j > i) continue;
            let dot = 0;
            for (let c = 0; c < hd; c++)
              dot += out.queries.data[(h * T + i) * hd + c] * out.keys.data[(Math.floor(h / group) * T + j) * hd + c];
            scores.push(dot / Math.sqrt(hd));
          }
          const max = Math.max(...scores);
          const total = scores.reduce((a, s) => a + Math.exp(s - max), 0);
          scores.forEach((s, j) =>
            assert.ok(
              Math.abs(Math.exp(s - max) / total - maps[(h * T + i) * T + j]) < 1e-5,
              `${name} layer ${layer} head ${h} [${i}, ${j}]`,
            ),
          );
        }
    }
    model.dispose();
  }
});

test('token ids with an attention mask give the same result as text; token types default to 0', async () => {
  const ref = reference('tiny-bert');
  const model = await attn.loadModel(`${root}tiny-bert`);
  const c = ref.cases[1];
  const mask = c.ids.map((row, b) => row.map((_, t) => (t < c.lengths[b] ? 1 : 0)));
  const out = model.forward({ inputIds: c.ids, attentionMask: mask, tokenTypeIds: c.ids.map((r) => r.map(() => 0)) });
  assertClose(out.logits, c.logits, { ...tol, label: 'ids + mask' });
  const ragged = model.forward(c.ids.map((row, b) => row.slice(0, c.lengths[b])));
  assertClose(ragged.logits, c.logits, { ...tol, label: 'ragged ids (padded by the call)' });
  model.dispose();
});

test('the classifier head: probabilities are the softmax of the reference logits, labels from id2label', async () => {
  const ref = reference('tiny-distilbert-f16');
  const model = await attn.loadModel(`${root}tiny-distilbert-f16`);
  assert.equal(model.head, 'sequence-classification');
  assert.deepEqual(model.labels, ['NEGATIVE', 'POSITIVE']);
  const c = ref.cases[1];
  const out = model.forward(c.texts);
  for (let b = 0; b < 2; b++) {
    const [x, y] = c.logits.data.slice(2 * b, 2 * b + 2);
    const p1 = 1 / (1 + Math.exp(x - y));
    assert.ok(Math.abs(out.probabilities.data[2 * b + 1] - p1) < 1e-5, `p(POSITIVE) of text ${b}`);
    assert.equal(out.labels[b], p1 > 0.5 ? 'POSITIVE' : 'NEGATIVE');
  }
  model.dispose();
});

test('classification heads of BERT (pooler, tanh), GPT-2 and Llama (score on the last real token): float64 heads on the reference hidden states', async () => {
  const heads = {
    'tiny-bert': {
      cls: 'BertForSequenceClassification',
      add: (d, g) => ({ 'classifier.weight': [[3, d], g(3 * d)], 'classifier.bias': [[3], g(3)] }),
      head: (h, W) =>
        dense(
          W['classifier.weight'],
          W['classifier.bias'],
          dense(W['bert.pooler.dense.weight'], W['bert.pooler.dense.bias'], h, Math.tanh),
        ),
      pool: 'first',
    },
    'tiny-gpt2': {
      cls: 'GPT2ForSequenceClassification',
      add: (d, g) => ({ 'score.weight': [[3, d], g(3 * d)] }),
      head: (h, W) => dense(W['score.weight'], null, h),
      pool: 'last',
    },
    'tiny-llama': {
      cls: 'LlamaForSequenceClassification',
      add: (d, g) => ({ 'score.weight': [[3, d], g(3 * d)] }),
      head: (h, W) => dense(W['score.weight'], null, h),
      pool: 'last',
    },
  };
  for (const [name, spec] of Object.entries(heads)) {
    const ref = reference(name);
    const files = fixtureFiles(`${root}${name}`);
    const config = {
      ...JSON.parse(new TextDecoder().decode(files['config.json'])),
      architectures: [spec.cls],
      id2label: { 0: 'a', 1: 'b', 2: 'c' },
    };
    const tensors = readSafetensors(files['model.safetensors']);
    const d = config.hidden_size ?? config.n_embd;
    let seed = 7;
    const g = (n) =>
      Float32Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5);
    const extra = Object.fromEntries(Object.entries(spec.add(d, g)).map(([k, [shape, data]]) => [k, { shape, data }]));
    const all = {
      ...Object.fromEntries(
        Object.entries(tensors).map(([k, t]) => [
          k,
          { shape: t.shape, data: new Float32Array(t.bytes.slice().buffer) },
        ]),
      ),
      ...extra,
    };
    const W = Object.fromEntries(
      Object.entries(all).map(([k, t]) => [k, { data: t.data, rows: t.shape[0], cols: t.shape[1] ?? 1 }]),
    );
    const model = await attn.loadModel({ ...files, 'config.json': config, 'model.safetensors': writeSafetensors(all) });
    assert.equal(model.head, 'sequence-classification');
    const c = ref.cases[1];
    const out = model.forward(c.texts);
    const last = c.hidden_states.at(-1);
    const [, T, dd] = last.shape;
    for (let b = 0; b < 2; b++) {
      const row = spec.pool === 'first' ? 0 : c.lengths[b] - 1;
      const h = Array.from(last.data.slice((b * T + row) * dd, (b * T + row + 1) * dd));
      const expected = spec.head(h, W);
      expected.forEach((x, i) =>
        assert.ok(
          Math.abs(out.logits.data[b * 3 + i] - x) <= 1e-5 + 1e-4 * Math.abs(x),
          `${name} text ${b} logit ${i}: ${out.logits.data[b * 3 + i]} vs ${x}`,
        ),
      );
    }
    model.dispose();
  }
});

// y = act(W·x + b) in float64; W: { data [out, in] row-major, rows: out, cols: in }.
function dense(W, bias, x, act = (v) => v) {
  return Array.from({ length: W.rows }, (_, o) => {
    let s = bias ? bias.data[o] : 0;
    for (let i = 0; i < W.cols; i++) s += W.data[o * W.cols + i] * x[i];
    return act(s);
  });
}

test('tokenizers: ids match the reference tokenizers; every span holds its token', async () => {
  for (const name of ['tiny-gpt2', 'tiny-bert', 'tiny-llama', 'tiny-roberta']) {
    const ref = reference(name);
    const model = await attn.loadModel(`${root}${name}`);
    for (const [text, ids] of Object.entries({ ...ref.tokens, ...ref.byte_fallback })) {
      const tokens = model.tokenize(text);
      assert.deepEqual(
        tokens.map((t) => t.id),
        ids,
        `${name}: ${text}`,
      );
      for (const t of tokens) {
        const span = text.slice(t.start, t.end);
        if (t.text === '[UNK]') {
          assert.match(span, /^\w+$/, `${name}: [UNK] covers a word`);
          continue;
        }
        if (t.special) {
          assert.deepEqual([t.start, t.end], [-1, -1]);
          continue;
        }
        if (/^<0x[0-9A-F]{2}>$/.test(t.text)) {
          const byte = parseInt(t.text.slice(3, 5), 16);
          if (byte < 0x80)
            assert.equal(span, String.fromCharCode(byte), `${name}: an ASCII byte token's span is its character`);
          else
            assert.match(span, /^[^\x00-\x7f]+$/u, `${name}: a multi-byte character's byte tokens span that character`);
          continue;
        }
        const piece = t.text.replace(/^##/, '').replace(/[Ġ▁]/g, ' ').trim();
        assert.equal(span.toLowerCase().trim(), piece.toLowerCase(), `${name}: span of '${t.text}' in '${text}'`);
      }
    }
    model.dispose();
  }
});

test('the same checkpoint from bytes, Blobs, a Map, shards with an index: identical outputs', async () => {
  const folder = `${root}tiny-gpt2`;
  const text = 'The dog sat on the log.';
  const model = await attn.loadModel(folder);
  const expected = model.forward(text).logits;
  model.dispose();
  const files = fixtureFiles(folder);
  const tensors = readSafetensors(files['model.safetensors']);
  const names = Object.keys(tensors);
  const half = Math.ceil(names.length / 2);
  const shard = (list) => writeSafetensors(Object.fromEntries(list.map((n) => [n, tensors[n]])));
  const sharded = {
    'config.json': JSON.parse(new TextDecoder().decode(files['config.json'])),
    'tokenizer.json': new TextDecoder().decode(files['tokenizer.json']),
    'model-00001-of-00002.safetensors': shard(names.slice(0, half)),
    'model-00002-of-00002.safetensors': shard(names.slice(half)),
    'model.safetensors.index.json': {
      metadata: {},
      weight_map: Object.fromEntries(names.map((n, i) => [n, `model-0000${i < half ? 1 : 2}-of-00002.safetensors`])),
    },
  };
  const sources = {
    'an object of Uint8Arrays': files,
    'a Map of ArrayBuffers': new Map(Object.entries(files).map(([k, v]) => [k, v.slice().buffer])),
    Files: Object.entries(files).map(([k, v]) => new File([v], k)),
    'two shards and an index': sharded,
  };
  for (const [what, source] of Object.entries(sources)) {
    const m = await attn.loadModel(source);
    assert.deepEqual(m.forward(text).logits.data, expected.data, what);
    m.dispose();
  }
});

// The checkpoint `name` with every tensor rounded to bfloat16: as BF16 tensors, and as F32
// tensors holding the same values.
function bf16Checkpoints(name) {
  const files = fixtureFiles(`${root}${name}`);
  const tensors = readSafetensors(files['model.safetensors']);
  const asBf16 = {},
    asRounded = {};
  for (const [tensor, t] of Object.entries(tensors)) {
    const data = new Float32Array(t.bytes.slice().buffer);
    asBf16[tensor] = { dtype: 'BF16', shape: t.shape, data };
    asRounded[tensor] = {
      shape: t.shape,
      data: Float32Array.from(data, (x) => new Float32Array(new Uint32Array([toBf16Bits(x) << 16]).buffer)[0]),
    };
  }
  return { files, asBf16, asRounded };
}

test('bfloat16 checkpoints keep their matrices in bfloat16: the same bits as float32 weights holding the same values, in fewer bytes', async () => {
  const texts = ['Attention is all you need!', 'Tiny models'];
  for (const name of ['tiny-bert', 'tiny-gpt2', 'tiny-llama', 'tiny-mistral']) {
    const { files, asBf16, asRounded } = bf16Checkpoints(name);
    const bf16 = await attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(asBf16) });
    const widened = await attn.loadModel(
      { ...files, 'model.safetensors': writeSafetensors(asBf16) },
      { dtype: 'float32' },
    );
    const f32 = await attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(asRounded) });
    try {
      assert.equal(bf16.matrixDtype, 'bfloat16', name);
      assert.equal(widened.matrixDtype, 'float32', name);
      assert.equal(f32.matrixDtype, 'float32', name);
      assert.equal(widened.parameterBytes, f32.parameterBytes);
      assert.ok(
        bf16.parameterBytes < f32.parameterBytes,
        `${name}: ${bf16.parameterBytes} < ${f32.parameterBytes} bytes`,
      );
      const expected = f32.forward(texts, { attentions: true, hiddenStates: true });
      for (const [what, m] of [
        ['bfloat16 matrices', bf16],
        ["dtype: 'float32'", widened],
      ]) {
        const out = m.forward(texts, { attentions: true, hiddenStates: true });
        assert.deepEqual(out.logits.data, expected.logits.data, `${name}, ${what}: logits`);
        out.attentions.forEach((a, l) =>
          assert.deepEqual(a.data, expected.attentions[l].data, `${name}, ${what}: attention ${l}`),
        );
        out.hiddenStates.forEach((h, l) =>
          assert.deepEqual(h.data, expected.hiddenStates[l].data, `${name}, ${what}: hidden state ${l}`),
        );
        // The fused kernel (no maps asked for) too.
        assert.deepEqual(m.forward(texts[0]).logits.data, f32.forward(texts[0]).logits.data, `${name}, ${what}: fused`);
      }
      if (bf16.head === 'causal-lm') {
        const greedy = await f32.generate(texts[0], { maxNewTokens: 6, stopAtEos: false, returnScores: true });
        const got = await bf16.generate(texts[0], { maxNewTokens: 6, stopAtEos: false, returnScores: true });
        assert.deepEqual(got.ids, greedy.ids, `${name}: greedy tokens with the cache`);
        got.scores.forEach((s, i) => assert.deepEqual(s, greedy.scores[i], `${name}: step ${i}'s scores`));
      }
    } finally {
      for (const m of [bf16, widened, f32]) m.dispose();
    }
  }
  // One matrix in F32 among BF16 ones: every matrix is widened (and the outputs are the same).
  const { files, asBf16, asRounded } = bf16Checkpoints('tiny-llama');
  const mixed = { ...asBf16, 'model.layers.0.mlp.down_proj.weight': asRounded['model.layers.0.mlp.down_proj.weight'] };
  const m = await attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(mixed) });
  const f32 = await attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(asRounded) });
  assert.equal(m.matrixDtype, 'float32');
  assert.deepEqual(m.forward(texts[0]).logits.data, f32.forward(texts[0]).logits.data, 'mixed');
  m.dispose();
  f32.dispose();
  for (const bad of ['bfloat16', 'fp32', 16, null]) {
    await assert.rejects(attn.loadModel({ ...files, 'model.safetensors': writeSafetensors(asBf16) }, { dtype: bad }), {
      name: 'TypeError',
      message: /loadModel: options\.dtype must be 'auto', 'float32', 'q8' or 'q4'/,
    });
  }
});

test('tiny-mistral: the sliding window is what makes it match (without it the logits leave the reference); a bad sliding_window is a RangeError', async () => {
  const files = fixtureFiles(`${root}tiny-mistral`);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  const c = reference('tiny-mistral').cases[0];
  const run = async (cfg) => {
    const model = await attn.loadModel({ ...files, 'config.json': cfg });
    try {
      return model.forward(c.texts[0]).logits;
    } finally {
      model.dispose();
    }
  };
  const windowed = await run(config);
  assertClose(windowed, c.logits, { ...tol, label: 'with the window' });
  const full = await run({ ...config, sliding_window: null });
  let worst = 0;
  for (let i = 0; i < full.data.length; i++) worst = Math.max(worst, Math.abs(full.data[i] - c.logits.data[i]));
  assert.ok(worst > 1e-2, `without the window the logits differ (max |diff| ${worst})`);
  for (const bad of [0, -1, 2.5, '3']) {
    await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...config, sliding_window: bad } }), {
      name: 'RangeError',
      message: /sliding_window must be a positive integer or null/,
    });
  }
});

test("rope_scaling: 'llama3' is what makes the fixture match (none misses); 'linear' on the same weights matches PyTorch's; unsupported types are RangeErrors", async () => {
  const files = fixtureFiles(`${root}tiny-llama-rope-scaling`);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  const ref = reference('tiny-llama-rope-scaling');
  const logitsWith = async (rope_scaling, text) => {
    const model = await attn.loadModel({ ...files, 'config.json': { ...config, rope_scaling } });
    try {
      return model.forward(text).logits;
    } finally {
      model.dispose();
    }
  };
  const text = ref.cases[0].texts[0];
  assertClose(await logitsWith(config.rope_scaling, text), ref.cases[0].logits, { ...tol, label: 'llama3' });
  const none = await logitsWith(null, text);
  const worst = Math.max(...Array.from(none.data, (x, i) => Math.abs(x - ref.cases[0].logits.data[i])));
  assert.ok(worst > 1e-3, `without rope_scaling the logits differ (max |diff| ${worst})`);
  assert.equal(ref.linear.text, text);
  assertClose(await logitsWith(ref.linear.rope_scaling, text), ref.linear.logits, {
    ...tol,
    label: 'linear, factor 2',
  });
  assertClose(await logitsWith({ rope_type: 'default' }, text), none, { rtol: 0, atol: 0, label: "'default' is none" });
  for (const [bad, message] of [
    [{ rope_type: 'yarn', factor: 4 }, /type "yarn" is not supported \(supported: default, linear, llama3, longrope\)/],
    [{ rope_type: 'dynamic', factor: 2 }, /type "dynamic" is not supported/],
    [{ rope_type: 'linear', factor: 0 }, /factor must be a positive number/],
    [{ ...config.rope_scaling, high_freq_factor: 0.5 }, /high_freq_factor must exceed low_freq_factor/],
    [
      { ...config.rope_scaling, original_max_position_embeddings: 10.5 },
      /original_max_position_embeddings must be an integer/,
    ],
    ['llama3', /must be an object or null/],
  ]) {
    await assert.rejects(attn.loadModel({ ...files, 'config.json': { ...config, rope_scaling: bad } }), {
      name: 'RangeError',
      message,
    });
  }
});

test("left-padded batches: each sequence gives its outputs alone (logits, hidden states, attention maps, queries and keys), in the caller's layout", async () => {
  for (const name of ['tiny-gpt2', 'tiny-bert', 'tiny-llama', 'tiny-roberta', 'tiny-mistral']) {
    const model = await attn.loadModel(`${root}${name}`);
    try {
      const texts = ['Attention is all you need!', 'Tiny', 'The cat sat on the mat, and then it slept all afternoon.'];
      const alone = texts.map((t) => model.forward(t, { attentions: true, hiddenStates: true, queriesAndKeys: 1 }));
      const seqs = alone.map((o) => o.ids[0]);
      const T = Math.max(...seqs.map((s) => s.length));
      const pad = model.config.pad_token_id ?? 0;
      // Sequence 0 left-padded, 1 right-padded, 2 whatever its length gives (the longest: none).
      const padded = seqs.map((s, b) =>
        b === 1 ? [...s, ...Array(T - s.length).fill(pad)] : [...Array(T - s.length).fill(pad), ...s],
      );
      const mask = seqs.map((s, b) =>
        b === 1
          ? [...Array(s.length).fill(1), ...Array(T - s.length).fill(0)]
          : [...Array(T - s.length).fill(0), ...Array(s.length).fill(1)],
      );
      const out = model.forward(
        { inputIds: padded, attentionMask: mask },
        { attentions: true, hiddenStates: true, queriesAndKeys: 1 },
      );
      assert.equal(out.padding, 'left');
      assert.deepEqual(out.ids, seqs);
      assert.deepEqual(
        out.lengths,
        seqs.map((s) => s.length),
      );
      // float32 noise only: a batch puts a sequence's rows in other matmul tiles than alone
      // (the one RMS norm sums in float32 as PyTorch does: up to 1.5e-6 on logits near 0.02).
      const tol1 = { rtol: 1e-5, atol: 2e-6 };
      seqs.forEach((s, b) => {
        const n = s.length,
          start = b === 1 ? 0 : T - n;
        // rows [start, start + n) of batch entry b of a [B, ..., T, inner] tensor, along `axis`
        const rowsOf = (t, axis, keyAxis = false) => {
          const shape = t.shape,
            inner = shape.slice(axis + 1).reduce((x, y) => x * y, 1),
            outer = shape.slice(1, axis).reduce((x, y) => x * y, 1);
          const data = [];
          for (let o = 0; o < outer; o++)
            for (let i = 0; i < n; i++) {
              const at = ((b * outer + o) * shape[axis] + start + i) * inner;
              if (keyAxis) for (let j = 0; j < n; j++) data.push(t.data[at + start + j]);
              else for (let x = 0; x < inner; x++) data.push(t.data[at + x]);
            }
          return Float64Array.from(data);
        };
        const one = alone[b];
        const same = (a, e, label) => assertClose(a, e, { ...tol1, label: `${name}, sequence ${b}: ${label}` });
        same(rowsOf(out.lastHiddenState, 1), flat(one.lastHiddenState), 'last hidden state');
        if (one.logits.shape.length === 3) same(rowsOf(out.logits, 1), flat(one.logits), 'logits');
        else
          same(
            out.logits.data.slice(b * one.logits.shape[1], (b + 1) * one.logits.shape[1]),
            one.logits.data,
            'classifier logits',
          );
        out.hiddenStates.forEach((h, l) => same(rowsOf(h, 1), flat(one.hiddenStates[l]), `hidden state ${l}`));
        out.attentions.forEach((a, l) => same(rowsOf(a, 2, true), flat(one.attentions[l]), `attention ${l}`));
        same(rowsOf(out.queries, 2), flat(one.queries), 'queries');
        same(rowsOf(out.keys, 2), flat(one.keys), 'keys');
        // Rows of real queries give their pad keys weight 0.
        for (const a of out.attentions) {
          const H = a.shape[1];
          for (let h = 0; h < H; h++)
            for (let i = start; i < start + n; i++) {
              let padWeight = 0;
              for (let j = 0; j < T; j++)
                if (j < start || j >= start + n) padWeight += a.data[((b * H + h) * T + i) * T + j];
              assert.equal(padWeight, 0, `${name}: sequence ${b}, head ${h}, query ${i} gives its pad keys weight`);
            }
        }
      });
    } finally {
      model.dispose();
    }
  }
  // A mask with a hole, or values other than 0 and 1: RangeErrors.
  const model = await attn.loadModel(`${root}tiny-gpt2`);
  for (const bad of [
    [1, 0, 1],
    [0, 1, 0],
    [1, 2, 1],
  ]) {
    assert.throws(() => model.forward({ inputIds: [[1, 2, 3]], attentionMask: [bad] }), {
      name: 'RangeError',
      message: /PretrainedModel\.forward: attentionMask\[0\] must/,
    });
  }
  assert.throws(() => model.forward({ inputIds: [[1, 2, 3]], attentionMask: [[0, 0, 0]] }), {
    name: 'RangeError',
    message: /sequence 0 is empty/,
  });
  model.dispose();
});

// A [1, ..., n, inner] tensor's data as float64 (the sequence alone: every row real).
function flat(t) {
  return Float64Array.from(t.data);
}
