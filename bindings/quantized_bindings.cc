// Embind glue for the quantized matrices (src/kernels/quantized.h), for the tests and the
// GGUF reader: quantize, repack GGUF blocks, multiply. JS checked every argument; these only
// forward. Addresses are heap offsets as numbers.
#include <emscripten/bind.h>

#include <cstdint>

#include "heap_address.h"
#include "kernels/quantized.h"

namespace {

using attn::MatrixStorage;

MatrixStorage StorageOf(int storage) { return static_cast<MatrixStorage>(storage); }

// Bytes of a quantized [inner, cols] matrix.
double QuantBytes(int storage, int inner, int cols) {
  return static_cast<double>(attn::QuantBytes(StorageOf(storage), inner, cols));
}

// w: float32 [inner, cols] (or [cols, inner] when transposed, row stride w_stride).
void Quantize(uintptr_t w, int w_stride, bool transposed, int inner, int cols, int storage,
              uintptr_t out) {
  attn::QuantizeMatrix(Ptr<const float>(w), w_stride, transposed, inner, cols, StorageOf(storage),
                       Ptr<uint8_t>(out));
}

// blocks: a GGUF tensor's [cols, inner / 32] blocks.
void PackGgml(uintptr_t blocks, int inner, int cols, int storage, uintptr_t out) {
  attn::PackGgmlBlocks(Ptr<const uint8_t>(blocks), inner, cols, StorageOf(storage),
                       Ptr<uint8_t>(out));
}

// out = a·W + bias: 0, or the Status.
int Multiply(uintptr_t a, int rows, int inner, uintptr_t w, int storage, uintptr_t bias, int cols,
             uintptr_t out) {
  const attn::QuantMatrix matrix{StorageOf(storage), Ptr<const uint8_t>(w)};
  return static_cast<int>(attn::MultiplyQuantized(Ptr<const float>(a), inner, rows, inner, matrix,
                                                  Ptr<const float>(bias), cols, Ptr<float>(out),
                                                  cols));
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_quantized) {
  emscripten::function("_quantBytes", &QuantBytes);
  emscripten::function("_quantizeMatrix", &Quantize);
  emscripten::function("_packGgmlBlocks", &PackGgml);
  emscripten::function("_multiplyQuantized", &Multiply);
}
