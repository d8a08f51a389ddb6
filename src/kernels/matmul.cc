// Matrix products on panels (Highway, static dispatch). Eigen runs scalar under
// emcc, so the SIMD is here.
//
// MultiplyPanels, the loop nest:
//   for each block of 16 tiles' rows of a, for each panel, for each R rows of the
//   block (R = TileRows(): 6 or 4 with relaxed FMA, 4 with SIMD128's mul + add):
//     out[R × 8] = bias + Σ_p a[r][p]·panel[p][:]   (AccumulateTile)
// Rows of a are re-read from L2 per panel; each panel (L1-resident) is reused
// by 16 row tiles. 512³ in Chromium on the project's machine: 52 GFLOP/s in the relaxed
// build with 6-row tiles, 48 with 4-row ones. Blocks of 48 (6-row tiles) or 64 rows are
// spread over the threads.
#include "kernels/matmul.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "buffer.h"
#include "hwy/highway.h"
#include "kernels/target.h"
#include "parallel.h"

namespace attn {

namespace {

template <typename T>
void PackColumnPanelsOf(const T* b, int b_stride, int inner, int cols, T* panels) {
  for (int t = 0; t < PanelCount(cols); ++t) {
    const int c0 = t * kPanelWidth;
    const int width = std::min(kPanelWidth, cols - c0);
    T* panel = panels + static_cast<size_t>(t) * inner * kPanelWidth;
    for (int p = 0; p < inner; ++p) {
      T* dst = panel + static_cast<size_t>(p) * kPanelWidth;
      std::memcpy(dst, b + static_cast<size_t>(p) * b_stride + c0, sizeof(T) * width);
      std::fill(dst + width, dst + kPanelWidth, T{0});
    }
  }
}

template <typename T>
void PackTransposedPanelsOf(const T* k, int k_stride, int seq_k, int head_dim, T* panels) {
  const size_t total = static_cast<size_t>(PanelCount(seq_k)) * head_dim * kPanelWidth;
  std::fill(panels, panels + total, T{0});
  for (int j = 0; j < seq_k; ++j) {
    T* panel = panels + static_cast<size_t>(j / kPanelWidth) * head_dim * kPanelWidth;
    const T* k_row = k + static_cast<size_t>(j) * k_stride;
    for (int c = 0; c < head_dim; ++c) panel[c * kPanelWidth + j % kPanelWidth] = k_row[c];
  }
}

}  // namespace

void PackColumnPanels(const float* b, int b_stride, int inner, int cols, float* panels) {
  PackColumnPanelsOf(b, b_stride, inner, cols, panels);
}
void PackColumnPanels(const Bf16* b, int b_stride, int inner, int cols, Bf16* panels) {
  PackColumnPanelsOf(b, b_stride, inner, cols, panels);
}
void PackTransposedPanels(const float* k, int k_stride, int seq_k, int head_dim, float* panels) {
  PackTransposedPanelsOf(k, k_stride, seq_k, head_dim, panels);
}
void PackTransposedPanels(const Bf16* k, int k_stride, int seq_k, int head_dim, Bf16* panels) {
  PackTransposedPanelsOf(k, k_stride, seq_k, head_dim, panels);
}

}  // namespace attn

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"
#include "kernels/tile-inl.h"

// Rows of a per register tile (kRows): TileRows(), 6 or 4 in the relaxed build and 4 in the
// SIMD128 one (see kernels/target.h), a template argument below.
static_assert(kTileCols == kPanelWidth, "the register tile spans one panel");

// Row c of a panel as two float32 vectors (its columns 0-3 and 4-7). bfloat16: one 16-byte
// load of the 8 weights, each interleaved below 16 zero bits (its float32 bits).
HWY_INLINE void LoadPanelRow(const float* row, V& lo, V& hi) {
  const D d;
  lo = hn::LoadU(d, row);
  hi = hn::LoadU(d, row + kLanes);
}
HWY_INLINE void LoadPanelRow(const Bf16* row, V& lo, V& hi) {
  const D d;
  const hn::Full128<uint16_t> d16;
  const hn::Full128<uint32_t> d32;
  const auto raw = hn::LoadU(d16, row);
  lo = hn::BitCast(d, hn::ZipLower(d32, hn::Zero(d16), raw));
  hi = hn::BitCast(d, hn::ZipUpper(d32, hn::Zero(d16), raw));
}

// out[r][0..7] = bias8 + a_rows[r] · panel over `inner`, for r < kRows.
//   a_rows: kRows × [inner]   panel: [inner, 8]   out: kRows × [8] (row stride
//   out_stride)
template <int kRows>
HWY_INLINE void MicroKernel(const float* const a_rows[kRows], const float* panel,
                            const float* bias8, int inner, float* out, int out_stride) {
  const D d;
  V acc[2 * kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[2 * r] = hn::LoadU(d, bias8);
    acc[2 * r + 1] = hn::LoadU(d, bias8 + kLanes);
  }
  AccumulateTile<kRows>(a_rows, panel, inner, acc);
  for (int r = 0; r < kRows; ++r) {
    hn::StoreU(acc[2 * r], d, out + r * out_stride);
    hn::StoreU(acc[2 * r + 1], d, out + r * out_stride + kLanes);
  }
}

template <int kRows>
void MultiplyPanelsRows(const float* a, int a_stride, int rows, int inner, const float* panels,
                        const float* bias, int cols, float* out, int out_stride) {
  constexpr int kRowBlock = 16 * kRows;  // rows of a that share one pass over the panels
  alignas(16) float bias8[kPanelWidth];
  alignas(16) float edge[kRows * kPanelWidth];  // a tile that overhangs cols or rows
  for (int r_block = 0; r_block < rows; r_block += kRowBlock) {
    const int block_end = std::min(rows, r_block + kRowBlock);
    for (int t = 0; t < PanelCount(cols); ++t) {
      const float* panel = panels + static_cast<size_t>(t) * inner * kPanelWidth;
      const int c0 = t * kPanelWidth;
      const int width = std::min(kPanelWidth, cols - c0);
      for (int c = 0; c < kPanelWidth; ++c) {
        bias8[c] = (bias != nullptr && c < width) ? bias[c0 + c] : 0.0f;
      }
      for (int r0 = r_block; r0 < block_end; r0 += kRows) {
        const int n_rows = std::min(kRows, block_end - r0);
        // A short last tile repeats its last row.
        const float* a_rows[kRows];
        for (int r = 0; r < kRows; ++r) {
          a_rows[r] = a + static_cast<size_t>(r0 + std::min(r, n_rows - 1)) * a_stride;
        }
        float* dst = out + static_cast<size_t>(r0) * out_stride + c0;
        if (width == kPanelWidth && n_rows == kRows) {
          MicroKernel<kRows>(a_rows, panel, bias8, inner, dst, out_stride);
          continue;
        }
        MicroKernel<kRows>(a_rows, panel, bias8, inner, edge, kPanelWidth);
        for (int r = 0; r < n_rows; ++r) {
          std::memcpy(dst + static_cast<size_t>(r) * out_stride, edge + r * kPanelWidth,
                      sizeof(float) * width);
        }
      }
    }
  }
}

// MultiplyPanelsRows on bfloat16 panels: each panel is widened to float32 a chunk of
// kWidenDepth of its rows at a time (on the stack, 32 KB) and every tile of the
// row block runs on the chunk; the tiles' sums wait in `partial` between chunks. Widening
// is exact and a float's store and reload are too, so each output is the same sum in the same
// order as on float32 panels: the same bits. The widening is paid once per panel and row
// block, not once per tile.
template <int kRows>
void MultiplyWidenedRows(const float* a, int a_stride, int rows, int inner, const Bf16* panels,
                         const float* bias, int cols, float* out, int out_stride) {
  constexpr int kRowBlock = 16 * kRows;
  constexpr int kWidenDepth = 1024;
  const D d;
  alignas(16) float wide[kWidenDepth * kPanelWidth];   // 32 KB
  alignas(16) float partial[kRowBlock * kPanelWidth];  // the block's rows × the panel's 8
  alignas(16) float bias8[kPanelWidth];
  for (int r_block = 0; r_block < rows; r_block += kRowBlock) {
    const int block_rows = std::min(kRowBlock, rows - r_block);
    for (int t = 0; t < PanelCount(cols); ++t) {
      const Bf16* panel = panels + static_cast<size_t>(t) * inner * kPanelWidth;
      const int c0 = t * kPanelWidth;
      const int width = std::min(kPanelWidth, cols - c0);
      for (int c = 0; c < kPanelWidth; ++c) {
        bias8[c] = (bias != nullptr && c < width) ? bias[c0 + c] : 0.0f;
      }
      const V bias_lo = hn::Load(d, bias8), bias_hi = hn::Load(d, bias8 + kLanes);
      for (int r = 0; r < kRowBlock; ++r) {
        hn::Store(bias_lo, d, partial + r * kPanelWidth);
        hn::Store(bias_hi, d, partial + r * kPanelWidth + kLanes);
      }
      for (int p0 = 0; p0 < inner; p0 += kWidenDepth) {
        const int depth = std::min(kWidenDepth, inner - p0);
        for (int p = 0; p < depth; ++p) {
          V lo, hi;
          LoadPanelRow(panel + static_cast<size_t>(p0 + p) * kPanelWidth, lo, hi);
          hn::Store(lo, d, wide + p * kPanelWidth);
          hn::Store(hi, d, wide + p * kPanelWidth + kLanes);
        }
        // A short last tile repeats its last row (its extra sums land in unused rows).
        for (int r0 = 0; r0 < block_rows; r0 += kRows) {
          const int n_rows = std::min(kRows, block_rows - r0);
          const float* a_rows[kRows];
          for (int r = 0; r < kRows; ++r) {
            a_rows[r] =
                a + static_cast<size_t>(r_block + r0 + std::min(r, n_rows - 1)) * a_stride + p0;
          }
          float* sums = partial + r0 * kPanelWidth;
          V acc[2 * kRows];
          for (int i = 0; i < 2 * kRows; ++i) acc[i] = hn::Load(d, sums + i * kLanes);
          AccumulateTile<kRows>(a_rows, wide, depth, acc);
          for (int i = 0; i < 2 * kRows; ++i) hn::Store(acc[i], d, sums + i * kLanes);
        }
      }
      float* dst = out + static_cast<size_t>(r_block) * out_stride + c0;
      if (width == kPanelWidth) {
        for (int r = 0; r < block_rows; ++r, dst += out_stride) {
          hn::StoreU(hn::Load(d, partial + r * kPanelWidth), d, dst);
          hn::StoreU(hn::Load(d, partial + r * kPanelWidth + kLanes), d, dst + kLanes);
        }
      } else {
        for (int r = 0; r < block_rows; ++r, dst += out_stride) {
          std::memcpy(dst, partial + r * kPanelWidth, sizeof(float) * width);
        }
      }
    }
  }
}

// Row blocks spread over the threads: each output row is the same sum in the same order
// whichever block, tile or thread computes it. A task is a multiple of the tile's rows, so
// no task ends in a short tile: 48 rows for 6-row tiles (512³ in Chromium took 5.15-5.19 ms
// on one thread against 5.18-5.25 at 96 rows and 5.26-5.29 at 64; 3.32-3.35 ms on two
// against 3.39 at 96), 64 for 4-row tiles. With few row blocks the panels are split too, so
// that the threads get even shares: 128 rows in 6-row tiles are 3 blocks of 48, 48 and 32
// rows, which two threads split 96 : 32 alone (a model's prefill of 128 tokens in Chromium
// sped up only 1.53× on two threads); with the columns in halves or quarters they even out.
template <int kRows, typename T>
void MultiplyPanelsSpread(const float* a, int a_stride, int rows, int inner, const T* panels,
                          const float* bias, int cols, float* out, int out_stride) {
  constexpr int kRowsPerTask = kRows == 6 ? 48 : 64;
  static_assert(kRowsPerTask % kRows == 0, "tasks of whole tiles");
  const int row_tasks = (rows + kRowsPerTask - 1) / kRowsPerTask;
  const int threads = ThreadCount();
  const int col_splits = threads > 1 && row_tasks < 4 * threads
                             ? std::min(PanelCount(cols), (4 * threads + row_tasks - 1) / row_tasks)
                             : 1;
  const int panels_per_split = (PanelCount(cols) + col_splits - 1) / col_splits;
  auto block = [&](int task, int) {
    const int r0 = (task / col_splits) * kRowsPerTask;
    const int t0 = (task % col_splits) * panels_per_split;
    const int c0 = t0 * kPanelWidth;
    if (c0 >= cols) return;
    const int width = std::min(cols - c0, panels_per_split * kPanelWidth);
    const float* a_task = a + static_cast<size_t>(r0) * a_stride;
    const T* panels_task = panels + static_cast<size_t>(t0) * inner * kPanelWidth;
    const float* bias_task = bias != nullptr ? bias + c0 : nullptr;
    float* out_task = out + static_cast<size_t>(r0) * out_stride + c0;
    const int task_rows = std::min(kRowsPerTask, rows - r0);
    if constexpr (std::is_same_v<T, float>) {
      MultiplyPanelsRows<kRows>(a_task, a_stride, task_rows, inner, panels_task, bias_task, width,
                                out_task, out_stride);
    } else {
      MultiplyWidenedRows<kRows>(a_task, a_stride, task_rows, inner, panels_task, bias_task, width,
                                 out_task, out_stride);
    }
  };
  const uint64_t work = 2ull * rows * inner * cols;
  ParallelForEach(row_tasks * col_splits, work, block);
}

// One row of a against every panel (a matrix-vector product: decoding one token). A register
// tile would repeat the row to fill its rows and chain each accumulator's FMAs; here four
// panels share each splat of a[c], so eight independent accumulators keep the FMA pipes busy
// and each weight is read once. Each output is bias + Σ_c a[c]·w[c] in the order of c, as in
// MicroKernel: the same bits as a tile would give.
//   a: [inner]   panels: [PanelCount(cols), inner, 8]   out: [cols]
constexpr int kGemvPanels = 4;

template <typename T>
void GemvPanels(const float* a, int inner, const T* panels, const float* bias, int cols,
                int t_begin, int t_end, float* out) {
  const D d;
  for (int t0 = t_begin; t0 < t_end; t0 += kGemvPanels) {
    const int n = std::min(kGemvPanels, t_end - t0);
    alignas(16) float bias32[kGemvPanels * kPanelWidth] = {};
    for (int i = 0; i < n * kPanelWidth; ++i) {
      const int col = t0 * kPanelWidth + i;
      bias32[i] = (bias != nullptr && col < cols) ? bias[col] : 0.0f;
    }
    V acc[2 * kGemvPanels];
    for (int i = 0; i < 2 * kGemvPanels; ++i) acc[i] = hn::LoadU(d, bias32 + i * kLanes);
    const T* p[kGemvPanels];
    for (int k = 0; k < kGemvPanels; ++k) {
      p[k] = panels + static_cast<size_t>(t0 + std::min(k, n - 1)) * inner * kPanelWidth;
    }
    ATTN_NO_UNROLL
    for (int c = 0; c < inner; ++c) {
      const V x = hn::Set(d, a[c]);
      ATTN_UNROLL_FULLY
      for (int k = 0; k < kGemvPanels; ++k) {
        V lo, hi;
        LoadPanelRow(p[k] + c * kPanelWidth, lo, hi);
        acc[2 * k] = Fma(x, lo, acc[2 * k]);
        acc[2 * k + 1] = Fma(x, hi, acc[2 * k + 1]);
      }
    }
    alignas(16) float result[kGemvPanels * kPanelWidth];
    for (int i = 0; i < 2 * kGemvPanels; ++i) hn::StoreU(acc[i], d, result + i * kLanes);
    const int c0 = t0 * kPanelWidth;
    std::memcpy(out + c0, result, sizeof(float) * std::min(n * kPanelWidth, cols - c0));
  }
}

// Fewer rows than a tile: each row a matrix-vector product, the panels split into even shares
// of whole kGemvPanels groups, four a thread (dynamic scheduling evens out what the shares do
// not: 96 panels, a 768-wide projection, were 64 + 32 in tasks of 64 panels). A matrix-vector
// product streams its weights from memory, so its work estimate counts each weight as 8 flops
// (about what reading it costs next to the tiles' flops): a 768 × 768 projection (2.4 MB of
// float32 weights, over 100 µs) is split over the threads, where its 1.2 MFLOP alone would
// have kept it on one.
template <typename T>
void MultiplyPanelsFewRows(const float* a, int a_stride, int rows, int inner, const T* panels,
                           const float* bias, int cols, float* out, int out_stride) {
  const int groups = (PanelCount(cols) + kGemvPanels - 1) / kGemvPanels;
  const int tasks = std::min(groups, 4 * ThreadCount());
  for (int r = 0; r < rows; ++r) {
    const float* a_row = a + static_cast<size_t>(r) * a_stride;
    float* out_row = out + static_cast<size_t>(r) * out_stride;
    auto block = [&](int task, int) {
      const int t_begin = static_cast<int>(int64_t{groups} * task / tasks) * kGemvPanels;
      const int t_end = std::min(
          PanelCount(cols), static_cast<int>(int64_t{groups} * (task + 1) / tasks) * kGemvPanels);
      GemvPanels(a_row, inner, panels, bias, cols, t_begin, t_end, out_row);
    };
    ParallelForEach(tasks, 8ull * inner * cols, block);
  }
}

template <typename T>
void MultiplyPanelsOf(const float* a, int a_stride, int rows, int inner, const T* panels,
                      const float* bias, int cols, float* out, int out_stride) {
  if (rows < TileRows()) {
    MultiplyPanelsFewRows(a, a_stride, rows, inner, panels, bias, cols, out, out_stride);
    return;
  }
  WithTileRows([&](auto tile_rows) {
    MultiplyPanelsSpread<tile_rows()>(a, a_stride, rows, inner, panels, bias, cols, out,
                                      out_stride);
  });
}

void MultiplyPanelsImpl(const float* a, int a_stride, int rows, int inner, const float* panels,
                        const float* bias, int cols, float* out, int out_stride) {
  MultiplyPanelsOf(a, a_stride, rows, inner, panels, bias, cols, out, out_stride);
}

void MultiplyBf16PanelsImpl(const float* a, int a_stride, int rows, int inner, const Bf16* panels,
                            const float* bias, int cols, float* out, int out_stride) {
  MultiplyPanelsOf(a, a_stride, rows, inner, panels, bias, cols, out, out_stride);
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void MultiplyPanels(const float* a, int a_stride, int rows, int inner, const float* panels,
                    const float* bias, int cols, float* out, int out_stride) {
  HWY_STATIC_DISPATCH(MultiplyPanelsImpl)
  (a, a_stride, rows, inner, panels, bias, cols, out, out_stride);
}

Status MultiplyPanels(const float* a, int a_stride, int rows, int inner, Panels panels,
                      const float* bias, int cols, float* out, int out_stride) {
  if (panels.quant.data != nullptr) {
    return MultiplyQuantized(a, a_stride, rows, inner, panels.quant, bias, cols, out, out_stride);
  }
  if (panels.bf16 != nullptr) {
    HWY_STATIC_DISPATCH(MultiplyBf16PanelsImpl)
    (a, a_stride, rows, inner, panels.bf16, bias, cols, out, out_stride);
  } else {
    MultiplyPanels(a, a_stride, rows, inner, panels.f32, bias, cols, out, out_stride);
  }
  return Status::kOk;
}

Status MatMul(const float* a, const float* b, const float* bias, int rows, int inner, int cols,
              float* out, const float* b_panels) {
  if (b_panels != nullptr) {
    MultiplyPanels(a, inner, rows, inner, b_panels, bias, cols, out, cols);
    return Status::kOk;
  }
  Buffer<float> panels;
  if (!panels.Resize(PanelFloats(inner, cols))) return Status::kOutOfMemory;
  PackColumnPanels(b, cols, inner, cols, panels.data());
  MultiplyPanels(a, inner, rows, inner, panels.data(), bias, cols, out, cols);
  return Status::kOk;
}

}  // namespace attn
