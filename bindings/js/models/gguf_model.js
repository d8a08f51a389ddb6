// A GGUF file's metadata and tensors seen as the Hugging Face checkpoint it was converted from
// (llama.cpp's convert_hf_to_gguf.py, read backwards), so that architectureOf gives the same
// descriptor and the loader the same weights:
//   - `${arch}.*` metadata → a config.json object (model_type, hidden_size, …);
//   - GGUF tensor names (token_embd, blk.N.attn_q, …) → the runner's weight kinds, every matrix
//     in nn.Linear's [out, in] layout (GGUF's row-major [ne1][ne0]), GPT-2's c_attn included
//     (the converter transposes Conv1D);
//   - what the converter changed undone on the way in: Llama's q/k rows permuted for ggml's
//     interleaved RoPE (LlamaModel.permute), Gemma's norms stored as 1 + w.
import { rangeError } from '../errors.js';
import { GGML_TYPES, typeBytes, dequantize } from './gguf_quants.js';
import { GGUF_FAMILIES } from './architectures.js';
import { linear, plain } from './weight_names.js';

/** The architectures a GGUF file may have (general.architecture). */
export const GGUF_ARCHITECTURES = Object.freeze(Object.keys(GGUF_FAMILIES));

/**
 * The family registry's GGUF part for the file's general.architecture (architectures.js).
 * @param {string} fn @param {string} file @param {Map<string, unknown>} meta
 */
export function ggufFamily(fn, file, meta) {
  const arch = meta.get('general.architecture');
  if (typeof arch !== 'string' || !Object.hasOwn(GGUF_FAMILIES, arch))
    throw rangeError(
      fn,
      `${file}: general.architecture ${typeof arch === 'string' ? JSON.stringify(arch.slice(0, 40)) : String(arch)} is not supported (supported: ${GGUF_ARCHITECTURES.join(', ')})`,
    );
  return GGUF_FAMILIES[arch];
}

/**
 * The metadata → a config.json object for architectureOf: the keys every family has here, the
 * decoder's shared ones on request (decoder()), the rest by the family's gguf.config.
 * @param {string} fn @param {string} file @param {Map<string, unknown>} meta
 * @param {Map<string, object>} tensors the file's tensors (the vocabulary size, tied embeddings)
 * @param {object} family ggufFamily's
 */
export function ggufConfig(fn, file, meta, tensors, family) {
  const { arch } = family;
  const get = (key) => meta.get(`${arch}.${key}`);
  const need = (key) => {
    const value = get(key);
    if (typeof value !== 'number')
      throw rangeError(fn, `${file}: metadata '${arch}.${key}' is missing or not a number`);
    return value;
  };
  const embeddings = tensors.get('token_embd.weight');
  if (!embeddings || embeddings.dims.length !== 2)
    throw rangeError(fn, `${file} has no 2-D tensor 'token_embd.weight' (the word embeddings)`);
  const heads = need('attention.head_count');
  const kvHeads = get('attention.head_count_kv') ?? heads;
  if (typeof kvHeads !== 'number')
    throw rangeError(
      fn,
      `${file}: metadata '${arch}.attention.head_count_kv' must be one number (per-layer counts are not read)`,
    );
  const d = need('embedding_length');
  const headDim = get('attention.key_length') ?? d / heads;
  const base = {
    architectures: [family.cls],
    model_type: family.modelType,
    vocab_size: embeddings.dims[1],
    tie_word_embeddings: !tensors.has('output.weight'),
    bos_token_id: meta.get('tokenizer.ggml.bos_token_id'),
    eos_token_id: meta.get('tokenizer.ggml.eos_token_id'),
    pad_token_id: meta.get('tokenizer.ggml.padding_token_id'),
  };
  const decoder = () => {
    const config = {
      ...base,
      hidden_size: d,
      intermediate_size: need('feed_forward_length'),
      num_hidden_layers: need('block_count'),
      num_attention_heads: heads,
      num_key_value_heads: kvHeads,
      head_dim: headDim,
      max_position_embeddings: need('context_length'),
      rms_norm_eps: need('attention.layer_norm_rms_epsilon'),
      rope_theta: get('rope.freq_base') ?? 10000,
      hidden_act: 'silu',
      rope_scaling: ropeScalingOf(fn, file, get, tensors),
    };
    // Rotary dimensions narrower than a head (Phi-3's partial_rotary_factor).
    const rotary = get('rope.dimension_count');
    if (typeof rotary === 'number' && rotary !== headDim) config.partial_rotary_factor = rotary / headDim;
    return config;
  };
  return family.config({ base, decoder, get, need, tensors, d, heads });
}

// rope.scaling.* → rope_scaling. Llama 3's scaling is not in the metadata but in a tensor of
// per-pair factors (rope_freqs), and Phi-3's longrope in two (rope_factors_long/short): those
// are read by ropeTensors below, once their bytes are in.
function ropeScalingOf(fn, file, get, tensors) {
  const type = get('rope.scaling.type');
  if (tensors.has('rope_factors_long.weight')) return { type: 'longrope', pending: true };
  if (tensors.has('rope_freqs.weight'))
    return { rope_type: 'llama3', pending: true, original: get('rope.scaling.original_context_length') };
  if (type === undefined || type === 'none') return null;
  if (type === 'linear') return { rope_type: 'linear', factor: get('rope.scaling.factor') };
  throw rangeError(
    fn,
    `${file}: rope scaling '${String(type).slice(0, 40)}' is not supported (linear, Llama 3 and longrope are)`,
  );
}

/** Tensors the config needs read first (rope factors), or []. */
export const ropeTensorNames = (tensors) =>
  ['rope_freqs.weight', 'rope_factors_long.weight', 'rope_factors_short.weight'].filter((n) => tensors.has(n));

/**
 * Completes a pending rope_scaling from its tensors (float32 arrays by name). Llama 3's
 * factors are matched against the scaling transformers computes from factor, low_freq_factor,
 * high_freq_factor and original_max_position_embeddings: the largest factor is `factor`, and
 * Llama 3.1/3.2's 1 and 4, with the original context rope.scaling.original_context_length
 * gives (8192 when absent), must give every factor back; anything else is refused.
 */
export function completeRopeScaling(fn, file, config, factors) {
  const rs = config.rope_scaling;
  if (!rs?.pending) return config;
  if (rs.type === 'longrope') {
    return {
      ...config,
      rope_scaling: {
        type: 'longrope',
        long_factor: Array.from(factors.get('rope_factors_long.weight')),
        short_factor: Array.from(factors.get('rope_factors_short.weight') ?? factors.get('rope_factors_long.weight')),
      },
    };
  }
  const stored = factors.get('rope_freqs.weight');
  const rotary = Math.floor(config.head_dim * (config.partial_rotary_factor ?? 1));
  if (stored.length !== rotary / 2)
    throw rangeError(
      fn,
      `${file}: tensor 'rope_freqs.weight' has ${stored.length} factors; the heads rotate ${rotary / 2} pairs`,
    );
  const factor = Math.max(...stored);
  const guess = {
    rope_type: 'llama3',
    factor,
    low_freq_factor: 1,
    high_freq_factor: 4,
    original_max_position_embeddings: rs.original ?? 8192,
  };
  const expected = llama3Factors(guess, config.rope_theta, rotary);
  if (!expected.every((f, i) => Math.abs(f - stored[i]) <= 1e-6 * f))
    throw rangeError(
      fn,
      `${file}: tensor 'rope_freqs.weight' holds RoPE factors other than Llama 3's (factor ${factor}, low_freq_factor 1, high_freq_factor 4, original context ${guess.original_max_position_embeddings}); they are not read`,
    );
  return { ...config, rope_scaling: guess };
}

// convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors: one factor per rotated pair
// (exported for bench/real-shape-gguf.js, which writes such files).
export function llama3Factors(rs, base, rotary) {
  const lowWavelen = rs.original_max_position_embeddings / rs.low_freq_factor;
  const highWavelen = rs.original_max_position_embeddings / rs.high_freq_factor;
  const out = [];
  for (let i = 0; i < rotary; i += 2) {
    const wavelen = (2 * Math.PI) / base ** (-i / rotary);
    if (wavelen < highWavelen) out.push(1);
    else if (wavelen > lowWavelen) out.push(rs.factor);
    else {
      const smooth =
        (rs.original_max_position_embeddings / wavelen - rs.low_freq_factor) /
        (rs.high_freq_factor - rs.low_freq_factor);
      out.push(1 / ((1 - smooth) / rs.factor + smooth));
    }
  }
  return out;
}

/**
 * The runner's weight kinds → GGUF tensor names (architectures.js's name-map form): llama.cpp's
 * names, with the family's own (fused tensors) over them.
 * @param {object} KIND contract.js weightKinds @param {object} family ggufFamily's
 * @param {object} descriptor architectureOf's
 */
export function ggufNames(KIND, family, descriptor) {
  const b = (l, rest) => `blk.${l}.${rest}`;
  return {
    prefixes: [''],
    [KIND.wordEmbeddings]: () => plain('token_embd.weight'),
    [KIND.positionEmbeddings]: () => plain('position_embd.weight'),
    [KIND.query]: (l) => linear(b(l, 'attn_q.weight')),
    [KIND.queryBias]: (l) => plain(b(l, 'attn_q.bias')),
    [KIND.key]: (l) => linear(b(l, 'attn_k.weight')),
    [KIND.keyBias]: (l) => plain(b(l, 'attn_k.bias')),
    [KIND.value]: (l) => linear(b(l, 'attn_v.weight')),
    [KIND.valueBias]: (l) => plain(b(l, 'attn_v.bias')),
    [KIND.attentionOut]: (l) => linear(b(l, 'attn_output.weight')),
    [KIND.attentionOutBias]: (l) => plain(b(l, 'attn_output.bias')),
    [KIND.norm1Weight]: (l) => plain(b(l, 'attn_norm.weight')),
    [KIND.norm1Bias]: (l) => plain(b(l, 'attn_norm.bias')),
    [KIND.gate]: (l) => linear(b(l, 'ffn_gate.weight')),
    [KIND.up]: (l) => linear(b(l, 'ffn_up.weight')),
    [KIND.upBias]: (l) => plain(b(l, 'ffn_up.bias')),
    [KIND.down]: (l) => linear(b(l, 'ffn_down.weight')),
    [KIND.downBias]: (l) => plain(b(l, 'ffn_down.bias')),
    [KIND.norm2Weight]: (l) => plain(b(l, 'ffn_norm.weight')),
    [KIND.norm2Bias]: (l) => plain(b(l, 'ffn_norm.bias')),
    [KIND.queryNormWeight]: (l) => plain(b(l, 'attn_q_norm.weight')),
    [KIND.keyNormWeight]: (l) => plain(b(l, 'attn_k_norm.weight')),
    [KIND.postAttentionNormWeight]: (l) => plain(b(l, 'post_attention_norm.weight')),
    [KIND.postFfnNormWeight]: (l) => plain(b(l, 'post_ffw_norm.weight')),
    [KIND.finalNormWeight]: () => plain('output_norm.weight'),
    [KIND.finalNormBias]: () => plain('output_norm.bias'),
    // output.weight when the file has one, else the embeddings.
    [KIND.lmDecoder]: () => ({ ...linear('token_embd.weight'), tied: 'output.weight' }),
    ...(family.names?.(KIND, b, descriptor) ?? {}),
  };
}

/**
 * What the converter changed, undone as a tensor's bytes come: returns { type, bytes } as the
 * Hugging Face model holds the tensor (its ggml type kept where the change is a reordering of
 * whole rows, so quantized bytes stay quantized). family: ggufFamily's (permuteQK, normsPlusOne).
 */
export function ggufUndo(family, config) {
  return (name, t, bytes) => {
    const m = /^blk\.\d+\.attn_([qk])\.(weight|bias)$/.exec(name);
    if (family.permuteQK && m) {
      const heads = m[1] === 'q' ? config.num_attention_heads : config.num_key_value_heads;
      return { type: t.type, bytes: unpermuteRows(bytes, t, heads) };
    }
    if (family.normsPlusOne && name.endsWith('norm.weight')) {
      // convert_hf_to_gguf.py stores 1 + w; fl(1 + w) − 1 is exact, and the runner's 1 + that
      // gives fl(1 + w) back, bit for bit.
      const floats = dequantize(t.type, bytes, new Float32Array(t.count));
      for (let i = 0; i < floats.length; i++) floats[i] -= 1;
      return { type: 0, bytes: new Uint8Array(floats.buffer) };
    }
    return { type: t.type, bytes };
  };
}

// LlamaModel.permute reshaped each head's rows [2, half] and swapped the two axes: GGUF row
// 2j + i of a head holds Hugging Face row i·half + j. Whole rows move, in any ggml type.
function unpermuteRows(bytes, t, heads) {
  const rowElements = t.dims.length >= 2 ? t.dims[0] : 1;
  const rows = t.count / rowElements;
  const rowBytes = typeBytes(t.type, rowElements);
  const headDim = rows / heads;
  const halfDim = headDim / 2;
  const out = new Uint8Array(bytes.length);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < halfDim; j++) {
        const from = (h * headDim + 2 * j + i) * rowBytes;
        out.set(bytes.subarray(from, from + rowBytes), (h * headDim + i * halfDim + j) * rowBytes);
      }
  return out;
}

/** Checks the q/k tensors the permutation reads split into whole heads of even width. */
export function checkPermutable(fn, file, tensors, config) {
  for (const [name, t] of tensors) {
    const m = /^blk\.\d+\.attn_([qk])\.(weight|bias)$/.exec(name);
    if (!m) continue;
    const heads = m[1] === 'q' ? config.num_attention_heads : config.num_key_value_heads;
    const rows = t.dims.length >= 2 ? t.count / t.dims[0] : t.count;
    if (rows % (2 * heads) !== 0 || (t.dims.length === 1 && GGML_TYPES[t.type].block !== 1))
      throw rangeError(
        fn,
        `${file}: tensor '${name}' has ${rows} rows, which do not split into ${heads} heads of even width`,
      );
  }
}
