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
#include "contract.h"
#include "heap_address.h"
#include "hwy/highway.h"
#include "kernels/matmul.h"
#include "kernels/target.h"
#include "parallel.h"
#include "status.h"

namespace {

// An attention call as JS lays it out in the heap: its slots (contract.h, CallSlot).

// The core's request for the call at `slots` (heap addresses as pointers).
attn::AttentionRequest RequestFromSlots(uintptr_t slots) {
  const uint32_t* s = Ptr<const uint32_t>(slots);
  const auto address = [&](CallSlot slot) { return static_cast<uintptr_t>(s[slot]); };
  const auto integer = [&](CallSlot slot) { return static_cast<int32_t>(s[slot]); };
  attn::AttentionRequest r;
  r.q = Ptr<const float>(address(kQ));
  r.k = Ptr<const float>(address(kK));
  r.v = Ptr<const float>(address(kV));
  r.mask = Ptr<const float>(address(kMask));
  r.allowed = Ptr<const uint8_t>(address(kAllowed));
  r.entries = Ptr<const int32_t>(address(kEntries));
  r.mask_row_stride = integer(kMaskRowStride);
  r.batch = integer(kBatch);
  r.seq_q = integer(kSeqQ);
  r.seq_k = integer(kSeqK);
  r.head_dim = integer(kHeadDim);
  r.value_dim = integer(kValueDim);
  std::memcpy(&r.scale, &s[kScale], sizeof(float));
  std::memcpy(&r.softcap, &s[kSoftcap], sizeof(float));
  std::memcpy(&r.dropout, &s[kDropout], sizeof(float));
  r.dropout_seed = s[kDropoutSeed];
  r.window_left = integer(kWindowLeft);
  r.window_right = integer(kWindowRight);
  r.causal = s[kCausal] != 0;
  r.q_stride = integer(kQStride);
  r.k_stride = integer(kKStride);
  r.v_stride = integer(kVStride);
  r.out_stride = integer(kOutStride);
  r.out_offsets = Ptr<const int32_t>(address(kOutOffsets));
  r.out = Ptr<float>(address(kOut));
  r.weights = Ptr<float>(address(kWeights));
  r.raw_scores = Ptr<float>(address(kRawScores));
  r.scaled_scores = Ptr<float>(address(kScaledScores));
  r.capped_scores = Ptr<float>(address(kCappedScores));
  r.masked_scores = Ptr<float>(address(kMaskedScores));
  r.dropped_weights = Ptr<float>(address(kDroppedWeights));
  return r;
}

}  // namespace

// The forward: `slots` as above. Returns a status code.
extern "C" EMSCRIPTEN_KEEPALIVE int attention_run(uintptr_t slots) {
  if (slots == 0) return static_cast<int>(attn::Status::kNullPointer);
  return static_cast<int>(attn::RunAttention(RequestFromSlots(slots)));
}

// Gradients of attention (see src/attention_backward.h): the forward's call plus dOut in and
// dq, dk, dv out (no broadcasting; offsets from the same batch table).
extern "C" EMSCRIPTEN_KEEPALIVE int attention_backward_run(uintptr_t slots, uintptr_t d_out,
                                                           uintptr_t dq, uintptr_t dk,
                                                           uintptr_t dv) {
  if (slots == 0) return static_cast<int>(attn::Status::kNullPointer);
  attn::AttentionBackwardRequest r;
  r.forward = RequestFromSlots(slots);
  r.d_out = Ptr<const float>(d_out);
  r.dq = Ptr<float>(dq);
  r.dk = Ptr<float>(dk);
  r.dv = Ptr<float>(dv);
  return static_cast<int>(attn::RunAttentionBackward(r));
}

namespace {

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
// mallinfo's fields are ints; the heap passes 2 GiB, so they are read as unsigned.
double HeapBytesInUse() { return static_cast<double>(static_cast<unsigned>(mallinfo().uordblks)); }

// The most the heap has ever held from the system (dlmalloc's max footprint): a high-water
// mark that includes scratch memory freed before a call returned.
double HeapPeakBytes() { return static_cast<double>(static_cast<unsigned>(mallinfo().usmblks)); }

// The kernels' own answer: the relaxed-SIMD build compiles only them with relaxed FMA.
std::string SimdTarget() { return attn::KernelTarget(); }

// Starts the kernels' thread pool (threaded builds; JS calls it once, at init): the number of
// threads in effect, the caller included (1 in the single-threaded builds).
int SetThreads(int count) { return attn::SetThreadCount(count); }

int Threads() { return attn::ThreadCount(); }

// The kernels' register-tile height (JS calls it once, at init; see kernels/target.h): the
// height in effect, 4 where the build has no other.
int SetTileRows(int rows) { return attn::SetTileRows(rows); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_wasm) {
  emscripten::function("_matmul", &RunMatMul);
  emscripten::function("_attentionScratch", &AttentionScratch);
  emscripten::function("_matmulScratch", &MatMulScratch);
  emscripten::function("_heapMaxBytes", &HeapMaxBytes);
  emscripten::function("_statusMessage", &StatusMessage);
  emscripten::function("_heapBytesInUse", &HeapBytesInUse);
  emscripten::function("_heapPeakBytes", &HeapPeakBytes);
  emscripten::function("_simdTarget", &SimdTarget);
  emscripten::function("_setThreads", &SetThreads);
  emscripten::function("_threads", &Threads);
  emscripten::function("_setTileRows", &SetTileRows);
}
