// Fused attention kernel (Highway, static dispatch).
//
// The loop nest, per head:
//   1. pack kᵀ into panels of 8 keys ([head_dim, 8] each) so that the score
//      tile loads two whole vectors per head_dim step (half-stored keys and values, a
//      model's bfloat16/float16 cache, or its q8_0 blocks, are widened to float32 here,
//      exactly, and only here; q8_0 keys in whole blocks are then scored against the
//      query rows as q8_0 keys read them, q̂, coded per block as int16: kv_storage.h);
//   2. for every block of R query rows (R = TileRows(): 6 or 4 with relaxed FMA, 4 with
//      SIMD128), walk the keys any of its rows can see, 32 at a time (from the first key a
//      row's window starts at to the last any row sees: a sliding window of w keys costs
//      O(w) per row, not O(seq_k)):
//      a. scores s[R×8] = q_block · panelᵀ, four panels (2R accumulators);
//      b. with a mask, a softcap (or a scale <= 0): s·scale, capped (softcap·tanh(s·scale /
//         softcap)), + mask, and -Inf where blocked (the
//         masked scores of the step-by-step path, bit for bit); without one the scale is
//         folded into step c instead (one multiply per score less);
//      c. online softmax over the 32, the R rows side by side: new running max m,
//         p = e^(k·(s - m)) (k = scale if folded, else 1), and the factor e^(k·(m_old - m))
//         that rescales what came before. The exponent is formed so that only the small
//         s - m is rounded (online_softmax-inl.h): rounding k·log2(e)·s first moved large
//         scores (1e4 and up) by more than the differences that decide their weights;
//      d. with dropout, p = 0 for the dropped weights and p / (1 − dropout) for the kept
//         (after c: the sum that normalises stays the full softmax's, as in PyTorch);
//      e. acc[R×value_dim] = acc·rescale + p·v_block (one round trip of acc
//         per 32 keys);
//   3. divide each row by its running sum (0 for rows that saw nothing); or, for one range of
//      a decode step's keys split over the threads (flash-decoding), keep each row's
//      unnormalised sum and its running max and sum for MergePartials.
// Step 1 runs on the calling thread; steps 2 and 3 are spread over the threads by blocks
// of 4R query rows (each thread its own accumulators).
// A call of at most two tiles of query rows (InPlaceRowsMax(); a decode step: one row, or
// the query heads that share a key/value head) skips step 1 and reads the cache where it lies
// (InPlaceKeys), in tiles exactly as tall as its rows (WithInPlaceTiles): each tile's keys
// are packed into a small panel as they are scored, or, for 2 or 3 rows, widened and
// transposed in registers and scored at once (ScoreTileInRegisters), or (q8_0 keys in whole
// blocks, a call of at most 12 rows on either path) scored in integers against the coded
// rows (ScoreQ8Tile, ScoresInIntegers); half-stored and q8_0 values are
// widened in registers as they are accumulated (AccumulateStoredValues); before each block,
// strided key and value rows of the block two ahead are touched (InPlaceKeys::Touch: they
// otherwise missed a few at a time inside the tiles; a model's head-major cache rows are
// one stream the prefetchers follow, and are not). The arithmetic is
// the same, so the bits are the same, as each row has in any tile.
#include "kernels/fused_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#include "kernels/kv_storage.h"
#include "kernels/loaded_lanes.h"
#include "kernels/matmul.h"
#include "kernels/quantized.h"
#include "kernels/target.h"
#include "parallel.h"

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/exp2-inl.h"
#include "kernels/online_softmax-inl.h"
#include "kernels/simd-inl.h"
#include "kernels/tile-inl.h"
#include "kernels/widen-inl.h"

// Query rows per register tile (R), for the scores (R × 8 keys) and the output (R × 8 value
// columns): TileRows(), 6 or 4 in the relaxed build and 4 in the SIMD128 one (see
// kernels/target.h). The functions below take it as a template argument.
constexpr int kKeysPerTile = kTileCols;  // keys per score register tile
constexpr int kTilesPerBlock = 4;        // score tiles per softmax update
constexpr int kKeysPerBlock = kTilesPerBlock * kKeysPerTile;
static_assert(kKeysPerTile == kPanelWidth, "a score tile spans one key panel");

int RoundUp(int x, int m) { return (x + m - 1) / m * m; }

using DI32 = hn::RebindToSigned<D>;           // 4 int32 lanes
using DI16 = hn::Repartition<int16_t, DI32>;  // 8 int16 lanes
using DI8 = hn::Rebind<int8_t, DI16>;         // 8 int8 lanes (half a vector)
using VI = hn::Vec<DI32>;

// Floats between two threads' accumulators: their rows rounded up to whole 64-byte cache
// lines, plus one line, so that no line holds two threads' accumulators whatever the
// buffer's alignment (a shared line cost one head split over 2 threads in Chromium ~20%).
constexpr int kCacheLineFloats = 16;
// Sized for the tallest tile the build has.
uint64_t AccSlotFloats(int padded_dim) {
  return static_cast<uint64_t>(RoundUp(kMaxTileRows * padded_dim, kCacheLineFloats)) +
         kCacheLineFloats;
}

// Marks the key tiles whose value rows hold NaN or Infinity; only those tiles need the
// slower accumulation that skips zero weights (0·NaN would otherwise leak a NaN). Vector
// compares (|x| < Infinity is false for NaN and ±Infinity): the scalar loop was ~4% of a
// call at N = 256.
//   v: [seq_k, value_dim] (row stride v_stride)   flags: [ceil(seq_k / 8)]
void FlagNonFiniteValues(const float* v, int v_stride, int seq_k, int value_dim, uint8_t* flags) {
  const D d;
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  const int num_tiles = RoundUp(seq_k, kKeysPerTile) / kKeysPerTile;
  for (int t = 0; t < num_tiles; ++t) {
    auto bad = hn::FirstN(d, 0);
    bool bad_tail = false;
    const int j_end = std::min(seq_k, (t + 1) * kKeysPerTile);
    for (int j = t * kKeysPerTile; j < j_end; ++j) {
      const float* row = v + static_cast<size_t>(j) * v_stride;
      int c = 0;
      for (; c + kLanes <= value_dim; c += kLanes) {
        bad = hn::Or(bad, hn::Not(hn::Lt(hn::Abs(hn::LoadU(d, row + c)), inf)));
      }
      for (; c < value_dim; ++c) bad_tail = bad_tail || !std::isfinite(row[c]);
    }
    flags[t] = (bad_tail || !hn::AllFalse(d, bad)) ? 1 : 0;
  }
}

// Step 2a. Scores of the tile's query rows against the 8 keys of one panel, stored to
// scores[r·stride .. r·stride + 7] for row r (the accumulators stay in registers only if
// every index into them is a constant, so they go to memory before any per-row work).
//   q_rows: kRowsPerTile × [head_dim]   panel: [head_dim, 8]
template <int kRowsPerTile>
HWY_INLINE void ScoreTile(const float* const q_rows[kRowsPerTile], const float* panel, int head_dim,
                          float* scores, int stride) {
  V s[2 * kRowsPerTile];
  for (int i = 0; i < 2 * kRowsPerTile; ++i) s[i] = hn::Zero(D());
  AccumulateTile<kRowsPerTile>(q_rows, panel, head_dim, s);
  for (int r = 0; r < kRowsPerTile; ++r) {
    hn::Store(s[2 * r], D(), scores + r * stride);
    hn::Store(s[2 * r + 1], D(), scores + r * stride + kLanes);
  }
}

// Step 2a for one query row, its block's tiles at once: each key's score is the chain of
// ScoreTile's (q[0]·k[0], then + q[c]·k[c] for c in order, per lane), so the same bits;
// the tiles' chains run side by side (2·kTiles accumulators) where one tile's two would
// wait on each other's latency.
//   q: [head_dim]   panels: kTiles × [head_dim, 8]   scores: [kTiles · 8]
template <int kTiles>
HWY_INLINE void ScoreTilesOfOneRow(const float* q, const float* const* panels, int head_dim,
                                   float* scores) {
  const D d;
  V s[2 * kTiles];
  for (int i = 0; i < 2 * kTiles; ++i) s[i] = hn::Zero(d);
  ATTN_NO_UNROLL
  for (int c = 0; c < head_dim; ++c) {
    const V x = hn::Set(d, q[c]);
    ATTN_UNROLL_FULLY
    for (int t = 0; t < kTiles; ++t) {
      const float* row = panels[t] + c * kKeysPerTile;
      s[2 * t] = Fma(x, hn::LoadU(d, row), s[2 * t]);
      s[2 * t + 1] = Fma(x, hn::LoadU(d, row + kLanes), s[2 * t + 1]);
    }
  }
  for (int i = 0; i < 2 * kTiles; ++i) hn::Store(s[i], d, scores + i * kLanes);
}
HWY_INLINE void ScoreTilesOfOneRow(const float* q, const float* const* panels, int tiles,
                                   int head_dim, float* scores) {
  static_assert(kTilesPerBlock == 4, "one case per tile count");
  switch (tiles) {
    case 4:
      return ScoreTilesOfOneRow<4>(q, panels, head_dim, scores);
    case 3:
      return ScoreTilesOfOneRow<3>(q, panels, head_dim, scores);
    case 2:
      return ScoreTilesOfOneRow<2>(q, panels, head_dim, scores);
    default:
      return ScoreTilesOfOneRow<1>(q, panels, head_dim, scores);
  }
}

// Step 2b for one row: scaled (and capped) scores with the explicit mask added, in place:
// s·scale (softcap·tanh(s·scale / softcap) with a cap) + mask, as the step-by-step path
// computes them. A blocked key (mask -Inf) is -Inf even where its
// score is NaN or +Inf, so it never reaches the output. A finite mask such as PyTorch's
// finfo(float32).min stays finite (s + mask), as it does there.
//   s: 8 scores (keys j0 .. j0 + 7)   keys_in_tile: how many of them exist (the rest are
//   never visible anyway)
HWY_INLINE void ScaleAndMaskRow(float* s, float scale, float softcap, const MaskView& mask, int row,
                                int j0, int keys_in_tile) {
  const D d;
  for (int h = 0; h < 2; ++h) {
    V x = hn::Mul(hn::Load(d, s + h * kLanes), hn::Set(d, scale));
    if (softcap > 0.0f) {  // softcap·tanh(x / softcap), divided as the step-by-step path does
      const V cap = hn::Set(d, softcap);
      x = hn::Mul(cap, hn::Tanh(d, hn::Div(x, cap)));
    }
    hn::Store(x, d, s + h * kLanes);
  }
  if (mask.empty()) return;
  alignas(16) float m[kKeysPerTile];
  std::fill(m, m + kKeysPerTile, kNegInf);
  mask.Row(row, j0, keys_in_tile, m);
  const V neg_inf = hn::Set(d, kNegInf);
  for (int h = 0; h < 2; ++h) {
    const V mv = hn::Load(d, m + h * kLanes);
    const V x = hn::Load(d, s + h * kLanes);
    hn::Store(hn::IfThenElse(hn::Eq(mv, neg_inf), neg_inf, hn::Add(x, mv)), d, s + h * kLanes);
  }
}

// Blocks keys j0 + lane outside begin .. end - 1 in one row's 8 scores, in place.
HWY_INLINE void BlockKeysOutside(float* s, int j0, int begin, int end) {
  const D d;
  const V neg_inf = hn::Set(d, kNegInf);
  const V lo = hn::Set(d, static_cast<float>(begin));
  const V hi = hn::Set(d, static_cast<float>(end));
  for (int h = 0; h < 2; ++h) {
    const V key = hn::Iota(d, static_cast<float>(j0 + h * kLanes));
    const auto inside = hn::And(hn::Ge(key, lo), hn::Lt(key, hi));
    hn::Store(hn::IfThenElse(inside, hn::Load(d, s + h * kLanes), neg_inf), d, s + h * kLanes);
  }
}

// Step 2d for one row: dropout of its weights p of keys j0 .. j0 + count - 1, in place.
HWY_INLINE void DropWeights(float* p, int count, const DropoutRule& dropout, uint32_t row_key,
                            int j0, float keep_scale) {
  for (int j = 0; j < count; ++j) {
    p[j] *= dropout.Kept(row_key, j0 + j) ? keep_scale : 0.0f;
  }
}

// Step 2d, fast form: acc[r] = acc[r]·rescale[r] + Σ_j p[r][j]·v[j] over 8 value columns
// at a time (2·kRowsPerTile accumulators), then 4.
//   p: [kRowsPerTile, kKeysPerBlock]   v_rows: [num_keys, v_stride]
//   acc: [kRowsPerTile, padded_dim], padded_dim % 4 == 0
template <int kRowsPerTile>
void AccumulateValues(const float* p, const float* rescale, const float* v_rows, int num_keys,
                      int v_stride, float* acc, int padded_dim) {
  const D d;
  // Once a row's running max has settled, most blocks rescale by exactly 1 (x·1 = x in IEEE
  // arithmetic, NaN and -0 included): those skip the multiplications, ~3% of the FMA pipes'
  // work at head_dim 64.
  bool rescaled = false;
  for (int r = 0; r < kRowsPerTile; ++r) rescaled = rescaled || rescale[r] != 1.0f;
  int c = 0;
  for (; c + 2 * kLanes <= padded_dim; c += 2 * kLanes) {
    V a[2 * kRowsPerTile];
    for (int r = 0; r < kRowsPerTile; ++r) {
      a[2 * r] = hn::LoadU(d, acc + r * padded_dim + c);
      a[2 * r + 1] = hn::LoadU(d, acc + r * padded_dim + c + kLanes);
      if (rescaled) {
        const V f = hn::Set(d, rescale[r]);
        a[2 * r] = hn::Mul(a[2 * r], f);
        a[2 * r + 1] = hn::Mul(a[2 * r + 1], f);
      }
    }
    const float* v_row = v_rows + c;
    ATTN_NO_UNROLL
    for (int j = 0; j < num_keys; ++j, v_row += v_stride) {
      const V v_lo = hn::LoadU(d, v_row);
      const V v_hi = hn::LoadU(d, v_row + kLanes);
      for (int r = 0; r < kRowsPerTile; ++r) {
        const V w = hn::Set(d, p[r * kKeysPerBlock + j]);
        a[2 * r] = Fma(w, v_lo, a[2 * r]);
        a[2 * r + 1] = Fma(w, v_hi, a[2 * r + 1]);
      }
    }
    for (int r = 0; r < 2 * kRowsPerTile; ++r) {
      hn::StoreU(a[r], d, acc + (r / 2) * padded_dim + c + (r % 2) * kLanes);
    }
  }
  if (c < padded_dim) {  // one vector of 4 columns left
    V a[kRowsPerTile];
    for (int r = 0; r < kRowsPerTile; ++r) {
      a[r] = hn::Mul(hn::LoadU(d, acc + r * padded_dim + c), hn::Set(d, rescale[r]));
    }
    const float* v_row = v_rows + c;
    for (int j = 0; j < num_keys; ++j, v_row += v_stride) {
      const V vv = hn::LoadU(d, v_row);
      for (int r = 0; r < kRowsPerTile; ++r) {
        a[r] = Fma(hn::Set(d, p[r * kKeysPerBlock + j]), vv, a[r]);
      }
    }
    for (int r = 0; r < kRowsPerTile; ++r) hn::StoreU(a[r], d, acc + r * padded_dim + c);
  }
}

// Step 2d, fast form for one query row: AccumulateValues<1>'s chain per column (acc·rescale
// when it is not 1, then + p[j]·v[j] for j in order: the same bits), kChunks · 8 columns at a
// time so that 2·kChunks chains run side by side.
//   p: [kKeysPerBlock]   v_rows: [num_keys, v_stride]   acc: [padded_dim], padded_dim % 4 == 0
template <int kChunks>
HWY_INLINE int AccumulateColumnsOfOneRow(const float* p, float rescale, const float* v_rows,
                                         int num_keys, int v_stride, float* acc, int c,
                                         int padded_dim) {
  const D d;
  for (; c + 2 * kChunks * kLanes <= padded_dim; c += 2 * kChunks * kLanes) {
    V a[2 * kChunks];
    for (int i = 0; i < 2 * kChunks; ++i) {
      a[i] = hn::LoadU(d, acc + c + i * kLanes);
      if (rescale != 1.0f) a[i] = hn::Mul(a[i], hn::Set(d, rescale));
    }
    const float* v_row = v_rows + c;
    ATTN_NO_UNROLL
    for (int j = 0; j < num_keys; ++j, v_row += v_stride) {
      const V w = hn::Set(d, p[j]);
      ATTN_UNROLL_FULLY
      for (int i = 0; i < 2 * kChunks; ++i) a[i] = Fma(w, hn::LoadU(d, v_row + i * kLanes), a[i]);
    }
    for (int i = 0; i < 2 * kChunks; ++i) hn::StoreU(a[i], d, acc + c + i * kLanes);
  }
  return c;
}
void AccumulateValuesOfOneRow(const float* p, float rescale, const float* v_rows, int num_keys,
                              int v_stride, float* acc, int padded_dim) {
  int c = AccumulateColumnsOfOneRow<4>(p, rescale, v_rows, num_keys, v_stride, acc, 0, padded_dim);
  c = AccumulateColumnsOfOneRow<1>(p, rescale, v_rows, num_keys, v_stride, acc, c, padded_dim);
  if (c < padded_dim) {  // one vector of 4 columns left (AccumulateValues' tail)
    AccumulateValues<1>(p, &rescale, v_rows + c, num_keys, v_stride, acc + c, padded_dim - c);
  }
}

// Step 2d, careful form for tiles whose values hold NaN/Inf: a zero weight contributes
// nothing at all (not 0·NaN).
template <int kRowsPerTile>
void AccumulateValuesSkippingZeros(const float* p, const float* rescale, const float* v_rows,
                                   int num_keys, int v_stride, float* acc, int padded_dim) {
  const D d;
  for (int r = 0; r < kRowsPerTile; ++r) {
    float* acc_row = acc + r * padded_dim;
    for (int c = 0; c < padded_dim; c += kLanes) {
      hn::StoreU(hn::Mul(hn::LoadU(d, acc_row + c), hn::Set(d, rescale[r])), d, acc_row + c);
    }
    for (int j = 0; j < num_keys; ++j) {
      const float w = p[r * kKeysPerBlock + j];
      if (w == 0.0f) continue;
      const float* v_row = v_rows + static_cast<size_t>(j) * v_stride;
      for (int c = 0; c < padded_dim; c += kLanes) {
        const V sum = Fma(hn::Set(d, w), hn::LoadU(d, v_row + c), hn::LoadU(d, acc_row + c));
        hn::StoreU(sum, d, acc_row + c);
      }
    }
  }
}

// Whether a tile's accumulators may hold NaN or Infinity: whether their sum is not finite (a
// NaN or an Infinity among them always makes it so; finite ones whose sum overflows do too,
// rarely, and then the look at the values that follows finds nothing and changes nothing).
// Four running sums of whole vectors: an add a vector, where a compare for each cost four
// instructions and a constant V8 rebuilt in the loop.   acc: [floats], floats % 4 == 0
HWY_INLINE bool MayHoldNonFinite(const float* acc, int floats) {
  const D d;
  V sum[4] = {hn::Zero(d), hn::Zero(d), hn::Zero(d), hn::Zero(d)};
  int c = 0;
  for (; c + 4 * kLanes <= floats; c += 4 * kLanes) {
    for (int i = 0; i < 4; ++i) sum[i] = hn::Add(sum[i], hn::LoadU(d, acc + c + i * kLanes));
  }
  for (; c < floats; c += kLanes) sum[0] = hn::Add(sum[0], hn::LoadU(d, acc + c));
  const V total = hn::Add(hn::Add(sum[0], sum[1]), hn::Add(sum[2], sum[3]));
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  return !hn::AllTrue(d, hn::Lt(hn::Abs(total), inf));
}

// After a fast form left an accumulator non-finite: if the block's value rows (as float32)
// hold NaN or Infinity, the careful form again from the saved accumulators; else (finite
// values whose sums overflowed) the fast form stands.
//   v_rows: [num_keys, v_stride]   acc, saved: [kRowsPerTile, padded_dim]
template <int kRowsPerTile>
void RedoIfNonFiniteValues(const float* p, const float* rescale, const float* v_rows, int num_keys,
                           int v_stride, int value_dim, float* acc, const float* saved,
                           int padded_dim) {
  uint8_t flags[kTilesPerBlock] = {};  // one a tile of the block's keys
  FlagNonFiniteValues(v_rows, v_stride, num_keys, value_dim, flags);
  if (std::none_of(flags, flags + kTilesPerBlock, [](uint8_t f) { return f != 0; })) return;
  std::copy(saved, saved + kRowsPerTile * padded_dim, acc);
  AccumulateValuesSkippingZeros<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, acc,
                                              padded_dim);
}

// Step 2d for a tile whose keys are read in place (InPlaceKeys), the form chosen after the
// fact: the fast form, then a look at the block's value rows only if an accumulator is no
// longer finite (a NaN or an Infinity among the values always leaves its column non-finite:
// p·Inf, p·NaN and 0·Inf are not finite), and the careful form from the saved accumulators if
// they do hold one. So the form is the one the block's flags would choose, without reading
// every value twice (the check cost more than the values' own products).
//   acc: [kRowsPerTile, padded_dim]   saved: [kRowsPerTile, padded_dim], scratch
template <int kRowsPerTile>
void AccumulateValuesChecked(const float* p, const float* rescale, const float* v_rows,
                             int num_keys, int v_stride, int value_dim, float* acc, float* saved,
                             int padded_dim) {
  std::copy(acc, acc + kRowsPerTile * padded_dim, saved);
  if constexpr (kRowsPerTile == 1) {
    AccumulateValuesOfOneRow(p, rescale[0], v_rows, num_keys, v_stride, acc, padded_dim);
  } else {
    AccumulateValues<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, acc, padded_dim);
  }
  if (!MayHoldNonFinite(acc, kRowsPerTile * padded_dim)) return;
  RedoIfNonFiniteValues<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, value_dim, acc, saved,
                                      padded_dim);
}

// A block's value rows read where they lie and widened in registers, four columns at a time
// (Four(j, c): row j's columns c .. c + 3), exactly the floats a widened copy holds:
// half-stored rows, or q8_0 rows in whole blocks (each row's scales decoded once a block).
template <KvStorage kStorage>
struct HalfRows {
  const uint16_t* rows;  // the first row (a block's value rows, or a tile's key rows)
  int stride;
  HWY_INLINE V Four(int j, int c) const {
    return FourAt(rows + static_cast<size_t>(j) * stride + c);
  }
  HWY_INLINE static V FourAt(const uint16_t* at) {
    return kStorage == KvStorage::kBfloat16 ? WidenBf16(at) : WidenHalf(at);
  }
  // Whether every value is known to be finite without reading them: no (a half may be NaN).
  bool KnownFinite() const { return false; }
  // Eight halves from `at` as two vectors; bfloat16: one load, each half interleaved with
  // zeros below it (the same floats as Four's, with a shuffle instead of a widening and a shift).
  HWY_INLINE static void EightAt(const uint16_t* at, V& lo, V& hi) {
    if constexpr (kStorage == KvStorage::kBfloat16) {
      const hn::Full128<uint16_t> d16;
      const auto halves = hn::LoadU(d16, at);
      lo = hn::BitCast(D(), hn::InterleaveLower(d16, hn::Zero(d16), halves));
      hi = hn::BitCast(D(), hn::InterleaveUpper(d16, hn::Zero(d16), halves));
    } else {
      lo = WidenHalf(at), hi = WidenHalf(at + 4);
    }
  }
  // Walks the rows one at a time from row 0's column c (AccumulateStoredColumns): a pointer
  // moved by the stride, not a row index multiplied by it at every load.
  struct Cursor {
    const uint16_t* at;
    int stride;
    HWY_INLINE V Four(int offset) const { return FourAt(at + offset); }
    HWY_INLINE void Eight(int offset, V& lo, V& hi) const { EightAt(at + offset, lo, hi); }
    HWY_INLINE void Next() { at += stride; }
  };
  HWY_INLINE Cursor At(int c) const { return {rows + c, stride}; }
};
// The most q8_0 blocks a value row read in place has (256 elements).
constexpr int kMaxQ8RowBlocks = 8;
using DU16x8 = hn::Full128<uint16_t>;
// The most scales WidenQ8Scales widens in one call: a block's value rows (Q8ValueRows).
constexpr int kMaxWidenedQ8Scales = kKeysPerBlock * kMaxQ8RowBlocks;

// Eight float16 scales, lane j the two bytes at at + j·row_bytes (j < n; 0 for j >= n), each
// loaded into its lane (v128.load16_lane). Gathered into an array first and read back as
// vectors, each vector load waited for the four 2-byte stores under it (a store-forwarding
// stall: ~1 in 5 of ScoreQ8Tile's samples sat on those loads).
HWY_INLINE hn::Vec<DU16x8> EightHalves(const uint8_t* at, size_t row_bytes, int n) {
#if defined(__wasm_simd128__)
  // Lane indices are immediates: one guarded load each (the guards are the same every call
  // but a sequence's last tile).
  v128_t v = wasm_i16x8_splat(0);
  if (n > 0) v = wasm_v128_load16_lane(at, v, 0);
  if (n > 1) v = wasm_v128_load16_lane(at + row_bytes, v, 1);
  if (n > 2) v = wasm_v128_load16_lane(at + 2 * row_bytes, v, 2);
  if (n > 3) v = wasm_v128_load16_lane(at + 3 * row_bytes, v, 3);
  if (n > 4) v = wasm_v128_load16_lane(at + 4 * row_bytes, v, 4);
  if (n > 5) v = wasm_v128_load16_lane(at + 5 * row_bytes, v, 5);
  if (n > 6) v = wasm_v128_load16_lane(at + 6 * row_bytes, v, 6);
  if (n > 7) v = wasm_v128_load16_lane(at + 7 * row_bytes, v, 7);
  return hn::Vec<DU16x8>{v};
#else  // the native build (tests): through memory
  alignas(16) uint16_t halves[8] = {};
  for (int j = 0; j < std::min(n, 8); ++j) std::memcpy(&halves[j], at + j * row_bytes, 2);
  return hn::Load(DU16x8(), halves);
#endif
}

// The float16 block scales of q8_0 rows as float32, exactly (WidenHalf: every half, Infinity
// and NaN included, is a float32), eight rows at a time. Row i's block b (`rows` rows of
// `blocks` blocks, row_bytes apart from `first`'s first block) goes to
// scales[b · block_step + i]; entries i from rows up to the next multiple of 8 are 0. Returns
// whether every scale is finite.
//   scales: [blocks · block_step], 1 <= rows <= block_step, block_step % 8 == 0
HWY_INLINE bool WidenQ8Scales(const uint8_t* first, size_t row_bytes, int rows, int blocks,
                              int block_step, float* scales) {
  const D d;
  const DU32 du;
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  auto not_finite = hn::FirstN(d, 0);
  const auto keep = [&](V scale, float* at) {
    not_finite = hn::Or(not_finite, hn::Not(hn::Lt(hn::Abs(scale), inf)));
    hn::Store(scale, d, at);
  };
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < rows; i += 8) {
      const auto halves =
          EightHalves(first + i * row_bytes + b * kKvQ8BlockBytes, row_bytes, rows - i);
      float* at = scales + b * block_step + i;
      keep(WidenHalfBits(hn::PromoteTo(du, hn::LowerHalf(halves))), at);
      keep(WidenHalfBits(hn::PromoteTo(du, hn::UpperHalf(hn::Half<DU16x8>(), halves))), at + 4);
    }
  }
  return hn::AllFalse(d, not_finite);
}
// A block's value rows (up to 32) as q8_0 rows in whole blocks (RowsInWholeBlocks) of up to
// 256 elements, read in place: the rows' block scales decoded once (WidenQ8Scales), the codes
// addressed from the first row's first block (a Cursor reads row after row of one block's
// columns as d·q, exact).
struct Q8ValueRows {
  const uint8_t* first;  // row 0's first block
  size_t row_bytes;      // between rows' first blocks
  int blocks;            // blocks a row
  bool finite;           // every scale finite, so every value d·q (q an int8)
  alignas(16) float scales[kMaxWidenedQ8Scales];
  //   first: the first row, rows of `width` elements `stride` apart
  Q8ValueRows(const Q8Elements& rows_first, int stride, int rows, int width)
      : first(rows_first.block()),
        row_bytes(static_cast<size_t>(stride) / kKvQ8Block * kKvQ8BlockBytes),
        blocks(width / kKvQ8Block) {
    finite = WidenQ8Scales(first, row_bytes, rows, blocks, /*block_step=*/kKeysPerBlock, scales);
  }
  // Whether every value is known to be finite: every scale is (d·q with q an int8).
  bool KnownFinite() const { return finite; }
  HWY_INLINE const int8_t* Codes(int i, int c) const {
    return reinterpret_cast<const int8_t*>(first + i * row_bytes +
                                           (c / kKvQ8Block) * kKvQ8BlockBytes + 2) +
           c % kKvQ8Block;
  }
  // Eight codes (one block's) × their scale as two vectors: one load of 8 codes widened to
  // int16 (v128.load8x8_s), then each half to int32 and float (d·q, exact).
  HWY_INLINE static void EightAt(const int8_t* codes, V scale, V& lo, V& hi) {
    const D d;
    const DI32 di;
    const auto wide = hn::PromoteTo(DI16(), hn::LoadU(DI8(), codes));
    lo = hn::Mul(hn::ConvertTo(d, hn::PromoteTo(di, hn::LowerHalf(wide))), scale);
    hi = hn::Mul(hn::ConvertTo(d, hn::PromoteTo(di, hn::UpperHalf(hn::Half<DI16>(), wide))), scale);
  }
  // Walks the rows one at a time from row 0's column c, within one block (the columns a
  // cursor reads, c .. c + 31 at most, lie in c's block; row i's scale of block b is
  // scales[32·b + i]): the codes' and the scale's pointers
  // moved by a row at each step, not a row index multiplied at every load (V8 kept the
  // multiplies: ~2 in 5 of the value loop's instructions were addresses).
  struct Cursor {
    const int8_t* codes;
    const float* scale;
    size_t row_bytes;
    HWY_INLINE V Four(int offset) const {
      return WidenFourCodes(codes + offset, hn::Set(D(), *scale));
    }
    HWY_INLINE void Eight(int offset, V& lo, V& hi) const {
      EightAt(codes + offset, hn::Set(D(), *scale), lo, hi);
    }
    HWY_INLINE void Next() { codes += row_bytes, ++scale; }
  };
  HWY_INLINE Cursor At(int c) const {
    return {Codes(0, c), &scales[c / kKvQ8Block * kKeysPerBlock], row_bytes};
  }
};

// Step 2d over stored value rows (Rows: HalfRows, Q8ValueRows), kVecs vectors of columns
// at a time: each column's chain is AccumulateValues' (acc·rescale when a row's rescale is not
// 1, then + p[j]·v[j] in key order), so the bits of the widened copy.
//   p: [kRowsPerTile, kKeysPerBlock]   acc: [kRowsPerTile, padded_dim] from column c
template <int kRowsPerTile, int kVecs, class Rows>
HWY_INLINE int AccumulateStoredColumns(const float* p, const float* rescale, bool rescaled,
                                       const Rows& v, int num_keys, float* acc, int c,
                                       int padded_dim) {
  const D d;
  for (; c + kVecs * kLanes <= padded_dim; c += kVecs * kLanes) {
    V a[kRowsPerTile * kVecs];
    for (int r = 0; r < kRowsPerTile; ++r) {
      for (int i = 0; i < kVecs; ++i) {
        V& x = a[r * kVecs + i];
        x = hn::LoadU(d, acc + r * padded_dim + c + i * kLanes);
        if (rescaled) x = hn::Mul(x, hn::Set(d, rescale[r]));
      }
    }
    auto row = v.At(c);
    ATTN_NO_UNROLL
    for (const float* pj = p; pj != p + num_keys; ++pj, row.Next()) {
      V x[kVecs];
      if constexpr (kVecs == 1) {
        x[0] = row.Four(0);
      } else {
        ATTN_UNROLL_FULLY
        for (int i = 0; i < kVecs; i += 2) row.Eight(i * kLanes, x[i], x[i + 1]);
      }
      ATTN_UNROLL_FULLY
      for (int r = 0; r < kRowsPerTile; ++r) {
        const V w = hn::Set(d, pj[r * kKeysPerBlock]);
        ATTN_UNROLL_FULLY
        for (int i = 0; i < kVecs; ++i) a[r * kVecs + i] = Fma(w, x[i], a[r * kVecs + i]);
      }
    }
    for (int r = 0; r < kRowsPerTile; ++r) {
      for (int i = 0; i < kVecs; ++i) {
        hn::StoreU(a[r * kVecs + i], d, acc + r * padded_dim + c + i * kLanes);
      }
    }
  }
  return c;
}
// As many columns at a time as keep the accumulators in registers: 32 for one row (8 chains
// side by side, as AccumulateValuesOfOneRow), 16 for two, 8 for more; then 4.
//   padded_dim % 4 == 0
template <int kRowsPerTile, class Rows>
void AccumulateStoredValues(const float* p, const float* rescale, const Rows& v, int num_keys,
                            float* acc, int padded_dim) {
  bool rescaled = false;
  for (int r = 0; r < kRowsPerTile; ++r) rescaled = rescaled || rescale[r] != 1.0f;
  constexpr int kVecs = kRowsPerTile == 1 ? 8 : kRowsPerTile == 2 ? 4 : 2;
  int c = AccumulateStoredColumns<kRowsPerTile, kVecs>(p, rescale, rescaled, v, num_keys, acc, 0,
                                                       padded_dim);
  if constexpr (kVecs > 2) {
    c = AccumulateStoredColumns<kRowsPerTile, 2>(p, rescale, rescaled, v, num_keys, acc, c,
                                                 padded_dim);
  }
  AccumulateStoredColumns<kRowsPerTile, 1>(p, rescale, rescaled, v, num_keys, acc, c, padded_dim);
}

// AccumulateValuesChecked over stored value rows; widened() gives the block's rows as float32
// (a widened copy, padded_dim floats apart) for the careful form, only if it is needed. Rows
// known to be finite (q8_0 rows whose scales are) need no check, so no saved accumulators: the
// fast form is the careful one for finite values (a copy and a sum of the accumulators each
// block, ~1 in 8 of a q8_0 decode step's attention).
template <int kRowsPerTile, class Rows, class Widened>
void AccumulateStoredValuesChecked(const float* p, const float* rescale, const Rows& v,
                                   Widened&& widened, int num_keys, int value_dim, float* acc,
                                   float* saved, int padded_dim) {
  const bool check = !v.KnownFinite();
  if (check) std::copy(acc, acc + kRowsPerTile * padded_dim, saved);
  AccumulateStoredValues<kRowsPerTile>(p, rescale, v, num_keys, acc, padded_dim);
  if (!check || !MayHoldNonFinite(acc, kRowsPerTile * padded_dim)) return;
  RedoIfNonFiniteValues<kRowsPerTile>(p, rescale, widened(), num_keys, padded_dim, value_dim, acc,
                                      saved, padded_dim);
}

// A key or value row as float32: float32 rows as they are, half-stored rows widened
// exactly, q8_0 elements as d·q (exact; kv_storage.h; FourOf takes no q8_0 elements: their
// keys are widened a row at a time before they are packed, PackKeyPanels below).
HWY_INLINE V FourOf(const float* src, KvStorage) { return hn::LoadU(D(), src); }
HWY_INLINE V FourOf(const uint16_t* src, KvStorage s) { return WidenFour(src, s); }
inline void RowOf(const float* src, int count, KvStorage, float* dst) {
  std::memcpy(dst, src, sizeof(float) * count);
}
inline void RowOf(const uint16_t* src, int count, KvStorage s, float* dst) {
  WidenRow(src, count, s, dst);
}
inline void RowOf(Q8Elements src, int count, KvStorage, float* dst) {
  DequantizeQ8Elements(src, count, dst);
}

// Calls f(keys) with the head's keys as stored (float32, half-stored, or q8_0 elements), and
// the same for its values: the callers are templates over the element pointer type.
template <class F>
HWY_INLINE void WithStoredKeys(const HeadProblem& pb, F&& f) {
  switch (pb.kv_storage) {
    case KvStorage::kFloat32:
      return f(pb.k);
    case KvStorage::kQ8_0:
      return f(pb.kq);
    default:
      return f(pb.k16);
  }
}
template <class F>
HWY_INLINE void WithStoredValues(const HeadProblem& pb, F&& f) {
  switch (pb.kv_storage) {
    case KvStorage::kFloat32:
      return f(pb.v);
    case KvStorage::kQ8_0:
      return f(pb.vq);
    default:
      return f(pb.v16);
  }
}

// A 4 × 4 transpose in registers: rows r0..r3 (four columns each) → columns c0..c3 (four rows
// each): pairs of rows per column, then pairs of pairs.
HWY_INLINE void TransposeFour(V r0, V r1, V r2, V r3, V out[4]) {
  const D d;
  const hn::Full128<uint64_t> d64;
  const auto a = hn::BitCast(d64, hn::InterleaveLower(r0, r1));     // c0: k0 k1, c1: k0 k1
  const auto b = hn::BitCast(d64, hn::InterleaveLower(r2, r3));     // c0: k2 k3, c1: k2 k3
  const auto e = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));  // c2, c3: k0 k1
  const auto f = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));  // c2, c3: k2 k3
  out[0] = hn::BitCast(d, hn::InterleaveLower(a, b));
  out[1] = hn::BitCast(d, hn::InterleaveUpper(d64, a, b));
  out[2] = hn::BitCast(d, hn::InterleaveLower(e, f));
  out[3] = hn::BitCast(d, hn::InterleaveUpper(d64, e, f));
}

// Four columns of 8 key rows, as float32, into a panel's rows c .. c + 3: two 4 × 4
// transposes (keys × columns → columns × keys) of the rows' vectors; four(i) gives key row
// i's four columns.
//   panel: [head_dim, 8], from row c
template <class Four>
HWY_INLINE void TransposeEightKeysOf(Four four, float* panel) {
  const D d;
  for (int half = 0; half < 2; ++half) {  // keys 0-3, then 4-7
    V columns[4];
    TransposeFour(four(4 * half), four(4 * half + 1), four(4 * half + 2), four(4 * half + 3),
                  columns);
    float* to = panel + 4 * half;
    for (int c = 0; c < 4; ++c) hn::StoreU(columns[c], d, to + c * kKeysPerTile);
  }
}

// Columns c .. c + 3 of 8 key rows as stored (float32, or half-stored and widened exactly).
//   k: 8 rows (row stride k_stride), from column c   panel: [head_dim, 8], from row c
template <typename Elements>
HWY_INLINE void TransposeEightKeys(Elements k, int k_stride, KvStorage s, float* panel) {
  TransposeEightKeysOf([&](int i) { return FourOf(k + static_cast<size_t>(i) * k_stride, s); },
                       panel);
}

// The key scratch's floats: a q8_0 panel's rows widened, then one row (PackKeyPanels).
uint64_t KeyRowsFloats(int head_dim) { return uint64_t{kKeysPerTile + 1} * head_dim; }

// Step 1: kᵀ in panels of 8 keys, as float32 (half-stored keys widened exactly on the way):
// whole panels four columns at a time (TransposeEightKeys); a column tail, and the last
// partial panel, row by row through `row`. Only data moves: the panels hold the keys' own
// floats, whichever way they are packed.
//   k: [keys, head_dim] (row stride k_stride)   row: [head_dim]
//   panels: [ceil(keys / 8), head_dim, 8], zeros past the last key
template <typename Elements>
void PackKeyPanels(Elements k, int k_stride, int keys, int head_dim, KvStorage s, float* row,
                   float* panels) {
  const size_t panel_floats = static_cast<size_t>(head_dim) * kKeysPerTile;
  const int whole = keys / kKeysPerTile * kKeysPerTile;  // keys in whole panels
  const int columns = head_dim / kLanes * kLanes;        // columns in whole vectors
  for (int j0 = 0; j0 < whole; j0 += kKeysPerTile) {
    const Elements rows = k + static_cast<size_t>(j0) * k_stride;
    float* panel = panels + static_cast<size_t>(j0 / kKeysPerTile) * panel_floats;
    for (int c = 0; c < columns; c += kLanes) {
      TransposeEightKeys(rows + static_cast<size_t>(c), k_stride, s, panel + c * kKeysPerTile);
    }
    for (int j = 0; j < kKeysPerTile && columns < head_dim; ++j) {
      RowOf(rows + static_cast<size_t>(j) * k_stride, head_dim, s, row);
      for (int c = columns; c < head_dim; ++c) panel[c * kKeysPerTile + j] = row[c];
    }
  }
  if (whole == keys) return;
  float* last = panels + static_cast<size_t>(whole / kKeysPerTile) * panel_floats;
  std::fill(last, last + panel_floats, 0.0f);
  for (int j = whole; j < keys; ++j) {
    RowOf(k + static_cast<size_t>(j) * k_stride, head_dim, s, row);
    for (int c = 0; c < head_dim; ++c) last[c * kKeysPerTile + j - whole] = row[c];
  }
}

// Whether q8_0 rows (keys or values) lie in whole blocks of their own (each row starts a block
// and spans width / 32 of them), so that they can be widened in registers.
bool RowsInWholeBlocks(Q8Elements k, int k_stride, int head_dim) {
  return k.index % kKvQ8Block == 0 && k_stride % kKvQ8Block == 0 && head_dim % kKvQ8Block == 0;
}

// A whole panel of 8 q8_0 key rows in whole blocks: for each block of 32 columns, the rows'
// 8 scales decoded once, then four columns at a time widened (d·q, exact) and transposed in
// registers, as half-stored keys are. The same floats as widening the rows first.
//   k: 8 rows (row stride k_stride)   panel: [head_dim, 8]
void PackWholeQ8Panel(Q8Elements k, int k_stride, int head_dim, float* panel) {
  const D d;
  for (int c0 = 0; c0 < head_dim; c0 += kKvQ8Block) {
    const int8_t* codes[kKeysPerTile];
    V scales[kKeysPerTile];
    for (int i = 0; i < kKeysPerTile; ++i) {
      const uint8_t* block = (k + static_cast<size_t>(i) * k_stride + c0).block();
      codes[i] = reinterpret_cast<const int8_t*>(block + 2);
      scales[i] = hn::Set(d, Q8Scale(block));
    }
    for (int c = 0; c < kKvQ8Block; c += kLanes) {
      TransposeEightKeysOf([&](int i) { return WidenFourCodes(codes[i] + c, scales[i]); },
                           panel + (c0 + c) * kKeysPerTile);
    }
  }
}

// q8_0 keys: whole panels of rows in whole blocks widened in registers (PackWholeQ8Panel);
// otherwise each panel's (up to) 8 rows widened into scratch a row at a time (one scale per
// block of 32, DequantizeQ8Elements), then packed as float32 keys (d·q is exact).
//   k: [keys, head_dim] q8_0 elements (row stride k_stride)
//   scratch: [KeyRowsFloats(head_dim)]: 8 widened rows, then the float packing's row
//   panels: [ceil(keys / 8), head_dim, 8], zeros past the last key
void PackKeyPanels(Q8Elements k, int k_stride, int keys, int head_dim, KvStorage, float* scratch,
                   float* panels) {
  const size_t panel_floats = static_cast<size_t>(head_dim) * kKeysPerTile;
  const bool in_registers = RowsInWholeBlocks(k, k_stride, head_dim);
  float* widened = scratch;
  float* row = scratch + static_cast<size_t>(kKeysPerTile) * head_dim;
  for (int j0 = 0; j0 < keys; j0 += kKeysPerTile) {
    const int n = std::min(kKeysPerTile, keys - j0);
    float* panel = panels + static_cast<size_t>(j0 / kKeysPerTile) * panel_floats;
    if (in_registers && n == kKeysPerTile) {
      PackWholeQ8Panel(k + static_cast<size_t>(j0) * k_stride, k_stride, head_dim, panel);
      continue;
    }
    for (int j = 0; j < n; ++j) {
      DequantizeQ8Elements(k + static_cast<size_t>(j0 + j) * k_stride, head_dim,
                           widened + static_cast<size_t>(j) * head_dim);
    }
    PackKeyPanels(static_cast<const float*>(widened), head_dim, n, head_dim, KvStorage::kFloat32,
                  row, panel);
  }
}

// A whole tile's 8 key rows read where they lie, four columns at a time as float32 (Four(i, c):
// key i's columns c .. c + 3; exact, as PackKeyPanels widens them).
struct FloatKeyRows {
  const float* rows;  // the tile's first key's row
  int stride;
  HWY_INLINE V Four(int i, int c) const {
    return hn::LoadU(D(), rows + static_cast<size_t>(i) * stride + c);
  }
};

// Step 2a for a whole tile of 8 keys read where they lie: four columns of the 8 rows at a time
// widened and transposed in registers (TransposeFour) and multiplied into the rows' scores
// straight away. Each key's score is AccumulateTile's chain over a panel (q[0]·k[0], then
// + q[c]·k[c] in column order), so the same bits, without the panel's stores and loads: a
// decode step's keys are read once and used by only its few rows. 2R + 9 live vectors, so for
// tiles of 2 or 3 rows.
//   q_rows: kRowsPerTile × [head_dim], head_dim % 4 == 0   scores: kRowsPerTile × [8] (stride)
template <int kRowsPerTile, class Rows>
HWY_INLINE void ScoreTileInRegisters(const float* const q_rows[kRowsPerTile], const Rows& k,
                                     int head_dim, float* scores, int stride) {
  const D d;
  V s[2 * kRowsPerTile];
  for (int i = 0; i < 2 * kRowsPerTile; ++i) s[i] = hn::Zero(d);
  ATTN_NO_UNROLL
  for (int c = 0; c < head_dim; c += kLanes) {
    V lo[4], hi[4];  // columns c .. c + 3 of keys 0-3 and 4-7
    TransposeFour(k.Four(0, c), k.Four(1, c), k.Four(2, c), k.Four(3, c), lo);
    TransposeFour(k.Four(4, c), k.Four(5, c), k.Four(6, c), k.Four(7, c), hi);
    ATTN_UNROLL_FULLY
    for (int i = 0; i < 4; ++i) {
      ATTN_UNROLL_FULLY
      for (int r = 0; r < kRowsPerTile; ++r) {
        const V x = hn::Set(d, q_rows[r][c + i]);
        s[2 * r] = Fma(x, lo[i], s[2 * r]);
        s[2 * r + 1] = Fma(x, hi[i], s[2 * r + 1]);
      }
    }
  }
  for (int r = 0; r < kRowsPerTile; ++r) {
    hn::Store(s[2 * r], d, scores + r * stride);
    hn::Store(s[2 * r + 1], d, scores + r * stride + kLanes);
  }
}

// Columns c .. c + 3 of four bfloat16 key rows as two vectors of column pairs: lane j of
// pairs[p] holds key j's columns c + 2p (low half) and c + 2p + 1 (high half): each row's four
// halves in one 64-bit load, then a 32-bit transpose (four shuffles).
//   rows: 4 key rows from column c, `stride` apart
HWY_INLINE void Bf16PairsOfFourKeys(const uint16_t* rows, int stride, hn::Vec<DU32> pairs[2]) {
  const DU32 du;
  const hn::Full128<uint64_t> d64;
  // The four halves in both 64-bit lanes (v128.load64_splat, one instruction in V8, where
  // load64_zero took two): the transpose reads only the lower lane.
  const auto row = [&](int i) {
    uint64_t halves;
    std::memcpy(&halves, rows + static_cast<size_t>(i) * stride, sizeof(halves));
    return hn::BitCast(du, hn::Set(d64, halves));
  };
  const auto a = hn::BitCast(d64, hn::InterleaveLower(du, row(0), row(1)));  // keys 0, 1
  const auto b = hn::BitCast(d64, hn::InterleaveLower(du, row(2), row(3)));  // keys 2, 3
  pairs[0] = hn::BitCast(du, hn::InterleaveLower(d64, a, b));
  pairs[1] = hn::BitCast(du, hn::InterleaveUpper(d64, a, b));
}

// The upper halves of four 32-bit lanes, loaded (kernels/loaded_lanes.h says why).
inline auto kHighHalves = SplatRows<uint32_t>({0xffff0000u});

// ScoreTileInRegisters for bfloat16 keys with fewer shuffles: four columns of the 8 keys as
// column pairs (Bf16PairsOfFourKeys), each pair's even column (<< 16) and odd one
// (& 0xffff0000) as float32: WidenBf16's floats. Each query element is splatted once for both
// halves of the tile, so 2R accumulators, 4 pairs, 2 columns and a splat are live (14 for 3
// rows: no spills in V8). Each score is the same chain (q[0]·k[0], then + q[c]·k[c] in column
// order), so the same bits.
//   q_rows: kRowsPerTile × [head_dim], head_dim % 4 == 0   k: 8 key rows, k_stride apart
//   scores: kRowsPerTile × [8] (stride)
template <int kRowsPerTile>
HWY_INLINE void ScoreBf16TileInRegisters(const float* const q_rows[kRowsPerTile], const uint16_t* k,
                                         int k_stride, int head_dim, float* scores, int stride) {
  const D d;
  const DU32 du;
  const auto high_half = hn::Load(du, kHighHalves.row[0]);
  V s[2 * kRowsPerTile];
  for (int i = 0; i < 2 * kRowsPerTile; ++i) s[i] = hn::Zero(d);
  const uint16_t* upper = k + static_cast<size_t>(4) * k_stride;  // keys 4-7
  ATTN_NO_UNROLL
  for (int c = 0; c < head_dim; c += kLanes) {
    hn::Vec<DU32> lo[2], hi[2];  // column pairs of keys 0-3 and 4-7
    Bf16PairsOfFourKeys(k + c, k_stride, lo);
    Bf16PairsOfFourKeys(upper + c, k_stride, hi);
    ATTN_UNROLL_FULLY
    for (int p = 0; p < 2; ++p) {
      ATTN_UNROLL_FULLY
      for (int odd = 0; odd < 2; ++odd) {
        const V x_lo = hn::BitCast(d, odd ? hn::And(lo[p], high_half) : hn::ShiftLeft<16>(lo[p]));
        const V x_hi = hn::BitCast(d, odd ? hn::And(hi[p], high_half) : hn::ShiftLeft<16>(hi[p]));
        ATTN_UNROLL_FULLY
        for (int r = 0; r < kRowsPerTile; ++r) {
          const V w = hn::Set(d, q_rows[r][c + 2 * p + odd]);
          s[2 * r] = Fma(w, x_lo, s[2 * r]);
          s[2 * r + 1] = Fma(w, x_hi, s[2 * r + 1]);
        }
      }
    }
  }
  for (int r = 0; r < kRowsPerTile; ++r) {
    hn::Store(s[2 * r], d, scores + r * stride);
    hn::Store(s[2 * r + 1], d, scores + r * stride + kLanes);
  }
}

// The most query rows a call scores q8_0 keys in integers for: two tiles of the tallest tile
// any build has, so that whether a call does depends on its rows alone, not on the build.
constexpr int kMaxIntegerScoredRows = kInPlaceTiles * 6;

// Whether a call against q8_0 keys whose rows are whole blocks (CodesQueries) scores them in
// integers against the coded queries (ScoreQ8Tile): a call of at most kMaxIntegerScoredRows
// rows (a decode step, a prompt's short last chunk), its keys read where they lie. A taller
// call scores the packed panels (the keys widened once for all its rows) as floats against
// q̂, as fast there: the same scores within float32 rounding, and in every build and tile
// height the same bits for a call of the same rows.
bool ScoresInIntegers(const HeadProblem& pb) {
  return pb.seq_q <= kMaxIntegerScoredRows &&
         CodesQueries(pb.kv_storage, pb.kq, pb.k_stride, pb.head_dim);
}

// A tile's query rows coded for q8_0 keys (CodeQueryRow): row r's int16 codes and its blocks'
// scales 2^e; coded[r] is false for a row holding NaN or Infinity (scored in floats).
template <int kRows>
struct QueryCodes {
  alignas(16) int16_t codes[kRows][kMaxCodedQueryWidth];
  float scales[kRows][kMaxCodedQueryWidth / kKvQ8Block];
  bool coded[kRows];
};

// Lane j: the sum of s_j's four lanes.
HWY_INLINE VI SumsOfFour(VI s0, VI s1, VI s2, VI s3) {
  const DI32 di;
  const hn::Repartition<int64_t, DI32> d64;
  // [s0_0 + s0_2, s1_0 + s1_2, s0_1 + s0_3, s1_1 + s1_3], and the same of s2, s3
  const VI u01 = hn::Add(hn::InterleaveLower(di, s0, s1), hn::InterleaveUpper(di, s0, s1));
  const VI u23 = hn::Add(hn::InterleaveLower(di, s2, s3), hn::InterleaveUpper(di, s2, s3));
  const auto a = hn::BitCast(d64, u01), b = hn::BitCast(d64, u23);
  return hn::Add(hn::BitCast(di, hn::InterleaveLower(d64, a, b)),
                 hn::BitCast(di, hn::InterleaveUpper(d64, a, b)));
}

// One key's score in floats, Σ q̂[c] · (d · code[c]) in column order: for a key whose block
// scale is not finite, or a row that is not coded (its NaN and Infinity as floats give them).
//   q: [head_dim] (q̂ of a coded row)   key: the key's row of q8_0 elements
float ScoreQ8KeyInFloats(const float* q, Q8Elements key, int head_dim) {
  float s = 0.0f;
  for (int c = 0; c < head_dim; ++c) {
    const uint8_t* block = (key + static_cast<size_t>(c)).block();
    const int8_t code = reinterpret_cast<const int8_t*>(block + 2)[c % kKvQ8Block];
    s += q[c] * (Q8Scale(block) * static_cast<float>(code));
  }
  return s;
}

// Whether each of a q8_0 key row's block scales is finite.
bool KeyScalesFinite(Q8Elements key, int head_dim) {
  for (int c = 0; c < head_dim; c += kKvQ8Block) {
    if (!std::isfinite(Q8Scale((key + static_cast<size_t>(c)).block()))) return false;
  }
  return true;
}

// ScoreQ8Tile's scores redone in floats where the integers cannot give them: every key of a
// row that is not coded (q as given), and, for the coded rows, the keys with a scale that is
// not finite (q̂).
template <int kRows>
void RescoreInFloats(const QueryCodes<kRows>& qc, const float* const q_rows[kRows], Q8Elements k,
                     int k_stride, int keys, int head_dim, float* scores, int stride) {
  float q_hat[kMaxCodedQueryWidth];
  for (int r = 0; r < kRows; ++r) {
    const float* q = q_rows[r];
    if (qc.coded[r]) {
      for (int c = 0; c < head_dim; ++c) {
        q_hat[c] = static_cast<float>(qc.codes[r][c]) * qc.scales[r][c / kKvQ8Block];
      }
      q = q_hat;
    }
    for (int j = 0; j < keys; ++j) {
      const Q8Elements key = k + static_cast<size_t>(j) * k_stride;
      if (qc.coded[r] && KeyScalesFinite(key, head_dim)) continue;
      scores[r * stride + j] = ScoreQ8KeyInFloats(q, key, head_dim);
    }
  }
}

// Step 2a for a tile of up to 8 q8_0 keys in whole blocks, read where they lie, against query
// rows coded per block (QueryCodes): each block's Σ code·code exact in int32 (i32x4.dot_i16x8_s
// on the keys' codes widened to int16), then each score in float32 as the blocks in order of
// float(Σ) · (d · 2^e), a multiply and an add with no FMA: the same bits in every build, tile
// height and path. A key whose scale is not finite, or a row not coded, is scored in floats
// (ScoreQ8KeyInFloats).
// k by reference: a Q8Elements passed by value is copied as one 8-byte load of the caller's two
// 4-byte stores, a store-forwarding stall a tile (~1.5% of a q8_0 decode step in perf).
//   q_rows: kRows × [head_dim] (the rows as given)   k: the tile's first key, rows k_stride apart
//   scores: kRows × [8] (stride), 0 past `keys`
template <int kRows>
void ScoreQ8Tile(const QueryCodes<kRows>& qc, const float* const q_rows[kRows], const Q8Elements& k,
                 int k_stride, int keys, int head_dim, float* scores, int stride) {
  const D d;
  const DI32 di;
  const DI16 d16;
  const hn::Rebind<int8_t, DI16> d8;  // 8 codes, the lanes of one int16 vector
  alignas(16) int32_t sums[kRows][kKeysPerTile][kLanes];
  // Block b's scales of the 8 keys (zeros past `keys`), all at once before the products.
  const uint8_t* first = k.block();  // key 0's first block
  const size_t row_bytes = static_cast<size_t>(k_stride) / kKvQ8Block * kKvQ8BlockBytes;
  const int blocks = head_dim / kKvQ8Block;
  constexpr int kMaxScales = kMaxCodedQueryWidth / kKvQ8Block * kKeysPerTile;
  static_assert(kMaxScales <= kMaxWidenedQ8Scales, "WidenQ8Scales widens them in one call");
  alignas(16) float key_scales[kMaxScales];  // [blocks, 8]: block b's at key_scales + 8·b
  const bool finite = WidenQ8Scales(first, row_bytes, keys, blocks, kKeysPerTile, key_scales);
  V total[kRows][2];
  for (int r = 0; r < kRows; ++r) total[r][0] = total[r][1] = hn::Zero(d);
  for (int b = 0; b < blocks; ++b) {
    for (int j = keys; j < kKeysPerTile; ++j) {
      for (int r = 0; r < kRows; ++r) hn::Store(hn::Zero(di), di, sums[r][j]);
    }
    // One key a step for all the rows, its codes loaded once for them. (Two keys a step, each
    // row's query codes loaded once for both, kept all twelve query vectors of the block live
    // across the loop, which V8 spilled: ~95 instructions a key pair against ~39 a key now.)
    const int8_t* codes = reinterpret_cast<const int8_t*>(first + b * kKvQ8BlockBytes + 2);
    int32_t* sums_j = sums[0][0];  // key j's sums of row r at sums_j + 32·r
    ATTN_NO_UNROLL
    for (int j = 0; j < keys; ++j, codes += row_bytes, sums_j += kLanes) {
      hn::Vec<DI16> kc[4];
      for (int v = 0; v < 4; ++v) kc[v] = hn::PromoteTo(d16, hn::LoadU(d8, codes + 8 * v));
      ATTN_UNROLL_FULLY
      for (int r = 0; r < kRows; ++r) {
        const int16_t* q = qc.codes[r] + b * kKvQ8Block;
        VI sum = hn::Zero(di), unused = hn::Zero(di);
        ATTN_UNROLL_FULLY
        for (int v = 0; v < 4; ++v) {
          sum = hn::ReorderWidenMulAccumulate(di, kc[v], hn::Load(d16, q + 8 * v), sum, unused);
        }
        constexpr int kRowInts = kKeysPerTile * kLanes;
        hn::Store(sum, di, sums_j + r * kRowInts);
      }
    }
    for (int r = 0; r < kRows; ++r) {
      const V q_scale = hn::Set(d, qc.scales[r][b]);
      for (int h = 0; h < 2; ++h) {
        const int j = 4 * h;
        const VI dots = SumsOfFour(hn::Load(di, sums[r][j]), hn::Load(di, sums[r][j + 1]),
                                   hn::Load(di, sums[r][j + 2]), hn::Load(di, sums[r][j + 3]));
        const V scale = hn::Mul(hn::Load(d, key_scales + b * kKeysPerTile + j), q_scale);
        total[r][h] = hn::Add(total[r][h], hn::Mul(hn::ConvertTo(d, dots), scale));
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    hn::StoreU(total[r][0], d, scores + r * stride);
    hn::StoreU(total[r][1], d, scores + r * stride + kLanes);
  }
  bool all_coded = true;
  for (int r = 0; r < kRows; ++r) all_coded = all_coded && qc.coded[r];
  if (finite && all_coded) return;
  RescoreInFloats(qc, q_rows, k, k_stride, keys, head_dim, scores, stride);
}

// Value rows key0 .. key0 + keys - 1 (half-stored ones widened) into contiguous rows of
// padded_dim floats.   out: [keys, padded_dim], its padding columns already zero
void CopyValueRows(const HeadProblem& pb, int key0, int keys, int padded_dim, float* out) {
  WithStoredValues(pb, [&](auto v) {
    for (int j = 0; j < keys; ++j) {
      RowOf(v + static_cast<size_t>(key0 + j) * pb.v_stride, pb.value_dim, pb.kv_storage,
            out + static_cast<size_t>(j) * padded_dim);
    }
  });
}

// Whether a tile reads the values from a copy (widened, or padded to whole vectors) rather
// than where they lie; a packed head also copies strided values (CopiesValues below). (A
// q8_0 cache's values are widened too, but only those of the keys a call reads.)
bool WidensOrPadsValues(const HeadProblem& pb, int padded_dim) {
  return pb.kv_storage != KvStorage::kFloat32 || padded_dim != pb.value_dim;
}

// Whether InPlaceKeys reads the values widened in registers as it accumulates them, with no
// copy: half-stored rows of whole vectors, or q8_0 rows in whole blocks of at most 256
// elements. (Widening a block's 32 rows into scratch first took a decode step at 4k keys of
// cache as long as the products that read them.)
bool WidensValuesInRegisters(const HeadProblem& pb, int padded_dim) {
  switch (pb.kv_storage) {
    case KvStorage::kFloat32:
      return false;
    case KvStorage::kQ8_0:
      return pb.value_dim <= kMaxQ8RowBlocks * kKvQ8Block &&
             RowsInWholeBlocks(pb.vq, pb.v_stride, pb.value_dim);
    default:
      return padded_dim == pb.value_dim;
  }
}

// The tallest tile scored straight from the keys (ScoreTileInRegisters: 2R + 9 live vectors).
constexpr int kMaxRowsScoredInRegisters = 3;

// Whether a call of one tile of `rows` rows scores its whole key tiles straight from where they
// lie (ScoreTileInRegisters) instead of packing each into a panel first: for tiles of 2 or 3
// rows (one row scores four panels at once, ScoreTilesOfOneRow, and taller tiles need the
// registers), head_dim a multiple of 4, q8_0 keys in whole blocks of at most 256 elements.
bool ScoresKeysInRegisters(const HeadProblem& pb, int tiles, int rows) {
  if (tiles != 1 || rows < 2 || rows > kMaxRowsScoredInRegisters || pb.head_dim % kLanes != 0) {
    return false;
  }
  return pb.kv_storage != KvStorage::kQ8_0;  // q8_0 keys: in integers, or packed panels
}

// Where step 2 reads the keys and values: Values(j0, count) gives the value rows of keys
// j0 .. j0 + count - 1 (value_stride floats apart, padded_dim readable floats each) and is
// asked first for each block; then, for each of its tiles, Panel(tile) gives its kᵀ panel
// [head_dim, 8], and (PackedKeys) NonFinite(tile) says whether its value rows hold NaN/Inf
// (InPlaceKeys finds out after the values' products: AccumulateValuesChecked).
//
// PackedKeys: what PrepareHead packed, flagged and copied for the whole head (step 1).
struct PackedKeys {
  static constexpr bool kChecksAfter = false;
  const FusedWorkspace& ws;
  int head_dim;
  const float* v_base;
  int value_stride;

  const float* Values(int j0, int) const { return v_base + static_cast<size_t>(j0) * value_stride; }
  bool NonFinite(int tile) const { return ws.v_nonfinite[tile] != 0; }
  const float* Panel(int tile) const {
    return ws.k_panels.data() + static_cast<size_t>(tile) * head_dim * kKeysPerTile;
  }
};

// How many blocks ahead InPlaceKeys touches the rows it will read (two: a block of a decode
// tile is thousands of instructions, more than a miss takes).
constexpr int kTouchAhead = 2;

// Reads one byte of every cache line of the bytes first .. first + bytes - 1.
HWY_INLINE void TouchBytes(const void* first, size_t bytes) {
  const auto* at = static_cast<const volatile uint8_t*>(first);
  for (size_t i = 0; i < bytes; i += 64) static_cast<void>(at[i]);
  static_cast<void>(at[bytes - 1]);
}
// The lines of rows first .. last - 1 of `width` elements, `stride` apart; nothing when the rows
// are contiguous (a model's head-major cache): the prefetchers follow one stream, and touching
// it too was slower (Chromium, 16k keys, 2 threads, 6 layers: bfloat16 11.0-12.1 ms/token
// touched, 9.2 not).
template <typename Elements>
HWY_INLINE void TouchRows(Elements rows, int stride, int width, int first, int last) {
  if (stride == width) return;
  for (int j = first; j < last; ++j) {
    TouchBytes(rows + static_cast<size_t>(j) * stride, sizeof(*rows) * static_cast<size_t>(width));
  }
}
// q8_0 rows: nothing. The tiles walk them one a step at a constant stride, which the
// prefetchers follow; touching them too measured 7-10% slower (position-major rows, 68 bytes
// of every 204).
HWY_INLINE void TouchRows(Q8Elements, int, int, int, int) {}

// InPlaceKeys: for a call of at most two tiles of query rows (a decode step: one row, or the
// query heads that share a key/value head), the keys and values where they lie. Each tile's
// 8 keys are packed into a small panel (a block's four) as it is scored (the panel step 1
// would have made: the same bits), and each block's values are read in place (copied, or
// widened, into a block of scratch only for half-stored values or a value_dim that is not a
// multiple of 4): nothing is copied for the whole head, and nothing is done twice. Packing a
// whole head's keys, copying its values and running a 4-row tile for one real row cost a
// decode step at 512 keys of context more than its weights did
// (tests/attention-one-row.test.js; docs/quantization.md).
struct InPlaceKeys {
  static constexpr bool kChecksAfter = true;
  const HeadProblem& pb;
  FusedWorkspace& ws;  // tile_panel [4, head_dim, 8], key_rows [9, head_dim], saved_acc, and
                       // with copy_v v_padded [kKeysPerBlock, padded_dim] (padding zero)
  int padded_dim;
  bool copy_v;
  bool widen_values;       // read by WithValueRows, widened in registers (WidensValuesInRegisters)
  bool keys_in_registers;  // whole tiles scored by ScoreInRegisters (ScoresKeysInRegisters)
  bool integer_keys;       // q8_0 keys scored in integers, no panels (ScoresInIntegers)
  int value_stride = 0;
  int j0 = 0;  // the first key of the block Values last gave

  // Reads a byte of each cache line of the key and value rows of keys first .. first + 31
  // (below `end`), blocks before the tiles use them, when the rows are strided (a caller's
  // [seq, heads · head_dim] keys; a model's cache is head-major, its rows contiguous, and not
  // touched: TouchRows): ScoreTileInRegisters reads 8 key rows side by side, a few bytes a
  // step, where the hardware's prefetchers find no stride, so each tile waited on its own
  // misses, ~8 at a time; these loads go out together (wasm has no prefetch: volatile loads
  // whose values are dropped). Chromium, 16k keys, 2 threads, bfloat16, a position-major cache
  // 384 bytes a row: 6.9 -> 4.7 ms/token at 2 layers, 22.3 -> 16.8 at 6.
  void Touch(int first, int end) const {
    const int last = std::min(first + kKeysPerBlock, std::min(end, pb.seq_k));
    if (first >= last) return;
    WithStoredKeys(pb, [&](auto k) { TouchRows(k, pb.k_stride, pb.head_dim, first, last); });
    WithStoredValues(pb, [&](auto v) { TouchRows(v, pb.v_stride, pb.value_dim, first, last); });
  }
  // With widen_values: nothing (the tiles read WithValueRows instead).
  const float* Values(int first, int keys) {
    j0 = first;
    if (widen_values) return nullptr;
    if (copy_v) {
      CopyValueRows(pb, first, keys, padded_dim, ws.v_padded.data());
      value_stride = padded_dim;
      return ws.v_padded.data();
    }
    value_stride = pb.v_stride;
    return pb.v + static_cast<size_t>(first) * pb.v_stride;
  }
  // Calls f(rows) with the block's value rows as stored (HalfRows, Q8ValueRows).
  template <class F>
  void WithValueRows(int keys, F&& f) const {
    const size_t from = static_cast<size_t>(j0) * pb.v_stride;
    switch (pb.kv_storage) {
      case KvStorage::kBfloat16:
        return f(HalfRows<KvStorage::kBfloat16>{pb.v16 + from, pb.v_stride});
      case KvStorage::kQ8_0:
        return f(Q8ValueRows(pb.vq + from, pb.v_stride, keys, pb.value_dim));
      default:
        return f(HalfRows<KvStorage::kFloat16>{pb.v16 + from, pb.v_stride});
    }
  }
  // The block's value rows widened into v_padded (padded_dim floats apart), for the careful
  // form.
  const float* WidenedValues(int keys) {
    CopyValueRows(pb, j0, keys, padded_dim, ws.v_padded.data());
    return ws.v_padded.data();
  }
  // Scores of a whole tile's keys read where they lie (ScoreTileInRegisters).
  template <int kRowsPerTile>
  void ScoreInRegisters(const float* const q_rows[kRowsPerTile], int tile, float* scores,
                        int stride) const {
    const size_t from = static_cast<size_t>(tile) * kKeysPerTile * pb.k_stride;
    const int hd = pb.head_dim;
    switch (pb.kv_storage) {
      case KvStorage::kFloat32:
        return ScoreTileInRegisters<kRowsPerTile>(q_rows, FloatKeyRows{pb.k + from, pb.k_stride},
                                                  hd, scores, stride);
      case KvStorage::kBfloat16:
        return ScoreBf16TileInRegisters<kRowsPerTile>(q_rows, pb.k16 + from, pb.k_stride, hd,
                                                      scores, stride);
      default:  // kFloat16 (never kQ8_0: ScoresKeysInRegisters)
        return ScoreTileInRegisters<kRowsPerTile>(
            q_rows, HalfRows<KvStorage::kFloat16>{pb.k16 + from, pb.k_stride}, hd, scores, stride);
    }
  }
  // A whole tile's keys, with keys_in_registers: none (the tile is scored by ScoreInRegisters).
  const float* Panel(int tile) {  // into the block's slot for the tile
    const int first = tile * kKeysPerTile;
    const int keys = std::min(kKeysPerTile, pb.seq_k - first);
    if ((keys_in_registers && keys == kKeysPerTile) || integer_keys) return nullptr;
    const size_t from = static_cast<size_t>(first) * pb.k_stride;
    float* panel = ws.tile_panel.data() +
                   static_cast<size_t>(tile - j0 / kKeysPerTile) * pb.head_dim * kKeysPerTile;
    WithStoredKeys(pb, [&](auto k) {
      PackKeyPanels(k + from, pb.k_stride, keys, pb.head_dim, pb.kv_storage, ws.key_rows.data(),
                    panel);
    });
    return panel;
  }
};

// The factor of the exponent (online_softmax-inl.h): without a mask the scale goes into the
// exponent (k·(s - max) with k = scale > 0); with one, the scores are scaled first, since the
// mask adds to scaled scores.
bool FoldsScale(const HeadProblem& pb) {
  return pb.mask.empty() && pb.scale > 0.0f && pb.softcap == 0.0f;
}
float SoftmaxFactor(const HeadProblem& pb) { return FoldsScale(pb) ? pb.scale * kLog2e : kLog2e; }

// Where QueryBlock's rows end up: divided by their sums into pb.out (step 3), or (partial not
// null) kept unnormalised with their state, for the keys key_lo .. key_hi - 1 only.
struct RowsOut {
  int key_lo = 0, key_hi = 0;
  float* partial = nullptr;  // [seq_q, value_dim + 2]: Σ p·v, then the max, then the sum
};

// Step 2 for one tile of query rows, row0 .. row0 + num_rows - 1 (num_rows <= kRowsPerTile),
// a block of keys at a time (Block), then step 3 (Finish). The tile keeps its rows' state:
// which keys each row sees, the running max and sum, the block's weights, the accumulators.
//   zero_row: [head_dim] zeros (the query of a padding row)
//   acc: [kRowsPerTile, padded_dim], accumulators of this tile alone
template <int kRowsPerTile>
struct RowTile {
  const float* q_rows[kRowsPerTile];
  int begin[kRowsPerTile], end[kRowsPerTile];  // row r sees keys begin[r] .. end[r] - 1
  // The keys any row sees (first_key .. most_visible - 1), and where limits start to apply.
  int first_key, most_visible = 0, least_visible, latest_begin = 0;
  int row0, num_rows;
  float* acc;
  // The call's softmax and dropout settings (FoldsScale, SoftmaxFactor), read once.
  bool fold_scale, dropout;
  float factor, keep_scale;
  RowState state[kRowsPerTile];
  alignas(16) float p[kRowsPerTile * kKeysPerBlock];  // scores, then weights, of a block
  float rescale[kRowsPerTile];
  uint32_t row_key[kRowsPerTile];
  // q8_0 keys in whole blocks (CodesQueries): the rows coded and the scores in integers
  // (ScoresInIntegers: ScoreQ8Tile), or the rows as q̂ for the float tiles.
  bool integer_scores;
  union {
    QueryCodes<kRowsPerTile> q_codes;
    alignas(16) float q_hat[kRowsPerTile][kMaxCodedQueryWidth];
  };

  RowTile(const HeadProblem& pb, const float* zero_row, float* tile_acc, int padded_dim,
          int first_row, int rows, const RowsOut& to)
      : first_key(pb.seq_k),
        least_visible(pb.seq_k),
        row0(first_row),
        num_rows(rows),
        acc(tile_acc),
        fold_scale(FoldsScale(pb)),
        dropout(pb.dropout.active()),
        factor(SoftmaxFactor(pb)),
        keep_scale(dropout ? pb.dropout.keep_scale() : 1.0f),
        integer_scores(ScoresInIntegers(pb)) {
    for (int r = 0; r < kRowsPerTile; ++r) {
      const bool real = r < num_rows;
      q_rows[r] = real ? pb.q + static_cast<size_t>(row0 + r) * pb.q_stride : zero_row;
      if (integer_scores) {
        q_codes.coded[r] =
            CodeQueryRow(q_rows[r], pb.head_dim, q_codes.codes[r], q_codes.scales[r]);
      } else if (real && CodesQueries(pb.kv_storage, pb.kq, pb.k_stride, pb.head_dim)) {
        RoundQueryRow(q_rows[r], pb.head_dim, q_hat[r]);
        q_rows[r] = q_hat[r];
      }
      end[r] = real ? std::min(pb.visible.KeyEnd(row0 + r), to.key_hi) : 0;
      begin[r] = real ? std::min(std::max(pb.visible.KeyBegin(row0 + r), to.key_lo), end[r]) : 0;
      if (!real) continue;
      if (begin[r] < end[r]) first_key = std::min(first_key, begin[r]);
      most_visible = std::max(most_visible, end[r]);
      least_visible = std::min(least_visible, end[r]);
      latest_begin = std::max(latest_begin, begin[r]);
    }
    if (first_key == pb.seq_k) most_visible = 0;  // no row sees a key: nothing to walk
    std::fill(acc, acc + kRowsPerTile * padded_dim, 0.0f);
    for (int r = 0; r < kRowsPerTile && dropout; ++r) row_key[r] = pb.dropout.RowKey(row0 + r);
  }

  // The first key of the first block: whole tiles (panels).
  int Start() const { return first_key / kKeysPerTile * kKeysPerTile; }

  // Steps 2a-e for the block of keys j0 .. j0 + num_keys - 1, its `tiles` panels and value rows
  // given (BlockKeys).
  template <class Keys>
  void Block(const HeadProblem& pb, Keys& keys, int j0, int num_keys, const float* v_rows,
             const float* const* panels, int tiles, bool nonfinite_values, int padded_dim) {
    // a, b. Scores of up to four 8-key tiles (one row: all at once), scaled and masked, into p.
    if (integer_scores) {
      for (int t = 0; t < tiles; ++t) {
        const int jt = j0 + t * kKeysPerTile;
        ScoreQ8Tile<kRowsPerTile>(q_codes, q_rows, pb.kq + static_cast<size_t>(jt) * pb.k_stride,
                                  pb.k_stride, std::min(kKeysPerTile, pb.seq_k - jt), pb.head_dim,
                                  p + t * kKeysPerTile, kKeysPerBlock);
      }
    } else if constexpr (kRowsPerTile == 1) {
      ScoreTilesOfOneRow(q_rows[0], panels, tiles, pb.head_dim, p);
    } else {
      for (int t = 0; t < tiles; ++t) {
        if constexpr (Keys::kChecksAfter && kRowsPerTile <= kMaxRowsScoredInRegisters) {
          if (panels[t] == nullptr) {  // InPlaceKeys::Panel
            keys.template ScoreInRegisters<kRowsPerTile>(q_rows, j0 / kKeysPerTile + t,
                                                         p + t * kKeysPerTile, kKeysPerBlock);
            continue;
          }
        }
        ScoreTile<kRowsPerTile>(q_rows, panels[t], pb.head_dim, p + t * kKeysPerTile,
                                kKeysPerBlock);
      }
    }
    for (int t = 0; t < tiles; ++t) {
      const int jt = j0 + t * kKeysPerTile;
      const int keys_in_tile = std::min(kKeysPerTile, pb.seq_k - jt);
      float* scores = p + (jt - j0);
      const bool needs_limit = jt + kKeysPerTile > least_visible || jt < latest_begin;
      for (int r = 0; r < kRowsPerTile; ++r) {
        float* row_scores = scores + r * kKeysPerBlock;
        // Rows past num_rows are padding: they see no key, mask or not.
        if (r < num_rows && !fold_scale)
          ScaleAndMaskRow(row_scores, pb.scale, pb.softcap, pb.mask, row0 + r, jt, keys_in_tile);
        if (needs_limit) BlockKeysOutside(row_scores, jt, begin[r], end[r]);
      }
    }
    // c. Online softmax over the block, the rows side by side.
    OnlineSoftmaxTile<kRowsPerTile>(p, kKeysPerBlock, tiles * 2, state, rescale, factor);
    // d. Dropout (the sums above keep every weight).
    for (int r = 0; r < num_rows && dropout; ++r) {
      DropWeights(p + r * kKeysPerBlock, tiles * kKeysPerTile, pb.dropout, row_key[r], j0,
                  keep_scale);
    }
    // e. Weighted values.
    const int v_stride = keys.value_stride;
    if constexpr (Keys::kChecksAfter) {
      float* saved = keys.ws.saved_acc.data();
      if (keys.widen_values) {
        keys.WithValueRows(num_keys, [&](const auto& rows) {
          AccumulateStoredValuesChecked<kRowsPerTile>(
              p, rescale, rows, [&] { return keys.WidenedValues(num_keys); }, num_keys,
              pb.value_dim, acc, saved, padded_dim);
        });
      } else {
        AccumulateValuesChecked<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, pb.value_dim,
                                              acc, saved, padded_dim);
      }
    } else if (nonfinite_values) {
      AccumulateValuesSkippingZeros<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, acc,
                                                  padded_dim);
    } else {
      AccumulateValues<kRowsPerTile>(p, rescale, v_rows, num_keys, v_stride, acc, padded_dim);
    }
  }

  // Step 3: each row divided by its sum into pb.out, or kept unnormalised with its state.
  void Finish(const HeadProblem& pb, int padded_dim, const RowsOut& to) const {
    for (int r = 0; r < num_rows; ++r) {
      if (to.partial != nullptr) {
        float* kept = to.partial + static_cast<size_t>(row0 + r) * (pb.value_dim + 2);
        std::copy(acc + r * padded_dim, acc + r * padded_dim + pb.value_dim, kept);
        kept[pb.value_dim] = state[r].max, kept[pb.value_dim + 1] = state[r].sum;
      } else {
        FinishRow(acc + r * padded_dim, state[r], pb.value_dim,
                  pb.out + static_cast<size_t>(row0 + r) * pb.out_stride);
      }
    }
  }
};

// Walks the blocks of keys start .. most_visible - 1, 32 at a time: for each, its value rows and
// its tiles' kᵀ panels (through `keys`: PackedKeys or InPlaceKeys), handed to
// block(j0, num_keys, v_rows, panels, tiles, nonfinite_values).
template <class Keys, class F>
void WalkBlocks(Keys& keys, int start, int most_visible, F&& block) {
  for (int j0 = start; j0 < most_visible; j0 += kKeysPerBlock) {
    const int num_keys = std::min(kKeysPerBlock, most_visible - j0);  // most_visible <= seq_k
    if constexpr (Keys::kChecksAfter) {
      keys.Touch(j0 + kTouchAhead * kKeysPerBlock, most_visible);
    }
    const float* v_rows = keys.Values(j0, num_keys);
    int tiles = 0;
    bool nonfinite_values = false;
    const float* panels[kTilesPerBlock];
    for (int jt = j0; jt < most_visible && tiles < kTilesPerBlock; jt += kKeysPerTile, ++tiles) {
      const int tile = jt / kKeysPerTile;
      if constexpr (!Keys::kChecksAfter) {
        nonfinite_values = nonfinite_values || keys.NonFinite(tile);
      }
      panels[tiles] = keys.Panel(tile);
    }
    block(j0, num_keys, v_rows, panels, tiles, nonfinite_values);
  }
}

// Steps 2 and 3's walk for one tile or more that see the same keys, start .. end - 1: each
// block's keys packed and its values read once, for every tile.
template <class Keys, class... Tiles>
void WalkTiles(const HeadProblem& pb, Keys& keys, int padded_dim, int start, int end,
               Tiles&... tiles) {
  WalkBlocks(keys, start, end,
             [&](int j0, int n, const float* v_rows, const float* const* panels, int count,
                 bool nonfinite) {
               (tiles.Block(pb, keys, j0, n, v_rows, panels, count, nonfinite, padded_dim), ...);
             });
}

// Steps 2 and 3 for the query rows row0 .. row0 + num_rows - 1 (num_rows <= kRowsPerTile).
//   acc: [kRowsPerTile, padded_dim], this thread's accumulators
template <int kRowsPerTile, class Keys>
void QueryBlock(const HeadProblem& pb, Keys& keys, const float* zero_row, float* acc,
                int padded_dim, int row0, int num_rows, const RowsOut& to) {
  RowTile<kRowsPerTile> tile(pb, zero_row, acc, padded_dim, row0, num_rows, to);
  WalkTiles(pb, keys, padded_dim, tile.Start(), tile.most_visible, tile);
  tile.Finish(pb, padded_dim, to);
}

// Steps 2 and 3 for two tiles of rows, 0 .. kRowsA - 1 and kRowsA .. num_rows - 1 (a
// grouped-query decode step taller than one tile): when both see the same keys (as a step's
// rows do), each block's keys are packed and its values read once for both tiles; else each
// tile walks its own keys (the blocks, so the bits, it has alone).
//   acc: two slots of AccSlotFloats(padded_dim)
template <int kRowsA, int kRowsB, class Keys>
void TwoTilesSharingKeys(const HeadProblem& pb, Keys& keys, const float* zero_row, float* acc,
                         int padded_dim, int num_rows, const RowsOut& to) {
  RowTile<kRowsA> a(pb, zero_row, acc, padded_dim, 0, kRowsA, to);
  RowTile<kRowsB> b(pb, zero_row, acc + AccSlotFloats(padded_dim), padded_dim, kRowsA,
                    num_rows - kRowsA, to);
  if (a.Start() == b.Start() && a.most_visible == b.most_visible) {
    WalkTiles(pb, keys, padded_dim, a.Start(), a.most_visible, a, b);
  } else {
    WalkTiles(pb, keys, padded_dim, a.Start(), a.most_visible, a);
    WalkTiles(pb, keys, padded_dim, b.Start(), b.most_visible, b);
  }
  a.Finish(pb, padded_dim, to);
  b.Finish(pb, padded_dim, to);
}

// Flash-decoding's merge: each row's partials over consecutive key ranges, in order, into
// its output: weights 2^(factor·(max_p − max)) bring them to the common max (a range whose
// weight underflows to 0 is skipped, as the kernel skips a zero weight); a poisoned (NaN)
// sum poisons the row; a row no range saw a key of gets zeros.
//   partials: [parts, seq_q, value_dim + 2]
void MergePartialsImpl(const HeadProblem& pb, const float* partials, int parts) {
  const int stride = pb.value_dim + 2;
  const float factor = SoftmaxFactor(pb);
  for (int r = 0; r < pb.seq_q; ++r) {
    float* out = pb.out + static_cast<size_t>(r) * pb.out_stride;
    float max = -std::numeric_limits<float>::infinity();
    bool poisoned = false;
    for (int p = 0; p < parts; ++p) {
      const float* kept = partials + (static_cast<size_t>(p) * pb.seq_q + r) * stride;
      max = std::max(max, kept[pb.value_dim]);
      poisoned = poisoned || std::isnan(kept[pb.value_dim + 1]);
    }
    std::fill(out, out + pb.value_dim, 0.0f);
    if (poisoned) {
      std::fill(out, out + pb.value_dim, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    if (max == -std::numeric_limits<float>::infinity()) continue;  // no key seen
    float sum = 0.0f;
    for (int p = 0; p < parts; ++p) {
      const float* kept = partials + (static_cast<size_t>(p) * pb.seq_q + r) * stride;
      if (kept[pb.value_dim + 1] == 0.0f) continue;  // this range saw no key
      const float w = std::exp2((kept[pb.value_dim] - max) * factor);
      if (w == 0.0f) continue;  // as the kernel skips a zero weight (a NaN value stays out)
      sum += kept[pb.value_dim + 1] * w;
      for (int c = 0; c < pb.value_dim; ++c) out[c] += kept[c] * w;
    }
    const float inv = 1.0f / sum;
    for (int c = 0; c < pb.value_dim; ++c) out[c] *= inv;
  }
}

// The sizes step 0 of PrepareHead asks for, at most, with `slots` output accumulators.
uint64_t FusedWorkspaceBytesImpl(int seq_k, int head_dim, int value_dim, int slots) {
  const uint64_t tiles = RoundUp(seq_k, kKeysPerTile) / kKeysPerTile;
  const uint64_t padded_dim = RoundUp(value_dim, kLanes);
  const uint64_t value_rows = std::max(seq_k, kKeysPerBlock);  // a head, or one row's block
  const uint64_t floats = (tiles + kTilesPerBlock) * head_dim * kKeysPerTile +
                          (value_rows + kMaxTileRows) * padded_dim +
                          AccSlotFloats(static_cast<int>(padded_dim)) * slots + 2 * head_dim;
  return sizeof(float) * floats + tiles;
}

// The keys some query row sees, in whole tiles: tiles first .. last - 1. The rule's range
// only moves forward with the row, so the first row's start and the last row's end bound it.
struct KeyTiles {
  int first = 0, last = 0;
};
KeyTiles VisibleKeyTiles(const HeadProblem& pb) {
  const int end = pb.visible.KeyEnd(pb.seq_q - 1);
  const int begin = std::min(pb.visible.KeyBegin(0), end);
  return {begin / kKeysPerTile, RoundUp(end, kKeysPerTile) / kKeysPerTile};
}

// Whether the values are read from the workspace's copy (v_padded): when they are strided (a
// head of a wider projection: rows 2 KiB apart alias in L1 and cost MultiHeadAttention
// ~30%), when value_dim is not a multiple of 4, or when they are half-stored (widened).
bool CopiesValues(const HeadProblem& pb, int padded_dim) {
  return WidensOrPadsValues(pb, padded_dim) || pb.v_stride != padded_dim;
}

// Where a head's first key (or value) is stored, as an identity: the workspace skips
// repacking the keys and values it holds already. (q8_0 element i is named by blocks + i,
// which lies within its buffer: a q8_0 element takes more than a byte.)
const void* StoredAt(KvStorage s, const float* f32, const uint16_t* f16, Q8Elements q8) {
  switch (s) {
    case KvStorage::kFloat32:
      return f32;
    case KvStorage::kQ8_0:
      return q8.blocks + q8.index;
    default:
      return f16;
  }
}

// Steps 0 and 1, on the calling thread: scratch, k packed into panels, v flagged (and
// copied), for the keys some row sees. Returns false (with the cache marked empty) when the
// scratch cannot grow.
bool PrepareHead(const HeadProblem& pb, FusedWorkspace& ws, int slots) {
  const int num_tiles = RoundUp(pb.seq_k, kKeysPerTile) / kKeysPerTile;
  const int padded_dim = RoundUp(pb.value_dim, kLanes);
  const KeyTiles range = VisibleKeyTiles(pb);
  const int key0 = range.first * kKeysPerTile;
  const int keys = std::max(0, std::min(pb.seq_k, range.last * kKeysPerTile) - key0);
  const void* k_source = StoredAt(pb.kv_storage, pb.k, pb.k16, pb.kq);
  const void* v_source = StoredAt(pb.kv_storage, pb.v, pb.v16, pb.vq);
  // 0. Scratch; a failure leaves the cache marked empty and nothing written.
  const bool copy_v = CopiesValues(pb, padded_dim);
  const bool same_range =
      ws.packed_tiles_first == range.first && ws.packed_tiles_last == range.last;
  // (q8_0 keys scored in integers are read where they lie: no panels.)
  const bool repack_k = !ScoresInIntegers(pb) && (ws.packed_k != k_source || !same_range);
  const bool redo_v = ws.packed_v != v_source || !same_range;
  if ((repack_k &&
       !ws.k_panels.Resize(static_cast<uint64_t>(num_tiles) * pb.head_dim * kKeysPerTile)) ||
      (redo_v && !ws.v_nonfinite.Resize(num_tiles)) ||
      (redo_v && copy_v &&
       !ws.v_padded.Assign(static_cast<uint64_t>(pb.seq_k) * padded_dim, 0.0f)) ||
      !ws.acc.Resize(AccSlotFloats(padded_dim) * slots) || !ws.zero_row.Assign(pb.head_dim, 0.0f) ||
      !ws.key_rows.Resize(KeyRowsFloats(pb.head_dim))) {
    ws.packed_k = ws.packed_v = nullptr;
    return false;
  }
  // Step 1 (skipped when consecutive heads share k, as broadcast k does).
  if (repack_k) {
    float* panels = ws.k_panels.data() + static_cast<size_t>(key0) * pb.head_dim;
    const size_t from = static_cast<size_t>(key0) * pb.k_stride;
    WithStoredKeys(pb, [&](auto k) {
      PackKeyPanels(k + from, pb.k_stride, keys, pb.head_dim, pb.kv_storage, ws.key_rows.data(),
                    panels);
    });
    ws.packed_k = k_source;
  }
  // Values (skipped, like the panels, when consecutive heads share v): copied when
  // CopiesValues says so, then the tiles that hold NaN/Inf flagged (in what the tiles read).
  if (redo_v) {
    if (copy_v) {
      CopyValueRows(pb, key0, keys, padded_dim,
                    ws.v_padded.data() + static_cast<size_t>(key0) * padded_dim);
    }
    const float* v = copy_v ? ws.v_padded.data() : pb.v;
    const int v_stride = copy_v ? padded_dim : pb.v_stride;
    FlagNonFiniteValues(v + static_cast<size_t>(key0) * v_stride, v_stride, keys, pb.value_dim,
                        ws.v_nonfinite.data() + range.first);
    ws.packed_v = v_source;
  }
  ws.packed_tiles_first = range.first;
  ws.packed_tiles_last = range.last;
  return true;
}

// Steps 2 and 3 with R-row tiles, spread over the threads by tasks of 4R query rows (a
// multiple of the tile, so every row is computed in the same tile whatever the thread count:
// the same bits); each slot has its accumulators.
template <int kRowsPerTile>
void RunQueryBlocks(const HeadProblem& pb, FusedWorkspace& ws, const float* v_base, int v_stride,
                    int padded_dim) {
  constexpr int kRowsPerTask = 4 * kRowsPerTile;
  const PackedKeys keys{ws, pb.head_dim, v_base, v_stride};
  auto rows = [&](int task, int slot) {
    float* acc = ws.acc.data() + static_cast<size_t>(slot) * AccSlotFloats(padded_dim);
    const int end = std::min(pb.seq_q, (task + 1) * kRowsPerTask);
    for (int row0 = task * kRowsPerTask; row0 < end; row0 += kRowsPerTile) {
      QueryBlock<kRowsPerTile>(pb, keys, ws.zero_row.data(), acc, padded_dim, row0,
                               std::min(kRowsPerTile, pb.seq_q - row0), RowsOut{0, pb.seq_k});
    }
  };
  const uint64_t work = 2ull * pb.seq_q * pb.seq_k * (pb.head_dim + pb.value_dim);
  ParallelForEach(RoundUp(pb.seq_q, kRowsPerTask) / kRowsPerTask, work, rows);
}

// Step 0 for a call of `tiles` (one or two) tiles of `rows` rows (InPlaceKeys): scratch for a
// block's key panels, the tiles' accumulators, the saved accumulators and, when the values are widened or padded, one block's
// values. The packed head that PrepareHead may have left is forgotten (v_padded now holds a
// block).
bool PrepareInPlace(const HeadProblem& pb, FusedWorkspace& ws, int tiles, int rows, int padded_dim,
                    bool copy_v) {
  ws.packed_k = ws.packed_v = nullptr;
  ws.packed_tiles_first = ws.packed_tiles_last = 0;
  return ws.tile_panel.Resize(uint64_t{kTilesPerBlock} * pb.head_dim * kKeysPerTile) &&
         ws.key_rows.Resize(KeyRowsFloats(pb.head_dim)) && ws.zero_row.Assign(pb.head_dim, 0.0f) &&
         ws.acc.Resize(AccSlotFloats(padded_dim) * tiles) &&
         ws.saved_acc.Resize(static_cast<uint64_t>(rows) * padded_dim) &&
         (!copy_v || ws.v_padded.Assign(uint64_t{kKeysPerBlock} * padded_dim, 0.0f));
}

template <int N>
using Rows = std::integral_constant<int, N>;

// The tiles a call of `rows` in-place rows (1 .. InPlaceRowsMax()) runs in, as f(A, B): one
// tile of exactly A rows (B = 0) up to 4, or two of A and B rows. A row's arithmetic is the
// same in a tile of any height (TileRows), so the bits do not depend on the split; a tile as
// tall as its rows does no work for padding rows. A grouped-query decode step's 3 query heads
// (SmolLM2) had run in a 6-row tile in the browser, half its products for padding rows.
template <class F>
void WithInPlaceTiles(int rows, F&& f) {
  const bool six = kMaxTileRows == 6 && TileRows() == 6;
  switch (rows) {
    case 1:
      return f(Rows<1>(), Rows<0>());
    case 2:
      return f(Rows<2>(), Rows<0>());
    case 3:
      return f(Rows<3>(), Rows<0>());
    case 4:
      return f(Rows<4>(), Rows<0>());
    case 5:
      return f(Rows<3>(), Rows<2>());
    case 6:
      return six ? f(Rows<kMaxTileRows>(), Rows<0>()) : f(Rows<3>(), Rows<3>());
    case 7:
      return f(Rows<4>(), Rows<3>());
    case 8:
      return f(Rows<4>(), Rows<4>());
    case 9:
      return f(Rows<kMaxTileRows>(), Rows<3>());
    case 10:
      return f(Rows<kMaxTileRows>(), Rows<4>());
    default:  // 11 or 12 rows: two 6-row tiles (only the relaxed build has them)
      return f(Rows<kMaxTileRows>(), Rows<kMaxTileRows>());
  }
}

// Steps 2 and 3 for a call of at most InPlaceRowsMax() rows, on this thread, keys and values
// read in place: one tile as tall as its rows, or two sharing each block's keys
// (WithInPlaceTiles).
Status InPlaceRows(const HeadProblem& pb, FusedWorkspace& ws, int padded_dim, const RowsOut& to) {
  const bool copy_v = WidensOrPadsValues(pb, padded_dim);
  Status status = Status::kOk;
  WithInPlaceTiles(pb.seq_q, [&](auto rows_a, auto rows_b) {
    const int tiles = rows_b() > 0 ? 2 : 1;
    if (!PrepareInPlace(pb, ws, tiles, std::max(rows_a(), rows_b()), padded_dim, copy_v)) {
      status = Status::kOutOfMemory;
      return;
    }
    InPlaceKeys keys{pb,
                     ws,
                     padded_dim,
                     copy_v,
                     WidensValuesInRegisters(pb, padded_dim),
                     ScoresKeysInRegisters(pb, tiles, std::max(rows_a(), rows_b())),
                     ScoresInIntegers(pb)};
    if constexpr (rows_b() > 0) {
      TwoTilesSharingKeys<rows_a(), rows_b()>(pb, keys, ws.zero_row.data(), ws.acc.data(),
                                              padded_dim, pb.seq_q, to);
    } else {
      QueryBlock<rows_a()>(pb, keys, ws.zero_row.data(), ws.acc.data(), padded_dim, 0, pb.seq_q,
                           to);
    }
  });
  return status;
}

Status FusedAttentionImpl(const HeadProblem& pb, FusedWorkspace& ws) {
  const int padded_dim = RoundUp(pb.value_dim, kLanes);
  if (pb.seq_q <= InPlaceRowsMax()) return InPlaceRows(pb, ws, padded_dim, RowsOut{0, pb.seq_k});
  const int slots = ThreadCount();
  if (!PrepareHead(pb, ws, slots)) return Status::kOutOfMemory;
  const bool copy_v = CopiesValues(pb, padded_dim);
  const float* v_base = copy_v ? ws.v_padded.data() : pb.v;
  const int v_stride = copy_v ? padded_dim : pb.v_stride;
  WithTileRows([&](auto rows) { RunQueryBlocks<rows()>(pb, ws, v_base, v_stride, padded_dim); });
  return Status::kOk;
}

Status FusedAttentionPartialImpl(const HeadProblem& pb, FusedWorkspace& ws, int key_lo, int key_hi,
                                 float* partial) {
  return InPlaceRows(pb, ws, RoundUp(pb.value_dim, kLanes), RowsOut{key_lo, key_hi, partial});
}

bool ReserveFusedWorkspaceImpl(FusedWorkspace& ws, int seq_k, int head_dim, int value_dim,
                               int slots) {
  const uint64_t num_tiles = RoundUp(seq_k, kKeysPerTile) / kKeysPerTile;
  const uint64_t padded_dim = RoundUp(value_dim, kLanes);
  const uint64_t value_rows = std::max(seq_k, kKeysPerBlock);  // a head, or one row's block
  const bool ok = ws.k_panels.Resize(num_tiles * head_dim * kKeysPerTile) &&
                  ws.tile_panel.Resize(uint64_t{kTilesPerBlock} * head_dim * kKeysPerTile) &&
                  ws.v_nonfinite.Resize(num_tiles) && ws.v_padded.Resize(value_rows * padded_dim) &&
                  ws.acc.Resize(AccSlotFloats(static_cast<int>(padded_dim)) * slots) &&
                  ws.zero_row.Resize(head_dim) && ws.key_rows.Resize(KeyRowsFloats(head_dim)) &&
                  ws.saved_acc.Resize(uint64_t{kMaxTileRows} * padded_dim);
  ws.packed_k = ws.packed_v = nullptr;
  return ok;
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

Status FusedAttention(const HeadProblem& problem, FusedWorkspace& workspace) {
  return HWY_STATIC_DISPATCH(FusedAttentionImpl)(problem, workspace);
}

Status FusedAttentionPartial(const HeadProblem& problem, FusedWorkspace& workspace, int key_lo,
                             int key_hi, float* partial) {
  return HWY_STATIC_DISPATCH(FusedAttentionPartialImpl)(problem, workspace, key_lo, key_hi,
                                                        partial);
}

void MergePartials(const HeadProblem& problem, const float* partials, int parts) {
  HWY_STATIC_DISPATCH(MergePartialsImpl)(problem, partials, parts);
}

uint64_t FusedWorkspaceBytes(int seq_k, int head_dim, int value_dim, int slots) {
  return HWY_STATIC_DISPATCH(FusedWorkspaceBytesImpl)(seq_k, head_dim, value_dim, slots);
}

bool ReserveFusedWorkspace(FusedWorkspace& workspace, int seq_k, int head_dim, int value_dim,
                           int slots) {
  return HWY_STATIC_DISPATCH(ReserveFusedWorkspaceImpl)(workspace, seq_k, head_dim, value_dim,
                                                        slots);
}

}  // namespace attn
