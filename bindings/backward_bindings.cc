// Embind glue for the backward steps exposed one by one (linear, layer norm, feed-forward,
// softmax cross-entropy). Every argument was checked in JS; these only forward addresses.
#include <emscripten/bind.h>

#include <cstdint>

#include "buffer.h"
#include "heap_address.h"
#include "train/block_backward.h"
#include "train/cross_entropy.h"
#include "train/linear.h"

namespace {

int Linear(uintptr_t x, uintptr_t w, uintptr_t dy, int rows, int in, int out, uintptr_t dx,
           uintptr_t dw, uintptr_t db) {
  attn::Buffer<float> scratch;
  return static_cast<int>(attn::LinearBackward(Ptr<const float>(x), Ptr<const float>(w),
                                               Ptr<const float>(dy), rows, in, out, Ptr<float>(dx),
                                               Ptr<float>(dw), Ptr<float>(db), scratch));
}

int Norm(uintptr_t x, int rows, int dim, uintptr_t gamma, float eps, uintptr_t dy, uintptr_t dx,
         uintptr_t dgamma, uintptr_t dbeta) {
  return static_cast<int>(attn::LayerNormBackwardFromInput(
      Ptr<const float>(x), rows, dim, Ptr<const float>(gamma), eps, Ptr<const float>(dy),
      Ptr<float>(dx), Ptr<float>(dgamma), Ptr<float>(dbeta)));
}

int Ffn(uintptr_t x, int rows, int d_model, int d_ff, uintptr_t w1, uintptr_t b1, uintptr_t w2,
        int activation, uintptr_t dy, uintptr_t dx, uintptr_t dw1, uintptr_t db1, uintptr_t dw2,
        uintptr_t db2) {
  return static_cast<int>(attn::FeedForwardBackward(
      Ptr<const float>(x), rows, d_model, d_ff, Ptr<const float>(w1), Ptr<const float>(b1),
      Ptr<const float>(w2), static_cast<attn::Activation>(activation), Ptr<const float>(dy),
      Ptr<float>(dx), Ptr<float>(dw1), Ptr<float>(db1), Ptr<float>(dw2), Ptr<float>(db2)));
}

// { loss, count, correct }; d_logits written.
emscripten::val CrossEntropy(uintptr_t logits, uintptr_t targets, int rows, int classes,
                             uintptr_t d_logits) {
  const attn::CrossEntropyResult r = attn::SoftmaxCrossEntropy(
      Ptr<const float>(logits), Ptr<const int32_t>(targets), rows, classes, Ptr<float>(d_logits));
  emscripten::val out = emscripten::val::object();
  out.set("loss", r.loss);
  out.set("count", r.count);
  out.set("correct", r.correct);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(backward) {
  emscripten::function("_linearBackward", &Linear);
  emscripten::function("_layerNormBackward", &Norm);
  emscripten::function("_feedForwardBackward", &Ffn);
  emscripten::function("_softmaxCrossEntropy", &CrossEntropy);
}
