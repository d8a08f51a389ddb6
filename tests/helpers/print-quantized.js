// Prints, as JSON, sha256 digests of quantized products for one build (a child process, so the
// relaxed build can run in Node with its flag):
//   node --experimental-wasm-relaxed-simd tests/helpers/print-quantized.js relaxed
// { kernels: the module's own Q8_0 / Q4_0 products and Q4_K / Q6_K ones of random GGUF blocks
//   (baseline and relaxed builds),
//   model: a synthetic Llama's logits with Q8_0 and Q4_0 matrices, and a GGUF one in Q4_K and
//   Q6_K blocks }. The model is big enough
// (d = 256, d_ff = 1024, 40 tokens) that its products pass the threshold where they are split
// over threads ('threads': two threads, the baseline kernels).
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';
import { contractOf } from '../../bindings/js/contract.js';
import { HeapScope, views } from '../../bindings/js/heap.js';
import { writeSafetensors } from './safetensors.js';
import { rng } from './assert.js';
import { digests } from './digests.js';
import { ggufBytes } from './gguf.js';
import { halfBits, roundToHalf } from './quantized-reference.js';

const build = process.argv[2] ?? 'baseline';
const attn = await init(build === 'threads' ? { simd: 'baseline', threads: 2 } : { simd: build });
if (build === 'threads' && attn.info.threads !== 2) throw new Error(`no threads: ${JSON.stringify(attn.info)}`);

const d = 256,
  f = 1024,
  vocab = 512,
  layers = 2;
const config = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: vocab,
  hidden_size: d,
  intermediate_size: f,
  num_hidden_layers: layers,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  hidden_act: 'silu',
  max_position_embeddings: 128,
  rms_norm_eps: 1e-6,
  tie_word_embeddings: false,
};
const random = rng(314);
const tensor = (shape, scale = 0.08) => ({
  shape,
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b) }, () => random(-scale, scale)),
});
const tensors = { 'model.embed_tokens.weight': tensor([vocab, d], 1), 'model.norm.weight': tensor([d], 1) };
for (let l = 0; l < layers; l++) {
  const p = `model.layers.${l}.`;
  Object.assign(tensors, {
    [`${p}self_attn.q_proj.weight`]: tensor([d, d]),
    [`${p}self_attn.k_proj.weight`]: tensor([d / 2, d]),
    [`${p}self_attn.v_proj.weight`]: tensor([d / 2, d]),
    [`${p}self_attn.o_proj.weight`]: tensor([d, d]),
    [`${p}mlp.gate_proj.weight`]: tensor([f, d]),
    [`${p}mlp.up_proj.weight`]: tensor([f, d]),
    [`${p}mlp.down_proj.weight`]: tensor([d, f]),
    [`${p}input_layernorm.weight`]: tensor([d], 1),
    [`${p}post_attention_layernorm.weight`]: tensor([d], 1),
  });
}
tensors['lm_head.weight'] = tensor([vocab, d]);
const files = {
  'config.json': new TextEncoder().encode(JSON.stringify(config)),
  'model.safetensors': writeSafetensors(tensors),
};
const ids = Array.from({ length: 40 }, (_, i) => (i * 37 + 5) % vocab);
const parts = [];
for (const dtype of ['q8', 'q4']) {
  const model = await attn.loadModel(files, { dtype });
  parts.push([`${dtype} prefill`, model.forward([ids]).logits.data]);
  parts.push([`${dtype} one token`, model.forward([ids.slice(0, 1)]).logits.data]);
  model.dispose();
}

// `count` weights of random K-quant super-blocks (Q4_K: 144 bytes, Q6_K: 210), their float16
// scales small positive normals.
function kQuantBytes(type, count) {
  const size = type === 'q4_k' ? 144 : 210;
  const out = Uint8Array.from({ length: (count / 256) * size }, () => Math.floor(random(0, 256)));
  const setHalf = (at, value) => {
    const bits = halfBits(roundToHalf(value));
    out[at] = bits & 0xff;
    out[at + 1] = bits >> 8;
  };
  for (let at = 0; at < out.length; at += size) {
    if (type === 'q4_k') (setHalf(at, 2e-3 * random(0.5, 1.5)), setHalf(at + 2, 1e-3 * random(0.5, 1.5)));
    else setHalf(at + 208, 1e-3 * random(0.5, 1.5));
  }
  return out;
}

// The same Llama as a GGUF file (a Q4_K_M-like mix: Q6_K down projections and output).
function kQuantGguf() {
  const Q4_K = 12,
    Q6_K = 14;
  const u32 = (key, value) => ({ key: `llama.${key}`, type: 4, value });
  const matrix = (name, inner, rows, type) => ({
    name,
    type,
    dims: [inner, rows],
    bytes: kQuantBytes(type === Q4_K ? 'q4_k' : 'q6_k', inner * rows),
  });
  const norm = (name) => ({ name, type: 0, dims: [d], bytes: new Uint8Array(tensor([d], 1).data.buffer) });
  const tensors = [matrix('token_embd.weight', d, vocab, Q4_K), norm('output_norm.weight')];
  for (let l = 0; l < layers; l++) {
    tensors.push(
      matrix(`blk.${l}.attn_q.weight`, d, d, Q4_K),
      matrix(`blk.${l}.attn_k.weight`, d, d / 2, Q4_K),
      matrix(`blk.${l}.attn_v.weight`, d, d / 2, Q6_K),
      matrix(`blk.${l}.attn_output.weight`, d, d, Q4_K),
      matrix(`blk.${l}.ffn_gate.weight`, d, f, Q4_K),
      matrix(`blk.${l}.ffn_up.weight`, d, f, Q4_K),
      matrix(`blk.${l}.ffn_down.weight`, f, d, Q6_K),
      norm(`blk.${l}.attn_norm.weight`),
      norm(`blk.${l}.ffn_norm.weight`),
    );
  }
  tensors.push(matrix('output.weight', d, vocab, Q6_K));
  const metadata = [
    { key: 'general.architecture', type: 8, value: 'llama' },
    u32('context_length', 128),
    u32('embedding_length', d),
    u32('feed_forward_length', f),
    u32('block_count', layers),
    u32('attention.head_count', 4),
    u32('attention.head_count_kv', 2),
    { key: 'llama.attention.layer_norm_rms_epsilon', type: 6, value: 1e-6 },
    { key: 'llama.rope.freq_base', type: 6, value: 10000 },
    u32('rope.dimension_count', d / 4),
  ];
  return ggufBytes({ metadata, tensors });
}
{
  const model = await attn.loadModel(kQuantGguf());
  if (model.matrixDtype !== 'q4_k') throw new Error(`the K-quant model loaded as ${model.matrixDtype}`);
  parts.push(['q4_k/q6_k prefill', model.forward([ids]).logits.data]);
  parts.push(['q4_k/q6_k one token', model.forward([ids.slice(0, 1)]).logits.data]);
  model.dispose();
}

// The kernels alone, through the module's test exports.
async function kernelParts() {
  if (build === 'threads') return [];
  const name = build === 'relaxed' ? 'attention-relaxed' : 'attention';
  const { default: createModule } = await import(`../../dist/${name}.js`);
  const module = await createModule({ wasmBinary: readFileSync(new URL(`../../dist/${name}.wasm`, import.meta.url)) });
  const storages = contractOf(module).matrixStorages;
  // Q8_0 and Q4_0 quantized from floats, Q4_K and Q6_K repacked from random GGUF blocks.
  const kinds = [
    ['q8', storages.kQ8_0, 200],
    ['q4', storages.kQ4_0, 200],
    ['q4_k', storages.kQ4_K, 768],
    ['q6_k', storages.kQ6_K, 768],
  ];
  const out = [];
  for (const [storage, code, longInner] of kinds)
    for (const [rows, inner, cols] of [
      [1, 512, 36],
      [13, longInner, 21],
    ]) {
      const scope = new HeapScope(module, 'test');
      try {
        const wq = scope.allocBytes(module._quantBytes(code, inner, cols));
        if (storage === 'q8' || storage === 'q4') {
          const w = tensor([inner, cols], 1).data;
          module._quantizeMatrix(scope.floats(w), cols, false, inner, cols, code, wq);
        } else {
          const blocks = kQuantBytes(storage, inner * cols);
          const src = scope.allocBytes(blocks.length);
          views(module).HEAPU8.set(blocks, src);
          module._packGgmlBlocks(src, inner, cols, code, wq);
        }
        const a = tensor([rows, inner], 3).data;
        const o = scope.alloc(rows * cols);
        if (module._multiplyQuantized(scope.floats(a), rows, inner, wq, code, 0, cols, o) !== 0)
          throw new Error('status');
        out.push([
          `${storage} ${rows}×${inner}×${cols}`,
          views(module).HEAPF32.slice(o >>> 2, (o >>> 2) + rows * cols),
        ]);
      } finally {
        scope.release();
      }
    }
  return out;
}
process.stdout.write(JSON.stringify({ kernels: digests(await kernelParts()), model: digests(parts) }));
