// Embind glue for positional encodings, normalisation, softmax, feed-forward and set pooling. Every
// argument was checked in JS; the functions here only forward heap addresses.
#include <emscripten/bind.h>

#include <cstdint>

#include "block.h"
#include "heap_address.h"
#include "positional.h"
#include "softmax.h"

namespace {

void Sinusoidal(int seq_len, int d_model, double base, uintptr_t pe) {
  attn::SinusoidalEncoding(seq_len, d_model, base, Ptr<float>(pe));
}

void Rope(uintptr_t x, int rows, int dim, uintptr_t positions, double base, bool interleaved,
          uintptr_t out) {
  attn::ApplyRope(Ptr<const float>(x), rows, dim, Ptr<const float>(positions), base, interleaved,
                  Ptr<float>(out));
}

int RopeTables(uintptr_t x, int batch, int num_heads, int seq_len, int head_dim, bool heads_first,
               uintptr_t cos, uintptr_t sin, int table_rows, uintptr_t positions, int rotary_dim,
               bool interleaved, uintptr_t out) {
  return static_cast<int>(attn::ApplyRopeTables(
      Ptr<const float>(x), batch, num_heads, seq_len, head_dim, heads_first, Ptr<const float>(cos),
      Ptr<const float>(sin), table_rows, Ptr<const int32_t>(positions), rotary_dim, interleaved,
      Ptr<float>(out)));
}

int SoftmaxAxis(uintptr_t x, int outer, int axis_len, int inner, bool log, uintptr_t out) {
  return static_cast<int>(
      attn::Softmax(Ptr<const float>(x), outer, axis_len, inner, log, Ptr<float>(out)));
}

void NormStats(uintptr_t x, int rows, int dim, uintptr_t gamma, uintptr_t beta, double eps,
               uintptr_t out, uintptr_t mean, uintptr_t inv_std_dev) {
  attn::LayerNorm(Ptr<const float>(x), rows, dim, Ptr<const float>(gamma), Ptr<const float>(beta),
                  static_cast<float>(eps), Ptr<float>(out), Ptr<float>(mean),
                  Ptr<float>(inv_std_dev));
}

void Rms(uintptr_t x, int rows, int dim, uintptr_t gamma, double eps, uintptr_t out) {
  attn::RmsNorm(Ptr<const float>(x), rows, dim, Ptr<const float>(gamma), static_cast<float>(eps),
                Ptr<float>(out));
}

// Slopes as a JS array of doubles (exact values for tests and display).
emscripten::val Slopes(int num_heads) {
  emscripten::val out = emscripten::val::array();
  for (int h = 0; h < num_heads; ++h) out.call<void>("push", attn::AlibiSlope(num_heads, h));
  return out;
}

void Alibi(int num_heads, int seq_q, int seq_k, uintptr_t bias) {
  attn::AlibiBias(num_heads, seq_q, seq_k, Ptr<float>(bias));
}

int Laplacian(int num_nodes, uintptr_t edges, int num_edges, int k, uintptr_t vectors,
              uintptr_t values) {
  return static_cast<int>(attn::LaplacianEncoding(num_nodes, Ptr<const int32_t>(edges), num_edges,
                                                  k, Ptr<float>(vectors), Ptr<float>(values)));
}

int Ffn(uintptr_t x, int rows, int d_model, int d_ff, uintptr_t w1, uintptr_t b1, uintptr_t w2,
        uintptr_t b2, int activation, uintptr_t out) {
  return static_cast<int>(
      attn::FeedForward(Ptr<const float>(x), rows, d_model, d_ff, Ptr<const float>(w1),
                        Ptr<const float>(b1), Ptr<const float>(w2), Ptr<const float>(b2),
                        static_cast<attn::Activation>(activation), Ptr<float>(out)));
}

// Scratch bytes (the core's own allocations), for attn.estimateMemory.
double FfnScratch(int rows, int d_model, int d_ff) {
  return static_cast<double>(attn::FeedForwardScratchBytes(rows, d_model, d_ff));
}
double LaplacianScratch(int num_nodes) { return attn::LaplacianScratchBytes(num_nodes); }

void Pool(uintptr_t x, int sets, int set_size, int dim, int op, uintptr_t out) {
  attn::SetPool(Ptr<const float>(x), sets, set_size, dim, static_cast<attn::PoolOp>(op),
                Ptr<float>(out));
}

}  // namespace

EMSCRIPTEN_BINDINGS(layers) {
  emscripten::function("_sinusoidal", &Sinusoidal);
  emscripten::function("_rope", &Rope);
  emscripten::function("_alibiSlopes", &Slopes);
  emscripten::function("_alibiBias", &Alibi);
  emscripten::function("_laplacian", &Laplacian);
  emscripten::function("_ropeTables", &RopeTables);
  emscripten::function("_softmax", &SoftmaxAxis);
  emscripten::function("_layerNormStats", &NormStats);
  emscripten::function("_rmsNorm", &Rms);
  emscripten::function("_feedForward", &Ffn);
  emscripten::function("_setPool", &Pool);
  emscripten::function("_feedForwardScratch", &FfnScratch);
  emscripten::function("_laplacianScratch", &LaplacianScratch);
}
