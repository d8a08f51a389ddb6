// Token embeddings: a gather forward and a scatter-add backward (a token that appears
// several times in a batch collects the gradient of each occurrence).
#ifndef ATTENTION_WASM_SRC_TRAIN_EMBEDDING_H_
#define ATTENTION_WASM_SRC_TRAIN_EMBEDDING_H_

#include <cstdint>

namespace attn {

// out[r] = table[ids[r]].   table: [vocab, dim]  ids: [count]  out: [count, dim] (row stride
// out_stride)
void EmbeddingGather(const float* table, int dim, const int32_t* ids, int count, float* out,
                     int out_stride);

// d_table[ids[r]] += d_out[r], in row order.   d_out: [count, dim] (row stride d_out_stride)
void EmbeddingScatterAdd(const float* d_out, int d_out_stride, int dim, const int32_t* ids,
                         int count, float* d_table);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_TRAIN_EMBEDDING_H_
