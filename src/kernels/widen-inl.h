// Widening half-stored keys and values (a bfloat16 or float16 key/value cache) to float32,
// exactly, four lanes at a time (kv_storage.h), and q8_0 elements. Include inside
// HWY_NAMESPACE after kernels/simd-inl.h, kernels/kv_storage.h, kernels/quantized.h and
// kernels/loaded_lanes.h.

#if defined(ATTENTION_WASM_WIDEN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ATTENTION_WASM_WIDEN_INL_H_
#undef ATTENTION_WASM_WIDEN_INL_H_
#else
#define ATTENTION_WASM_WIDEN_INL_H_
#endif

using DU32 = hn::Full128<uint32_t>;
using DU16 = hn::Rebind<uint16_t, DU32>;  // 4 halves, the lanes of one float vector

// bfloat16 → float32: the 16 bits are the float's upper half.
HWY_INLINE V WidenBf16(const uint16_t* src) {
  const DU32 du;
  return hn::BitCast(D(), hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(DU16(), src))));
}

// WidenHalf's constants, loaded (kernels/loaded_lanes.h says why). Rows: the sign, the
// magnitude mask, Infinity's exponent (uint32 lanes); 2^112 (float bits); the largest finite
// half's magnitude (int32).
inline auto kWidenHalf = SplatRows<uint32_t>({
    0x8000u,
    0x7fffu,
    0x7f800000u,
    0x77800000u,  // 0x1p112f
    0x7bffu,
});

// float16 → float32: the exponent and mantissa moved into place as a float (magnitude << 13)
// is the value · 2^-112, so · 2^112 rebiases it exactly, subnormal halves included (they
// become normal floats). Highway 1.0.3's PromoteTo turns Infinity into 65536·(1 + m): the
// all-ones exponent (Infinity, NaN) is set by hand here.
//   bits: four halves, one in the low 16 bits of each lane (the high bits zero)
HWY_INLINE V WidenHalfBits(hn::Vec<DU32> bits) {
  const D d;
  const DU32 du;
  const hn::RebindToSigned<DU32> di;  // Highway 1.0.3 compares signed lanes only
  const auto c = [&](int i) { return hn::Load(du, kWidenHalf.row[i]); };
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, c(0)));
  const auto magnitude = hn::And(bits, c(1));
  const auto moved = hn::ShiftLeft<13>(magnitude);
  const auto finite = hn::BitCast(du, hn::Mul(hn::BitCast(d, moved), hn::BitCast(d, c(3))));
  const auto special = hn::Or(moved, c(2));
  const auto is_special =
      hn::RebindMask(du, hn::Gt(hn::BitCast(di, magnitude), hn::BitCast(di, c(4))));
  return hn::BitCast(d, hn::Or(sign, hn::IfThenElse(is_special, special, finite)));
}
HWY_INLINE V WidenHalf(const uint16_t* src) {
  return WidenHalfBits(hn::PromoteTo(DU32(), hn::LoadU(DU16(), src)));
}

// A q8_0 block's float16 scale as a float32, exactly: a finite half's exponent and mantissa
// moved into place as a float are its value · 2^-112 (WidenHalf's rule), inline; Infinity and
// NaN (a block of values past 8·10^6) through HalfToFloat.
HWY_INLINE float Q8Scale(const uint8_t* block) {
  const uint32_t half = static_cast<uint32_t>(block[0] | (block[1] << 8));
  if ((half & 0x7c00u) == 0x7c00u) return HalfToFloat(static_cast<uint16_t>(half));
  const uint32_t moved = (half & 0x7fffu) << 13;
  float magnitude;
  std::memcpy(&magnitude, &moved, sizeof(magnitude));
  magnitude *= 0x1p112f;
  return (half & 0x8000u) != 0 ? -magnitude : magnitude;
}

// Four q8_0 codes × their block's scale as float32 lanes (d·q, exact).   codes: [4]
HWY_INLINE V WidenFourCodes(const int8_t* codes, V scale) {
  const D d;
  const hn::RebindToSigned<D> di;
  const hn::Rebind<int8_t, decltype(di)> d8;  // 4 codes, the lanes of one float vector
  return hn::Mul(hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(d8, codes))), scale);
}

// Four halves of storage s as float32 lanes.
HWY_INLINE V WidenFour(const uint16_t* src, KvStorage s) {
  return s == KvStorage::kBfloat16 ? WidenBf16(src) : WidenHalf(src);
}

#endif  // ATTENTION_WASM_WIDEN_INL_H_
