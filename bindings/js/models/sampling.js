// Choosing the next token from a decoder's logits: greedy (temperature 0), or sampling with
// temperature, then top-k, then top-p (nucleus), in that order as Hugging Face's generate
// applies them; all in float64, with a seeded generator so a seed repeats its text.
export { seededRandom } from '../parameters.js';

/** The index of the largest logit (the first on ties). */
export function argmax(logits) {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/**
 * The next token.
 * @param {Float32Array} logits [V]
 * @param {{ temperature: number, topK: number, topP: number }} options
 * @param {() => number} random
 */
export function pickToken(logits, { temperature, topK, topP }, random) {
  if (temperature === 0) return argmax(logits);
  // 1. Candidates by logit, best first; top-k keeps the first k.
  let order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
  if (topK > 0) order = order.slice(0, topK);
  // 2. Softmax of logits / temperature over the candidates, as exp((logit - max) / T): the
  //    differences are <= 0, so no temperature overflows (logits / 1e-310 would be ±Infinity
  //    and every weight NaN); a tiny temperature gives the best token weight 1 and the rest
  //    0, which is greedy decoding (ties shared), the limit as T → 0.
  const max = logits[order[0]];
  const weights = order.map((i) => Math.exp((logits[i] - max) / temperature));
  const total = weights.reduce((a, w) => a + w, 0);
  // 3. Top-p: the smallest prefix whose probability reaches p (at least one token).
  let keep = order.length;
  if (topP < 1) {
    let sum = 0;
    for (let i = 0; i < order.length; i++) {
      sum += weights[i] / total;
      if (sum >= topP) {
        keep = i + 1;
        break;
      }
    }
  }
  const kept = weights.slice(0, keep);
  const keptTotal = kept.reduce((a, w) => a + w, 0);
  let r = random() * keptTotal;
  for (let i = 0; i < keep; i++) {
    r -= kept[i];
    if (r < 0) return order[i];
  }
  return order[keep - 1];
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
