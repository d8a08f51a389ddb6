// ForEachWeight (declared in weights.h).
#ifndef ATTENTION_WASM_SRC_MODEL_WEIGHTS_INL_H_
#define ATTENTION_WASM_SRC_MODEL_WEIGHTS_INL_H_

#include "kernels/matmul.h"

namespace attn {

template <typename Fn>
uint64_t ForEachWeight(const ModelDescriptor& m, Fn&& fn) {
  uint64_t offset = 0;
  int stored = 0;  // the word embeddings and matrices so far (matrix_storages' index)
  auto add = [&](WeightKind kind, int layer, int rows, int cols, bool matrix) {
    const bool words = kind == WeightKind::kWordEmbeddings;
    MatrixStorage storage = MatrixStorage::kFloat32;
    if (matrix || words) {
      const int i = stored++;
      storage = i < m.matrix_storage_count ? static_cast<MatrixStorage>(m.matrix_storages[i])
                                           : m.matrix_storage;
      if (words && !IsQuantized(storage)) storage = MatrixStorage::kFloat32;
    }
    uint64_t floats = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
    if (storage == MatrixStorage::kFloat32 && matrix) floats = PanelFloats(rows, cols);
    if (storage == MatrixStorage::kBfloat16) floats = (PanelFloats(rows, cols) + 1) / 2;
    if (IsQuantized(storage)) floats = QuantBytes(storage, rows, cols) / sizeof(float);
    // With quantized matrices the word embeddings [V, d] are blocks too, stored as a [d, V]
    // matrix whose column t is token t's vector (as GGUF's token_embd is): the largest table
    // of a 1B model (Llama-3.2-1B: 1 GiB as float32, 148 MiB as Q4_0).
    if (words && IsQuantized(storage)) floats = QuantBytes(storage, cols, rows) / sizeof(float);
    fn(WeightEntry{kind, layer, rows, cols, matrix, storage, offset, floats});
    offset += (floats + 3) / 4 * 4;  // keep every entry 16-byte aligned
  };
  const int d = m.d_model, qw = QueryWidth(m), kv = KvWidth(m), f = m.d_ff;
  const bool norm_bias = m.norm == NormKind::kLayerNorm && m.norm_biases;
  auto norm = [&](WeightKind weight, WeightKind bias, int layer) {
    add(weight, layer, 1, d, false);
    if (norm_bias) add(bias, layer, 1, d, false);
  };
  // 1. Embeddings.
  add(WeightKind::kWordEmbeddings, -1, m.vocab_size, d, false);
  if (m.max_positions > 0) add(WeightKind::kPositionEmbeddings, -1, m.max_positions, d, false);
  if (m.type_vocab_size > 0) add(WeightKind::kTokenTypeEmbeddings, -1, m.type_vocab_size, d, false);
  if (m.embedding_norm) norm(WeightKind::kEmbeddingNormWeight, WeightKind::kEmbeddingNormBias, -1);
  // 2. Blocks.
  for (int l = 0; l < m.num_layers; ++l) {
    add(WeightKind::kQuery, l, d, qw, true);
    if (m.qkv_bias) add(WeightKind::kQueryBias, l, 1, qw, false);
    add(WeightKind::kKey, l, d, kv, true);
    if (m.qkv_bias) add(WeightKind::kKeyBias, l, 1, kv, false);
    add(WeightKind::kValue, l, d, kv, true);
    if (m.qkv_bias) add(WeightKind::kValueBias, l, 1, kv, false);
    add(WeightKind::kAttentionOut, l, qw, d, true);
    if (m.out_bias) add(WeightKind::kAttentionOutBias, l, 1, d, false);
    if (m.qk_norm) {  // RMS norms only (CheckDescriptor): no biases
      add(WeightKind::kQueryNormWeight, l, 1, m.qk_norm_full_width ? qw : m.head_dim, false);
      add(WeightKind::kKeyNormWeight, l, 1, m.qk_norm_full_width ? kv : m.head_dim, false);
    }
    if (m.input_norms && (l > 0 || m.first_attention_norm))
      norm(WeightKind::kNorm1Weight, WeightKind::kNorm1Bias, l);
    if (m.post_norms)
      norm(WeightKind::kPostAttentionNormWeight, WeightKind::kPostAttentionNormBias, l);
    if (m.gated_ffn) add(WeightKind::kGate, l, d, f, true);
    add(WeightKind::kUp, l, d, f, true);
    if (m.mlp_bias) add(WeightKind::kUpBias, l, 1, f, false);
    add(WeightKind::kDown, l, f, d, true);
    if (m.mlp_bias) add(WeightKind::kDownBias, l, 1, d, false);
    if (m.input_norms) norm(WeightKind::kNorm2Weight, WeightKind::kNorm2Bias, l);
    if (m.post_norms) norm(WeightKind::kPostFfnNormWeight, WeightKind::kPostFfnNormBias, l);
  }
  // 3. Final norm and the LM head.
  if (m.final_norm) norm(WeightKind::kFinalNormWeight, WeightKind::kFinalNormBias, -1);
  if (m.lm_head) {
    if (m.lm_transform) {
      add(WeightKind::kLmTransform, -1, d, d, true);
      if (m.lm_transform_bias) add(WeightKind::kLmTransformBias, -1, 1, d, false);
      norm(WeightKind::kLmNormWeight, WeightKind::kLmNormBias, -1);
    }
    add(WeightKind::kLmDecoder, -1, d, m.vocab_size, true);
    if (m.lm_bias) add(WeightKind::kLmBias, -1, 1, m.vocab_size, false);
  }
  return offset;
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_WEIGHTS_INL_H_
