// The step-by-step attention path (Highway, static dispatch). Each step is a separate pass
// over the score matrix so that every intermediate can be shown to a learner; exactness
// comes first (hn::Exp is accurate to a few ulp), and Q·Kᵀ shares MatMul's register tile.
#include "kernels/attention_steps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "buffer.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/matmul.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"

constexpr float kInf = std::numeric_limits<float>::infinity();

void ScaleScoresImpl(float* scores, int count, float scale) {
  const D d;
  const V f = hn::Set(d, scale);
  int i = 0;
  for (; i + kLanes <= count; i += kLanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, scores + i), f), d, scores + i);
  for (; i < count; ++i) scores[i] *= scale;
}

// scores = softcap·tanh(scores / softcap), in place (softcap > 0). A division, not a
// multiplication by 1 / softcap: below 2^-128 that reciprocal is +Infinity, and 0·Infinity
// made a zero score NaN (found by the API fuzzer); the fused kernel divides alike, so the
// two paths agree bit for bit.
void SoftcapScoresImpl(float* scores, int count, float softcap) {
  const D d;
  const V cap = hn::Set(d, softcap);
  int i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    const V x = hn::LoadU(d, scores + i);
    hn::StoreU(hn::Mul(cap, hn::Tanh(d, hn::Div(x, cap))), d, scores + i);
  }
  for (; i < count; ++i) scores[i] = softcap * std::tanh(scores[i] / softcap);
}

void ApplyMaskImpl(float* scores, int seq_q, int seq_k, const MaskView& mask,
                   const VisibleKeyRule& visible) {
  const D d;
  const V neg_inf = hn::Set(d, kNegInf);
  constexpr int kChunk = 256;  // mask values read per step (a stack buffer, no allocation)
  float m[kChunk];
  for (int i = 0; i < seq_q; ++i) {
    float* row = scores + static_cast<size_t>(i) * seq_k;
    // 1. The explicit mask: -Inf blocks (whatever the score, even NaN), else it adds.
    for (int j0 = 0; !mask.empty() && j0 < seq_k; j0 += kChunk) {
      const int count = std::min(kChunk, seq_k - j0);
      mask.Row(i, j0, count, m);
      float* chunk = row + j0;
      int j = 0;
      for (; j + kLanes <= count; j += kLanes) {
        const V mv = hn::LoadU(d, m + j);
        const V sum = hn::Add(hn::LoadU(d, chunk + j), mv);
        hn::StoreU(hn::IfThenElse(hn::Eq(mv, neg_inf), neg_inf, sum), d, chunk + j);
      }
      for (; j < count; ++j) chunk[j] = m[j] == kNegInf ? kNegInf : chunk[j] + m[j];
    }
    // 2. A window hides a prefix of the keys; causal rule, window and key lengths a suffix.
    const int end = std::min(visible.KeyEnd(i), seq_k);
    const int begin = std::min(visible.KeyBegin(i), end);
    std::fill(row, row + begin, kNegInf);
    std::fill(row + end, row + seq_k, kNegInf);
  }
}

// Softmax of one row in place (see SoftmaxRows for the special rows).
void SoftmaxRow(float* row, int n) {
  const D d;
  // 1. Max, and whether any entry is NaN or +Inf (wasm's max would drop a NaN).
  float max = kNegInf;
  bool poisoned = false;
  for (int j = 0; j < n; ++j) {
    if (!(row[j] < kInf)) poisoned = true;
    max = std::max(max, row[j]);
  }
  if (poisoned || max == kNegInf) {
    std::fill(row, row + n, poisoned ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
    return;
  }
  // 2. e^(x - max) and its sum.
  const V vmax = hn::Set(d, max);
  V vsum = hn::Zero(d);
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const V e = hn::Exp(d, hn::Sub(hn::LoadU(d, row + j), vmax));
    hn::StoreU(e, d, row + j);
    vsum = hn::Add(vsum, e);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  for (; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  // 3. Normalise.
  const float inv = 1.0f / sum;
  for (j = 0; j < n; ++j) row[j] *= inv;
}

void SoftmaxRowsImpl(float* scores, int seq_q, int seq_k) {
  for (int i = 0; i < seq_q; ++i) SoftmaxRow(scores + static_cast<size_t>(i) * seq_k, seq_k);
}

void WeightedSumVImpl(const float* weights, const float* v, int v_stride, int seq_q, int seq_k,
                      int value_dim, float* out, int out_stride) {
  const D d;
  for (int i = 0; i < seq_q; ++i) {
    float* o = out + static_cast<size_t>(i) * out_stride;
    std::fill(o, o + value_dim, 0.0f);
    const float* w = weights + static_cast<size_t>(i) * seq_k;
    for (int j = 0; j < seq_k; ++j) {
      if (w[j] == 0.0f) continue;  // blocked keys: never 0·NaN
      const float* v_row = v + static_cast<size_t>(j) * v_stride;
      const V wj = hn::Set(d, w[j]);
      int c = 0;
      for (; c + kLanes <= value_dim; c += kLanes) {
        hn::StoreU(Fma(wj, hn::LoadU(d, v_row + c), hn::LoadU(d, o + c)), d, o + c);
      }
      for (; c < value_dim; ++c) o[c] += w[j] * v_row[c];
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

// Q·Kᵀ is a matrix product with B = Kᵀ: pack K's rows as panels, then multiply.
Status QDotK(const float* q, int q_stride, const float* k, int k_stride, int seq_q, int seq_k,
             int head_dim, float* scores) {
  Buffer<float> panels;
  if (!panels.Resize(PanelFloats(head_dim, seq_k))) return Status::kOutOfMemory;
  PackTransposedPanels(k, k_stride, seq_k, head_dim, panels.data());
  MultiplyPanels(q, q_stride, seq_q, head_dim, panels.data(), nullptr, seq_k, scores, seq_k);
  return Status::kOk;
}

void ScaleScores(float* scores, int count, float scale) {
  HWY_STATIC_DISPATCH(ScaleScoresImpl)(scores, count, scale);
}

void SoftcapScores(float* scores, int count, float softcap) {
  HWY_STATIC_DISPATCH(SoftcapScoresImpl)(scores, count, softcap);
}

void ApplyMask(float* scores, int seq_q, int seq_k, const MaskView& mask,
               const VisibleKeyRule& visible) {
  HWY_STATIC_DISPATCH(ApplyMaskImpl)
  (scores, seq_q, seq_k, mask, visible);
}

void SoftmaxRows(float* scores, int seq_q, int seq_k) {
  HWY_STATIC_DISPATCH(SoftmaxRowsImpl)(scores, seq_q, seq_k);
}

void WeightedSumV(const float* weights, const float* v, int v_stride, int seq_q, int seq_k,
                  int value_dim, float* out, int out_stride) {
  HWY_STATIC_DISPATCH(WeightedSumVImpl)
  (weights, v, v_stride, seq_q, seq_k, value_dim, out, out_stride);
}

void DropoutRows(float* weights, int seq_q, int seq_k, const DropoutRule& dropout) {
  const float keep_scale = dropout.keep_scale();
  for (int i = 0; i < seq_q; ++i) {
    float* row = weights + static_cast<size_t>(i) * seq_k;
    const uint32_t row_key = dropout.RowKey(i);
    // A dropped weight becomes row[j]·0: 0, or NaN in a row poisoned by NaN (it stays NaN,
    // as in the fused path).
    for (int j = 0; j < seq_k; ++j) row[j] *= dropout.Kept(row_key, j) ? keep_scale : 0.0f;
  }
}

Status StepwiseAttention(const HeadProblem& pb, const AttentionStages& st) {
  const size_t count = static_cast<size_t>(pb.seq_q) * pb.seq_k;
  auto snapshot = [&](float* stage) {
    if (stage != nullptr) std::memcpy(stage, st.weights, count * sizeof(float));
  };
  const Status status =
      QDotK(pb.q, pb.q_stride, pb.k, pb.k_stride, pb.seq_q, pb.seq_k, pb.head_dim, st.weights);
  if (status != Status::kOk) return status;
  snapshot(st.raw_scores);
  ScaleScores(st.weights, static_cast<int>(count), pb.scale);
  snapshot(st.scaled_scores);
  if (pb.softcap > 0.0f) SoftcapScores(st.weights, static_cast<int>(count), pb.softcap);
  snapshot(st.capped_scores);
  ApplyMask(st.weights, pb.seq_q, pb.seq_k, pb.mask, pb.visible);
  snapshot(st.masked_scores);
  SoftmaxRows(st.weights, pb.seq_q, pb.seq_k);
  const float* weights = st.weights;
  if (pb.dropout.active()) {
    std::memcpy(st.dropped_weights, st.weights, count * sizeof(float));
    DropoutRows(st.dropped_weights, pb.seq_q, pb.seq_k, pb.dropout);
    weights = st.dropped_weights;
  }
  WeightedSumV(weights, pb.v, pb.v_stride, pb.seq_q, pb.seq_k, pb.value_dim, pb.out, pb.out_stride);
  return Status::kOk;
}

}  // namespace attn
