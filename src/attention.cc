#include "attention.h"

#include "head_problem.h"
#include "kernels/attention_steps.h"
#include "kernels/fused_attention.h"
#include "kernels/matmul.h"
#include "sizes.h"

namespace attn {
namespace {

Status CheckRequest(const AttentionRequest& r) {
  if (r.batch < 0 || r.seq_q < 0 || r.seq_k < 0 || r.head_dim < 0 || r.value_dim < 0) {
    return Status::kNegativeDimension;
  }
  if (r.batch == 0 || r.seq_q == 0) return Status::kOk;  // nothing to compute
  const bool has_keys = r.seq_k > 0;                     // with no keys, k and v are never read
  if (r.q == nullptr || r.out == nullptr || r.entries == nullptr ||
      (has_keys && (r.k == nullptr || r.v == nullptr))) {
    return Status::kNullPointer;
  }
  const bool has_mask = r.mask != nullptr || r.allowed != nullptr;
  if (r.mask != nullptr && r.allowed != nullptr) return Status::kBadArgument;
  if (has_mask && r.mask_row_stride != 0 && r.mask_row_stride < r.seq_k) {
    return Status::kBadStride;
  }
  if (r.q_stride < 0 || r.k_stride < 0 || r.v_stride < 0 || r.out_stride < 0 ||
      (r.q_stride > 0 && r.q_stride < r.head_dim) || (r.k_stride > 0 && r.k_stride < r.head_dim) ||
      (r.v_stride > 0 && r.v_stride < r.value_dim) ||
      (r.out_stride > 0 && r.out_stride < r.value_dim)) {
    return Status::kBadStride;
  }
  if (r.weights == nullptr &&
      (r.raw_scores != nullptr || r.scaled_scores != nullptr || r.masked_scores != nullptr)) {
    return Status::kNullPointer;
  }
  // Sizes the core computes offsets in (64-bit, before any is used): out and the stages.
  if ((r.out_offsets == nullptr && !FloatsFit({r.batch, r.seq_q, r.value_dim})) ||
      (r.weights != nullptr && !FloatsFit({r.batch, r.seq_q, r.seq_k}))) {
    return Status::kTooLarge;
  }
  for (int b = 0; b < r.batch; ++b) {
    const int32_t key_limit = r.entries[b * kEntryColumns + kKeyLimit];
    if (key_limit < 0 || key_limit > r.seq_k) return Status::kBadKeyLength;
  }
  return Status::kOk;
}

// The head problem of batch entry b.
HeadProblem EntryProblem(const AttentionRequest& r, int b) {
  const int32_t* e = r.entries + b * kEntryColumns;
  HeadProblem p;
  p.q = r.q + e[kQOffset];
  p.k = r.k == nullptr ? nullptr : r.k + e[kKOffset];  // null when seq_k = 0 (never read)
  p.v = r.v == nullptr ? nullptr : r.v + e[kVOffset];
  p.mask.additive = r.mask == nullptr ? nullptr : r.mask + e[kMaskOffset];
  p.mask.allowed = r.allowed == nullptr ? nullptr : r.allowed + e[kMaskOffset];
  p.mask.row_stride = r.mask_row_stride;
  p.seq_q = r.seq_q;
  p.seq_k = r.seq_k;
  p.head_dim = r.head_dim;
  p.value_dim = r.value_dim;
  p.q_stride = r.q_stride > 0 ? r.q_stride : r.head_dim;
  p.k_stride = r.k_stride > 0 ? r.k_stride : r.head_dim;
  p.v_stride = r.v_stride > 0 ? r.v_stride : r.value_dim;
  p.out_stride = r.out_stride > 0 ? r.out_stride : r.value_dim;
  p.scale = r.scale;
  p.visible.key_limit = e[kKeyLimit];
  p.visible.causal = r.causal;
  p.visible.causal_offset = r.causal_offset;
  p.out = r.out + (r.out_offsets != nullptr ? static_cast<size_t>(r.out_offsets[b])
                                            : static_cast<size_t>(b) * r.seq_q * r.value_dim);
  return p;
}

// Offsets `base` by entry b's [seq_q, seq_k] block, or keeps null.
float* StageOf(float* base, const AttentionRequest& r, int b) {
  return base == nullptr ? nullptr : base + static_cast<size_t>(b) * r.seq_q * r.seq_k;
}

}  // namespace

uint64_t AttentionScratchBytes(const AttentionRequest& r) {
  if (r.batch <= 0 || r.seq_q <= 0) return 0;
  if (r.weights != nullptr) return sizeof(float) * PanelFloats(r.head_dim, r.seq_k);  // QDotK
  return r.value_dim > 0 ? FusedWorkspaceBytes(r.seq_k, r.head_dim, r.value_dim) : 0;
}

Status RunAttention(const AttentionRequest& r) {
  const Status status = CheckRequest(r);
  if (status != Status::kOk) return status;
  if (r.batch == 0 || r.seq_q == 0) return Status::kOk;
  FusedWorkspace workspace;
  for (int b = 0; b < r.batch; ++b) {
    const HeadProblem problem = EntryProblem(r, b);
    Status entry_status = Status::kOk;
    if (r.weights == nullptr) {
      if (r.value_dim > 0) entry_status = FusedAttention(problem, workspace);
    } else {
      AttentionStages stages;
      stages.raw_scores = StageOf(r.raw_scores, r, b);
      stages.scaled_scores = StageOf(r.scaled_scores, r, b);
      stages.masked_scores = StageOf(r.masked_scores, r, b);
      stages.weights = StageOf(r.weights, r, b);
      entry_status = StepwiseAttention(problem, stages);
    }
    if (entry_status != Status::kOk) return entry_status;
  }
  return Status::kOk;
}

}  // namespace attn
