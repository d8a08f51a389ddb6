// ForEachParameter (a template, so the visitor can be any callable).
#ifndef ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_
#define ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_

namespace attn {

template <typename Visit>
void ForEachParameter(const ModelConfig& c, const ModelLayout& l, Visit visit) {
  using K = ParamKind;
  const int d = c.d_model;
  visit(K::kTokenEmbedding, -1, c.vocab_size, d, l.token_embedding);
  if (c.learned_positions) visit(K::kPositionEmbedding, -1, c.positions(), d, l.position_embedding);
  if (c.classify) visit(K::kCls, -1, d, 0, l.cls);
  for (int i = 0; i < c.num_layers; ++i) {
    const LayerOffsets& o = l.layers[i];
    visit(K::kLn1Gamma, i, d, 0, o.ln1_gamma);
    visit(K::kLn1Beta, i, d, 0, o.ln1_beta);
    visit(K::kWq, i, d, d, o.wq);
    visit(K::kBq, i, d, 0, o.bq);
    visit(K::kWk, i, d, d, o.wk);
    visit(K::kBk, i, d, 0, o.bk);
    visit(K::kWv, i, d, d, o.wv);
    visit(K::kBv, i, d, 0, o.bv);
    visit(K::kWo, i, d, d, o.wo);
    visit(K::kBo, i, d, 0, o.bo);
    visit(K::kLn2Gamma, i, d, 0, o.ln2_gamma);
    visit(K::kLn2Beta, i, d, 0, o.ln2_beta);
    visit(K::kW1, i, d, c.d_ff, o.w1);
    visit(K::kB1, i, c.d_ff, 0, o.b1);
    visit(K::kW2, i, c.d_ff, d, o.w2);
    visit(K::kB2, i, d, 0, o.b2);
  }
  if (c.pre_norm) {
    visit(K::kFinalGamma, -1, d, 0, l.final_gamma);
    visit(K::kFinalBeta, -1, d, 0, l.final_beta);
  }
  visit(K::kHeadW, -1, d, c.outputs, l.head_w);
  visit(K::kHeadB, -1, c.outputs, 0, l.head_b);
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_MODEL_CONFIG_INL_H_
