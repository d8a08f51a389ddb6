// Positional encodings: sinusoidal, rotary (RoPE), ALiBi biases, and graph-Laplacian
// eigenvectors. Angles and slopes are computed in double, stored as float.
#ifndef ATTENTION_WASM_SRC_POSITIONAL_H_
#define ATTENTION_WASM_SRC_POSITIONAL_H_

#include <cstdint>

#include "status.h"

namespace attn {

// pe[p][2i] = sin(p / base^(2i/d_model)), pe[p][2i+1] = cos(p / base^(2i/d_model)).
// An odd d_model ends with a sin column.
//   pe: [seq_len, d_model]
void SinusoidalEncoding(int seq_len, int d_model, double base, float* pe);

// Rotates pairs of features of each row by angle position·base^(-2i/dim).
//   interleaved = false ("rotate_half", GPT-NeoX / LLaMA): pair (i, i + dim/2)
//   interleaved = true  (RoFormer, GPT-J): pair (2i, 2i + 1)
//   x, out: [rows, dim] (dim even; out may equal x)   positions: [rows]
void ApplyRope(const float* x, int rows, int dim, const float* positions, double base,
               bool interleaved, float* out);

// Rotary embedding from caller tables, as ONNX RotaryEmbedding (opset 23): the first
// rotary_dim features of each head rotate, the rest pass through. Row (b, l) of the tables is
// positions[b·seq_len + l] when positions is not null, else b·seq_len + l (tables already
// gathered per token). Pair i is (2i, 2i+1) when interleaved, else (i, i + rotary_dim/2):
//   out_a = x_a·cos_i - x_b·sin_i,   out_b = x_a·sin_i + x_b·cos_i.
//   x, out: [batch, num_heads, seq_len, head_dim] (heads_first) or
//           [batch, seq_len, num_heads, head_dim]; out may equal x
//   cos, sin: [table_rows, rotary_dim/2]   positions: [batch, seq_len] or null
// kBadArgument for an odd rotary_dim or one above head_dim, a negative size, or a position
// outside [0, table_rows) (nothing is written then).
Status ApplyRopeTables(const float* x, int batch, int num_heads, int seq_len, int head_dim,
                       bool heads_first, const float* cos, const float* sin, int table_rows,
                       const int32_t* positions, int rotary_dim, bool interleaved, float* out);

// ALiBi slopes exactly as the reference get_slopes(n) (Press et al.): a geometric sequence
// starting at 2^(-8/n) for powers of two; otherwise the closest power of two's slopes
// followed by every other slope of twice that count.
//   slopes: [num_heads]
void AlibiSlopes(int num_heads, double* slopes);

// The slope of head h of num_heads (AlibiSlopes without the array).
double AlibiSlope(int num_heads, int h);

// bias[h][i][j] = -slope_h · |(i + seq_k - seq_q) - j|: query i sits at position
// i + seq_k - seq_q (the last query is aligned with the last key, as in decoding).
//   bias: [num_heads, seq_q, seq_k]
void AlibiBias(int num_heads, int seq_q, int seq_k, float* bias);

// The k eigenvectors of the symmetric normalised Laplacian L = I - D^-1/2·A·D^-1/2 with the
// smallest eigenvalues after the first (trivial) one. An isolated node has a zero row in L
// (Chung's definition). Edges are undirected; repeats and self-loops are ignored. Sign:
// each vector's entry of largest magnitude is positive (the first such entry on ties).
//   edges: [num_edges, 2]   vectors: [num_nodes, k]   values: [k]
// kTooLarge past kMaxBufferBytes, kOutOfMemory when the heap cannot hold the solver.
Status LaplacianEncoding(int num_nodes, const int32_t* edges, int num_edges, int k, float* vectors,
                         float* values);

// Bytes LaplacianEncoding allocates (its matrix, degrees and Eigen's solver), at most; a
// double, so that it stays exact (below 2^53) for any num_nodes.
double LaplacianScratchBytes(int num_nodes);

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_POSITIONAL_H_
