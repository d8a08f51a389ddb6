// Softmax cross-entropy over rows of logits, with an ignore index for padding:
//   loss = (1/n) Σ_counted −log softmax(logits[r])[target[r]]
//   dlogits[r] = (softmax(logits[r]) − onehot(target[r])) / n   (0 for rows not counted)
// where n counts the rows whose target is >= 0.
#ifndef ATTENTION_WASM_SRC_TRAIN_CROSS_ENTROPY_H_
#define ATTENTION_WASM_SRC_TRAIN_CROSS_ENTROPY_H_

#include <cstdint>

namespace attn {

struct CrossEntropyResult {
  double loss = 0.0;  // mean over the counted rows (0 when none is)
  int count = 0;      // rows counted
  int correct = 0;    // counted rows whose first argmax is the target
};

// logits: [rows, classes]  targets: [rows] (negative: ignored; otherwise < classes)
// d_logits: [rows, classes] (written) or null
CrossEntropyResult SoftmaxCrossEntropy(const float* logits, const int32_t* targets, int rows,
                                       int classes, float* d_logits);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_CROSS_ENTROPY_H_
