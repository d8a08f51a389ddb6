// The small open models of 2026 as checkpoints of their exact shapes (bench/real-shapes.js in
// Node, bench/browser-real-shapes.js in a Chromium tab): config.json as the Hub serves it and
// seeded random BF16 weights of the exact tensor names and shapes; and the row both measure.

// config.json of each model as the Hub serves it (the keys the loader reads).
export const CONFIGS = {
  'SmolLM2-360M': {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: 960,
    intermediate_size: 2560,
    num_hidden_layers: 32,
    num_attention_heads: 15,
    num_key_value_heads: 5,
    vocab_size: 49152,
    max_position_embeddings: 8192,
    rms_norm_eps: 1e-5,
    rope_theta: 100000,
    hidden_act: 'silu',
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  },
  'Qwen2.5-0.5B': {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: 896,
    intermediate_size: 4864,
    num_hidden_layers: 24,
    num_attention_heads: 14,
    num_key_value_heads: 2,
    vocab_size: 151936,
    max_position_embeddings: 32768,
    max_window_layers: 21,
    rms_norm_eps: 1e-6,
    rope_theta: 1000000,
    sliding_window: 32768,
    use_sliding_window: false,
    hidden_act: 'silu',
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  },
  'Qwen3-0.6B': {
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    hidden_size: 1024,
    intermediate_size: 3072,
    num_hidden_layers: 28,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    head_dim: 128,
    vocab_size: 151936,
    max_position_embeddings: 40960,
    rms_norm_eps: 1e-6,
    rope_theta: 1000000,
    attention_bias: false,
    hidden_act: 'silu',
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  },
  'TinyLlama-1.1B': {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: 2048,
    intermediate_size: 5632,
    num_hidden_layers: 22,
    num_attention_heads: 32,
    num_key_value_heads: 4,
    vocab_size: 32000,
    max_position_embeddings: 2048,
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
    hidden_act: 'silu',
    tie_word_embeddings: false,
    torch_dtype: 'bfloat16',
  },
  'Llama-3.2-1B': {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: 2048,
    intermediate_size: 8192,
    num_hidden_layers: 16,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 64,
    vocab_size: 128256,
    max_position_embeddings: 131072,
    rms_norm_eps: 1e-5,
    rope_theta: 500000,
    rope_scaling: {
      factor: 32,
      high_freq_factor: 4,
      low_freq_factor: 1,
      original_max_position_embeddings: 8192,
      rope_type: 'llama3',
    },
    hidden_act: 'silu',
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  },
  'Gemma-3-1B': {
    architectures: ['Gemma3ForCausalLM'],
    model_type: 'gemma3_text',
    hidden_size: 1152,
    intermediate_size: 6912,
    num_hidden_layers: 26,
    num_attention_heads: 4,
    num_key_value_heads: 1,
    head_dim: 256,
    vocab_size: 262144,
    max_position_embeddings: 32768,
    query_pre_attn_scalar: 256,
    rms_norm_eps: 1e-6,
    rope_theta: 1000000,
    rope_local_base_freq: 10000,
    sliding_window: 512,
    sliding_window_pattern: 6,
    hidden_activation: 'gelu_pytorch_tanh',
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  },
};

// The tensors of a decoder of the Llama layout (the names architectures.js reads), with the
// family's extras: Qwen2's q/k/v biases, Qwen3's and Gemma 3's q/k norms, Gemma's sandwich.
export function tensorsOf(c) {
  const d = c.hidden_size,
    hd = c.head_dim ?? d / c.num_attention_heads,
    q = c.num_attention_heads * hd,
    kv = c.num_key_value_heads * hd,
    f = c.intermediate_size;
  const t = { 'model.embed_tokens.weight': [c.vocab_size, d], 'model.norm.weight': [d] };
  if (!c.tie_word_embeddings) t['lm_head.weight'] = [c.vocab_size, d];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    Object.assign(t, {
      [`${p}self_attn.q_proj.weight`]: [q, d],
      [`${p}self_attn.k_proj.weight`]: [kv, d],
      [`${p}self_attn.v_proj.weight`]: [kv, d],
      [`${p}self_attn.o_proj.weight`]: [d, q],
      [`${p}mlp.gate_proj.weight`]: [f, d],
      [`${p}mlp.up_proj.weight`]: [f, d],
      [`${p}mlp.down_proj.weight`]: [d, f],
      [`${p}input_layernorm.weight`]: [d],
      [`${p}post_attention_layernorm.weight`]: [d],
    });
    if (c.model_type === 'qwen2')
      Object.assign(t, {
        [`${p}self_attn.q_proj.bias`]: [q],
        [`${p}self_attn.k_proj.bias`]: [kv],
        [`${p}self_attn.v_proj.bias`]: [kv],
      });
    if (c.model_type === 'qwen3' || c.model_type === 'gemma3_text')
      Object.assign(t, { [`${p}self_attn.q_norm.weight`]: [hd], [`${p}self_attn.k_norm.weight`]: [hd] });
    if (c.model_type === 'gemma3_text')
      Object.assign(t, {
        [`${p}pre_feedforward_layernorm.weight`]: [d],
        [`${p}post_feedforward_layernorm.weight`]: [d],
      });
  }
  return t;
}

// A BF16 safetensors file of seeded values (small, so nothing overflows), written once.
export function safetensorsOf(shapes) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    const bytes = 2 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const text = new TextEncoder().encode(
    JSON.stringify(header).padEnd(8 * Math.ceil(JSON.stringify(header).length / 8)),
  );
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setUint32(0, text.length, true);
  out.set(text, 8);
  // bfloat16 bits of values in ±0.02: sign, exponent 0x79 or 0x78, a seeded mantissa.
  const values = new Uint16Array(out.buffer, 8 + text.length, offset / 2);
  let s = 12345;
  for (let i = 0; i < values.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    values[i] = ((s >>> 31) << 15) | ((0x78 + ((s >>> 30) & 1)) << 7) | ((s >>> 8) & 0x7f);
  }
  return out;
}

const MiB = 2 ** 20;

/**
 * Loads one checkpoint (any loadModel source) and measures it: load time, the weights in wasm,
 * the peak heap, a 16-token prefill and 8 cached decode steps after it. A refusal is a row too.
 */
export async function measureRealShape(attn, name, source, dtype, fileBytes) {
  const row = { model: name, 'file (MiB)': (fileBytes / MiB).toFixed(0) };
  try {
    let t = performance.now();
    const model = await attn.loadModel(source, { dtype });
    row['load (s)'] = ((performance.now() - t) / 1000).toFixed(1);
    row['weights in wasm (MiB)'] = (model.parameterBytes / MiB).toFixed(0);
    row['peak heap (MiB)'] = (attn.memory().peakBytes / MiB).toFixed(0);
    row['matrices'] = Object.entries(model.matrixStorages)
      .map(([storage, count]) => `${count} ${storage}`)
      .join(', ');
    const prompt = Array.from({ length: 16 }, (_, i) => 100 + i);
    t = performance.now();
    model.forward([prompt]);
    row['prefill 16 (ms)'] = (performance.now() - t).toFixed(0);
    // Decode: from the first new token (the prefill's) to the last, 8 cached steps.
    let first = 0;
    const { newIds } = await model.generate(prompt, {
      maxNewTokens: 9,
      stopAtEos: false,
      onToken: ({ index }) => {
        if (index === 0) first = performance.now();
      },
    });
    row['decode (ms/token)'] = ((performance.now() - first) / (newIds.length - 1)).toFixed(0);
    row['tokens'] = newIds.join(' ');
    model.dispose();
  } catch (error) {
    row['refused'] = String(error?.stack ?? error).slice(0, 400);
  }
  return row;
}

/** A markdown table of every key any row has. */
export function realShapeTable(rows) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return [
    `| ${keys.join(' | ')} |`,
    `|${keys.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${keys.map((k) => r[k] ?? '').join(' | ')} |`),
  ].join('\n');
}
