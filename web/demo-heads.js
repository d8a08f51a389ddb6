// Multi-head demo: the same sentence through MultiHeadAttention with 1, 2 or 4 heads; each
// head's weight matrix is its own view of which token attends to which (trace: true), shown
// by an <attention-heatmap> (one grid per head plus their average, or bertviz-style lines).
import { TOKENS, tokenEmbeddings } from './sentence.js';

const D_MODEL = 8;

function embed(attn) {
  const rows = tokenEmbeddings(D_MODEL);
  const x = { data: Float32Array.from(rows.flat()), shape: [TOKENS.length, D_MODEL] };
  return attn.addPositionalEncoding(x, attn.sinusoidalEncoding(TOKENS.length, D_MODEL));
}

/** Builds the demo inside `container`. */
export function renderHeads(attn, container) {
  container.innerHTML = `
    <div class="controls">
      <label>heads <select name="heads"><option>1</option><option selected>2</option><option>4</option></select></label>
      <label>seed <input type="number" name="seed" value="3" min="0" max="999" style="width: 4em"></label>
      <label><input type="checkbox" name="causal"> causal</label>
    </div>
    <p class="caption" data-role="caption"></p>
    <attention-heatmap id="heads-heatmap" tokens="${TOKENS.join(',')}"></attention-heatmap>`;
  const $ = (n) => container.querySelector(`[name="${n}"]`);
  const x = embed(attn);
  const update = () => {
    const numHeads = Number($('heads').value);
    const layer = new attn.MultiHeadAttention({ dModel: D_MODEL, numHeads, seed: Number($('seed').value) || 0 });
    try {
      const { trace } = layer.forward(x, x, x, { trace: true, causal: $('causal').checked });
      container.querySelector('attention-heatmap').weights = trace.weights; // [heads, L, L]
      container.querySelector('[data-role="caption"]').textContent =
        `d_model = ${D_MODEL}, ${numHeads} head${numHeads > 1 ? 's' : ''} of head_dim ${D_MODEL / numHeads}: ` +
        `Q, K, V are ${trace.q.shape.join('×')} per batch (heads × tokens × head_dim); the heads' outputs are concatenated ` +
        `to ${trace.concat.shape.join('×')} and projected by W_O. Tokens carry sinusoidal positions.`;
    } finally {
      layer.dispose();
    }
  };
  container.addEventListener('input', update);
  update();
}
