// Where an axis puts its numbered ticks: round steps from 0, and the last index (the
// explainer's strips, the training chart's steps).

/**
 * The indices an axis of n cells (or the values 0 … n − 1) labels: 0, every `step`-th, and n − 1, at most 8 labels;
 * `step` a power of 2 ('binary': dimensions, 0 8 16 24 31) or 1, 2 or 5 × 10^k ('decimal':
 * token ids, 0 50 100 … 250 304). A multiple nearer n − 1 than half a step is left out (its
 * label would touch the last one's).
 */
export function tickIndices(n, kind = 'binary') {
  if (n <= 1) return [0];
  const most = 7; // intervals
  let step = 1;
  for (let k = 0; (n - 1) / step > most; k++)
    step = kind === 'binary' ? 2 ** (k + 1) : [2, 5, 10][k % 3] * 10 ** Math.floor(k / 3);
  const ticks = [];
  for (let i = 0; i < n - 1; i += step) if (i === 0 || n - 1 - i >= step / 2) ticks.push(i);
  ticks.push(n - 1);
  return ticks;
}
