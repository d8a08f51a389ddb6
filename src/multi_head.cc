#include "multi_head.h"

#include <algorithm>
#include <cmath>

#include "attention.h"
#include "buffer.h"
#include "kernels/matmul.h"
#include "sizes.h"

namespace attn {
namespace {

Status CheckRequest(const MultiHeadRequest& r) {
  if (r.batch < 0 || r.seq_q < 0 || r.seq_k < 0 || r.d_model <= 0 || r.k_dim <= 0 || r.v_dim <= 0 ||
      r.num_heads <= 0 || r.num_kv_heads <= 0) {
    return Status::kNegativeDimension;
  }
  if (r.d_model % r.num_heads != 0 || r.num_heads % r.num_kv_heads != 0) {
    return Status::kBadHeadCount;
  }
  const MultiHeadWeights& w = r.weights;
  if (r.query == nullptr || r.key == nullptr || r.value == nullptr || r.out == nullptr ||
      (w.wq == nullptr && w.wq_panels == nullptr) || (w.wk == nullptr && w.wk_panels == nullptr) ||
      (w.wv == nullptr && w.wv_panels == nullptr) || (w.wo == nullptr && w.wo_panels == nullptr) ||
      ((r.mask != nullptr || r.allowed != nullptr) && r.mask_offsets == nullptr)) {
    return Status::kNullPointer;
  }
  // Sizes (64-bit): every projection and the weights, so no int offset below wraps.
  const int64_t kv_width = static_cast<int64_t>(r.d_model / r.num_heads) * r.num_kv_heads;
  if (!FloatsFit({r.batch, r.seq_q, r.d_model}) || !FloatsFit({r.batch, r.seq_k, kv_width}) ||
      !FloatsFit({r.batch, r.seq_k, r.k_dim}) || !FloatsFit({r.batch, r.seq_k, r.v_dim}) ||
      !FloatsFit({r.batch, r.num_heads, r.seq_q, r.seq_k}) ||
      !FloatsFit({std::max({r.d_model, r.k_dim, r.v_dim}), r.d_model})) {
    return Status::kTooLarge;
  }
  if (r.key_lengths != nullptr) {
    for (int b = 0; b < r.batch; ++b) {
      if (r.key_lengths[b] < 0 || r.key_lengths[b] > r.seq_k) return Status::kBadKeyLength;
    }
  }
  return Status::kOk;
}

// Uses `given` if the caller wants this buffer back, else `scratch` sized to `count`;
// null when the scratch cannot be allocated.
float* BufferOr(float* given, Buffer<float>& scratch, uint64_t count) {
  if (given != nullptr) return given;
  return scratch.Resize(count) ? scratch.data() : nullptr;
}

// One attention entry per (batch, head), see step 2 of MultiHeadForward.
int64_t EntryCount(const MultiHeadRequest& r) {
  return static_cast<int64_t>(r.batch) * r.num_heads;
}

}  // namespace

Status MultiHeadForward(const MultiHeadRequest& r) {
  const Status status = CheckRequest(r);
  if (status != Status::kOk) return status;
  if (r.batch == 0 || r.seq_q == 0) return Status::kOk;
  const int head_dim = r.d_model / r.num_heads;
  const int kv_width = r.num_kv_heads * head_dim;
  const int group = r.num_heads / r.num_kv_heads;
  const int rows_q = r.batch * r.seq_q;
  const int rows_k = r.batch * r.seq_k;
  const MultiHeadWeights& w = r.weights;

  // 0. Scratch: the projections the caller does not want back, and the entry table.
  Buffer<float> q_scratch, k_scratch, v_scratch, concat_scratch;
  Buffer<int32_t> entries, out_offsets;
  const int entries_count = static_cast<int>(EntryCount(r));
  float* q = BufferOr(r.q_proj, q_scratch, static_cast<uint64_t>(rows_q) * r.d_model);
  float* k = BufferOr(r.k_proj, k_scratch, static_cast<uint64_t>(rows_k) * kv_width);
  float* v = BufferOr(r.v_proj, v_scratch, static_cast<uint64_t>(rows_k) * kv_width);
  float* concat = BufferOr(r.concat, concat_scratch, static_cast<uint64_t>(rows_q) * r.d_model);
  if (q == nullptr || k == nullptr || v == nullptr || concat == nullptr ||
      !entries.Resize(static_cast<uint64_t>(entries_count) * kEntryColumns) ||
      !out_offsets.Resize(entries_count)) {
    return Status::kOutOfMemory;
  }

  // 1. Projections: Q = query·W_Q + b_Q, K = key·W_K + b_K, V = value·W_V + b_V.
  for (const Status s : {MatMul(r.query, w.wq, w.bq, rows_q, r.d_model, r.d_model, q, w.wq_panels),
                         MatMul(r.key, w.wk, w.bk, rows_k, r.k_dim, kv_width, k, w.wk_panels),
                         MatMul(r.value, w.wv, w.bv, rows_k, r.v_dim, kv_width, v, w.wv_panels)}) {
    if (s != Status::kOk) return s;
  }

  // 2. One attention entry per (batch, head): head h reads columns h·head_dim .. of Q and
  //    the columns of its key/value group, and writes the same columns of `concat`.
  for (int b = 0; b < r.batch; ++b) {
    for (int h = 0; h < r.num_heads; ++h) {
      const int e = b * r.num_heads + h;
      int32_t* row = entries.data() + static_cast<size_t>(e) * kEntryColumns;
      row[kQOffset] = b * r.seq_q * r.d_model + h * head_dim;
      row[kKOffset] = b * r.seq_k * kv_width + (h / group) * head_dim;
      row[kVOffset] = row[kKOffset];
      row[kMaskOffset] = r.mask_offsets != nullptr ? r.mask_offsets[e] : 0;
      row[kKeyLimit] = r.key_lengths != nullptr ? r.key_lengths[b] : r.seq_k;
      row[kCausalOffset] = r.causal_offset;
      out_offsets[e] = row[kQOffset];
    }
  }
  AttentionRequest a;
  a.q = q;
  a.k = k;
  a.v = v;
  a.mask = r.mask;
  a.allowed = r.allowed;
  a.mask_row_stride = r.mask_row_stride;
  a.entries = entries.data();
  a.batch = entries_count;
  a.seq_q = r.seq_q;
  a.seq_k = r.seq_k;
  a.head_dim = head_dim;
  a.value_dim = head_dim;
  a.q_stride = r.d_model;
  a.k_stride = kv_width;
  a.v_stride = kv_width;
  a.out_stride = r.d_model;
  a.out_offsets = out_offsets.data();
  a.scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  a.causal = r.causal;
  a.window_left = r.window_left;
  a.window_right = r.window_right;
  a.out = concat;
  a.weights = r.attention_weights;
  const Status attention_status = RunAttention(a);
  if (attention_status != Status::kOk) return attention_status;

  // 3. Output projection: Y = Concat(heads)·W_O + b_O.
  return MatMul(concat, w.wo, w.bo, rows_q, r.d_model, r.d_model, r.out, w.wo_panels);
}

uint64_t MultiHeadScratchBytes(const MultiHeadRequest& r) {
  if (r.batch <= 0 || r.seq_q <= 0 || r.d_model <= 0 || r.num_heads <= 0) return 0;
  const uint64_t head_dim = r.d_model / r.num_heads;
  const uint64_t kv_width = head_dim * r.num_kv_heads;
  const uint64_t rows_q = static_cast<uint64_t>(r.batch) * r.seq_q;
  const uint64_t rows_k = static_cast<uint64_t>(r.batch) * r.seq_k;
  const auto unless = [](const float* given, uint64_t floats) { return given ? 0 : floats; };
  const uint64_t projections =
      unless(r.q_proj, rows_q * r.d_model) + unless(r.k_proj, rows_k * kv_width) +
      unless(r.v_proj, rows_k * kv_width) + unless(r.concat, rows_q * r.d_model);
  const uint64_t table = static_cast<uint64_t>(EntryCount(r)) * (kEntryColumns + 1);
  // The MatMuls run one at a time, then attention: the largest of their scratch counts
  // (none for a matrix whose panels the layer keeps).
  const MultiHeadWeights& w = r.weights;
  const auto packing = [](const float* panels, uint64_t floats) { return panels ? 0 : floats; };
  const uint64_t panels = std::max({packing(w.wq_panels, PanelFloats(r.d_model, r.d_model)),
                                    packing(w.wo_panels, PanelFloats(r.d_model, r.d_model)),
                                    packing(w.wk_panels, PanelFloats(r.k_dim, kv_width)),
                                    packing(w.wv_panels, PanelFloats(r.v_dim, kv_width))});
  AttentionRequest a;
  a.batch = 1;
  a.seq_q = r.seq_q;
  a.seq_k = r.seq_k;
  a.head_dim = a.value_dim = static_cast<int>(head_dim);
  a.weights = r.attention_weights;
  return sizeof(float) * (projections + table) +
         std::max<uint64_t>(sizeof(float) * panels, AttentionScratchBytes(a));
}

}  // namespace attn
