// The sentence the demos share, and a deterministic embedding of its words.

export const TOKENS = ['the', 'cat', 'sat', 'on', 'the', 'mat'];

/** One row of dModel features per token; equal words get equal rows (the two "the"). */
export function tokenEmbeddings(dModel) {
  const words = [...new Set(TOKENS)];
  const table = words.map((w, k) =>
    Array.from({ length: dModel }, (_, c) => Math.sin(1.7 * (k + 1) * (c + 1) + w.length)),
  );
  return TOKENS.map((w) => table[words.indexOf(w)]);
}
