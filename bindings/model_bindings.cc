// Embind glue for the training model (src/train/). A model is a heap object addressed by a
// number; JS checked every argument, so these functions only forward. Statuses come back as
// numbers for the JS layer to turn into errors.
#include <emscripten/bind.h>

#include <cstdint>
#include <new>
#include <string>

#include "heap_address.h"
#include "train/tiny_transformer.h"

namespace {

using attn::TinyTransformer;

TinyTransformer* Model(uintptr_t handle) { return Ptr<TinyTransformer>(handle); }

attn::ModelConfig ConfigOf(emscripten::val c) {
  attn::ModelConfig config;
  config.vocab_size = c["vocabSize"].as<int>();
  config.max_len = c["maxLen"].as<int>();
  config.d_model = c["dModel"].as<int>();
  config.num_heads = c["numHeads"].as<int>();
  config.num_layers = c["numLayers"].as<int>();
  config.d_ff = c["dFF"].as<int>();
  config.pre_norm = c["norm"].as<std::string>() == "pre";
  config.causal = c["causal"].as<bool>();
  config.classify = c["head"].as<std::string>() == "classify";
  config.outputs = c["outputs"].as<int>();
  config.activation = c["activation"].as<std::string>() == "relu" ? attn::Activation::kRelu
                                                                  : attn::Activation::kGelu;
  config.learned_positions = c["positional"].as<std::string>() == "learned";
  config.seed = c["seed"].as<uint32_t>();
  return config;
}

// {status, handle}: handle 0 unless status is 0.
emscripten::val Create(emscripten::val js_config) {
  const attn::ModelConfig config = ConfigOf(js_config);
  emscripten::val out = emscripten::val::object();
  attn::Status status = attn::CheckModelConfig(config);
  TinyTransformer* model = nullptr;
  if (status == attn::Status::kOk) {
    model = new (std::nothrow) TinyTransformer(config);
    if (model == nullptr || !model->Allocate()) {
      delete model;
      model = nullptr;
      status = attn::Status::kOutOfMemory;
    }
  }
  out.set("status", static_cast<int>(status));
  out.set("handle", static_cast<double>(reinterpret_cast<uintptr_t>(model)));
  return out;
}

void Destroy(uintptr_t handle) { delete Model(handle); }

// [[name, rows, cols, offset, decays], ...] in layout order (cols 0: a vector).
emscripten::val Table(uintptr_t handle) {
  TinyTransformer* model = Model(handle);
  emscripten::val out = emscripten::val::array();
  attn::ForEachParameter(
      model->config(), model->layout(),
      [&](const std::string& name, int rows, int cols, uint64_t offset, bool decays) {
        emscripten::val row = emscripten::val::array();
        row.call<void>("push", name);
        row.call<void>("push", rows);
        row.call<void>("push", cols);
        row.call<void>("push", static_cast<double>(offset));
        row.call<void>("push", decays);
        out.call<void>("push", row);
      });
  return out;
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

// mode 0: evaluate, 1: gradients, 2: train step. o: { optimizer: 'adamw'|'sgd', lr, beta1,
// beta2, eps, weightDecay, momentum, clipNorm } (train only).
emscripten::val Run(uintptr_t handle, int mode, uintptr_t tokens, uintptr_t targets,
                    uintptr_t lengths, int batch, int len, emscripten::val o) {
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
    c.sgd = o["optimizer"].as<std::string>() == "sgd";
    c.adamw.lr = o["lr"].as<float>();
    c.adamw.beta1 = o["beta1"].as<float>();
    c.adamw.beta2 = o["beta2"].as<float>();
    c.adamw.eps = o["eps"].as<float>();
    c.adamw.weight_decay = o["weightDecay"].as<float>();
    c.momentum = o["momentum"].as<float>();
    c.clip_norm = o["clipNorm"].as<float>();
    status = model->TrainStep(b, c, &r);
  }
  emscripten::val out = emscripten::val::object();
  out.set("status", static_cast<int>(status));
  out.set("loss", r.loss);
  out.set("count", r.count);
  out.set("correct", r.correct);
  out.set("gradNorm", r.grad_norm);
  out.set("step", model->step());
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(model) {
  emscripten::function("_modelCreate", &Create);
  emscripten::function("_modelDestroy", &Destroy);
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
