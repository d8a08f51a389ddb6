#include "train/model_config.h"

#include <cmath>

#include "sizes.h"

namespace attn {
namespace {

// A seeded generator (SplitMix64): the same numbers on every platform and build.
class Random {
 public:
  explicit Random(uint32_t seed) : state_(0x9e3779b97f4a7c15ull ^ seed) {}
  // Uniform in [-1, 1).
  float Symmetric() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) / (1ull << 23) - 1.0);
  }

 private:
  uint64_t state_;
};

}  // namespace

Status CheckModelConfig(const ModelConfig& c) {
  if (c.vocab_size < 2 || c.outputs < 2 || c.max_len < 1 || c.d_model < 1 || c.num_heads < 1 ||
      c.num_layers < 1 || c.num_layers > kMaxModelLayers || c.d_ff < 1) {
    return Status::kBadArgument;
  }
  if (c.d_model % c.num_heads != 0) return Status::kBadHeadCount;
  const int64_t d = c.d_model;
  const int64_t per_layer = 4 * d * d + 2 * d * c.d_ff + 9 * d + c.d_ff;
  const int64_t total = int64_t{c.vocab_size} * d + int64_t{c.positions()} * d + d +
                        c.num_layers * per_layer + 2 * d + (d + 1) * c.outputs;
  return FloatsFit({total}) ? Status::kOk : Status::kTooLarge;
}

ModelLayout LayoutOf(const ModelConfig& c) {
  ModelLayout l;
  const uint64_t d = c.d_model, f = c.d_ff;
  auto take = [&l](uint64_t count) {
    const uint64_t at = l.total;
    l.total += count;
    return at;
  };
  l.token_embedding = take(c.vocab_size * d);
  if (c.learned_positions) l.position_embedding = take(c.positions() * d);
  if (c.classify) l.cls = take(d);
  for (int i = 0; i < c.num_layers; ++i) {
    LayerOffsets& o = l.layers[i];
    o.ln1_gamma = take(d), o.ln1_beta = take(d);
    o.wq = take(d * d), o.bq = take(d), o.wk = take(d * d), o.bk = take(d);
    o.wv = take(d * d), o.bv = take(d), o.wo = take(d * d), o.bo = take(d);
    o.ln2_gamma = take(d), o.ln2_beta = take(d);
    o.w1 = take(d * f), o.b1 = take(f), o.w2 = take(f * d), o.b2 = take(d);
  }
  if (c.pre_norm) l.final_gamma = take(d), l.final_beta = take(d);
  l.head_w = take(d * c.outputs);
  l.head_b = take(c.outputs);
  return l;
}

void InitParameters(const ModelConfig& c, const ModelLayout& layout, float* params) {
  Random random(c.seed);
  using K = ParamKind;
  ForEachParameter(c, layout, [&](K kind, int, int rows, int cols, uint64_t offset) {
    float* p = params + offset;
    const uint64_t count = static_cast<uint64_t>(rows) * (cols > 0 ? cols : 1);
    const bool gain = kind == K::kLn1Gamma || kind == K::kLn2Gamma || kind == K::kFinalGamma;
    const bool embedding =
        kind == K::kTokenEmbedding || kind == K::kPositionEmbedding || kind == K::kCls;
    // Uniform on [-a, a]: Xavier a = √(6 / (fan_in + fan_out)); embeddings a = √3/√d (std 1/√d).
    const float a = Decays(kind) ? std::sqrt(6.0f / (rows + cols))
                    : embedding  ? std::sqrt(3.0f / c.d_model)
                                 : 0.0f;
    for (uint64_t i = 0; i < count; ++i) {
      p[i] = gain ? 1.0f : a > 0.0f ? a * random.Symmetric() : 0.0f;
    }
  });
}

}  // namespace attn
