// The memory bounds' denominator, in Node and in a tab (no imports: any page can load it).

/** Copy bandwidth in this runtime (bytes/s): the best of 7 copies of a 256 MiB Float32Array. */
export function copyBandwidth() {
  const n = 64 << 20;
  const src = new Float32Array(n).fill(1),
    dst = new Float32Array(n);
  let best = Infinity;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    dst.set(src);
    best = Math.min(best, performance.now() - t0);
  }
  return (4 * n) / (best / 1000);
}
