#include "train/self_attention.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "hwy/highway.h"
#include "parallel.h"

namespace attn {
namespace {

// One (sequence, head) pair: views into the [batch, seq, d_model] tensors at its column block.
struct Head {
  int seq, stride, head_dim, visible_limit;
  bool causal;
  float scale;
  size_t offset;  // of row 0's head columns, in floats
  float* p;       // [seq, seq]

  int Visible(int i) const { return causal ? std::min(i + 1, visible_limit) : visible_limit; }
  size_t Row(int i) const { return offset + static_cast<size_t>(i) * stride; }
};

Head HeadAt(const SelfAttentionShape& s, int task, float* p) {
  const int b = task / s.heads, h = task % s.heads;
  Head head;
  head.seq = s.seq;
  head.stride = s.d_model;
  head.head_dim = s.d_model / s.heads;
  head.visible_limit = s.key_limits[b];
  head.causal = s.causal;
  head.scale = 1.0f / std::sqrt(static_cast<float>(head.head_dim));
  head.offset = static_cast<size_t>(b) * s.seq * s.d_model + static_cast<size_t>(h) * head.head_dim;
  head.p = p + static_cast<size_t>(task) * s.seq * s.seq;
  return head;
}

}  // namespace
}  // namespace attn

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/vector_ops-inl.h"

void HeadForwardImpl(const Head& hd, const float* q, const float* k, const float* v, float* o) {
  for (int i = 0; i < hd.seq; ++i) {
    float* p_row = hd.p + static_cast<size_t>(i) * hd.seq;
    float* o_row = o + hd.Row(i);
    std::fill(p_row, p_row + hd.seq, 0.0f);
    std::fill(o_row, o_row + hd.head_dim, 0.0f);
    const int visible = hd.Visible(i);
    if (visible == 0) continue;  // sees no key: zero output, zero gradient
    // 1. Scores of the visible keys and their max.
    float max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < visible; ++j) {
      p_row[j] = Dot(q + hd.Row(i), k + hd.Row(j), hd.head_dim) * hd.scale;
      max = std::max(max, p_row[j]);
    }
    // 2. Softmax, then the weighted sum of the values.
    float sum = 0.0f;
    for (int j = 0; j < visible; ++j) sum += p_row[j] = std::exp(p_row[j] - max);
    for (int j = 0; j < visible; ++j) {
      p_row[j] /= sum;
      Axpy(p_row[j], v + hd.Row(j), o_row, hd.head_dim);
    }
  }
}

// dq rows are written; dk and dv rows of this head are accumulated (zeroed first).
void HeadBackwardImpl(const Head& hd, const float* q, const float* k, const float* v,
                      const float* d_o, float* dq, float* dk, float* dv) {
  for (int j = 0; j < hd.seq; ++j) {
    std::fill(dk + hd.Row(j), dk + hd.Row(j) + hd.head_dim, 0.0f);
    std::fill(dv + hd.Row(j), dv + hd.Row(j) + hd.head_dim, 0.0f);
  }
  for (int i = 0; i < hd.seq; ++i) {
    const float* p_row = hd.p + static_cast<size_t>(i) * hd.seq;
    const float* do_row = d_o + hd.Row(i);
    float* dq_row = dq + hd.Row(i);
    std::fill(dq_row, dq_row + hd.head_dim, 0.0f);
    const int visible = hd.Visible(i);
    // 1. D = Σ_j P_ij·(dO_i·V_j) = dO_i·O_i: the softmax's correction term.
    float d = 0.0f;
    for (int j = 0; j < visible; ++j) d += p_row[j] * Dot(do_row, v + hd.Row(j), hd.head_dim);
    // 2. Per key: dS, then dQ, dK, dV.
    for (int j = 0; j < visible; ++j) {
      if (p_row[j] == 0.0f) continue;
      const float ds = p_row[j] * (Dot(do_row, v + hd.Row(j), hd.head_dim) - d) * hd.scale;
      Axpy(ds, k + hd.Row(j), dq_row, hd.head_dim);
      Axpy(ds, q + hd.Row(i), dk + hd.Row(j), hd.head_dim);
      Axpy(p_row[j], do_row, dv + hd.Row(j), hd.head_dim);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {
namespace {

uint64_t Work(const SelfAttentionShape& s) { return 4ull * s.batch * s.seq * s.seq * s.d_model; }

}  // namespace

void SelfAttentionForward(const SelfAttentionShape& s, const float* q, const float* k,
                          const float* v, float* p, float* o) {
  // (sequence, head) pairs are independent: spread over the threads, same bits on any count.
  auto task = [&](int index, int) {
    HWY_STATIC_DISPATCH(HeadForwardImpl)(HeadAt(s, index, p), q, k, v, o);
  };
  ParallelForEach(s.batch * s.heads, Work(s), task);
}

void SelfAttentionBackward(const SelfAttentionShape& s, const float* q, const float* k,
                           const float* v, const float* p, const float* d_o, float* dq, float* dk,
                           float* dv) {
  auto task = [&](int index, int) {
    HWY_STATIC_DISPATCH(HeadBackwardImpl)
    (HeadAt(s, index, const_cast<float*>(p)), q, k, v, d_o, dq, dk, dv);
  };
  ParallelForEach(s.batch * s.heads, 2 * Work(s), task);
}

}  // namespace attn
