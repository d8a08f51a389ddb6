// Positions demo: (1) the sinusoidal encoding as a heat map; (2) why a transformer needs
// it: multi-head self-attention is permutation equivariant, so shuffling the tokens only
// shuffles their outputs, unless positions are added.

import { TOKENS, tokenEmbeddings } from './sentence.js';

// Diverging colour for values in [-1, 1]: blue (negative), white (0), red (positive).
function colour(x) {
  const t = Math.max(-1, Math.min(1, x));
  const r = t > 0 ? 255 : Math.round(255 * (1 + t));
  const b = t < 0 ? 255 : Math.round(255 * (1 - t));
  const g = Math.round(255 * (1 - Math.abs(t)));
  return `rgb(${r}, ${g}, ${b})`;
}

function drawHeatMap(canvas, t) {
  const [rows, cols] = t.shape;
  const cell = Math.max(2, Math.floor(Math.min(480 / cols, 320 / rows)));
  canvas.width = cols * cell;
  canvas.height = rows * cell;
  const ctx = canvas.getContext('2d');
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      ctx.fillStyle = colour(t.data[i * cols + j]);
      ctx.fillRect(j * cell, i * cell, cell, cell);
    }
}

/** Builds both demos inside `container`. */
export function renderPositions(attn, container) {
  container.innerHTML = `
    <div class="controls">
      <label>positions <input type="range" name="peLen" min="4" max="64" value="32"><output name="peLenOut"></output></label>
      <label>d_model <input type="range" name="peDim" min="4" max="64" step="2" value="32"><output name="peDimOut"></output></label>
      <label>base <select name="peBase"><option>10000</option><option>100</option><option>10</option></select></label>
    </div>
    <p class="caption" data-role="peCaption"></p>
    <canvas data-role="pe" aria-label="sinusoidal positional encoding heat map"></canvas>
    <h3>Shuffle the sentence</h3>
    <p>Multi-head self-attention (2 heads, d_model = 8) over the tokens below. Shuffle them:
      without positions every token keeps exactly its output (the layer is permutation
      equivariant); with sinusoidal positions added, outputs change with the order.</p>
    <div class="controls">
      <label><input type="checkbox" name="withPe"> add positional encoding</label>
      <button type="button" name="shuffle">shuffle tokens</button>
    </div>
    <p class="caption" data-role="deviation"></p>
    <table class="bench" data-role="perm" tabindex="0" aria-label="outputs before and after the shuffle"><thead><tr><th>token</th><th>output (first 3 features)</th><th>after shuffle</th><th>same?</th></tr></thead><tbody></tbody></table>`;
  const $ = (n) => container.querySelector(`[name="${n}"]`);
  const drawPe = () => {
    const L = Number($('peLen').value),
      d = Number($('peDim').value),
      base = Number($('peBase').value);
    $('peLenOut').value = L;
    $('peDimOut').value = d;
    drawHeatMap(container.querySelector('[data-role="pe"]'), attn.sinusoidalEncoding(L, d, { base }));
    container.querySelector('[data-role="peCaption"]').textContent =
      `sinusoidalEncoding(${L}, ${d}, { base: ${base} }): rows are positions, columns features; blue −1, white 0, red +1. Even columns are sin, odd are cos; frequency falls from left to right.`;
  };
  const layer = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 11 });
  const embeddings = tokenEmbeddings(8);
  let order = TOKENS.map((_, i) => i);
  const run = (permutation) => {
    const rows = permutation.map((i) => embeddings[i]);
    let x = { data: Float32Array.from(rows.flat()), shape: [rows.length, 8] };
    if ($('withPe').checked) x = attn.addPositionalEncoding(x, attn.sinusoidalEncoding(rows.length, 8));
    return layer.forward(x).output;
  };
  const fmt = (t, row) => Array.from(t.data.slice(row * 8, row * 8 + 3), (v) => v.toFixed(3)).join('  ');
  const drawPerm = () => {
    const identity = TOKENS.map((_, i) => i);
    const before = run(identity);
    const after = run(order);
    const body = container.querySelector('[data-role="perm"] tbody');
    body.replaceChildren();
    let deviation = 0;
    identity.forEach((token) => {
      const at = order.indexOf(token);
      for (let c = 0; c < 8; c++)
        deviation = Math.max(deviation, Math.abs(before.data[token * 8 + c] - after.data[at * 8 + c]));
      const same = Array.from({ length: 8 }, (_, c) =>
        Math.abs(before.data[token * 8 + c] - after.data[at * 8 + c]),
      ).every((d) => d < 1e-5);
      const tr = body.insertRow();
      tr.dataset.same = String(same);
      for (const text of [
        `${TOKENS[token]} (#${token + 1} → #${at + 1})`,
        fmt(before, token),
        fmt(after, at),
        same ? '✓ same' : '✗ changed',
      ])
        tr.insertCell().textContent = text;
    });
    const note = container.querySelector('[data-role="deviation"]');
    note.dataset.value = String(deviation);
    note.textContent = `Largest difference between a token's output before and after the shuffle, over all ${TOKENS.length} tokens and 8 features: ${deviation.toExponential(2)}${$('withPe').checked ? ' (positions make the order matter)' : deviation === 0 ? ' (exactly equal: the same sums in the same order)' : ' (float32 rounding only)'}.`;
  };
  container.addEventListener('input', (e) => (e.target.name?.startsWith('pe') ? drawPe() : drawPerm()));
  $('shuffle').addEventListener('click', () => {
    do order = [...order].sort(() => Math.random() - 0.5);
    while (order.every((v, i) => v === i));
    drawPerm();
  });
  order = [5, 2, 0, 4, 1, 3];
  drawPe();
  drawPerm();
}
