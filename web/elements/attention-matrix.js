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
import { formatNumber, exactNumber, heatColour, heatRgb, toNumber } from './format.js';
import { tensorJson, jsLiteral, jsString } from './export.js';
import { AttentionElement, colourLegend, captionLine, axisTitle, scrollRegion } from './base.js';
import { errorMessage } from './theme.js';
import { LIMITS, tooBig, parseAttributeJson, dimension, attempt } from './limits.js';
import { consume } from './keys.js';

const TAG = 'attention-matrix';

// The key to masked cells: a hatched swatch and what it means ("dropped key: weight 0").
function maskedKey(label) {
  const key = document.createElement('div');
  key.className = 'masked-key';
  key.setAttribute('part', 'legend');
  key.append(
    Object.assign(document.createElement('span'), { className: 'swatch' }),
    `hatched grey = ${label} (blocked, so not coloured by the scale)`,
  );
  return key;
}
// What a cell's colour says, by heat: weights on the sequential map, any signed value on the
// diverging one.
const LEGEND_TITLES = { sequential: 'cell colour = weight', diverging: 'cell colour = value' };

const STYLE = `
:host { display: inline-block; font: var(--attn-font, 0.85rem/1.3 ui-monospace, SFMono-Regular, Menlo, monospace); max-width: 100%; color: inherit; }
figure { margin: 0; display: inline-flex; flex-direction: column; gap: 0.25rem; max-width: 100%; }
figcaption { font-family: system-ui, sans-serif; font-size: 0.85em; }
.shape { opacity: 0.75; }
.hidden-words { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.scroll.compact td { padding: 0.1rem 0.15rem; min-width: 0; font-size: max(11px, 0.75rem); }
.scroll.compact th { padding: 0 0.15rem; }
table { border-collapse: collapse; }
th { font-weight: normal; font-family: system-ui, sans-serif; font-size: max(0.85em, 11px); padding: 0 0.35rem; opacity: 0.85; }
td { border: 1px solid var(--attn-border, var(--_cell-edge)); padding: var(--attn-cell-padding, 0.15rem 0.35rem); text-align: right; min-width: var(--attn-cell-width, 4.5ch); font-variant-numeric: tabular-nums; }
td:focus { outline: 2px solid var(--_focus); outline-offset: -2px; }
td[aria-readonly="false"] { cursor: text; }
/* an editable cell: a dashed underline under its number, on screen (the caption's ✎ says why) */
@media screen { :host([editable]) td[aria-readonly="false"] { text-decoration: underline dashed color-mix(in srgb, currentColor 45%, transparent); text-underline-offset: 3px; } }
.editable-mark { font-size: max(0.85em, 11px); }
:host([toggle]) td { cursor: pointer; }
td.linked { outline: 2px dashed var(--_focus); outline-offset: -3px; }
input { width: 7ch; font: inherit; text-align: right; padding: 0; border: 0; background: transparent; color: inherit; }
.exact { font-size: 0.75em; min-height: 1.2em; opacity: 0.85; }
/* masked cells: grey hatching, outside every colour map (not a small value) */
td.masked, .masked-key .swatch { background: repeating-linear-gradient(135deg, light-dark(#c8c8c8, #5a5a5a) 0 2px, light-dark(#f0f0f0, #2a2a2a) 2px 6px); color: inherit; }
.masked-key { font-family: system-ui, sans-serif; font-size: max(0.85em, 11px); display: flex; align-items: center; gap: 0.4rem; }
.masked-key .swatch { display: inline-block; width: 2.2em; height: 1em; border: 1px solid var(--attn-border, var(--_cell-edge)); }
`;

/**
 * A tensor { data, shape } from nested rows, a 1-D row, a { data, shape } tensor or JSON text
 * of one (what the `value` attribute holds; React and Vue set it as the property), checked
 * before anything is allocated: rectangular, numbers ("-Infinity" and "−∞" strings allowed),
 * at most LIMITS.canvasCells cells. Errors name the element and the attribute.
 */
export function toMatrix(value) {
  if (value == null) return null;
  if (typeof value === 'string') value = parseAttributeJson(TAG, 'value', value);
  if (value && typeof value === 'object' && !Array.isArray(value) && 'shape' in value) {
    const shape = Array.isArray(value.shape) ? value.shape : null;
    if (!shape || shape.length < 1 || shape.length > 2)
      throw new TypeError(`${TAG}: value.shape must be [rows, cols] or [cols]`);
    const [rows, cols] =
      shape.length === 1
        ? [1, dimension(TAG, 'value.shape[0]', shape[0])]
        : [dimension(TAG, 'value.shape[0]', shape[0]), dimension(TAG, 'value.shape[1]', shape[1])];
    checkCells(rows, cols);
    const data = value.data;
    if (!(ArrayBuffer.isView(data) || Array.isArray(data)) || data.length !== rows * cols) {
      throw new RangeError(
        `${TAG}: value.data must hold rows × cols = ${rows * cols} numbers, got ${ArrayBuffer.isView(data) || Array.isArray(data) ? data.length : typeof data}`,
      );
    }
    return {
      data: data instanceof Float32Array ? data.slice() : Float32Array.from(data, toNumber),
      shape: [rows, cols],
    };
  }
  if (!Array.isArray(value))
    throw new TypeError(`${TAG}: value must be nested rows of numbers, a { data, shape } tensor, or their JSON`);
  const rows = Array.isArray(value[0]) ? value : [value];
  const cols = rows[0]?.length ?? 0;
  checkCells(rows.length, cols);
  if (rows.some((r) => !Array.isArray(r) || r.length !== cols))
    throw new RangeError(`${TAG}: value must be rectangular (every row ${cols} numbers)`);
  return { data: Float32Array.from(rows.flat(), toNumber), shape: [rows.length, cols] };
}

// The finite min and max of `data`, how many values are not finite, and the range the heat
// colours span: [min(0, min), max(1, max)] for weights ('sequential'), else [min, max].
function valueRange(data, heat) {
  let min = Infinity,
    max = -Infinity,
    nonFinite = 0;
  for (const x of data)
    if (Number.isFinite(x)) {
      min = Math.min(min, x);
      max = Math.max(max, x);
    } else nonFinite++;
  const range = heat === 'sequential' ? { min: Math.min(0, min), max: Math.max(1, max) } : { min, max };
  return { min, max, nonFinite, range };
}

function checkCells(rows, cols) {
  if (rows * cols > LIMITS.canvasCells)
    throw tooBig(TAG, 'value', `${rows} × ${cols} = ${rows * cols} cells`, `${LIMITS.canvasCells}`);
}

// Whether every row of a [rows, cols] tensor sums to 1 (attention weights), within float32 error.
function rowsSumToOne(v) {
  if (!v || v.shape[0] === 0) return false;
  const [rows, cols] = v.shape;
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    for (let j = 0; j < cols; j++) sum += v.data[i * cols + j];
    if (!(Math.abs(sum - 1) < 1e-4)) return false;
  }
  return true;
}

// Compact cells (less padding, a smaller font) only when the table would not fit otherwise.
function compactFit(region, overflows) {
  region.classList.remove('compact');
  if (overflows()) region.classList.add('compact');
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
  } catch {
    /* a comma-separated list */
  }
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

// An axis title for rows or columns numbered from 0: query, key and token rows count positions.
const numbered = (title) => (['query', 'key', 'token'].includes(title) ? `${title} position` : title);

export class AttentionMatrix extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #value = null;
  #error = null;
  #scale = null;
  #blank = '';
  #masked = null;
  #focus = [0, 0];
  #editing = null;

  connectedCallback() {
    super.connectedCallback();
    if (this.#value == null && this.#error == null && this.hasAttribute('value'))
      this.#take(this.getAttribute('value'));
    this.#render();
  }

  attributeChangedCallback(name, old, now) {
    if (name === 'value' && now != null) this.#take(now);
    if (this.isConnected) this.#render();
  }

  // A new value, or the message saying why it cannot be shown (the element recovers on the
  // next good one).
  #take(value) {
    ({ value: this.#value, error: this.#error } = attempt(() => toMatrix(value)));
  }

  /** The matrix shown: { data: Float32Array, shape: [rows, cols] } (a copy). */
  get value() {
    return this.#value && { data: this.#value.data.slice(), shape: this.#value.shape.slice() };
  }

  set value(v) {
    this.#take(v);
    if (this.isConnected) this.#render();
  }

  /** Why the last value could not be shown, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  /** The label and the matrix, as JSON. */
  toJSON() {
    return { element: 'attention-matrix', label: this.label, value: this.#value && tensorJson(this.#value) };
  }

  /** JavaScript that shows this matrix. */
  toCode() {
    const v = this.#value;
    const rows = v
      ? Array.from({ length: v.shape[0] }, (_, i) => Array.from(v.data.subarray(i * v.shape[1], (i + 1) * v.shape[1])))
      : [];
    return `import 'attention-wasm/elements';

const m = document.createElement('attention-matrix');
m.label = ${jsString(this.label)};
${this.heat ? `m.heat = '${this.heat}';\n` : ''}m.value = ${jsLiteral(rows)};
document.body.append(m);
`;
  }

  // The attributes as attributes.js types them (a bad value reads as its default; the
  // message shows above the matrix).
  #attribute(name) {
    return this.attributeReader().get(name);
  }

  get label() {
    return this.#attribute('label');
  }
  set label(v) {
    this.setAttribute('label', v ?? '');
  }
  get precision() {
    return this.#attribute('precision');
  }
  set precision(v) {
    this.setAttribute('precision', String(v));
  }
  get heat() {
    return this.#attribute('heat');
  }
  set heat(v) {
    if (v) this.setAttribute('heat', v);
    else this.removeAttribute('heat');
  }
  get toggle() {
    return this.#attribute('toggle');
  }
  set toggle(v) {
    this.toggleAttribute('toggle', isOn(v));
  }
  get editable() {
    return this.#attribute('editable');
  }
  set editable(v) {
    this.toggleAttribute('editable', isOn(v));
  }
  get rowLabels() {
    return parseLabels(this.getAttribute('row-labels'));
  }
  set rowLabels(v) {
    if (v == null) this.removeAttribute('row-labels');
    else this.setAttribute('row-labels', labelsText(v));
  }
  get colLabels() {
    return parseLabels(this.getAttribute('col-labels'));
  }
  set colLabels(v) {
    if (v == null) this.removeAttribute('col-labels');
    else this.setAttribute('col-labels', labelsText(v));
  }

  /** What the rows are ("query"): the axis title "query ↓", with colTitle's "key →". */
  get rowTitle() {
    return this.#attribute('row-title');
  }
  set rowTitle(v) {
    this.setAttribute('row-title', v ?? '');
  }
  get colTitle() {
    return this.#attribute('col-title');
  }
  set colTitle(v) {
    this.setAttribute('col-title', v ?? '');
  }
  /**
   * A colour scale shared with other matrices: { min, max, note } (note: what shares it, as
   * the legend says, "one scale for Q, K and V"), or null: the matrix's own (weights 0 to 1,
   * signed values ± this matrix's largest |value|, and its legend says so).
   */
  get scale() {
    return this.#scale && { ...this.#scale };
  }
  set scale(v) {
    this.#scale =
      v && Number.isFinite(v.min) && Number.isFinite(v.max) ? { min: v.min, max: v.max, note: v.note ?? '' } : null;
    if (this.isConnected) this.#render();
  }

  /**
   * What a NaN cell reads ('' = "NaN"): a value that has no meaning yet, such as a rescale
   * before there is anything to rescale ("—", the caption saying why).
   */
  get blank() {
    return this.#blank;
  }
  set blank(v) {
    this.#blank = String(v ?? '');
    if (this.isConnected) this.#render();
  }

  /**
   * Cells masked out (a blocked query–key pair, a dropped key), drawn hatched in grey outside
   * the colour map so that they do not read as small values, with `label` in a key under the
   * legend: { cells: 0/1 per cell (row-major) or a function (row, col) → boolean, label } or
   * null (`words` is read as `label`).
   */
  get masked() {
    if (!this.#masked) return null;
    const { cells, label } = this.#masked;
    return { cells: typeof cells === 'function' ? cells : cells.slice(), label };
  }
  set masked(v) {
    const cells = typeof v?.cells === 'function' ? v.cells : v?.cells && Array.from(v.cells, (x) => (x ? 1 : 0));
    this.#masked = cells ? { cells, label: String(v.label ?? v.words ?? 'masked') } : null;
    if (this.isConnected) this.#render();
  }

  // Whether the cell (i, j) of a cols-wide value is masked.
  #isMasked(i, j, cols) {
    const cells = this.#masked?.cells;
    if (!cells) return false;
    return typeof cells === 'function' ? Boolean(cells(i, j)) : cells[i * cols + j] === 1;
  }

  /** One sentence under the matrix: what it shows and what to notice. */
  get caption() {
    return this.#attribute('caption');
  }
  set caption(v) {
    this.setAttribute('caption', v ?? '');
  }

  // "query ↓  key →" from row-title and col-title. Absent, they are "query" and "key" (an
  // attention matrix's axes); an empty attribute (row-title="") shows no title.
  #titles() {
    return [
      this.hasAttribute('row-title') ? this.rowTitle : 'query',
      this.hasAttribute('col-title') ? this.colTitle : 'key',
    ];
  }

  // The axis titles; rows or columns numbered by default say what the numbers count ("query
  // position ↓": 0 and 1 are the first and second query, not tokens named 0 and 1) and that
  // they count from 0, as the API's arrays do.
  #axisWords() {
    const plain = this.#titles().map((title, axis) => title && (axis ? this.colLabels : this.rowLabels) == null);
    const [rows, cols] = this.#titles().map((title, axis) => (plain[axis] ? numbered(title) : title));
    const words = [rows && `${rows} ↓`, cols && `${cols} →`].filter(Boolean).join('   ');
    return words && plain.some(Boolean) ? `${words}   (counted from 0)` : words;
  }

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

  // The matrix, then a bad attribute's message above it (a bad value's message replaces it).
  #render() {
    this.#draw();
    if (!this.#error) this.showAttributeError(this.attributeReader().checkAll().error);
  }

  #draw() {
    const root = this.shadowRoot;
    if (this.#error) {
      root.replaceChildren(errorMessage(this.#error));
      return;
    }
    const v = this.#value;
    if (v && v.shape[0] * v.shape[1] > LIMITS.tableCells) {
      root.replaceChildren(this.#canvasFigure(v));
      return;
    }
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
    shape.textContent = ` [${rows} × ${cols}]${this.heat === 'sequential' && rowsSumToOne(v) ? ' · each row sums to 1' : ''}`;
    caption.append(name, shape);
    // What can be changed, said where the numbers are (on screen; paper changes nothing).
    if (this.editable)
      caption.append(
        Object.assign(document.createElement('span'), {
          className: 'print-hide editable-mark',
          textContent: ' · ✎ editable',
          title: 'click or tap a number (or focus it and type) to change it',
        }),
      );
    figure.append(caption);
    const axes = this.#axisWords();
    if (axes) figure.append(axisTitle(axes));
    const table = document.createElement('table');
    table.setAttribute('part', 'table');
    table.setAttribute('role', 'grid');
    table.setAttribute('aria-label', `${label || 'matrix'}, ${rows} by ${cols}`);
    table.setAttribute('aria-rowcount', String(rows));
    table.setAttribute('aria-colcount', String(cols));
    if (!this.editable && !this.toggle) table.setAttribute('aria-readonly', 'true');
    // Without labels, the rows and columns are numbered from 0, as the API's arrays (a reader
    // can name any cell).
    const rowLabels = this.rowLabels ?? Array.from({ length: rows }, (_, i) => String(i));
    const colLabels = this.colLabels ?? Array.from({ length: cols }, (_, j) => String(j));
    if (colLabels) {
      const tr = table.insertRow();
      tr.setAttribute('role', 'row');
      if (rowLabels) {
        // The corner says what the headers name (read by screen readers, not drawn).
        const corner = document.createElement('th');
        corner.className = 'corner';
        const words = document.createElement('span');
        words.className = 'hidden-words';
        const [rowTitle, colTitle] = this.#titles();
        words.textContent = `${rowTitle || 'row'} \\ ${colTitle || 'column'}`;
        corner.append(words);
        tr.append(corner);
      }
      for (let j = 0; j < cols; j++) {
        const th = document.createElement('th');
        th.setAttribute('role', 'columnheader');
        th.textContent = colLabels[j] ?? '';
        tr.append(th);
      }
    }
    const heat = this.heat;
    const { min, range } = this.#colourRange(v?.data ?? [], heat);
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
        const shown = Number.isNaN(x) && this.#blank ? this.#blank : formatNumber(x, this.precision);
        td.textContent = shown;
        td.title = exactNumber(x);
        const where = `${rowLabels?.[i] ?? `row ${i}`}, ${colLabels?.[j] ?? `column ${j}`}`;
        td.setAttribute('aria-label', `${where}: ${shown}`);
        td.setAttribute('aria-readonly', this.editable || this.toggle ? 'false' : 'true');
        if (this.toggle)
          td.setAttribute(
            'aria-label',
            `${where}: ${formatNumber(x, this.precision)}, ${x === -Infinity ? 'blocked' : 'may attend'}; Space switches`,
          );
        td.tabIndex = i === Math.min(fi, rows - 1) && j === Math.min(fj, cols - 1) ? 0 : -1;
        const masked = this.#isMasked(i, j, cols);
        if (masked) {
          td.classList.add('masked');
          td.setAttribute('aria-label', `${td.getAttribute('aria-label')} (${this.#masked.label})`);
        }
        const colour = heat && !masked ? heatColour(x, heat, range) : null;
        if (colour) {
          td.style.background = colour.background;
          td.style.color = colour.color;
        }
      }
    }
    // Too wide for the page: first compact cells, then a labelled region that scrolls sideways.
    figure.append(scrollRegion(`${label || 'matrix'}, ${rows} × ${cols}`, table, { fit: compactFit }));
    const exact = document.createElement('div');
    exact.className = 'exact';
    exact.setAttribute('aria-live', 'polite');
    figure.append(exact);
    if (heat && v && Number.isFinite(min))
      figure.append(colourLegend({ kind: heat, min: range.min, max: range.max, title: this.#legendTitle(heat) }));
    if (
      this.#masked &&
      Array.from({ length: rows * cols }, (_, n) => this.#isMasked(Math.floor(n / cols), n % cols, cols)).some(Boolean)
    )
      figure.append(maskedKey(this.#masked.label));
    const words = this.caption;
    if (words) figure.append(captionLine(words));
    table.addEventListener('keydown', (e) => this.#onKey(e));
    table.addEventListener('focusin', (e) => this.#onFocus(e, exact));
    table.addEventListener('mouseover', (e) => this.#onHover(e, exact));
    table.addEventListener('dblclick', (e) => {
      const td = e.target.closest('td');
      if (td && this.editable) this.#edit(td);
    });
    table.addEventListener('click', (e) => {
      const td = e.target.closest('td');
      if (td && this.toggle) this.#flip(td);
    });
    const hadFocus = root.activeElement != null;
    root.replaceChildren(figure);
    this.#editing = null;
    if (hadFocus) this.#cell(...this.#focus)?.focus();
  }

  // valueRange, with the colours spanning the shared scale when one is set.
  #colourRange(data, heat) {
    const r = valueRange(data, heat);
    return this.#scale ? { ...r, range: { min: this.#scale.min, max: this.#scale.max } } : r;
  }

  // The legend's title: what the colour is, and whose scale it is (shared, or this matrix's own
  // for signed values; weights are always on 0 to 1).
  #legendTitle(heat) {
    if (this.#scale) return `${LEGEND_TITLES[heat]} (${this.#scale.note || 'a scale shared with other matrices'})`;
    return heat === 'diverging'
      ? `${LEGEND_TITLES[heat]} (this matrix's own scale: ± its largest |value|)`
      : LEGEND_TITLES[heat];
  }

  // A matrix too big for a table: one pixel per cell on a canvas (scaled up, pixelated), in
  // the heat colours (diverging when none is set), with a summary for screen readers.
  #canvasFigure(v) {
    const [rows, cols] = v.shape;
    const heat = this.heat ?? 'diverging';
    const { min, max, nonFinite, range } = this.#colourRange(v.data, heat);
    const canvas = document.createElement('canvas');
    canvas.width = cols;
    canvas.height = rows;
    canvas.setAttribute('part', 'canvas');
    const scale = Math.max(1, Math.floor(512 / Math.max(rows, cols)));
    canvas.style.cssText = `width: ${cols * scale}px; max-width: 100%; image-rendering: pixelated;`;
    const summary = `${this.label || 'matrix'}, ${rows} by ${cols}, drawn as colours: min ${formatNumber(min, 4)}, max ${formatNumber(max, 4)}${nonFinite ? `, ${nonFinite} not finite (drawn black)` : ''}`;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', summary);
    const ctx = canvas.getContext('2d');
    const image = ctx.createImageData(cols, rows);
    // 256 palette entries, looked up per cell (a palette call per cell took ~0.6 s at 1000²).
    const m = Math.max(Math.abs(range.min), Math.abs(range.max)) || 1;
    const [lo, hi] = heat === 'diverging' ? [-m, m] : [range.min, range.max > range.min ? range.max : range.min + 1];
    const lut = new Uint8Array(256 * 3);
    for (let k = 0; k < 256; k++) lut.set(heatRgb(lo + (hi - lo) * (k / 255), heat, range), 3 * k);
    const pixels = image.data;
    for (let i = 0; i < v.data.length; i++) {
      const x = v.data[i];
      const p = 4 * i;
      pixels[p + 3] = 255;
      if (!Number.isFinite(x)) continue; // black
      const k = 3 * Math.min(255, Math.max(0, Math.round(((x - lo) / (hi - lo)) * 255)));
      pixels[p] = lut[k];
      pixels[p + 1] = lut[k + 1];
      pixels[p + 2] = lut[k + 2];
    }
    ctx.putImageData(image, 0, 0);
    const figure = document.createElement('figure');
    figure.setAttribute('part', 'figure');
    const caption = document.createElement('figcaption');
    caption.setAttribute('part', 'caption');
    caption.textContent = `${this.label ? `${this.label} ` : ''}[${rows} × ${cols}]`;
    const note = document.createElement('div');
    note.className = 'exact';
    note.textContent = `${summary}. Too many cells for a table (more than ${LIMITS.tableCells}).`;
    figure.append(caption, canvas, note);
    return figure;
  }

  #describe(td) {
    const i = Number(td.dataset.row),
      j = Number(td.dataset.col);
    return `${this.label ? `${this.label} ` : ''}[${i}, ${j}] = ${td.dataset.value} (float32)`;
  }

  #onFocus(e, exact) {
    const td = e.target.closest('td');
    if (!td) return;
    this.#focus = [Number(td.dataset.row), Number(td.dataset.col)];
    exact.textContent = this.#describe(td);
    this.dispatchEvent(
      new CustomEvent('cellfocus', {
        bubbles: true,
        composed: true,
        detail: { row: this.#focus[0], col: this.#focus[1] },
      }),
    );
  }

  #onHover(e, exact) {
    const td = e.target.closest('td');
    if (!td) return;
    exact.textContent = this.#describe(td);
    this.dispatchEvent(
      new CustomEvent('cellfocus', {
        bubbles: true,
        composed: true,
        detail: { row: Number(td.dataset.row), col: Number(td.dataset.col) },
      }),
    );
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
    const i = Number(td.dataset.row),
      j = Number(td.dataset.col);
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
      if (value !== null)
        this.dispatchEvent(
          new CustomEvent('input', { bubbles: true, composed: true, detail: { row: i, col: j, value } }),
        );
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        consume(e);
        this.#commit(i, j, input.value);
      } else if (e.key === 'Escape') {
        consume(e);
        this.#editing = null; // before the input goes: its blur must not commit
        this.#render();
        this.#cell(i, j)?.focus();
      }
    });
    input.addEventListener('blur', () => {
      if (this.#editing) this.#commit(i, j, input.value);
    });
  }

  // A mask cell: 0 (may attend) ↔ −∞ (blocked).
  #flip(td) {
    const i = Number(td.dataset.row),
      j = Number(td.dataset.col);
    const index = i * this.#value.shape[1] + j;
    this.#value.data[index] = this.#value.data[index] === -Infinity ? 0 : -Infinity;
    this.#focus = [i, j];
    this.#render();
    this.#cell(i, j)?.focus();
    this.dispatchEvent(
      new CustomEvent('change', {
        bubbles: true,
        composed: true,
        detail: { row: i, col: j, value: this.#value.data[index] },
      }),
    );
  }

  #commit(i, j, text) {
    const value = parseCell(text);
    this.#editing = null;
    this.#focus = [i, j];
    if (value === null) {
      // not a number: nothing changes
      this.#render();
      this.#cell(i, j)?.focus();
      return;
    }
    this.#value.data[i * this.#value.shape[1] + j] = value;
    this.#render();
    this.#cell(i, j)?.focus();
    this.dispatchEvent(
      new CustomEvent('change', {
        bubbles: true,
        composed: true,
        detail: { row: i, col: j, value: this.#value.data[i * this.#value.shape[1] + j] },
      }),
    );
  }
}
