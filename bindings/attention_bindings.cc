// Embind glue: the raw, pointer-level entry points that bindings/js/ builds the public API
// on. JS validates and copies tensors into the wasm heap, calls these, and copies out.
// Nothing here throws: problems come back as a status code.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "attention.h"
#include "attention_backward.h"
#include "heap_address.h"
#include "hwy/highway.h"
#include "kernels/matmul.h"
#include "kernels/target.h"
#include "parallel.h"
#include "status.h"

namespace {

// The JS-facing form of attn::AttentionRequest: heap addresses instead of pointers.
struct AttentionCall {
  uintptr_t q = 0, k = 0, v = 0, mask = 0, allowed = 0, entries = 0;
  int mask_row_stride = 0, batch = 0, seq_q = 0, seq_k = 0, head_dim = 0, value_dim = 0;
  float scale = 1.0f;
  bool causal = false;
  int causal_offset = 0;
  uintptr_t out = 0, weights = 0, raw_scores = 0, scaled_scores = 0, masked_scores = 0;
};

// The core's request for a call (heap addresses as pointers).
attn::AttentionRequest ToRequest(const AttentionCall& c) {
  attn::AttentionRequest r;
  r.q = Ptr<const float>(c.q);
  r.k = Ptr<const float>(c.k);
  r.v = Ptr<const float>(c.v);
  r.mask = Ptr<const float>(c.mask);
  r.allowed = Ptr<const uint8_t>(c.allowed);
  r.mask_row_stride = c.mask_row_stride;
  r.entries = Ptr<const int32_t>(c.entries);
  r.batch = c.batch;
  r.seq_q = c.seq_q;
  r.seq_k = c.seq_k;
  r.head_dim = c.head_dim;
  r.value_dim = c.value_dim;
  r.scale = c.scale;
  r.causal = c.causal;
  r.causal_offset = c.causal_offset;
  r.out = Ptr<float>(c.out);
  r.weights = Ptr<float>(c.weights);
  r.raw_scores = Ptr<float>(c.raw_scores);
  r.scaled_scores = Ptr<float>(c.scaled_scores);
  r.masked_scores = Ptr<float>(c.masked_scores);
  return r;
}

int RunAttentionCall(const AttentionCall& c) {
  return static_cast<int>(attn::RunAttention(ToRequest(c)));
}

// The same call laid out by JS in the heap as 4-byte slots (bindings/js/attention.js,
// CALL_SLOTS, in this order): addresses and sizes as 32-bit integers, the scale as a float.
// Read by a plain wasm export, not through Embind: converting the 20-field value_object
// was ~15% of a small call's time in Chromium.
enum CallSlot {
  kQ,
  kK,
  kV,
  kMask,
  kAllowed,
  kEntries,
  kMaskRowStride,
  kBatch,
  kSeqQ,
  kSeqK,
  kHeadDim,
  kValueDim,
  kScale,
  kCausal,
  kCausalOffset,
  kOut,
  kWeights,
  kRawScores,
  kScaledScores,
  kMaskedScores,
  kCallSlots
};

AttentionCall FromSlots(const uint32_t* s) {
  AttentionCall c;
  c.q = s[kQ];
  c.k = s[kK];
  c.v = s[kV];
  c.mask = s[kMask];
  c.allowed = s[kAllowed];
  c.entries = s[kEntries];
  c.mask_row_stride = static_cast<int32_t>(s[kMaskRowStride]);
  c.batch = static_cast<int32_t>(s[kBatch]);
  c.seq_q = static_cast<int32_t>(s[kSeqQ]);
  c.seq_k = static_cast<int32_t>(s[kSeqK]);
  c.head_dim = static_cast<int32_t>(s[kHeadDim]);
  c.value_dim = static_cast<int32_t>(s[kValueDim]);
  std::memcpy(&c.scale, &s[kScale], sizeof(float));
  c.causal = s[kCausal] != 0;
  c.causal_offset = static_cast<int32_t>(s[kCausalOffset]);
  c.out = s[kOut];
  c.weights = s[kWeights];
  c.raw_scores = s[kRawScores];
  c.scaled_scores = s[kScaledScores];
  c.masked_scores = s[kMaskedScores];
  return c;
}

}  // namespace

// slots: [kCallSlots] (see CallSlot). Returns a status code.
extern "C" EMSCRIPTEN_KEEPALIVE int attention_run(uintptr_t slots) {
  if (slots == 0) return static_cast<int>(attn::Status::kNullPointer);
  return RunAttentionCall(FromSlots(Ptr<const uint32_t>(slots)));
}

namespace {

// Gradients of attention (see src/attention_backward.h): the forward's call plus dOut in and
// dq, dk, dv out (no broadcasting; offsets from the same batch table).
int RunAttentionBackwardCall(const AttentionCall& c, uintptr_t d_out, uintptr_t dq, uintptr_t dk,
                             uintptr_t dv) {
  attn::AttentionBackwardRequest r;
  r.forward = ToRequest(c);
  r.d_out = Ptr<const float>(d_out);
  r.dq = Ptr<float>(dq);
  r.dk = Ptr<float>(dk);
  r.dv = Ptr<float>(dv);
  return static_cast<int>(attn::RunAttentionBackward(r));
}

// out = a·b   a: [rows, inner]  b: [inner, cols]  out: [rows, cols]
int RunMatMul(uintptr_t a, uintptr_t b, int rows, int inner, int cols, uintptr_t out) {
  if (rows < 0 || inner < 0 || cols < 0) return static_cast<int>(attn::Status::kNegativeDimension);
  if (a == 0 || b == 0 || out == 0) return static_cast<int>(attn::Status::kNullPointer);
  return static_cast<int>(attn::MatMul(Ptr<const float>(a), Ptr<const float>(b), nullptr, rows,
                                       inner, cols, Ptr<float>(out)));
}

// Scratch bytes of an attention call (the core's own allocations), for attn.estimateMemory.
double AttentionScratch(int batch, int seq_q, int seq_k, int head_dim, int value_dim,
                        bool weights) {
  attn::AttentionRequest r;
  r.batch = batch;
  r.seq_q = seq_q;
  r.seq_k = seq_k;
  r.head_dim = head_dim;
  r.value_dim = value_dim;
  float placeholder = 0;  // only its being non-null matters: the step-by-step path
  r.weights = weights ? &placeholder : nullptr;
  return static_cast<double>(attn::AttentionScratchBytes(r));
}

double MatMulScratch(int inner, int cols) {
  return static_cast<double>(sizeof(float) * attn::PanelFloats(inner, cols));
}

// The most the wasm heap can grow to (MAXIMUM_MEMORY of the build): JS checks sizes against it.
double HeapMaxBytes() { return static_cast<double>(emscripten_get_heap_max()); }

std::string StatusMessage(int code) { return attn::StatusMessage(static_cast<attn::Status>(code)); }

// Bytes of the wasm heap currently handed out by malloc (for leak checks and the bench).
double HeapBytesInUse() { return static_cast<double>(mallinfo().uordblks); }

// The most the heap has ever held from the system (dlmalloc's max footprint): a high-water
// mark that includes scratch memory freed before a call returned.
double HeapPeakBytes() { return static_cast<double>(mallinfo().usmblks); }

// The kernels' own answer: the relaxed-SIMD build compiles only them with relaxed FMA.
std::string SimdTarget() { return attn::KernelTarget(); }

// Starts the kernels' thread pool (threaded builds; JS calls it once, at init): the number of
// threads in effect, the caller included (1 in the single-threaded builds).
int SetThreads(int count) { return attn::SetThreadCount(count); }

int Threads() { return attn::ThreadCount(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_wasm) {
  emscripten::value_object<AttentionCall>("AttentionCall")
      .field("q", &AttentionCall::q)
      .field("k", &AttentionCall::k)
      .field("v", &AttentionCall::v)
      .field("mask", &AttentionCall::mask)
      .field("allowed", &AttentionCall::allowed)
      .field("entries", &AttentionCall::entries)
      .field("maskRowStride", &AttentionCall::mask_row_stride)
      .field("batch", &AttentionCall::batch)
      .field("seqQ", &AttentionCall::seq_q)
      .field("seqK", &AttentionCall::seq_k)
      .field("headDim", &AttentionCall::head_dim)
      .field("valueDim", &AttentionCall::value_dim)
      .field("scale", &AttentionCall::scale)
      .field("causal", &AttentionCall::causal)
      .field("causalOffset", &AttentionCall::causal_offset)
      .field("out", &AttentionCall::out)
      .field("weights", &AttentionCall::weights)
      .field("rawScores", &AttentionCall::raw_scores)
      .field("scaledScores", &AttentionCall::scaled_scores)
      .field("maskedScores", &AttentionCall::masked_scores);
  emscripten::function("_matmul", &RunMatMul);
  emscripten::function("_attentionBackward", &RunAttentionBackwardCall);
  emscripten::function("_attentionScratch", &AttentionScratch);
  emscripten::function("_matmulScratch", &MatMulScratch);
  emscripten::function("_heapMaxBytes", &HeapMaxBytes);
  emscripten::function("_statusMessage", &StatusMessage);
  emscripten::function("_heapBytesInUse", &HeapBytesInUse);
  emscripten::function("_heapPeakBytes", &HeapPeakBytes);
  emscripten::function("_simdTarget", &SimdTarget);
  emscripten::function("_setThreads", &SetThreads);
  emscripten::function("_threads", &Threads);
}
