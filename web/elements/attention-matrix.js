// <attention-matrix>: one labelled matrix, the building block of the other elements.
//
//   <attention-matrix label="softmax weights" heat="sequential" precision="3"
//                     value="[[0.49, 0.51], [0.52, 0.48]]" row-labels="I,am"></attention-matrix>
//
// Attributes: label, value (JSON nested numbers; "-Infinity" strings allowed), precision
// (decimals shown, default 4), heat ("sequential" for weights, "diverging" for signed values),
// editable, row-labels / col-labels (comma-separated or a JSON array). Properties: value
// ({ data, shape } or nested arrays), the same options. The exact float32 of a cell shows on
// hover and focus. Exposed as an ARIA grid; editable cells: arrow keys move, typing or Enter
// edits, Enter commits (a `change` event, detail { row, col, value }), Escape cancels; each
// keystroke fires `input`. With `toggle` (a mask) a click, Space or Enter switches a cell
// between 0 (may attend) and −∞ (blocked), with a `change` event. Styling: ::part(figure|caption|table|cell|legend) and the custom
// properties --attn-font, --attn-cell-width, --attn-cell-padding, --attn-border, --attn-focus.
import { formatNumber, exactNumber, heatColour, paletteGradient } from './format.js';
import { elementToPng, tensorJson, jsLiteral, jsString } from './export.js';
import { THEME_STYLE, styleSheet, followPageScheme } from './theme.js';
import { containKeys, consume } from './keys.js';

const STYLE = `${THEME_STYLE}
:host { display: inline-block; font: var(--attn-font, 0.85rem/1.3 ui-monospace, SFMono-Regular, Menlo, monospace); max-width: 100%; color: inherit; }
figure { margin: 0; display: inline-flex; flex-direction: column; gap: 0.25rem; max-width: 100%; }
figcaption { font-family: system-ui, sans-serif; font-size: 0.85em; }
.shape { opacity: 0.75; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; }
th { font-weight: normal; font-family: system-ui, sans-serif; font-size: 0.8em; padding: 0 0.35rem; opacity: 0.85; }
td { border: 1px solid var(--attn-border, #8886); padding: var(--attn-cell-padding, 0.15rem 0.35rem); text-align: right; min-width: var(--attn-cell-width, 4.5ch); font-variant-numeric: tabular-nums; }
td:focus { outline: 2px solid var(--_focus); outline-offset: -2px; }
td[aria-readonly="false"] { cursor: text; }
:host([toggle]) td { cursor: pointer; }
td.linked { outline: 2px dashed var(--_focus); outline-offset: -3px; }
input { width: 7ch; font: inherit; text-align: right; padding: 0; border: 0; background: transparent; color: inherit; }
.legend { display: flex; align-items: center; gap: 0.3rem; font-family: system-ui, sans-serif; font-size: 0.75em; }
.legend .bar { width: 6rem; height: 0.6rem; border-radius: 2px; }
.exact { font-size: 0.75em; min-height: 1.2em; opacity: 0.85; }
`;


/** A tensor { data, shape } from nested arrays (rows of numbers) or a tensor; 1-D is one row. */
export function toMatrix(value) {
  if (value == null) return null;
  if (typeof value === 'string') value = parseJson(value, 'value');  // what the attribute holds (React and Vue set it as the property)
  if (ArrayBuffer.isView(value.data) && Array.isArray(value.shape)) return { data: Float32Array.from(value.data), shape: value.shape.slice() };
  if (!Array.isArray(value)) throw new TypeError('attention-matrix: value must be nested arrays or { data, shape }');
  const rows = Array.isArray(value[0]) ? value : [value];
  const cols = rows[0]?.length ?? 0;
  if (rows.some((r) => !Array.isArray(r) || r.length !== cols)) throw new RangeError('attention-matrix: value must be rectangular');
  const parse = (x) => (typeof x === 'string' ? Number(x.replace('−', '-').replace(/^(-?)∞$/, '$1Infinity')) : Number(x));
  return { data: Float32Array.from(rows.flat(), parse), shape: [rows.length, cols] };
}

// JSON text of attribute `name`, or a TypeError naming the element and the attribute.
function parseJson(text, name) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TypeError(`attention-matrix: ${name} is not JSON (${error.message})`);
  }
}

// A boolean property with an attribute's meaning: present (any string, '' included) is on.
const isOn = (v) => typeof v === 'string' || Boolean(v);

// A labels property: a comma list or JSON text as the attribute takes it, or an array.
const labelsText = (v) => (typeof v === 'string' ? v : JSON.stringify(Array.from(v, String)));

function parseLabels(text) {
  if (text == null || text === '') return null;
  try {
    const parsed = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.map(String);
  } catch { /* a comma-separated list */ }
  return text.split(',').map((s) => s.trim());
}

// What a reader may type into a cell: numbers, and -inf / −∞ for a blocked mask entry.
function parseCell(text) {
  const t = text.trim().replace('−', '-').toLowerCase();
  if (t === '-inf' || t === '-infinity' || t === '-∞') return -Infinity;
  if (t === 'inf' || t === 'infinity' || t === '∞') return Infinity;
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/.test(t)) return null;
  return Number(t);
}

export class AttentionMatrix extends HTMLElement {
  #internals = this.attachInternals();
  static observedAttributes = ['label', 'value', 'precision', 'heat', 'editable', 'toggle', 'row-labels', 'col-labels'];

  #value = null;
  #focus = [0, 0];
  #editing = null;

  constructor() {
    super();
    containKeys(this.attachShadow({ mode: 'open' })).adoptedStyleSheets = [styleSheet(STYLE)];
  }

  connectedCallback() {
    followPageScheme(this, this.#internals);
    if (this.#value == null && this.hasAttribute('value')) this.#value = toMatrix(this.getAttribute('value'));
    this.#render();
  }

  attributeChangedCallback(name, old, now) {
    if (name === 'value' && now != null) this.#value = toMatrix(now);
    if (this.isConnected) this.#render();
  }

  /** The matrix shown: { data: Float32Array, shape: [rows, cols] } (a copy). */
  get value() {
    return this.#value && { data: this.#value.data.slice(), shape: this.#value.shape.slice() };
  }

  set value(v) {
    this.#value = toMatrix(v);
    if (this.isConnected) this.#render();
  }

  /** The label and the matrix, as JSON. */
  toJSON() {
    return { element: 'attention-matrix', label: this.label, value: this.#value && tensorJson(this.#value) };
  }

  /** A PNG of the matrix as drawn (a Promise of a Blob). */
  toPNG() {
    return elementToPng(this);
  }

  /** JavaScript that shows this matrix. */
  toCode() {
    const v = this.#value;
    const rows = v ? Array.from({ length: v.shape[0] }, (_, i) => Array.from(v.data.subarray(i * v.shape[1], (i + 1) * v.shape[1]))) : [];
    return `import 'attention-wasm/elements';

const m = document.createElement('attention-matrix');
m.label = ${jsString(this.label)};
${this.heat ? `m.heat = '${this.heat}';\n` : ''}m.value = ${jsLiteral(rows)};
document.body.append(m);
`;
  }

  get label() { return this.getAttribute('label') ?? ''; }
  set label(v) { this.setAttribute('label', v ?? ''); }
  get precision() { const a = this.getAttribute('precision'); const p = Number(a); return a !== null && a !== '' && Number.isInteger(p) && p >= 0 && p <= 8 ? p : 4; }
  set precision(v) { this.setAttribute('precision', String(v)); }
  get heat() { const h = this.getAttribute('heat'); return h === 'sequential' || h === 'diverging' ? h : null; }
  set heat(v) { if (v) this.setAttribute('heat', v); else this.removeAttribute('heat'); }
  get toggle() { return this.hasAttribute('toggle'); }
  set toggle(v) { this.toggleAttribute('toggle', isOn(v)); }
  get editable() { return this.hasAttribute('editable'); }
  set editable(v) { this.toggleAttribute('editable', isOn(v)); }
  get rowLabels() { return parseLabels(this.getAttribute('row-labels')); }
  set rowLabels(v) { if (v == null) this.removeAttribute('row-labels'); else this.setAttribute('row-labels', labelsText(v)); }
  get colLabels() { return parseLabels(this.getAttribute('col-labels')); }
  set colLabels(v) { if (v == null) this.removeAttribute('col-labels'); else this.setAttribute('col-labels', labelsText(v)); }

  /** Highlights cell (row, col) as linked from elsewhere (null clears). */
  highlight(cell) {
    for (const td of this.shadowRoot.querySelectorAll('td.linked')) td.classList.remove('linked');
    if (cell) this.#cell(cell[0], cell[1])?.classList.add('linked');
  }

  /** The cell element at (row, col), for linking and tests. */
  cellAt(row, col) {
    return this.#cell(row, col);
  }

  #cell(row, col) {
    return this.shadowRoot.querySelector(`td[data-row="${row}"][data-col="${col}"]`);
  }

  #render() {
    const root = this.shadowRoot;
    const v = this.#value;
    const [rows, cols] = v ? v.shape : [0, 0];
    const label = this.label;
    const figure = document.createElement('figure');
    figure.setAttribute('part', 'figure');
    const caption = document.createElement('figcaption');
    caption.setAttribute('part', 'caption');
    const name = document.createElement('span');
    name.className = 'label';
    name.textContent = label;
    const shape = document.createElement('span');
    shape.className = 'shape';
    shape.textContent = ` [${rows} × ${cols}]`;
    caption.append(name, shape);
    figure.append(caption);
    const scroll = document.createElement('div');
    scroll.className = 'scroll';
    const table = document.createElement('table');
    table.setAttribute('part', 'table');
    table.setAttribute('role', 'grid');
    table.setAttribute('aria-label', `${label || 'matrix'}, ${rows} by ${cols}`);
    table.setAttribute('aria-rowcount', String(rows));
    table.setAttribute('aria-colcount', String(cols));
    if (!this.editable && !this.toggle) table.setAttribute('aria-readonly', 'true');
    const rowLabels = this.rowLabels;
    const colLabels = this.colLabels;
    if (colLabels) {
      const tr = table.insertRow();
      tr.setAttribute('role', 'row');
      if (rowLabels) tr.append(document.createElement('th'));
      for (let j = 0; j < cols; j++) {
        const th = document.createElement('th');
        th.setAttribute('role', 'columnheader');
        th.textContent = colLabels[j] ?? '';
        tr.append(th);
      }
    }
    let min = Infinity, max = -Infinity;
    if (v) for (const x of v.data) if (Number.isFinite(x)) { min = Math.min(min, x); max = Math.max(max, x); }
    const heat = this.heat;
    const range = heat === 'sequential' ? { min: Math.min(0, min), max: Math.max(1, max) } : { min, max };
    const [fi, fj] = this.#focus;
    for (let i = 0; i < rows; i++) {
      const tr = table.insertRow();
      tr.setAttribute('role', 'row');
      if (rowLabels) {
        const th = document.createElement('th');
        th.setAttribute('role', 'rowheader');
        th.textContent = rowLabels[i] ?? '';
        tr.append(th);
      }
      for (let j = 0; j < cols; j++) {
        const x = v.data[i * cols + j];
        const td = tr.insertCell();
        td.setAttribute('role', 'gridcell');
        td.setAttribute('part', 'cell');
        td.dataset.row = String(i);
        td.dataset.col = String(j);
        td.dataset.value = exactNumber(x);
        td.textContent = formatNumber(x, this.precision);
        td.title = exactNumber(x);
        const where = `${rowLabels?.[i] ?? `row ${i + 1}`}, ${colLabels?.[j] ?? `column ${j + 1}`}`;
        td.setAttribute('aria-label', `${where}: ${formatNumber(x, this.precision)}`);
        td.setAttribute('aria-readonly', this.editable || this.toggle ? 'false' : 'true');
        if (this.toggle) td.setAttribute('aria-label', `${where}: ${formatNumber(x, this.precision)}, ${x === -Infinity ? 'blocked' : 'may attend'}; Space switches`);
        td.tabIndex = i === Math.min(fi, rows - 1) && j === Math.min(fj, cols - 1) ? 0 : -1;
        const colour = heat ? heatColour(x, heat, range) : null;
        if (colour) {
          td.style.background = colour.background;
          td.style.color = colour.color;
        }
      }
    }
    scroll.append(table);
    figure.append(scroll);
    const exact = document.createElement('div');
    exact.className = 'exact';
    exact.setAttribute('aria-live', 'polite');
    figure.append(exact);
    if (heat && v && Number.isFinite(min)) {
      const legend = document.createElement('div');
      legend.className = 'legend';
      legend.setAttribute('part', 'legend');
      const bar = document.createElement('span');
      bar.className = 'bar';
      bar.style.background = paletteGradient(heat);
      const lo = document.createElement('span');
      const hi = document.createElement('span');
      const m = Math.max(Math.abs(range.min), Math.abs(range.max));
      lo.textContent = formatNumber(heat === 'diverging' ? -m : range.min, 2);
      hi.textContent = formatNumber(heat === 'diverging' ? m : range.max, 2);
      legend.append(lo, bar, hi);
      figure.append(legend);
    }
    table.addEventListener('keydown', (e) => this.#onKey(e));
    table.addEventListener('focusin', (e) => this.#onFocus(e, exact));
    table.addEventListener('mouseover', (e) => this.#onHover(e, exact));
    table.addEventListener('dblclick', (e) => { const td = e.target.closest('td'); if (td && this.editable) this.#edit(td); });
    table.addEventListener('click', (e) => { const td = e.target.closest('td'); if (td && this.toggle) this.#flip(td); });
    const hadFocus = root.activeElement != null;
    root.replaceChildren(figure);
    this.#editing = null;
    if (hadFocus) this.#cell(...this.#focus)?.focus();
  }

  #describe(td) {
    const i = Number(td.dataset.row), j = Number(td.dataset.col);
    return `${this.label ? `${this.label} ` : ''}[${i}, ${j}] = ${td.dataset.value} (float32)`;
  }

  #onFocus(e, exact) {
    const td = e.target.closest('td');
    if (!td) return;
    this.#focus = [Number(td.dataset.row), Number(td.dataset.col)];
    exact.textContent = this.#describe(td);
    this.dispatchEvent(new CustomEvent('cellfocus', { bubbles: true, composed: true, detail: { row: this.#focus[0], col: this.#focus[1] } }));
  }

  #onHover(e, exact) {
    const td = e.target.closest('td');
    if (!td) return;
    exact.textContent = this.#describe(td);
    this.dispatchEvent(new CustomEvent('cellfocus', { bubbles: true, composed: true, detail: { row: Number(td.dataset.row), col: Number(td.dataset.col) } }));
  }

  #onKey(e) {
    if (this.#editing) return;
    const td = e.target.closest('td');
    if (!td || !this.#value) return;
    const [rows, cols] = this.#value.shape;
    let [i, j] = [Number(td.dataset.row), Number(td.dataset.col)];
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      i = Math.max(0, Math.min(rows - 1, i + moves[e.key][0]));
      j = Math.max(0, Math.min(cols - 1, j + moves[e.key][1]));
    } else if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = cols - 1;
    else if (this.toggle && (e.key === ' ' || e.key === 'Enter')) {
      consume(e);
      this.#flip(td);
      return;
    } else if (this.editable && (e.key === 'Enter' || e.key === 'F2')) {
      consume(e);
      this.#edit(td);
      return;
    } else if (this.editable && e.key.length === 1 && /[-0-9.−∞i]/.test(e.key)) {
      consume(e);
      this.#edit(td, e.key);
      return;
    } else return;
    consume(e);
    td.tabIndex = -1;
    const next = this.#cell(i, j);
    next.tabIndex = 0;
    next.focus();
  }

  #edit(td, typed) {
    const i = Number(td.dataset.row), j = Number(td.dataset.col);
    const input = document.createElement('input');
    input.setAttribute('inputmode', 'decimal');
    input.setAttribute('aria-label', `new value for ${td.getAttribute('aria-label')}`);
    input.value = typed ?? td.dataset.value;
    td.replaceChildren(input);
    this.#editing = { i, j };
    input.focus();
    if (typed == null) input.select();
    input.addEventListener('input', () => {
      const value = parseCell(input.value);
      input.setAttribute('aria-invalid', value === null ? 'true' : 'false');
      if (value !== null) this.dispatchEvent(new CustomEvent('input', { bubbles: true, composed: true, detail: { row: i, col: j, value } }));
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        consume(e);
        this.#commit(i, j, input.value);
      } else if (e.key === 'Escape') {
        consume(e);
        this.#editing = null;  // before the input goes: its blur must not commit
        this.#render();
        this.#cell(i, j)?.focus();
      }
    });
    input.addEventListener('blur', () => { if (this.#editing) this.#commit(i, j, input.value); });
  }

  // A mask cell: 0 (may attend) ↔ −∞ (blocked).
  #flip(td) {
    const i = Number(td.dataset.row), j = Number(td.dataset.col);
    const index = i * this.#value.shape[1] + j;
    this.#value.data[index] = this.#value.data[index] === -Infinity ? 0 : -Infinity;
    this.#focus = [i, j];
    this.#render();
    this.#cell(i, j)?.focus();
    this.dispatchEvent(new CustomEvent('change', { bubbles: true, composed: true, detail: { row: i, col: j, value: this.#value.data[index] } }));
  }

  #commit(i, j, text) {
    const value = parseCell(text);
    this.#editing = null;
    this.#focus = [i, j];
    if (value === null) {  // not a number: nothing changes
      this.#render();
      this.#cell(i, j)?.focus();
      return;
    }
    this.#value.data[i * this.#value.shape[1] + j] = value;
    this.#render();
    this.#cell(i, j)?.focus();
    this.dispatchEvent(new CustomEvent('change', { bubbles: true, composed: true, detail: { row: i, col: j, value: this.#value.data[i * this.#value.shape[1] + j] } }));
  }
}
