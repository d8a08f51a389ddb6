// Numeric assertions that say where and by how much values differ.
import assert from 'node:assert/strict';

/**
 * Asserts |actual - expected| <= atol + rtol·|expected| elementwise (NaN must meet NaN,
 * infinities must be equal), and equal shapes. On failure reports the first mismatch, its
 * index and the largest difference.
 */
export function assertClose(actual, expected, { atol = 1e-5, rtol = 1e-4, label = 'tensor' } = {}) {
  if (expected.shape) assert.deepEqual(actual.shape, expected.shape, `${label}: shape`);
  const a = actual.data ?? actual;
  const e = expected.data ?? expected;
  assert.equal(a.length, e.length, `${label}: length`);
  let first = -1,
    maxDiff = 0,
    maxAt = -1;
  for (let i = 0; i < e.length; i++) {
    let bad;
    if (Number.isNaN(e[i]) || Number.isNaN(a[i])) bad = Number.isNaN(e[i]) !== Number.isNaN(a[i]);
    else if (!Number.isFinite(e[i]) || !Number.isFinite(a[i])) bad = a[i] !== e[i];
    else {
      const diff = Math.abs(a[i] - e[i]);
      if (diff > maxDiff) {
        maxDiff = diff;
        maxAt = i;
      }
      bad = diff > atol + rtol * Math.abs(e[i]);
    }
    if (bad && first < 0) first = i;
  }
  if (first >= 0) {
    assert.fail(
      `${label}: first mismatch at flat index ${first}: got ${a[first]}, expected ${e[first]}; ` +
        `max |diff| ${maxDiff.toExponential(3)} at ${maxAt} (atol ${atol}, rtol ${rtol}, ${e.length} values)`,
    );
  }
  return maxDiff;
}

/** Deterministic uniform random numbers in [lo, hi) (mulberry32). */
export function rng(seed) {
  let s = seed >>> 0;
  return (lo = -1, hi = 1) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 4294967296);
  };
}

/** A random tensor { data: Float32Array, shape }. */
export function randomTensor(random, shape, lo = -1, hi = 1) {
  const n = shape.reduce((x, y) => x * y, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = random(lo, hi);
  return { data, shape };
}
