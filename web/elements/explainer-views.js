// The pieces <attention-explainer> draws its stages with: a vector as a colour strip (any
// width: 768 dims fit 390 px) with its legend and its largest entries listed, and a small
// grid as a table with row and column titles. Both show the exact value of the entry under
// the pointer or the keyboard cursor (arrow keys), and take part in linked highlighting: a
// `link` object ({ set(kind, index), on(listener) }) says which dimension or head is
// highlighted, and every piece that shows that kind of index marks it.
import { colourLegend, legendEnds, scrollRegion } from './view-parts.js';
import { formatNumber, exactNumber, heatColour, heatRgb } from './format.js';
import { columnBands, COLUMN_BANDS_STYLE } from './column-bands.js';
import { tickIndices } from './ticks.js';

/** Linked highlighting between stages: { dim: { width, index } | null, head: number | null }. */
export function createLink() {
  const listeners = new Set();
  const state = { dim: null, head: null };
  return {
    state,
    set(kind, value) {
      state[kind] = value;
      for (const listener of listeners) listener(state);
    },
    on(listener) {
      listeners.add(listener);
    },
    clear() {
      listeners.clear();
    },
  };
}

/** The [min, max] of the finite values (−∞ of a masked score left out); [0, 1] when none is. */
export const valueRange = (values) => {
  let min = Infinity,
    max = -Infinity;
  for (const v of values) if (Number.isFinite(v)) ((min = Math.min(min, v)), (max = Math.max(max, v)));
  return min <= max ? [min, max] : [0, 1];
};

// A focusable region whose arrow keys move a cursor over `count` entries; `show(i)` is called
// with the entry (or -1 when the pointer leaves).
function cursorKeys(target, count, show, columns = count) {
  let at = -1;
  target.addEventListener('keydown', (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns, Home: -count, End: count }[
      e.key
    ];
    if (step === undefined) return;
    e.preventDefault();
    at = Math.max(0, Math.min(count - 1, (at < 0 ? 0 : at) + (at < 0 ? 0 : step)));
    show(at);
  });
  target.addEventListener('focus', () => show(at < 0 ? (at = 0) : at));
  return (i) => (at = i);
}

/**
 * A vector as a strip of colour cells, one per dimension (diverging: blue below 0, red above),
 * a legend with its numeric ends, and as numbers its range and its `top` largest |values|
 * with their indices (a screenshot of 768 cells carries numbers).
 *   values: [n]   title: the stage's words   link: createLink()'s, or null
 *   scale: { min, max, title } shared with the strips it is compared with, or null: its own
 */
export function vectorStrip(
  values,
  { title, axis = 'dimension', link = null, top = 6, kind = 'diverging', scale = null },
) {
  const n = values.length;
  const wrap = document.createElement('div');
  wrap.className = 'strip';
  const [min, max] = scale ? [scale.min, scale.max] : valueRange(values);
  const canvas = document.createElement('canvas');
  canvas.width = Math.min(n, 1024);
  canvas.height = 1;
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute(
    'aria-label',
    `${title}: ${n} values from ${formatNumber(min, 3)} to ${formatNumber(max, 3)}; arrow keys read each`,
  );
  const context = canvas.getContext('2d');
  const image = context.createImageData(canvas.width, 1);
  for (let x = 0; x < canvas.width; x++) {
    // Wider than the canvas: each pixel shows the largest |value| of the dimensions it covers.
    let v = 0;
    for (
      let i = Math.floor((x * n) / canvas.width);
      i < Math.max(Math.floor(((x + 1) * n) / canvas.width), Math.floor((x * n) / canvas.width) + 1);
      i++
    )
      if (Math.abs(values[i]) > Math.abs(v)) v = values[i];
    const rgb = heatRgb(v, kind, { min, max }) ?? [128, 128, 128];
    image.data.set([...rgb, 255], x * 4);
  }
  context.putImageData(image, 0, 0);
  const track = document.createElement('div');
  track.className = 'track';
  const marker = document.createElement('span');
  marker.className = 'marker';
  marker.hidden = true;
  track.append(canvas, marker);
  const readout = document.createElement('div');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  const mark = (i) => {
    marker.hidden = i < 0;
    if (i >= 0) marker.style.left = `calc(${((i + 0.5) / n) * 100}% - 1px)`;
  };
  const show = (i, fromLink = false) => {
    mark(i);
    readout.textContent = i < 0 ? '' : `${axis} ${i}: ${exactNumber(values[i])}`;
    if (!fromLink) link?.set('dim', i < 0 ? null : { width: n, index: i });
  };
  const moved = cursorKeys(canvas, n, (i) => show(i));
  canvas.addEventListener('pointermove', (e) => {
    const box = canvas.getBoundingClientRect();
    const i = Math.max(0, Math.min(n - 1, Math.floor(((e.clientX - box.left) / box.width) * n)));
    moved(i);
    show(i);
  });
  canvas.addEventListener('pointerleave', () => show(-1));
  link?.on((state) => {
    const i = state.dim && state.dim.width === n ? state.dim.index : -1;
    mark(i);
    if (document.activeElement !== canvas) readout.textContent = i < 0 ? '' : `${axis} ${i}: ${exactNumber(values[i])}`;
  });
  const axisLine = stripTicks(n, axis === 'dimension' ? 'binary' : 'decimal');
  const largest = Array.from(values.keys())
    .sort((a, b) => Math.abs(values[b]) - Math.abs(values[a]))
    .slice(0, top)
    .map((i) => `${axis} ${i} = ${formatNumber(values[i], 3)}`)
    .join(', ');
  const [low, high] = valueRange(values);
  const list = Object.assign(document.createElement('div'), {
    className: 'largest',
    textContent: `range ${formatNumber(low, 3)} to ${formatNumber(high, 3)}; largest |value|: ${largest}`,
  });
  wrap.append(
    stripHead(`${title} (${n} ${axis}s)`, `${axis} →`),
    track,
    axisLine,
    // A strip on its own scale says so; strips compared on one scale say which share it.
    colourLegend({ kind, min, max, title: scale?.title ?? "this strip's own scale", digits: 2 }),
    list,
    readout,
  );
  return wrap;
}

// The strip's name, and its x axis's title at the right (over the ticks: "dimension →").
function stripHead(name, axisTitle) {
  const head = document.createElement('div');
  head.className = 'head';
  head.append(
    Object.assign(document.createElement('div'), { className: 'name', textContent: name }),
    Object.assign(document.createElement('div'), { className: 'axis', textContent: axisTitle }),
  );
  return head;
}

// The strip's x axis: a tick under the middle of each labelled cell (tickIndices) and its index
// under it (kept inside the strip's ends).
function stripTicks(n, kind) {
  const row = document.createElement('div');
  row.className = 'axis ticks';
  row.setAttribute('aria-hidden', 'true'); // the canvas's label and the arrow keys say them
  const ticks = tickIndices(n, kind);
  for (const i of ticks) {
    const at = `${((i + 0.5) / n) * 100}%`;
    const mark = Object.assign(document.createElement('span'), { className: 'mark' });
    mark.style.left = at;
    const text = String(i);
    const label = Object.assign(document.createElement('span'), { className: 'label', textContent: text });
    // Centred on its tick, moved inside the strip where that would cross an end (a digit of
    // tabular numbers is 1ch wide).
    label.style.left = `clamp(0px, calc(${at} - ${text.length / 2}ch), calc(100% - ${text.length}ch))`;
    row.append(mark, label);
  }
  return row;
}

/**
 * A grid as a table: rows × cols values coloured on `kind`, the row and column labels and
 * titles, a legend; each cell's exact value on hover and focus (arrow keys move).
 *   values: [rows · cols] row-major   rowKind: 'head' rows take part in head highlighting
 *   colKind: 'dim' columns in dimension highlighting
 */
export function heatTable(
  values,
  {
    rows,
    cols,
    rowTitle,
    colTitle,
    kind,
    label,
    digits = 2,
    link = null,
    rowKind = null,
    colKind = null,
    legendTitle = 'value',
    range: fixed = null,
  },
) {
  const R = rows.length,
    C = cols.length;
  const [min, max] = fixed ?? valueRange(values);
  const wrap = document.createElement('div');
  wrap.className = 'grid';
  const table = document.createElement('table');
  table.className = 'heat';
  // The table takes the focus: arrow keys read each cell (the region around it scrolls).
  table.tabIndex = 0;
  table.setAttribute('aria-label', `${label} (${rowTitle} ↓ ${colTitle} →); arrow keys read each cell`);
  const cells = Array.from(values.subarray ? values.subarray(0, R * C) : values.slice(0, R * C), (v) => {
    const td = document.createElement('td');
    const colour = heatColour(v, kind, { min, max });
    if (colour) ((td.style.background = colour.background), (td.style.color = colour.color));
    td.textContent = formatNumber(v, digits);
    return td;
  });
  // The title row (its corner names both axes), then a row per `rows` entry; on a narrow page
  // the columns wrap into bands, each under its own titles (column-bands.js).
  const th = (text, scope = null, className = '') => {
    const cell = Object.assign(document.createElement('th'), { textContent: text, className });
    if (scope) cell.scope = scope;
    return cell;
  };
  const bands = columnBands(table, C, [
    { head: true, title: () => th(`${rowTitle} ↓ ${colTitle} →`, null, 'corner'), cell: (c) => th(cols[c], 'col') },
    ...rows.map((name, r) => ({ title: () => th(name, 'row'), cell: (c) => cells[r * C + c] })),
  ]);
  const readout = document.createElement('div');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  let active = null;
  const show = (i, fromLink = false) => {
    active?.classList.remove('active');
    active = i >= 0 ? cells[i] : null;
    active?.classList.add('active');
    if (i < 0) return (readout.textContent = '');
    const r = Math.floor(i / C),
      c = i % C;
    readout.textContent = `${rowTitle} ${rows[r]}, ${colTitle} ${cols[c]}: ${exactNumber(values[i])}`;
    if (fromLink) return;
    if (rowKind === 'head') link?.set('head', r);
    if (colKind === 'dim') link?.set('dim', { width: C, index: c });
  };
  const moved = cursorKeys(table, R * C, (i) => show(i), C);
  cells.forEach((td, i) =>
    td.addEventListener('pointerenter', () => {
      moved(i);
      show(i);
    }),
  );
  table.addEventListener('pointerleave', () => show(-1));
  link?.on((state) => {
    if (rowKind === 'head')
      for (let r = 0; r < R; r++) for (const tr of bands.rowsOf(r + 1)) tr.classList.toggle('linked', state.head === r);
    if (colKind === 'dim') {
      const at = state.dim && state.dim.width === C ? state.dim.index : -1;
      cells.forEach((td, i) => td.classList.toggle('linked', i % C === at));
    }
  });
  const [lo, hi] = legendEnds(kind, min, max);
  const name = Object.assign(document.createElement('div'), {
    className: 'name',
    textContent: `${label} (${R} × ${C})`,
  });
  wrap.append(
    name,
    scrollRegion(label, table, { fit: bands.fit }),
    colourLegend({
      kind,
      min: lo,
      max: hi,
      title: fixed ? legendTitle : `${legendTitle}: this grid's own scale`,
      digits: 2,
    }),
    readout,
  );
  return wrap;
}

/** The CSS of the pieces above. */
export const EXPLAINER_VIEWS_STYLE = `
.strip { margin: 0.3rem 0 0.6rem; max-width: 40rem; }
.strip .name, .grid .name { font-size: 0.85rem; font-weight: 600; }
.grid { margin: 0.3rem 0 0.6rem; }
.strip .track { position: relative; }
.strip canvas { display: block; width: 100%; height: 1.4rem; image-rendering: pixelated; border: 1px solid var(--attn-border, #8886); box-sizing: border-box; cursor: crosshair; }
.strip canvas:focus-visible, table.heat:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.strip .marker { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--_selected); pointer-events: none; }
.strip .head { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: 0 0.8rem; }
.strip .head > .axis { margin-left: auto; }
.strip .ticks { position: relative; height: calc(1.25em + 5px); font-variant-numeric: tabular-nums; }
.strip .ticks .mark { position: absolute; top: 0; width: 1px; height: 5px; margin-left: -0.5px; background: currentColor; }
.strip .ticks .label { position: absolute; top: 5px; white-space: nowrap; line-height: 1.25; }
.largest { font-size: 0.8rem; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.readout { font-size: 0.8rem; min-height: 1.2em; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
table.heat { border-collapse: collapse; font-size: 0.75rem; font-variant-numeric: tabular-nums; }
table.heat th { font-weight: 500; padding: 0.1rem 0.3rem; white-space: nowrap; text-align: end; }
table.heat th.corner { font-size: 0.75rem; opacity: 0.9; text-align: start; }
table.heat td { min-width: 2.6em; padding: 0.1rem 0.25rem; text-align: end; border: 1px solid var(--_cell-edge); }
table.heat td.active, table.heat td.linked, table.heat tr.linked th { outline: 2px solid var(--_selected); outline-offset: -2px; }
${COLUMN_BANDS_STYLE}`;
