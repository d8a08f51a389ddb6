#include "model/descriptor.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "model/self_attention.h"
#include "model/weights.h"
#include "sizes.h"

namespace attn {

namespace {

bool PositiveFinite(double x) { return x > 0.0 && std::isfinite(x); }
bool NonNegativeFinite(double x) { return x >= 0.0 && std::isfinite(x); }

// An enum's value is one of its list (the number came from JS): Known(e) for each enum a field
// has, made from the enum's own list.
#define ATTN_ENUM_CASE(name, value) case E::name:
#define ATTN_DEFINE_KNOWN(Enum, LIST) \
  bool Known(Enum e) {                \
    using E = Enum;                   \
    switch (e) {                      \
      LIST(ATTN_ENUM_CASE)            \
      return true;                    \
    }                                 \
    return false;                     \
  }
ATTN_DEFINE_KNOWN(MatrixStorage, ATTN_MATRIX_STORAGES)
ATTN_DEFINE_KNOWN(Activation, ATTN_ACTIVATIONS)
ATTN_DEFINE_KNOWN(NormKind, ATTN_NORM_KINDS)
ATTN_DEFINE_KNOWN(RopeScaling, ATTN_ROPE_SCALINGS)
#undef ATTN_DEFINE_KNOWN
#undef ATTN_ENUM_CASE

// A field's (or a list element's) value against its check (ATTN_DESCRIPTOR_FIELDS).
template <typename T>
bool FieldValid(FieldCheck check, T x) {
  if constexpr (std::is_enum_v<T>) {
    return check != FieldCheck::kKnown || Known(x);
  } else if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else {
    const double v = static_cast<double>(x);
    switch (check) {
      case FieldCheck::kDimension:
        return v >= 1.0;
      case FieldCheck::kCount:
        return v >= 0.0;
      case FieldCheck::kFinite:
        return std::isfinite(v);
      case FieldCheck::kNonNegative:
        return NonNegativeFinite(v);
      case FieldCheck::kPositive:
        return PositiveFinite(v);
      case FieldCheck::kFlag:
        return v == 0.0 || v == 1.0;
      case FieldCheck::kAny:
      case FieldCheck::kKnown:
        return true;
    }
    return false;
  }
}

// kNegativeDimension when a size field is below its least, else kBadArgument when a field or
// a list element fails its check, else kOk.
Status CheckFields(const ModelDescriptor& m) {
  Status status = Status::kOk;
  const auto refuse = [&](Status s) {
    if (status == Status::kOk || s == Status::kNegativeDimension) status = s;
  };
  ForEachDescriptorField([&](const char*, auto member, FieldCheck check) {
    if (FieldValid(check, m.*member)) return;
    const bool size = check == FieldCheck::kDimension || check == FieldCheck::kCount;
    refuse(size ? Status::kNegativeDimension : Status::kBadArgument);
  });
  ForEachDescriptorList(
      [&](const char*, auto member, auto length, int divisor, auto, FieldCheck check) {
        const auto& list = m.*member;
        for (int i = 0; i < ListLength(m, list, length, divisor); ++i) {
          if (!FieldValid(check, list[i])) refuse(Status::kBadArgument);
        }
      });
  return status;
}

// rope_scaling's kind and its parameters.
bool RopeScalingValid(const ModelDescriptor& m) {
  switch (m.rope_scaling) {
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
  const Status fields = CheckFields(m);
  if (fields == Status::kNegativeDimension) return fields;
  if (m.num_heads % m.num_kv_heads != 0) return Status::kBadHeadCount;
  if (fields != Status::kOk) return fields;
  const bool rms = m.norm != NormKind::kLayerNorm;
  if (m.num_layers > kMaxLayers || m.rotary_dim > m.head_dim || m.rotary_dim % 2 != 0 ||
      m.rotary_dim / 2 > kMaxRotaryPairs || (m.qk_norm && !rms) || (m.post_norms && !m.pre_norm) ||
      (!m.input_norms && !m.post_norms) || (m.qk_norm_full_width && !m.qk_norm) ||
      (!m.first_attention_norm && !m.pre_norm) || !RopeScalingValid(m) ||
      m.matrix_storage_count > kMaxMatrixStorages) {
    return Status::kBadArgument;
  }
  for (int i = 0; i < m.matrix_storage_count; ++i) {
    if (!Known(static_cast<MatrixStorage>(m.matrix_storages[i]))) return Status::kBadArgument;
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
