// The forward pass of a pretrained transformer, for any ModelDescriptor (issue 21):
// embeddings → num_layers blocks (multi-head attention and a feed-forward network, each with
// its residual and norm, before or after) → final norm → LM head. The weights live in one
// buffer, the matrices packed as panels once, when loaded (SetWeight); a forward pass packs
// nothing. For generation a key/value cache holds every layer's keys and values: a call with
// `use_cache` appends its tokens' and attends over all of them. The cache stores float32, or
// bfloat16 / float16 at half the bytes, or q8_0 at 34 bytes per 32 (rounded when appended,
// read back exactly as stored; the rule in self_attention.h). A call with the cache runs its tokens in chunks of
// kPrefillChunk positions (runner_chunks.cc), so a prompt's activations take the same memory
// at any length and nothing proportional to T² or T × V is made unless the call asks for it.
//
// Shapes: B sequences of T tokens (right-padded; lengths give the real ones), rows = B·T,
// d = d_model, H = num_heads, V = vocab_size.
#ifndef ATTENTION_WASM_SRC_MODEL_RUNNER_H_
#define ATTENTION_WASM_SRC_MODEL_RUNNER_H_

#include <cstdint>

#include "buffer.h"
#include "model/descriptor.h"
#include "model/self_attention.h"
#include "model/trace.h"
#include "model/weights.h"
#include "status.h"

namespace attn {

// A norm's weights γ and β (β null for RMS norms).
struct NormWeights {
  const float* weight = nullptr;
  const float* bias = nullptr;
};

// One block's weights, resolved from the table once, when the model is allocated (gemma.cpp's
// LayerWeightsPtrs): a forward pass looks nothing up.
struct LayerWeights {
  AttentionWeights attention;
  NormWeights norm1;               // before attention (pre-norm) or after its residual (post-norm)
  NormWeights post_attention;      // on the attention's output (post_norms)
  NormWeights norm2;               // before the FFN (pre-norm) or after its residual (post-norm)
  NormWeights post_ffn;            // on the FFN's output (post_norms)
  Panels gate, up, down;           // [d, d_ff], [d, d_ff], [d_ff, d]
  const float* up_bias = nullptr;  // [d_ff] or null
  const float* down_bias = nullptr;  // [d] or null
};

// The model-wide weights, likewise.
struct GlobalWeights {
  const float* words = nullptr;      // [V, d]
  QuantMatrix words_quant;           // or, with quantized matrices, [d, V] blocks
  const float* positions = nullptr;  // [max_positions, d] or null
  const float* types = nullptr;      // [type_vocab_size, d] or null
  NormWeights embedding_norm, final_norm, lm_norm;
  Panels lm_transform, lm_decoder;           // [d, d], [d, V]
  const float* lm_transform_bias = nullptr;  // [d]
  const float* lm_bias = nullptr;            // [V] or null
};

// How one block attends: its window and its rotary embedding (Gemma's local layers differ
// from its global ones in both).
struct LayerSpec {
  int window_left = -1;  // >= 0: keys at most this many before the query's own; -1: all
  RotarySpec rotary;
};

// Positions per sequence a cached call runs at once: a longer call runs in chunks of this
// many, each appended to the cache before the next attends over it (llama.cpp's ubatch), when
// it keeps nothing per position (hidden states, attention maps, queries and keys, or logits
// of every row). Then output() holds the last chunk's rows only.
constexpr int kPrefillChunk = 512;

struct ModelInput {
  const int32_t* ids = nullptr;          // [B, T], each in [0, V)
  const int32_t* positions = nullptr;    // [B, T], each in [0, max_positions) (if any table)
  const int32_t* token_types = nullptr;  // [B, T] in [0, type_vocab_size), or null: all 0
  const int32_t* lengths = nullptr;      // [B] in [1, T], or null: every token is real
  int batch = 0;
  int len = 0;
  bool hidden_states = false;     // keep every layer's output
  bool attentions = false;        // keep every layer's attention weights (the step-by-step path)
  bool logits = true;             // run the LM head (when the descriptor has one)
  bool last_logits_only = false;  // the LM head on each sequence's last real token only
  bool use_cache = false;         // append to the cache (ReserveCache first); lengths must be null
  int keep_qk_layer = -1;         // >= 0: keep that layer's queries and keys (queries(), keys())
  int trace_position = -1;  // >= 0: trace that position's path (trace(); one sequence, no cache)
};

class PretrainedModel {
 public:
  // Call CheckDescriptor first; then Allocate().
  explicit PretrainedModel(const ModelDescriptor& descriptor);
  PretrainedModel(const PretrainedModel&) = delete;
  PretrainedModel& operator=(const PretrainedModel&) = delete;

  // The parameter buffer (zeros) and the weight table. False when out of memory.
  [[nodiscard]] bool Allocate();

  const ModelDescriptor& descriptor() const { return m_; }
  int weight_count() const { return static_cast<int>(table_.size()); }
  const WeightEntry& weight(int index) const { return table_[index]; }
  uint64_t parameter_floats() const { return params_.size(); }

  // Fills table entry `index` from src, a [rows, cols] tensor with row stride src_stride
  // (transposed: src is [cols, rows], as PyTorch's nn.Linear stores a weight [out, in]),
  // of float32 or (src_bf16) bfloat16 elements. A bfloat16 matrix entry takes bfloat16 only
  // (packed as it is); a float32 matrix takes float32; a quantized one either (quantized as
  // ggml's reference quantizers do); vectors and tables either (bfloat16 widened).
  // kBadArgument for a bad index, panels of the other precision, or a K-quant entry (filled
  // from a file's blocks only).
  Status SetWeight(int index, const void* src, bool src_bf16, int src_stride, bool transposed);

  // Fills quantized matrix entry `index` from a GGUF tensor's blocks, bit for bit: the
  // weight's [cols] rows of GGUF blocks (quantized.h, GgmlBlockBytes). kBadArgument
  // unless the entry is a matrix of that storage with rows a multiple of its GGUF block (32, or
  // a K-quant's 256).
  Status SetQuantizedWeight(int index, const uint8_t* blocks, MatrixStorage storage);

  // A key/value cache for `batch` sequences of up to `capacity` tokens, emptied, its elements
  // stored as `storage`. False when its bytes pass kMaxBufferBytes or memory runs out (the
  // model keeps no cache then).
  //   keys, values: [num_layers, batch, capacity · CachePositionBytes] bytes each, every layer's
  //   head-major (self_attention.h's LayerCache)
  [[nodiscard]] bool ReserveCache(int batch, int capacity, KvStorage storage = KvStorage::kFloat32);
  void DropCache();  // frees it
  int cache_length() const { return cache_length_; }
  int cache_capacity() const { return cache_capacity_; }
  KvStorage cache_storage() const { return cache_storage_; }
  // Bytes the cache's keys and values take (0 without a cache).
  uint64_t cache_bytes() const { return cache_bytes_; }
  // Forgets the last `count` cached positions (count <= cache_length()).
  void TruncateCache(int length) { cache_length_ = length; }

  // Runs the model; the outputs below are then valid until the next call. A call refused
  // midway (kOutOfMemory) in chunks leaves the chunks that ran in the cache.
  Status Forward(const ModelInput& input);
  // [num_layers + 1, rows, d]: the embeddings, then each block's output; the last is after
  // the final norm when there is one (as Hugging Face reports them).
  const float* hidden_states() const { return hidden_.data(); }
  // [rows, d] the last hidden state (in chunks: [B, the last chunk's T, d])
  const float* output() const { return output_; }
  // [num_layers, B, H, T, S] with S = T, or past + T with the cache
  const float* attentions() const { return attn_.data(); }
  // [rows, V], or [B, V] with last_logits_only
  const float* logits() const { return logits_.data(); }
  // With keep_qk_layer: that layer's queries [rows, qw] and keys [rows, kv], rotary applied.
  const float* queries() const { return q_keep_.data(); }
  const float* keys() const { return k_keep_.data(); }
  // With trace_position: the trace (trace.h), [TraceFloats(descriptor, T)].
  const float* trace() const { return trace_.data(); }

  // Frees the outputs and the activations (the caller has read what it wanted): a model
  // between calls holds only its weights.
  void ReleaseOutputs();

  // Bytes Forward allocates for these sizes at its peak, at most.
  uint64_t ForwardBytes(const ModelInput& input) const;

 private:
  Status CheckInput(const ModelInput& input) const;
  // Whether a call runs in chunks of kPrefillChunk positions, and its positions at once.
  bool Chunked(const ModelInput& input) const;
  int LenAtOnce(const ModelInput& input) const;
  Status ForwardInChunks(const ModelInput& input, bool long_rope);
  Status ForwardRows(const ModelInput& input, bool long_rope);
  void ResolveWeights();
  bool LongRope(const ModelInput& input) const;
  void WordRow(int32_t id, float* row) const;
  void Embed(const ModelInput& input, float* x) const;
  void Norm(const NormWeights& weights, const float* x, int rows, float* out) const;
  void ScaleResidual(float* sub, size_t count) const;
  Status Block(int layer, const ModelInput& input, bool long_rope, float* x,
               float* attention_weights);
  Status FeedForwardOf(const LayerWeights& w, const float* x, int rows, float* out,
                       const FfnTrace* trace = nullptr) const;
  // The trace (runner_trace.cc): a field's place, and row trace_position of x kept in it.
  float* TraceAt(TraceField field, int layer);
  void KeepTraced(const ModelInput& input, TraceField field, int layer, const float* x, int width);
  void TraceEmbedding(const ModelInput& input, const float* x);
  AttentionTrace AttentionTraceOf(const ModelInput& input, int layer);
  FfnTrace FfnTraceOf(const ModelInput& input, int layer);
  Status LmHead(const ModelInput& input, const float* x);
  int SeqK(const ModelInput& input) const {
    return input.use_cache ? cache_length_ + input.len : input.len;
  }

  ModelDescriptor m_;
  Buffer<WeightEntry> table_;
  Buffer<int32_t> storages_;  // m_.matrix_storages, owned
  Buffer<float> params_;
  GlobalWeights global_;
  Buffer<LayerWeights> layers_;  // [num_layers]
  Buffer<LayerSpec> specs_;      // [num_layers]
  Buffer<float> hidden_, attn_, logits_, q_keep_, k_keep_, trace_;
  int trace_len_ = 0;               // the traced call's T (the trace's layout)
  Buffer<float> x_, normed_, sub_;  // the running state and a block's scratch
  const float* output_ = nullptr;
  // The layer caches' memory, [num_layers, batch, kv / w, capacity, w] (LayerCache): float32,
  // or halves.
  Buffer<float> cache_k_, cache_v_;
  Buffer<uint16_t> cache_k16_, cache_v16_;
  Buffer<uint8_t> cache_kq_, cache_vq_;  // q8_0: [num_layers, batch, kv / w, capacity, w's bytes]
  KvStorage cache_storage_ = KvStorage::kFloat32;
  bool any_quantized_ = false;  // some entry is quantized blocks (its products need scratch)
  uint64_t cache_bytes_ = 0;
  int cache_batch_ = 0, cache_capacity_ = 0, cache_length_ = 0;
  LayerCache CacheOf(int layer);
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_RUNNER_H_
