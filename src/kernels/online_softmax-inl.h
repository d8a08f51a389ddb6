// The online softmax of the fused kernel, per query row: running max and sum, rescaling,
// and the final division. Include inside HWY_NAMESPACE.
//
// Why online: the row's max is not known until every key has been seen, so each block of
// keys is exponentiated against the max so far; when a later block raises the max, what
// was accumulated (sum and output) is multiplied by 2^(old max - new max). The result is
// exactly softmax(s)·v, without storing a row of scores.

#if defined(ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#undef ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#else
#define ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#endif

#include "kernels/exp2-inl.h"
#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

// Running softmax state of one query row.
struct RowState {
  float max = kNegInf;    // running max of base-2 scores
  float sum = 0.0f;       // running Σ 2^(s - max)
  bool poisoned = false;  // a visible score was NaN or +Infinity
};

// Step 2c for one row: given the row's base-2 scores in scores[0 .. 4·num_vectors), updates
// the running max and sum, overwrites the scores with p = 2^(s - max) and returns the
// factor that rescales what was accumulated before.
HWY_INLINE float OnlineSoftmaxRow(float* scores, int num_vectors, RowState& state) {
  const D d;
  // 1. Block max, and whether a score is NaN or +Inf (wasm's pmax would drop a NaN).
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  V vmax = hn::Set(d, kNegInf);
  auto bad = hn::Not(hn::Lt(vmax, inf));  // all false
  for (int i = 0; i < num_vectors; ++i) {
    const V x = hn::Load(d, scores + i * kLanes);
    bad = hn::Or(bad, hn::Not(hn::Lt(x, inf)));
    vmax = hn::Max(vmax, x);
  }
  if (!hn::AllFalse(d, bad)) state.poisoned = true;
  const float new_max = std::max(state.max, hn::GetLane(hn::MaxOfLanes(d, vmax)));
  // 2. p = 2^(s - max). A row that has seen only blocked keys keeps max = -Inf: shift by 0
  //    so that 2^(-Inf) = 0.
  const V shift = hn::Set(d, new_max == kNegInf ? 0.0f : new_max);
  V sum = hn::Zero(d);
  for (int i = 0; i < num_vectors; ++i) {
    const V p = FastExp2(d, hn::Sub(hn::Load(d, scores + i * kLanes), shift));
    hn::Store(p, d, scores + i * kLanes);
    sum = hn::Add(sum, p);
  }
  // 3. Rescale factor for the old accumulators and sum.
  float rescale = 1.0f;
  if (state.max == kNegInf)
    rescale = 0.0f;
  else if (state.max != new_max)
    rescale = std::exp2(state.max - new_max);
  state.sum = state.sum * rescale + hn::GetLane(hn::SumOfLanes(d, sum));
  state.max = new_max;
  return rescale;
}

// Step 3. out row = acc row / sum; zeros if the row saw no key, NaN if it was poisoned.
void FinishRow(const float* acc_row, const RowState& state, int value_dim, float* out_row) {
  if (state.poisoned) {
    std::fill(out_row, out_row + value_dim, std::numeric_limits<float>::quiet_NaN());
  } else if (state.sum > 0.0f) {
    const float inv = 1.0f / state.sum;
    for (int c = 0; c < value_dim; ++c) out_row[c] = acc_row[c] * inv;
  } else {
    std::fill(out_row, out_row + value_dim, 0.0f);
  }
}

#endif  // ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
