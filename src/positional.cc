#include "positional.h"

#include <Eigen/Dense>
#include <cmath>
#include <vector>

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

// Slopes for a power-of-two head count n: start = 2^(-2^-(log2(n) - 3)), ratio = start.
void PowerOfTwoSlopes(int n, double* slopes) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3.0)));
  for (int i = 0; i < n; ++i) slopes[i] = start * std::pow(start, i);  // as the reference
}

}  // namespace

void AlibiSlopes(int num_heads, double* slopes) {
  int closest = 1;
  while (closest * 2 <= num_heads) closest *= 2;
  PowerOfTwoSlopes(closest, slopes);
  if (closest == num_heads) return;
  std::vector<double> doubled(2 * closest);
  AlibiSlopes(2 * closest, doubled.data());
  for (int i = 0; i < num_heads - closest; ++i) slopes[closest + i] = doubled[2 * i];
}

void AlibiBias(int num_heads, int seq_q, int seq_k, float* bias) {
  std::vector<double> slopes(num_heads);
  AlibiSlopes(num_heads, slopes.data());
  for (int h = 0; h < num_heads; ++h) {
    for (int i = 0; i < seq_q; ++i) {
      const int position = i + seq_k - seq_q;
      float* row = bias + (static_cast<size_t>(h) * seq_q + i) * seq_k;
      for (int j = 0; j < seq_k; ++j)
        row[j] = static_cast<float>(-slopes[h] * std::abs(position - j));
    }
  }
}

Status LaplacianEncoding(int num_nodes, const int32_t* edges, int num_edges, int k, float* vectors,
                         float* values) {
  if (num_nodes < 0 || num_edges < 0 || k < 0 || k > num_nodes - 1) return Status::kBadArgument;
  // 1. Adjacency (undirected, 0/1, no self-loops) and degrees.
  Eigen::MatrixXd adjacency = Eigen::MatrixXd::Zero(num_nodes, num_nodes);
  for (int e = 0; e < num_edges; ++e) {
    const int a = edges[2 * e], b = edges[2 * e + 1];
    if (a < 0 || b < 0 || a >= num_nodes || b >= num_nodes) return Status::kBadArgument;
    if (a != b) adjacency(a, b) = adjacency(b, a) = 1.0;
  }
  const Eigen::VectorXd degree = adjacency.rowwise().sum();
  Eigen::VectorXd inv_sqrt(num_nodes);
  for (int i = 0; i < num_nodes; ++i)
    inv_sqrt(i) = degree(i) > 0 ? 1.0 / std::sqrt(degree(i)) : 0.0;
  // 2. L = D^-1/2 (D - A) D^-1/2: 1 on the diagonal of connected nodes, 0 for isolated ones.
  Eigen::MatrixXd laplacian = inv_sqrt.asDiagonal() * adjacency * inv_sqrt.asDiagonal();
  laplacian = -laplacian;
  for (int i = 0; i < num_nodes; ++i) laplacian(i, i) = degree(i) > 0 ? 1.0 : 0.0;
  // 3. Eigen-decomposition (ascending eigenvalues); skip the first.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(laplacian);
  for (int c = 0; c < k; ++c) {
    Eigen::VectorXd vec = solver.eigenvectors().col(c + 1);
    int largest = 0;
    for (int i = 1; i < num_nodes; ++i) {
      if (std::abs(vec(i)) > std::abs(vec(largest)) + 1e-12) largest = i;
    }
    if (vec(largest) < 0) vec = -vec;
    for (int i = 0; i < num_nodes; ++i)
      vectors[static_cast<size_t>(i) * k + c] = static_cast<float>(vec(i));
    values[c] = static_cast<float>(solver.eigenvalues()(c + 1));
  }
  return Status::kOk;
}

}  // namespace attn
