#include "model/descriptor.h"

#include <algorithm>

#include "model/weights.h"
#include "sizes.h"

namespace attn {

Status CheckDescriptor(const ModelDescriptor& m) {
  if (m.vocab_size < 1 || m.d_model < 1 || m.num_heads < 1 || m.num_kv_heads < 1 ||
      m.num_layers < 0 || m.d_ff < 1 || m.max_positions < 0 || m.type_vocab_size < 0) {
    return Status::kNegativeDimension;
  }
  if (m.d_model % m.num_heads != 0 || m.num_heads % m.num_kv_heads != 0) {
    return Status::kBadHeadCount;
  }
  const int head_dim = m.d_model / m.num_heads;
  if (!(m.norm_eps > 0.0f) || m.num_layers > kMaxLayers || m.rotary_dim < 0 ||
      m.sliding_window < 0 || m.rotary_dim > head_dim || m.rotary_dim % 2 != 0 ||
      !(m.rotary_base > 0.0) || m.rope_scaling < 0 || m.rope_scaling > 2 ||
      (m.rope_scaling != 0 && !(m.rope_factor > 0.0)) ||
      (m.rope_scaling == 2 && (!(m.rope_high_freq_factor > m.rope_low_freq_factor) ||
                               !(m.rope_low_freq_factor > 0.0) || m.rope_original_max < 1))) {
    return Status::kBadArgument;
  }
  const int64_t widest = std::max({m.vocab_size, m.max_positions, m.d_ff, m.d_model});
  if (!FloatsFit({widest, m.d_model})) return Status::kTooLarge;
  // Every entry fits (checked above); their sum must too.
  const uint64_t floats = ForEachWeight(m, [](const WeightEntry&) {});
  if (floats > kMaxBufferBytes / sizeof(float)) return Status::kTooLarge;
  return Status::kOk;
}

}  // namespace attn
