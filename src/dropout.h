// Dropout of attention weights (PyTorch scaled_dot_product_attention's dropout_p), made
// deterministic: whether weight (i, j) of batch entry b survives is a pure function of
// (seed, b, i, j), so the forward, the step-by-step path, the backward and any thread count
// agree without storing a mask, and JS can reproduce it (tests/helpers/reference.js).
//
//   bits(i, j) = Mix32(RowKey(seed, b, i) + j·0x9E3779B9)        (32-bit wrapping arithmetic)
//   kept       ⇔ (bits >> 8)·2⁻²⁴ >= p                           (p as a float)
// A kept weight is divided by 1 − p, so the expected output is the output without dropout.
#ifndef ATTENTION_WASM_SRC_DROPOUT_H_
#define ATTENTION_WASM_SRC_DROPOUT_H_

#include <cstdint>

namespace attn {

// A 32-bit integer hash with full avalanche (Chris Wellons' "lowbias32").
inline uint32_t Mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

constexpr uint32_t kDropoutKeyStep = 0x9E3779B9U;  // 2³²/φ: consecutive keys far apart

struct DropoutRule {
  float p = 0.0f;       // probability of dropping a weight, in [0, 1); 0: no dropout
  uint32_t seed = 0;    // the caller's seed
  uint32_t stream = 0;  // the batch entry (head) this problem is

  bool active() const { return p > 0.0f; }
  // 1 / (1 − p): what a kept weight is multiplied by.
  float keep_scale() const { return 1.0f / (1.0f - p); }
  uint32_t RowKey(int row) const {
    return Mix32(Mix32(Mix32(seed) ^ stream) ^ static_cast<uint32_t>(row));
  }
  // Whether weight (row, key) survives; row_key = RowKey(row).
  bool Kept(uint32_t row_key, int key) const {
    const uint32_t bits = Mix32(row_key + static_cast<uint32_t>(key) * kDropoutKeyStep);
    return static_cast<float>(bits >> 8) * 0x1p-24f >= p;
  }
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_DROPOUT_H_
