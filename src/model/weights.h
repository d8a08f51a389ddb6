// Where each weight of a pretrained model lives in the runner's one parameter buffer.
// Matrices are stored only as MatMul's column panels (packed once, when loaded); vectors and
// embedding tables as rows. The JS loader reads this table and fills every entry from the
// checkpoint through the architecture's name map.
#ifndef ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_
#define ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_

#include <cstdint>

#include "model/descriptor.h"

namespace attn {

// Global weights have layer -1. Norm biases exist only for layer norms (not RMS norms).
enum class WeightKind : int {
  kWordEmbeddings = 0,       // [V, d]
  kPositionEmbeddings = 1,   // [max_positions, d]
  kTokenTypeEmbeddings = 2,  // [type_vocab_size, d]
  kEmbeddingNormWeight = 3,  // [d]
  kEmbeddingNormBias = 4,    // [d]
  kQuery = 5,                // [d, d]        matrix
  kQueryBias = 6,            // [d]
  kKey = 7,                  // [d, kv_width] matrix
  kKeyBias = 8,              // [kv_width]
  kValue = 9,                // [d, kv_width] matrix
  kValueBias = 10,           // [kv_width]
  kAttentionOut = 11,        // [d, d]        matrix
  kAttentionOutBias = 12,    // [d]
  kNorm1Weight = 13,         // [d] before attention (pre-norm) or after its residual (post)
  kNorm1Bias = 14,           // [d]
  kUp = 15,                  // [d, d_ff]     matrix
  kUpBias = 16,              // [d_ff]
  kDown = 17,                // [d_ff, d]     matrix
  kDownBias = 18,            // [d]
  kNorm2Weight = 19,         // [d] before the FFN (pre-norm) or after its residual (post)
  kNorm2Bias = 20,           // [d]
  kFinalNormWeight = 21,     // [d]
  kFinalNormBias = 22,       // [d]
  kLmTransform = 23,         // [d, d]        matrix
  kLmTransformBias = 24,     // [d]
  kLmNormWeight = 25,        // [d]
  kLmNormBias = 26,          // [d]
  kLmDecoder = 27,           // [d, V]        matrix (tied models fill it from the embeddings)
  kLmBias = 28,              // [V]
  kGate = 29,                // [d, d_ff]     matrix (gated FFN)
};

struct WeightEntry {
  WeightKind kind;
  int layer;        // -1 for global weights
  int rows, cols;   // the logical shape, row-vector convention ([in, out] for a matrix)
  bool matrix;      // stored as panels
  bool bf16;        // a matrix stored as bfloat16 panels (two to a float of the buffer)
  uint64_t offset;  // in floats, into the parameter buffer
  uint64_t floats;  // stored size, in floats
};

// Calls fn(entry) for every weight the descriptor has, in table order; returns the total
// floats. The descriptor must have passed CheckDescriptor.
template <typename Fn>
uint64_t ForEachWeight(const ModelDescriptor& m, Fn&& fn);

// Kv width: num_kv_heads · head_dim.
inline int KvWidth(const ModelDescriptor& m) { return m.d_model / m.num_heads * m.num_kv_heads; }

}  // namespace attn

#include "model/weights-inl.h"

#endif  // ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_
