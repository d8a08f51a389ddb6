// TinyTransformer: allocation, the forward pass, the loss and the optimizer step. The
// backward is in model_backward.cc.
#include "train/tiny_transformer.h"

#include <algorithm>
#include <cstring>

#include "block.h"
#include "positional.h"
#include "train/activation.h"
#include "train/cross_entropy.h"
#include "train/layer_norm.h"
#include "train/linear.h"
#include "train/self_attention.h"

namespace attn {

TinyTransformer::TinyTransformer(const ModelConfig& config)
    : config_(config), layout_(LayoutOf(config)) {}

bool TinyTransformer::Allocate() {
  const uint64_t n = layout_.total;
  if (!params_.Resize(n) || !grads_.Assign(n, 0.0f) || !moment1_.Resize(n) || !moment2_.Resize(n)) {
    return false;
  }
  if (!config_.learned_positions) {
    if (!sinusoid_.Resize(static_cast<uint64_t>(config_.positions()) * config_.d_model)) {
      return false;
    }
    SinusoidalEncoding(config_.positions(), config_.d_model, 10000.0, sinusoid_.data());
  }
  InitParameters(config_, layout_, params_.data());
  ResetOptimizer();
  return true;
}

void TinyTransformer::ResetOptimizer() {
  std::fill(moment1_.data(), moment1_.data() + layout_.total, 0.0f);
  std::fill(moment2_.data(), moment2_.data() + layout_.total, 0.0f);
  step_ = 0;
}

Status TinyTransformer::CheckBatch(const ModelBatch& b) const {
  if (b.batch < 1 || b.len < 1 || b.len > config_.max_len) return Status::kBadArgument;
  if (b.tokens == nullptr) return Status::kNullPointer;
  for (int64_t i = 0; i < int64_t{b.batch} * b.len; ++i) {
    if (b.tokens[i] < 0 || b.tokens[i] >= config_.vocab_size) return Status::kBadArgument;
  }
  for (int s = 0; b.lengths != nullptr && s < b.batch; ++s) {
    if (b.lengths[s] < 1 || b.lengths[s] > b.len) return Status::kBadKeyLength;
  }
  return Status::kOk;
}

// x0[b][t] = embedding of token (or [CLS]) + position t; the key limits of each sequence.
void TinyTransformer::Embed(const ModelBatch& b) {
  const int d = config_.d_model, T = acts_.seq, shift = config_.classify ? 1 : 0;
  const float* p = params_.data();
  const float* positions =
      config_.learned_positions ? p + layout_.position_embedding : sinusoid_.data();
  float* x0 = acts_.layer(0).x;
  for (int s = 0; s < b.batch; ++s) {
    acts_.key_limits[s] = (b.lengths != nullptr ? b.lengths[s] : b.len) + shift;
    for (int t = 0; t < T; ++t) {
      float* row = x0 + (static_cast<size_t>(s) * T + t) * d;
      const float* source =
          t < shift
              ? p + layout_.cls
              : p + layout_.token_embedding +
                    static_cast<size_t>(b.tokens[static_cast<size_t>(s) * b.len + t - shift]) * d;
      const float* position = positions + static_cast<size_t>(t) * d;
      for (int c = 0; c < d; ++c) row[c] = source[c] + position[c];
    }
  }
}

// One block, forward (see LayerActivations for the two orders of norm and residual).
Status TinyTransformer::LayerForward(int l) {
  const int rows = acts_.rows, d = config_.d_model, f = config_.d_ff;
  const LayerOffsets& w = layout_.layers[l];
  const float* p = params_.data();
  LayerActivations& a = acts_.layer(l);
  const size_t rd = static_cast<size_t>(rows) * d;
  // 1. Attention sublayer.
  if (config_.pre_norm) {
    LayerNorm(a.x, rows, d, p + w.ln1_gamma, p + w.ln1_beta, kLayerNormEps, a.a_in, a.mean1,
              a.rstd1);
  } else {
    std::memcpy(a.a_in, a.x, sizeof(float) * rd);
  }
  Status s;
  if ((s = LinearForward(a.a_in, rows, d, p + w.wq, p + w.bq, d, a.q, scratch_)) != Status::kOk ||
      (s = LinearForward(a.a_in, rows, d, p + w.wk, p + w.bk, d, a.k, scratch_)) != Status::kOk ||
      (s = LinearForward(a.a_in, rows, d, p + w.wv, p + w.bv, d, a.v, scratch_)) != Status::kOk) {
    return s;
  }
  SelfAttentionForward(AttentionShape(), a.q, a.k, a.v, a.p, a.o);
  if ((s = LinearForward(a.o, rows, d, p + w.wo, p + w.bo, d, a.r1, scratch_)) != Status::kOk) {
    return s;
  }
  AddInto(a.r1, a.x, static_cast<int>(rd), a.r1);
  if (config_.pre_norm) {
    std::memcpy(a.h, a.r1, sizeof(float) * rd);
    LayerNorm(a.h, rows, d, p + w.ln2_gamma, p + w.ln2_beta, kLayerNormEps, a.f_in, a.mean2,
              a.rstd2);
  } else {
    LayerNorm(a.r1, rows, d, p + w.ln1_gamma, p + w.ln1_beta, kLayerNormEps, a.h, a.mean1, a.rstd1);
    std::memcpy(a.f_in, a.h, sizeof(float) * rd);
  }
  // 2. Feed-forward sublayer.
  if ((s = LinearForward(a.f_in, rows, d, p + w.w1, p + w.b1, f, a.f_pre, scratch_)) !=
      Status::kOk) {
    return s;
  }
  Activate(config_.activation, a.f_pre, static_cast<size_t>(rows) * f, a.f_act);
  if ((s = LinearForward(a.f_act, rows, f, p + w.w2, p + w.b2, d, a.r2, scratch_)) != Status::kOk) {
    return s;
  }
  AddInto(a.r2, a.h, static_cast<int>(rd), a.r2);
  if (config_.pre_norm) {
    std::memcpy(a.out, a.r2, sizeof(float) * rd);
  } else {
    LayerNorm(a.r2, rows, d, p + w.ln2_gamma, p + w.ln2_beta, kLayerNormEps, a.out, a.mean2,
              a.rstd2);
  }
  return Status::kOk;
}

SelfAttentionShape TinyTransformer::AttentionShape() const {
  SelfAttentionShape shape;
  shape.batch = acts_.batch;
  shape.seq = acts_.seq;
  shape.d_model = config_.d_model;
  shape.heads = config_.num_heads;
  shape.key_limits = acts_.key_limits;
  shape.causal = config_.causal;
  return shape;
}

Status TinyTransformer::Forward(const ModelBatch& b) {
  Status s = CheckBatch(b);
  if (s != Status::kOk) return s;
  const int T = b.len + (config_.classify ? 1 : 0);
  if (!acts_.Reserve(config_, b.batch, T)) return Status::kOutOfMemory;
  Embed(b);
  for (int l = 0; l < config_.num_layers; ++l) {
    if ((s = LayerForward(l)) != Status::kOk) return s;
  }
  // The final norm (pre-norm only), then the head: every row, or each sequence's [CLS] row.
  const int rows = acts_.rows, d = config_.d_model;
  const float* p = params_.data();
  if (config_.pre_norm) {
    LayerNorm(acts_.final_in, rows, d, p + layout_.final_gamma, p + layout_.final_beta,
              kLayerNormEps, acts_.final_out, acts_.final_mean, acts_.final_rstd);
  } else {
    std::memcpy(acts_.final_out, acts_.final_in, sizeof(float) * rows * d);
  }
  for (int r = 0; r < acts_.head_rows; ++r) {
    const int from = config_.classify ? r * T : r;
    std::memcpy(acts_.head_in + static_cast<size_t>(r) * d,
                acts_.final_out + static_cast<size_t>(from) * d, sizeof(float) * d);
  }
  return LinearForward(acts_.head_in, acts_.head_rows, d, p + layout_.head_w, p + layout_.head_b,
                       config_.outputs, acts_.logits_, scratch_);
}

// The loss of the last forward against the batch's targets (padding positions ignored).
Status TinyTransformer::Loss(const ModelBatch& b, bool with_gradient, StepResult* result) {
  if (b.targets == nullptr) return Status::kNullPointer;
  for (int r = 0; r < acts_.head_rows; ++r) {
    int32_t target = b.targets[r];
    if (target >= config_.outputs || (config_.classify && target < 0)) return Status::kBadArgument;
    // A token position past its sequence's length is padding: not in the loss.
    if (!config_.classify && r % b.len >= acts_.key_limits[r / b.len]) target = -1;
    acts_.targets[r] = target;
  }
  const CrossEntropyResult ce =
      SoftmaxCrossEntropy(acts_.logits_, acts_.targets, acts_.head_rows, config_.outputs,
                          with_gradient ? acts_.d_logits : nullptr);
  result->loss = ce.loss;
  result->count = ce.count;
  result->correct = ce.correct;
  return Status::kOk;
}

Status TinyTransformer::Evaluate(const ModelBatch& b, StepResult* result) {
  const Status s = Forward(b);
  return s != Status::kOk ? s : Loss(b, false, result);
}

Status TinyTransformer::Gradients(const ModelBatch& b, StepResult* result) {
  Status s = Forward(b);
  if (s == Status::kOk) s = Loss(b, true, result);
  if (s == Status::kOk) s = Backward(b);
  if (s == Status::kOk) {
    const float* g = grads_.data();
    const uint64_t count = layout_.total;
    result->grad_norm = GlobalGradNorm(&g, &count, 1);
  }
  return s;
}

Status TinyTransformer::TrainStep(const ModelBatch& b, const OptimizerConfig& optimizer,
                                  StepResult* result) {
  const Status s = Gradients(b, result);
  if (s != Status::kOk) return s;
  const bool clip = optimizer.clip_norm > 0.0f && result->grad_norm > optimizer.clip_norm;
  ApplyOptimizer(optimizer,
                 clip ? static_cast<float>(optimizer.clip_norm / result->grad_norm) : 1.0f);
  return Status::kOk;
}

void TinyTransformer::ApplyOptimizer(const OptimizerConfig& optimizer, float grad_scale) {
  ++step_;
  ForEachParameter(config_, layout_, [&](ParamKind kind, int, int rows, int cols, uint64_t offset) {
    const uint64_t count = static_cast<uint64_t>(rows) * (cols > 0 ? cols : 1);
    float* p = params_.data() + offset;
    const float* g = grads_.data() + offset;
    if (optimizer.sgd) {
      SgdStep(p, g, moment1_.data() + offset, count, optimizer.adamw.lr, optimizer.momentum,
              grad_scale);
      return;
    }
    AdamWConfig c = optimizer.adamw;
    if (!Decays(kind)) c.weight_decay = 0.0f;
    AdamWStep(p, g, moment1_.data() + offset, moment2_.data() + offset, count, c, step_,
              grad_scale);
  });
}

}  // namespace attn
