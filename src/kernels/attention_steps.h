// Attention as the textbook writes it, one named step at a time, with the full
// seq_q × seq_k score matrix in memory. Used when the caller asks for the weights or for
// a trace of every stage; otherwise the fused kernel (fused_attention.h) is used.
#ifndef ATTENTION_WASM_SRC_KERNELS_ATTENTION_STEPS_H_
#define ATTENTION_WASM_SRC_KERNELS_ATTENTION_STEPS_H_

#include "head_problem.h"
#include "status.h"

namespace attn {

// scores = q·kᵀ
//   q: [seq_q, head_dim] (row stride q_stride)  k: [seq_k, head_dim] (row stride k_stride)
//   scores: [seq_q, seq_k]. kOutOfMemory when kᵀ's panels cannot be allocated.
Status QDotK(const float* q, int q_stride, const float* k, int k_stride, int seq_q, int seq_k,
             int head_dim, float* scores);

// scores *= scale, in place.   scores: [count]
void ScaleScores(float* scores, int count, float scale);

// scores = softcap·tanh(scores / softcap), in place (softcap > 0).   scores: [count]
void SoftcapScores(float* scores, int count, float softcap);

// scores[i][j] = -Inf where key j is blocked (mask value -Inf, or j outside the visible
// rule's KeyBegin(i) .. KeyEnd(i) - 1),
// else scores[i][j] + mask[i][j]. In place.
//   scores: [seq_q, seq_k]   mask: see MaskView (may be empty)
void ApplyMask(float* scores, int seq_q, int seq_k, const MaskView& mask,
               const VisibleKeyRule& visible);

// Row-wise softmax in place. A row of only -Inf becomes zeros; a row holding NaN or
// +Infinity becomes NaN.   scores: [seq_q, seq_k]
void SoftmaxRows(float* scores, int seq_q, int seq_k);

// Dropout of the weights in place: each weight dropout.Kept keeps is divided by 1 − p, the
// others become 0.   weights: [seq_q, seq_k]
void DropoutRows(float* weights, int seq_q, int seq_k, const DropoutRule& dropout);

// out = weights·v, where a zero weight contributes nothing (so blocked NaN/Inf values
// never reach the output).
//   weights: [seq_q, seq_k]  v: [seq_k, value_dim] (row stride v_stride)
//   out: [seq_q, value_dim] (row stride out_stride)
void WeightedSumV(const float* weights, const float* v, int v_stride, int seq_q, int seq_k,
                  int value_dim, float* out, int out_stride);

// Every stage of one head. `weights` is required; the others may be null.
//   each buffer: [seq_q, seq_k]
struct AttentionStages {
  float* raw_scores = nullptr;       // q·kᵀ
  float* scaled_scores = nullptr;    // q·kᵀ·scale
  float* capped_scores = nullptr;    // softcap·tanh(scaled / softcap) (= scaled without one)
  float* masked_scores = nullptr;    // after the mask, causal rule and key lengths
  float* weights = nullptr;          // softmax of the masked scores
  float* dropped_weights = nullptr;  // with dropout (then required): the weights after it,
                                     // which multiply v
};

// Runs the steps above for one head, writing problem.out and the requested stages.
// Its only scratch is QDotK's panels (kOutOfMemory when they cannot be allocated).
Status StepwiseAttention(const HeadProblem& problem, const AttentionStages& stages);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_KERNELS_ATTENTION_STEPS_H_
