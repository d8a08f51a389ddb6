// ForEachParameter (a template, so the visitor can be any callable).
#ifndef ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_
#define ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_

#include <string>

namespace attn {

template <typename Visit>
void ForEachParameter(const ModelConfig& c, const ModelLayout& l, Visit visit) {
  const int d = c.d_model;
  visit(std::string("tokenEmbedding"), c.vocab_size, d, l.token_embedding, false);
  if (c.learned_positions)
    visit(std::string("positionEmbedding"), c.positions(), d, l.position_embedding, false);
  if (c.classify) visit(std::string("cls"), d, 0, l.cls, false);
  for (int i = 0; i < c.num_layers; ++i) {
    const LayerOffsets& o = l.layers[i];
    const std::string p = "layers." + std::to_string(i) + ".";
    visit(p + "ln1.gamma", d, 0, o.ln1_gamma, false);
    visit(p + "ln1.beta", d, 0, o.ln1_beta, false);
    visit(p + "attn.wq", d, d, o.wq, true);
    visit(p + "attn.bq", d, 0, o.bq, false);
    visit(p + "attn.wk", d, d, o.wk, true);
    visit(p + "attn.bk", d, 0, o.bk, false);
    visit(p + "attn.wv", d, d, o.wv, true);
    visit(p + "attn.bv", d, 0, o.bv, false);
    visit(p + "attn.wo", d, d, o.wo, true);
    visit(p + "attn.bo", d, 0, o.bo, false);
    visit(p + "ln2.gamma", d, 0, o.ln2_gamma, false);
    visit(p + "ln2.beta", d, 0, o.ln2_beta, false);
    visit(p + "ffn.w1", d, c.d_ff, o.w1, true);
    visit(p + "ffn.b1", c.d_ff, 0, o.b1, false);
    visit(p + "ffn.w2", c.d_ff, d, o.w2, true);
    visit(p + "ffn.b2", d, 0, o.b2, false);
  }
  if (c.pre_norm) {
    visit(std::string("finalNorm.gamma"), d, 0, l.final_gamma, false);
    visit(std::string("finalNorm.beta"), d, 0, l.final_beta, false);
  }
  visit(std::string("head.w"), d, c.outputs, l.head_w, true);
  visit(std::string("head.b"), c.outputs, 0, l.head_b, false);
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_
