// libFuzzer harness for the C++ core (clang, -fsanitize=fuzzer,address,undefined).
// Built by CMake when ATTN_FUZZ=ON (see CMakeLists.txt); run by tests/native-fuzz.test.js.
//
// Each input is decoded into one small problem for one entry point (the first byte picks
// which): RunAttention (fused and step-by-step paths, with or without a softcap),
// MultiHeadForward, the positional encodings, LayerNorm, FeedForward, AddInto, SetPool,
// LaplacianEncoding. The problem runs through the core and is checked against a
// double-precision reference written here from the definitions (none of the core's code is
// reused). On a mismatch the harness prints the case and aborts, so libFuzzer saves the input
// as a crash.
//
// What is checked, besides ASan/UBSan on every access:
//   - values within a tolerance scaled to magnitude: each bound is the worst-case float
//     error of the computation (γ(n) = n·ε per n-term sum, the softmax's sensitivity to its
//     scores), so a wrong index or a lost term shows up, rounding does not;
//   - outputs only where the reference is well defined: a row whose visible scores hold NaN
//     or +Infinity must be all NaN (as documented), a column fed by a NaN/Infinity value row
//     is not compared;
//   - rows with no visible key give exact zeros (output and weights); blocked keys get a
//     weight of exactly 0, and the NaN/Infinity they hold never reaches the output;
//   - buffers: every element the core should write is written, nothing else is (sentinels
//     around and between the outputs; gaps between input rows hold NaN, so a read of a gap
//     poisons the result); exact-size heap buffers, so ASan sees any overrun;
//   - statuses: kOk for valid inputs; one corrupted field gives its documented status and
//     writes nothing;
//   - sliding windows (one side, both, INT_MAX keys) against the visible-key rule written
//     here, and dropout against the hash written here from its definition: outputs, and the
//     dropped weights of the step-by-step path (0, or the weight's interval times 1/(1 - p));
//   - the softcap (Gemma 2, ONNX Attention): the capped scores softcap·tanh(s / softcap),
//     checked as a stage and through the weights and outputs of both paths, with a bound
//     derived for the core's float computation of them (Softcap).
// Dimensions stay small (one execution takes microseconds), but seq_k goes to 40 so that the
// fused kernel's online softmax crosses its 32-key blocks, and seq_q to 12 (4-row tiles).
//
// Problems this harness found, now fixed in the core, each still generated here:
//   1. fused path: an additive mask beyond ±2.36e38 (e.g. -FLT_MAX, torch.finfo.min) overflowed
//      in the base-2 conversion (a row of them gave zeros, not uniform weights). The kernel
//      first clamped such masks; it now adds masks to the scaled scores exactly, as the
//      step-by-step path does (no base-2 conversion before the row max is subtracted), so
//      every huge value, -3e38 and -FLT_MAX alike, is generated as it is;
//   2. VisibleKeyRule::VisibleKeys overflowed int for causal_offset near INT_MAX;
//   3. MultiHeadForward with seq_k == 0 returned kOutOfMemory (Buffer::Resize(0) gave null);
//   4. RunAttention with seq_k == 0 and null k, v offset a null pointer.
//   5. FeedForward's ReLU turned NaN into 0 in its SIMD lanes only (hn::Max(x, 0) is maxps /
//      f32x4.pmax), so a NaN row's output depended on the batch; now hn::Max(hn::Zero(d), x).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "attention.h"
#include "block.h"
#include "multi_head.h"
#include "positional.h"
#include "status.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr double kEps = std::numeric_limits<float>::epsilon();  // 2^-23, float's ε
constexpr double kTiny = 1e-37;          // absolute floor of every tolerance (underflow)
constexpr double kSubnormal = 0x1p-149;  // float's smallest subnormal: the spacing below 2^-126
// A sum whose magnitude reaches this rounds to ±Infinity in float (round to nearest):
// FLT_MAX plus half its ulp.
constexpr double kFloatOverflow = 0x1p128 - 0x1p103;

// γ(n): relative error bound of a float sum or dot product of n terms, in any order.
double Gamma(int n) { return n * kEps; }

// ---------------------------------------------------------------------------------------------
// Failure reporting: each entry point registers how to print its case; Fail prints the
// message and the case, then aborts (libFuzzer records the input as a crash).

std::function<void()> print_case;

[[noreturn]] void Fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void Fail(const char* format, ...) {
  std::fprintf(stderr, "\nfuzz_core: MISMATCH: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  if (print_case) print_case();
  std::fflush(stderr);
  std::abort();
}

void PrintFloats(const char* name, const float* data, size_t count, int cols) {
  std::fprintf(stderr, "  %s (%zu):", name, count);
  for (size_t i = 0; i < count; ++i) {
    if (cols > 0 && i % cols == 0) std::fprintf(stderr, "\n   ");
    std::fprintf(stderr, " %.9g", data[i]);
  }
  std::fprintf(stderr, "\n");
}

void PrintInts(const char* name, const int32_t* data, size_t count) {
  std::fprintf(stderr, "  %s (%zu):", name, count);
  for (size_t i = 0; i < count; ++i) std::fprintf(stderr, " %d", data[i]);
  std::fprintf(stderr, "\n");
}

const char* StatusName(attn::Status s) { return attn::StatusMessage(s); }

// Calls a core function that returns void or attn::Status (signatures may change from one
// to the other); a status other than kOk is a failure, the inputs being valid.
template <typename Call>
void MustSucceed(const char* what, Call&& call) {
  if constexpr (std::is_same_v<decltype(call()), attn::Status>) {
    const attn::Status status = call();
    if (status != attn::Status::kOk) {
      Fail("%s returned status %d (%s) for a valid input", what, static_cast<int>(status),
           StatusName(status));
    }
  } else {
    call();
  }
}

void ExpectStatus(const char* what, attn::Status got, attn::Status want) {
  if (got != want) {
    Fail("%s returned status %d (%s), expected %d (%s)", what, static_cast<int>(got),
         StatusName(got), static_cast<int>(want), StatusName(want));
  }
}

// |got - want| <= tol, with got finite.
void ExpectClose(const char* what, size_t index, float got, double want, double tol) {
  if (!(std::isfinite(got) && std::fabs(got - want) <= tol)) {
    Fail("%s[%zu] = %.9g, reference %.17g, |diff| %.3g > tolerance %.3g", what, index, got, want,
         std::fabs(got - want), tol);
  }
}

// Same IEEE class and sign for a non-finite reference value.
void ExpectSameNonFinite(const char* what, size_t index, float got, double want) {
  const bool same = std::isnan(want) ? std::isnan(got) : got == want;
  if (!same) Fail("%s[%zu] = %.9g, reference %.17g", what, index, got, want);
}

// Output sentinel: a signalling-NaN bit pattern that no computation produces.
constexpr uint32_t kSentinelBits = 0x7fa5a5a5u;
float Sentinel() {
  float f;
  std::memcpy(&f, &kSentinelBits, sizeof f);
  return f;
}
bool IsSentinel(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof f);
  return bits == kSentinelBits;
}

// Elements of `buffer` that the core must not write (owned[i] false) still hold the sentinel.
void ExpectUntouched(const char* what, const std::vector<float>& buffer,
                     const std::vector<uint8_t>& owned) {
  for (size_t i = 0; i < buffer.size(); ++i) {
    if (!owned[i] && !IsSentinel(buffer[i])) {
      Fail("%s[%zu] = %.9g written, outside the output", what, i, buffer[i]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Decoder: bytes of the input, then (once they run out) a fixed pseudo-random stream, so short
// inputs still give varied values and a mutation of the prefix does not reshuffle the tail.

class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size)
      : p_(data), end_(data + size), state_(0x9e3779b97f4a7c15ull ^ size) {}

  uint8_t Byte() {
    if (p_ < end_) return *p_++;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint8_t>(state_ >> 32);
  }
  // Uniform-ish in [lo, hi] (hi - lo < 256).
  int Int(int lo, int hi) { return lo + Byte() % (hi - lo + 1); }
  bool Bool() { return (Byte() & 1) != 0; }
  // True with probability about 1/n.
  bool OneIn(int n) { return Byte() % n == 0; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t state_;
};

// How a tensor's values are decoded (one byte per value).
enum class Values {
  kGrid,     // multiples of 1/32 in [-4, 4): exact in float
  kWide,     // multiples of 1/16 in [-4, 4), and magnitudes from 1e-40 (subnormal) to 1e6
  kSpecial,  // kWide plus NaN, +Infinity, -Infinity
};

Values DecodeValues(Decoder& in) {
  const int b = in.Byte() % 10;
  return b < 6 ? Values::kGrid : b < 8 ? Values::kWide : Values::kSpecial;
}

float DecodeValue(Decoder& in, Values kind) {
  static const float kMagnitudes[] = {
      0.0f, 1e-40f, 1.17549435e-38f, 1e-30f, 1e-10f, 1e-5f, 1e-3f, 0.1f, 1.0f / 3, 0.7f, 1.0f,
      1.5f, 3.0f,   10.0f,           100.0f, 1e3f,   1e4f,  1e5f,  1e6f};
  static const float kSpecials[] = {kNaN, kInf, -kInf, -0.0f};
  const int b = in.Byte();
  if (kind == Values::kGrid) return (b - 128) / 32.0f;
  if (b < 128) return (b - 64) / 16.0f;
  if (kind == Values::kSpecial && b >= 240) return kSpecials[b % 4];
  const float m = kMagnitudes[(b >> 1) % (sizeof kMagnitudes / sizeof kMagnitudes[0])];
  return (b & 1) ? -m : m;
}

// Additive mask values. -Infinity blocks; large negative values are the other common way.
enum class MaskValues { kZeroOrBlocked, kGrid, kWide };

MaskValues DecodeMaskValues(Decoder& in) {
  const int b = in.Byte() % 3;
  return b == 0 ? MaskValues::kZeroOrBlocked : b == 1 ? MaskValues::kGrid : MaskValues::kWide;
}

float DecodeMaskValue(Decoder& in, MaskValues kind, bool allow_nonfinite) {
  static const float kWide[] = {0.0f,  -1e4f, -1e9f, -1e30f, -1e38f, -kFloatMax, -3e38f, 1e4f,
                                1e30f, 3e38f, kNaN,  kInf,   -0.0f,  -1e-40f,    100.0f, -100.0f};
  const int b = in.Byte();
  if (kind == MaskValues::kZeroOrBlocked) return b < 64 ? -kInf : 0.0f;
  if (b < 48) return -kInf;
  if (kind == MaskValues::kGrid || b < 208) return (b - 128) / 8.0f;
  float m = kWide[(b - 208) % 16];
  if (!allow_nonfinite && !std::isfinite(m)) m = -1e9f;
  return m;
}

// Boolean mask byte: 0 blocks, any other value allows (not only 1).
uint8_t DecodeAllowed(Decoder& in) {
  const uint8_t b = in.Byte();
  return (b & 3) == 0 ? 0 : b;
}

// A causal offset: top-left (0), bottom-right (seq_k - seq_q), or anything nearby.
int DecodeCausalOffset(Decoder& in, int seq_q, int seq_k) {
  switch (in.Byte() % 4) {
    case 0:
      return 0;
    case 1:
      return seq_k - seq_q;
    case 2:
      return in.Int(-4, seq_k + 4);
    default:
      // Far offsets: every key visible, or none (INT_MAX: problem 2 above).
      if (in.Bool()) return in.Bool() ? std::numeric_limits<int>::max() : 1 << 30;
      return in.Bool() ? std::numeric_limits<int>::min() : -(1 << 30);
  }
}

// ---------------------------------------------------------------------------------------------
// Reference attention for one head, in double, from the definition:
//   capped[i][j] = softcap·tanh(scale·(q[i]·k[j]) / softcap) with a softcap > 0, else
//                  scale·(q[i]·k[j])
//   masked[i][j] = -Inf if key j is hidden (causal rule, key limit) or masked (-Inf or
//                  boolean 0), else capped[i][j] + mask[i][j] (±Inf where float overflows)
//   weights[i] = softmax(masked[i]) (zeros if every entry is -Inf; NaN if one is NaN/+Inf)
//   out[i] = Σ_j weights[i][j]·v[j] (a zero weight contributes nothing)
// With error bounds eq, ek, ev on the inputs (the projections of MultiHeadForward), the
// tolerances include their effect.

enum class RowKind { kValues, kZeros, kPoisoned };

struct RefHead {
  // Inputs.   q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]
  //   eq, ek, ev: same shapes as q, k, v, or empty (exact inputs)
  //   mask: [seq_q, seq_k] additive (a boolean mask as 0 / -Inf), or empty
  //   visible: [seq_q, seq_k] 1 where the causal rule and the key limit let key j through
  int seq_q = 0, seq_k = 0, head_dim = 0, value_dim = 0;
  double scale = 1;
  double softcap = 0;  // > 0: scores capped (Softcap below) before the mask
  std::vector<double> q, k, v, eq, ek, ev, mask;
  std::vector<uint8_t> visible;
  //   keep: [seq_q, seq_k] what dropout multiplies each weight by (0 or 1 / (1 - p)), or
  //   empty (no dropout)
  std::vector<double> keep;

  // Results.   row_kind: [seq_q]
  //   raw, scaled, capped, masked (+ *_tol), weights (+ the interval [lo, hi] of a right
  //   float weight): [seq_q, seq_k]
  //   out, out_tol, lo, hi: [seq_q, value_dim]; out_defined: where the reference is defined;
  //   lo/hi: the convex hull of the value rows of the finite visible keys, widened by rounding
  std::vector<RowKind> row_kind;
  std::vector<double> raw, raw_tol, scaled, scaled_tol, capped, capped_tol, masked, masked_tol;
  std::vector<double> weights, weights_lo, weights_hi;
  std::vector<double> out, out_tol, lo, hi;  // lo/hi: ±inf with dropout (no convex hull)
  std::vector<uint8_t> out_defined;
  std::vector<uint8_t> blocked;  // [seq_q, seq_k]
};

// A capped score c·tanh(s / c) (c = softcap > 0) of the scaled score s, and a bound on the
// error of the float value the core computes, fl(c·Tanh(fl(ŝ·fl(1/c)))), where ŝ is the float
// scaled score, |ŝ - s| <= e:
//   1. the argument: tanh is 1-Lipschitz, so c·tanh(x / c) moves by at most c·|Δx| for an
//      error Δx in x = ŝ / c. Scaled back by c, that is e, plus the two roundings of fl(1/c)
//      and of the product (relative ε/2 each: ε·(|s| + e), taken twice), plus, when 1/c or
//      the product is subnormal, their absolute error (at most 2^-150 each: c·2^-149·(|s| + e)
//      and c·2^-149 with margin). Both values lie in [-c, c], so this part is at most 2c;
//   2. tanh itself: Highway's Tanh is within 4 ulp (std::tanh, in the scalar tail of the
//      step-by-step path, is closer), that is 4ε·|tanh| for a normal result and 4·2^-149 for
//      a subnormal one; with c·|tanh| <= |c·tanh(s / c)| + part 1, and the product by c (one
//      more rounding, ε/2 relative), at most 5ε·(|capped| + part 1) + 8·2^-149·c.
// A non-finite ŝ (an Infinity or a NaN in q or k; no finite score overflows here) is exact:
// ±Infinity gives tanh = ±1 in float too, so exactly ±c; NaN stays NaN.
struct Capped {
  double value;
  double tol;
};

Capped Softcap(double s, double e, double c) {
  if (!std::isfinite(s)) return {std::isnan(s) ? s : std::copysign(c, s), 0.0};
  const double value = c * std::tanh(s / c);
  const double moved =
      std::min(e + 2 * kEps * (std::fabs(s) + e) + kSubnormal * c * (std::fabs(s) + e + 1), 2 * c);
  return {value, moved + 5 * kEps * (std::fabs(value) + moved) + 8 * kSubnormal * c + kTiny};
}

// Row i of the reference: scores, weights and output, with their error bounds.
void SolveRow(RefHead& h, int i) {
  const int n = h.seq_k;
  const size_t row = static_cast<size_t>(i) * n;
  // 1. Scores. delta[j] bounds the float error of a finite visible score: its terms'
  //    rounding (γ of their magnitude) and the inputs' own errors.
  std::vector<double> delta(n, 0.0);
  bool poisoned = false;
  double zmax = -HUGE_VAL;
  for (int j = 0; j < n; ++j) {
    double dot = 0, abs_dot = 0, err = 0;
    for (int d = 0; d < h.head_dim; ++d) {
      const double a = h.q[static_cast<size_t>(i) * h.head_dim + d];
      const double b = h.k[static_cast<size_t>(j) * h.head_dim + d];
      dot += a * b;
      abs_dot += std::fabs(a) * std::fabs(b);
      if (!h.eq.empty()) {
        const double ea = h.eq[static_cast<size_t>(i) * h.head_dim + d];
        const double eb = h.ek[static_cast<size_t>(j) * h.head_dim + d];
        err += std::fabs(a) * eb + ea * std::fabs(b) + ea * eb;
      }
    }
    const double m = h.mask.empty() ? 0.0 : h.mask[row + j];
    const size_t at = row + j;
    h.raw[at] = dot;
    h.raw_tol[at] = Gamma(h.head_dim + 2) * abs_dot + kTiny;
    h.scaled[at] = h.scale * dot;
    h.scaled_tol[at] = std::fabs(h.scale) * Gamma(h.head_dim + 3) * abs_dot + kTiny;
    h.blocked[at] = !h.visible[at] || m == -HUGE_VAL;
    if (h.softcap > 0) {
      // The capped score from the scaled one (its error: the dot product's rounding and the
      // inputs' own errors), then the mask: one more rounding of the sum.
      const Capped c =
          Softcap(h.scale * dot, h.scaled_tol[at] + std::fabs(h.scale) * err, h.softcap);
      h.capped[at] = c.value;
      h.capped_tol[at] = c.tol;
      double z = c.value + m;
      if (std::fabs(z) >= kFloatOverflow) z = std::copysign(HUGE_VAL, z);  // ±c + a huge mask
      h.masked[at] = h.blocked[at] ? -HUGE_VAL : z;
      h.masked_tol[at] = c.tol + Gamma(2) * (std::fabs(c.value) + std::fabs(m)) + kTiny;
      delta[j] = c.tol + Gamma(4) * (std::fabs(c.value) + std::fabs(m));
    } else {
      h.capped[at] = h.scaled[at];
      h.capped_tol[at] = h.scaled_tol[at];
      h.masked[at] = h.blocked[at] ? -HUGE_VAL : h.scale * dot + m;
      h.masked_tol[at] =
          Gamma(h.head_dim + 4) * (std::fabs(h.scale) * abs_dot + std::fabs(m)) + kTiny;
      delta[j] = Gamma(h.head_dim + 8) * (std::fabs(h.scale) * abs_dot + std::fabs(m)) +
                 std::fabs(h.scale) * err;
    }
    if (h.blocked[at]) continue;
    const double z = h.masked[at];
    if (std::isnan(z) || z == HUGE_VAL) poisoned = true;
    if (std::isfinite(z)) zmax = std::max(zmax, z);
  }
  h.row_kind[i] = poisoned            ? RowKind::kPoisoned
                  : zmax == -HUGE_VAL ? RowKind::kZeros
                                      : RowKind::kValues;
  // The keys that carry weight: visible, with a finite score.
  std::vector<int> keys;
  for (int j = 0; h.row_kind[i] == RowKind::kValues && j < n; ++j) {
    if (!h.blocked[row + j] && std::isfinite(h.masked[row + j])) keys.push_back(j);
  }
  // The shift by the row's max is common to every key: its error cancels except for the
  // subtraction's own rounding, 2ε·|max| per key.
  for (int j : keys) delta[j] += 2 * kEps * std::fabs(zmax);
  // 2. Weights, and the interval each float weight must lie in when every score may be off
  //    by its delta: w_j is largest with z_j high and every other score low, and conversely.
  //    The factor 1 ± γ(n + 8) covers exp, the sum and the division.
  auto shifted_exp = [&](int j, double by) {
    return std::exp(std::min(h.masked[row + j] + by - zmax, 700.0));
  };
  double sum = 0;
  for (int j : keys) sum += shifted_exp(j, 0);
  for (int j : keys) {
    double rest_lo = 0, rest_hi = 0;
    for (int k : keys) {
      if (k == j) continue;
      rest_lo += shifted_exp(k, -delta[k]);
      rest_hi += shifted_exp(k, delta[k]);
    }
    const double a_lo = shifted_exp(j, -delta[j]), a_hi = shifted_exp(j, delta[j]);
    const double w_lo = a_lo + rest_hi > 0 ? a_lo / (a_lo + rest_hi) : 0.0;
    const double w_hi = a_hi + rest_lo > 0 ? a_hi / (a_hi + rest_lo) : 1.0;
    h.weights[row + j] = shifted_exp(j, 0) / sum;
    h.weights_lo[row + j] = w_lo * (1 - Gamma(n + 8)) - kTiny;
    h.weights_hi[row + j] = std::min(w_hi, 1.0) * (1 + Gamma(n + 8)) + kTiny;
  }
  // 3. Output: Σ w_j·v_j; its error, from each weight's interval, the values' own errors and
  //    the sum's rounding. Columns fed by a NaN/Infinity value are not defined.
  for (int c = 0; c < h.value_dim; ++c) {
    const size_t o = static_cast<size_t>(i) * h.value_dim + c;
    double acc = 0, err = 0, v_max = 0, v_err_max = 0;
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    bool defined = h.row_kind[i] != RowKind::kPoisoned;
    for (int j : keys) {
      const double vj = h.v[static_cast<size_t>(j) * h.value_dim + c];
      const double ej = h.ev.empty() ? 0.0 : h.ev[static_cast<size_t>(j) * h.value_dim + c];
      if (!std::isfinite(vj) || !std::isfinite(ej)) {
        defined = false;
        continue;
      }
      // With dropout the weight reaches the output times keep (0 or 1 / (1 - p), itself a
      // rounded float: 2ε more).
      const double kj = h.keep.empty() ? 1.0 : h.keep[row + j];
      const double w = h.weights[row + j] * kj, w_hi = h.weights_hi[row + j] * kj * (1 + 2 * kEps);
      acc += w * vj;
      err += std::max(w_hi - w, w - h.weights_lo[row + j] * kj * (1 - 2 * kEps)) * std::fabs(vj) +
             w_hi * ej + Gamma(n + 8) * w_hi * std::fabs(vj);
      v_max = std::max(v_max, std::fabs(vj));
      v_err_max = std::max(v_err_max, ej);
      lo = std::min(lo, vj);
      hi = std::max(hi, vj);
    }
    h.out[o] = acc;
    h.out_tol[o] = 2 * err + 1e-30 * (1 + v_max);
    const double slack = Gamma(n + 8) * v_max + v_err_max + kTiny;
    h.lo[o] = h.keep.empty() ? lo - slack : -HUGE_VAL;  // dropped weights do not sum to 1
    h.hi[o] = h.keep.empty() ? hi + slack : HUGE_VAL;
    h.out_defined[o] = defined;
  }
}

void Solve(RefHead& h) {
  const size_t scores = static_cast<size_t>(h.seq_q) * h.seq_k;
  const size_t outs = static_cast<size_t>(h.seq_q) * h.value_dim;
  for (auto* s : {&h.raw, &h.raw_tol, &h.scaled, &h.scaled_tol, &h.capped, &h.capped_tol, &h.masked,
                  &h.masked_tol, &h.weights, &h.weights_lo, &h.weights_hi}) {
    s->assign(scores, 0.0);
  }
  for (auto* s : {&h.out, &h.out_tol, &h.lo, &h.hi}) s->assign(outs, 0.0);
  h.out_defined.assign(outs, 0);
  h.blocked.assign(scores, 0);
  h.row_kind.assign(h.seq_q, RowKind::kValues);
  for (int i = 0; i < h.seq_q; ++i) SolveRow(h, i);
}

// Key j is visible to query row i under the causal rule, the sliding window (negative sides:
// no limit) and the key limit (64-bit: no overflow for any offset).
bool KeyVisible(int i, int j, int key_limit, bool causal, int causal_offset, int window_left,
                int window_right) {
  const int64_t diagonal = int64_t{i} + causal_offset;
  return j < key_limit && (!causal || j <= diagonal) &&
         (window_left < 0 || j >= diagonal - window_left) &&
         (window_right < 0 || j <= diagonal + window_right);
}

// The dropout decision, written here from its definition (src/dropout.h's comment):
// bits = H(RowKey + j·0x9E3779B9) with RowKey = H(H(H(seed) ^ entry) ^ i), H the
// "lowbias32" hash; the weight is kept when (bits >> 8)·2^-24 >= p.
uint32_t LowBias32(uint32_t x) {
  x = (x ^ (x >> 16)) * 0x7feb352du;
  x = (x ^ (x >> 15)) * 0x846ca68bu;
  return x ^ (x >> 16);
}
bool DropoutKeeps(float p, uint32_t seed, uint32_t entry, uint32_t i, uint32_t j) {
  const uint32_t row_key = LowBias32(LowBias32(LowBias32(seed) ^ entry) ^ i);
  const uint32_t bits = LowBias32(row_key + j * 0x9E3779B9u);
  return std::ldexp(static_cast<double>(bits >> 8), -24) >= p;
}

// Checks one head's output row i (value_dim floats at `got`, consecutive) against the reference.
void CheckOutputRow(const char* what, const RefHead& h, int i, const float* got, size_t base) {
  for (int c = 0; c < h.value_dim; ++c) {
    const size_t o = static_cast<size_t>(i) * h.value_dim + c;
    const float x = got[c];
    switch (h.row_kind[i]) {
      case RowKind::kPoisoned:
        if (!std::isnan(x))
          Fail("%s[%zu] = %.9g: a poisoned row (NaN/+Inf score) must be NaN", what, base + c, x);
        break;
      case RowKind::kZeros:
        if (x != 0.0f) Fail("%s[%zu] = %.9g: a row that sees no key must be 0", what, base + c, x);
        break;
      case RowKind::kValues:
        if (!h.out_defined[o]) break;
        ExpectClose(what, base + c, x, h.out[o], h.out_tol[o]);
        if (!(x >= h.lo[o] && x <= h.hi[o])) {
          Fail("%s[%zu] = %.9g outside the values' hull [%.9g, %.9g]", what, base + c, x, h.lo[o],
               h.hi[o]);
        }
        break;
    }
  }
}

// Checks a [seq_q, seq_k] weights block against the reference.
void CheckWeights(const char* what, const RefHead& h, const float* got, size_t base) {
  for (int i = 0; i < h.seq_q; ++i) {
    for (int j = 0; j < h.seq_k; ++j) {
      const size_t at = static_cast<size_t>(i) * h.seq_k + j;
      const float w = got[at];
      if (h.row_kind[i] == RowKind::kPoisoned) {
        if (!std::isnan(w)) Fail("%s[%zu] = %.9g: a poisoned row must be NaN", what, base + at, w);
      } else if (h.blocked[at] || h.row_kind[i] == RowKind::kZeros) {
        if (w != 0.0f) Fail("%s[%zu] = %.9g: a blocked key must weigh 0", what, base + at, w);
      } else if (std::isfinite(h.masked[at])) {
        if (!(w >= h.weights_lo[at] && w <= h.weights_hi[at])) {
          Fail("%s[%zu] = %.9g, reference %.17g, outside [%.17g, %.17g]", what, base + at, w,
               h.weights[at], h.weights_lo[at], h.weights_hi[at]);
        }
      } else if (w != 0.0f) {  // a visible -Inf score
        Fail("%s[%zu] = %.9g: a -Inf score must weigh 0", what, base + at, w);
      }
    }
  }
}

// Checks dropout's weights ([seq_q, seq_k]): 0 where dropped or blocked, the weight's
// interval times keep where kept, NaN in poisoned rows.
void CheckDroppedWeights(const char* what, const RefHead& h, const float* got, size_t base) {
  for (int i = 0; i < h.seq_q; ++i) {
    for (int j = 0; j < h.seq_k; ++j) {
      const size_t at = static_cast<size_t>(i) * h.seq_k + j;
      const float w = got[at];
      const double kj = h.keep[at];
      if (h.row_kind[i] == RowKind::kPoisoned) {
        if (!std::isnan(w)) Fail("%s[%zu] = %.9g: a poisoned row must be NaN", what, base + at, w);
      } else if (h.blocked[at] || h.row_kind[i] == RowKind::kZeros || kj == 0 ||
                 !std::isfinite(h.masked[at])) {
        if (w != 0.0f)
          Fail("%s[%zu] = %.9g: a blocked or dropped weight must be 0", what, base + at, w);
      } else if (!(w >= h.weights_lo[at] * kj * (1 - 2 * kEps) &&
                   w <= h.weights_hi[at] * kj * (1 + 2 * kEps))) {
        Fail("%s[%zu] = %.9g, reference %.17g·%.9g, outside its interval", what, base + at, w,
             h.weights[at], kj);
      }
    }
  }
}

// Checks a stage ([seq_q, seq_k]): finite reference values within tolerance, non-finite ones
// of the same class.
void CheckStage(const char* what, const std::vector<double>& want, const std::vector<double>& tol,
                const float* got, size_t base) {
  for (size_t at = 0; at < want.size(); ++at) {
    if (std::isfinite(want[at])) {
      ExpectClose(what, base + at, got[at], want[at], tol[at]);
    } else {
      ExpectSameNonFinite(what, base + at, got[at], want[at]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RunAttention.

// Places `count` views of [rows, cols] (row stride `stride`) in one buffer: view b starts at
// block·(extent + 2) + shift with block <= b (a view may share an earlier one's block, as
// broadcast k or v does) and shift in [0, 2]. Returns the offsets; *size is the exact end
// of the farthest view (at least 1, so no buffer is null).
std::vector<int32_t> PlaceViews(Decoder& in, int count, int rows, int cols, int stride,
                                size_t* size) {
  const int64_t extent = rows > 0 && cols > 0 ? int64_t{rows - 1} * stride + cols : 0;
  std::vector<int32_t> offsets(count);
  int64_t end = 1;
  for (int b = 0; b < count; ++b) {
    const int block = in.Int(0, b);
    offsets[b] = static_cast<int32_t>(block * (extent + 2) + in.Int(0, 2));
    end = std::max(end, offsets[b] + extent);
  }
  *size = static_cast<size_t>(end);
  return offsets;
}

// Fills view `offset` of `buffer` ([rows, cols], row stride `stride`) with decoded values.
void FillView(Decoder& in, Values kind, std::vector<float>& buffer, int32_t offset, int rows,
              int cols, int stride) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      buffer[offset + static_cast<size_t>(r) * stride + c] = DecodeValue(in, kind);
    }
  }
}

struct AttentionCase {
  int batch = 0, seq_q = 0, seq_k = 0, head_dim = 0, value_dim = 0;
  int q_stride = 0, k_stride = 0, v_stride = 0, out_stride = 0;  // as passed (0: contiguous)
  int qs = 0, ks = 0, vs = 0, os = 0;                            // effective strides
  enum { kNoMask, kAdditive, kBoolean } mask_type = kNoMask;
  int mask_row_stride = 0;
  bool causal = false;
  int causal_offset = 0;
  int window_left = -1, window_right = -1;  // sliding window (-1: no limit on that side)
  float dropout = 0;                        // dropout probability, and its seed
  uint32_t dropout_seed = 0;
  float scale = 1;
  float softcap = 0;     // > 0: scores capped before the mask (0: none)
  bool null_kv = false;  // seq_k == 0: k and v passed as null
  bool stages = false;   // step-by-step path also asks for raw, scaled, capped, masked scores
  std::vector<int32_t> entries;      // [batch, kEntryColumns]
  std::vector<int32_t> out_offsets;  // [batch], or empty (contiguous outputs)
  std::vector<float> q, k, v, mask;  // buffers holding every entry's view
  std::vector<uint8_t> allowed;
  size_t out_size = 0;
  std::vector<uint8_t> out_owned;  // [out_size]: 1 where some entry's output lives
};

float DecodeScale(Decoder& in, int head_dim) {
  const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(std::max(head_dim, 1)));
  const float table[] = {1,     inv_sqrt_d, 0.5f, 0.125f, 2,      0,       -1,
                         1e-3f, 10,         100,  1e3f,   -0.25f, 1.0f / 3};
  const int b = in.Byte() % 16;
  if (b < 13) return table[b];
  return (in.Byte() - 128) / 16.0f;
}

// A softcap: none half of the time, else one from Gemma's 30 and 50 to the ends of float's
// range, subnormals included (below 2^-128 the core once multiplied by 1/softcap = +Infinity,
// turning a score of exactly 0 into NaN: found by the API fuzzer, it divides now).
float DecodeSoftcap(Decoder& in) {
  static const float kCaps[] = {1e-3f, 0.5f, 1,     3,         30,     50,
                                1e3f,  1e6f, 1e30f, kFloatMax, 3e-39f, 1.17549435e-38f,
                                0.1f,  2,    7,     20,        1e-40f, 1.4e-45f};
  if (in.Bool()) return 0.0f;
  const int b = in.Byte();
  if (b < 240) return kCaps[b % 18];
  return (b - 239) / 4.0f;  // 0.25 .. 4
}

AttentionCase DecodeAttention(Decoder& in) {
  AttentionCase c;
  c.batch = in.OneIn(16) ? 0 : in.Int(1, 3);
  c.seq_q = in.OneIn(16) ? 0 : in.Int(1, 12);
  c.seq_k = in.OneIn(16) ? 0 : in.OneIn(3) ? in.Int(1, 40) : in.Int(1, 12);
  c.head_dim = in.OneIn(32) ? 0 : in.Int(1, 16);
  c.value_dim = in.OneIn(32) ? 0 : in.Int(1, 16);
  auto stride = [&](int cols) { return in.Bool() ? 0 : cols + in.Int(0, 5); };
  c.q_stride = stride(c.head_dim);
  c.k_stride = stride(c.head_dim);
  c.v_stride = stride(c.value_dim);
  c.qs = c.q_stride > 0 ? c.q_stride : c.head_dim;
  c.ks = c.k_stride > 0 ? c.k_stride : c.head_dim;
  c.vs = c.v_stride > 0 ? c.v_stride : c.value_dim;
  const int mask_choice = in.Byte() % 4;
  c.mask_type = mask_choice == 0   ? AttentionCase::kNoMask
                : mask_choice == 3 ? AttentionCase::kBoolean
                                   : AttentionCase::kAdditive;
  c.mask_row_stride = in.Byte() % 3 == 0 ? 0 : c.seq_k + (in.OneIn(4) ? in.Int(1, 3) : 0);
  c.causal = in.Bool();
  c.causal_offset = DecodeCausalOffset(in, c.seq_q, c.seq_k);
  c.scale = DecodeScale(in, c.head_dim);
  c.null_kv = c.seq_k == 0 && in.Bool();
  c.stages = in.Bool();

  // Layout: views of q, k, v and the mask; outputs contiguous or at their own offsets.
  size_t q_size, k_size, v_size, mask_size;
  const std::vector<int32_t> q_off = PlaceViews(in, c.batch, c.seq_q, c.head_dim, c.qs, &q_size);
  const std::vector<int32_t> k_off = PlaceViews(in, c.batch, c.seq_k, c.head_dim, c.ks, &k_size);
  const std::vector<int32_t> v_off = PlaceViews(in, c.batch, c.seq_k, c.value_dim, c.vs, &v_size);
  const int mask_rows = c.mask_row_stride > 0 ? c.seq_q : 1;
  const std::vector<int32_t> m_off =
      PlaceViews(in, c.batch, mask_rows, c.seq_k, c.mask_row_stride, &mask_size);
  c.entries.resize(static_cast<size_t>(c.batch) * attn::kEntryColumns);
  for (int b = 0; b < c.batch; ++b) {
    int32_t* e = c.entries.data() + static_cast<size_t>(b) * attn::kEntryColumns;
    e[attn::kQOffset] = q_off[b];
    e[attn::kKOffset] = k_off[b];
    e[attn::kVOffset] = v_off[b];
    e[attn::kMaskOffset] = m_off[b];
    e[attn::kKeyLimit] = in.Bool() ? c.seq_k : in.Int(0, c.seq_k);
    // Mostly the call's offset; sometimes one of the entry's own (a per-sequence alignment).
    e[attn::kCausalOffset] = in.Bool() ? c.causal_offset : DecodeCausalOffset(in, c.seq_q, c.seq_k);
  }
  if (in.Bool()) {  // out_offsets: disjoint blocks, maybe in reverse order, with gaps
    c.out_stride = in.Bool() ? 0 : c.value_dim + in.Int(0, 4);
    c.os = c.out_stride > 0 ? c.out_stride : c.value_dim;
    const int64_t extent =
        c.seq_q > 0 && c.value_dim > 0 ? int64_t{c.seq_q - 1} * c.os + c.value_dim : 0;
    const bool reverse = in.Bool();
    c.out_offsets.resize(c.batch);
    int64_t end = 1;
    for (int b = 0; b < c.batch; ++b) {
      const int slot = reverse ? c.batch - 1 - b : b;
      c.out_offsets[b] = static_cast<int32_t>(slot * (extent + 2) + in.Int(0, 2));
      end = std::max(end, c.out_offsets[b] + extent);
    }
    c.out_size = static_cast<size_t>(end) + in.Int(0, 2);
  } else {  // contiguous [batch, seq_q, value_dim]
    c.out_stride = in.Bool() ? 0 : c.value_dim;
    c.os = c.value_dim;
    c.out_size =
        std::max<size_t>(1, static_cast<size_t>(c.batch) * c.seq_q * c.value_dim) + in.Int(0, 2);
  }
  c.out_owned.assign(c.out_size, 0);
  for (int b = 0; b < c.batch; ++b) {
    const size_t base = c.out_offsets.empty() ? static_cast<size_t>(b) * c.seq_q * c.value_dim
                                              : static_cast<size_t>(c.out_offsets[b]);
    for (int i = 0; i < c.seq_q; ++i) {
      for (int col = 0; col < c.value_dim; ++col) {
        c.out_owned[base + static_cast<size_t>(i) * c.os + col] = 1;
      }
    }
  }

  // Values. Gaps between rows and views hold NaN: a read of one poisons the result.
  c.q.assign(q_size, kNaN);
  c.k.assign(k_size, kNaN);
  c.v.assign(v_size, kNaN);
  const Values q_kind = DecodeValues(in), k_kind = DecodeValues(in), v_kind = DecodeValues(in);
  for (int b = 0; b < c.batch; ++b) {
    FillView(in, q_kind, c.q, q_off[b], c.seq_q, c.head_dim, c.qs);
    FillView(in, k_kind, c.k, k_off[b], c.seq_k, c.head_dim, c.ks);
    FillView(in, v_kind, c.v, v_off[b], c.seq_k, c.value_dim, c.vs);
  }
  if (c.mask_type == AttentionCase::kAdditive) {
    c.mask.assign(mask_size, kNaN);
    const MaskValues kind = DecodeMaskValues(in);
    for (int b = 0; b < c.batch; ++b) {
      for (int r = 0; r < mask_rows; ++r) {
        for (int j = 0; j < c.seq_k; ++j) {
          c.mask[m_off[b] + static_cast<size_t>(r) * c.mask_row_stride + j] =
              DecodeMaskValue(in, kind, true);
        }
      }
    }
  } else if (c.mask_type == AttentionCase::kBoolean) {
    c.allowed.assign(mask_size, 0xa5);
    for (int b = 0; b < c.batch; ++b) {
      for (int r = 0; r < mask_rows; ++r) {
        for (int j = 0; j < c.seq_k; ++j) {
          c.allowed[m_off[b] + static_cast<size_t>(r) * c.mask_row_stride + j] = DecodeAllowed(in);
        }
      }
    }
  }
  // Last, so that the committed seed inputs decode to the problems they were made for: the
  // softcap, then a sliding window on one side, both or none (sometimes INT_MAX keys), and
  // dropout.
  c.softcap = DecodeSoftcap(in);
  auto side = [&] { return in.OneIn(8) ? std::numeric_limits<int>::max() : in.Int(0, 12); };
  const int window = in.Byte() % 4;
  if (window == 1 || window == 2) c.window_left = side();
  if (window == 2 || window == 3) c.window_right = side();
  if (in.Byte() % 4 == 3) {
    const float rates[] = {0.1f, 0.5f, 0.9f, 1e-7f, 0.999f};
    c.dropout = rates[in.Byte() % 5];
    for (int i = 0; i < 4; ++i) c.dropout_seed = c.dropout_seed << 8 | in.Byte();
  }
  return c;
}

void PrintAttentionCase(const AttentionCase& c) {
  std::fprintf(stderr,
               "RunAttention case: batch %d seq_q %d seq_k %d head_dim %d value_dim %d\n"
               "  strides q %d k %d v %d out %d, mask %s row stride %d, causal %d offset %d,\n"
               "  window %d/%d, dropout %.9g seed %u,\n"
               "  scale %.9g, softcap %.9g, null k/v %d, out_offsets %s, out size %zu\n",
               c.batch, c.seq_q, c.seq_k, c.head_dim, c.value_dim, c.q_stride, c.k_stride,
               c.v_stride, c.out_stride,
               c.mask_type == AttentionCase::kNoMask     ? "none"
               : c.mask_type == AttentionCase::kAdditive ? "additive"
                                                         : "boolean",
               c.mask_row_stride, c.causal, c.causal_offset, c.window_left, c.window_right,
               c.dropout, c.dropout_seed, c.scale, c.softcap, c.null_kv,
               c.out_offsets.empty() ? "no" : "yes", c.out_size);
  PrintInts("entries (q, k, v, mask offsets, key limit)", c.entries.data(), c.entries.size());
  if (!c.out_offsets.empty()) PrintInts("out_offsets", c.out_offsets.data(), c.batch);
  PrintFloats("q buffer", c.q.data(), c.q.size(), c.qs);
  PrintFloats("k buffer", c.k.data(), c.k.size(), c.ks);
  PrintFloats("v buffer", c.v.data(), c.v.size(), c.vs);
  if (!c.mask.empty()) PrintFloats("mask buffer", c.mask.data(), c.mask.size(), c.seq_k);
  if (!c.allowed.empty()) {
    std::fprintf(stderr, "  allowed buffer (%zu):", c.allowed.size());
    for (uint8_t a : c.allowed) std::fprintf(stderr, " %d", a);
    std::fprintf(stderr, "\n");
  }
}

// The reference head of entry b.
RefHead AttentionReference(const AttentionCase& c, int b) {
  const int32_t* e = c.entries.data() + static_cast<size_t>(b) * attn::kEntryColumns;
  RefHead h;
  h.seq_q = c.seq_q;
  h.seq_k = c.seq_k;
  h.head_dim = c.head_dim;
  h.value_dim = c.value_dim;
  h.scale = c.scale;
  h.softcap = c.softcap;
  for (int i = 0; i < c.seq_q; ++i) {
    for (int d = 0; d < c.head_dim; ++d) {
      h.q.push_back(c.q[e[attn::kQOffset] + static_cast<size_t>(i) * c.qs + d]);
    }
  }
  for (int j = 0; j < c.seq_k; ++j) {
    for (int d = 0; d < c.head_dim; ++d) {
      h.k.push_back(c.k[e[attn::kKOffset] + static_cast<size_t>(j) * c.ks + d]);
    }
    for (int d = 0; d < c.value_dim; ++d) {
      h.v.push_back(c.v[e[attn::kVOffset] + static_cast<size_t>(j) * c.vs + d]);
    }
  }
  for (int i = 0; i < c.seq_q; ++i) {
    for (int j = 0; j < c.seq_k; ++j) {
      const size_t m = e[attn::kMaskOffset] + static_cast<size_t>(i) * c.mask_row_stride + j;
      if (c.mask_type == AttentionCase::kAdditive) h.mask.push_back(c.mask[m]);
      if (c.mask_type == AttentionCase::kBoolean) h.mask.push_back(c.allowed[m] ? 0.0 : -HUGE_VAL);
      h.visible.push_back(KeyVisible(i, j, e[attn::kKeyLimit], c.causal, e[attn::kCausalOffset],
                                     c.window_left, c.window_right));
      if (c.dropout > 0) {
        const double keep_scale = static_cast<double>(1.0f / (1.0f - c.dropout));
        h.keep.push_back(DropoutKeeps(c.dropout, c.dropout_seed, b, i, j) ? keep_scale : 0.0);
      }
    }
  }
  Solve(h);
  return h;
}

attn::AttentionRequest MakeRequest(const AttentionCase& c, float* out) {
  attn::AttentionRequest r;
  r.q = c.q.data();
  r.k = c.null_kv ? nullptr : c.k.data();
  r.v = c.null_kv ? nullptr : c.v.data();
  r.mask = c.mask_type == AttentionCase::kAdditive ? c.mask.data() : nullptr;
  r.allowed = c.mask_type == AttentionCase::kBoolean ? c.allowed.data() : nullptr;
  r.mask_row_stride = c.mask_row_stride;
  r.entries = c.entries.data();
  r.batch = c.batch;
  r.seq_q = c.seq_q;
  r.seq_k = c.seq_k;
  r.head_dim = c.head_dim;
  r.value_dim = c.value_dim;
  r.q_stride = c.q_stride;
  r.k_stride = c.k_stride;
  r.v_stride = c.v_stride;
  r.out_stride = c.out_stride;
  r.out_offsets = c.out_offsets.empty() ? nullptr : c.out_offsets.data();
  r.scale = c.scale;
  r.softcap = c.softcap;
  r.causal = c.causal;
  r.window_left = c.window_left;
  r.window_right = c.window_right;
  r.dropout = c.dropout;
  r.dropout_seed = c.dropout_seed;
  r.out = out;
  return r;
}

// One corrupted field gives its documented status, and nothing is written.
void CheckInvalidAttention(Decoder& in, const AttentionCase& c) {
  if (c.batch == 0 || c.seq_q == 0) return;  // nothing to compute: no check runs
  std::vector<float> out(c.out_size, Sentinel());
  std::vector<float> weights(static_cast<size_t>(c.batch) * c.seq_q * c.seq_k + 1, Sentinel());
  attn::AttentionRequest r = MakeRequest(c, out.data());
  std::vector<int32_t> entries = c.entries;
  attn::Status want;
  switch (in.Byte() % 8) {
    case 6: {  // a dropout probability outside [0, 1)
      const float bad[] = {1.0f, -0.25f, kNaN, kInf};
      r.dropout = bad[in.Byte() % 4];
      want = attn::Status::kBadArgument;
      break;
    }
    case 0:  // a key limit outside [0, seq_k]
      entries[static_cast<size_t>(in.Int(0, c.batch - 1)) * attn::kEntryColumns + attn::kKeyLimit] =
          in.Bool() ? -1 : c.seq_k + 1;
      r.entries = entries.data();
      want = attn::Status::kBadKeyLength;
      break;
    case 1:  // a negative dimension
      (in.Bool() ? r.head_dim : r.value_dim) = -1;
      want = attn::Status::kNegativeDimension;
      break;
    case 2:  // q missing
      r.q = nullptr;
      want = attn::Status::kNullPointer;
      break;
    case 3:  // a stage without weights
      r.raw_scores = weights.data();
      want = attn::Status::kNullPointer;
      break;
    case 4:  // both masks
      if (c.seq_k == 0) return;
      r.mask = c.mask.empty() ? reinterpret_cast<const float*>(c.q.data()) : c.mask.data();
      r.allowed =
          c.allowed.empty() ? reinterpret_cast<const uint8_t*>(c.q.data()) : c.allowed.data();
      want = attn::Status::kBadArgument;
      break;
    case 5: {  // a softcap that is negative, NaN or infinite
      static const float kBad[] = {-1.0f, -1e-3f, -kFloatMax, kNaN, kInf};
      r.softcap = kBad[in.Byte() % 5];
      want = attn::Status::kBadArgument;
      break;
    }
    default:  // a row stride below its row
      if (c.head_dim < 2) return;
      r.q_stride = c.head_dim - 1;
      want = attn::Status::kBadStride;
      break;
  }
  ExpectStatus("RunAttention (invalid request)", attn::RunAttention(r), want);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!IsSentinel(out[i])) Fail("RunAttention wrote out[%zu] on a rejected request", i);
  }
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!IsSentinel(weights[i])) Fail("RunAttention wrote a stage on a rejected request");
  }
}

// Per entry b (batch <= 3, entries may share views):
//   q: [seq_q, head_dim]  k: [seq_k, head_dim]  v: [seq_k, value_dim]  (strided rows)
//   mask: [seq_q or 1, seq_k] additive or boolean   out: [seq_q, value_dim] (strided rows)
//   weights and stages: [batch, seq_q, seq_k]
// Both paths: fused (no weights), then step-by-step (weights, and the stages or not), each
// with the case's softcap.
void FuzzAttention(Decoder& in) {
  const AttentionCase c = DecodeAttention(in);
  print_case = [&c] { PrintAttentionCase(c); };
  std::vector<RefHead> ref;
  for (int b = 0; b < c.batch; ++b) ref.push_back(AttentionReference(c, b));
  const size_t scores = static_cast<size_t>(c.batch) * c.seq_q * c.seq_k;

  for (const bool stepwise : {false, true}) {
    // out: as laid out by the case; weights and stages: [batch, seq_q, seq_k], exact size.
    std::vector<float> out(c.out_size, Sentinel());
    std::vector<float> weights(std::max<size_t>(scores, 1), Sentinel());
    std::vector<float> raw(weights.size(), Sentinel()), scaled(raw), capped(raw), masked(raw),
        dropped(raw);
    attn::AttentionRequest r = MakeRequest(c, out.data());
    if (stepwise) {
      r.weights = weights.data();
      if (c.dropout > 0) r.dropped_weights = dropped.data();
      if (c.stages) {
        r.raw_scores = raw.data();
        r.scaled_scores = scaled.data();
        r.capped_scores = capped.data();
        r.masked_scores = masked.data();
      }
    }
    const char* path = stepwise ? "RunAttention step-by-step out" : "RunAttention fused out";
    MustSucceed(path, [&] { return attn::RunAttention(r); });
    for (int b = 0; b < c.batch; ++b) {
      const size_t base = c.out_offsets.empty() ? static_cast<size_t>(b) * c.seq_q * c.value_dim
                                                : static_cast<size_t>(c.out_offsets[b]);
      for (int i = 0; i < c.seq_q; ++i) {
        const size_t row = base + static_cast<size_t>(i) * c.os;
        CheckOutputRow(path, ref[b], i, out.data() + row, row);
      }
    }
    ExpectUntouched(path, out, c.out_owned);
    if (!stepwise || scores == 0) continue;
    for (int b = 0; b < c.batch; ++b) {
      const size_t at = static_cast<size_t>(b) * c.seq_q * c.seq_k;
      CheckWeights("RunAttention weights", ref[b], weights.data() + at, at);
      if (c.dropout > 0) {
        CheckDroppedWeights("RunAttention dropped_weights", ref[b], dropped.data() + at, at);
      }
      if (!c.stages) continue;
      CheckStage("RunAttention raw_scores", ref[b].raw, ref[b].raw_tol, raw.data() + at, at);
      CheckStage("RunAttention scaled_scores", ref[b].scaled, ref[b].scaled_tol, scaled.data() + at,
                 at);
      CheckStage("RunAttention capped_scores", ref[b].capped, ref[b].capped_tol, capped.data() + at,
                 at);
      CheckStage("RunAttention masked_scores", ref[b].masked, ref[b].masked_tol, masked.data() + at,
                 at);
    }
  }
  if (in.OneIn(4)) CheckInvalidAttention(in, c);
}

// ---------------------------------------------------------------------------------------------
// MultiHeadForward.

struct MultiHeadCase {
  int batch = 0, seq_q = 0, seq_k = 0, d_model = 0, k_dim = 0, v_dim = 0;
  int num_heads = 0, num_kv_heads = 0, head_dim = 0, kv_width = 0;
  enum { kNoMask, kAdditive, kBoolean } mask_type = kNoMask;
  int mask_row_stride = 0;
  bool causal = false;
  int causal_offset = 0;
  int nan_query_row = -1;  // a query row of NaN (its output rows are not compared), or -1
  bool want_q = false, want_k = false, want_v = false, want_concat = false, want_weights = false;
  std::vector<float> query, key, value;  // [batch, seq_q | seq_k, d_model | k_dim | v_dim]
  std::vector<float> wq, wk, wv, wo, bq, bk, bv, bo;  // biases empty for none
  std::vector<float> mask;
  std::vector<uint8_t> allowed;
  std::vector<int32_t> mask_offsets;  // [batch, num_heads]
  std::vector<int32_t> key_lengths;   // [batch] or empty
};

std::vector<float> DecodeTensor(Decoder& in, size_t count, Values kind, float factor) {
  std::vector<float> t(std::max<size_t>(count, 1));
  for (size_t i = 0; i < count; ++i) t[i] = DecodeValue(in, kind) * factor;
  return t;
}

MultiHeadCase DecodeMultiHead(Decoder& in) {
  MultiHeadCase c;
  c.batch = in.OneIn(16) ? 0 : in.Int(1, 2);
  c.seq_q = in.OneIn(16) ? 0 : in.Int(1, 7);
  c.seq_k = in.OneIn(16) ? 0 : in.OneIn(4) ? in.Int(1, 36) : in.Int(1, 9);
  c.num_heads = in.Int(1, 4);
  c.head_dim = in.Int(1, 5);
  c.d_model = c.num_heads * c.head_dim;
  int divisors[4], count = 0;
  for (int g = 1; g <= c.num_heads; ++g) {
    if (c.num_heads % g == 0) divisors[count++] = g;
  }
  c.num_kv_heads = divisors[in.Int(0, count - 1)];
  c.kv_width = c.num_kv_heads * c.head_dim;
  c.k_dim = in.Bool() ? c.d_model : in.Int(1, 9);
  c.v_dim = in.Bool() ? c.k_dim : in.Int(1, 9);
  const int mask_choice = in.Byte() % 4;
  c.mask_type = mask_choice == 0   ? MultiHeadCase::kNoMask
                : mask_choice == 3 ? MultiHeadCase::kBoolean
                                   : MultiHeadCase::kAdditive;
  c.mask_row_stride = in.Bool() ? 0 : c.seq_k + (in.OneIn(4) ? 1 : 0);
  c.causal = in.Bool();
  c.causal_offset = DecodeCausalOffset(in, c.seq_q, c.seq_k);
  const uint8_t wants = in.Byte();
  c.want_q = wants & 1;
  c.want_k = wants & 2;
  c.want_v = wants & 4;
  c.want_concat = wants & 8;
  c.want_weights = wants & 16;
  if (c.batch * c.seq_q > 0 && in.OneIn(6)) c.nan_query_row = in.Int(0, c.batch * c.seq_q - 1);

  // Weights in [-1/2, 1/2) (grid / 8), inputs on the grid: outputs of modest size.
  c.query = DecodeTensor(in, static_cast<size_t>(c.batch) * c.seq_q * c.d_model, Values::kGrid, 1);
  c.key = DecodeTensor(in, static_cast<size_t>(c.batch) * c.seq_k * c.k_dim, Values::kGrid, 1);
  c.value = DecodeTensor(in, static_cast<size_t>(c.batch) * c.seq_k * c.v_dim, Values::kGrid, 1);
  c.wq = DecodeTensor(in, static_cast<size_t>(c.d_model) * c.d_model, Values::kGrid, 0.125f);
  c.wk = DecodeTensor(in, static_cast<size_t>(c.k_dim) * c.kv_width, Values::kGrid, 0.125f);
  c.wv = DecodeTensor(in, static_cast<size_t>(c.v_dim) * c.kv_width, Values::kGrid, 0.125f);
  c.wo = DecodeTensor(in, static_cast<size_t>(c.d_model) * c.d_model, Values::kGrid, 0.125f);
  const uint8_t biases = in.Byte();
  if (biases & 1) c.bq = DecodeTensor(in, c.d_model, Values::kGrid, 1);
  if (biases & 2) c.bk = DecodeTensor(in, c.kv_width, Values::kGrid, 1);
  if (biases & 4) c.bv = DecodeTensor(in, c.kv_width, Values::kGrid, 1);
  if (biases & 8) c.bo = DecodeTensor(in, c.d_model, Values::kGrid, 1);

  // Key padding; padded key and value rows hold NaN/Infinity, which must never reach out.
  if (in.Bool()) {
    c.key_lengths.resize(std::max(c.batch, 1));
    for (int b = 0; b < c.batch; ++b) {
      c.key_lengths[b] = in.Bool() ? c.seq_k : in.Int(0, c.seq_k);
      const bool poison = in.Bool();
      for (int j = c.key_lengths[b]; poison && j < c.seq_k; ++j) {
        const float bad = in.Bool() ? kNaN : in.Bool() ? kInf : -kInf;
        for (int d = 0; d < c.k_dim; ++d)
          c.key[(static_cast<size_t>(b) * c.seq_k + j) * c.k_dim + d] = bad;
        for (int d = 0; d < c.v_dim; ++d) {
          c.value[(static_cast<size_t>(b) * c.seq_k + j) * c.v_dim + d] = bad;
        }
      }
    }
  }
  if (c.nan_query_row >= 0) {
    for (int d = 0; d < c.d_model; ++d)
      c.query[static_cast<size_t>(c.nan_query_row) * c.d_model + d] = kNaN;
  }

  // Masks: a few blocks, each entry (b, h) pointing at one of them.
  if (c.mask_type != MultiHeadCase::kNoMask) {
    const int entries = c.batch * c.num_heads;
    const int rows = c.mask_row_stride > 0 ? c.seq_q : 1;
    const int64_t extent =
        c.seq_k > 0 && rows > 0 ? int64_t{rows - 1} * c.mask_row_stride + c.seq_k : 0;
    const int blocks = in.Int(1, std::max(entries, 1));
    c.mask_offsets.resize(std::max(entries, 1));
    for (int e = 0; e < entries; ++e) {
      c.mask_offsets[e] = static_cast<int32_t>(in.Int(0, blocks - 1) * extent);
    }
    const size_t size = std::max<size_t>(1, static_cast<size_t>(blocks * extent));
    if (c.mask_type == MultiHeadCase::kAdditive) {
      const MaskValues kind = DecodeMaskValues(in);
      c.mask.resize(size);
      for (size_t i = 0; i < size; ++i) c.mask[i] = DecodeMaskValue(in, kind, false);
    } else {
      c.allowed.resize(size);
      for (size_t i = 0; i < size; ++i) c.allowed[i] = DecodeAllowed(in);
    }
  }
  return c;
}

void PrintMultiHeadCase(const MultiHeadCase& c) {
  std::fprintf(stderr,
               "MultiHeadForward case: batch %d seq_q %d seq_k %d d_model %d k_dim %d v_dim %d\n"
               "  heads %d kv heads %d, mask %d row stride %d, causal %d offset %d, NaN query "
               "row %d\n",
               c.batch, c.seq_q, c.seq_k, c.d_model, c.k_dim, c.v_dim, c.num_heads, c.num_kv_heads,
               c.mask_type, c.mask_row_stride, c.causal, c.causal_offset, c.nan_query_row);
  PrintFloats("query", c.query.data(), c.query.size(), c.d_model);
  PrintFloats("key", c.key.data(), c.key.size(), c.k_dim);
  PrintFloats("value", c.value.data(), c.value.size(), c.v_dim);
  PrintFloats("wq", c.wq.data(), c.wq.size(), c.d_model);
  PrintFloats("wk", c.wk.data(), c.wk.size(), c.kv_width);
  PrintFloats("wv", c.wv.data(), c.wv.size(), c.kv_width);
  PrintFloats("wo", c.wo.data(), c.wo.size(), c.d_model);
  if (!c.bq.empty()) PrintFloats("bq", c.bq.data(), c.bq.size(), 0);
  if (!c.bk.empty()) PrintFloats("bk", c.bk.data(), c.bk.size(), 0);
  if (!c.bv.empty()) PrintFloats("bv", c.bv.data(), c.bv.size(), 0);
  if (!c.bo.empty()) PrintFloats("bo", c.bo.data(), c.bo.size(), 0);
  if (!c.mask.empty()) PrintFloats("mask", c.mask.data(), c.mask.size(), c.seq_k);
  if (!c.mask_offsets.empty())
    PrintInts("mask_offsets", c.mask_offsets.data(), c.mask_offsets.size());
  if (!c.key_lengths.empty()) PrintInts("key_lengths", c.key_lengths.data(), c.batch);
}

// y = x·w + bias in double, and a bound on the float computation's error.
//   x: [rows, inner]  w: [inner, cols]  bias: [cols] or empty
//   y, err: [rows, cols]
void RefMatMul(const std::vector<float>& x, const std::vector<float>& w,
               const std::vector<float>& bias, int rows, int inner, int cols,
               std::vector<double>* y, std::vector<double>* err) {
  y->assign(static_cast<size_t>(rows) * cols, 0.0);
  err->assign(y->size(), 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      double sum = bias.empty() ? 0.0 : bias[c], abs_sum = std::fabs(sum);
      for (int i = 0; i < inner; ++i) {
        const double p = static_cast<double>(x[static_cast<size_t>(r) * inner + i]) *
                         w[static_cast<size_t>(i) * cols + c];
        sum += p;
        abs_sum += std::fabs(p);
      }
      (*y)[static_cast<size_t>(r) * cols + c] = sum;
      (*err)[static_cast<size_t>(r) * cols + c] = Gamma(inner + 2) * abs_sum + kTiny;
    }
  }
}

// A projection against RefMatMul's result, where it is finite (rows of NaN input are not).
void CheckProjection(const char* what, const float* got, const std::vector<double>& want,
                     const std::vector<double>& err) {
  for (size_t at = 0; at < want.size(); ++at) {
    if (std::isfinite(want[at])) ExpectClose(what, at, got[at], want[at], 2 * err[at]);
  }
}

// The reference of a multi-head case, in double, with error bounds for the float computation.
struct MultiHeadReference {
  std::vector<double> q, eq;     // [batch·seq_q, d_model]: Q = query·W_Q + b_Q, and its error
  std::vector<double> k, ek;     // [batch·seq_k, kv_width]
  std::vector<double> v, ev;     // [batch·seq_k, kv_width]
  std::vector<RefHead> heads;    // [batch, num_heads]
  std::vector<double> y, y_err;  // [batch·seq_q, d_model]: Concat(heads)·W_O + b_O
};

// The reference head h of batch entry b: columns h·head_dim .. of Q, the columns of its
// key/value group (h / (num_heads / num_kv_heads)) of K and V, its mask block and key length.
//   q: [seq_q, head_dim]  k, v: [seq_k, head_dim]  mask, visible: [seq_q, seq_k]
RefHead HeadReference(const MultiHeadCase& c, const MultiHeadReference& ref, int b, int h) {
  RefHead head;
  head.seq_q = c.seq_q;
  head.seq_k = c.seq_k;
  head.head_dim = head.value_dim = c.head_dim;
  head.scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  const int qc = h * c.head_dim, kc = (h / (c.num_heads / c.num_kv_heads)) * c.head_dim;
  for (int i = 0; i < c.seq_q; ++i) {
    for (int d = 0; d < c.head_dim; ++d) {
      const size_t at = (static_cast<size_t>(b) * c.seq_q + i) * c.d_model + qc + d;
      head.q.push_back(ref.q[at]);
      head.eq.push_back(ref.eq[at]);
    }
  }
  for (int j = 0; j < c.seq_k; ++j) {
    for (int d = 0; d < c.head_dim; ++d) {
      const size_t at = (static_cast<size_t>(b) * c.seq_k + j) * c.kv_width + kc + d;
      head.k.push_back(ref.k[at]);
      head.ek.push_back(ref.ek[at]);
      head.v.push_back(ref.v[at]);
      head.ev.push_back(ref.ev[at]);
    }
  }
  const int key_limit = c.key_lengths.empty() ? c.seq_k : c.key_lengths[b];
  const int32_t mask_offset = c.mask_offsets.empty() ? 0 : c.mask_offsets[b * c.num_heads + h];
  for (int i = 0; i < c.seq_q; ++i) {
    for (int j = 0; j < c.seq_k; ++j) {
      const size_t m = mask_offset + static_cast<size_t>(i) * c.mask_row_stride + j;
      if (c.mask_type == MultiHeadCase::kAdditive) head.mask.push_back(c.mask[m]);
      if (c.mask_type == MultiHeadCase::kBoolean) head.mask.push_back(c.allowed[m] ? 0 : -HUGE_VAL);
      head.visible.push_back(KeyVisible(i, j, key_limit, c.causal, c.causal_offset, -1, -1));
    }
  }
  Solve(head);
  return head;
}

MultiHeadReference SolveMultiHead(const MultiHeadCase& c) {
  MultiHeadReference ref;
  const int rows_q = c.batch * c.seq_q, rows_k = c.batch * c.seq_k;
  RefMatMul(c.query, c.wq, c.bq, rows_q, c.d_model, c.d_model, &ref.q, &ref.eq);
  RefMatMul(c.key, c.wk, c.bk, rows_k, c.k_dim, c.kv_width, &ref.k, &ref.ek);
  RefMatMul(c.value, c.wv, c.bv, rows_k, c.v_dim, c.kv_width, &ref.v, &ref.ev);
  // Concat: each head's output in its columns (exact zeros for rows that see no key).
  std::vector<double> concat(static_cast<size_t>(rows_q) * c.d_model, 0.0), concat_err(concat);
  for (int b = 0; b < c.batch; ++b) {
    for (int h = 0; h < c.num_heads; ++h) {
      ref.heads.push_back(HeadReference(c, ref, b, h));
      const RefHead& head = ref.heads.back();
      for (int i = 0; i < c.seq_q; ++i) {
        if (head.row_kind[i] != RowKind::kValues) continue;
        for (int d = 0; d < c.head_dim; ++d) {
          const size_t at = (static_cast<size_t>(b) * c.seq_q + i) * c.d_model + h * c.head_dim + d;
          concat[at] = head.out[static_cast<size_t>(i) * c.head_dim + d];
          concat_err[at] = head.out_tol[static_cast<size_t>(i) * c.head_dim + d];
        }
      }
    }
  }
  // Y = concat·W_O + b_O; its error: concat's, carried through W_O, plus the product's own.
  ref.y.assign(static_cast<size_t>(rows_q) * c.d_model, 0.0);
  ref.y_err.assign(ref.y.size(), 0.0);
  for (int r = 0; r < rows_q; ++r) {
    for (int col = 0; col < c.d_model; ++col) {
      double sum = c.bo.empty() ? 0.0 : c.bo[col], abs_sum = std::fabs(sum), err = 0;
      for (int i = 0; i < c.d_model; ++i) {
        const double x = concat[static_cast<size_t>(r) * c.d_model + i];
        const double ex = concat_err[static_cast<size_t>(r) * c.d_model + i];
        const double w = c.wo[static_cast<size_t>(i) * c.d_model + col];
        sum += x * w;
        if (w == 0) continue;
        abs_sum += (std::fabs(x) + ex) * std::fabs(w);
        err += ex * std::fabs(w);
      }
      ref.y[static_cast<size_t>(r) * c.d_model + col] = sum;
      ref.y_err[static_cast<size_t>(r) * c.d_model + col] =
          1.5 * (err + Gamma(c.d_model + 2) * abs_sum) + 1e-30;
    }
  }
  return ref;
}

// The request of a case, without its outputs.
attn::MultiHeadRequest MakeMultiHeadRequest(const MultiHeadCase& c) {
  attn::MultiHeadRequest r;
  r.query = c.query.data();
  r.key = c.key.data();
  r.value = c.value.data();
  r.batch = c.batch;
  r.seq_q = c.seq_q;
  r.seq_k = c.seq_k;
  r.d_model = c.d_model;
  r.k_dim = c.k_dim;
  r.v_dim = c.v_dim;
  r.num_heads = c.num_heads;
  r.num_kv_heads = c.num_kv_heads;
  r.weights.wq = c.wq.data();
  r.weights.wk = c.wk.data();
  r.weights.wv = c.wv.data();
  r.weights.wo = c.wo.data();
  r.weights.bq = c.bq.empty() ? nullptr : c.bq.data();
  r.weights.bk = c.bk.empty() ? nullptr : c.bk.data();
  r.weights.bv = c.bv.empty() ? nullptr : c.bv.data();
  r.weights.bo = c.bo.empty() ? nullptr : c.bo.data();
  r.mask = c.mask.empty() ? nullptr : c.mask.data();
  r.allowed = c.allowed.empty() ? nullptr : c.allowed.data();
  r.mask_row_stride = c.mask_row_stride;
  r.mask_offsets = c.mask_offsets.empty() ? nullptr : c.mask_offsets.data();
  r.key_lengths = c.key_lengths.empty() ? nullptr : c.key_lengths.data();
  r.causal = c.causal;
  r.causal_offset = c.causal_offset;
  return r;
}

// Runs one path (step-by-step when the weights are asked for) and checks every output.
//   out, q_proj, concat: [batch·seq_q, d_model]  k_proj, v_proj: [batch·seq_k, kv_width]
//   weights: [batch, num_heads, seq_q, seq_k]; each with one sentinel past its end
void RunMultiHead(const MultiHeadCase& c, const MultiHeadReference& ref, bool stepwise) {
  const size_t out_size = static_cast<size_t>(c.batch) * c.seq_q * c.d_model;
  const size_t kv_size = static_cast<size_t>(c.batch) * c.seq_k * c.kv_width;
  std::vector<float> out(out_size + 1, Sentinel()), q_proj(out), concat(out);
  std::vector<float> k_proj(kv_size + 1, Sentinel()), v_proj(k_proj);
  std::vector<float> weights(static_cast<size_t>(c.batch) * c.num_heads * c.seq_q * c.seq_k + 1,
                             Sentinel());
  attn::MultiHeadRequest r = MakeMultiHeadRequest(c);
  r.out = out.data();
  r.q_proj = c.want_q ? q_proj.data() : nullptr;
  r.k_proj = c.want_k ? k_proj.data() : nullptr;
  r.v_proj = c.want_v ? v_proj.data() : nullptr;
  r.concat = c.want_concat ? concat.data() : nullptr;
  r.attention_weights = stepwise ? weights.data() : nullptr;
  const char* what = stepwise ? "MultiHeadForward step-by-step out" : "MultiHeadForward fused out";
  MustSucceed(what, [&] { return attn::MultiHeadForward(r); });
  if (!IsSentinel(out.back()) || !IsSentinel(q_proj.back()) || !IsSentinel(concat.back()) ||
      !IsSentinel(k_proj.back()) || !IsSentinel(v_proj.back()) || !IsSentinel(weights.back())) {
    Fail("%s: an output written past its end", what);
  }
  if (out_size == 0) {
    if (!IsSentinel(out[0])) Fail("%s: written with no query rows", what);
    return;
  }
  for (size_t at = 0; at < out_size; ++at) {
    if (static_cast<int>(at / c.d_model) == c.nan_query_row) continue;
    ExpectClose(what, at, out[at], ref.y[at], ref.y_err[at]);
  }
  if (c.want_q) CheckProjection("q_proj", q_proj.data(), ref.q, ref.eq);
  if (c.want_k) CheckProjection("k_proj", k_proj.data(), ref.k, ref.ek);
  if (c.want_v) CheckProjection("v_proj", v_proj.data(), ref.v, ref.ev);
  for (int b = 0; b < c.batch; ++b) {
    for (int h = 0; h < c.num_heads; ++h) {
      const RefHead& head = ref.heads[static_cast<size_t>(b) * c.num_heads + h];
      // The reference follows a NaN query row too: its rows are poisoned (NaN) or zeros.
      for (int i = 0; c.want_concat && i < c.seq_q; ++i) {
        const size_t at = (static_cast<size_t>(b) * c.seq_q + i) * c.d_model + h * c.head_dim;
        CheckOutputRow("concat", head, i, concat.data() + at, at);
      }
      if (!stepwise || c.seq_q * c.seq_k == 0) continue;
      const size_t at = (static_cast<size_t>(b) * c.num_heads + h) * c.seq_q * c.seq_k;
      CheckWeights("attention_weights", head, weights.data() + at, at);
    }
  }
}

// query: [batch, seq_q, d_model]  key: [batch, seq_k, k_dim]  value: [batch, seq_k, v_dim]
// out: [batch, seq_q, d_model]; GQA with num_kv_heads | num_heads; masks per (batch, head)
// through mask_offsets; key_lengths; both paths.
void FuzzMultiHead(Decoder& in) {
  const MultiHeadCase c = DecodeMultiHead(in);
  print_case = [&c] { PrintMultiHeadCase(c); };
  const MultiHeadReference ref = SolveMultiHead(c);
  RunMultiHead(c, ref, false);
  RunMultiHead(c, ref, true);
}

// ---------------------------------------------------------------------------------------------
// Positional encodings.

double DecodeBase(Decoder& in) {
  static const double kBases[] = {10000, 10, 2, 1e6, 1.5, 100, 1, 500000};
  return kBases[in.Byte() % 8];
}

// pe: [seq_len, d_model]
void FuzzSinusoidal(Decoder& in) {
  const int seq_len = in.Int(0, 64), d_model = in.Int(0, 17);
  const double base = DecodeBase(in);
  print_case = [=] {
    std::fprintf(stderr, "SinusoidalEncoding(seq_len %d, d_model %d, base %g)\n", seq_len, d_model,
                 base);
  };
  std::vector<float> pe(static_cast<size_t>(seq_len) * d_model + 1, Sentinel());
  MustSucceed("SinusoidalEncoding",
              [&] { return attn::SinusoidalEncoding(seq_len, d_model, base, pe.data()); });
  for (int p = 0; p < seq_len; ++p) {
    for (int col = 0; col < d_model; ++col) {
      // Frequency of the pair (2i, 2i + 1): base^(-2i/d_model), as exp(-2i/d·ln base).
      const int i = col / 2;
      const double angle = p * std::exp(-2.0 * i / d_model * std::log(base));
      const double want = col % 2 == 0 ? std::sin(angle) : std::cos(angle);
      ExpectClose("SinusoidalEncoding pe", static_cast<size_t>(p) * d_model + col,
                  pe[static_cast<size_t>(p) * d_model + col], want, 1.2e-7 + 1e-15 * angle);
    }
  }
  if (!IsSentinel(pe.back())) Fail("SinusoidalEncoding wrote past [seq_len, d_model]");
}

// x, out: [rows, dim]   positions: [rows]
void FuzzRope(Decoder& in) {
  const int rows = in.Int(0, 8), dim = 2 * in.Int(0, 8);
  const double base = DecodeBase(in);
  const bool interleaved = in.Bool(), in_place = in.Bool();
  const Values kind = DecodeValues(in);
  std::vector<float> x(static_cast<size_t>(rows) * dim + 1), positions(std::max(rows, 1));
  for (float& value : x) value = DecodeValue(in, kind);
  for (float& p : positions) {
    const int b = in.Byte();
    p = b < 200 ? static_cast<float>(b - 40) / (b % 2 ? 4 : 1) : DecodeValue(in, Values::kSpecial);
  }
  const std::vector<float> x0 = x;
  print_case = [=] {
    std::fprintf(stderr, "ApplyRope(rows %d, dim %d, base %g, interleaved %d, in place %d)\n", rows,
                 dim, base, interleaved, in_place);
    PrintFloats("x", x0.data(), x0.size() - 1, dim);
    PrintFloats("positions", positions.data(), rows, 0);
  };
  std::vector<float> out(x.size(), Sentinel());
  float* dst = in_place ? x.data() : out.data();
  x.back() = Sentinel();
  MustSucceed("ApplyRope", [&] {
    return attn::ApplyRope(x.data(), rows, dim, positions.data(), base, interleaved, dst);
  });
  const int half = dim / 2;
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < half; ++i) {
      const int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
      const double xa = x0[static_cast<size_t>(r) * dim + a],
                   xb = x0[static_cast<size_t>(r) * dim + b];
      const double pos = positions[r];
      if (!std::isfinite(xa) || !std::isfinite(xb) || !std::isfinite(pos)) continue;
      const double angle = pos * std::exp(-2.0 * i / dim * std::log(base));
      const double ya = xa * std::cos(angle) - xb * std::sin(angle);
      const double yb = xb * std::cos(angle) + xa * std::sin(angle);
      const double slack = (std::fabs(xa) + std::fabs(xb)) * 1e-14 * (1 + std::fabs(angle)) + 1e-44;
      ExpectClose("ApplyRope out", static_cast<size_t>(r) * dim + a,
                  dst[static_cast<size_t>(r) * dim + a], ya, kEps * std::fabs(ya) + slack);
      ExpectClose("ApplyRope out", static_cast<size_t>(r) * dim + b,
                  dst[static_cast<size_t>(r) * dim + b], yb, kEps * std::fabs(yb) + slack);
    }
  }
  if (!IsSentinel(dst[static_cast<size_t>(rows) * dim])) Fail("ApplyRope wrote past [rows, dim]");
  if (!in_place && std::memcmp(x.data(), x0.data(), sizeof(float) * rows * dim) != 0) {
    Fail("ApplyRope changed its input x");
  }
}

// The ALiBi slope of head h of n (Press et al.): for n a power of two, 2^(-8(h+1)/n); else
// the slopes of the closest power of two c below n, then 2^(-8(2m+1)/(2c)) for m = 0, 1, ...
double RefAlibiSlope(int n, int h) {
  int c = 1;
  while (c * 2 <= n) c *= 2;
  if (h < c) return std::exp2(-8.0 * (h + 1) / c);
  const int m = h - c;
  return std::exp2(-8.0 * (2 * m + 1) / (2.0 * c));
}

// bias: [num_heads, seq_q, seq_k]   slopes: [num_heads]
void FuzzAlibi(Decoder& in) {
  const int num_heads = in.Int(1, 40), seq_q = in.Int(0, 16), seq_k = in.Int(0, 16);
  print_case = [=] {
    std::fprintf(stderr, "AlibiBias(num_heads %d, seq_q %d, seq_k %d)\n", num_heads, seq_q, seq_k);
  };
  std::vector<double> slopes(num_heads + 1, -1.0);
  MustSucceed("AlibiSlopes", [&] { return attn::AlibiSlopes(num_heads, slopes.data()); });
  for (int h = 0; h < num_heads; ++h) {
    const double want = RefAlibiSlope(num_heads, h);
    if (!(std::fabs(slopes[h] - want) <= 1e-14 * want)) {
      Fail("AlibiSlopes[%d] = %.17g, reference %.17g", h, slopes[h], want);
    }
    const double one = attn::AlibiSlope(num_heads, h);
    if (!(std::fabs(one - want) <= 1e-14 * want)) {
      Fail("AlibiSlope(%d, %d) = %.17g, reference %.17g", num_heads, h, one, want);
    }
  }
  if (slopes[num_heads] != -1.0) Fail("AlibiSlopes wrote past [num_heads]");
  std::vector<float> bias(static_cast<size_t>(num_heads) * seq_q * seq_k + 1, Sentinel());
  MustSucceed("AlibiBias", [&] { return attn::AlibiBias(num_heads, seq_q, seq_k, bias.data()); });
  for (int h = 0; h < num_heads; ++h) {
    for (int i = 0; i < seq_q; ++i) {
      for (int j = 0; j < seq_k; ++j) {
        // Query i sits at position i + seq_k - seq_q (aligned to the last key).
        const double want = -RefAlibiSlope(num_heads, h) * std::abs(i + seq_k - seq_q - j);
        const size_t at = (static_cast<size_t>(h) * seq_q + i) * seq_k + j;
        ExpectClose("AlibiBias", at, bias[at], want, kEps * std::fabs(want) + 1e-44);
      }
    }
  }
  if (!IsSentinel(bias.back())) Fail("AlibiBias wrote past [num_heads, seq_q, seq_k]");
}

// ---------------------------------------------------------------------------------------------
// LayerNorm.

// x, out: [rows, dim] (out may be x)   gamma, beta: [dim] or null. Rows whose σ is lost in
// rounding (var + eps within the variance's own error) are not compared.
void FuzzLayerNorm(Decoder& in) {
  static const float kEpsilons[] = {1e-5f, 1e-6f, 1e-12f, 0.0f, 1e-3f, 1.0f, 0.1f, 1e-5f};
  const int rows = in.Int(0, 6), dim = in.OneIn(32) ? 0 : in.Int(1, 24);
  const float eps = kEpsilons[in.Byte() % 8];
  const bool in_place = in.Bool(), with_gamma = in.Bool(), with_beta = in.Bool();
  const size_t count = static_cast<size_t>(rows) * dim;
  std::vector<float> x(count + 1);
  const int style = in.Byte() % 5;  // grid, a large offset (cancellation), tiny, wide, special
  for (size_t i = 0; i < count; ++i) {
    switch (style) {
      case 1:
        x[i] = 1e4f + DecodeValue(in, Values::kGrid) / 64;
        break;
      case 2:
        x[i] = DecodeValue(in, Values::kGrid) * 1e-20f;
        break;
      case 3:
        x[i] = DecodeValue(in, Values::kWide);
        break;
      case 4:
        x[i] = DecodeValue(in, Values::kSpecial);
        break;
      default:
        x[i] = DecodeValue(in, Values::kGrid);
    }
  }
  std::vector<float> gamma(std::max(dim, 1)), beta(std::max(dim, 1));
  for (float& g : gamma) g = DecodeValue(in, in.OneIn(8) ? Values::kSpecial : Values::kGrid);
  for (float& b : beta) b = DecodeValue(in, in.OneIn(8) ? Values::kSpecial : Values::kGrid);
  const std::vector<float> x0 = x;
  print_case = [=] {
    std::fprintf(stderr, "LayerNorm(rows %d, dim %d, eps %g, in place %d, gamma %d, beta %d)\n",
                 rows, dim, eps, in_place, with_gamma, with_beta);
    PrintFloats("x", x0.data(), count, dim);
    if (with_gamma) PrintFloats("gamma", gamma.data(), dim, 0);
    if (with_beta) PrintFloats("beta", beta.data(), dim, 0);
  };
  std::vector<float> out(count + 1, Sentinel());
  x.back() = Sentinel();
  float* dst = in_place ? x.data() : out.data();
  MustSucceed("LayerNorm", [&] {
    return attn::LayerNorm(x.data(), rows, dim, with_gamma ? gamma.data() : nullptr,
                           with_beta ? beta.data() : nullptr, eps, dst);
  });
  for (int r = 0; r < rows && dim > 0; ++r) {
    const float* xr = x0.data() + static_cast<size_t>(r) * dim;
    bool finite = true;
    double mean = 0, mean_abs = 0;
    for (int c = 0; c < dim; ++c) {
      finite = finite && std::isfinite(xr[c]);
      mean += xr[c];
      mean_abs += std::fabs(xr[c]);
    }
    if (!finite) continue;  // not defined
    mean /= dim;
    mean_abs /= dim;
    double var = 0;
    for (int c = 0; c < dim; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= dim;
    // Float errors: of the mean (dmu), of the variance (dvar), hence of 1/σ (rho, relative).
    const double dmu = Gamma(dim + 1) * mean_abs + 1e-45;
    const double dvar =
        2 * dmu * std::sqrt(var) + dmu * dmu + Gamma(dim + 4) * (var + eps) + dim * 1e-45;
    const double var_eps = var + eps;
    if (!(dvar < 0.25 * var_eps)) continue;  // ill-conditioned: σ lost in rounding
    const double sigma = std::sqrt(var_eps), rho = dvar / var_eps + 4 * kEps;
    for (int c = 0; c < dim; ++c) {
      const double g = with_gamma ? gamma[c] : 1.0, b = with_beta ? beta[c] : 0.0;
      if (!std::isfinite(g) || !std::isfinite(b)) continue;
      const double centred = xr[c] - mean;
      const double norm = centred / sigma;
      const double want = norm * g + b;
      const double err_norm =
          (dmu + kEps * (std::fabs(centred) + dmu)) / sigma + std::fabs(norm) * rho;
      const double tol =
          2 * (std::fabs(g) * err_norm + 2 * kEps * (std::fabs(norm * g) + std::fabs(b))) + kTiny;
      const size_t at = static_cast<size_t>(r) * dim + c;
      ExpectClose("LayerNorm out", at, dst[at], want, tol);
    }
  }
  if (!IsSentinel(dst[count])) Fail("LayerNorm wrote past [rows, dim]");
  if (!in_place && std::memcmp(x.data(), x0.data(), sizeof(float) * count) != 0) {
    Fail("LayerNorm changed its input x");
  }
}

// ---------------------------------------------------------------------------------------------
// FeedForward, AddInto, SetPool.

// act(h) and a bound on its float error given h's error eh: ReLU is 1-Lipschitz; GELU's
// slope stays below 1.13, and the core evaluates it in double then rounds to float.
double RefActivation(attn::Activation activation, double h, double eh, double* err) {
  if (activation == attn::Activation::kRelu) {
    *err = eh;
    return std::max(h, 0.0);
  }
  const double a = 0.5 * h * (1 + std::erf(h / std::sqrt(2.0)));
  *err = 1.13 * eh + kEps * std::fabs(a) + kTiny;
  return a;
}

// x: [rows, d_model]  w1: [d_model, d_ff]  b1: [d_ff]  w2: [d_ff, d_model]  b2: [d_model]
// out: [rows, d_model]; biases may be null. A row of NaN input gives a row of NaN (d_ff > 0).
void FuzzFeedForward(Decoder& in) {
  const int rows = in.Int(0, 6), d_model = in.OneIn(32) ? 0 : in.Int(1, 16);
  const int d_ff = in.OneIn(16) ? 0 : in.Int(1, 24);
  const attn::Activation activation = in.Bool() ? attn::Activation::kGelu : attn::Activation::kRelu;
  const Values kind = in.OneIn(4) ? Values::kWide : Values::kGrid;
  const bool with_b1 = in.Bool(), with_b2 = in.Bool();
  const int nan_row = rows * d_model * d_ff > 0 && in.OneIn(8) ? in.Int(0, rows - 1) : -1;
  std::vector<float> x = DecodeTensor(in, static_cast<size_t>(rows) * d_model, kind, 1);
  const std::vector<float> w1 =
      DecodeTensor(in, static_cast<size_t>(d_model) * d_ff, Values::kGrid, 0.125f);
  const std::vector<float> w2 =
      DecodeTensor(in, static_cast<size_t>(d_ff) * d_model, Values::kGrid, 0.125f);
  const std::vector<float> b1 =
      with_b1 ? DecodeTensor(in, d_ff, Values::kGrid, 1) : std::vector<float>();
  const std::vector<float> b2 =
      with_b2 ? DecodeTensor(in, d_model, Values::kGrid, 1) : std::vector<float>();
  for (int c = 0; nan_row >= 0 && c < d_model; ++c) {
    x[static_cast<size_t>(nan_row) * d_model + c] = kNaN;
  }
  print_case = [=] {
    std::fprintf(stderr, "FeedForward(rows %d, d_model %d, d_ff %d, %s, b1 %d, b2 %d)\n", rows,
                 d_model, d_ff, activation == attn::Activation::kRelu ? "relu" : "gelu", with_b1,
                 with_b2);
    PrintFloats("x", x.data(), static_cast<size_t>(rows) * d_model, d_model);
    PrintFloats("w1", w1.data(), static_cast<size_t>(d_model) * d_ff, d_ff);
    PrintFloats("w2", w2.data(), static_cast<size_t>(d_ff) * d_model, d_model);
    if (with_b1) PrintFloats("b1", b1.data(), d_ff, 0);
    if (with_b2) PrintFloats("b2", b2.data(), d_model, 0);
  };
  const size_t count = static_cast<size_t>(rows) * d_model;
  std::vector<float> out(count + 1, Sentinel());
  MustSucceed("FeedForward", [&] {
    return attn::FeedForward(x.data(), rows, d_model, d_ff, w1.data(),
                             with_b1 ? b1.data() : nullptr, w2.data(),
                             with_b2 ? b2.data() : nullptr, activation, out.data());
  });
  std::vector<double> act(d_ff), act_err(d_ff);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * d_model;
    // 1. Hidden layer and activation, with their float error.
    for (int f = 0; f < d_ff; ++f) {
      double h = with_b1 ? b1[f] : 0.0, abs_h = std::fabs(h);
      for (int i = 0; i < d_model; ++i) {
        const double p = static_cast<double>(xr[i]) * w1[static_cast<size_t>(i) * d_ff + f];
        h += p;
        abs_h += std::fabs(p);
      }
      act[f] = RefActivation(activation, h, Gamma(d_model + 2) * abs_h + kTiny, &act_err[f]);
    }
    // 2. Output layer: the activations' error carried through w2, plus the product's own.
    for (int c = 0; c < d_model; ++c) {
      double y = with_b2 ? b2[c] : 0.0, abs_y = std::fabs(y), err = 0;
      for (int f = 0; f < d_ff; ++f) {
        const double w = w2[static_cast<size_t>(f) * d_model + c];
        y += act[f] * w;
        abs_y += (std::fabs(act[f]) + act_err[f]) * std::fabs(w);
        err += act_err[f] * std::fabs(w);
      }
      const size_t at = static_cast<size_t>(r) * d_model + c;
      if (r == nan_row) {
        if (!std::isnan(out[at])) {
          Fail("FeedForward out[%zu] = %.9g for a NaN row", at, out[at]);
        }
        continue;
      }
      ExpectClose("FeedForward out", at, out[at], y, 2 * (err + Gamma(d_ff + 2) * abs_y) + kTiny);
    }
  }
  if (!IsSentinel(out.back())) Fail("FeedForward wrote past [rows, d_model]");
}

// a, b, out: [count]; out may be a or b.
void FuzzAddInto(Decoder& in) {
  const int count = in.Int(0, 40), alias = in.Int(0, 2);
  const Values kind = DecodeValues(in);
  // One sentinel past each end: out may be a or b.
  std::vector<float> a(count + 1, Sentinel()), b(count + 1, Sentinel());
  for (int i = 0; i < count; ++i) a[i] = DecodeValue(in, kind);
  for (int i = 0; i < count; ++i) b[i] = DecodeValue(in, kind);
  const std::vector<float> a0 = a, b0 = b;
  print_case = [=] {
    std::fprintf(stderr, "AddInto(count %d, out %s)\n", count,
                 alias == 0   ? "separate"
                 : alias == 1 ? "= a"
                              : "= b");
    PrintFloats("a", a0.data(), count, 0);
    PrintFloats("b", b0.data(), count, 0);
  };
  std::vector<float> out(count + 1, Sentinel());
  float* dst = alias == 0 ? out.data() : alias == 1 ? a.data() : b.data();
  MustSucceed("AddInto", [&] { return attn::AddInto(a.data(), b.data(), count, dst); });
  for (int i = 0; i < count; ++i) {
    const double want = static_cast<double>(a0[i]) + b0[i];
    if (std::isfinite(want)) {
      ExpectClose("AddInto out", i, dst[i], want, kEps * std::fabs(want) + 1e-45);
    } else {
      ExpectSameNonFinite("AddInto out", i, dst[i], want);
    }
  }
  if (!IsSentinel(dst[count])) Fail("AddInto wrote past [count]");
}

// x: [sets, set_size, dim]   out: [sets, dim]; NaN propagates through every op.
void FuzzSetPool(Decoder& in) {
  const attn::PoolOp op = static_cast<attn::PoolOp>(in.Int(0, 2));
  const int sets = in.Int(0, 4), dim = in.Int(0, 12);
  const int set_size = in.Int(op == attn::PoolOp::kSum ? 0 : 1, 9);
  const Values kind = DecodeValues(in);
  const std::vector<float> x =
      DecodeTensor(in, static_cast<size_t>(sets) * set_size * dim, kind, 1);
  print_case = [=] {
    std::fprintf(stderr, "SetPool(sets %d, set_size %d, dim %d, op %d)\n", sets, set_size, dim,
                 static_cast<int>(op));
    PrintFloats("x", x.data(), static_cast<size_t>(sets) * set_size * dim, dim);
  };
  std::vector<float> out(static_cast<size_t>(sets) * dim + 1, Sentinel());
  MustSucceed("SetPool",
              [&] { return attn::SetPool(x.data(), sets, set_size, dim, op, out.data()); });
  for (int s = 0; s < sets; ++s) {
    for (int c = 0; c < dim; ++c) {
      double sum = 0, abs_sum = 0, max = -HUGE_VAL;
      bool nan = false;
      for (int i = 0; i < set_size; ++i) {
        const double v = x[(static_cast<size_t>(s) * set_size + i) * dim + c];
        nan = nan || std::isnan(v);
        sum += v;
        abs_sum += std::fabs(v);
        max = std::max(max, v);
      }
      double want = op == attn::PoolOp::kSum    ? sum
                    : op == attn::PoolOp::kMean ? sum / set_size
                                                : max;
      if (nan) want = std::numeric_limits<double>::quiet_NaN();
      const size_t at = static_cast<size_t>(s) * dim + c;
      if (!std::isfinite(want)) {
        ExpectSameNonFinite("SetPool out", at, out[at], want);
      } else if (op == attn::PoolOp::kMax) {
        if (out[at] != want) Fail("SetPool out[%zu] = %.9g, max %.9g", at, out[at], want);
      } else {
        ExpectClose(
            "SetPool out", at, out[at], want,
            Gamma(set_size + 1) * abs_sum / (op == attn::PoolOp::kMean ? set_size : 1) + 1e-45);
      }
    }
  }
  if (!IsSentinel(out.back())) Fail("SetPool wrote past [sets, dim]");
}

// ---------------------------------------------------------------------------------------------
// LaplacianEncoding.   edges: [num_edges, 2]   vectors: [num_nodes, k]   values: [k]

// Eigenvalues (ascending) of a symmetric matrix by cyclic Jacobi rotations, in double.
//   a: [n, n] (destroyed)   vectors: [n, n], column c the eigenvector of values[c]
void Jacobi(std::vector<double> a, int n, std::vector<double>* values,
            std::vector<double>* vectors) {
  std::vector<double> v(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i) * n + i] = 1;
  auto at = [n](std::vector<double>& m, int i, int j) -> double& {
    return m[static_cast<size_t>(i) * n + j];
  };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) off += at(a, i, j) * at(a, i, j);
    if (off < 1e-30) break;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        if (at(a, p, q) == 0) continue;
        const double theta = (at(a, q, q) - at(a, p, p)) / (2 * at(a, p, q));
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double cs = 1 / std::sqrt(t * t + 1), sn = t * cs;
        for (int r = 0; r < n; ++r) {  // columns p, q
          const double arp = at(a, r, p), arq = at(a, r, q);
          at(a, r, p) = cs * arp - sn * arq;
          at(a, r, q) = sn * arp + cs * arq;
        }
        for (int r = 0; r < n; ++r) {  // rows p, q
          const double apr = at(a, p, r), aqr = at(a, q, r);
          at(a, p, r) = cs * apr - sn * aqr;
          at(a, q, r) = sn * apr + cs * aqr;
        }
        for (int r = 0; r < n; ++r) {
          const double vrp = at(v, r, p), vrq = at(v, r, q);
          at(v, r, p) = cs * vrp - sn * vrq;
          at(v, r, q) = sn * vrp + cs * vrq;
        }
      }
    }
  }
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int x, int y) { return at(a, x, x) < at(a, y, y); });
  values->resize(n);
  vectors->assign(static_cast<size_t>(n) * n, 0.0);
  for (int c = 0; c < n; ++c) {
    (*values)[c] = at(a, order[c], order[c]);
    for (int r = 0; r < n; ++r) (*vectors)[static_cast<size_t>(r) * n + c] = at(v, r, order[c]);
  }
}

// L = I - D^-1/2·A·D^-1/2 of an undirected graph (repeats and self-loops ignored); an
// isolated node has a zero row and column.   edges: [num_edges, 2]   L: [n, n]
std::vector<double> RefLaplacian(int n, const std::vector<int32_t>& edges, int num_edges) {
  std::vector<double> adjacency(static_cast<size_t>(n) * n, 0.0), degree(n, 0.0), lap(adjacency);
  auto at = [n](std::vector<double>& m, int i, int j) -> double& {
    return m[static_cast<size_t>(i) * n + j];
  };
  for (int e = 0; e < num_edges; ++e) {
    const int a = edges[2 * e], b = edges[2 * e + 1];
    if (a != b) at(adjacency, a, b) = at(adjacency, b, a) = 1;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) degree[i] += at(adjacency, i, j);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) {
        at(lap, i, j) = degree[i] > 0 ? 1.0 : 0.0;
      } else if (at(adjacency, i, j) != 0) {
        at(lap, i, j) = -1 / std::sqrt(degree[i] * degree[j]);
      }
    }
  }
  return lap;
}

// Checks the k vectors and values against L and its reference spectrum: eigenvalue c + 1
// (the first is skipped), unit norm, L·v = λ·v, orthogonality, the sign rule, and, for an
// isolated eigenvalue (one eigenvector up to sign), the reference vector itself.
//   lap: [n, n]  ref_values: [n] ascending  ref_vectors: [n, n] (column c for value c)
//   vectors: [n, k]  values: [k]
void CheckLaplacian(int n, int k, const std::vector<double>& lap,
                    const std::vector<double>& ref_values, const std::vector<double>& ref_vectors,
                    const std::vector<float>& vectors, const std::vector<float>& values) {
  auto vec = [&](int i, int c) -> double { return vectors[static_cast<size_t>(i) * k + c]; };
  for (int c = 0; c < k; ++c) {
    const double lambda = ref_values[c + 1];
    ExpectClose("LaplacianEncoding values", c, values[c], lambda, 1e-5);
    double norm = 0, max_pos = 0, max_neg = 0;
    for (int i = 0; i < n; ++i) {
      norm += vec(i, c) * vec(i, c);
      max_pos = std::max(max_pos, vec(i, c));
      max_neg = std::max(max_neg, -vec(i, c));
      double lv = 0;
      for (int j = 0; j < n; ++j) lv += lap[static_cast<size_t>(i) * n + j] * vec(j, c);
      if (!(std::fabs(lv - lambda * vec(i, c)) < 2e-5)) {
        Fail("LaplacianEncoding vector %d: (L·v - λ·v)[%d] = %.3g", c, i, lv - lambda * vec(i, c));
      }
    }
    if (!(std::fabs(norm - 1) < 1e-5)) Fail("LaplacianEncoding vector %d has norm² %.9g", c, norm);
    // The entry of largest magnitude is positive (unless a negative one ties with it).
    if (!(max_pos >= max_neg - 1e-6)) Fail("LaplacianEncoding vector %d: largest entry < 0", c);
    for (int c2 = 0; c2 < c; ++c2) {
      double dot = 0;
      for (int i = 0; i < n; ++i) dot += vec(i, c) * vec(i, c2);
      if (!(std::fabs(dot) < 1e-5)) Fail("LaplacianEncoding vectors %d, %d: dot %.3g", c, c2, dot);
    }
    const double gap =
        std::min(lambda - ref_values[c], c + 2 < n ? ref_values[c + 2] - lambda : 1.0);
    if (gap < 1e-3) continue;
    double dot = 0;
    for (int i = 0; i < n; ++i) dot += ref_vectors[static_cast<size_t>(i) * n + c + 1] * vec(i, c);
    if (!(std::fabs(std::fabs(dot) - 1) < 1e-4)) {
      Fail("LaplacianEncoding vector %d: |v·v_ref| = %.9g, not 1 (eigenvalue %.9g, gap %.3g)", c,
           std::fabs(dot), lambda, gap);
    }
  }
}

// edges: [num_edges, 2]   vectors: [num_nodes, k]   values: [k]; small graphs (n <= 9), and
// now and then an invalid k or edge (kBadArgument expected).
void FuzzLaplacian(Decoder& in) {
  const int n = in.Int(0, 9), num_edges = in.Int(0, 24);
  int k = n > 1 ? in.Int(0, n - 1) : 0;
  bool valid = n >= 1;  // k <= n - 1
  if (in.OneIn(16)) {
    k = in.Bool() ? -1 : n;
    valid = false;
  }
  std::vector<int32_t> edges(2 * static_cast<size_t>(num_edges) + 1);
  for (int e = 0; e < 2 * num_edges; ++e) {
    edges[e] = n > 0 ? in.Int(0, n - 1) : 0;
    if (in.OneIn(64)) edges[e] = in.Bool() ? -1 : n;
    if (edges[e] < 0 || edges[e] >= n) valid = false;
  }
  print_case = [=] {
    std::fprintf(stderr, "LaplacianEncoding(num_nodes %d, num_edges %d, k %d)\n", n, num_edges, k);
    PrintInts("edges", edges.data(), 2 * static_cast<size_t>(num_edges));
  };
  const int cols = std::max(k, 0);
  std::vector<float> vectors(static_cast<size_t>(n) * cols + 1, Sentinel());
  std::vector<float> values(cols + 1, Sentinel());
  const attn::Status status =
      attn::LaplacianEncoding(n, edges.data(), num_edges, k, vectors.data(), values.data());
  if (!valid) {
    ExpectStatus("LaplacianEncoding (invalid)", status, attn::Status::kBadArgument);
    return;
  }
  ExpectStatus("LaplacianEncoding", status, attn::Status::kOk);
  if (!IsSentinel(vectors.back()) || !IsSentinel(values.back())) {
    Fail("LaplacianEncoding wrote past its outputs");
  }
  const std::vector<double> lap = RefLaplacian(n, edges, num_edges);
  std::vector<double> ref_values, ref_vectors;
  Jacobi(lap, n, &ref_values, &ref_vectors);
  CheckLaplacian(n, k, lap, ref_values, ref_vectors, vectors, values);
}

// The first byte picks the entry point; attention and multi-head attention get the most draws.
using FuzzFunction = void (*)(Decoder&);
constexpr FuzzFunction kTargets[16] = {
    FuzzAttention,   FuzzAttention,  FuzzAttention, FuzzAttention, FuzzMultiHead, FuzzMultiHead,
    FuzzMultiHead,   FuzzSinusoidal, FuzzRope,      FuzzAlibi,     FuzzLayerNorm, FuzzFeedForward,
    FuzzFeedForward, FuzzAddInto,    FuzzSetPool,   FuzzLaplacian};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Decoder in(data, size);
  kTargets[in.Byte() % 16](in);
  print_case = nullptr;
  return 0;
}
