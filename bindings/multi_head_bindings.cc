// Embind glue for multi-head attention and the encoder layer. Weights live in wasm memory
// owned by the JS objects (allocated and freed there); inputs are copied in per call.
#include <emscripten/bind.h>

#include <cstdint>

#include "encoder_layer.h"
#include "heap_address.h"
#include "multi_head.h"

namespace {

// The JS-facing form of attn::MultiHeadRequest: heap addresses instead of pointers.
struct MultiHeadCall {
  uintptr_t query = 0, key = 0, value = 0;
  int batch = 0, seq_q = 0, seq_k = 0, d_model = 0, k_dim = 0, v_dim = 0, num_heads = 0,
      num_kv_heads = 0;
  uintptr_t wq = 0, wk = 0, wv = 0, wo = 0, bq = 0, bk = 0, bv = 0, bo = 0;
  uintptr_t wq_panels = 0, wk_panels = 0, wv_panels = 0, wo_panels = 0;
  uintptr_t mask = 0, allowed = 0, mask_offsets = 0, key_lengths = 0;
  int mask_row_stride = 0;
  bool causal = false;
  int causal_offset = 0;
  int window_left = -1;
  int window_right = -1;
  uintptr_t out = 0, q_proj = 0, k_proj = 0, v_proj = 0, concat = 0, attention_weights = 0;
};

attn::MultiHeadRequest ToRequest(const MultiHeadCall& c) {
  attn::MultiHeadRequest r;
  r.query = Ptr<const float>(c.query);
  r.key = Ptr<const float>(c.key);
  r.value = Ptr<const float>(c.value);
  r.batch = c.batch;
  r.seq_q = c.seq_q;
  r.seq_k = c.seq_k;
  r.d_model = c.d_model;
  r.k_dim = c.k_dim;
  r.v_dim = c.v_dim;
  r.num_heads = c.num_heads;
  r.num_kv_heads = c.num_kv_heads;
  r.weights = {
      Ptr<const float>(c.wq),        Ptr<const float>(c.wk),        Ptr<const float>(c.wv),
      Ptr<const float>(c.wo),        Ptr<const float>(c.bq),        Ptr<const float>(c.bk),
      Ptr<const float>(c.bv),        Ptr<const float>(c.bo),        Ptr<const float>(c.wq_panels),
      Ptr<const float>(c.wk_panels), Ptr<const float>(c.wv_panels), Ptr<const float>(c.wo_panels)};
  r.mask = Ptr<const float>(c.mask);
  r.allowed = Ptr<const uint8_t>(c.allowed);
  r.mask_row_stride = c.mask_row_stride;
  r.mask_offsets = Ptr<const int32_t>(c.mask_offsets);
  r.key_lengths = Ptr<const int32_t>(c.key_lengths);
  r.causal = c.causal;
  r.causal_offset = c.causal_offset;
  r.window_left = c.window_left;
  r.window_right = c.window_right;
  r.out = Ptr<float>(c.out);
  r.q_proj = Ptr<float>(c.q_proj);
  r.k_proj = Ptr<float>(c.k_proj);
  r.v_proj = Ptr<float>(c.v_proj);
  r.concat = Ptr<float>(c.concat);
  r.attention_weights = Ptr<float>(c.attention_weights);
  return r;
}

int RunMultiHead(const MultiHeadCall& c) {
  return static_cast<int>(attn::MultiHeadForward(ToRequest(c)));
}

// Encoder layer: the attention part comes as a MultiHeadCall (query = x).
struct EncoderCall {
  MultiHeadCall attention;
  bool pre_norm = false;
  float eps = 1e-5f;
  uintptr_t ln1_gamma = 0, ln1_beta = 0, ln2_gamma = 0, ln2_beta = 0;
  int d_ff = 0;
  uintptr_t w1 = 0, b1 = 0, w2 = 0, b2 = 0, w1_panels = 0, w2_panels = 0;
  int activation = 0;
  uintptr_t out = 0;
};

int RunEncoderLayer(const EncoderCall& c) {
  attn::EncoderLayerRequest r;
  r.attention = ToRequest(c.attention);
  r.pre_norm = c.pre_norm;
  r.eps = c.eps;
  r.ln1_gamma = Ptr<const float>(c.ln1_gamma);
  r.ln1_beta = Ptr<const float>(c.ln1_beta);
  r.ln2_gamma = Ptr<const float>(c.ln2_gamma);
  r.ln2_beta = Ptr<const float>(c.ln2_beta);
  r.d_ff = c.d_ff;
  r.w1 = Ptr<const float>(c.w1);
  r.b1 = Ptr<const float>(c.b1);
  r.w2 = Ptr<const float>(c.w2);
  r.b2 = Ptr<const float>(c.b2);
  r.w1_panels = Ptr<const float>(c.w1_panels);
  r.w2_panels = Ptr<const float>(c.w2_panels);
  r.activation = static_cast<attn::Activation>(c.activation);
  r.out = Ptr<float>(c.out);
  return static_cast<int>(attn::EncoderLayerForward(r));
}

// Scratch bytes (the core's own allocations) of a forward pass, for attn.estimateMemory.
// The call's buffer fields say which optional outputs the caller supplies (nonzero).
double MultiHeadScratch(const MultiHeadCall& c) {
  return static_cast<double>(attn::MultiHeadScratchBytes(ToRequest(c)));
}

// For a TransformerEncoderLayer, which keeps w1 and w2 as panels (bindings/js/block.js).
double EncoderLayerScratch(const MultiHeadCall& attention, int d_ff, bool pre_norm) {
  attn::EncoderLayerRequest r;
  r.attention = ToRequest(attention);
  r.d_ff = d_ff;
  r.pre_norm = pre_norm;
  float placeholder = 0;  // only its being non-null matters: no packing scratch
  r.w1_panels = r.w2_panels = &placeholder;
  return static_cast<double>(attn::EncoderLayerScratchBytes(r));
}

}  // namespace

EMSCRIPTEN_BINDINGS(multi_head) {
  emscripten::value_object<MultiHeadCall>("MultiHeadCall")
      .field("query", &MultiHeadCall::query)
      .field("key", &MultiHeadCall::key)
      .field("value", &MultiHeadCall::value)
      .field("batch", &MultiHeadCall::batch)
      .field("seqQ", &MultiHeadCall::seq_q)
      .field("seqK", &MultiHeadCall::seq_k)
      .field("dModel", &MultiHeadCall::d_model)
      .field("kDim", &MultiHeadCall::k_dim)
      .field("vDim", &MultiHeadCall::v_dim)
      .field("numHeads", &MultiHeadCall::num_heads)
      .field("numKvHeads", &MultiHeadCall::num_kv_heads)
      .field("wq", &MultiHeadCall::wq)
      .field("wqPanels", &MultiHeadCall::wq_panels)
      .field("wkPanels", &MultiHeadCall::wk_panels)
      .field("wvPanels", &MultiHeadCall::wv_panels)
      .field("woPanels", &MultiHeadCall::wo_panels)
      .field("wk", &MultiHeadCall::wk)
      .field("wv", &MultiHeadCall::wv)
      .field("wo", &MultiHeadCall::wo)
      .field("bq", &MultiHeadCall::bq)
      .field("bk", &MultiHeadCall::bk)
      .field("bv", &MultiHeadCall::bv)
      .field("bo", &MultiHeadCall::bo)
      .field("mask", &MultiHeadCall::mask)
      .field("allowed", &MultiHeadCall::allowed)
      .field("maskOffsets", &MultiHeadCall::mask_offsets)
      .field("keyLengths", &MultiHeadCall::key_lengths)
      .field("maskRowStride", &MultiHeadCall::mask_row_stride)
      .field("causal", &MultiHeadCall::causal)
      .field("causalOffset", &MultiHeadCall::causal_offset)
      .field("windowLeft", &MultiHeadCall::window_left)
      .field("windowRight", &MultiHeadCall::window_right)
      .field("out", &MultiHeadCall::out)
      .field("qProj", &MultiHeadCall::q_proj)
      .field("kProj", &MultiHeadCall::k_proj)
      .field("vProj", &MultiHeadCall::v_proj)
      .field("concat", &MultiHeadCall::concat)
      .field("attentionWeights", &MultiHeadCall::attention_weights);
  emscripten::value_object<EncoderCall>("EncoderCall")
      .field("attention", &EncoderCall::attention)
      .field("preNorm", &EncoderCall::pre_norm)
      .field("eps", &EncoderCall::eps)
      .field("ln1Gamma", &EncoderCall::ln1_gamma)
      .field("ln1Beta", &EncoderCall::ln1_beta)
      .field("ln2Gamma", &EncoderCall::ln2_gamma)
      .field("ln2Beta", &EncoderCall::ln2_beta)
      .field("dFF", &EncoderCall::d_ff)
      .field("w1", &EncoderCall::w1)
      .field("b1", &EncoderCall::b1)
      .field("w2", &EncoderCall::w2)
      .field("w1Panels", &EncoderCall::w1_panels)
      .field("w2Panels", &EncoderCall::w2_panels)
      .field("b2", &EncoderCall::b2)
      .field("activation", &EncoderCall::activation)
      .field("out", &EncoderCall::out);
  emscripten::function("_multiHead", &RunMultiHead);
  emscripten::function("_encoderLayer", &RunEncoderLayer);
  emscripten::function("_multiHeadScratch", &MultiHeadScratch);
  emscripten::function("_encoderLayerScratch", &EncoderLayerScratch);
}
