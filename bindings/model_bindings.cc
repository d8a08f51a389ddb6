// Embind glue for the training model (src/train/). A model is a heap object addressed by a
// number; JS checked every argument, so these functions only forward. Statuses come back as
// numbers for the JS layer to turn into errors.
#include <emscripten/bind.h>

#include <cstdint>
#include <new>

#include "contract.h"
#include "heap_address.h"
#include "train/tiny_transformer.h"

namespace {

using attn::TinyTransformer;

TinyTransformer* Model(uintptr_t handle) { return Ptr<TinyTransformer>(handle); }

// A new model: its address, or minus a Status (the config's problem, or out of memory).
double Create(int vocab_size, int max_len, int d_model, int num_heads, int num_layers, int d_ff,
              int flags, int outputs, double seed) {  // flags: contract.h TrainingFlag bits
  attn::ModelConfig c;
  c.vocab_size = vocab_size, c.max_len = max_len, c.d_model = d_model, c.num_heads = num_heads;
  c.num_layers = num_layers, c.d_ff = d_ff, c.outputs = outputs;
  const auto flag = [&](TrainingFlag f) { return (flags & static_cast<int>(f)) != 0; };
  c.pre_norm = flag(TrainingFlag::kPreNorm), c.causal = flag(TrainingFlag::kCausal);
  c.classify = flag(TrainingFlag::kClassify), c.learned_positions = flag(TrainingFlag::kLearned);
  c.activation = flag(TrainingFlag::kRelu) ? attn::Activation::kRelu : attn::Activation::kGelu;
  c.seed = static_cast<uint32_t>(seed);
  const attn::Status status = attn::CheckModelConfig(c);
  if (status != attn::Status::kOk) return -static_cast<double>(status);
  TinyTransformer* model = new (std::nothrow) TinyTransformer(c);
  if (model == nullptr || !model->Allocate()) {
    delete model;
    return -static_cast<double>(attn::Status::kOutOfMemory);
  }
  return static_cast<double>(reinterpret_cast<uintptr_t>(model));
}

void Destroy(uintptr_t handle) { delete Model(handle); }

int ParameterTensors(uintptr_t handle) {
  int count = 0;
  attn::ForEachParameter(Model(handle)->config(), Model(handle)->layout(),
                         [&](attn::ParamKind, int, int, int, uint64_t) { ++count; });
  return count;
}

// Writes [kind, layer, rows, cols, offset] per parameter tensor, in layout order, at `table`.
void Table(uintptr_t handle, uintptr_t table) {
  int32_t* out = Ptr<int32_t>(table);
  attn::ForEachParameter(Model(handle)->config(), Model(handle)->layout(),
                         [&](attn::ParamKind kind, int layer, int rows, int cols, uint64_t offset) {
                           *out++ = static_cast<int32_t>(kind);
                           *out++ = layer;
                           *out++ = rows;
                           *out++ = cols;
                           *out++ = static_cast<int32_t>(offset);
                         });
}

double Params(uintptr_t handle) {
  return static_cast<double>(reinterpret_cast<uintptr_t>(Model(handle)->params()));
}
double Grads(uintptr_t handle) {
  return static_cast<double>(reinterpret_cast<uintptr_t>(Model(handle)->grads()));
}
double ParameterCount(uintptr_t handle) {
  return static_cast<double>(Model(handle)->layout().total);
}
int Step(uintptr_t handle) { return Model(handle)->step(); }
void ResetOptimizer(uintptr_t handle) { Model(handle)->ResetOptimizer(); }

attn::ModelBatch BatchOf(uintptr_t tokens, uintptr_t targets, uintptr_t lengths, int batch,
                         int len) {
  attn::ModelBatch b;
  b.tokens = Ptr<const int32_t>(tokens);
  b.targets = Ptr<const int32_t>(targets);
  b.lengths = Ptr<const int32_t>(lengths);
  b.batch = batch;
  b.len = len;
  return b;
}

int Forward(uintptr_t handle, uintptr_t tokens, uintptr_t lengths, int batch, int len) {
  return static_cast<int>(Model(handle)->Forward(BatchOf(tokens, 0, lengths, batch, len)));
}
double Logits(uintptr_t handle) {
  return static_cast<double>(reinterpret_cast<uintptr_t>(Model(handle)->logits()));
}
double Attention(uintptr_t handle, int layer) {
  return static_cast<double>(reinterpret_cast<uintptr_t>(Model(handle)->attention(layer)));
}

// mode 0: evaluate, 1: gradients, 2: train step (with the optimizer's settings). Writes
// [loss, count, correct, gradNorm, step] as doubles at `result`; returns the Status.
int Run(uintptr_t handle, int mode, uintptr_t tokens, uintptr_t targets, uintptr_t lengths,
        int batch, int len, bool sgd, float lr, float beta1, float beta2, float eps,
        float weight_decay, float momentum, float clip_norm, uintptr_t result) {
  TinyTransformer* model = Model(handle);
  const attn::ModelBatch b = BatchOf(tokens, targets, lengths, batch, len);
  attn::StepResult r;
  attn::Status status;
  if (mode == 0) {
    status = model->Evaluate(b, &r);
  } else if (mode == 1) {
    status = model->Gradients(b, &r);
  } else {
    attn::OptimizerConfig c;
    c.sgd = sgd;
    c.adamw.lr = lr, c.adamw.beta1 = beta1, c.adamw.beta2 = beta2, c.adamw.eps = eps;
    c.adamw.weight_decay = weight_decay;
    c.momentum = momentum, c.clip_norm = clip_norm;
    status = model->TrainStep(b, c, &r);
  }
  double* out = Ptr<double>(result);
  out[0] = r.loss, out[1] = r.count, out[2] = r.correct, out[3] = r.grad_norm;
  out[4] = model->step();
  return static_cast<int>(status);
}

}  // namespace

EMSCRIPTEN_BINDINGS(model) {
  emscripten::function("_modelCreate", &Create);
  emscripten::function("_modelDestroy", &Destroy);
  emscripten::function("_modelParameterTensors", &ParameterTensors);
  emscripten::function("_modelTable", &Table);
  emscripten::function("_modelParams", &Params);
  emscripten::function("_modelGrads", &Grads);
  emscripten::function("_modelParameterCount", &ParameterCount);
  emscripten::function("_modelStep", &Step);
  emscripten::function("_modelResetOptimizer", &ResetOptimizer);
  emscripten::function("_modelForward", &Forward);
  emscripten::function("_modelLogits", &Logits);
  emscripten::function("_modelAttention", &Attention);
  emscripten::function("_modelRun", &Run);
}
