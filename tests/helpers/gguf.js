// A small GGUF writer for hostile files: every count, length and offset can be made to lie.
//   metadata: [{ key, type, value }] (type: 4 uint32, 6 float32, 8 string, 9 array with
//     value { type, items }, or any number with value a Uint8Array of its raw bytes)
//   tensors: [{ name, type, dims, offset?, bytes? }] (offset: the data-section offset; default
//     packed in order at 32-byte alignment)
//   version, tensorCount, kvCount override the header's; stringLength(key) overrides a key's length.
const enc = new TextEncoder();

function u32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

function u64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

const str = (s, length) => {
  const bytes = enc.encode(s);
  return [u64(length ?? bytes.length), bytes];
};

// A value's byte parts (no spreading of an array's items into one call: a vocabulary of 150k
// strings would pass the engine's argument limit).
function valueBytes(type, v) {
  if (v instanceof Uint8Array) return [v];
  if (type === 4) return [u32(v)];
  if (type === 6) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    return [b];
  }
  if (type === 8) return str(v);
  if (type === 9) {
    const parts = [u32(v.type), u64(v.length ?? v.items.length)];
    for (const item of v.items) for (const part of valueBytes(v.type, item)) parts.push(part);
    return parts;
  }
  throw new Error(`helper: value type ${type}`);
}

export function ggufBytes({ version = 3, tensorCount, kvCount, metadata = [], tensors = [] } = {}) {
  const parts = [enc.encode('GGUF'), u32(version), u64(tensorCount ?? tensors.length), u64(kvCount ?? metadata.length)];
  for (const m of metadata) {
    parts.push(...str(m.key), u32(m.type));
    for (const part of valueBytes(m.type, m.value)) parts.push(part);
  }
  let offset = 0;
  const blobs = [];
  for (const t of tensors) {
    const bytes = t.bytes ?? new Uint8Array(0);
    parts.push(...str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(t.offset ?? offset));
    blobs.push(bytes, new Uint8Array((32 - (bytes.length % 32)) % 32));
    offset += bytes.length + ((32 - (bytes.length % 32)) % 32);
  }
  const headLength = parts.reduce((n, p) => n + p.length, 0);
  parts.push(new Uint8Array((32 - (headLength % 32)) % 32), ...blobs);
  return concat(parts);
}

// ---- A Hugging Face decoder folder as convert_hf_to_gguf.py writes it (for the families whose
// fixtures are made here rather than by scripts/make-gguf-fixtures.py: no tokenizer) ----
const DECODER_NAMES = {
  'self_attn.q_proj': 'attn_q',
  'self_attn.k_proj': 'attn_k',
  'self_attn.v_proj': 'attn_v',
  'self_attn.o_proj': 'attn_output',
  'self_attn.qkv_proj': 'attn_qkv',
  'self_attn.q_norm': 'attn_q_norm',
  'self_attn.k_norm': 'attn_k_norm',
  'mlp.gate_proj': 'ffn_gate',
  'mlp.up_proj': 'ffn_up',
  'mlp.gate_up_proj': 'ffn_up',
  'mlp.down_proj': 'ffn_down',
  input_layernorm: 'attn_norm',
  post_attention_layernorm: 'ffn_norm',
};

// LlamaModel.permute: each head's rows [2, half] → [half, 2].
function permuteRows(bytes, rows, heads) {
  const rowBytes = bytes.length / rows;
  const hd = rows / heads;
  const out = new Uint8Array(bytes.length);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < hd / 2; j++)
        out.set(
          bytes.subarray((h * hd + i * (hd / 2) + j) * rowBytes, (h * hd + i * (hd / 2) + j + 1) * rowBytes),
          (h * hd + 2 * j + i) * rowBytes,
        );
  return out;
}

/**
 * @param {string} arch general.architecture @param {object} config config.json
 * @param {Record<string, { shape: number[], bytes: Uint8Array }>} weights readSafetensors'
 * @param {{ metadata?: object[], tensors?: object[] }} [extra] more metadata and F32 tensors
 */
export function decoderGguf(arch, config, weights, extra = {}) {
  const c = config;
  const hd = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  const u32 = (key, value) => ({ key: `${arch}.${key}`, type: 4, value });
  const f32 = (key, value) => ({ key: `${arch}.${key}`, type: 6, value });
  const metadata = [
    { key: 'general.architecture', type: 8, value: arch },
    u32('context_length', c.max_position_embeddings),
    u32('embedding_length', c.hidden_size),
    u32('feed_forward_length', c.intermediate_size),
    u32('block_count', c.num_hidden_layers),
    u32('attention.head_count', c.num_attention_heads),
    u32('attention.head_count_kv', c.num_key_value_heads),
    u32('attention.key_length', hd),
    f32('attention.layer_norm_rms_epsilon', c.rms_norm_eps),
    f32('rope.freq_base', c.rope_theta),
    u32('rope.dimension_count', Math.floor(hd * (c.partial_rotary_factor ?? 1))),
    ...(extra.metadata ?? []),
  ];
  const gemma = arch === 'gemma2' || arch === 'gemma3';
  // Gemma2Model.modify_tensors: every norm weight stored as 1 + w (float32).
  const plusOne = (bytes) =>
    new Uint8Array(Float32Array.from(new Float32Array(bytes.slice().buffer), (w) => w + 1).buffer);
  const names = gemma
    ? {
        ...DECODER_NAMES,
        post_attention_layernorm: 'post_attention_norm',
        pre_feedforward_layernorm: 'ffn_norm',
        post_feedforward_layernorm: 'post_ffw_norm',
      }
    : DECODER_NAMES;
  const tensors = [];
  const add = (name, { shape, bytes }) =>
    tensors.push({
      name,
      type: 0,
      dims: [...shape].reverse(),
      bytes: gemma && name.endsWith('norm.weight') ? plusOne(bytes) : bytes,
    });
  add('token_embd.weight', weights['model.embed_tokens.weight']);
  for (const [name, t] of Object.entries(weights)) {
    const m = /^model\.layers\.(\d+)\.(.+)\.(weight|bias)$/.exec(name);
    if (!m) continue;
    const g = names[m[2]];
    let { bytes } = t;
    if (arch === 'llama' && (g === 'attn_q' || g === 'attn_k'))
      bytes = permuteRows(bytes, t.shape[0], g === 'attn_q' ? c.num_attention_heads : c.num_key_value_heads);
    add(`blk.${m[1]}.${g}.${m[3]}`, { shape: t.shape, bytes });
  }
  add('output_norm.weight', weights['model.norm.weight']);
  if (weights['lm_head.weight']) add('output.weight', weights['lm_head.weight']);
  for (const t of extra.tensors ?? []) tensors.push(t);
  return ggufBytes({ metadata, tensors });
}

// ---- Editing a GGUF file's metadata (read here with its own walker, not the reader under test) ----
const FIXED = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

// The byte length of a metadata value of `type` at `at`.
function valueLength(view, type, at) {
  if (type in FIXED) return FIXED[type];
  if (type === 8) return 8 + Number(view.getBigUint64(at, true));
  if (type === 9) {
    const inner = view.getUint32(at, true);
    const n = Number(view.getBigUint64(at + 4, true));
    let length = 12;
    for (let i = 0; i < n; i++) length += valueLength(view, inner, at + length);
    return length;
  }
  throw new Error(`helper: metadata type ${type}`);
}

/**
 * The file with metadata `key` set to `value` (a string; a number is written as a uint32, or
 * { float32: x } as a float32; undefined removes it): the header rewritten, the data section
 * moved whole.
 * @param {Uint8Array} bytes @param {string} key @param {string | number | { float32: number } | undefined} value
 */
export function ggufWithString(bytes, key, value) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kvCount = Number(view.getBigUint64(16, true));
  let at = 24;
  const entries = [];
  for (let i = 0; i < kvCount; i++) {
    const begin = at;
    const keyLength = Number(view.getBigUint64(at, true));
    const name = new TextDecoder().decode(bytes.subarray(at + 8, at + 8 + keyLength));
    at += 8 + keyLength;
    const type = view.getUint32(at, true);
    at += 4 + valueLength(view, type, at + 4);
    entries.push({ name, bytes: bytes.subarray(begin, at) });
  }
  const tensorCount = Number(view.getBigUint64(8, true));
  const infosBegin = at;
  for (let i = 0; i < tensorCount; i++) {
    at += 8 + Number(view.getBigUint64(at, true));
    const dims = view.getUint32(at, true);
    at += 4 + 8 * dims + 4 + 8;
  }
  const infos = bytes.subarray(infosBegin, at);
  const data = bytes.subarray(Math.ceil(at / 32) * 32);
  const kept = entries.filter((e) => e.name !== key).map((e) => e.bytes);
  if (value !== undefined) {
    const entry =
      typeof value === 'number'
        ? [...str(key), u32(4), u32(value)]
        : typeof value === 'object'
          ? [...str(key), u32(6), ...valueBytes(6, value.float32)]
          : [...str(key), u32(8), ...str(value)];
    kept.push(concat(entry));
  }
  const head = concat([bytes.subarray(0, 16), u64(kept.length), ...kept, infos]);
  return concat([head, new Uint8Array((32 - (head.length % 32)) % 32), data]);
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
