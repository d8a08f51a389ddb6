// The attention sub-layer of a pretrained model's block: projections (weights as panels),
// per-head RMS norms of queries and keys (Qwen3, Gemma 3), rotary position embedding on the
// queries and keys (Llama), an optional key/value cache
// the new keys and values are appended to in place (generation), grouped-query heads, and
// the output projection.
//
// Shapes: B sequences of T new tokens, rows = B·T, d = d_model, qw = num_heads·head_dim,
// kv = num_kv_heads·head_dim;
// with a cache of `past` tokens the new queries see past + T keys, bottom-right causal
// (query t sits at position past + t).
//
// A cache stores float32, bfloat16, float16 or q8_0 (LayerCache::storage). With a half or q8_0
// cache the new keys and values are rounded (halves to nearest even, q8_0 by blocks of 32 of a
// row) as they are appended, and attention reads every key and value from the cache, the new
// ones included: a call sees exactly the numbers the later calls will see, so a prompt run
// through the cache in one call, in chunks, or token by token, gives the same keys and values
// (each rounded once). keep_k holds the keys before rounding. Attention reads a q8_0 cache's
// blocks where they lie when its rows are whole blocks (kv a multiple of 32); else the rows a
// call attends over are dequantized into float32 scratch first.
#ifndef ATTENTION_WASM_SRC_MODEL_SELF_ATTENTION_H_
#define ATTENTION_WASM_SRC_MODEL_SELF_ATTENTION_H_

#include <cstdint>

#include "buffer.h"
#include "kernels/kv_storage.h"
#include "kernels/matmul.h"
#include "model/trace.h"
#include "status.h"

namespace attn {

// One layer's attention weights, resolved once when the model is made (runner.h).
struct AttentionWeights {
  Panels wq;                      // panels of [d, qw]
  Panels wk;                      // panels of [d, kv]
  Panels wv;                      // panels of [d, kv]
  Panels wo;                      // panels of [qw, d]
  const float* bq = nullptr;      // [qw] or null
  const float* bk = nullptr;      // [kv] or null
  const float* bv = nullptr;      // [kv] or null
  const float* bo = nullptr;      // [d] or null
  const float* q_norm = nullptr;  // [head_dim] RMS norm weights of every query head, or null
  const float* k_norm = nullptr;  // [head_dim] of every key head, or null
};

// Hugging Face's rope_scaling of the frequencies (modeling_rope_utils.py): none, 'linear'
// (every frequency divided by factor), 'llama3' (low frequencies divided by factor, high
// ones kept, a smooth blend between, by wavelength against original_max / low_freq_factor and
// original_max / high_freq_factor) or 'longrope' (Phi-3: frequency i divided by factors[i],
// cos and sin multiplied by attention_factor).
// (The list makes the enum and the table the bindings export to JS.)
#define ATTN_ROPE_SCALINGS(X) X(kNone, 0) X(kLinear, 1) X(kLlama3, 2) X(kLongRope, 3)
enum class RopeScaling : int {
#define ATTN_ROPE_SCALING_ENUMERATOR(name, value) name = value,
  ATTN_ROPE_SCALINGS(ATTN_ROPE_SCALING_ENUMERATOR)
#undef ATTN_ROPE_SCALING_ENUMERATOR
};

struct RotarySpec {
  int dim = 0;               // rotated columns of each head (0: no rotary embedding)
  double base = 10000.0;     // θ: pair i turns by position · base^(-2i/dim)
  bool interleaved = false;  // pairs (2i, 2i+1); else halves (i, i + dim/2) as Llama's rotate_half
  RopeScaling scaling = RopeScaling::kNone;
  double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;  // rope_scaling's
  int original_max = 8192;         // rope_scaling's original_max_position_embeddings (llama3)
  const float* factors = nullptr;  // longrope: [dim / 2] divisors (short or long, per call)
  double attention_factor = 1.0;   // longrope: cos and sin × this
};

// The frequency of pair i of `spec` (base^(-2i/dim), then rope_scaling), in double.
double RotaryFrequency(const RotarySpec& spec, int i);

// One layer's cache (a view; the runner owns the memory): keys and values of every position
// so far, head-major: each key/value head's rows lie one after another (a decode step reads
// each head's keys as one stream, which the prefetchers follow; position-major rows had a
// head's 128 bytes of bfloat16 every 384), w = CacheRowWidth(storage, num_kv_heads, head_dim)
// elements a row, kv / w such slices a sequence:
//   k, v (float32) or k16, v16 (bfloat16/float16): [batch, kv / w, capacity, w]
//   kq, vq (q8_0): [batch, kv / w, capacity, KvRowBytes(kQ8_0, w)] bytes
// The width of a cache row: one head (head_dim), or, for a q8_0 cache whose heads are not whole
// blocks of 32, the whole key/value row (num_kv_heads · head_dim, position-major, as llama.cpp
// quantizes it: its blocks may span two heads).
inline int CacheRowWidth(KvStorage storage, int num_kv_heads, int head_dim) {
  return storage == KvStorage::kQ8_0 && head_dim % kKvQ8Block != 0 ? num_kv_heads * head_dim
                                                                   : head_dim;
}

// Bytes of one position's keys (or values) in such a cache: its kv / w rows of w elements.
inline uint64_t CachePositionBytes(KvStorage storage, int num_kv_heads, int head_dim) {
  const int w = CacheRowWidth(storage, num_kv_heads, head_dim);
  return static_cast<uint64_t>(num_kv_heads * head_dim / w) * KvRowBytes(storage, w);
}

struct LayerCache {
  KvStorage storage = KvStorage::kFloat32;
  float* k = nullptr;
  float* v = nullptr;
  uint16_t* k16 = nullptr;
  uint16_t* v16 = nullptr;
  uint8_t* kq = nullptr;
  uint8_t* vq = nullptr;
};

struct SelfAttentionCall {
  const float* x = nullptr;            // [rows, d] the sub-layer's input
  const int32_t* positions = nullptr;  // [rows] rotary positions (with RotarySpec::dim > 0)
  const int32_t* lengths = nullptr;    // [B] real tokens per sequence (no cache), or null
  int batch = 0;
  int len = 0;  // T new tokens per sequence
  int d_model = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  float scale = 0.0f;     // scores = q·k·scale
  float softcap = 0.0f;   // > 0: scores become softcap·tanh(s/softcap) before the mask
  float norm_eps = 0.0f;  // the q/k norms' (with AttentionWeights::q_norm)
  bool causal = false;
  bool qk_norm_full_width = false;  // the q/k norms over each token's whole row (OLMo 2)
  int window_left = -1;  // >= 0: a query sees at most this many keys before its own; -1: all
                         // (not causal: as many after it too, EmbeddingGemma's |i - j| < window)
  RotarySpec rotary;
  const LayerCache* cache = nullptr;  // null: no cache; else append at `past`
  int past = 0;
  int capacity = 0;
  float* out = nullptr;                // [rows, d]
  float* attention_weights = nullptr;  // [B, H, T, past + T] or null (then the fused kernel)
  // Copies of this call's queries [rows, qw] and new keys [rows, kv] after the rotary
  // embedding (the neuron view shows how q·k builds each score), or null.
  float* keep_q = nullptr;
  float* keep_k = nullptr;
  // One row's path (a single sequence, no cache; runner trace), or null.
  const AttentionTrace* trace = nullptr;
};

// Runs the sub-layer. kOutOfMemory when scratch cannot be had (nothing else is checked:
// the runner checked the call).
Status SelfAttentionForward(const SelfAttentionCall& call, const AttentionWeights& weights);

// Bytes of scratch SelfAttentionForward allocates, at most.
uint64_t SelfAttentionScratchBytes(const SelfAttentionCall& call);

// Rotates each head's first spec.dim columns of x in place by its row's position.
//   x: [rows, heads · head_dim]   positions: [rows]
void ApplyRotary(float* x, int rows, int heads, int head_dim, const int32_t* positions,
                 const RotarySpec& spec);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_SELF_ATTENTION_H_
