// The views of <attention-model> that are not an <attention-heatmap> or the model view
// (model-grid.js): the neuron view (how one query's q·k builds each score of one head) and
// probability bars (next token, labels, masked tokens); and how both model elements name
// tokens (tokenLabel, idLabeller, positionedLabels, marksLegend).
import { heatColour, formatNumber, visibleText, TOKEN_MARKS } from './format.js';
import { colourLegend, scrollRegion } from './view-parts.js';
import { columnBands } from './column-bands.js';

/**
 * A token as a reader sees it, never a raw control character or U+FFFD: the text it covers
 * (spaces as ␣, newlines as ↵: format.js visibleText), a byte token as its code (<0x08>), a
 * byte-level BPE piece that is part of a character as its bytes (<0xE2><0x80>), or its
 * string without ## (a word piece), with Ġ and ▁ as ␣. A space the piece holds is marked even
 * where its offsets leave it out (GPT-2's "Ġsat" covers "sat": "␣sat").
 */
export function tokenLabel(token, text) {
  if (/^<0x[0-9A-Fa-f]{2}>$/.test(token.text)) return token.text.toUpperCase().replace('0X', '0x');
  if (token.start >= 0 && token.end > token.start) {
    const covered = text.slice(token.start, token.end);
    if (!covered.includes('\ufffd')) return withPieceSpaces(token.text, covered, visibleText(covered));
  }
  if (/^[Ġ▁]$/.test(token.text)) return '␣'; // a space of its own
  const bytes = byteLevelBytes(token.text);
  if (bytes) {
    try {
      return visibleText(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      // Part of a character: its bytes, when the piece is surely byte-level (a stand-in
      // above U+00FF); else it is plain text with accents ("café" without offsets).
      if (/[\u0100-\u0143]/.test(token.text)) return Array.from(bytes, byteCode).join('');
    }
  }
  return visibleText(token.text.replace(/^##/, '')).replace(/^Ġ/, '␣').replace(/▁/g, '␣') || token.text;
}

// `label` (of the text a piece covers) with the piece's leading and trailing space marks
// (Ġ, ▁) that the covered text lacks: offsets often leave the space out.
function withPieceSpaces(piece, covered, label) {
  const before = /^[Ġ▁]/.test(piece) && !/^\s/.test(covered) && covered[0] !== piece[0];
  const after = /[Ġ▁]$/.test(piece) && piece.length > 1 && !/\s$/.test(covered) && covered.at(-1) !== piece.at(-1);
  return `${before ? '␣' : ''}${label}${after ? '␣' : ''}`;
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

/** A byte as a reader sees it: <0xE2>. */
export const byteCode = (b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/**
 * The tokens that stand for one byte, id → byte: a byte-level BPE alphabet's (GPT-2's Ġ …)
 * and SentencePiece's byte fallback (<0xE2>), whichever the tokenizer holds.
 * @param {{ tokenToId(token: string): number | undefined }} tokenizer
 */
export function byteTokens(tokenizer) {
  const out = new Map();
  for (const [code, byte] of BYTE_OF) {
    for (const piece of [String.fromCodePoint(code), byteCode(byte)]) {
      const id = tokenizer.tokenToId(piece);
      if (Number.isInteger(id) && !out.has(id)) out.set(id, byte);
    }
  }
  return out;
}

/**
 * A function id → the token as a reader sees it (format.js visibleText: ␣, ↵, <0x08>); a token
 * that is one byte of a character split across tokens as that byte (<0xE2>), any other piece
 * of a character as <?> and its id. Shared by the model elements' probability lists.
 * @param {{ tokenizer?: object }} model
 */
export function idLabeller(model) {
  const bytes = model.tokenizer ? byteTokens(model.tokenizer) : new Map();
  return (id) => {
    const text = model.tokenizer?.decode([id]) ?? String(id);
    if (!text.includes('\ufffd')) return visibleText(text);
    return bytes.has(id) ? byteCode(bytes.get(id)) : `${visibleText(text)} (id ${id})`;
  };
}

/**
 * Token labels as the views name them: a label that occurs more than once carries its position
 * (counted from 0, as the API's arrays and every view count), so that no two rows or columns
 * read alike: ['The', '␣', 'cat', '␣'] → ['The', '␣·1', 'cat', '␣·3'].
 * @param {string[]} labels tokenLabel's, in text order
 */
export function positionedLabels(labels) {
  const counts = new Map();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return labels.map((label, i) => (counts.get(label) > 1 ? `${label}·${i}` : label));
}

/**
 * The legend of the marks that `labels` use ('␣ = space, <0x08> = a byte …'), or '' when none
 * does: for the labels of every token a view shows (the text's and the predicted ones).
 * @param {string[]} labels
 */
export function marksLegend(labels) {
  const all = labels.join('');
  return TOKEN_MARKS.filter(([mark]) => (mark.startsWith('<0x') ? /<0x[0-9A-F]{2}>/.test(all) : all.includes(mark)))
    .map(([mark, meaning]) => `${mark} = ${meaning}`)
    .join(', ');
}

/**
 * Where the tokenizer split a word, in words: the first word (a run of tokens from one that
 * starts with ␣, or the first, up to the next such) of two or more pieces holding a letter,
 * e.g. 'A word can be several tokens: “␣cat” is ␣ + c + at.' Null when no word is split.
 * labels: [T] tokenLabel's labels (spaces as ␣).
 */
export function splitWordNote(labels) {
  let start = 0;
  for (let i = 1; i <= labels.length; i++) {
    if (i < labels.length && !labels[i].startsWith('␣')) continue;
    const pieces = labels.slice(start, i);
    const word = pieces.join('');
    if (pieces.length > 1 && /\p{L}/u.test(word) && !/<0x/.test(word))
      return `A word can be several tokens: “${word}” is ${pieces.join(' + ')}.`;
    start = i;
  }
  return null;
}

// The bytes of a byte-level BPE piece, or null when it holds a character outside the
// alphabet (then it is no byte-level piece) or none of its non-printable stand-ins.
function byteLevelBytes(piece) {
  const codes = Array.from(piece, (c) => c.codePointAt(0));
  if (!codes.length || !codes.some((c) => c >= 256 || (c >= 128 && c < 256))) return null;
  if (codes.some((c) => !BYTE_OF.has(c))) return null;
  return Uint8Array.from(codes, (c) => BYTE_OF.get(c));
}

/**
 * The neuron view for query i of one head (bertviz's neuron view), as two tables: the vectors
 * (the query vector q, then per key j its vector k_j and the products q ⊙ k_j) and, narrow
 * enough for a phone, the scores (per key: q·k_j, the score scaled by 1/√head_dim and the
 * softmax weight as a number beside its bar). Vectors are coloured cells (blue < 0 < red,
 * one scale for q, k and the products: two scales in the same hues side by side read as one),
 * with their numbers when head_dim ≤ 16 and on
 * hover/focus always (the readout under the table).
 * @param {Float32Array} q [headDim] @param {Float32Array[]} keys per key, [headDim]
 * @param {Float32Array} weights [T] the head's attention row (from the model)
 */
export function neuronTable(q, keys, weights, labels, queryLabel, visible) {
  const hd = q.length;
  const written = hd <= 16; // numbers in the cells; else colour only, numbers on hover/focus
  const products = keys.map((k) => Array.from(q, (x, c) => x * k[c]));
  const dots = products.map((p) => p.reduce((a, b) => a + b, 0));
  const scale = Math.max(
    1e-12,
    ...Array.from(q, Math.abs),
    ...keys.flatMap((k) => Array.from(k, Math.abs)),
    ...products.flat().map(Math.abs),
  );
  const wrap = document.createElement('div');
  const readout = document.createElement('p');
  readout.className = 'readout print-hide'; // on paper the cells and the score table say it
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = 'Hover or tap a cell, or focus a key, to read its numbers.';
  const { table, fit, keyTitles } = vectorTable(q, keys, products, {
    hd,
    written,
    scale,
    labels,
    queryLabel,
    scores: dots.map((dot, j) => (visible(j) ? formatNumber(dot / Math.sqrt(hd), 3) : '−∞')),
    dots,
  });
  keyTitles.forEach((title, j) => {
    const hidden = !visible(j);
    title.addEventListener('focus', () => {
      readout.textContent = hidden
        ? `key “${labels[j]}”: masked (a later token), weight 0`
        : `key “${labels[j]}”: q·k = ${dots[j]}, ÷ √${hd} = ${dots[j] / Math.sqrt(hd)}, weight ${weights[j]}`;
    });
  });
  table.addEventListener('mouseover', (e) => {
    const td = e.target.closest('td.dim');
    if (td) readout.textContent = td.title;
  });
  const legends = document.createElement('div');
  legends.className = 'legends';
  legends.append(
    colourLegend({ kind: 'diverging', min: -scale, max: scale, title: 'q, k and q ⊙ k cells (one scale)' }),
  );
  // The legend right above the table they explain (below it, a phone's four bands pushed
  // them a screen and a half away); a page too narrow for the bands scrolls sideways.
  wrap.append(
    legends,
    scrollRegion('how the query builds each score', table, { fit }),
    readout,
    scoreTable(dots, weights, { hd, labels, queryLabel, visible }),
  );
  return wrap;
}

// The vectors: q, then per key k_j and q ⊙ k_j, as coloured cells under their dimension; on a
// narrow page the 2·head_dim columns wrap into bands (column-bands.js: k's dims, then q ⊙ k's).
//   scores: per key, the scaled score its rows carry (data-score)
//   dots: per key, q·k = Σ q ⊙ k, the last column (its own band on a phone)
function vectorTable(q, keys, products, { hd, written, scale, labels, queryLabel, scores, dots }) {
  const table = document.createElement('table');
  table.className = 'neuron';
  const caption = document.createElement('caption');
  caption.textContent = `Query “${queryLabel}”: each key's vector k, and q ⊙ k, the products whose sum over ${hd} dimensions (numbered 0 to ${hd - 1} above the cells) is the score q·k (the last column, Σ). Cell colours: the one scale above, for q, k and q ⊙ k alike.`;
  table.append(caption);
  const th = (text, { scope = 'col', className = '' } = {}) =>
    Object.assign(document.createElement('th'), { scope, className, textContent: text });
  const cellOf = (value, what) => {
    const td = document.createElement('td');
    td.className = 'dim';
    const colour = heatColour(value / scale, 'diverging', { min: -1, max: 1 });
    if (colour) {
      td.style.background = colour.background;
      td.style.color = colour.color;
    }
    td.textContent = written ? formatNumber(value, 2) : '';
    td.title = `${what} = ${value}`;
    td.dataset.value = String(value);
    return td;
  };
  // The query's own row (q, the vector every product below multiplies), then per key its row
  // title (focusable in the first band: it reads the key's numbers) and cells.
  const qCells = Array.from(q, (x, c) => cellOf(x, `q[${c}]`));
  const keyRows = keys.map((k, j) => {
    const name = th(`k “${labels[j]}”`, { scope: 'row' });
    name.tabIndex = 0;
    return {
      name,
      cells: [
        ...Array.from(k, (x, c) => cellOf(x, `k_${j}[${c}]`)),
        ...products[j].map((p, c) => cellOf(p, `q[${c}]·k_${j}[${c}]`)),
      ],
    };
  });
  const group = (c) => (c < hd ? 'vector' : 'product');
  const sums = dots.map((dot) =>
    Object.assign(document.createElement('td'), { className: 'sum', textContent: formatNumber(dot, 3) }),
  );
  const SUM = 2 * hd; // the column after the products
  const bands = columnBands(
    table,
    2 * hd + 1,
    [
      {
        head: true,
        title: () => th('token'),
        cell: (c) =>
          c === SUM
            ? th('Σ q ⊙ k = q·k')
            : {
                key: group(c),
                make: (span) => Object.assign(th(c < hd ? `vector (${hd} dims)` : 'q ⊙ k'), { colSpan: span }),
              },
      },
      // Each vector cell's dimension, under its group's title.
      {
        head: true,
        title: () => th('dimension →'),
        cell: (c) => (c === SUM ? th('sum', { className: 'total' }) : th(String(c % hd), { className: 'index' })),
      },
      {
        head: true,
        title: () => th(`q “${queryLabel}”`, { scope: 'row' }),
        cell: (c) =>
          c < hd
            ? qCells[c]
            : c === SUM
              ? document.createElement('td')
              : {
                  key: 'note',
                  make: (span, [start]) =>
                    Object.assign(document.createElement('td'), {
                      colSpan: span,
                      className: 'note',
                      textContent: start < hd ? 'each row below: k, then q ⊙ k' : 'each row below: q ⊙ k',
                    }),
                },
      },
      ...keyRows.map(({ name, cells }, j) => ({
        data: { score: scores[j] },
        title: (band) => (band === 0 ? name : th(name.textContent, { scope: 'row' })),
        cell: (c) => (c === SUM ? sums[j] : cells[c]),
      })),
    ],
    { align: hd },
  );
  return { table, fit: bands.fit, keyTitles: keyRows.map((row) => row.name) };
}

// The scores, narrow: per key q·k, ÷ √head_dim, and the softmax weight beside its bar.
function scoreTable(dots, weights, { hd, labels, queryLabel, visible }) {
  const table = document.createElement('table');
  table.className = 'scores';
  const caption = document.createElement('caption');
  caption.textContent = `Query “${queryLabel}”: each key's score q·k, scaled by 1/√${hd}; the softmax of the scaled scores gives the weights (they sum to 1).`;
  table.append(caption);
  const titles = table.createTHead().insertRow();
  for (const text of ['key', 'q·k', `÷ √${hd}`, 'softmax → weight']) {
    const cell = document.createElement('th');
    cell.scope = 'col';
    cell.textContent = text;
    titles.append(cell);
  }
  const body = table.createTBody();
  dots.forEach((dot, j) => {
    const hidden = !visible(j);
    const row = body.insertRow();
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = labels[j];
    row.append(name);
    row.dataset.score = hidden ? '−∞' : formatNumber(dot / Math.sqrt(hd), 3);
    row.insertCell().textContent = hidden ? 'masked' : formatNumber(dot, 3);
    row.insertCell().textContent = hidden ? '−∞' : formatNumber(dot / Math.sqrt(hd), 3);
    row.insertCell().append(bar(weights[j]));
  });
  return table;
}

/** A horizontal bar for a probability in [0, 1], its number beside it (not over it), or none. */
export function bar(p, labelled = true) {
  const wrap = document.createElement('span');
  wrap.className = 'bar';
  const fill = document.createElement('span');
  fill.className = 'fill';
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`;
  wrap.append(fill);
  wrap.setAttribute('role', 'img');
  wrap.setAttribute('aria-label', formatNumber(p, 3));
  if (!labelled) return wrap;
  const both = document.createElement('span');
  both.className = 'barred';
  const text = document.createElement('span');
  text.className = 'value';
  text.textContent = formatNumber(p, 3);
  both.append(text, wrap);
  return both;
}

/** A list of (label, probability) rows as bars, with a caption and column titles. */
export function probabilityList(title, rows, columns = ['token', 'probability (0 … 1)']) {
  const table = document.createElement('table');
  table.className = 'probabilities';
  const caption = document.createElement('caption');
  caption.textContent = title;
  table.append(caption);
  const titles = table.createTHead().insertRow();
  for (const text of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = text;
    titles.append(th);
  }
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
