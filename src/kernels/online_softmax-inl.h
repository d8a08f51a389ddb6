// The online softmax of the fused kernel, per query row: running max and sum, rescaling,
// and the final division. Include inside HWY_NAMESPACE.
//
// Why online: the row's max is not known until every key has been seen, so each block of
// keys is exponentiated against the max so far; when a later block raises the max, what
// was accumulated (sum and output) is multiplied by e^(old max - new max). The result is
// exactly softmax(s)·v, without storing a row of scores.
//
// Scores stay in natural units, and e^(s - max) is formed as 2^x so that only a small
// number is ever rounded (see Exponents below): a row of large scores (1e4 and up, ONNX's
// softmax_large_number) keeps the small differences that decide its weights. Multiplying
// the scores by log2(e) before subtracting the max rounded them away (measured: 1.9e-4
// relative on softmax_large_number, 5.7e-3 on rows near 1e4; tests/attention-large-scores).

#if defined(ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#undef ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#else
#define ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
#endif

#include "kernels/exp2-inl.h"
#include "kernels/simd-inl.h"  // the vector types (D, V, kLanes)

// Running softmax state of one query row. A visible score that is NaN or +Infinity makes
// the sum NaN (see OnlineSoftmaxTile), and the sum stays NaN: that is how the row is marked
// poisoned, at no cost per score.
struct RowState {
  float max = kNegInf;  // running max of the (scaled, masked) scores
  float sum = 0.0f;     // running Σ 2^(s - max); NaN once poisoned
};

// e^(k·(s - max)) = 2^x with x = (s − max)·factor, factor = k·log2(e) (k = 1 for scaled
// scores, or the attention scale when the kernel folds it in here). Only the small s − max
// is rounded: the difference of nearby floats is exact, while rounding s·log2(e) itself
// moved a score of 1e4 by ~1e-3. The relaxed build does the same (an FMA form,
// fma(s, factor, −max·factor), was tried: max·factor's own rounding is one constant per
// row, which cancels, but at |max| ≳ 1e9 that constant alone overflows 2^x).
constexpr float kLog2e = 1.4426950408889634f;

HWY_INLINE V Exponents(V s, V max, V factor) { return hn::Mul(hn::Sub(s, max), factor); }

// Step 2c for the rows of one query tile: given row r's scores in
// scores[r·stride .. r·stride + 4·num_vectors), updates each row's running max and sum,
// overwrites the scores with p = e^(k·(s - max)) and sets rescale[r], the factor that
// rescales what row r accumulated before. factor = k·log2(e), k > 0 (see Exponents).
// The rows go through each step side by side. One row alone is a chain of dependent steps
// (max, reduce, exp, sum) that kept the core waiting (~12 cycles per vector of scores);
// four rows' chains overlap. Each row's arithmetic, and so its bits, is what it was alone.
//   scores: [kRows, stride], stride >= 4·num_vectors   state, rescale: [kRows]
template <int kRows>
HWY_INLINE void OnlineSoftmaxTile(float* scores, int stride, int num_vectors, RowState* state,
                                  float* rescale, float factor) {
  const D d;
  // 1. Block max per row. NaN needs no check here: it turns p and the sum into NaN below
  //    (FastExp2 keeps NaN), and so does +Infinity (max = +Inf, then Inf - Inf).
  V vmax[kRows];
  for (int r = 0; r < kRows; ++r) vmax[r] = hn::Set(d, kNegInf);
  for (int i = 0; i < num_vectors; ++i) {
    for (int r = 0; r < kRows; ++r) {
      vmax[r] = hn::Max(vmax[r], hn::Load(d, scores + r * stride + i * kLanes));
    }
  }
  // 2. New running max; a row that has seen only blocked keys keeps max = -Inf and shifts
  //    by 0, so that e^(-Inf) = 0.
  V shift[kRows], sum[kRows];
  for (int r = 0; r < kRows; ++r) {
    const float new_max = std::max(state[r].max, hn::GetLane(hn::MaxOfLanes(d, vmax[r])));
    rescale[r] = state[r].max == kNegInf   ? 0.0f
                 : state[r].max == new_max ? 1.0f
                                           : std::exp2((state[r].max - new_max) * factor);
    state[r].max = new_max;
    shift[r] = hn::Set(d, new_max == kNegInf ? 0.0f : new_max);
    sum[r] = hn::Zero(d);
  }
  // 3. p = e^(k·(s - max)), and the block sums.
  const V factor_v = hn::Set(d, factor);
  for (int i = 0; i < num_vectors; ++i) {
    for (int r = 0; r < kRows; ++r) {
      float* x = scores + r * stride + i * kLanes;
      const V p = FastExp2(d, Exponents(hn::Load(d, x), shift[r], factor_v));
      hn::Store(p, d, x);
      sum[r] = hn::Add(sum[r], p);
    }
  }
  // 4. Running sums, rescaled.
  for (int r = 0; r < kRows; ++r) {
    state[r].sum = state[r].sum * rescale[r] + hn::GetLane(hn::SumOfLanes(d, sum[r]));
  }
}

// Step 3. out row = acc row / sum; zeros if the row saw no key, NaN if it was poisoned.
void FinishRow(const float* acc_row, const RowState& state, int value_dim, float* out_row) {
  if (std::isnan(state.sum)) {
    std::fill(out_row, out_row + value_dim, std::numeric_limits<float>::quiet_NaN());
  } else if (state.sum > 0.0f) {
    const float inv = 1.0f / state.sum;
    for (int c = 0; c < value_dim; ++c) out_row[c] = acc_row[c] * inv;
  } else {
    std::fill(out_row, out_row + value_dim, 0.0f);
  }
}

#endif  // ATTENTION_WASM_ONLINE_SOFTMAX_INL_H_
