#include "attention.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <new>

#include "buffer.h"
#include "head_problem.h"
#include "kernels/attention_steps.h"
#include "kernels/fused_attention.h"
#include "kernels/matmul.h"
#include "kernels/target.h"
#include "parallel.h"
#include "sizes.h"

namespace attn {
namespace {

Status CheckRequest(const AttentionRequest& r) {
  if (r.batch < 0 || r.seq_q < 0 || r.seq_k < 0 || r.head_dim < 0 || r.value_dim < 0) {
    return Status::kNegativeDimension;
  }
  if (r.batch == 0 || r.seq_q == 0) return Status::kOk;  // nothing to compute
  const bool has_keys = r.seq_k > 0;                     // with no keys, k and v are never read
  const bool keys_missing = r.kv_storage == KvStorage::kFloat32 ? r.k == nullptr || r.v == nullptr
                            : r.kv_storage == KvStorage::kQ8_0
                                ? r.kq == nullptr || r.vq == nullptr
                                : r.k16 == nullptr || r.v16 == nullptr;
  if (r.q == nullptr || r.out == nullptr || r.entries == nullptr || (has_keys && keys_missing)) {
    return Status::kNullPointer;
  }
  const bool has_mask = r.mask != nullptr || r.allowed != nullptr;
  if (r.mask != nullptr && r.allowed != nullptr) return Status::kBadArgument;
  if (has_mask && r.mask_row_stride != 0 && r.mask_row_stride < r.seq_k) {
    return Status::kBadStride;
  }
  if (r.kv_storage == KvStorage::kQ8_0 &&  // rows of whole blocks
      (r.k_stride % kKvQ8Block != 0 || r.v_stride % kKvQ8Block != 0 || r.k_stride == 0 ||
       r.v_stride == 0)) {
    return Status::kBadStride;
  }
  if (r.q_stride < 0 || r.k_stride < 0 || r.v_stride < 0 || r.out_stride < 0 ||
      (r.q_stride > 0 && r.q_stride < r.head_dim) || (r.k_stride > 0 && r.k_stride < r.head_dim) ||
      (r.v_stride > 0 && r.v_stride < r.value_dim) ||
      (r.out_stride > 0 && r.out_stride < r.value_dim)) {
    return Status::kBadStride;
  }
  if (r.weights == nullptr &&
      (r.raw_scores != nullptr || r.scaled_scores != nullptr || r.capped_scores != nullptr ||
       r.masked_scores != nullptr || r.dropped_weights != nullptr)) {
    return Status::kNullPointer;
  }
  if (!(r.softcap >= 0.0f) || std::isinf(r.softcap)) return Status::kBadArgument;
  if (!(r.dropout >= 0.0f && r.dropout < 1.0f)) return Status::kBadArgument;
  if (r.weights != nullptr && r.dropout > 0.0f && r.dropped_weights == nullptr) {
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

// Offsets `base` by entry b's [seq_q, seq_k] block, or keeps null.
float* StageOf(float* base, const AttentionRequest& r, int b) {
  return base == nullptr ? nullptr : base + static_cast<size_t>(b) * r.seq_q * r.seq_k;
}

// Query rows of one entry that the fused path runs as one task (4 tiles of 4 or 6 rows).
constexpr int kRowsOfOneTask = 16;

// Whether the fused path spreads whole batch entries (heads) over the threads rather than
// the query rows of one entry at a time: when the entries divide evenly, or are many, or
// when an entry's rows are one task anyway (a decode step's).
bool SpreadEntries(const AttentionRequest& r, int threads) {
  return threads > 1 && r.batch > 1 &&
         (r.batch % threads == 0 || r.batch >= 4 * threads || r.seq_q <= kRowsOfOneTask);
}

// Floating-point operations of the fused path (for ParallelFor's small-call threshold).
uint64_t FusedWork(const AttentionRequest& r) {
  // An entry of a few rows (a decode step's) is bound by reading its keys and values once,
  // not by its flops: counted as one task's rows, GPT-2-small's 12 heads go to the pool from 86 keys
  // of context (q8 decode at 512 keys, 2 threads, Node: 15.2 → 11.9 ms/token; SmolLM2-360M's
  // 5 key/value heads at 1,024 keys: 47.6 → 44.5).
  const uint64_t rows = std::max(r.seq_q, kRowsOfOneTask);
  return 2ull * r.batch * rows * r.seq_k * (r.head_dim + r.value_dim);
}

// Flash-decoding: a call of at most InPlaceRowsMax() query rows (a decode step) over at least two
// ranges of kSplitKeys keys runs each range of each entry as one task and merges them in
// order (FusedAttentionPartial, MergePartials), so the threads share even one entry's keys.
// A range is kSplitKeys keys, or twice or four times that while the call still has at least
// kSplitTasks tasks and each entry at least two ranges: each task starts its key and value
// streams anew (the prefetchers learn them again) and codes its query rows again, so longer
// ranges are cheaper while there are enough of them to share (Node, 1 thread, 8k keys, 4
// layers, q8: ranges of 4,096 keys took 0.96x the time of 1,024). The split does not depend on
// the thread count: neither do the bits. A task's workspace does not grow with its range (the
// in-place path reads one block of keys at a time: PrepareInPlace), so it is reserved for
// kSplitKeys keys whatever the range.
constexpr int kSplitKeys = 1024;
constexpr int kMaxSplitKeys = 4 * kSplitKeys;
constexpr int64_t kSplitTasks = 12;
int RangeKeys(const AttentionRequest& r) {
  const int64_t keys = int64_t{r.batch} * r.seq_k;  // of all the entries
  int range = kSplitKeys;
  while (range < kMaxSplitKeys && keys / (2 * range) >= kSplitTasks && 4 * range <= r.seq_k) {
    range *= 2;
  }
  return range;
}
bool SplitsKeys(const AttentionRequest& r) {
  return r.weights == nullptr && r.dropout == 0.0f && r.seq_q <= InPlaceRowsMax() &&
         r.seq_k >= 2 * kSplitKeys;
}
// Accumulator slots a call takes on one thread: a call of at most InPlaceRowsMax() rows one a
// tile of rows (two when they are taller than one tile), a taller call one.
int InPlaceTiles(const AttentionRequest& r) {
  return r.seq_q > TileRows() && r.seq_q <= InPlaceRowsMax() ? kInPlaceTiles : 1;
}
int KeyRanges(const AttentionRequest& r) {
  const int range = RangeKeys(r);
  return (r.seq_k + range - 1) / range;
}
uint64_t PartialFloats(const AttentionRequest& r) {
  return static_cast<uint64_t>(r.batch) * KeyRanges(r) * r.seq_q * (r.value_dim + 2);
}

Status FusedSplitKeys(const AttentionRequest& r, int threads) {
  const int ranges = KeyRanges(r), range_keys = RangeKeys(r);
  const size_t entry_floats = static_cast<size_t>(ranges) * r.seq_q * (r.value_dim + 2);
  Buffer<float> partials;
  std::unique_ptr<FusedWorkspace[]> workspaces(new (std::nothrow) FusedWorkspace[threads]);
  if (workspaces == nullptr || !partials.Resize(PartialFloats(r))) return Status::kOutOfMemory;
  for (int t = 0; t < threads; ++t) {  // sized here: pool threads must not allocate
    if (!ReserveFusedWorkspace(workspaces[t], kSplitKeys, r.head_dim, r.value_dim,
                               InPlaceTiles(r))) {
      return Status::kOutOfMemory;
    }
  }
  std::atomic<int> first_error{static_cast<int>(Status::kOk)};
  // Task: range p of entry b, ranges first (the threads take tasks in order from one counter).
  // A model's head-major cache holds each entry's (key/value head's) range as one run of rows,
  // so a task reads its keys and values as two streams whichever order the tasks run in.
  auto range = [&](int task, int slot) {
    const int p = task / r.batch, b = task % r.batch;
    const Status status = FusedAttentionPartial(
        EntryProblem(r, b), workspaces[slot], p * range_keys,
        std::min(r.seq_k, (p + 1) * range_keys),
        partials.data() + b * entry_floats + static_cast<size_t>(p) * r.seq_q * (r.value_dim + 2));
    int ok = static_cast<int>(Status::kOk);
    if (status != Status::kOk) first_error.compare_exchange_strong(ok, static_cast<int>(status));
  };
  ParallelForEach(r.batch * ranges, FusedWork(r), range);
  if (first_error.load() != static_cast<int>(Status::kOk))
    return static_cast<Status>(first_error.load());
  for (int b = 0; b < r.batch; ++b)
    MergePartials(EntryProblem(r, b), partials.data() + b * entry_floats, ranges);
  return Status::kOk;
}

// The fused path, one entry after another (query rows spread over the threads).
Status FusedEntries(const AttentionRequest& r) {
  FusedWorkspace workspace;
  for (int b = 0; b < r.batch; ++b) {
    const Status status = FusedAttention(EntryProblem(r, b), workspace);
    if (status != Status::kOk) return status;
  }
  return Status::kOk;
}

// The fused path with whole entries spread over the threads, each thread its own workspace,
// all sized here on the calling thread (pool threads must not allocate).
Status FusedEntriesInParallel(const AttentionRequest& r, int threads) {
  std::unique_ptr<FusedWorkspace[]> workspaces(new (std::nothrow) FusedWorkspace[threads]);
  if (workspaces == nullptr) return Status::kOutOfMemory;
  for (int t = 0; t < threads; ++t) {
    if (!ReserveFusedWorkspace(workspaces[t], r.seq_k, r.head_dim, r.value_dim, threads)) {
      return Status::kOutOfMemory;
    }
  }
  std::atomic<int> first_error{static_cast<int>(Status::kOk)};
  auto entry = [&](int b, int slot) {
    const Status status = FusedAttention(EntryProblem(r, b), workspaces[slot]);
    int ok = static_cast<int>(Status::kOk);
    if (status != Status::kOk) first_error.compare_exchange_strong(ok, static_cast<int>(status));
  };
  ParallelForEach(r.batch, FusedWork(r), entry);
  return static_cast<Status>(first_error.load());
}

// A half-stored entry's keys and values widened into float32 rows (the step-by-step kernels
// read float32), and the problem pointed at them; q8_0 keys that the fused kernel scores
// against coded queries (CodesQueries) are scored here against those queries' q̂.
//   k_wide: [seq_k, head_dim]   v_wide: [seq_k, value_dim]   q_wide: [seq_q, head_dim]
void WidenEntry(HeadProblem& p, float* k_wide, float* v_wide, float* q_wide) {
  if (CodesQueries(p.kv_storage, p.kq, p.k_stride, p.head_dim)) {
    for (int i = 0; i < p.seq_q; ++i) {
      RoundQueryRow(p.q + static_cast<size_t>(i) * p.q_stride, p.head_dim,
                    q_wide + static_cast<size_t>(i) * p.head_dim);
    }
    p.q = q_wide, p.q_stride = p.head_dim;
  }
  for (int j = 0; j < p.seq_k; ++j) {
    float* k_row = k_wide + static_cast<size_t>(j) * p.head_dim;
    float* v_row = v_wide + static_cast<size_t>(j) * p.value_dim;
    if (p.kv_storage == KvStorage::kQ8_0) {
      DequantizeQ8Elements(p.kq + static_cast<size_t>(j) * p.k_stride, p.head_dim, k_row);
      DequantizeQ8Elements(p.vq + static_cast<size_t>(j) * p.v_stride, p.value_dim, v_row);
    } else {
      WidenRow(p.k16 + static_cast<size_t>(j) * p.k_stride, p.head_dim, p.kv_storage, k_row);
      WidenRow(p.v16 + static_cast<size_t>(j) * p.v_stride, p.value_dim, p.kv_storage, v_row);
    }
  }
  p.k = k_wide, p.v = v_wide;
  p.k_stride = p.head_dim, p.v_stride = p.value_dim;
  p.kv_storage = KvStorage::kFloat32, p.k16 = p.v16 = nullptr, p.kq = p.vq = Q8Elements{};
}

// Floats of WidenEntry's rows (and a q8_0 entry's coded queries): none for float32 keys and values.
uint64_t WidenedFloats(const AttentionRequest& r) {
  if (r.kv_storage == KvStorage::kFloat32) return 0;
  const uint64_t queries =
      r.kv_storage == KvStorage::kQ8_0 ? uint64_t{1} * r.seq_q * r.head_dim : 0;
  return static_cast<uint64_t>(r.seq_k) * (r.head_dim + r.value_dim) + queries;
}

// The step-by-step path (weights and the stages asked for): one entry after another.
Status StepwiseEntries(const AttentionRequest& r) {
  Buffer<float> wide;  // half-stored keys and values, widened (WidenEntry)
  if (!wide.Resize(WidenedFloats(r))) return Status::kOutOfMemory;
  for (int b = 0; b < r.batch; ++b) {
    AttentionStages stages;
    stages.raw_scores = StageOf(r.raw_scores, r, b);
    stages.scaled_scores = StageOf(r.scaled_scores, r, b);
    stages.capped_scores = StageOf(r.capped_scores, r, b);
    stages.masked_scores = StageOf(r.masked_scores, r, b);
    stages.weights = StageOf(r.weights, r, b);
    stages.dropped_weights = StageOf(r.dropped_weights, r, b);
    HeadProblem p = EntryProblem(r, b);
    if (p.kv_storage != KvStorage::kFloat32 && p.seq_k > 0) {
      float* k_wide = wide.data();
      float* v_wide = k_wide + static_cast<size_t>(r.seq_k) * r.head_dim;
      WidenEntry(p, k_wide, v_wide, v_wide + static_cast<size_t>(r.seq_k) * r.value_dim);
    }
    const Status status = StepwiseAttention(p, stages);
    if (status != Status::kOk) return status;
  }
  return Status::kOk;
}

}  // namespace

HeadProblem EntryProblem(const AttentionRequest& r, int b) {
  const int32_t* e = r.entries + b * kEntryColumns;
  HeadProblem p;
  p.q = r.q + e[kQOffset];
  p.k = r.k == nullptr ? nullptr : r.k + e[kKOffset];  // null when seq_k = 0 (never read)
  p.v = r.v == nullptr ? nullptr : r.v + e[kVOffset];
  p.kv_storage = r.kv_storage;
  p.k16 = r.k16 == nullptr ? nullptr : r.k16 + e[kKOffset];
  p.v16 = r.v16 == nullptr ? nullptr : r.v16 + e[kVOffset];
  if (r.kq != nullptr) p.kq = Q8Elements{r.kq, static_cast<size_t>(e[kKOffset])};
  if (r.vq != nullptr) p.vq = Q8Elements{r.vq, static_cast<size_t>(e[kVOffset])};
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
  p.softcap = r.softcap;
  p.visible.key_limit = e[kKeyLimit];
  p.visible.causal = r.causal;
  p.visible.causal_offset = e[kCausalOffset];
  p.visible.window_left = r.window_left;
  p.visible.window_right = r.window_right;
  p.dropout.p = r.dropout;
  p.dropout.seed = r.dropout_seed;
  p.dropout.stream = static_cast<uint32_t>(b);
  if (r.out != nullptr) {  // the backward has no output
    p.out = r.out + (r.out_offsets != nullptr ? static_cast<size_t>(r.out_offsets[b])
                                              : static_cast<size_t>(b) * r.seq_q * r.value_dim);
  }
  return p;
}

uint64_t AttentionScratchBytes(const AttentionRequest& r) {
  if (r.batch <= 0 || r.seq_q <= 0) return 0;
  if (r.weights != nullptr)  // QDotK's panels, and the widened keys and values
    return sizeof(float) * (PanelFloats(r.head_dim, r.seq_k) + WidenedFloats(r));
  if (r.value_dim <= 0) return 0;
  const int threads = ThreadCount();
  if (SplitsKeys(r)) {
    return sizeof(float) * PartialFloats(r) +
           threads * FusedWorkspaceBytes(kSplitKeys, r.head_dim, r.value_dim, InPlaceTiles(r));
  }
  const uint64_t one =
      FusedWorkspaceBytes(r.seq_k, r.head_dim, r.value_dim, std::max(threads, InPlaceTiles(r)));
  return SpreadEntries(r, threads) ? one * threads : one;
}

Status RunAttention(const AttentionRequest& r) {
  const Status status = CheckRequest(r);
  if (status != Status::kOk) return status;
  if (r.batch == 0 || r.seq_q == 0) return Status::kOk;
  if (r.weights != nullptr) return StepwiseEntries(r);
  if (r.value_dim == 0) return Status::kOk;
  const int threads = ThreadCount();
  if (SplitsKeys(r)) return FusedSplitKeys(r, threads);
  if (SpreadEntries(r, threads) && FusedWork(r) >= kParallelMinWork) {
    return FusedEntriesInParallel(r, threads);
  }
  return FusedEntries(r);
}

}  // namespace attn
