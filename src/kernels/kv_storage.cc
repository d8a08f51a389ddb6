// Rounding floats to a half key/value storage (scalar: it runs once per new token) and
// widening them back (Highway, static dispatch: it runs for every cached key and value each
// call reads).
#include "kernels/kv_storage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "hwy/highway.h"
#include "kernels/loaded_lanes.h"
#include "kernels/quantized.h"

namespace attn {

uint16_t FloatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  // Adding 0x7fff plus the kept part's last bit rounds the dropped 16 bits to nearest even
  // (a carry bumps the exponent, and past the largest bfloat16 reaches Infinity).
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

void NarrowRow(const float* src, int count, KvStorage s, uint16_t* dst) {
  if (s == KvStorage::kBfloat16) {
    for (int i = 0; i < count; ++i) dst[i] = FloatToBf16(src[i]);
  } else {
    for (int i = 0; i < count; ++i) dst[i] = FloatToHalf(src[i]);
  }
}

// Each block: its n <= 32 elements (zeros after), the scale's float16 little-endian, the codes.
void QuantizeKvRow(const float* src, int width, uint8_t* dst) {
  for (int start = 0; start < width; start += kKvQ8Block, dst += kKvQ8BlockBytes) {
    const int n = std::min(kKvQ8Block, width - start);
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(src[start + i]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t half = FloatToHalf(d);
    dst[0] = static_cast<uint8_t>(half & 0xff), dst[1] = static_cast<uint8_t>(half >> 8);
    int8_t* codes = reinterpret_cast<int8_t*>(dst + 2);
    for (int i = 0; i < kKvQ8Block; ++i) {
      codes[i] = i < n ? static_cast<int8_t>(std::round(src[start + i] * id)) : 0;
    }
  }
}

// The exponent e of a block whose largest magnitude is amax > 0: amax = m · 2^x with m in
// [0.5, 1), so 2^(x − 15) · 32767 >= amax unless m > 32767 / 32768.
int QueryBlockExponent(float amax) {
  int x = 0;
  std::frexp(amax, &x);
  const int e = x - 15;
  return amax <= std::ldexp(static_cast<float>(kQueryCodeMax), e) ? e : e + 1;
}

bool CodeQueryRow(const float* q, int width, int16_t* codes, float* scales) {
  for (int b = 0; b < width / kKvQ8Block; ++b) {
    const float* block = q + b * kKvQ8Block;
    float amax = 0.0f;
    for (int i = 0; i < kKvQ8Block; ++i) {
      if (!std::isfinite(block[i])) return false;
      amax = std::max(amax, std::fabs(block[i]));
    }
    const int e = amax == 0.0f ? 0 : QueryBlockExponent(amax);
    scales[b] = amax == 0.0f ? 0.0f : std::ldexp(1.0f, e);
    // q · 2^-e is exact (a power of two; a product below the normal range rounds to ±0 either
    // way), and |round(·)| <= 32767 by the choice of e. As two multiplies by powers of two
    // (2^-e reaches 2^163 for the smallest blocks), not an ldexp (a libc call) an element:
    // CodeQueryRow fell from 1.9% to 1.2-1.4% of a q8_0 decode step's samples in perf.
    const int first = std::min(-e, 127);
    const float up = std::ldexp(1.0f, first), rest = std::ldexp(1.0f, -e - first);
    for (int i = 0; i < kKvQ8Block; ++i) {
      codes[b * kKvQ8Block + i] = static_cast<int16_t>(std::nearbyint(block[i] * up * rest));
    }
  }
  return true;
}

void RoundQueryRow(const float* q, int width, float* out) {
  int16_t codes[kMaxCodedQueryWidth];
  float scales[kMaxCodedQueryWidth / kKvQ8Block];
  if (width > kMaxCodedQueryWidth || !CodeQueryRow(q, width, codes, scales)) {
    std::copy(q, q + width, out);
    return;
  }
  for (int i = 0; i < width; ++i) out[i] = codes[i] * scales[i / kKvQ8Block];
}

// Block by block: the scale once per run of elements in one block.
}  // namespace attn

HWY_BEFORE_NAMESPACE();
namespace attn {
namespace HWY_NAMESPACE {

#include "kernels/simd-inl.h"
#include "kernels/widen-inl.h"

// 16 codes × the block's scale into dst: one load, widened 8 → 16 → 32 bits (the same
// d·q as four at a time; a decode step at 8k keys spent a third of its time here when it
// loaded four codes a time).   codes: [16]   dst: [16]
HWY_INLINE void WidenSixteenCodes(const int8_t* codes, V scale, float* dst) {
  const D d;
  const hn::RebindToSigned<D> di;
  const hn::Full128<int8_t> d8;
  const hn::Full128<int16_t> d16;
  const hn::Half<decltype(d8)> d8h;
  const hn::Half<decltype(d16)> d16h;
  const auto all = hn::LoadU(d8, codes);
  const auto low = hn::PromoteTo(d16, hn::LowerHalf(d8h, all));
  const auto high = hn::PromoteTo(d16, hn::UpperHalf(d8h, all));
  const auto part = [&](auto half16) {
    return hn::Mul(hn::ConvertTo(d, hn::PromoteTo(di, half16)), scale);
  };
  hn::StoreU(part(hn::LowerHalf(d16h, low)), d, dst);
  hn::StoreU(part(hn::UpperHalf(d16h, low)), d, dst + 4);
  hn::StoreU(part(hn::LowerHalf(d16h, high)), d, dst + 8);
  hn::StoreU(part(hn::UpperHalf(d16h, high)), d, dst + 12);
}

// Block by block: the scale once per run of elements in one block, 16 then four codes at a
// time widened to float32 and multiplied by it (d·q, exact: the scalar tail computes the same).
void DequantizeQ8ElementsImpl(Q8Elements src, int count, float* dst) {
  const D d;
  for (int i = 0; i < count;) {
    const Q8Elements at = src + static_cast<size_t>(i);
    const uint8_t* block = at.block();
    const float scale = Q8Scale(block);
    const int first = static_cast<int>(at.index % kKvQ8Block);
    const int n = std::min(count - i, kKvQ8Block - first);
    const int8_t* codes = reinterpret_cast<const int8_t*>(block + 2 + first);
    const V scales = hn::Set(d, scale);
    int c = 0;
    for (; c + 16 <= n; c += 16) WidenSixteenCodes(codes + c, scales, dst + i + c);
    for (; c + kLanes <= n; c += kLanes)
      hn::StoreU(WidenFourCodes(codes + c, scales), d, dst + i + c);
    for (; c < n; ++c) dst[i + c] = static_cast<float>(codes[c]) * scale;
    i += n;
  }
}

void WidenRowImpl(const uint16_t* src, int count, KvStorage s, float* dst) {
  const D d;
  int i = 0;
  if (s == KvStorage::kBfloat16) {
    for (; i + kLanes <= count; i += kLanes) hn::StoreU(WidenBf16(src + i), d, dst + i);
    for (; i < count; ++i) dst[i] = Bf16ToFloat(src[i]);
  } else {
    for (; i + kLanes <= count; i += kLanes) hn::StoreU(WidenHalf(src + i), d, dst + i);
    for (; i < count; ++i) dst[i] = HalfToFloat(src[i]);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace attn
HWY_AFTER_NAMESPACE();

namespace attn {

void WidenRow(const uint16_t* src, int count, KvStorage s, float* dst) {
  HWY_STATIC_DISPATCH(WidenRowImpl)(src, count, s, dst);
}

void DequantizeQ8Elements(Q8Elements src, int count, float* dst) {
  HWY_STATIC_DISPATCH(DequantizeQ8ElementsImpl)(src, count, dst);
}

// A row's elements are addressed as Q8Elements address them (element i in block i / 32; a
// padded last block's zeros are never read).
void DequantizeKvRow(const uint8_t* src, int width, float* dst) {
  DequantizeQ8Elements(Q8Elements{src, 0}, width, dst);
}

}  // namespace attn
