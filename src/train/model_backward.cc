// TinyTransformer's backward pass: from d_logits (the loss's gradient) down to the
// embeddings, one named step per forward step, each parameter's gradient written once.
#include <algorithm>
#include <cstring>

#include "block.h"
#include "train/activation.h"
#include "train/embedding.h"
#include "train/layer_norm.h"
#include "train/linear.h"
#include "train/self_attention.h"
#include "train/tiny_transformer.h"

namespace attn {

Status TinyTransformer::Backward(const ModelBatch& b) {
  const int rows = acts_.rows, d = config_.d_model, T = acts_.seq;
  const size_t rd = static_cast<size_t>(rows) * d;
  const float* p = params_.data();
  float* g = grads_.data();
  std::fill(g, g + layout_.total, 0.0f);
  // 1. The head: d(head input), dW, db. A classification head reads only the [CLS] rows.
  float* d_head_in = config_.classify ? acts_.d_a : acts_.d_x;
  Status s =
      LinearBackward(acts_.head_in, p + layout_.head_w, acts_.d_logits, acts_.head_rows, d,
                     config_.outputs, d_head_in, g + layout_.head_w, g + layout_.head_b, scratch_);
  if (s != Status::kOk) return s;
  if (config_.classify) {
    std::fill(acts_.d_x, acts_.d_x + rd, 0.0f);
    for (int r = 0; r < acts_.head_rows; ++r) {
      std::memcpy(acts_.d_x + static_cast<size_t>(r) * T * d,
                  acts_.d_a + static_cast<size_t>(r) * d, sizeof(float) * d);
    }
  }
  // 2. The final norm (pre-norm only).
  if (config_.pre_norm) {
    LayerNormBackward(acts_.final_in, acts_.final_mean, acts_.final_rstd, p + layout_.final_gamma,
                      acts_.d_x, rows, d, acts_.d_b, g + layout_.final_gamma,
                      g + layout_.final_beta);
    std::memcpy(acts_.d_x, acts_.d_b, sizeof(float) * rd);
  }
  // 3. The blocks, last first: d_x goes in as d(block output), comes out as d(block input).
  for (int l = config_.num_layers - 1; l >= 0; --l) {
    if ((s = LayerBackward(l, acts_.d_x)) != Status::kOk) return s;
  }
  // 4. The embeddings.
  EmbedBackward(b);
  return Status::kOk;
}

// d_x: [rows, d], in: d(out); out: d(x). Buffers d_a, d_b, dq, dk, dv, d_f1, d_f2 are free.
Status TinyTransformer::LayerBackward(int l, float* d_x) {
  const int rows = acts_.rows, d = config_.d_model, f = config_.d_ff;
  const int rd = rows * d;
  const LayerOffsets& w = layout_.layers[l];
  const float* p = params_.data();
  float* g = grads_.data();
  const LayerActivations& a = acts_.layer(l);
  float *d_a = acts_.d_a, *d_b = acts_.d_b;
  // 1. Post-norm: through LN2 (out = LN2(r2)). Now d_x = d(r2) = d(FFN output).
  if (!config_.pre_norm) {
    LayerNormBackward(a.r2, a.mean2, a.rstd2, p + w.ln2_gamma, d_x, rows, d, d_b, g + w.ln2_gamma,
                      g + w.ln2_beta);
    std::memcpy(d_x, d_b, sizeof(float) * rd);
  }
  // 2. The feed-forward network: d_a = d(FFN input).
  Status s =
      LinearBackward(a.f_act, p + w.w2, d_x, rows, f, d, acts_.d_f1, g + w.w2, g + w.b2, scratch_);
  if (s != Status::kOk) return s;
  ActivationBackward(config_.activation, a.f_pre, acts_.d_f1, static_cast<size_t>(rows) * f,
                     acts_.d_f2);
  s = LinearBackward(a.f_in, p + w.w1, acts_.d_f2, rows, d, f, d_a, g + w.w1, g + w.b1, scratch_);
  if (s != Status::kOk) return s;
  // 3. d(h) = d(r2) through the residual + d(FFN input) (through LN2 when pre-norm).
  if (config_.pre_norm) {
    LayerNormBackward(a.h, a.mean2, a.rstd2, p + w.ln2_gamma, d_a, rows, d, d_b, g + w.ln2_gamma,
                      g + w.ln2_beta);
    AddInto(d_x, d_b, rd, d_x);
  } else {
    AddInto(d_x, d_a, rd, d_x);
    // Post-norm: h = LN1(r1), so d(r1) comes through LN1.
    LayerNormBackward(a.r1, a.mean1, a.rstd1, p + w.ln1_gamma, d_x, rows, d, d_b, g + w.ln1_gamma,
                      g + w.ln1_beta);
    std::memcpy(d_x, d_b, sizeof(float) * rd);
  }
  // 4. Now d_x = d(r1) = d(x) through the residual + d(attention output). Wo, then the heads.
  s = LinearBackward(a.o, p + w.wo, d_x, rows, d, d, d_a, g + w.wo, g + w.bo, scratch_);
  if (s != Status::kOk) return s;
  SelfAttentionBackward(AttentionShape(), a.q, a.k, a.v, a.p, d_a, acts_.dq, acts_.dk, acts_.dv);
  // 5. The projections: d(attention input) = dq·Wqᵀ + dk·Wkᵀ + dv·Wvᵀ, in d_a.
  s = LinearBackward(a.a_in, p + w.wq, acts_.dq, rows, d, d, d_a, g + w.wq, g + w.bq, scratch_);
  if (s != Status::kOk) return s;
  s = LinearBackward(a.a_in, p + w.wk, acts_.dk, rows, d, d, d_b, g + w.wk, g + w.bk, scratch_);
  if (s != Status::kOk) return s;
  AddInto(d_a, d_b, rd, d_a);
  s = LinearBackward(a.a_in, p + w.wv, acts_.dv, rows, d, d, d_b, g + w.wv, g + w.bv, scratch_);
  if (s != Status::kOk) return s;
  AddInto(d_a, d_b, rd, d_a);
  // 6. d(x) = d(r1) + d(attention input) (through LN1 when pre-norm).
  if (config_.pre_norm) {
    LayerNormBackward(a.x, a.mean1, a.rstd1, p + w.ln1_gamma, d_a, rows, d, d_b, g + w.ln1_gamma,
                      g + w.ln1_beta);
    AddInto(d_x, d_b, rd, d_x);
  } else {
    AddInto(d_x, d_a, rd, d_x);
  }
  return Status::kOk;
}

// d(x0) into the token table (scatter-add), the position table and the [CLS] vector.
void TinyTransformer::EmbedBackward(const ModelBatch& b) {
  const int d = config_.d_model, T = acts_.seq, shift = config_.classify ? 1 : 0;
  float* g = grads_.data();
  for (int s = 0; s < b.batch; ++s) {
    const float* d_rows = acts_.d_x + static_cast<size_t>(s) * T * d;
    if (config_.classify) {
      for (int c = 0; c < d; ++c) g[layout_.cls + c] += d_rows[c];
    }
    EmbeddingScatterAdd(d_rows + static_cast<size_t>(shift) * d, d, d,
                        b.tokens + static_cast<size_t>(s) * b.len, b.len,
                        g + layout_.token_embedding);
    if (config_.learned_positions) {
      float* d_pos = g + layout_.position_embedding;
      for (size_t i = 0; i < static_cast<size_t>(T) * d; ++i) d_pos[i] += d_rows[i];
    }
  }
}

}  // namespace attn
