// Native check of the C++ core under AddressSanitizer and UndefinedBehaviorSanitizer:
// the fused and step-by-step paths agree on random problems of awkward sizes, with masks,
// causal rules, key lengths, strided heads and NaN in blocked rows, and no access strays
// outside its buffer. Built by CMake when ATTN_NATIVE_TESTS=ON; run by tests/native.test.js.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "attention.h"
#include "block.h"
#include "kernels/gelu.h"
#include "kernels/kv_storage.h"
#include "kernels/matmul.h"
#include "kernels/matmul_at.h"
#include "kernels/quantized.h"
#include "model/runner.h"
#include "multi_head.h"
#include "optimizer.h"
#include "parallel.h"
#include "positional.h"
#include "train/tiny_transformer.h"

namespace {

int failures = 0;

void Expect(bool ok, const char* what, int a, int b, int c) {
  if (!ok && failures++ < 10) std::printf("FAIL %s (%d, %d, %d)\n", what, a, b, c);
}

// Exact-size heap buffers, so ASan sees every overrun.
std::vector<float> Random(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

void CompareBothPaths(std::mt19937& rng, int seq_q, int seq_k, int head_dim, int value_dim,
                      bool causal, bool with_mask) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> q = Random(rng, static_cast<size_t>(seq_q) * head_dim);
  std::vector<float> k = Random(rng, static_cast<size_t>(seq_k) * head_dim);
  std::vector<float> v = Random(rng, static_cast<size_t>(seq_k) * value_dim);
  std::vector<float> mask(static_cast<size_t>(seq_q) * seq_k, 0.0f);
  for (size_t i = 0; i < mask.size(); i += 3) mask[i] = -inf;
  if (with_mask && seq_k > 0) {  // a blocked key holding NaN must not leak
    for (int i = 0; i < seq_q; ++i) mask[static_cast<size_t>(i) * seq_k] = -inf;
    v[0] = std::nanf("");
    k[0] = std::nanf("");
  }
  const int32_t entries[attn::kEntryColumns] = {
      0, 0, 0, 0, seq_k > 1 ? seq_k - 1 : seq_k, seq_k - seq_q};
  std::vector<float> fused(static_cast<size_t>(seq_q) * value_dim, -7.0f);
  std::vector<float> stepwise(fused.size(), -7.0f);
  std::vector<float> weights(static_cast<size_t>(seq_q) * seq_k + 1);
  attn::AttentionRequest r;
  r.q = q.data();
  r.k = k.data();
  r.v = v.data();
  r.mask = with_mask ? mask.data() : nullptr;
  r.mask_row_stride = seq_k;
  r.entries = entries;
  r.batch = 1;
  r.seq_q = seq_q;
  r.seq_k = seq_k;
  r.head_dim = head_dim;
  r.value_dim = value_dim;
  r.scale = 0.3f;
  r.causal = causal;
  r.out = fused.data();
  Expect(attn::RunAttention(r) == attn::Status::kOk, "fused status", seq_q, seq_k, head_dim);
  r.out = stepwise.data();
  r.weights = weights.data();
  Expect(attn::RunAttention(r) == attn::Status::kOk, "stepwise status", seq_q, seq_k, head_dim);
  if (with_mask) {  // the same mask as booleans (0 ↔ allowed) must give the same result
    std::vector<uint8_t> allowed(mask.size());
    for (size_t i = 0; i < mask.size(); ++i) allowed[i] = mask[i] == 0.0f ? 1 : 0;
    std::vector<float> boolean_out(fused.size(), -7.0f);
    r.mask = nullptr;
    r.allowed = allowed.data();
    r.weights = nullptr;
    r.out = boolean_out.data();
    Expect(attn::RunAttention(r) == attn::Status::kOk, "boolean status", seq_q, seq_k, head_dim);
    for (size_t i = 0; i < fused.size(); ++i) {
      Expect(boolean_out[i] == fused[i], "boolean = additive", seq_q, seq_k, value_dim);
    }
  }
  for (size_t i = 0; i < fused.size(); ++i) {
    Expect(std::isfinite(fused[i]) && std::fabs(fused[i] - stepwise[i]) < 2e-5f, "paths agree",
           seq_q, seq_k, value_dim);
  }
}

void StridedMultiHead(std::mt19937& rng, int batch, int seq, int d_model, int heads, int kv_heads) {
  const int head_dim = d_model / heads, kv_width = kv_heads * head_dim;
  std::vector<float> x = Random(rng, static_cast<size_t>(batch) * seq * d_model);
  std::vector<float> wq = Random(rng, static_cast<size_t>(d_model) * d_model);
  std::vector<float> wk = Random(rng, static_cast<size_t>(d_model) * kv_width);
  std::vector<float> wv = Random(rng, static_cast<size_t>(d_model) * kv_width);
  std::vector<float> wo = Random(rng, static_cast<size_t>(d_model) * d_model);
  std::vector<float> out(x.size()), out2(x.size());
  std::vector<float> w(static_cast<size_t>(batch) * heads * seq * seq);
  attn::MultiHeadRequest r;
  r.query = r.key = r.value = x.data();
  r.batch = batch;
  r.seq_q = r.seq_k = seq;
  r.d_model = r.k_dim = r.v_dim = d_model;
  r.num_heads = heads;
  r.num_kv_heads = kv_heads;
  r.weights.wq = wq.data();
  r.weights.wk = wk.data();
  r.weights.wv = wv.data();
  r.weights.wo = wo.data();
  r.causal = true;
  r.out = out.data();
  Expect(attn::MultiHeadForward(r) == attn::Status::kOk, "mha fused", batch, seq, d_model);
  r.out = out2.data();
  r.attention_weights = w.data();
  Expect(attn::MultiHeadForward(r) == attn::Status::kOk, "mha stepwise", batch, seq, d_model);
  for (size_t i = 0; i < out.size(); ++i)
    Expect(std::fabs(out[i] - out2[i]) < 1e-3f, "mha paths", batch, seq, d_model);
}

}  // namespace

// Scratch that cannot be allocated is a status, not a crash: run with ASan's
// allocator_may_return_null=1 and max_allocation_size_mb=64 (tests/native.test.js), each call
// below asks the core for one scratch block over 64 MiB while its own inputs stay small.
void ScratchFailures() {
  using attn::Status;
  auto expect_status = [](Status got, Status want, const char* what) {
    if (got != want) {
      std::printf("%s: status %d, expected %d\n", what, static_cast<int>(got),
                  static_cast<int>(want));
      ++failures;
    }
  };
  {  // FeedForward: hidden [8192, 4096] is 128 MiB.
    const int rows = 8192, d_ff = 4096;
    std::vector<float> x(rows, 1.0f), w1(d_ff, 0.5f), w2(d_ff, 0.25f), out(rows);
    expect_status(attn::FeedForward(x.data(), rows, 1, d_ff, w1.data(), nullptr, w2.data(), nullptr,
                                    attn::Activation::kRelu, out.data()),
                  Status::kOutOfMemory, "FeedForward hidden layer");
  }
  {  // MultiHeadForward: key [2^19, 1] projects to k [2^19, 64], 128 MiB.
    const int seq_k = 1 << 19, d_model = 64;
    std::vector<float> query(d_model, 0.1f), key(seq_k, 0.2f), wq(d_model * d_model), wk(d_model),
        wo(d_model * d_model), out(d_model);
    attn::MultiHeadRequest r;
    r.query = query.data();
    r.key = r.value = key.data();
    r.batch = 1;
    r.seq_q = 1;
    r.seq_k = seq_k;
    r.d_model = d_model;
    r.k_dim = r.v_dim = 1;
    r.num_heads = r.num_kv_heads = 4;
    r.weights.wq = wq.data();
    r.weights.wk = r.weights.wv = wk.data();
    r.weights.wo = wo.data();
    r.out = out.data();
    expect_status(attn::MultiHeadForward(r), Status::kOutOfMemory, "MultiHeadForward projections");
    r.seq_q = 1 << 30;  // q would need 2^36 floats: refused before anything is read
    expect_status(attn::MultiHeadForward(r), Status::kTooLarge, "MultiHeadForward sizes");
  }
  {  // RunAttention, fused: nine query rows (more than the two tiles read in place,
     // InPlaceRowsMax) pack the head, and v [2^23, 1] padded to 4 columns is 128 MiB; one row
     // reads keys and values in place (a block's scratch: 512 bytes), so the same call with one
     // row works; then a small call works.
    const int seq_k = 1 << 23;
    std::vector<float> q(9, 1.0f), k(seq_k, 0.0f), v(seq_k, 2.0f), out(9);
    std::vector<int32_t> entries = {0, 0, 0, 0, seq_k, 0};
    attn::AttentionRequest r;
    r.q = q.data();
    r.k = k.data();
    r.v = v.data();
    r.entries = entries.data();
    r.batch = 1;
    r.seq_q = 9;
    r.seq_k = seq_k;
    r.head_dim = r.value_dim = 1;
    r.out = out.data();
    expect_status(attn::RunAttention(r), Status::kOutOfMemory, "RunAttention workspace");
    r.seq_q = 1;
    expect_status(attn::RunAttention(r), Status::kOk, "RunAttention, one row in place");
    Expect(out[0] == 2.0f, "one row over 2^23 keys", 1, seq_k, 1);
    r.seq_k = entries[4] = 5;
    expect_status(attn::RunAttention(r), Status::kOk, "RunAttention after a failure");
    Expect(out[0] == 2.0f, "attention after a failure", 1, 5, 1);
    std::vector<float> weights(1);
    r.weights = weights.data();
    r.seq_q = 1 << 16;
    r.seq_k = entries[4] = 1 << 16;  // weights [2^16, 2^16]: 16 GiB
    expect_status(attn::RunAttention(r), Status::kTooLarge, "RunAttention weights size");
  }
  {  // LaplacianEncoding: the matrix itself (n = 3000: 72 MB), then the solver's reserve
     // (n = 2800: a 63 MB matrix, then 72 MB for the solver).
    std::vector<int32_t> edges = {0, 1, 1, 2};
    std::vector<float> vectors(3000), values(1);
    for (int n : {3000, 2800}) {
      expect_status(attn::LaplacianEncoding(n, edges.data(), 2, 1, vectors.data(), values.data()),
                    Status::kOutOfMemory, "LaplacianEncoding");
    }
    expect_status(attn::LaplacianEncoding(20000, edges.data(), 2, 1, vectors.data(), values.data()),
                  Status::kTooLarge, "LaplacianEncoding size");
  }
}

// The thread pool: 2, 3 and 4 threads give the bits of one thread for fused attention split
// by query rows (one head, causal, Lq not a multiple of the 16-row task), by whole heads
// (6 heads), and for matmul row blocks; under the sanitizers, the pool itself is checked too.
// AdamW and SGD against a double-precision transcription of their definitions, five steps;
// the global norm against a direct sum.
void OptimizersMatchReference(std::mt19937& rng) {
  const int n = 37;
  std::vector<float> params = Random(rng, n), m(n, 0.0f), v(n, 0.0f);
  std::vector<double> p64(params.begin(), params.end()), m64(n, 0.0), v64(n, 0.0);
  attn::AdamWConfig c;
  c.lr = 0.01f;
  c.weight_decay = 0.1f;
  for (int step = 1; step <= 5; ++step) {
    std::vector<float> grads = Random(rng, n);
    const float* arrays[] = {grads.data()};
    const uint64_t counts[] = {static_cast<uint64_t>(n)};
    const double norm = attn::GlobalGradNorm(arrays, counts, 1);
    double direct = 0.0;
    for (float g : grads) direct += static_cast<double>(g) * g;
    Expect(std::fabs(norm - std::sqrt(direct)) < 1e-9, "global norm", step, n, 0);
    const float scale = static_cast<float>(std::min(1.0, 1.0 / norm));  // clip to norm 1
    attn::AdamWStep(params.data(), grads.data(), m.data(), v.data(), n, c, step, scale);
    for (int i = 0; i < n; ++i) {
      const double g = static_cast<double>(grads[i]) * scale;
      m64[i] = 0.9 * m64[i] + 0.1 * g;
      v64[i] = 0.999 * v64[i] + 0.001 * g * g;
      const double mh = m64[i] / (1 - std::pow(0.9, step)),
                   vh = v64[i] / (1 - std::pow(0.999, step));
      p64[i] -= 0.01 * (mh / (std::sqrt(vh) + 1e-8) + 0.1 * p64[i]);
      Expect(std::fabs(params[i] - p64[i]) < 1e-5, "adamw", step, i, 0);
    }
  }
  std::vector<float> sgd = Random(rng, n), velocity(n, 0.0f), grads = Random(rng, n);
  std::vector<float> start = sgd;
  attn::SgdStep(sgd.data(), grads.data(), velocity.data(), n, 0.1f, 0.9f, 1.0f);
  attn::SgdStep(sgd.data(), grads.data(), velocity.data(), n, 0.1f, 0.9f, 1.0f);
  for (int i = 0; i < n; ++i) {  // two steps with the same gradient: v1 = g, v2 = 1.9·g
    Expect(std::fabs(sgd[i] - (start[i] - 0.1f * grads[i] - 0.1f * 1.9f * grads[i])) < 1e-6, "sgd",
           i, 0, 0);
  }
}

void ThreadedMatchesSerial(std::mt19937& rng) {
  struct Case {
    int batch, seq_q, seq_k, dim;
    bool causal;
  };
  const Case cases[] = {{1, 301, 277, 40, true}, {6, 70, 90, 32, false}, {3, 130, 250, 64, true}};
  for (const Case& c : cases) {
    const size_t q_size = static_cast<size_t>(c.batch) * c.seq_q * c.dim;
    const size_t kv_size = static_cast<size_t>(c.batch) * c.seq_k * c.dim;
    std::vector<float> q = Random(rng, q_size), k = Random(rng, kv_size), v = Random(rng, kv_size);
    std::vector<int32_t> entries;
    for (int b = 0; b < c.batch; ++b) {
      entries.insert(entries.end(), {static_cast<int32_t>(b * c.seq_q * c.dim),
                                     static_cast<int32_t>(b * c.seq_k * c.dim),
                                     static_cast<int32_t>(b * c.seq_k * c.dim), 0, c.seq_k, 0});
    }
    auto run = [&](int threads) {
      attn::SetThreadCount(threads);
      std::vector<float> out(q_size);
      attn::AttentionRequest r;
      r.q = q.data();
      r.k = k.data();
      r.v = v.data();
      r.entries = entries.data();
      r.batch = c.batch;
      r.seq_q = c.seq_q;
      r.seq_k = c.seq_k;
      r.head_dim = r.value_dim = c.dim;
      r.scale = 0.125f;
      r.causal = c.causal;
      r.out = out.data();
      Expect(attn::RunAttention(r) == attn::Status::kOk, "threaded attention status", threads,
             c.batch, c.seq_q);
      return out;
    };
    const std::vector<float> serial = run(1);
    for (int threads : {2, 3, 4}) {
      const std::vector<float> threaded = run(threads);
      Expect(attn::ThreadCount() == threads, "thread count", threads, 0, 0);
      Expect(std::memcmp(serial.data(), threaded.data(), sizeof(float) * q_size) == 0,
             "threaded attention bits", threads, c.batch, c.seq_q);
    }
  }
  const int rows = 301, inner = 200, cols = 150;
  std::vector<float> a = Random(rng, rows * inner), b = Random(rng, inner * cols);
  std::vector<float> serial(rows * cols), threaded(rows * cols);
  attn::SetThreadCount(1);
  attn::MatMul(a.data(), b.data(), nullptr, rows, inner, cols, serial.data());
  attn::SetThreadCount(3);
  attn::MatMul(a.data(), b.data(), nullptr, rows, inner, cols, threaded.data());
  Expect(std::memcmp(serial.data(), threaded.data(), sizeof(float) * serial.size()) == 0,
         "threaded matmul bits", rows, inner, cols);
  attn::SetThreadCount(1);
}

// The training model under the sanitizers: awkward sizes (odd d_model, d_ff, lengths), both
// norms and heads, padding, causal; 3 steps on 1 thread and on 3 give the same bits, and 40
// steps on one batch bring its loss down.
void ModelTrainsUnderSanitizers(std::mt19937& rng) {
  struct Case {
    int vocab, max_len, d, heads, layers, d_ff;
    bool pre, causal, classify, learned, relu;
  };
  const Case cases[] = {{7, 9, 6, 3, 2, 5, true, false, false, true, false},
                        {5, 4, 8, 2, 1, 9, false, true, false, false, true},
                        {11, 6, 12, 4, 3, 16, true, false, true, true, false},
                        {11, 2, 4, 1, 1, 3, false, false, true, false, false}};
  for (const Case& c : cases) {
    attn::ModelConfig config;
    config.vocab_size = c.vocab, config.max_len = c.max_len, config.d_model = c.d;
    config.num_heads = c.heads, config.num_layers = c.layers, config.d_ff = c.d_ff;
    config.pre_norm = c.pre, config.causal = c.causal, config.classify = c.classify;
    config.outputs = c.classify ? 3 : c.vocab, config.learned_positions = c.learned;
    config.activation = c.relu ? attn::Activation::kRelu : attn::Activation::kGelu;
    config.seed = 7;
    Expect(attn::CheckModelConfig(config) == attn::Status::kOk, "model config", c.d, c.heads, 0);
    const int batch = 5, len = c.max_len;
    std::vector<int32_t> tokens(batch * len), lengths(batch), targets(batch * len);
    for (int& t : tokens) t = static_cast<int>(rng() % c.vocab);
    for (int b = 0; b < batch; ++b) lengths[b] = 1 + static_cast<int>(rng() % len);
    for (int i = 0; i < batch * len; ++i)
      targets[i] =
          c.classify ? static_cast<int>(rng() % 3) : static_cast<int>(rng() % (c.vocab + 1)) - 1;
    attn::ModelBatch mb;
    mb.tokens = tokens.data(), mb.lengths = lengths.data(), mb.targets = targets.data();
    mb.batch = batch, mb.len = len;
    attn::OptimizerConfig opt;
    opt.adamw.lr = 1e-2f;
    opt.clip_norm = 1.0f;
    auto train = [&](int threads, int steps, std::vector<double>* losses) {
      attn::SetThreadCount(threads);
      attn::TinyTransformer model(config);
      Expect(model.Allocate(), "model allocate", c.d, 0, 0);
      for (int s = 0; s < steps; ++s) {
        attn::StepResult r;
        Expect(model.TrainStep(mb, opt, &r) == attn::Status::kOk, "train step", c.d, s, threads);
        losses->push_back(r.loss);
      }
      return std::vector<float>(model.params(), model.params() + model.layout().total);
    };
    std::vector<double> serial_losses, threaded_losses, long_losses;
    const std::vector<float> serial = train(1, 3, &serial_losses);
    const std::vector<float> threaded = train(3, 3, &threaded_losses);
    Expect(serial == threaded && serial_losses == threaded_losses, "model threads bits", c.d,
           c.layers, 3);
    train(1, 40, &long_losses);
    Expect(long_losses.back() < 0.5 * long_losses.front(), "model loss falls", c.d, c.layers,
           static_cast<int>(1000 * long_losses.back()));
  }
  attn::SetThreadCount(1);
}

// The training kernels: aᵀ·b at every tile edge against a double sum, and GELU and its
// derivative against std::erf on a dense grid (A&S 7.1.26 keeps Φ within 7.5e-8).
void TrainingKernels(std::mt19937& rng) {
  for (int inner : {1, 5, 64}) {
    for (int m : {1, 3, 4, 5, 17}) {
      for (int n : {1, 7, 8, 9, 17}) {
        std::vector<float> a = Random(rng, static_cast<size_t>(inner) * m);
        std::vector<float> b = Random(rng, static_cast<size_t>(inner) * n);
        std::vector<float> out(static_cast<size_t>(m) * n);
        attn::MultiplyTransposedA(a.data(), inner, m, b.data(), n, out.data());
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int p = 0; p < inner; ++p) sum += double{a[p * m + i]} * b[p * n + j];
            Expect(std::fabs(out[i * n + j] - sum) < 1e-4, "aT.b", inner, m, n);
          }
      }
    }
  }
  std::vector<float> x, ones;
  for (int i = -8000; i <= 8000; ++i) x.push_back(i / 1000.0f), ones.push_back(1.0f);
  x.push_back(std::numeric_limits<float>::infinity());
  ones.push_back(1.0f);
  std::vector<float> y(x.size()), dy(x.size());
  attn::GeluForward(x.data(), x.size() - 1, y.data());  // an odd count: the tail path too
  attn::GeluBackward(x.data(), ones.data(), x.size() - 1, dy.data());
  double worst_y = 0, worst_dy = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double v = x[i], cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
    const double pdf = std::exp(-0.5 * v * v) / std::sqrt(2 * 3.14159265358979323846);
    worst_y = std::max(worst_y, std::fabs(y[i] - v * cdf));
    worst_dy = std::max(worst_dy, std::fabs(dy[i] - (cdf + v * pdf)));
  }
  Expect(worst_y < 1e-6 && worst_dy < 1e-6, "gelu vs erf (1e-6 absolute)",
         static_cast<int>(worst_y * 1e9), static_cast<int>(worst_dy * 1e9), 0);
  std::printf("training kernels: gelu max error %.2e, gelu' max error %.2e on [-8, 8]\n", worst_y,
              worst_dy);
}

// A pretrained-model runner of each kind (GPT-2-like: layer norms, biases, learned positions,
// tanh GELU; Llama-like: RMS norms, SwiGLU, rotary embeddings, 4 heads on 2 kv heads) with
// random weights, under the sanitizers: a padded batch with every output asked for, then
// decoding with the cache, whose last logits must equal a full forward's last row.
void PretrainedRunnerUnderSanitizers(std::mt19937& rng) {
  // kind 0: GPT-2-like; 1: Llama-like; 2: Gemma/Qwen3/Phi-3-like on top of Llama's (head_dim 8
  // apart from 16 / 4, q/k norms, sandwich (1 + w) norms, scale and softcaps, an embedding
  // multiplier, a windowed layer with its own RoPE base beside a global one with longrope).
  for (int kind : {0, 1, 2}) {
    const bool llama = kind >= 1, gemma = kind == 2;
    attn::ModelDescriptor m;
    m.vocab_size = 11, m.d_model = 16, m.num_heads = 4, m.num_kv_heads = llama ? 2 : 4;
    m.head_dim = gemma ? 8 : 4;
    m.num_layers = 2, m.d_ff = 24, m.pre_norm = true, m.final_norm = true, m.causal = true;
    m.lm_head = true, m.max_positions = llama ? 0 : 12;
    m.qkv_bias = m.out_bias = m.mlp_bias = !llama;
    m.norm = gemma   ? attn::NormKind::kRmsNormPlusOne
             : llama ? attn::NormKind::kRmsNorm
                     : attn::NormKind::kLayerNorm;
    m.activation = llama ? attn::Activation::kSilu : attn::Activation::kGeluTanh;
    m.gated_ffn = llama, m.rotary_dim = gemma ? 6 : llama ? 4 : 0;
    if (gemma) {
      m.qk_norm = m.post_norms = true;
      m.attention_scale = 0.3f, m.attention_softcap = 2.0f, m.final_softcap = 3.0f;
      m.embedding_multiplier = 4.0f;
      m.layer_windows[0] = 3, m.local_rotary_base = 100.0;
      m.rope_scaling = attn::RopeScaling::kLongRope;
      m.rope_original_max = 100, m.rope_attention_factor = 1.1;
      for (int i = 0; i < 3; ++i)
        m.rope_short_factors[i] = 1.0f + i, m.rope_long_factors[i] = 2.0f + i;
    }
    Expect(attn::CheckDescriptor(m) == attn::Status::kOk, "descriptor", llama, 0, 0);
    attn::PretrainedModel model(m);
    Expect(model.Allocate(), "allocate", llama, 0, 0);
    for (int i = 0; i < model.weight_count(); ++i) {
      const attn::WeightEntry& e = model.weight(i);
      const std::vector<float> w = Random(rng, static_cast<size_t>(e.rows) * e.cols);
      const bool transposed = e.matrix && i % 2 == 0;
      Expect(model.SetWeight(i, w.data(), false, transposed ? e.rows : e.cols, transposed) ==
                 attn::Status::kOk,
             "set weight", llama, i, 0);
    }
    // 1. A padded batch of two, every output asked for.
    const int T = 7;
    std::vector<int32_t> ids(2 * T), positions(2 * T), lengths = {T, 5};
    for (int r = 0; r < 2 * T; ++r) ids[r] = static_cast<int32_t>(rng() % 11), positions[r] = r % T;
    attn::ModelInput in;
    in.ids = ids.data(), in.positions = positions.data(), in.lengths = lengths.data();
    in.batch = 2, in.len = T, in.hidden_states = in.attentions = true, in.keep_qk_layer = 1;
    Expect(model.Forward(in) == attn::Status::kOk, "runner forward", llama, T, 0);
    std::vector<float> full(model.logits() + (T - 1) * 11,
                            model.logits() + T * 11);  // sequence 0's last row
    model.ReleaseOutputs();
    // 2. The same first sequence through the cache: 4 tokens (the fused path), then one at a
    //    time (the step-by-step path); a float32 cache, then bfloat16 and float16 ones (half
    //    the bytes; their logits near the float32 cache's, but not equal: the keys and values
    //    were rounded), and a q8_0 one (34 bytes per 32).
    std::vector<float> cached_f32(11);
    for (const attn::KvStorage storage : {attn::KvStorage::kFloat32, attn::KvStorage::kBfloat16,
                                          attn::KvStorage::kFloat16, attn::KvStorage::kQ8_0}) {
      const int s = static_cast<int>(storage);
      Expect(model.ReserveCache(1, T, storage), "reserve cache", kind, s, 0);
      Expect(model.cache_bytes() ==
                 2ull * m.num_layers * T * attn::KvRowBytes(storage, attn::KvWidth(m)),
             "cache bytes", kind, s, static_cast<int>(model.cache_bytes()));
      for (int start = 0; start < T;) {
        const int len = start == 0 ? 4 : 1;
        attn::ModelInput step;
        step.ids = ids.data() + start, step.positions = positions.data() + start;
        step.batch = 1, step.len = len, step.use_cache = true, step.last_logits_only = true;
        step.attentions = start > 0;
        Expect(model.Forward(step) == attn::Status::kOk, "cached forward", kind, start, len);
        start += len;
      }
      const float* logits = model.logits();
      bool differs = false;
      double worst = 0;
      for (int v = 0; v < 11; ++v) {
        worst = std::max<double>(worst, std::fabs(logits[v] - full[v]) / (1 + std::fabs(full[v])));
        if (storage == attn::KvStorage::kFloat32) cached_f32[v] = logits[v];
        differs = differs || logits[v] != cached_f32[v];
      }
      // bfloat16 keeps 8 significant bits, float16 11: relative errors 2^-9, 2^-12 per value;
      // q8_0 half a step of max|x| / 127 per value.
      const double bound = storage == attn::KvStorage::kFloat32   ? 1e-4
                           : storage == attn::KvStorage::kFloat16 ? 4e-3
                                                                  : 3e-2;
      Expect(worst <= bound, "cached = full", kind, s, static_cast<int>(worst * 1e6));
      Expect(differs == (storage != attn::KvStorage::kFloat32), "half cache rounds", kind, s, 0);
      std::printf("runner kind %d, kv storage %d: cached vs full logits, max relative %.2e\n", kind,
                  s, worst);
      attn::ModelInput over;
      over.ids = ids.data(), over.positions = positions.data(), over.batch = 1, over.len = 1,
      over.use_cache = true;
      Expect(model.Forward(over) == attn::Status::kBadArgument, "cache full", kind, s, 0);
      model.DropCache();
      Expect(model.cache_bytes() == 0, "dropped cache", kind, s, 0);
    }
    // 3. A cached call past one chunk (kPrefillChunk), a batch of two, every layer kind (a
    //    window, longrope's long factors for the whole call): its last logits equal the same
    //    call made whole (asking for the hidden states keeps it in one piece).
    if (llama) {
      const int L = attn::kPrefillChunk + 9;
      std::vector<int32_t> long_ids(2 * L), long_positions(2 * L);
      for (int r = 0; r < 2 * L; ++r) {
        long_ids[r] = static_cast<int32_t>(rng() % 11), long_positions[r] = r % L;
      }
      std::vector<float> whole;
      for (const bool chunked : {false, true}) {
        Expect(model.ReserveCache(2, L, attn::KvStorage::kFloat32), "reserve long", kind, 0, 0);
        attn::ModelInput call;
        call.ids = long_ids.data(), call.positions = long_positions.data();
        call.batch = 2, call.len = L, call.use_cache = true, call.last_logits_only = true;
        call.hidden_states = !chunked;
        Expect(model.Forward(call) == attn::Status::kOk, "long cached forward", kind, chunked, 0);
        Expect(model.cache_length() == L, "long cache length", kind, chunked, model.cache_length());
        const float* logits = model.logits();
        if (!chunked) whole.assign(logits, logits + 22);
        for (int v = 0; v < 22 && chunked; ++v) {
          Expect(std::fabs(logits[v] - whole[v]) <= 1e-4f * (1 + std::fabs(whole[v])),
                 "chunks = whole", kind, v, 0);
        }
        model.DropCache();
        model.ReleaseOutputs();
      }
    }
    // A cache past kMaxBufferBytes is refused before anything is allocated, in any storage.
    for (const attn::KvStorage storage : {attn::KvStorage::kFloat32, attn::KvStorage::kFloat16}) {
      Expect(!model.ReserveCache(1 << 20, 1 << 20, storage), "huge cache refused", kind, 0, 0);
      Expect(model.cache_bytes() == 0 && model.cache_capacity() == 0, "no cache kept", kind, 0, 0);
    }
    model.ReleaseOutputs();
  }
}

// The half storages' conversions: every bfloat16 and float16 bit pattern widens (four lanes at
// a time, and in the scalar tail) to exactly the float32 the definitions give, and rounding
// to a half is to nearest, ties to even, with overflow to Infinity.
void HalfStorageConversions() {
  std::vector<uint16_t> all(65536 + 3);  // + 3: a scalar tail
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> wide(all.size());
  for (const attn::KvStorage s : {attn::KvStorage::kBfloat16, attn::KvStorage::kFloat16}) {
    const bool bf16 = s == attn::KvStorage::kBfloat16;
    attn::WidenRow(all.data(), static_cast<int>(all.size()), s, wide.data());
    for (size_t i = 0; i < all.size(); ++i) {
      float expected = attn::HalfToFloat(all[i]);  // float16 by its own definition
      if (bf16) {
        const uint32_t bits = static_cast<uint32_t>(all[i]) << 16;
        std::memcpy(&expected, &bits, sizeof(bits));
      }
      Expect(std::memcmp(&expected, &wide[i], sizeof(float)) == 0, "widen exactly", bf16,
             static_cast<int>(i), 0);
    }
    // Every finite half survives the round trip; NaN stays NaN.
    std::vector<uint16_t> back(all.size());
    attn::NarrowRow(wide.data(), static_cast<int>(wide.size()), s, back.data());
    for (size_t i = 0; i < all.size(); ++i) {
      const bool nan = std::isnan(wide[i]);
      Expect(nan ? std::isnan(bf16 ? wide[i] : attn::HalfToFloat(back[i])) : back[i] == all[i],
             "round trip", bf16, static_cast<int>(i), back[i]);
    }
  }
  // Ties to even, and overflow.
  const float max = std::numeric_limits<float>::max();
  Expect(attn::FloatToBf16(1.0f + 0x1p-8f) == 0x3f80, "bf16 tie down to even", 0, 0, 0);
  Expect(attn::FloatToBf16(1.0f + 3 * 0x1p-8f) == 0x3f82, "bf16 tie up to even", 0, 0, 0);
  Expect(attn::FloatToBf16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81, "bf16 above the tie", 0, 0, 0);
  Expect(attn::FloatToBf16(max) == 0x7f80 && attn::FloatToBf16(-max) == 0xff80, "bf16 overflow", 0,
         0, 0);
  Expect(attn::FloatToHalf(1.0f + 0x1p-11f) == 0x3c00 && attn::FloatToHalf(65520.0f) == 0x7c00,
         "f16 tie and overflow", 0, 0, 0);
}

// Attention over half-stored keys and values (strided heads, as a cache's) equals attention
// over the same values widened to float32, bit for bit, on both paths: the widening is exact
// and the kernels then run as they do on float32.
// With `poison`, the value of key seq_k - 2 holds Infinity: the rows before it weigh it 0
// (causal), so only the careful form (skipping zero weights, not 0·Inf = NaN) keeps them
// finite; the last row sees it (NaN compares as NaN).
void HalfKeysMatchWidened(std::mt19937& rng, int seq_q, int seq_k, int head_dim, int value_dim,
                          attn::KvStorage storage, bool poison = false) {
  const int stride = std::max(head_dim, value_dim) + 3;  // a head of a wider [seq_k, kv] row
  std::vector<float> q = Random(rng, static_cast<size_t>(seq_q) * head_dim);
  std::vector<float> kv = Random(rng, static_cast<size_t>(seq_k) * stride * 2);
  for (float& x : kv) x *= 3.0f;
  std::vector<uint16_t> halves(kv.size());
  attn::NarrowRow(kv.data(), static_cast<int>(kv.size()), storage, halves.data());
  std::vector<float> widened(kv.size());  // by the definitions, not WidenRow
  for (size_t i = 0; i < kv.size(); ++i) {
    const uint32_t bits = static_cast<uint32_t>(halves[i]) << 16;
    if (storage == attn::KvStorage::kBfloat16) {
      std::memcpy(&widened[i], &bits, sizeof(float));
    } else {
      widened[i] = attn::HalfToFloat(halves[i]);
    }
  }
  const size_t v_at = static_cast<size_t>(seq_k) * stride;  // values after the keys
  if (poison) {  // key seq_k - 2's value column 1 (value_dim >= 2)
    const size_t at = v_at + static_cast<size_t>(seq_k - 2) * stride + 1;
    halves[at] = storage == attn::KvStorage::kBfloat16 ? 0x7f80 : 0x7c00;
    widened[at] = std::numeric_limits<float>::infinity();
  }
  const int32_t entries[attn::kEntryColumns] = {0, 0, 0, 0, seq_k, seq_k - seq_q};
  for (const bool stepwise : {false, true}) {
    std::vector<float> from_floats(static_cast<size_t>(seq_q) * value_dim, -7.0f);
    std::vector<float> from_halves(from_floats.size(), -5.0f);
    std::vector<float> weights(static_cast<size_t>(seq_q) * seq_k + 1);
    attn::AttentionRequest r;
    r.q = q.data(), r.k = widened.data(), r.v = widened.data() + v_at;
    r.entries = entries, r.batch = 1, r.seq_q = seq_q, r.seq_k = seq_k;
    r.head_dim = head_dim, r.value_dim = value_dim, r.k_stride = r.v_stride = stride;
    r.scale = 0.3f, r.causal = true, r.out = from_floats.data();
    r.weights = stepwise ? weights.data() : nullptr;
    Expect(attn::RunAttention(r) == attn::Status::kOk, "float status", seq_q, seq_k, stepwise);
    r.k = r.v = nullptr;
    r.kv_storage = storage, r.k16 = halves.data(), r.v16 = halves.data() + v_at;
    r.out = from_halves.data();
    Expect(attn::RunAttention(r) == attn::Status::kOk, "half status", seq_q, seq_k, stepwise);
    for (size_t i = 0; i < from_floats.size(); ++i) {
      const bool same = from_halves[i] == from_floats[i] ||
                        (std::isnan(from_halves[i]) && std::isnan(from_floats[i]));
      Expect(same, "half = widened", seq_q, seq_k, head_dim * 10 + stepwise);
    }
  }
}

// A query row as q8_0 keys in whole blocks read it (kv_storage.h), computed here on its own:
// per block of 32, e the smallest integer with max|q| <= 32767 · 2^e (found by stepping),
// codes round(q / 2^e) ties to even, q̂ = code · 2^e.
std::vector<float> CodedQueries(const std::vector<float>& q) {
  std::vector<float> out(q.size());
  for (size_t b = 0; b < q.size(); b += 32) {
    double amax = 0;
    for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(static_cast<double>(q[i])));
    if (amax == 0) continue;
    int e = -160;
    while (amax > 32767.0 * std::ldexp(1.0, e)) ++e;
    for (size_t i = b; i < b + 32; ++i) {
      const double x = q[i] / std::ldexp(1.0, e);
      double code = std::floor(x + 0.5);
      if (code - x == 0.5 && std::fmod(code, 2.0) != 0) code -= 1;  // a tie: to even
      out[i] = static_cast<float>(code * std::ldexp(1.0, e));
    }
  }
  return out;
}

// Attention over q8_0 keys and values read in place (rows of whole blocks, heads starting
// anywhere in a block, so four columns may straddle two) equals attention over the same rows
// dequantized by DequantizeKvRow. A head whose key rows are whole blocks (col0 = 0, head_dim
// a multiple of 32) scores its keys against coded queries (CodedQueries): the step-by-step
// path then equals the float path given q̂, bit for bit, and the fused path (integer sums)
// equals it within float32 rounding of the sums; other heads, bit for bit on both paths.
void Q8KeysMatchDequantized(std::mt19937& rng, int seq_q, int seq_k, int head_dim, int col0) {
  const int width = 64;  // a cache row of 2 blocks; the head is columns col0 .. col0 + head_dim
  const int row_bytes = static_cast<int>(attn::KvRowBytes(attn::KvStorage::kQ8_0, width));
  std::vector<float> q = Random(rng, static_cast<size_t>(seq_q) * head_dim);
  const bool coded = col0 % 32 == 0 && head_dim % 32 == 0;
  const std::vector<float> q_read = coded ? CodedQueries(q) : q;
  std::vector<float> kv = Random(rng, static_cast<size_t>(seq_k) * width * 2);  // keys, values
  std::vector<uint8_t> blocks(static_cast<size_t>(seq_k) * 2 * row_bytes);
  std::vector<float> dequantized(kv.size());
  for (int row = 0; row < 2 * seq_k; ++row) {
    attn::QuantizeKvRow(kv.data() + static_cast<size_t>(row) * width, width,
                        blocks.data() + static_cast<size_t>(row) * row_bytes);
    attn::DequantizeKvRow(blocks.data() + static_cast<size_t>(row) * row_bytes, width,
                          dequantized.data() + static_cast<size_t>(row) * width);
  }
  const size_t v_at = static_cast<size_t>(seq_k) * width;  // values after the keys (elements)
  const int32_t entries[attn::kEntryColumns] = {0, col0, col0, 0, seq_k, seq_k - seq_q};
  for (const bool stepwise : {false, true}) {
    std::vector<float> from_floats(static_cast<size_t>(seq_q) * head_dim, -7.0f);
    std::vector<float> from_blocks(from_floats.size(), -5.0f);
    std::vector<float> weights(static_cast<size_t>(seq_q) * seq_k + 1);
    attn::AttentionRequest r;
    r.q = q_read.data(), r.k = dequantized.data(), r.v = dequantized.data() + v_at;
    r.entries = entries, r.batch = 1, r.seq_q = seq_q, r.seq_k = seq_k;
    r.head_dim = r.value_dim = head_dim, r.k_stride = r.v_stride = width;
    r.scale = 0.3f, r.causal = true, r.out = from_floats.data();
    r.weights = stepwise ? weights.data() : nullptr;
    Expect(attn::RunAttention(r) == attn::Status::kOk, "float status", seq_q, seq_k, stepwise);
    r.q = q.data(), r.k = r.v = nullptr;
    r.kv_storage = attn::KvStorage::kQ8_0, r.kq = blocks.data();
    r.vq = blocks.data() + static_cast<size_t>(seq_k) * row_bytes;  // element v_at's block
    r.out = from_blocks.data();
    Expect(attn::RunAttention(r) == attn::Status::kOk, "q8 status", seq_q, seq_k, stepwise);
    // Integer sums: each score within a few float32 roundings of Σ|q̂·k| (<= 32 · 2 · 1 here,
    // times 2^-24 per rounding, times the 0.3 scale), so an output (a weighted mean of values
    // within ±1) within 1e-5.
    const float tolerance = coded && !stepwise ? 1e-5f : 0.0f;
    for (size_t i = 0; i < from_floats.size(); ++i) {
      Expect(std::fabs(from_blocks[i] - from_floats[i]) <= tolerance, "q8 = dequantized", seq_q,
             seq_k, head_dim * 100 + col0 * 2 + stepwise);
    }
  }
  // Rows that are not whole blocks are refused.
  attn::AttentionRequest bad;
  std::vector<float> out(static_cast<size_t>(seq_q) * head_dim);
  bad.q = q.data(), bad.entries = entries, bad.batch = 1, bad.seq_q = seq_q, bad.seq_k = seq_k;
  bad.head_dim = bad.value_dim = head_dim, bad.k_stride = bad.v_stride = width - 1;
  bad.kv_storage = attn::KvStorage::kQ8_0, bad.kq = bad.vq = blocks.data(), bad.out = out.data();
  Expect(attn::RunAttention(bad) == attn::Status::kBadStride, "q8 stride", seq_q, seq_k, 0);
}

// With q8_0 keys in whole blocks the query is coded: q = [1, 1.2e-5, 0, ...] is read as
// [1, 0, ...] (1.2e-5 is under half of 2^-14, its block's step), so a key [0, 1e5, 0, ...]
// scores 0, as a zero key does, and the output is the mean of the two values, on both paths
// (as floats, q·k = 1.2 and the weights are 0.77 / 0.23).
void CodedQueriesDecideTheScores() {
  const int dim = 32, row_bytes = static_cast<int>(attn::KvRowBytes(attn::KvStorage::kQ8_0, dim));
  std::vector<float> q(dim, 0.0f), kv(4 * dim, 0.0f);
  q[0] = 1.0f, q[1] = 1.2e-5f;
  kv[1] = 1e5f;            // key 0; key 1 is zeros
  kv[2 * dim] = 1.0f;      // value 0 = e_0
  kv[3 * dim + 1] = 1.0f;  // value 1 = e_1
  std::vector<uint8_t> blocks(4 * static_cast<size_t>(row_bytes));
  for (int row = 0; row < 4; ++row) {
    attn::QuantizeKvRow(kv.data() + row * dim, dim, blocks.data() + row * row_bytes);
  }
  std::vector<float> values(2 * dim);  // as the cache holds them (1 is 0.99994)
  attn::DequantizeKvRow(blocks.data() + 2 * row_bytes, dim, values.data());
  attn::DequantizeKvRow(blocks.data() + 3 * row_bytes, dim, values.data() + dim);
  const int32_t entries[attn::kEntryColumns] = {0, 0, 0, 0, 2, 0};
  for (const bool stepwise : {false, true}) {
    std::vector<float> out(dim, -1.0f), weights(2);
    attn::AttentionRequest r;
    r.q = q.data(), r.entries = entries, r.batch = 1, r.seq_q = 1, r.seq_k = 2;
    r.head_dim = r.value_dim = dim, r.k_stride = r.v_stride = dim, r.scale = 1.0f;
    r.kv_storage = attn::KvStorage::kQ8_0, r.kq = blocks.data(),
    r.vq = blocks.data() + 2 * row_bytes;
    r.out = out.data(), r.weights = stepwise ? weights.data() : nullptr;
    Expect(attn::RunAttention(r) == attn::Status::kOk, "coded status", stepwise, 0, 0);
    Expect(out[0] == 0.5f * values[0] && out[1] == 0.5f * values[dim + 1] && out[2] == 0.0f,
           "coded query's mean", stepwise, 0, 0);
  }
}

// bfloat16 bits of a float (round to nearest even; the test's values are finite).
uint16_t ToBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float FromBf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

// MultiplyPanels on bfloat16 panels gives the bits of float32 panels holding the same values,
// for the matrix-vector path (rows below a tile), the tiles, short tiles, edge panels and a
// depth across the widening chunks (256); and matches a double-precision sum.
void Bf16PanelsMatchFloat32(std::mt19937& rng) {
  for (int rows : {1, 3, 4, 5, 6, 7, 13, 64, 97}) {
    for (int inner : {1, 5, 255, 256, 257, 600}) {
      for (int cols : {1, 7, 8, 9, 40}) {
        const std::vector<float> a = Random(rng, static_cast<size_t>(rows) * inner);
        const std::vector<float> bias = Random(rng, cols);
        const std::vector<float> raw = Random(rng, static_cast<size_t>(inner) * cols);
        std::vector<uint16_t> b16(raw.size());
        std::vector<float> b32(raw.size());
        for (size_t i = 0; i < raw.size(); ++i) b16[i] = ToBf16(raw[i]), b32[i] = FromBf16(b16[i]);
        const bool transposed = (rows + cols) % 2 == 1;  // pack from [cols, inner] too
        std::vector<uint16_t> t16(raw.size());
        if (transposed) {
          for (int p = 0; p < inner; ++p)
            for (int c = 0; c < cols; ++c)
              t16[static_cast<size_t>(c) * inner + p] = b16[static_cast<size_t>(p) * cols + c];
        }
        std::vector<uint16_t> p16(attn::PanelFloats(inner, cols));
        std::vector<float> p32(attn::PanelFloats(inner, cols));
        if (transposed) {
          attn::PackTransposedPanels(t16.data(), inner, cols, inner, p16.data());
        } else {
          attn::PackColumnPanels(b16.data(), cols, inner, cols, p16.data());
        }
        attn::PackColumnPanels(b32.data(), cols, inner, cols, p32.data());
        std::vector<float> out16(static_cast<size_t>(rows) * cols), out32(out16.size());
        attn::Panels half;
        half.bf16 = p16.data();
        Expect(attn::MultiplyPanels(a.data(), inner, rows, inner, half, bias.data(), cols,
                                    out16.data(), cols) == attn::Status::kOk,
               "bf16 product", rows, inner, cols);
        attn::MultiplyPanels(a.data(), inner, rows, inner, p32.data(), bias.data(), cols,
                             out32.data(), cols);
        Expect(std::memcmp(out16.data(), out32.data(), sizeof(float) * out16.size()) == 0,
               "bf16 panels = float32 panels (bits)", rows, inner, cols);
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) {
            double s = bias[j], mag = std::fabs(bias[j]);
            for (int p = 0; p < inner; ++p) {
              const double term = double(a[static_cast<size_t>(i) * inner + p]) *
                                  b32[static_cast<size_t>(p) * cols + j];
              s += term, mag += std::fabs(term);
            }
            Expect(std::fabs(out16[static_cast<size_t>(i) * cols + j] - s) <= 1e-6 * mag + 1e-7,
                   "bf16 panels vs double", rows, inner, cols);
          }
        }
      }
    }
  }
}

// A model with bfloat16 matrices gives the bits of one holding the same values as float32,
// and refuses a matrix of the other precision.
void PretrainedBf16MatchesFloat32(std::mt19937& rng) {
  attn::ModelDescriptor m;
  m.vocab_size = 11, m.d_model = 16, m.num_heads = 4, m.num_kv_heads = 2;
  m.num_layers = 2, m.d_ff = 24, m.pre_norm = true, m.final_norm = true, m.causal = true;
  m.lm_head = true, m.qkv_bias = m.out_bias = m.mlp_bias = false, m.norm = attn::NormKind::kRmsNorm;
  m.head_dim = 4;
  m.activation = attn::Activation::kSilu, m.gated_ffn = true, m.rotary_dim = 4;
  attn::ModelDescriptor m16 = m;
  m16.matrix_storage = attn::MatrixStorage::kBfloat16;
  attn::PretrainedModel f32(m), bf16(m16);
  Expect(f32.Allocate() && bf16.Allocate(), "allocate bf16", 0, 0, 0);
  Expect(bf16.parameter_floats() < f32.parameter_floats(), "bf16 is smaller", 0, 0, 0);
  for (int i = 0; i < f32.weight_count(); ++i) {
    const attn::WeightEntry& e = f32.weight(i);
    const std::vector<float> w = Random(rng, static_cast<size_t>(e.rows) * e.cols);
    std::vector<uint16_t> w16(w.size());
    std::vector<float> widened(w.size());
    for (size_t k = 0; k < w.size(); ++k) w16[k] = ToBf16(w[k]), widened[k] = FromBf16(w16[k]);
    const bool transposed = e.matrix && i % 2 == 0;
    const int stride = transposed ? e.rows : e.cols;
    Expect(f32.SetWeight(i, widened.data(), false, stride, transposed) == attn::Status::kOk &&
               bf16.SetWeight(i, w16.data(), true, stride, transposed) == attn::Status::kOk,
           "set bf16 weight", i, 0, 0);
    if (e.matrix) {
      Expect(bf16.SetWeight(i, widened.data(), false, stride, transposed) ==
                 attn::Status::kBadArgument,
             "a float32 matrix into bf16 panels is refused", i, 0, 0);
    }
  }
  const int T = 9;
  std::vector<int32_t> ids(T), positions(T);
  for (int r = 0; r < T; ++r) ids[r] = static_cast<int32_t>(rng() % 11), positions[r] = r;
  attn::ModelInput in;
  in.ids = ids.data(), in.positions = positions.data(), in.batch = 1, in.len = T;
  Expect(f32.Forward(in) == attn::Status::kOk && bf16.Forward(in) == attn::Status::kOk,
         "bf16 forward", 0, 0, 0);
  Expect(std::memcmp(f32.logits(), bf16.logits(), sizeof(float) * T * 11) == 0,
         "bf16 model = float32 model (bits)", 0, 0, 0);
}

// Every output of a quantized product a·W (a: [rows, inner], W: q) within the bound its
// activations' int8 codes allow of the float64 product of the dequantized weights: each
// activation moves by at most half a code, max|a_block| / 254.
void ExpectWithinCodesBound(const std::vector<float>& a, const attn::QuantMatrix& q, int rows,
                            int inner, int cols, const std::vector<float>& out, double slack) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      double exact = 0.0, bound = 0.0;
      for (int b = 0; b < inner / 32; ++b) {
        double amax = 0.0, wsum = 0.0;
        for (int k = 0; k < 32; ++k) {
          const int p = b * 32 + k;
          const double wv = attn::QuantWeight(q, inner, p, c);
          const double av = a[static_cast<size_t>(r) * inner + p];
          exact += av * wv, amax = std::max(amax, std::fabs(av)), wsum += std::fabs(wv);
        }
        bound += amax / 254.0 * wsum;
      }
      Expect(std::fabs(out[static_cast<size_t>(r) * cols + c] - exact) <= bound * 1.001 + slack,
             "quantized product within the codes' bound", r, c, static_cast<int>(q.storage));
    }
  }
}

// Quantized models under the sanitizers: Q8_0 and Q4_0 matrices and word embeddings (inner
// sizes that are and are not multiples of 32), filled from float32 and bfloat16, forward with
// and without the cache; a product within the activation codes' bound of the dequantized
// weights' (tests/quantized.test.js checks the bits against a reference).
void QuantizedUnderSanitizers(std::mt19937& rng) {
  for (const attn::MatrixStorage storage :
       {attn::MatrixStorage::kQ8_0, attn::MatrixStorage::kQ4_0}) {
    for (const int d : {16, 32, 40}) {
      attn::ModelDescriptor m;
      m.vocab_size = 13, m.d_model = d, m.num_heads = 4, m.num_kv_heads = 2, m.head_dim = d / 4;
      m.num_layers = 2, m.d_ff = 3 * d / 2, m.pre_norm = true, m.final_norm = true, m.causal = true;
      m.lm_head = true, m.norm = attn::NormKind::kRmsNorm, m.activation = attn::Activation::kSilu;
      m.gated_ffn = true, m.rotary_dim = 2, m.matrix_storage = storage;
      Expect(attn::CheckDescriptor(m) == attn::Status::kOk, "quantized descriptor", d, 0, 0);
      attn::PretrainedModel model(m);
      Expect(model.Allocate(), "allocate quantized", d, 0, 0);
      for (int i = 0; i < model.weight_count(); ++i) {
        const attn::WeightEntry& e = model.weight(i);
        const std::vector<float> w = Random(rng, static_cast<size_t>(e.rows) * e.cols);
        std::vector<uint16_t> w16(w.size());
        for (size_t k = 0; k < w.size(); ++k) w16[k] = ToBf16(w[k]);
        const bool transposed = e.matrix && i % 2 == 0;
        const int stride = transposed ? e.rows : e.cols;
        const attn::Status status = i % 3 == 0
                                        ? model.SetWeight(i, w16.data(), true, stride, transposed)
                                        : model.SetWeight(i, w.data(), false, stride, transposed);
        Expect(status == attn::Status::kOk, "set quantized weight", d, i, 0);
      }
      const int T = 7;
      std::vector<int32_t> ids(T), positions(T);
      for (int r = 0; r < T; ++r) ids[r] = static_cast<int32_t>(rng() % 13), positions[r] = r;
      attn::ModelInput in;
      in.ids = ids.data(), in.positions = positions.data(), in.batch = 1, in.len = T;
      Expect(model.Forward(in) == attn::Status::kOk, "quantized forward", d, 0, 0);
      Expect(model.ReserveCache(1, 2 * T), "quantized cache", d, 0, 0);
      in.use_cache = true;
      Expect(model.Forward(in) == attn::Status::kOk, "quantized cached forward", d, 0, 0);
    }
    // The product against the dequantized weights.
    const int inner = 64, cols = 9, rows = 5;
    const std::vector<float> w = Random(rng, static_cast<size_t>(inner) * cols);
    const std::vector<float> a = Random(rng, static_cast<size_t>(rows) * inner);
    std::vector<uint8_t> packed(attn::QuantBytes(storage, inner, cols));
    attn::QuantizeMatrix(w.data(), cols, false, inner, cols, storage, packed.data());
    const attn::QuantMatrix q{storage, packed.data()};
    std::vector<float> out(static_cast<size_t>(rows) * cols);
    Expect(attn::MultiplyQuantized(a.data(), inner, rows, inner, q, nullptr, cols, out.data(),
                                   cols) == attn::Status::kOk,
           "quantized product", 0, 0, 0);
    ExpectWithinCodesBound(a, q, rows, inner, cols, out, 1e-5);
  }
}

// Random GGUF K-quant super-blocks for `count` weights (Q4_K 144 bytes, Q6_K 210 a block of 256):
// every byte random but the float16 scales, small positive normals (d, and Q4_K's dmin).
std::vector<uint8_t> RandomKQuantBlocks(std::mt19937& rng, attn::MatrixStorage storage,
                                        size_t count) {
  const int size = attn::GgmlBlockBytes(storage);
  std::vector<uint8_t> bytes(count / attn::kKQuantBlock * size);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  auto set_half = [&](size_t at) {
    const uint16_t h = attn::FloatToHalf(1e-3f * (0.5f + static_cast<float>(rng() % 1000) / 1000));
    bytes[at] = static_cast<uint8_t>(h & 0xff), bytes[at + 1] = static_cast<uint8_t>(h >> 8);
  };
  for (size_t at = 0; at < bytes.size(); at += size) {
    if (storage == attn::MatrixStorage::kQ4_K) {
      set_half(at), set_half(at + 2);
    } else {
      set_half(at + 208);
    }
  }
  return bytes;
}

// A model whose matrices mix storages (a GGUF file's Q4_K, Q6_K and Q8_0 blocks, one list in
// the descriptor) under the sanitizers: the descriptor checks, the K-quant entries filled from
// their blocks (and refused from floats), forward with and without the cache; and the K-quant
// products within the activation codes' bound of the dequantized weights.
void MixedKQuantsUnderSanitizers(std::mt19937& rng) {
  using attn::MatrixStorage;
  attn::ModelDescriptor m;
  m.vocab_size = 11, m.d_model = 256, m.num_heads = 4, m.num_kv_heads = 2, m.head_dim = 64;
  m.num_layers = 2, m.d_ff = 512, m.pre_norm = true, m.final_norm = true, m.causal = true;
  m.lm_head = true, m.norm = attn::NormKind::kRmsNorm, m.activation = attn::Activation::kSilu;
  m.gated_ffn = true, m.rotary_dim = 64, m.matrix_storage = MatrixStorage::kQ8_0;
  // The word embeddings, then per layer q, k, v, o, gate, up, down, then the LM decoder.
  const MatrixStorage k4 = MatrixStorage::kQ4_K, k6 = MatrixStorage::kQ6_K,
                      q8 = MatrixStorage::kQ8_0;
  const std::vector<MatrixStorage> storages = {k4, k4, k4, k6, k4, k4, k4, k6,
                                               q8, k4, k6, k4, k4, k4, k6, k6};
  std::vector<int32_t> list(storages.size());
  for (size_t i = 0; i < storages.size(); ++i) list[i] = static_cast<int32_t>(storages[i]);
  m.matrix_storage_count = static_cast<int>(list.size());
  m.matrix_storages = list.data();
  Expect(attn::CheckDescriptor(m) == attn::Status::kOk, "mixed descriptor", 0, 0, 0);
  {
    attn::ModelDescriptor bad = m;
    std::vector<int32_t> longer = list;  // one more than the model's stored weights
    longer.push_back(static_cast<int32_t>(k4));
    bad.matrix_storages = longer.data();
    bad.matrix_storage_count = 17;
    Expect(attn::CheckDescriptor(bad) == attn::Status::kBadArgument, "storages past the entries", 0,
           0, 0);
    bad = m;
    bad.d_model = 128, bad.head_dim = 32, bad.rotary_dim = 32;  // K-quant inputs of 128
    Expect(attn::CheckDescriptor(bad) == attn::Status::kBadArgument, "K-quant rows of 128", 0, 0,
           0);
    bad = m;
    std::vector<int32_t> unknown = list;
    unknown[3] = 9;
    bad.matrix_storages = unknown.data();
    Expect(attn::CheckDescriptor(bad) == attn::Status::kBadArgument, "unknown storage", 0, 0, 0);
  }
  attn::PretrainedModel model(m);
  Expect(model.Allocate(), "allocate mixed", 0, 0, 0);
  int stored = 0;
  for (int i = 0; i < model.weight_count(); ++i) {
    const attn::WeightEntry& e = model.weight(i);
    const bool words = e.kind == attn::WeightKind::kWordEmbeddings;
    if (e.matrix || words) {
      Expect(e.storage == storages[stored++], "entry storage from the list", i, 0, 0);
    }
    const std::vector<float> w = Random(rng, static_cast<size_t>(e.rows) * e.cols);
    if (attn::IsKQuant(e.storage)) {
      Expect(model.SetWeight(i, w.data(), false, e.cols, false) == attn::Status::kBadArgument,
             "K-quant entry refuses floats", i, 0, 0);
      const std::vector<uint8_t> blocks =
          RandomKQuantBlocks(rng, e.storage, static_cast<size_t>(e.rows) * e.cols);
      Expect(model.SetQuantizedWeight(i, blocks.data(), e.storage) == attn::Status::kOk,
             "set K-quant blocks", i, 0, 0);
    } else {
      const bool transposed = e.matrix;
      Expect(model.SetWeight(i, w.data(), false, transposed ? e.rows : e.cols, transposed) ==
                 attn::Status::kOk,
             "set mixed weight", i, 0, 0);
    }
  }
  Expect(stored == static_cast<int>(storages.size()), "every listed entry seen", stored, 0, 0);
  const int T = 6;
  std::vector<int32_t> ids(T), positions(T);
  for (int r = 0; r < T; ++r) ids[r] = static_cast<int32_t>(rng() % 11), positions[r] = r;
  attn::ModelInput in;
  in.ids = ids.data(), in.positions = positions.data(), in.batch = 1, in.len = T;
  Expect(model.Forward(in) == attn::Status::kOk, "mixed forward", 0, 0, 0);
  for (int i = 0; i < T * 11; ++i)
    Expect(std::isfinite(model.logits()[i]), "finite logit", i, 0, 0);
  Expect(model.ReserveCache(1, 2 * T), "mixed cache", 0, 0, 0);
  in.use_cache = true;
  Expect(model.Forward(in) == attn::Status::kOk, "mixed cached forward", 0, 0, 0);
  // The products against the dequantized weights.
  for (const MatrixStorage storage : {k4, k6}) {
    const int inner = 512, cols = 9, rows = 5;
    const std::vector<uint8_t> blocks = RandomKQuantBlocks(rng, storage, size_t{512} * cols);
    std::vector<uint8_t> packed(attn::QuantBytes(storage, inner, cols));
    attn::PackGgmlBlocks(blocks.data(), inner, cols, storage, packed.data());
    const attn::QuantMatrix q{storage, packed.data()};
    const std::vector<float> a = Random(rng, static_cast<size_t>(rows) * inner);
    std::vector<float> out(static_cast<size_t>(rows) * cols);
    Expect(attn::MultiplyQuantized(a.data(), inner, rows, inner, q, nullptr, cols, out.data(),
                                   cols) == attn::Status::kOk,
           "K-quant product", 0, 0, 0);
    ExpectWithinCodesBound(a, q, rows, inner, cols, out, 1e-6);
  }
}

int main() {
  std::mt19937 rng(42);
  const int lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 65};
  const int dims[] = {1, 3, 4, 5, 8, 13, 64};
  int cases = 0;
  for (int seq_q : lengths) {
    for (int seq_k : lengths) {
      for (int dim : dims) {
        CompareBothPaths(rng, seq_q, seq_k, dim, dims[(seq_q + seq_k) % 7], (seq_q + dim) % 2 == 0,
                         (seq_k + dim) % 3 != 0);
        ++cases;
      }
    }
  }
  // Decode rows over key ranges split for the threads (flash-decoding, from 2,048 keys).
  for (int seq_k : {2047, 2048, 2049, 3100}) {
    for (int seq_q : {1, 3}) {
      CompareBothPaths(rng, seq_q, seq_k, 8, 5, seq_q == 3, seq_k % 2 == 1);
      ++cases;
    }
  }
  StridedMultiHead(rng, 2, 9, 12, 3, 3);
  StridedMultiHead(rng, 1, 33, 16, 4, 2);
  for (int rows : {1, 3, 4, 5, 64, 65}) {
    for (int cols : {1, 7, 8, 9, 17}) {
      std::vector<float> a = Random(rng, static_cast<size_t>(rows) * 5), b = Random(rng, 5u * cols);
      std::vector<float> bias = Random(rng, cols), out(static_cast<size_t>(rows) * cols);
      attn::MatMul(a.data(), b.data(), bias.data(), rows, 5, cols, out.data());
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
          float s = bias[j];
          for (int p = 0; p < 5; ++p) s += a[i * 5 + p] * b[p * cols + j];
          Expect(std::fabs(out[static_cast<size_t>(i) * cols + j] - s) < 1e-5f, "matmul", rows,
                 cols, 5);
        }
    }
  }
  ThreadedMatchesSerial(rng);
  OptimizersMatchReference(rng);
  TrainingKernels(rng);
  ModelTrainsUnderSanitizers(rng);
  PretrainedRunnerUnderSanitizers(rng);
  HalfStorageConversions();
  for (const attn::KvStorage s : {attn::KvStorage::kBfloat16, attn::KvStorage::kFloat16}) {
    for (int seq_k : {1, 7, 9, 33, 65}) {
      for (int dim : {3, 8, 13}) HalfKeysMatchWidened(rng, std::min(seq_k, 5), seq_k, dim, 8, s);
    }
    // Value widths the in-register widening (decode steps of 1-7 rows) walks in 32, 16, 8
    // and 4 columns; an Infinity among the values.
    for (int seq_q : {1, 2, 3, 7}) {
      for (int value_dim : {4, 12, 36, 64}) {
        HalfKeysMatchWidened(rng, seq_q, 70, 16, value_dim, s);
        HalfKeysMatchWidened(rng, seq_q, 70, 16, value_dim, s, /*poison=*/true);
      }
    }
  }
  for (int seq_k : {1, 7, 9, 33, 65}) {
    for (int dim : {3, 8, 13, 32}) {
      for (int col0 : {0, 5, 30}) Q8KeysMatchDequantized(rng, std::min(seq_k, 5), seq_k, dim, col0);
    }
  }
  // Whole-block rows (keys scored in integers, values widened in registers) for 1-7 rows, and
  // 20 rows (a prefill: the packed path).
  for (int seq_q : {1, 2, 3, 4, 6, 7, 20}) Q8KeysMatchDequantized(rng, seq_q, 70, 64, 0);
  CodedQueriesDecideTheScores();
  Bf16PanelsMatchFloat32(rng);
  PretrainedBf16MatchesFloat32(rng);
  QuantizedUnderSanitizers(rng);
  MixedKQuantsUnderSanitizers(rng);
  ScratchFailures();
  std::printf("core_test: %d attention cases compared, %d mismatches\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
