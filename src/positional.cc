#include "positional.h"

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>

#include "buffer.h"
#include "sizes.h"

namespace attn {

void SinusoidalEncoding(int seq_len, int d_model, double base, float* pe) {
  for (int p = 0; p < seq_len; ++p) {
    for (int c = 0; c < d_model; ++c) {
      const int two_i = c - c % 2;
      const double angle = p / std::pow(base, static_cast<double>(two_i) / d_model);
      pe[static_cast<size_t>(p) * d_model + c] =
          static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
}

void ApplyRope(const float* x, int rows, int dim, const float* positions, double base,
               bool interleaved, float* out) {
  const int half = dim / 2;
  for (int r = 0; r < rows; ++r) {
    const float* in_row = x + static_cast<size_t>(r) * dim;
    float* out_row = out + static_cast<size_t>(r) * dim;
    for (int i = 0; i < half; ++i) {
      const double angle = positions[r] * std::pow(base, -2.0 * i / dim);
      const double c = std::cos(angle), s = std::sin(angle);
      const int a = interleaved ? 2 * i : i;             // first of the pair
      const int b = interleaved ? 2 * i + 1 : i + half;  // second of the pair
      const double xa = in_row[a], xb = in_row[b];
      out_row[a] = static_cast<float>(xa * c - xb * s);
      out_row[b] = static_cast<float>(xb * c + xa * s);
    }
  }
}

namespace {

// One head row of RopeTables: rotates its first rotary_dim features by the table row.
//   in, out: [head_dim]   cos, sin: [rotary_dim/2]
void RotateRow(const float* in, int head_dim, const float* cos, const float* sin, int rotary_dim,
               bool interleaved, float* out) {
  const int half = rotary_dim / 2;
  for (int i = 0; i < half; ++i) {
    const int a = interleaved ? 2 * i : i;             // first of the pair
    const int b = interleaved ? 2 * i + 1 : i + half;  // second of the pair
    const double xa = in[a], xb = in[b], c = cos[i], s = sin[i];
    out[a] = static_cast<float>(xa * c - xb * s);
    out[b] = static_cast<float>(xa * s + xb * c);
  }
  for (int f = rotary_dim; f < head_dim; ++f) out[f] = in[f];
}

}  // namespace

Status ApplyRopeTables(const float* x, int batch, int num_heads, int seq_len, int head_dim,
                       bool heads_first, const float* cos, const float* sin, int table_rows,
                       const int32_t* positions, int rotary_dim, bool interleaved, float* out) {
  if (batch < 0 || num_heads < 0 || seq_len < 0 || head_dim < 0 || table_rows < 0) {
    return Status::kBadArgument;
  }
  if (rotary_dim < 0 || rotary_dim % 2 != 0 || rotary_dim > head_dim) return Status::kBadArgument;
  // 1. Every table row exists (before anything is written).
  const size_t tokens = static_cast<size_t>(batch) * seq_len;
  for (size_t t = 0; t < tokens; ++t) {
    const int64_t row = positions != nullptr ? positions[t] : static_cast<int64_t>(t);
    if (row < 0 || row >= table_rows) return Status::kBadArgument;
  }
  // 2. Rotate each head row of each token.
  const int half = rotary_dim / 2;
  for (int b = 0; b < batch; ++b) {
    for (int l = 0; l < seq_len; ++l) {
      const size_t token = static_cast<size_t>(b) * seq_len + l;
      const size_t row = positions != nullptr ? static_cast<size_t>(positions[token]) : token;
      for (int h = 0; h < num_heads; ++h) {
        const size_t head_row = heads_first ? (static_cast<size_t>(b) * num_heads + h) * seq_len + l
                                            : token * num_heads + h;
        const size_t offset = head_row * head_dim;
        RotateRow(x + offset, head_dim, cos + row * half, sin + row * half, rotary_dim, interleaved,
                  out + offset);
      }
    }
  }
  return Status::kOk;
}

namespace {

// Slope i of a power-of-two head count n: start · start^i with start = 2^(-2^-(log2(n) - 3)),
// computed as the reference does.
double PowerOfTwoSlope(int64_t n, int64_t i) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3.0)));
  return start * std::pow(start, static_cast<double>(i));
}

}  // namespace

// The closest power of two's slopes, then every other slope of twice that count (the
// reference's get_slopes(2·closest)[0::2]).
double AlibiSlope(int num_heads, int h) {
  int64_t closest = 1;
  while (closest * 2 <= num_heads) closest *= 2;
  if (h < closest) return PowerOfTwoSlope(closest, h);
  return PowerOfTwoSlope(2 * closest, 2 * (h - closest));
}

void AlibiSlopes(int num_heads, double* slopes) {
  for (int h = 0; h < num_heads; ++h) slopes[h] = AlibiSlope(num_heads, h);
}

void AlibiBias(int num_heads, int seq_q, int seq_k, float* bias) {
  for (int h = 0; h < num_heads; ++h) {
    const double slope = AlibiSlope(num_heads, h);
    for (int i = 0; i < seq_q; ++i) {
      const int position = i + seq_k - seq_q;
      float* row = bias + (static_cast<size_t>(h) * seq_q + i) * seq_k;
      for (int j = 0; j < seq_k; ++j) row[j] = static_cast<float>(-slope * std::abs(position - j));
    }
  }
}

namespace {

// Bytes Eigen's SelfAdjointEigenSolver allocates for an n × n problem, at most: the
// eigenvectors (n²); its vectors (eigenvalues, sub-diagonal, Householder coefficients) and
// the blocked Householder products' [48, n] temporaries (64·n doubles cover both); and 8 MiB
// for the blocking buffers of Eigen's matrix products (sized from cache sizes, not from n).
// (In double: exact below 2^53 bytes, and no overflow for any int n.)
double EigenSolverBytes(double n) { return sizeof(double) * (n * n + 64 * n) + double{8 << 20}; }

}  // namespace

double LaplacianScratchBytes(int num_nodes) {
  const double n = num_nodes;
  return sizeof(double) * (n * n + n) + EigenSolverBytes(n);  // matrix, degrees, solver
}

Status LaplacianEncoding(int num_nodes, const int32_t* edges, int num_edges, int k, float* vectors,
                         float* values) {
  if (num_nodes < 0 || num_edges < 0 || k < 0 || k > num_nodes - 1) return Status::kBadArgument;
  if (BufferBytes(sizeof(double), {num_nodes, num_nodes}) > kMaxBufferBytes) {
    return Status::kTooLarge;
  }
  const int n = num_nodes;
  // 0. Memory. Our own buffers come from Buffer; Eigen's solver allocates for itself with
  //    malloc and would throw std::bad_alloc (uncatchable here) on failure, so first take
  //    and give back a block as big as all it will ask for: right after that, with one
  //    thread and dlmalloc's coalescing, the solver's allocations fit where the block was.
  Buffer<double> matrix, degree;
  if (!matrix.Assign(static_cast<uint64_t>(n) * n, 0.0) || !degree.Assign(n, 0.0)) {
    return Status::kOutOfMemory;
  }
  {
    Buffer<uint8_t> reserve;
    if (!reserve.Resize(static_cast<uint64_t>(EigenSolverBytes(n)))) return Status::kOutOfMemory;
    // A block nothing reads may be elided by the optimizer (malloc + free of an unused
    // block are removable); this write keeps the reservation real.
    *static_cast<volatile uint8_t*>(reserve.data()) = 0;
  }
  // 1. Adjacency (undirected, 0/1, no self-loops) and degrees.
  Eigen::Map<Eigen::MatrixXd> laplacian(matrix.data(), n, n);
  for (int e = 0; e < num_edges; ++e) {
    const int a = edges[2 * e], b = edges[2 * e + 1];
    if (a < 0 || b < 0 || a >= n || b >= n) return Status::kBadArgument;
    if (a != b) laplacian(a, b) = laplacian(b, a) = 1.0;
  }
  for (int j = 0; j < n; ++j) degree[j] = laplacian.col(j).sum();
  // 2. L = D^-1/2 (D - A) D^-1/2 in place: -a_ij / sqrt(d_i·d_j) off the diagonal, 1 on the
  //    diagonal of connected nodes, 0 for isolated ones.
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      if (laplacian(i, j) != 0.0) laplacian(i, j) = -1.0 / std::sqrt(degree[i] * degree[j]);
    }
    laplacian(j, j) = degree[j] > 0 ? 1.0 : 0.0;
  }
  // 3. Eigen-decomposition (ascending eigenvalues); skip the first.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(laplacian);
  for (int c = 0; c < k; ++c) {
    const auto vec = solver.eigenvectors().col(c + 1);
    int largest = 0;
    for (int i = 1; i < n; ++i) {
      if (std::abs(vec(i)) > std::abs(vec(largest)) + 1e-12) largest = i;
    }
    const double sign = vec(largest) < 0 ? -1.0 : 1.0;
    for (int i = 0; i < n; ++i)
      vectors[static_cast<size_t>(i) * k + c] = static_cast<float>(sign * vec(i));
    values[c] = static_cast<float>(solver.eigenvalues()(c + 1));
  }
  return Status::kOk;
}

}  // namespace attn
