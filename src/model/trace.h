// One query position's whole path through a pretrained model (ModelInput::trace_position):
// the vectors the runner computes for that position, copied out as they pass, for a view that
// explains a forward pass with the runner's own numbers (web/elements/attention-explainer.js).
// Nothing is recomputed but the traced row's attention stages (scores, masked scores,
// weights), which run through the same step-by-step attention as forward's attention maps.
//
// A trace is one buffer of floats; its fields are listed once here (the contract exports
// their numbers to JS, TraceOffset says where each one starts). With d = d_model,
// qw = num_heads·head_dim, kv = num_kv_heads·head_dim, f = d_ff, H = num_heads, T = the
// call's length, V = vocab_size, per layer:
//   kNorm1 [d]            the attention's input (norm 1's output; the residual without one)
//   kQuery [qw]           the position's query, every head (q/k norms and rotary applied)
//   kKeys [T, kv]         every position's keys (likewise), kValues [T, kv] their values
//   kScores [H, T]        q·k·scale (softcapped when the model caps), kMaskedScores [H, T]
//                         with −Infinity where the position may not look, kWeights [H, T]
//   kHeads [qw]           each head's weighted sum of values, before the output projection
//   kAttentionOut [d]     after the output projection (before a post-attention norm)
//   kAttentionResidual [d] the residual stream after the attention's sub-layer
//   kNorm2 [d]            the feed-forward network's input
//   kMlpPre [f]           the activation's input (x·W_gate when gated, else x·W_up + b)
//   kMlpUp [f]            x·W_up when gated (zeros otherwise)
//   kMlpHidden [f]        act(pre) (⊙ up when gated): the down projection's input
//   kMlpOut [d]           after the down projection (before a post-FFN norm)
//   kResidual [d]         the block's output
// and once: kEmbedding [d] (after the embedding norm) with its parts kTokenEmbedding [d] (the
// token's row × the embedding multiplier) and kPositionEmbedding [d] (the position's row of a
// learned table; zeros without one), kFinal [d] (after the final norm; the last block's output
// without one), kLogits [V] (zeros without logits).
// Memory: layers × (2·T·kv + 3·H·T + widths) floats; nothing grows with T².
#ifndef ATTENTION_WASM_SRC_MODEL_TRACE_H_
#define ATTENTION_WASM_SRC_MODEL_TRACE_H_

#include <cstdint>

#include "status.h"

namespace attn {

// (descriptor.h includes self_attention.h, which includes this: declared, not included.)
struct ModelDescriptor;

// (name, per layer): the list makes the enum and the table the contract exports to JS.
// clang-format off
#define ATTN_TRACE_FIELDS(X)                                                                  \
  X(kEmbedding, false) X(kTokenEmbedding, false) X(kPositionEmbedding, false)                 \
  X(kFinal, false) X(kLogits, false)                                                          \
  X(kNorm1, true) X(kQuery, true) X(kKeys, true) X(kValues, true) X(kScores, true)            \
  X(kMaskedScores, true) X(kWeights, true) X(kHeads, true) X(kAttentionOut, true)             \
  X(kAttentionResidual, true) X(kNorm2, true) X(kMlpPre, true) X(kMlpUp, true)                \
  X(kMlpHidden, true) X(kMlpOut, true) X(kResidual, true)
// clang-format on

enum class TraceField : int {
#define ATTN_TRACE_FIELD_ENUMERATOR(name, per_layer) name,
  ATTN_TRACE_FIELDS(ATTN_TRACE_FIELD_ENUMERATOR)
#undef ATTN_TRACE_FIELD_ENUMERATOR
      kCount
};

// Floats of one field (of one layer) for a call of `len` positions.
uint64_t TraceFieldFloats(const ModelDescriptor& m, int len, TraceField field);
// Where a field starts in the trace buffer (layer ignored for the model-wide ones), in floats.
uint64_t TraceOffset(const ModelDescriptor& m, int len, TraceField field, int layer);
// The whole buffer's floats.
uint64_t TraceFloats(const ModelDescriptor& m, int len);

// What the attention sub-layer copies out for the traced row (self_attention.cc), each a
// place in the trace buffer.
struct AttentionTrace {
  int row = -1;    // the traced row (sequence 0, no cache: its position)
  float* query;    // [qw]
  float* keys;     // [T, kv]
  float* values;   // [T, kv]
  float* scores;   // [H, T]
  float* masked;   // [H, T]
  float* weights;  // [H, T]
  float* heads;    // [qw]
};

// What the feed-forward network copies out for the traced row (runner.cc, FeedForwardOf).
struct FfnTrace {
  int row = -1;
  float* pre;     // [f]
  float* up;      // [f]
  float* hidden;  // [f]
};

// The traced row's attention stages, through the step-by-step attention: its query against
// every key, scaled (and capped), masked as the call masks it, softmax.
//   q: [qw] (trace.query)   k: [T, kv] (trace.keys)   v: [T, kv]
// key_limit: the sequence's real tokens; window_left/right as AttentionRequest's.
struct TraceRowCall {
  int len, num_heads, num_kv_heads, head_dim, key_limit, window_left, window_right;
  float scale, softcap;
  bool causal;
};
Status TraceAttentionRow(const TraceRowCall& call, const AttentionTrace& trace);
// Bytes of scratch TraceAttentionRow allocates, at most (on top of the sub-layer's own).
uint64_t TraceRowScratchBytes(const ModelDescriptor& m, int len);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_MODEL_TRACE_H_
