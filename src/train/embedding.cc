#include "train/embedding.h"

#include <cstddef>
#include <cstring>

namespace attn {

void EmbeddingGather(const float* table, int dim, const int32_t* ids, int count, float* out,
                     int out_stride) {
  for (int r = 0; r < count; ++r) {
    std::memcpy(out + static_cast<size_t>(r) * out_stride,
                table + static_cast<size_t>(ids[r]) * dim, sizeof(float) * dim);
  }
}

void EmbeddingScatterAdd(const float* d_out, int d_out_stride, int dim, const int32_t* ids,
                         int count, float* d_table) {
  for (int r = 0; r < count; ++r) {
    const float* g = d_out + static_cast<size_t>(r) * d_out_stride;
    float* row = d_table + static_cast<size_t>(ids[r]) * dim;
    for (int c = 0; c < dim; ++c) row[c] += g[c];
  }
}

}  // namespace attn
