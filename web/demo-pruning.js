// DynamicViT demo (seed 003): drop tokens with a keep decision D without changing shapes.
// G_ij = 1 if i = j else D_j, and Ã_ij = exp(P_ij)·G_ij / Σ_k exp(P_ik)·G_ik: a dropped
// token still attends to itself, but no other token attends to it.
import { matrixView } from './matrix-view.js';
import { TOKENS } from './sentence.js';

/** Builds the demo inside `container`. */
export function renderPruning(attn, container) {
  container.innerHTML = `
    <div class="controls" data-role="keep">${TOKENS.map((t, i) =>
      `<label><input type="checkbox" name="keep${i}" checked> keep “${t}” (#${i + 1})</label>`).join('')}</div>
    <div class="matrices" data-role="out"></div>`;
  const L = TOKENS.length, d = 4;
  // Basic self-attention without learned weights (seed 002): Q = K = V = X.
  const x = { data: Float32Array.from({ length: L * d }, (_, i) => Math.cos(1.3 * i + 0.4 * (i % d))), shape: [L, d] };
  const update = () => {
    const keep = TOKENS.map((_, i) => (container.querySelector(`[name="keep${i}"]`).checked ? 1 : 0));
    const g = { data: Float32Array.from({ length: L * L }, (_, f) => (Math.floor(f / L) === f % L || keep[f % L] ? 1 : 0)), shape: [L, L] };
    const r = attn.attention(x, x, x, { keepMask: keep, returnWeights: true });
    container.querySelector('[data-role="out"]').replaceChildren(
      matrixView('prune-g', 'G (1 if i = j, else keep_j)', g, { digits: 0 }),
      matrixView('prune-weights', 'Ã = softmax over the kept keys', r.weights, { digits: 2, heat: true }));
  };
  container.addEventListener('input', update);
  update();
}
