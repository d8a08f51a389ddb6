// <attention-model>'s model view (bertviz's): every layer × head as a small map of its
// attention weights, each a button that opens it in the head view; the pointer reads a cell,
// focus each query's strongest key, and on paper a table prints those readings.
import { heatColour, formatNumber } from './format.js';
import { colourLegend, maskedKey, screenOrPaper } from './view-parts.js';

/**
 * The keys a model's `layer` hid from each query (its attention mask: a decoder's later keys,
 * and a sliding window's keys w or more positions away; descriptor.layerWindows): a function
 * (query, key) => true where masked, or null when the layer hides none.
 */
export function modelMask(d, layer) {
  const w = d.layerWindows?.[layer] ?? 0;
  if (!d.causal && !(w > 0)) return null;
  return d.causal ? (i, j) => j > i || (w > 0 && i - j >= w) : (i, j) => Math.abs(i - j) >= w;
}

/** What hid the masked keys, for a legend: 'a later position (a decoder cannot see it)' … */
export function maskWords(d) {
  const windowed = (d.layerWindows ?? []).some((w) => w > 0);
  const later = d.causal ? 'a later position (a decoder cannot see it)' : '';
  return [later, windowed ? 'outside the sliding window' : ''].filter(Boolean).join(', or ') + ', weight 0';
}

/**
 * A grid of layers × heads; each cell a canvas of that head's [T][T] weights, a button that
 * calls pick(layer, head); outlined, the maps the head view shows (`selected`: [layer, head],
 * head null for every head of the layer). The pointer over a map reads the query, the key and
 * the weight under it; focus reads each query's strongest key; on paper a table lists those
 * (strongestKeys) and the caption names the first and last tokens of each map's rows and columns.
 * @param {Float32Array[]} maps per layer, [heads, T, T] of the first sequence
 * @param {string[] | null} labels the tokens' names (positionedLabels)
 * @param {object | null} descriptor the model's (its mask: modelMask), or null: nothing masked
 */
export function modelGrid(maps, heads, T, pick, selected, labels = null, descriptor = null) {
  const table = document.createElement('table');
  table.className = 'model-grid';
  const caption = document.createElement('caption');
  const ends = labels
    ? ` In each map the rows run from “${labels[0]}” (top) to “${labels[T - 1]}” (bottom), the columns from “${labels[0]}” (left) to “${labels[T - 1]}” (right).`
    : '';
  // The hint to hover, on screen only (print-hide: on paper the strongest keys are printed).
  const hint = Object.assign(document.createElement('span'), {
    className: 'print-hide',
    textContent:
      " Hover a map to read a cell, focus it for each query's strongest key; pick one to open it in the head view.",
  });
  caption.append(
    `Every layer (rows) and head (columns): ${maps.length} × ${heads} attention maps of ${T} × ${T} tokens, query ↓ key →${labels ? ` (tokens in order: ${labels.join(' ')})` : ''}, brighter = more weight (0 … 1).${ends}`,
    hint,
    // (paper has no head view to open: it names the layer or map shown)
    ...(selected
      ? screenOrPaper(
          ` Outlined: ${selected[1] === null ? `the maps the head view shows (layer ${selected[0]}, every head)` : `the map open in the head view (layer ${selected[0]}, head ${selected[1]})`}.`,
          ` Outlined: ${selected[1] === null ? `the layer shown, layer ${selected[0]} (every head)` : `the map shown, layer ${selected[0]}, head ${selected[1]}`}.`,
        )
      : []),
  );
  table.append(caption);
  const readout = document.createElement('p');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  const head = table.createTHead().insertRow();
  const corner = document.createElement('th');
  corner.scope = 'col';
  corner.textContent = 'layer';
  head.append(corner);
  for (let h = 0; h < heads; h++) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = `head ${h}`;
    head.append(th);
  }
  const body = table.createTBody();
  maps.forEach((layerMaps, l) => {
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = String(l);
    row.append(th);
    for (let h = 0; h < heads; h++) {
      const map = layerMaps.subarray(h * T * T, (h + 1) * T * T);
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'thumb';
      button.setAttribute('aria-label', `layer ${l} head ${h}`);
      if (selected && selected[0] === l && (selected[1] === null || selected[1] === h))
        button.setAttribute('aria-current', 'true');
      const canvas = mapCanvas(map, T, descriptor && modelMask(descriptor, l));
      button.append(canvas);
      button.addEventListener('click', () => pick(l, h));
      if (labels)
        readMap(button, canvas, map, T, labels, (text) => (readout.textContent = `Layer ${l}, head ${h}: ${text}`));
      row.insertCell().append(button);
    }
  });
  // Without a pointer (a phone, a screenshot) the readout still holds numbers: the outlined
  // map's last query, its strongest keys; a hover or a focus reads another, and leaving it
  // comes back here.
  let enlarged = null;
  if (labels) {
    const [l, h] = [selected?.[0] ?? 0, selected?.[1] ?? 0];
    enlarged = axesMap(
      maps[l].subarray(h * T * T, (h + 1) * T * T),
      T,
      descriptor && modelMask(descriptor, l),
      l,
      h,
      labels,
    );
    const resting = `Layer ${l}, head ${h}: ${topKeysLine(maps[l].subarray(h * T * T, (h + 1) * T * T), T, labels, T - 1)}`;
    readout.textContent = resting;
    const rest = () => (readout.textContent = resting);
    table.addEventListener('pointerleave', rest);
    table.addEventListener('focusout', rest);
  }
  const wrap = document.createElement('div');
  wrap.className = 'model-grid-view';
  const legend = colourLegend({ kind: 'sequential', min: 0, max: 1, title: 'map colour = attention weight' });
  const masked = descriptor && maps.some((_, l) => modelMask(descriptor, l));
  const legends = document.createElement('div');
  legends.className = 'legends';
  legends.append(legend, ...(masked ? [maskedKey(maskWords(descriptor))] : []));
  wrap.append(legends, table, ...(enlarged ? [enlarged] : []), readout);
  if (labels) wrap.append(printedStrongestKeys(maps, heads, T, labels, selected));
  return wrap;
}

// The map the readout reads (layer l, head h: outlined in the grid), enlarged with its axes:
// "query ↓" and "key →", which the 48 px maps have no room for. A map of up to NAMED_TOKENS
// tokens names every row (its token) and numbers every column (the same tokens, in order); a
// longer one marks its first and last positions. map: [T][T] weights; labels: [T] token names;
// masked: modelMask's function or null.
const NAMED_TOKENS = 12;
function axesMap(map, T, masked, l, h, labels) {
  const figure = document.createElement('figure');
  figure.className = 'axes-map';
  const title = document.createElement('figcaption');
  const named = labels && T <= NAMED_TOKENS;
  title.textContent = `Layer ${l}, head ${h} (in the grid above: row ${l}, column ${h}), enlarged: how to read every map${named ? '. Rows: the query tokens; columns: the same tokens as keys, numbered from 0' : ''}`;
  const canvas = mapCanvas(map, T, masked);
  canvas.className = 'enlarged';
  const size = named ? 20 * T : Math.min(160, Math.max(64, 16 * T));
  canvas.style.width = canvas.style.height = `${size}px`;
  const ticks = (className, words) => {
    const div = document.createElement('div');
    div.className = className;
    for (const w of words) div.append(Object.assign(document.createElement('span'), { textContent: w }));
    return div;
  };
  const positions = Array.from({ length: T }, (_, i) => String(i));
  const top = named ? ticks('ticks top each', positions) : ticks('ticks top', ['0', 'key →', String(T - 1)]);
  top.style.width = `${size}px`;
  const left = named
    ? ticks('ticks left each', labels.slice(0, T))
    : ticks('ticks left', ['0', 'query ↓', String(T - 1)]);
  left.style.height = `${size}px`;
  // named: the axis titles sit in the corner, beside the column numbers and above the names
  const corner = named
    ? Object.assign(document.createElement('span'), { className: 'corner', textContent: 'query ↓ key →' })
    : document.createElement('span');
  // (the axes in a grid of their own: a caption spanning the grid's columns widened them)
  const grid = document.createElement('div');
  grid.className = 'axes-grid';
  grid.append(corner, top, left, canvas);
  figure.append(title, grid);
  return figure;
}

// A thumbnail's readings: the cell under the pointer (query, key, weight), and on focus (and
// in its title) each query's strongest key.
function readMap(button, canvas, map, T, labels, say) {
  const strongest = strongestKeys(map, T, labels).join(', ');
  button.title = `${button.getAttribute('aria-label')}: each query's strongest key: ${strongest}`;
  button.addEventListener('focus', () => say(`each query's strongest key: ${strongest}`));
  canvas.addEventListener('pointermove', (e) => {
    const box = canvas.getBoundingClientRect();
    const at = (x, size) => Math.max(0, Math.min(T - 1, Math.floor((x / size) * T)));
    const i = at(e.clientY - box.top, box.height),
      j = at(e.clientX - box.left, box.width);
    say(
      `query “${labels[i]}” (row ${i}) → key “${labels[j]}” (column ${j}): weight ${formatNumber(map[i * T + j], 3)}`,
    );
  });
}

// One query's strongest keys (at most TOP_KEYS, strongest first) in one head's [T][T] map:
// 'query “mat” (row 6): its strongest keys the 0.410 · cat 0.320 · …'.
const TOP_KEYS = 4;
function topKeysLine(map, T, labels, i) {
  const row = Array.from(map.subarray(i * T, (i + 1) * T));
  const top = Array.from(row.keys())
    .sort((a, b) => row[b] - row[a])
    .slice(0, TOP_KEYS)
    .map((j) => `${labels[j]} ${formatNumber(row[j], 3)}`);
  return `query “${labels[i]}” (row ${i}), its strongest keys: ${top.join(' · ')}`;
}

// Each query's strongest key in one head's [T][T] map: 'query→key weight'.
function strongestKeys(map, T, labels) {
  return labels.map((label, i) => {
    const row = Array.from(map.subarray(i * T, (i + 1) * T));
    const j = row.indexOf(Math.max(...row));
    return `${label}→${labels[j]} ${formatNumber(row[j], 2)}`;
  });
}

// What the maps say only on hover and focus, for paper: modelGrid prints every layer's
// readings up to PRINTED_READINGS of them, else the layer the head view shows.
const PRINTED_READINGS = 1200;
function printedStrongestKeys(maps, heads, T, labels, selected) {
  const all = maps.length * heads * T <= PRINTED_READINGS;
  return strongestKeysTable(maps, heads, T, labels, all ? maps.map((_, l) => l) : [selected?.[0] ?? 0]);
}

/**
 * For paper (shown only in print: class print-only), what hovering or focusing a map reads:
 * per layer of `layers` and per head, each query's strongest key and its weight.
 * @param {Float32Array[]} maps per layer, [heads, T, T]  @param {number[]} layers 0-based
 */
export function strongestKeysTable(maps, heads, T, labels, layers) {
  const wrap = document.createElement('div');
  wrap.className = 'print-only';
  const table = document.createElement('table');
  table.className = 'strongest';
  const only = layers.length < maps.length ? ` of layer ${layers.join(', ')} (the other layers: on the page)` : '';
  table.createCaption().textContent = `On paper, what the page shows for a map read there: each query's strongest key and its weight (query→key weight)${only}.`;
  const titles = table.createTHead().insertRow();
  for (const text of ['layer', 'head', 'each query → its strongest key, weight']) {
    titles.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: text }));
  }
  const body = table.createTBody();
  for (const l of layers) {
    for (let h = 0; h < heads; h++) {
      const row = body.insertRow();
      row.insertCell().textContent = String(l);
      row.insertCell().textContent = String(h);
      row.insertCell().textContent = strongestKeys(maps[l].subarray(h * T * T, (h + 1) * T * T), T, labels).join(', ');
    }
  }
  wrap.append(table);
  return wrap;
}

// One [T][T] map on a canvas, one pixel block per weight (sequential colours, 0 → 1); the
// cells `masked` (i, j) hides, hatched grey (view-parts.js MASKED_FILL's colours).
function mapCanvas(weights, T, masked = null) {
  const canvas = document.createElement('canvas');
  const size = Math.max(T, Math.min(64, 4 * T));
  canvas.width = canvas.height = size;
  canvas.setAttribute('aria-hidden', 'true');
  const g = canvas.getContext('2d');
  if (!g) return canvas;
  const cell = size / T;
  const hatch = masked && hatchPattern(g);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      g.fillStyle = masked?.(i, j)
        ? hatch
        : (heatColour(weights[i * T + j], 'sequential')?.background ?? 'transparent');
      g.fillRect(j * cell, i * cell, Math.ceil(cell), Math.ceil(cell));
    }
  }
  return canvas;
}

// A canvas pattern of diagonal grey stripes: a 4 px tile, dark on its anti-diagonal.
function hatchPattern(g) {
  const tile = document.createElement('canvas');
  tile.width = tile.height = 4;
  const t = tile.getContext('2d');
  t.fillStyle = '#c4c4c4';
  t.fillRect(0, 0, 4, 4);
  t.fillStyle = '#6b6b6b';
  for (let k = 0; k < 4; k++) t.fillRect(3 - k, k, 1, 1);
  return g.createPattern(tile, 'repeat');
}
