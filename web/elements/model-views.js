// The views of <attention-model> that are not an <attention-heatmap>: the model view (every
// layer × head as a small map, bertviz's model view), the neuron view (how one query's q·k
// builds each score of one head) and probability bars (next token, labels, masked tokens).
import { heatColour, formatNumber, visibleText } from './format.js';

/**
 * A token as a reader sees it, never a raw control character or U+FFFD: the text it covers
 * (spaces as ␣, newlines as ↵: format.js visibleText), a byte token as its code (<0x08>), a
 * byte-level BPE piece that is part of a character as its bytes (<0xE2><0x80>), or its
 * string without ## (a word piece), Ġ or ▁ (␣ for a lone space).
 */
export function tokenLabel(token, text) {
  if (/^<0x[0-9A-Fa-f]{2}>$/.test(token.text)) return token.text.toUpperCase().replace('0X', '0x');
  if (token.start >= 0 && token.end > token.start) {
    const covered = text.slice(token.start, token.end);
    if (!covered.includes('\ufffd')) return visibleText(covered);
  }
  if (/^[Ġ▁]$/.test(token.text)) return '␣'; // a space of its own
  const bytes = byteLevelBytes(token.text);
  if (bytes) {
    try {
      return visibleText(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      // Part of a character: its bytes, when the piece is surely byte-level (a stand-in
      // above U+00FF); else it is plain text with accents ("café" without offsets).
      if (/[\u0100-\u0143]/.test(token.text))
        return Array.from(bytes, (b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`).join('');
    }
  }
  return visibleText(token.text.replace(/^##/, '').replace(/^[Ġ▁]/, '') || token.text);
}

// GPT-2's byte-level alphabet: the printable bytes stand for themselves, the others (space,
// control bytes, ...) for 256 + their rank among them (Ġ is the space, 0x20).
const BYTE_OF = (() => {
  const map = new Map();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    map.set(printable ? b : 256 + n++, b);
  }
  return map;
})();

// The bytes of a byte-level BPE piece, or null when it holds a character outside the
// alphabet (then it is no byte-level piece) or none of its non-printable stand-ins.
function byteLevelBytes(piece) {
  const codes = Array.from(piece, (c) => c.codePointAt(0));
  if (!codes.length || !codes.some((c) => c >= 256 || (c >= 128 && c < 256))) return null;
  if (codes.some((c) => !BYTE_OF.has(c))) return null;
  return Uint8Array.from(codes, (c) => BYTE_OF.get(c));
}

/**
 * A grid of layers × heads; each cell a canvas of that head's [T][T] weights, a button that
 * calls pick(layer, head).
 * @param {Float32Array[]} maps per layer, [heads, T, T] of the first sequence
 */
export function modelGrid(maps, heads, T, pick, selected) {
  const table = document.createElement('table');
  table.className = 'model-grid';
  const caption = document.createElement('caption');
  caption.textContent = `Every layer (rows) and head (columns): ${maps.length} × ${heads} attention maps of ${T} × ${T} tokens. Pick one to see it in the head view.`;
  table.append(caption);
  const head = table.createTHead().insertRow();
  const corner = document.createElement('th');
  corner.scope = 'col';
  corner.textContent = 'layer';
  head.append(corner);
  for (let h = 0; h < heads; h++) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = `head ${h + 1}`;
    head.append(th);
  }
  const body = table.createTBody();
  maps.forEach((map, l) => {
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = String(l + 1);
    row.append(th);
    for (let h = 0; h < heads; h++) {
      const cell = row.insertCell();
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'thumb';
      button.setAttribute('aria-label', `layer ${l + 1} head ${h + 1}`);
      if (selected && selected[0] === l && selected[1] === h) button.setAttribute('aria-current', 'true');
      button.append(mapCanvas(map.subarray(h * T * T, (h + 1) * T * T), T));
      button.addEventListener('click', () => pick(l, h));
      cell.append(button);
    }
  });
  return table;
}

// One [T][T] map on a canvas, one pixel block per weight (sequential colours, 0 → 1).
function mapCanvas(weights, T) {
  const canvas = document.createElement('canvas');
  const size = Math.max(T, Math.min(64, 4 * T));
  canvas.width = canvas.height = size;
  canvas.setAttribute('aria-hidden', 'true');
  const g = canvas.getContext('2d');
  if (!g) return canvas;
  const cell = size / T;
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      g.fillStyle = heatColour(weights[i * T + j], 'sequential')?.background ?? 'transparent';
      g.fillRect(j * cell, i * cell, Math.ceil(cell), Math.ceil(cell));
    }
  }
  return canvas;
}

/**
 * The neuron view's table for query i of one head: per key j, the products q_i ⊙ k_j as
 * coloured cells, their sum q·k, the scaled score and the weight.
 * @param {Float32Array} q [headDim] @param {Float32Array[]} keys per key, [headDim]
 * @param {Float32Array} weights [T] the head's attention row (from the model)
 */
export function neuronTable(q, keys, weights, labels, queryLabel, visible) {
  const hd = q.length;
  const table = document.createElement('table');
  table.className = 'neuron';
  const caption = document.createElement('caption');
  caption.textContent = `Query “${queryLabel}”: each key's score is the sum of q ⊙ k over ${hd} dimensions, divided by √${hd}; the softmax of the scores gives the weights.`;
  table.append(caption);
  const head = table.createTHead().insertRow();
  for (const text of ['key', 'q ⊙ k (blue < 0 < red)', 'q·k', `÷ √${hd}`, 'weight']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = text;
    head.append(th);
  }
  const products = keys.map((k) => Array.from(q, (x, c) => x * k[c]));
  const extent = Math.max(1e-12, ...products.flat().map(Math.abs));
  const body = table.createTBody();
  keys.forEach((_, j) => {
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = labels[j];
    row.append(th);
    const strip = row.insertCell();
    const canvas = document.createElement('canvas');
    canvas.width = Math.min(256, hd * 4);
    canvas.height = 12;
    canvas.setAttribute('aria-hidden', 'true');
    const g = canvas.getContext('2d');
    if (g) {
      const w = canvas.width / hd;
      products[j].forEach((p, c) => {
        g.fillStyle = heatColour(p / extent, 'diverging', { min: -1, max: 1 })?.background ?? 'transparent';
        g.fillRect(c * w, 0, Math.ceil(w), 12);
      });
    }
    strip.append(canvas);
    const dot = products[j].reduce((a, b) => a + b, 0);
    const hidden = !visible(j);
    row.insertCell().textContent = hidden ? 'masked' : formatNumber(dot, 3);
    row.insertCell().textContent = hidden ? '−∞' : formatNumber(dot / Math.sqrt(hd), 3);
    row.insertCell().append(bar(weights[j]));
  });
  return table;
}

/** A labelled horizontal bar for a probability in [0, 1]. */
export function bar(p) {
  const wrap = document.createElement('span');
  wrap.className = 'bar';
  const fill = document.createElement('span');
  fill.className = 'fill';
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`;
  const text = document.createElement('span');
  text.className = 'value';
  text.textContent = formatNumber(p, 3);
  wrap.append(fill, text);
  return wrap;
}

/** A list of (label, probability) rows as bars, with a caption. */
export function probabilityList(title, rows) {
  const table = document.createElement('table');
  table.className = 'probabilities';
  const caption = document.createElement('caption');
  caption.textContent = title;
  table.append(caption);
  const body = table.createTBody();
  for (const [label, p] of rows) {
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = label;
    row.append(th);
    row.insertCell().append(bar(p));
  }
  return table;
}

/** The k largest entries of a probability row: [[index, p]], best first. */
export function topK(probabilities, k) {
  return Array.from(probabilities.keys())
    .sort((a, b) => probabilities[b] - probabilities[a])
    .slice(0, k)
    .map((i) => [i, probabilities[i]]);
}

/** softmax of a logits row, in float64. */
export function softmax(logits) {
  const max = Math.max(...logits);
  const e = Array.from(logits, (x) => Math.exp(x - max));
  const total = e.reduce((a, b) => a + b, 0);
  return Float64Array.from(e, (x) => x / total);
}
