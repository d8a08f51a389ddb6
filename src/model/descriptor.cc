#include "model/descriptor.h"

#include <algorithm>
#include <cmath>

#include "model/self_attention.h"
#include "model/weights.h"
#include "sizes.h"

namespace attn {

namespace {

bool PositiveFinite(double x) { return x > 0.0 && std::isfinite(x); }
bool NonNegativeFinite(double x) { return x >= 0.0 && std::isfinite(x); }

// A scalar of ATTN_DESCRIPTOR_SCALARS against its check.
bool ScalarValid(ScalarCheck check, double x) {
  switch (check) {
    case ScalarCheck::kFinite:
      return std::isfinite(x);
    case ScalarCheck::kNonNegative:
      return NonNegativeFinite(x);
    case ScalarCheck::kPositive:
      return PositiveFinite(x);
  }
  return false;
}

// One of ATTN_MATRIX_STORAGES (the number came from JS).
bool IsStorage(MatrixStorage s) {
  switch (s) {
#define ATTN_STORAGE_CASE(name, value) case MatrixStorage::name:
    ATTN_MATRIX_STORAGES(ATTN_STORAGE_CASE)
#undef ATTN_STORAGE_CASE
    return true;
  }
  return false;
}

// rope_scaling's kind and its parameters.
bool RopeScalingValid(const ModelDescriptor& m) {
  switch (static_cast<RopeScaling>(m.rope_scaling)) {
    case RopeScaling::kNone:
      return true;
    case RopeScaling::kLinear:
      return PositiveFinite(m.rope_factor);
    case RopeScaling::kLlama3:
      return PositiveFinite(m.rope_factor) && m.rope_high_freq_factor > m.rope_low_freq_factor &&
             m.rope_low_freq_factor > 0.0 && m.rope_original_max >= 1;
    case RopeScaling::kLongRope:
      for (int i = 0; i < m.rotary_dim / 2; ++i) {
        if (!PositiveFinite(m.rope_short_factors[i]) || !PositiveFinite(m.rope_long_factors[i]))
          return false;
      }
      return m.rope_original_max >= 1 && PositiveFinite(m.rope_attention_factor);
  }
  return false;
}

}  // namespace

bool IsNormWeight(WeightKind kind) {
  switch (kind) {
    case WeightKind::kEmbeddingNormWeight:
    case WeightKind::kNorm1Weight:
    case WeightKind::kNorm2Weight:
    case WeightKind::kPostAttentionNormWeight:
    case WeightKind::kPostFfnNormWeight:
    case WeightKind::kFinalNormWeight:
    case WeightKind::kLmNormWeight:
    case WeightKind::kQueryNormWeight:
    case WeightKind::kKeyNormWeight:
      return true;
    default:
      return false;
  }
}

Status CheckDescriptor(const ModelDescriptor& m) {
  if (m.vocab_size < 1 || m.d_model < 1 || m.num_heads < 1 || m.num_kv_heads < 1 ||
      m.head_dim < 1 || m.num_layers < 0 || m.d_ff < 1 || m.max_positions < 0 ||
      m.type_vocab_size < 0) {
    return Status::kNegativeDimension;
  }
  if (m.num_heads % m.num_kv_heads != 0) return Status::kBadHeadCount;
  const bool rms = m.norm != NormKind::kLayerNorm;
  if (!(m.norm_eps > 0.0f) || m.num_layers > kMaxLayers || m.rotary_dim < 0 ||
      m.rotary_dim > m.head_dim || m.rotary_dim % 2 != 0 || m.rotary_dim / 2 > kMaxRotaryPairs ||
      !PositiveFinite(m.rotary_base) || (m.qk_norm && !rms) || (m.post_norms && !m.pre_norm) ||
      (!m.input_norms && !m.post_norms) || (m.qk_norm_full_width && !m.qk_norm) ||
      (!m.first_attention_norm && !m.pre_norm) || !RopeScalingValid(m)) {
    return Status::kBadArgument;
  }
#define ATTN_CHECK_SCALAR(name, member, type, fallback, check) \
  if (!ScalarValid(ScalarCheck::check, m.member)) return Status::kBadArgument;
  ATTN_DESCRIPTOR_SCALARS(ATTN_CHECK_SCALAR)
#undef ATTN_CHECK_SCALAR
  for (int l = 0; l < m.num_layers; ++l) {
    if (m.layer_windows[l] < 0) return Status::kBadArgument;
    if (m.layer_no_rope[l] != 0 && m.layer_no_rope[l] != 1) return Status::kBadArgument;
  }
  if (!IsStorage(m.matrix_storage) || m.matrix_storage_count < 0 ||
      m.matrix_storage_count > kMaxMatrixStorages) {
    return Status::kBadArgument;
  }
  for (int i = 0; i < m.matrix_storage_count; ++i) {
    if (!IsStorage(static_cast<MatrixStorage>(m.matrix_storages[i]))) return Status::kBadArgument;
  }
  const int64_t query_width = int64_t{m.num_heads} * m.head_dim;
  const int64_t widest =
      std::max<int64_t>({m.vocab_size, m.max_positions, m.d_ff, m.d_model, query_width});
  if (!FloatsFit({widest, m.d_model})) return Status::kTooLarge;
  // Every storage names an entry, and a K-quant's blocks of 256 divide its inputs.
  int stored = 0;
  bool whole_blocks = true;
  ForEachWeight(m, [&](const WeightEntry& e) {
    if (e.matrix || e.kind == WeightKind::kWordEmbeddings) ++stored;
    const int inner = e.matrix ? e.rows : e.cols;
    if (IsKQuant(e.storage) && inner % kKQuantBlock != 0) whole_blocks = false;
  });
  if (m.matrix_storage_count > stored || !whole_blocks) return Status::kBadArgument;
  // Every entry fits (checked above); their sum must too.
  const uint64_t floats = ForEachWeight(m, [](const WeightEntry&) {});
  if (floats > kMaxBufferBytes / sizeof(float)) return Status::kTooLarge;
  return Status::kOk;
}

}  // namespace attn
