// Choosing the next token from a decoder's logits as Hugging Face's generate does: its logits
// processors in its order (transformers' _get_logits_processor), all in float64:
//   1. repetition penalty (greedy and sampling): a token already in the sequence has its logit
//      divided by the penalty when positive, multiplied when negative;
//   then, when sampling (temperature > 0), the warpers:
//   2. temperature: logits / T;
//   3. top-k: tokens below the k-th largest logit removed (ties with it kept);
//   4. top-p: sorted ascending, the tokens whose cumulative probability is <= 1 - p removed
//      (the most likely always kept);
//   5. min-p: tokens whose probability is below min_p × the top probability removed.
// Greedy decoding takes the largest processed logit (the first on ties); sampling draws from
// the softmax of what is left, with a seeded generator so that a seed repeats its text.
export { seededRandom } from '../parameters.js';

/** The index of the largest logit (the first on ties). */
export function argmax(logits) {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

// 1. The repetition penalty on every token of `seen` (each once), in float64.
function penalize(logits, seen, penalty) {
  // new Float64Array(typed array) converts in one pass; Float64Array.from iterates (0.4-1.8 ms
  // a token on a 49,152-word vocabulary, profiled in a decode loop).
  const z = new Float64Array(logits);
  if (penalty === 1) return z;
  for (const id of new Set(seen)) z[id] = logits[id] < 0 ? logits[id] * penalty : logits[id] / penalty;
  return z;
}

// 2–5. The tokens the warpers keep, most likely first, with their weights exp((z − max) / T)
// (proportional to softmax(z / T); the differences are <= 0, so no temperature overflows:
// z / 1e-310 would be ±Infinity and every weight NaN).
function warp(z, { temperature, topK, topP, minP }) {
  let order = Array.from(z.keys()).sort((a, b) => z[b] - z[a] || a - b);
  // 3. Top-k: every token at least as likely as the k-th.
  if (topK > 0 && topK < order.length) {
    const kth = z[order[topK - 1]];
    let keep = topK;
    while (keep < order.length && z[order[keep]] >= kth) keep++;
    order = order.slice(0, keep);
  }
  const max = z[order[0]];
  let weights = order.map((i) => Math.exp((z[i] - max) / temperature));
  // 4. Top-p: the ascending cumulative probability, as transformers sums it.
  if (topP < 1) {
    const total = weights.reduce((a, w) => a + w, 0);
    let keep = 1;
    let cumulative = 0;
    for (let i = order.length - 1; i >= 1; i--) {
      cumulative += weights[i] / total;
      if (cumulative > 1 - topP) {
        keep = i + 1;
        break;
      }
    }
    order = order.slice(0, keep);
    weights = weights.slice(0, keep);
  }
  // 5. Min-p: a token's probability over the top one's is its weight (the top one's is 1).
  if (minP > 0) {
    let keep = 1;
    while (keep < order.length && weights[keep] >= minP) keep++;
    order = order.slice(0, keep);
    weights = weights.slice(0, keep);
  }
  return { order, weights };
}

/**
 * The next token, and the processed logits it was chosen from (float64, −Infinity where a
 * warper removed a token), as transformers' `output_scores` gives them.
 * @param {Float32Array} logits [V]
 * @param {ArrayLike<number>} seen the ids so far (the prompt and the new ones)
 * @param {{ temperature: number, topK: number, topP: number, minP: number, repetitionPenalty: number }} options
 * @param {() => number} random
 * @returns {{ id: number, scores: () => Float64Array }}
 */
export function pickToken(logits, seen, options, random) {
  if (options.temperature === 0 && options.repetitionPenalty === 1) {
    // Greedy without a penalty: float32 → float64 keeps the order, so the argmax of the
    // logits as they are is the processed one's; the float64 copy is made only if asked for.
    return { id: argmax(logits), scores: () => new Float64Array(logits) };
  }
  const z = penalize(logits, seen, options.repetitionPenalty);
  if (options.temperature === 0) return { id: argmax(z), scores: () => z };
  const { order, weights } = warp(z, options);
  const total = weights.reduce((a, w) => a + w, 0);
  let r = random() * total;
  let id = order[order.length - 1];
  for (let i = 0; i < order.length; i++) {
    r -= weights[i];
    if (r < 0) {
      id = order[i];
      break;
    }
  }
  const scores = () => {
    const out = new Float64Array(z.length).fill(-Infinity);
    for (const i of order) out[i] = z[i] / options.temperature;
    return out;
  };
  return { id, scores };
}

/**
 * The distribution sampling draws the next token from (steps 2–5, as pickToken samples it):
 * softmax(logits / T) over the tokens top-k, top-p and min-p keep, renormalised to sum to 1,
 * and 0 for the removed ones; temperature 0 (greedy): 1 on the argmax.
 * @param {ArrayLike<number>} logits [V]
 * @param {{ temperature: number, topK: number, topP: number, minP: number }} options (checked)
 * @returns {Float64Array} [V]
 */
export function samplingDistribution(logits, options) {
  const z = new Float64Array(logits);
  const out = new Float64Array(z.length);
  if (options.temperature === 0) {
    out[argmax(z)] = 1;
    return out;
  }
  const { order, weights } = warp(z, options);
  const total = weights.reduce((a, w) => a + w, 0);
  order.forEach((id, i) => (out[id] = weights[i] / total));
  return out;
}

// Lets the page paint and other tasks run between tokens (a macrotask, without setTimeout's
// 4 ms clamp).
export function nextTask() {
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
