#include "attention_backward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "buffer.h"
#include "head_problem.h"
#include "hwy/highway.h"
#include "sizes.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/vector_ops-inl.h"

// One head, row by row.
//   q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]  d_out: [seq_q, value_dim]
//   dq: [seq_q, head_dim] (written)  dk, dv: [seq_k, ...] (accumulated; zero on entry)
//   p, cap_slope: [seq_k] and o: [value_dim] scratch
// With a softcap the score is c·tanh(s / c) of the scaled score s, whose slope 1 - tanh²
// multiplies dS (cap_slope holds it per key). With dropout, weight j reaches the output as
// P·keep (keep = 1 / (1 − p) or 0, the forward's own decision), so dV gets P·keep·dOut and
// dS = P·(keep·dOut·v − D) with D = dOut·o of the dropped output o.
void HeadBackwardImpl(const HeadProblem& pb, const float* d_out, float* dq, float* dk, float* dv,
                      float* p, float* cap_slope, float* o) {
  const bool capped = pb.softcap > 0.0f;
  const bool dropout = pb.dropout.active();
  const float keep_scale = dropout ? pb.dropout.keep_scale() : 1.0f;
  const int dk_dim = pb.head_dim, dv_dim = pb.value_dim;
  for (int i = 0; i < pb.seq_q; ++i) {
    const float* q_row = pb.q + static_cast<size_t>(i) * dk_dim;
    const float* do_row = d_out + static_cast<size_t>(i) * dv_dim;
    float* dq_row = dq + static_cast<size_t>(i) * dk_dim;
    std::fill(dq_row, dq_row + dk_dim, 0.0f);
    // Row i sees keys begin .. end - 1.
    const int end = std::min(pb.visible.KeyEnd(i), pb.seq_k);
    const int begin = std::min(pb.visible.KeyBegin(i), end);
    // 1. Scores of the visible keys (the explicit mask added; -Inf where blocked), max.
    if (!pb.mask.empty() && begin < end) pb.mask.Row(i, begin, end - begin, p + begin);
    float max = kNegInf;
    for (int j = begin; j < end; ++j) {
      const float m = pb.mask.empty() ? 0.0f : p[j];
      if (m == kNegInf) {
        p[j] = kNegInf;
      } else {
        float s = Dot(q_row, pb.k + static_cast<size_t>(j) * dk_dim, dk_dim) * pb.scale;
        if (capped) {
          const float t = std::tanh(s / pb.softcap);
          s = pb.softcap * t;
          cap_slope[j] = 1.0f - t * t;
        }
        p[j] = s + m;
      }
      max = std::max(max, p[j]);
    }
    if (max == kNegInf) continue;  // sees no key: no gradient
    // 2. P = softmax (one exp per key, the sum in double), and the row's output
    //    o = Σ P·keep·v, where keep is 1 / (1 − dropout) for a kept weight and 0 for a
    //    dropped one (1 without dropout).
    double sum = 0.0;
    for (int j = begin; j < end; ++j) {
      p[j] = p[j] == kNegInf ? 0.0f : std::exp(p[j] - max);
      sum += p[j];
    }
    const float inv_sum = static_cast<float>(1.0 / sum);
    const uint32_t row_key = dropout ? pb.dropout.RowKey(i) : 0;
    auto keep = [&](int j) {
      return !dropout ? 1.0f : pb.dropout.Kept(row_key, j) ? keep_scale : 0.0f;
    };
    std::fill(o, o + dv_dim, 0.0f);
    for (int j = begin; j < end; ++j) {
      p[j] *= inv_sum;
      const float w = p[j] * keep(j);
      if (w != 0.0f) Axpy(w, pb.v + static_cast<size_t>(j) * dv_dim, o, dv_dim);
    }
    // 3. D = dOut·o; per key dS = P·(keep·dOut·v − D); dq, dk, dv.
    const float d = Dot(do_row, o, dv_dim);
    for (int j = begin; j < end; ++j) {
      if (p[j] == 0.0f) continue;  // blocked or underflowed: contributes nothing
      const float* v_row = pb.v + static_cast<size_t>(j) * dv_dim;
      const float slope = capped ? cap_slope[j] : 1.0f;
      const float kept = keep(j);
      const float dp = kept == 0.0f ? 0.0f : kept * Dot(do_row, v_row, dv_dim);
      const float ds = p[j] * (dp - d) * slope * pb.scale;
      Axpy(ds, pb.k + static_cast<size_t>(j) * dk_dim, dq_row, dk_dim);
      Axpy(ds, q_row, dk + static_cast<size_t>(j) * dk_dim, dk_dim);
      if (kept != 0.0f) Axpy(p[j] * kept, do_row, dv + static_cast<size_t>(j) * dv_dim, dv_dim);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {
namespace {

Status Check(const AttentionBackwardRequest& r) {
  const AttentionRequest& f = r.forward;
  if (f.batch < 0 || f.seq_q < 0 || f.seq_k < 0 || f.head_dim < 0 || f.value_dim < 0) {
    return Status::kNegativeDimension;
  }
  if (f.batch == 0 || f.seq_q == 0) return Status::kOk;
  if (f.q == nullptr || f.entries == nullptr || r.d_out == nullptr || r.dq == nullptr ||
      (f.seq_k > 0 && (f.k == nullptr || f.v == nullptr || r.dk == nullptr || r.dv == nullptr))) {
    return Status::kNullPointer;
  }
  if (f.mask != nullptr && f.allowed != nullptr) return Status::kBadArgument;
  if (!(f.softcap >= 0.0f) || std::isinf(f.softcap)) return Status::kBadArgument;
  if (!(f.dropout >= 0.0f && f.dropout < 1.0f)) return Status::kBadArgument;
  if ((f.mask != nullptr || f.allowed != nullptr) && f.mask_row_stride != 0 &&
      f.mask_row_stride < f.seq_k) {
    return Status::kBadStride;
  }
  if (!FloatsFit({f.batch, f.seq_q, f.value_dim}) || !FloatsFit({f.batch, f.seq_q, f.head_dim}) ||
      !FloatsFit({f.batch, f.seq_k, f.head_dim}) || !FloatsFit({f.batch, f.seq_k, f.value_dim})) {
    return Status::kTooLarge;
  }
  for (int b = 0; b < f.batch; ++b) {
    const int32_t limit = f.entries[b * kEntryColumns + kKeyLimit];
    if (limit < 0 || limit > f.seq_k) return Status::kBadKeyLength;
  }
  return Status::kOk;
}

}  // namespace

Status RunAttentionBackward(const AttentionBackwardRequest& r) {
  const Status status = Check(r);
  if (status != Status::kOk) return status;
  const AttentionRequest& f = r.forward;
  if (f.batch == 0 || f.seq_q == 0) return Status::kOk;
  Buffer<float> p, cap_slope, o;
  if (!p.Resize(std::max(1, f.seq_k)) || !cap_slope.Resize(std::max(1, f.seq_k)) ||
      !o.Resize(std::max(1, f.value_dim))) {
    return Status::kOutOfMemory;
  }
  // Zero every entry's dk and dv first: entries may share them (grouped-query heads), and
  // their gradients add up over the group, in entry order.
  for (int b = 0; b < f.batch && f.seq_k > 0; ++b) {
    const int32_t* e = f.entries + b * kEntryColumns;
    std::memset(r.dk + e[kKOffset], 0, sizeof(float) * static_cast<size_t>(f.seq_k) * f.head_dim);
    std::memset(r.dv + e[kVOffset], 0, sizeof(float) * static_cast<size_t>(f.seq_k) * f.value_dim);
  }
  for (int b = 0; b < f.batch; ++b) {
    const int32_t* e = f.entries + b * kEntryColumns;
    const HeadProblem pb = EntryProblem(f, b);
    HWY_STATIC_DISPATCH(HeadBackwardImpl)
    (pb, r.d_out + static_cast<size_t>(b) * f.seq_q * f.value_dim, r.dq + e[kQOffset],
     f.seq_k > 0 ? r.dk + e[kKOffset] : nullptr, f.seq_k > 0 ? r.dv + e[kVOffset] : nullptr,
     p.data(), cap_slope.data(), o.data());
  }
  return Status::kOk;
}

}  // namespace attn
