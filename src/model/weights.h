// Where each weight of a pretrained model lives in the runner's one parameter buffer.
// Matrices are stored only as MatMul's column panels or quantized blocks (packed once, when
// loaded); vectors and embedding tables as float32 rows. The JS loader reads this table and fills every entry from the
// checkpoint through the architecture's name map.
#ifndef ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_
#define ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_

#include <cstdint>

#include "model/descriptor.h"

namespace attn {

// Global weights have layer -1. Norm biases exist only for layer norms (not RMS norms).
// qw = num_heads·head_dim, kv = num_kv_heads·head_dim.
// Every kind once, with its number: the enum and the table the bindings export to JS
// (bindings/contract_bindings.cc, read by the loader at init) are made from it.
// clang-format off
#define ATTN_WEIGHT_KINDS(X) \
  X(kWordEmbeddings, 0)           /* [V, d] */                                 \
  X(kPositionEmbeddings, 1)       /* [max_positions, d] */                     \
  X(kTokenTypeEmbeddings, 2)      /* [type_vocab_size, d] */                   \
  X(kEmbeddingNormWeight, 3)      /* [d] */                                    \
  X(kEmbeddingNormBias, 4)        /* [d] */                                    \
  X(kQuery, 5)                    /* [d, qw]       matrix */                   \
  X(kQueryBias, 6)                /* [qw] */                                   \
  X(kKey, 7)                      /* [d, kv_width] matrix */                   \
  X(kKeyBias, 8)                  /* [kv_width] */                             \
  X(kValue, 9)                    /* [d, kv_width] matrix */                   \
  X(kValueBias, 10)               /* [kv_width] */                             \
  X(kAttentionOut, 11)            /* [qw, d]       matrix */                   \
  X(kAttentionOutBias, 12)        /* [d] */                                    \
  X(kNorm1Weight, 13)             /* [d] before attention (pre-norm) or after its residual (post) */ \
  X(kNorm1Bias, 14)               /* [d] */                                    \
  X(kUp, 15)                      /* [d, d_ff]     matrix */                   \
  X(kUpBias, 16)                  /* [d_ff] */                                 \
  X(kDown, 17)                    /* [d_ff, d]     matrix */                   \
  X(kDownBias, 18)                /* [d] */                                    \
  X(kNorm2Weight, 19)             /* [d] before the FFN (pre-norm) or after its residual (post) */ \
  X(kNorm2Bias, 20)               /* [d] */                                    \
  X(kFinalNormWeight, 21)         /* [d] */                                    \
  X(kFinalNormBias, 22)           /* [d] */                                    \
  X(kLmTransform, 23)             /* [d, d]        matrix */                   \
  X(kLmTransformBias, 24)         /* [d] */                                    \
  X(kLmNormWeight, 25)            /* [d] */                                    \
  X(kLmNormBias, 26)              /* [d] */                                    \
  X(kLmDecoder, 27)               /* [d, V]        matrix (tied models fill it from the embeddings) */ \
  X(kLmBias, 28)                  /* [V] */                                    \
  X(kGate, 29)                    /* [d, d_ff]     matrix (gated FFN) */       \
  X(kPostAttentionNormWeight, 30) /* [d] on the attention's output (post_norms) */ \
  X(kPostAttentionNormBias, 31)   /* [d] */                                    \
  X(kPostFfnNormWeight, 32)       /* [d] on the FFN's output (post_norms) */   \
  X(kPostFfnNormBias, 33)         /* [d] */                                    \
  X(kQueryNormWeight, 34)         /* [head_dim] each query head's (qk_norm) */ \
  X(kKeyNormWeight, 35)           /* [head_dim] each key head's (qk_norm) */
// clang-format on

enum class WeightKind : int {
#define ATTN_WEIGHT_KIND_ENUMERATOR(name, value) name = value,
  ATTN_WEIGHT_KINDS(ATTN_WEIGHT_KIND_ENUMERATOR)
#undef ATTN_WEIGHT_KIND_ENUMERATOR
};

struct WeightEntry {
  WeightKind kind;
  int layer;              // -1 for global weights
  int rows, cols;         // the logical shape, row-vector convention ([in, out] for a matrix)
  bool matrix;            // a matrix: panels or quantized blocks
  MatrixStorage storage;  // a matrix's (kernels/quantized.h); kFloat32 for vectors and tables,
                          // but the word embeddings' with quantized matrices (a [d, V] matrix)
  uint64_t offset;        // in floats, into the parameter buffer
  uint64_t floats;        // stored size, in floats
};

// Calls fn(entry) for every weight the descriptor has, in table order; returns the total
// floats. The descriptor must have passed CheckDescriptor.
template <typename Fn>
uint64_t ForEachWeight(const ModelDescriptor& m, Fn&& fn);

// The queries' width qw = num_heads · head_dim and the keys' and values' kv = num_kv_heads ·
// head_dim (CheckDescriptor keeps both below 2^31).
inline int QueryWidth(const ModelDescriptor& m) { return m.num_heads * m.head_dim; }
inline int KvWidth(const ModelDescriptor& m) { return m.num_kv_heads * m.head_dim; }

// Whether entries of this kind are a norm's weights γ (stored as 1 + γ by a kRmsNormPlusOne model).
bool IsNormWeight(WeightKind kind);

}  // namespace attn

#include "model/weights-inl.h"

#endif  // ATTENTION_WASM_SRC_MODEL_WEIGHTS_H_
