// The whole-model benchmark cases, shared by Node (bench/models.js) and Chromium
// (bench/browser-models.js): a BERT-base-shaped encoder (12 layers × 768, 12 heads, FFN
// 3072) on 128 tokens, and a GPT-2-small-shaped decoder's prefill of 128 tokens (logits
// included) and its decoding with a key/value cache. Random weights, written as a Hugging
// Face checkpoint (config.json + model.safetensors) for attention-wasm and as ONNX graphs
// built from the same arrays (bench/peers/onnx-models.js) for onnxruntime-web. Outputs are
// compared before anything is timed. The GPT-2 case also comes as a bfloat16 checkpoint (the
// same weights rounded to bfloat16, as modern checkpoints are stored): attention-wasm keeps its
// matrices in bfloat16, onnxruntime-web (which has no bfloat16 MatMul in wasm) runs the same
// values as float32.
import { measureInterleaved } from './cases.js';
export { copyBandwidth } from './bandwidth.js';
import { bertModel, gpt2Model } from './peers/onnx-models.js';

/**
 * How long each case is timed. full: what npm run bench reports. quick (BENCH_QUICK=1): one
 * short round and one decode run, to see that every path runs and the tables print; its
 * numbers are not measurements.
 */
export const TIMING = {
  full: { warmupMs: 3000, rounds: 5, roundMs: 1500, decodeRuns: 5 },
  quick: { warmupMs: 0, rounds: 1, roundMs: 0, decodeRuns: 1 },
};
const roundsOf = ({ warmupMs, rounds, roundMs }) => ({ warmupMs, rounds, roundMs });

export const BERT = { V: 30522, P: 512, d: 768, H: 12, L: 12, f: 3072, T: 128 };
export const GPT2 = { V: 50257, P: 1024, d: 768, H: 12, L: 12, f: 3072, T: 128, steps: 32 };

// Seeded normal-ish weights (the sum of two uniforms), std about `scale`.
export function filler(seed) {
  let s = seed >>> 0;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  return (n, scale = 0.02, offset = 0) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = offset + (next() + next() - 1) * scale * 2.45;
    return a;
  };
}

function transpose(a, rows, cols) {
  const t = new Float32Array(a.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = a[r * cols + c];
  return t;
}

// Rounds float32 values to the nearest bfloat16 (ties to even), in place.
function roundToBf16(a) {
  const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
  for (let i = 0; i < u.length; i++) u[i] = ((u[i] + 0x7fff + ((u[i] >>> 16) & 1)) & 0xffff0000) >>> 0;
  return a;
}

// A safetensors file of float32 arrays, written as F32 or (values already bfloat16) BF16.
export function safetensors(tensors, dtype = 'F32') {
  const header = {};
  const bytesOf = ({ data }) => (dtype === 'BF16' ? data.byteLength / 2 : data.byteLength);
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytesOf(t)] };
    offset += bytesOf(t);
  }
  const text = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 8);
  let at = 8 + text.length;
  for (const { data } of Object.values(tensors)) {
    if (dtype === 'BF16') {
      const u = new Uint32Array(data.buffer, data.byteOffset, data.length);
      const half = new Uint16Array(u.length);
      for (let i = 0; i < u.length; i++) half[i] = u[i] >>> 16;
      out.set(new Uint8Array(half.buffer), at);
      at += half.byteLength;
    } else {
      out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
      at += data.byteLength;
    }
  }
  return out;
}

/** max |a − b| / max |b|. */
export const maxRelative = (a, b) => {
  let scale = 0,
    diff = 0;
  for (let i = 0; i < a.length; i++) {
    scale = Math.max(scale, Math.abs(b[i]));
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
  }
  return diff / scale;
};

export const ids = (T, V, seed = 5) => Array.from({ length: T }, (_, i) => (i * 7919 + seed * 104729) % V);

// ---- BERT-base-shaped encoder ----
/** The BERT case's files: { config, safetensors (bytes), onnx (bytes) }. */
export function makeBert() {
  const c = BERT;
  const rand = filler(11);
  const w = {
    wordEmbeddings: rand(c.V * c.d),
    positionEmbeddings: rand(c.P * c.d),
    tokenTypeEmbeddings: rand(2 * c.d),
    embNormG: rand(c.d, 0.02, 1),
    embNormB: rand(c.d),
    layers: [],
  };
  const st = {
    'bert.embeddings.word_embeddings.weight': { shape: [c.V, c.d], data: w.wordEmbeddings },
    'bert.embeddings.position_embeddings.weight': { shape: [c.P, c.d], data: w.positionEmbeddings },
    'bert.embeddings.token_type_embeddings.weight': { shape: [2, c.d], data: w.tokenTypeEmbeddings },
    'bert.embeddings.LayerNorm.weight': { shape: [c.d], data: w.embNormG },
    'bert.embeddings.LayerNorm.bias': { shape: [c.d], data: w.embNormB },
  };
  for (let l = 0; l < c.L; l++) {
    const layer = {};
    const p = `bert.encoder.layer.${l}.`;
    const linear = (key, name, inDim, outDim) => {
      layer[`w${key}`] = rand(inDim * outDim);
      layer[`b${key}`] = rand(outDim);
      st[`${p}${name}.weight`] = { shape: [outDim, inDim], data: transpose(layer[`w${key}`], inDim, outDim) };
      st[`${p}${name}.bias`] = { shape: [outDim], data: layer[`b${key}`] };
    };
    linear('q', 'attention.self.query', c.d, c.d);
    linear('k', 'attention.self.key', c.d, c.d);
    linear('v', 'attention.self.value', c.d, c.d);
    linear('o', 'attention.output.dense', c.d, c.d);
    linear('1', 'intermediate.dense', c.d, c.f);
    linear('2', 'output.dense', c.f, c.d);
    for (const [key, name] of [
      ['ln1', 'attention.output.LayerNorm'],
      ['ln2', 'output.LayerNorm'],
    ]) {
      layer[`${key}g`] = rand(c.d, 0.02, 1);
      layer[`${key}b`] = rand(c.d);
      st[`${p}${name}.weight`] = { shape: [c.d], data: layer[`${key}g`] };
      st[`${p}${name}.bias`] = { shape: [c.d], data: layer[`${key}b`] };
    }
    w.layers.push(layer);
  }
  const config = {
    model_type: 'bert',
    architectures: ['BertModel'],
    vocab_size: c.V,
    hidden_size: c.d,
    num_hidden_layers: c.L,
    num_attention_heads: c.H,
    intermediate_size: c.f,
    hidden_act: 'gelu',
    max_position_embeddings: c.P,
    type_vocab_size: 2,
    layer_norm_eps: 1e-12,
  };
  return { config, safetensors: safetensors(st), onnx: bertModel(c, w) };
}

/** Times the BERT case: `load()` gives { model (attention-wasm), session (onnxruntime-web) }. */
export async function bertRow({ ort, load, progress, timing = TIMING.full }) {
  const c = BERT;
  progress('BERT: loading both');
  const { model, session } = await load();
  const input = ids(c.T, c.V);
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(input, BigInt), [1, c.T]) };
  const ours = model.forward(input).lastHiddenState.data;
  const theirs = (await session.run(feeds)).last_hidden_state.data;
  const error = maxRelative(ours, theirs);
  if (!(error < 1e-3)) throw new Error(`BERT: the two engines disagree (max relative difference ${error})`);
  progress(`BERT: outputs agree (max |diff| / max |x| = ${error.toExponential(1)}); timing`);
  const timings = await measureInterleaved(
    {
      'attention-wasm': () => model.forward(input).lastHiddenState.data,
      'onnxruntime-web': async () => (await session.run(feeds)).last_hidden_state.data,
    },
    { ...roundsOf(timing), onProgress: (t) => progress(`BERT: ${t}`) },
  );
  model.dispose();
  await session.release();
  return { case: `BERT-base shape, 12 × 768, T = ${c.T}`, unit: 'ms', error, results: timings };
}

// ---- GPT-2-small-shaped decoder ----
/**
 * The GPT-2 case's files: { config, safetensors (bytes), prefill and decode (ONNX bytes) }.
 * bf16: every weight rounded to bfloat16 and the checkpoint written as BF16 (the ONNX graphs
 * hold the same values as float32). q8: also { prefillQ8, decodeQ8 }, the graphs in
 * transformers.js's q8 form (bench/peers/onnx-quantize.js).
 */
export function makeGpt2({ bf16 = false, q8 = false } = {}) {
  const c = GPT2;
  const filled = filler(12);
  const rand = bf16 ? (...args) => roundToBf16(filled(...args)) : filled;
  const w = { wte: rand(c.V * c.d), wpe: rand(c.P * c.d, 0.01), lnfG: rand(c.d, 0.02, 1), lnfB: rand(c.d), layers: [] };
  w.wteT = transpose(w.wte, c.V, c.d);
  const st = {
    'wte.weight': { shape: [c.V, c.d], data: w.wte },
    'wpe.weight': { shape: [c.P, c.d], data: w.wpe },
    'ln_f.weight': { shape: [c.d], data: w.lnfG },
    'ln_f.bias': { shape: [c.d], data: w.lnfB },
  };
  for (let l = 0; l < c.L; l++) {
    const layer = {
      ln1g: rand(c.d, 0.02, 1),
      ln1b: rand(c.d),
      cattnW: rand(c.d * 3 * c.d),
      cattnB: rand(3 * c.d),
      cprojW: rand(c.d * c.d),
      cprojB: rand(c.d),
      ln2g: rand(c.d, 0.02, 1),
      ln2b: rand(c.d),
      fcW: rand(c.d * c.f),
      fcB: rand(c.f),
      mprojW: rand(c.f * c.d),
      mprojB: rand(c.d),
    };
    const p = `h.${l}.`;
    Object.assign(st, {
      [`${p}ln_1.weight`]: { shape: [c.d], data: layer.ln1g },
      [`${p}ln_1.bias`]: { shape: [c.d], data: layer.ln1b },
      [`${p}attn.c_attn.weight`]: { shape: [c.d, 3 * c.d], data: layer.cattnW },
      [`${p}attn.c_attn.bias`]: { shape: [3 * c.d], data: layer.cattnB },
      [`${p}attn.c_proj.weight`]: { shape: [c.d, c.d], data: layer.cprojW },
      [`${p}attn.c_proj.bias`]: { shape: [c.d], data: layer.cprojB },
      [`${p}ln_2.weight`]: { shape: [c.d], data: layer.ln2g },
      [`${p}ln_2.bias`]: { shape: [c.d], data: layer.ln2b },
      [`${p}mlp.c_fc.weight`]: { shape: [c.d, c.f], data: layer.fcW },
      [`${p}mlp.c_fc.bias`]: { shape: [c.f], data: layer.fcB },
      [`${p}mlp.c_proj.weight`]: { shape: [c.f, c.d], data: layer.mprojW },
      [`${p}mlp.c_proj.bias`]: { shape: [c.d], data: layer.mprojB },
    });
    w.layers.push(layer);
  }
  const config = {
    model_type: 'gpt2',
    architectures: ['GPT2LMHeadModel'],
    vocab_size: c.V,
    n_positions: c.P,
    n_embd: c.d,
    n_layer: c.L,
    n_head: c.H,
    activation_function: 'gelu_new',
    layer_norm_epsilon: 1e-5,
    eos_token_id: 50256,
  };
  return {
    config,
    safetensors: safetensors(st, bf16 ? 'BF16' : 'F32'),
    prefill: gpt2Model(c, w, { decode: false }),
    decode: gpt2Model(c, w, { decode: true }),
    ...(q8 && { prefillQ8: gpt2Model(c, w, { decode: false, q8 }), decodeQ8: gpt2Model(c, w, { decode: true, q8 }) }),
  };
}

/** The index of the largest of a[from .. from + V) (V: the GPT-2 case's vocabulary), from 0. */
function argmaxRow(a, from) {
  const V = GPT2.V;
  let b = from;
  for (let i = from; i < from + V; i++) if (a[i] > a[b]) b = i;
  return b - from;
}

/**
 * GPT-2's greedy decoding in onnxruntime-web: `sessions` { prefill, decode } (ONNX sessions of
 * gpt2Model's graphs), GPT2.steps tokens after `prompt`. { tokens, msPerToken } (the prefill
 * and the first token not timed).
 */
export async function ortGreedy(ort, { prefill, decode }, prompt) {
  const c = GPT2;
  const presents = (out) =>
    Object.fromEntries(
      Array.from({ length: c.L }, (_, i) => [
        [`past_key_${i}`, out[`present_key_${i}`]],
        [`past_value_${i}`, out[`present_value_${i}`]],
      ]).flat(),
    );
  const out = await prefill.run({
    input_ids: new ort.Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]),
  });
  let past = presents(out);
  let next = argmaxRow(out.logits.data, (prompt.length - 1) * c.V);
  const tokens = [next];
  const t0 = performance.now();
  for (let s = 1; s < c.steps; s++) {
    const r = await decode.run({
      input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(next)), [1, 1]),
      position_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(prompt.length + s - 1)), [1, 1]),
      ...past,
    });
    past = presents(r);
    next = argmaxRow(r.logits.data, 0);
    tokens.push(next);
  }
  return { tokens, msPerToken: (performance.now() - t0) / (c.steps - 1) };
}

/** The same with an attention-wasm model (model.generate, greedy). */
export async function ourGreedy(model, prompt) {
  const c = GPT2;
  let t0 = 0;
  const { newIds } = await model.generate(prompt, {
    maxNewTokens: c.steps,
    stopAtEos: false,
    onToken: ({ index }) => {
      if (index === 0) t0 = performance.now();
    },
  });
  return { tokens: newIds, msPerToken: (performance.now() - t0) / (c.steps - 1) };
}

/**
 * Times the GPT-2 cases: `load()` gives { model, prefill, decode } (the last two ONNX sessions);
 * bf16: the checkpoint is the bfloat16 one (the rows say so, and the weight bytes are halved).
 */
export async function gpt2Rows({ ort, load, progress, bf16 = false, timing = TIMING.full }) {
  const c = GPT2;
  const shape = bf16 ? 'GPT-2-small shape, bfloat16 checkpoint' : 'GPT-2-small shape';
  progress('GPT-2: loading both');
  const { model, prefill, decode } = await load();
  if (model.matrixDtype !== (bf16 ? 'bfloat16' : 'float32'))
    throw new Error(`GPT-2: the model holds its matrices as ${model.matrixDtype}`);
  const prompt = ids(c.T, c.V, 9);
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, c.T]) };
  const ours = model.forward(prompt).logits.data;
  const prefillOut = await prefill.run(feeds);
  const error = maxRelative(ours, prefillOut.logits.data);
  if (!(error < 1e-3)) throw new Error(`GPT-2: the two engines disagree (max relative difference ${error})`);
  // Decoding: greedy tokens of both, the same.
  const ortDecode = () => ortGreedy(ort, { prefill, decode }, prompt);
  const oursDecode = () => ourGreedy(model, prompt);
  const [a, b] = [await oursDecode(), await ortDecode()];
  const same = a.tokens.filter((t, i) => t === b.tokens[i]).length;
  progress(
    `GPT-2: logits agree (${error.toExponential(1)}); greedy tokens equal for ${same} of ${c.steps}; timing prefill`,
  );
  const prefillTimes = await measureInterleaved(
    {
      'attention-wasm': () => model.forward(prompt).logits.data,
      'onnxruntime-web': async () => (await prefill.run(feeds)).logits.data,
    },
    { ...roundsOf(timing), onProgress: (t) => progress(`GPT-2 prefill: ${t}`) },
  );
  progress('GPT-2: timing decoding');
  const decodeRuns = { 'attention-wasm': [], 'onnxruntime-web': [] };
  for (let r = 0; r < timing.decodeRuns; r++) {
    decodeRuns['attention-wasm'].push((await oursDecode()).msPerToken);
    decodeRuns['onnxruntime-web'].push((await ortDecode()).msPerToken);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  // Bytes read per decoded token: every weight matrix (the tied LM head included) once.
  const weightBytes = (bf16 ? 2 : 4) * (c.L * (4 * c.d * c.d + 2 * c.d * c.f) + c.V * c.d);
  model.dispose();
  await prefill.release();
  await decode.release();
  return [
    { case: `${shape}, prefill T = ${c.T} (logits included)`, unit: 'ms', error, results: prefillTimes },
    {
      case: `${shape}, decode with the cache after ${c.T} tokens`,
      unit: 'ms/token',
      sameTokens: same,
      steps: c.steps,
      weightBytes,
      results: Object.fromEntries(
        Object.entries(decodeRuns).map(([k, v]) => [k, { ms: Math.min(...v), medianMs: median(v) }]),
      ),
    },
  ];
}
