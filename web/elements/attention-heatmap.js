// <attention-heatmap>: attention weights with token labels: one small multiple per head plus
// the head average, or a lines view (bertviz's head view: the tokens in two columns, a line
// from query to key whose opacity is the weight). Hovering or focusing a cell (or a token in
// the lines view) highlights the same query/key pair in every element named in `for`.
//
//   <attention-heatmap id="h" tokens="The,cat,sat" for="steps1"></attention-heatmap>
//   h.weights = result.weights;          // [Lq, Lk] or [heads, Lq, Lk] (a MultiHeadAttention
//                                        // forward with returnWeights: [B?, heads, Lq, Lk]);
//   h.weights = result;                  // or the attention / forward result itself
//   <attention-heatmap example="2" view="lines"></attention-heatmap>   the course's example
//
// Attributes: weights (JSON), tokens / query-tokens / key-tokens (comma list or JSON array;
// the properties tokens / queryTokens / keyTokens also take an array of strings), view
// ("grid" or "lines"; a button switches), head (the head the lines view shows: a number
// from 0, "average" or "all"), for (ids of linked elements), example (1-4). Events: `pair` (detail
// { query, key, weight }) on hover/focus; `headtoggle` (detail { hidden: 0-based heads }) when
// a head chip hides or shows a head (property hiddenHeads).
import { getApi } from './api.js';
import { AttentionMatrix } from './attention-matrix.js';
import { exampleData } from './attention-steps.js';
import { exampleCaption, attendsLater } from './course-examples.js';
import { toNumber, formatNumber } from './format.js';
import { jsLiteral, jsString } from './export.js';
import { AttentionElement, captionLine } from './base.js';
import { errorMessage } from './theme.js';
import { LIMITS, tooBig, parseAttributeJson, dimension, attempt } from './limits.js';
import { positionedLabels } from './model-views.js';
import { positionNote } from './token-positions.js';
import { listOf, defineListProperties } from './steps-inputs.js';
import { headColour, headLabel } from './head-colours.js';

export { headColour };

const TAG = 'attention-heatmap';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.controls { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; font-size: 0.85em; margin-bottom: 0.3rem; }
button, select { font: inherit; }
.grid { display: flex; flex-wrap: wrap; gap: 0.8rem; max-width: 100%; }
svg { max-width: 100%; height: auto; overflow: visible; }
svg text { font: 13px system-ui, sans-serif; fill: currentColor; }
svg line { stroke: var(--_line); }
svg g.token:focus-visible { outline: 2px solid var(--_focus); outline-offset: 1px; }
svg g.token:focus text, svg g.token.active text { font-weight: 700; }
svg line.off { display: none; }
/* one map drawn: the other tokens' lines thin and grey, so that the focused token's stand out */
svg line.other { stroke: light-dark(#a3a3a3, #666666) !important; stroke-width: 1px; opacity: 0.6 !important; }
svg line.dim { opacity: 0.05 !important; }
svg g.token.active text { text-decoration: underline; text-underline-offset: 3px; }
svg circle.anchor { fill: var(--_line); }
svg text.weight { font-size: 13px; /* the token names' size: 11.6 px once a 390 px page scales the drawing */ font-variant-numeric: tabular-nums; paint-order: stroke; stroke: Canvas; stroke-width: 3px; stroke-linejoin: round; }
svg text.heading { font-weight: 600; }
.readout { font-size: 0.85rem; min-height: 1.3em; font-variant-numeric: tabular-nums; max-width: 40rem; }
.readout .weights { overflow-wrap: anywhere; }
.readout .swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-inline-end: 0.3em; vertical-align: -0.05em; }
.key { display: flex; align-items: center; flex-wrap: wrap; gap: 0.4rem; font-size: 0.8rem; }
.key .samples { display: inline-flex; align-items: center; gap: 4px; padding: 2px 4px; border: 1px solid light-dark(#767676, #9a9a9a); }
.key .scale { display: inline-flex; align-items: center; gap: 0.4rem; white-space: nowrap; }
.chips { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.3rem 0; font-size: 0.85rem; }
.chip { font: inherit; border: 2px solid var(--chip); border-left-width: 1rem; background: transparent; color: inherit; padding: 0 0.4rem; cursor: pointer; }
.chip[aria-pressed="false"] { opacity: 0.45; border-style: dashed; text-decoration: line-through; }
.key .samples span { display: inline-block; width: 18px; background: var(--_line); }
/* every head drawn: the samples in a mid grey that shows on a light and a dark page (no head's colour, not the text's black) */
.key .samples.neutral span { background: #888888; }
/* On paper nothing is hovered: the lines' weights as printed tables too, under the readout (the same token's as on screen) */
.print-only { display: none; }
@media print {
  .print-only { display: flex; flex-wrap: wrap; gap: 0.8rem; margin-top: 0.3rem; }
}
`;

const SVG = 'http://www.w3.org/2000/svg';
/** The all-heads lines view: how far apart the heads' lines sit at a token. */
const HEAD_SPREAD = 4, // px between two heads' lines, at most
  HEAD_BAND = 12; // px: the whole bundle's height, at most

/**
 * A line's width in px for a weight in [0, 1]: width encodes the weight as well as opacity,
 * from 1 px (a floor: at 0.5 px a faint line of a head's colour showed as grey) to 6 px.
 */
export function lineWidth(weight) {
  return 1 + 5 * Math.max(0, Math.min(1, weight));
}

/**
 * A line's opacity for a weight in [0, 1]: 0 for 0 (a masked key: no line), else from 0.55 up
 * to 1, so that a weight near 0.5 still stands out from a light or a dark page at 3:1 (at
 * opacity = weight, 0.478 of the light scheme's blue was 2.1:1 on white), and the faintest
 * line keeps its head's hue (from 0.45, a 0.002 line of any head read as grey).
 */
export function lineOpacity(weight) {
  const w = Math.max(0, Math.min(1, weight));
  return w > 0 ? 0.55 + 0.45 * w : 0;
}

/**
 * Weights as heads: [heads][Lq][Lk] nested arrays of numbers, from a tensor ([Lq, Lk],
 * [heads, Lq, Lk] or [B, heads, Lq, Lk]: the first batch entry), an attention result, nested
 * arrays, or JSON text of those. Sizes are checked against LIMITS.heatmap before anything is
 * built; errors name the element and the attribute.
 */
export function headsOf(weights) {
  if (weights == null) return [];
  if (typeof weights === 'string') weights = parseAttributeJson(TAG, 'weights', weights); // the attribute's JSON (React and Vue set it as the property)
  if (typeof weights !== 'object')
    throw new TypeError(`${TAG}: weights must be [Lq][Lk] or [heads][Lq][Lk] numbers, a tensor, or their JSON`);
  if (!Array.isArray(weights) && weights.weights && !weights.data) weights = weights.weights; // a forward's result
  // Nested arrays are copied into plain arrays of numbers (a Vue reactive array, strings
  // such as "-Infinity"): the element keeps no caller object and no non-number.
  if (Array.isArray(weights)) {
    const heads = Array.isArray(weights[0]?.[0]) ? weights : [weights];
    const lq = heads[0]?.length ?? 0,
      lk = heads[0]?.[0]?.length ?? 0;
    checkSizes(heads.length, lq, lk);
    if (
      heads.some(
        (h) => !Array.isArray(h) || h.length !== lq || h.some((row) => !Array.isArray(row) || row.length !== lk),
      )
    ) {
      throw new RangeError(`${TAG}: weights must be rectangular: every head ${lq} rows of ${lk}`);
    }
    return heads.map(numberRows);
  }
  const shape = weights.shape;
  if (!Array.isArray(shape) || shape.length < 2 || shape.length > 4)
    throw new TypeError(`${TAG}: weights.shape must be [Lq, Lk], [heads, Lq, Lk] or [B, heads, Lq, Lk]`);
  shape.forEach((d, i) => dimension(TAG, `weights.shape[${i}]`, d));
  const [lq, lk] = shape.slice(-2);
  const heads = shape.length >= 3 ? shape[shape.length - 3] : 1;
  checkSizes(heads, lq, lk);
  const per = lq * lk;
  if (!ArrayBuffer.isView(weights.data) && !Array.isArray(weights.data))
    throw new TypeError(`${TAG}: weights.data must be an array of numbers`);
  if (weights.data.length < heads * per)
    throw new RangeError(`${TAG}: weights.data has ${weights.data.length} numbers, the shape needs ${heads * per}`);
  const data = Float32Array.from(weights.data.slice(0, heads * per), Number);
  return Array.from({ length: heads }, (_, h) =>
    Array.from({ length: lq }, (_, i) => Array.from(data.subarray(h * per + i * lk, h * per + (i + 1) * lk))),
  );
}

function checkSizes(heads, lq, lk) {
  const { heads: maxHeads, tokens } = LIMITS.heatmap;
  if (heads > maxHeads) throw tooBig(TAG, 'the number of heads in weights', heads, maxHeads);
  if (lq > tokens || lk > tokens)
    throw tooBig(TAG, 'weights', `[${lq}, ${lk}] (queries × keys)`, `${tokens} tokens a side`);
}

// One head's [Lq][Lk] as fresh arrays of numbers.
const numberRows = (head) => Array.from(head, (row) => Array.from(row, toNumber));

/** The mean over heads, [Lq][Lk]. */
export function headAverage(heads) {
  return heads[0].map((row, i) => row.map((_, j) => heads.reduce((s, h) => s + h[i][j], 0) / heads.length));
}

// The line an element on a page shows before it has weights.
function nothingToShow() {
  const p = document.createElement('p');
  p.className = 'hint';
  p.textContent =
    'No attention weights to show yet: give weights="[[…],[…]]" (rows sum to 1; one matrix per head as [[[…]]]), the weights property, or example="1" to "4" for the course\'s worked examples.';
  return p;
}

export class AttentionHeatmap extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #heads = [];
  #example = null; // the course example the heads are (1-4), or null for the caller's weights
  #hidden = new Set(); // heads the reader toggled off in the all-heads lines view
  #masked = null; // the cells a mask hid: { cells: (query, key) => boolean, words } or null
  #selected = null; // the lines view's selected token { side: 'query' | 'key', index }, or null: the last query
  #error = null;
  #generation = 0;

  connectedCallback() {
    super.connectedCallback();
    this.#load();
  }

  attributeChangedCallback(name) {
    if (!this.isConnected) return;
    if (name === 'weights' || name === 'example') this.#load();
    else this.#render();
  }

  /** The weights shown, [heads][Lq][Lk]. */
  get weights() {
    return structuredClone(this.#heads);
  }
  set weights(value) {
    this.#generation++; // a pending example computation must not overwrite these
    this.#example = null;
    this.#take(() => headsOf(value));
    if (this.isConnected) this.#render();
  }

  /**
   * The cells a mask hid (weight 0 because masked, not small): null, or { cells: (query, key)
   * => boolean, words: what hid them }; the grids draw them hatched grey with a legend entry.
   * A course example sets its own (its mask's −∞ entries); new weights keep it.
   */
  get masked() {
    return this.#masked;
  }
  set masked(m) {
    this.#masked = typeof m?.cells === 'function' ? m : null;
    if (this.isConnected) this.#render();
  }

  /** Why the last input could not be shown, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  // New heads, or the message saying why not (the element recovers on the next good input).
  // Heads the reader hid stay hidden while the number of heads is the same.
  #take(make) {
    const count = this.#heads.length;
    ({ value: this.#heads, error: this.#error } = attempt(make, []));
    if (this.#heads.length !== count && this.#heads.length) this.#hidden.clear();
  }

  /**
   * The heads (0-based) the reader toggled off in the all-heads lines view, ascending. Set
   * it to carry the choice over to a new heatmap of as many heads (<attention-model> does).
   */
  get hiddenHeads() {
    return [...this.#hidden].sort((a, b) => a - b);
  }
  set hiddenHeads(heads) {
    this.#hidden = new Set(Array.from(heads ?? [], Number).filter((n) => Number.isInteger(n) && n >= 0));
    if (this.isConnected) this.#render();
  }

  /** The tokens and the weights of every head, as JSON. */
  toJSON() {
    return {
      element: 'attention-heatmap',
      tokens: this.#tokens(),
      heads: this.weights,
      average: this.#heads.length ? headAverage(this.#heads) : null,
    };
  }

  /** JavaScript that shows these weights in an <attention-heatmap>. */
  toCode() {
    const heads = this.#heads;
    const lq = heads[0]?.length ?? 0,
      lk = heads[0]?.[0]?.length ?? 0;
    return `import 'attention-wasm/elements';
import { tensor } from 'attention-wasm';

// weights [heads, Lq, Lk], e.g. from attention(q, k, v, { returnWeights: true }).weights
const weights = tensor(${jsLiteral(heads.flat(2))}, [${heads.length}, ${lq}, ${lk}]);
const heatmap = document.createElement('attention-heatmap');
heatmap.tokens = [${this.#tokens().k.map(jsString).join(', ')}];
heatmap.weights = weights;
document.body.append(heatmap);
`;
  }

  /** 'grid' or 'lines' ('grid' also while the attribute is bad: attributes.js). */
  get view() {
    return this.attributeReader().get('view');
  }
  set view(v) {
    this.setAttribute('view', v);
  }

  async #load() {
    const generation = ++this.#generation;
    this.#example = null;
    if (this.hasAttribute('weights')) {
      this.#take(() => headsOf(this.getAttribute('weights')));
    } else if (this.hasAttribute('example')) {
      // A bad example number is an attribute message (#render); nothing to compute meanwhile.
      const example = this.attributeReader().get('example');
      let d;
      this.#take(() => {
        if (example !== null) d = exampleData(example, TAG);
        return [];
      });
      if (d) {
        const attn = await getApi();
        if (generation !== this.#generation) return;
        const Q = attn.matmul(d.c ?? d.x, d.wq),
          K = attn.matmul(d.x, d.wk),
          V = attn.matmul(d.x, d.wv);
        const mask = d.mask ? attn.tensor(d.mask.flat(), [d.mask.length, d.mask[0].length]) : undefined;
        this.#take(() => headsOf(attn.attention(Q, K, V, { mask, returnWeights: true }).weights));
        this.#example = example;
        const hidden = d.mask;
        this.#masked = hidden
          ? { cells: (i, j) => hidden[i][j] === -Infinity, words: 'the causal mask hides a later key, weight 0' }
          : null;
      }
    }
    this.#render();
  }

  #tokens() {
    const lq = this.#heads[0]?.length ?? 0,
      lk = this.#heads[0]?.[0]?.length ?? 0;
    const both = listOf(this.getAttribute('tokens'));
    const q = listOf(this.getAttribute('query-tokens')) ?? both ?? Array.from({ length: lq }, (_, i) => `q${i}`);
    const k = listOf(this.getAttribute('key-tokens')) ?? both ?? Array.from({ length: lk }, (_, j) => `k${j}`);
    return { q, k };
  }

  // The tokens as the axes name them: a repeated one with its position ("the·5"), and the
  // sentence saying so ('' when none repeats).
  #shownTokens() {
    const { q, k } = this.#tokens();
    return { q: positionedLabels(q), k: positionedLabels(k), note: positionNote(q) || positionNote(k) };
  }

  /** Highlights the pair (query, key) here, or clears with null (for linked elements). */
  highlightPair(query, key) {
    for (const m of this.shadowRoot.querySelectorAll('attention-matrix'))
      m.highlight(query == null ? null : [query, key]);
    const svg = this.shadowRoot.querySelector('svg');
    if (svg) {
      for (const line of svg.querySelectorAll('line')) {
        line.classList.toggle(
          'dim',
          query != null && !(Number(line.dataset.query) === query && Number(line.dataset.key) === key),
        );
      }
    }
  }

  // Tells the linked elements (ids in `for`) and listeners which pair is under the pointer.
  #announce(query, key, weight) {
    this.dispatchEvent(new CustomEvent('pair', { bubbles: true, composed: true, detail: { query, key, weight } }));
    for (const id of (this.getAttribute('for') ?? this.getAttribute('link') ?? '').split(/\s+/).filter(Boolean)) {
      const target = this.getRootNode().getElementById?.(id) ?? document.getElementById(id);
      target?.highlightPair?.(query, key);
    }
  }

  // What the attributes ask for, then a bad attribute's message above it (attributes.js).
  #render() {
    // #draw reads head with the heads it holds as the bound; checkAll then reads the rest.
    const attributes = this.attributeReader();
    this.#draw(attributes);
    attributes.checkAll();
    if (!this.#error) this.showAttributeError(attributes.error);
  }

  #draw(attributes) {
    const heads = this.#heads;
    const view = attributes.get('view');
    // head: 0 … the heads shown − 1, 'average' or 'all' (default: the average of several heads).
    const head = attributes.get('head', heads.length ? heads.length - 1 : undefined);
    const choice = head === null ? (heads.length > 1 ? 'average' : '0') : String(head);
    const lines =
      view === 'lines' &&
      heads.length &&
      Math.max(heads[0].length, heads[0][0]?.length ?? 0) > LIMITS.heatmap.lineTokens;
    if (this.#error || lines) {
      this.shadowRoot.replaceChildren(
        errorMessage(
          this.#error ??
            tooBig(
              TAG,
              'the lines view',
              `${heads[0].length} × ${heads[0][0].length} tokens`,
              `${LIMITS.heatmap.lineTokens} a side (use view="grid")`,
            ),
        ),
      );
      return;
    }
    if (!heads.length) {
      // On a page (not inside another element, which hands the weights over itself): say
      // what to give, rather than an empty box.
      const onPage = this.getRootNode() === document && !this.hasAttribute('example');
      this.shadowRoot.replaceChildren(...(onPage ? [nothingToShow()] : []));
      return;
    }
    const tokens = this.#shownTokens();
    const controls = document.createElement('div');
    controls.className = 'controls';
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'print-hide'; // nothing to press on paper
    toggle.textContent = view === 'lines' ? 'Show grids' : 'Show lines';
    toggle.setAttribute('aria-pressed', String(view === 'lines'));
    toggle.addEventListener('click', () => {
      this.view = view === 'lines' ? 'grid' : 'lines';
    });
    controls.append(toggle);
    const body = view === 'lines' ? this.#lines(heads, tokens, controls, choice) : this.#grids(heads, tokens);
    // toolbar="none": an element that embeds this one exports for both (one toolbar).
    if (attributes.get('toolbar') !== 'none') controls.append(this.exportBar('attention-heatmap'));
    this.shadowRoot.replaceChildren(controls, body);
  }

  #grids(heads, tokens) {
    const grid = document.createElement('div');
    grid.className = 'grid';
    const views =
      heads.length > 1
        ? [
            ...heads.map((h, i) => [`head ${i}`, h, `head-${i + 1}`]),
            ['average of heads', headAverage(heads), 'average'],
          ]
        : [['weights', heads[0], 'head-1']];
    for (const [label, w, name] of views) {
      const m = new AttentionMatrix();
      m.dataset.name = name;
      m.setAttribute('label', label);
      m.setAttribute('heat', 'sequential');
      m.setAttribute('precision', '2');
      m.setAttribute('row-title', 'query');
      m.setAttribute('col-title', 'key');
      m.rowLabels = tokens.q;
      m.colLabels = tokens.k;
      m.value = w;
      m.masked = this.#masked;
      m.addEventListener('cellfocus', (e) => {
        const { row, col } = e.detail;
        for (const other of grid.querySelectorAll('attention-matrix')) other.highlight(other === m ? null : [row, col]);
        this.#announce(row, col, w[row][col]);
      });
      grid.append(m);
    }
    const wrap = document.createElement('div');
    wrap.append(
      grid,
      captionLine(
        `Each row is one query token's attention weights over the key tokens (rows sum to 1); brighter cells mean more weight${heads.length > 1 ? `, one map per head and their average` : ''}. ${tokens.note} ${this.#counting(heads, tokens.note)}`.replace(
          '  ',
          ' ',
        ),
      ),
      ...this.#exampleLine(heads, 'rows are queries, columns keys'),
    );
    return wrap;
  }

  // 'Heads and positions count from 0.' for what the grids number: heads in the maps' titles
  // (more than one), positions in the default labels (q0, k0) or in a repeated token's
  // ("the·5": its note says so already); '' when nothing is numbered.
  #counting(heads, note) {
    const named =
      !note && (this.hasAttribute('tokens') || this.hasAttribute('query-tokens') || this.hasAttribute('key-tokens'));
    const what = [
      ...(heads.length > 1 ? ['Heads'] : []),
      ...(named ? [] : [heads.length > 1 ? 'positions' : 'Positions']),
    ];
    return what.length ? `${what.join(' and ')} count from 0.` : '';
  }

  // The caption naming the course example shown (none for the caller's weights): which one,
  // the axes, and whether a query attends to a later key (example 2 does: not causal).
  #exampleLine(heads, axes) {
    if (this.#example === null) return [];
    const line = captionLine(
      exampleCaption(
        this.#example,
        heads.some((h) => attendsLater(h)),
        axes,
      ),
    );
    line.dataset.role = 'example';
    return [line];
  }

  // bertviz's head chips: one button per head in its colour; pressing one hides or shows its
  // lines (aria-pressed says whether they are shown).
  #headChips(count) {
    const chips = document.createElement('div');
    chips.className = 'chips';
    chips.setAttribute('role', 'group');
    chips.setAttribute('aria-label', 'heads shown (press to hide or show a head)');
    for (let n = 0; n < count; n++) {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'chip';
      chip.dataset.head = String(n);
      chip.style.setProperty('--chip', headColour(n, count));
      chip.setAttribute('aria-pressed', String(!this.#hidden.has(n)));
      chip.textContent = headLabel(n, count);
      chip.addEventListener('click', () => {
        if (this.#hidden.has(n)) this.#hidden.delete(n);
        else this.#hidden.add(n);
        const detail = { hidden: this.hiddenHeads };
        this.dispatchEvent(new CustomEvent('headtoggle', { bubbles: true, composed: true, detail }));
        this.#render();
        this.shadowRoot.querySelector(`.chip[data-head="${n}"]`)?.focus();
      });
      chips.append(chip);
    }
    return chips;
  }

  #lines(heads, tokens, controls, choice) {
    if (heads.length > 1) {
      const select = document.createElement('select');
      select.setAttribute('aria-label', 'head');
      for (const value of [...heads.map((_, i) => String(i)), 'average', 'all']) {
        const option = document.createElement('option');
        option.value = value;
        option.textContent =
          value === 'average' ? 'average of heads' : value === 'all' ? 'all heads, a colour each' : `head ${value}`;
        option.selected = value === choice;
        select.append(option);
      }
      select.addEventListener('change', () => this.setAttribute('head', select.value));
      controls.append(select);
    }
    // 'all' (bertviz's head view): every head's lines overlaid, a colour each; the tokens
    // highlight by the heads' average.
    const all = choice === 'all' && heads.length > 1;
    const w =
      choice === 'average' || all
        ? headAverage(heads)
        : (heads[Math.max(0, Math.min(heads.length - 1, Number(choice)))] ?? heads[0]);
    const lq = w.length,
      lk = w[0].length;
    const rowH = 24,
      top = 24, // the two column headings
      width = 400,
      left = 110,
      right = 290; // 180 px of lines: wide enough to follow one to its key
    const height = top + Math.max(lq, lk) * rowH + 10;
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('width', String(width));
    svg.setAttribute('role', 'group'); // it holds focusable tokens: an img may not
    const what = choice === 'average' ? 'average of heads' : all ? `all ${heads.length} heads` : `head ${choice}`;
    svg.setAttribute('aria-label', `attention lines, ${what}: ${lq} queries to ${lk} keys`);
    const heading = (text, x, anchor) => {
      const t = document.createElementNS(SVG, 'text');
      t.setAttribute('class', 'heading');
      t.setAttribute('x', String(x));
      t.setAttribute('y', '14');
      t.setAttribute('text-anchor', anchor);
      t.textContent = text;
      svg.append(t);
    };
    heading('query', left - 8, 'end');
    heading('key', right + 8, 'start');
    const y = (i) => top + 17 + i * rowH;
    const drawn = all
      ? heads.map((h, n) => [h, headColour(n, heads.length), n]).filter(([, , n]) => !this.#hidden.has(n))
      : [[w, null, null]];
    for (const [weights, colour, head] of drawn) {
      // With every head drawn, each head's lines sit a little apart (head 0 highest), centred
      // on the token, so the heads joining the same two tokens all show; the bundle stays
      // within HEAD_BAND px, the height of the token's name (a reader saw the ends of a 4-head
      // bundle spread ±9 px, nearly half-way to the next token, and misread the key).
      const spread = Math.min(HEAD_SPREAD, HEAD_BAND / Math.max(1, heads.length - 1));
      const dy = head === null ? 0 : (head - (heads.length - 1) / 2) * spread;
      for (let i = 0; i < lq; i++) {
        for (let j = 0; j < lk; j++) {
          const line = document.createElementNS(SVG, 'line');
          line.setAttribute('x1', String(left));
          line.setAttribute('y1', String(y(i) - 4 + dy));
          line.setAttribute('x2', String(right));
          line.setAttribute('y2', String(y(j) - 4 + dy));
          line.setAttribute('stroke-width', String(lineWidth(weights[i][j])));
          line.style.opacity = String(lineOpacity(weights[i][j]));
          if (colour) {
            line.style.stroke = colour;
            line.dataset.head = String(head);
          }
          line.dataset.query = String(i);
          line.dataset.key = String(j);
          line.dataset.weight = String(weights[i][j]);
          svg.append(line);
        }
      }
    }
    // The weights of one token in words under the drawing (never over the lines), always on
    // screen: the selected token's (the last query until a token is clicked or tapped), or
    // the one under the pointer or the focus. With every head drawn, a line per head shown,
    // in its colour.
    const readout = document.createElement('div');
    readout.className = 'readout';
    readout.setAttribute('aria-live', 'polite');
    const shownHeads = all ? drawn.map(([h, colour, n]) => [h, colour, `head ${n}`]) : [[w, null, what]];
    const describe = (side, index) => weightLines(shownHeads, side, index, tokens);
    const tokenMarks = [];
    // Every head at once: only one token's lines are drawn (every head's, a colour each; the
    // selected token's, or the one under the pointer or the focus): all queries' lines of all
    // heads together were a bundle no one could follow.
    // One map drawn: the other tokens' lines thin and grey, the token's own lines in colour with
    // their weights written at their far end, and a dot where they meet.
    const labels = document.createElementNS(SVG, 'g');
    const anchor = document.createElementNS(SVG, 'circle');
    anchor.setAttribute('class', 'anchor');
    anchor.setAttribute('r', '4');
    anchor.setAttribute('aria-hidden', 'true');
    const only = (side, index) => {
      anchor.setAttribute('cx', String(side === 'query' ? left : right));
      anchor.setAttribute('cy', String(y(index) - 4));
      if (all) {
        for (const line of svg.querySelectorAll('line'))
          line.classList.toggle('off', Number(line.dataset[side]) !== index);
        return;
      }
      for (const line of svg.querySelectorAll('line'))
        line.classList.toggle('other', Number(line.dataset[side]) !== index);
      labels.replaceChildren(...lineWeights(w, side, index, { left, right, y }));
    };
    const select = (side, index) => {
      if (!this.#selected || this.#selected.side !== side || this.#selected.index !== index)
        this.#selected = { side, index };
      for (const g of tokenMarks)
        g.classList.toggle('active', g.dataset.side === side && Number(g.dataset.index) === index);
      only(side, index);
      readout.replaceChildren(...describe(side, index));
    };
    const selected = () => {
      const s = this.#selected;
      const count = s?.side === 'key' ? lk : lq;
      return s && s.index < count ? s : { side: 'query', index: lq - 1 };
    };
    const token = (text, x, yy, anchor, side, index) => {
      const g = document.createElementNS(SVG, 'g');
      g.setAttribute('class', 'token');
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.setAttribute('aria-label', `${side} ${text}`);
      g.dataset.side = side;
      g.dataset.index = String(index);
      tokenMarks.push(g);
      const t = document.createElementNS(SVG, 'text');
      t.setAttribute('x', String(x));
      t.setAttribute('y', String(yy));
      t.setAttribute('text-anchor', anchor);
      t.textContent = text;
      g.append(t);
      const show = () => {
        only(side, index);
        readout.replaceChildren(...describe(side, index));
        if (side === 'query') {
          const best = w[index].indexOf(Math.max(...w[index]));
          this.#announce(index, best, w[index][best]);
        }
      };
      g.addEventListener('mouseenter', show);
      g.addEventListener('focus', () => {
        select(side, index);
        show();
      });
      // A click or a tap selects the token: its weights stay written once the pointer leaves.
      g.addEventListener('click', () => {
        select(side, index);
        show();
      });
      g.addEventListener('mouseleave', () => {
        for (const line of svg.querySelectorAll('line')) line.classList.remove('dim');
        const s = selected();
        only(s.side, s.index);
        readout.replaceChildren(...describe(s.side, s.index));
      });
      svg.append(g);
    };
    svg.append(anchor, labels);
    tokens.q.slice(0, lq).forEach((text, i) => token(text, left - 8, y(i), 'end', 'query', i));
    tokens.k.slice(0, lk).forEach((text, j) => token(text, right + 8, y(j), 'start', 'key', j));
    const first = selected();
    select(first.side, first.index);
    const figure = document.createElement('div');
    const printed = all ? drawn.map(([h, , n]) => [`head ${n}`, h, `head-${n + 1}`]) : [[what, w, 'shown']];
    const masked = this.#masked;
    figure.append(
      linesKey(all ? heads.length : 0),
      ...(all ? [this.#headChips(heads.length)] : []),
      svg,
      readout,
      printedWeights(printed, tokens, masked),
      captionLine(
        `Each query token on the left sends a line to every key token on the right; the thicker and more opaque (solid) the line, the more weight, the thinner and fainter, the less (a query's weights sum to 1)${all ? `; one colour per head, each head's lines drawn a little apart so that all show (head 0 highest at each token), and only the selected token's lines (its weights are written under the drawing)` : `; the selected token (underlined, a dot where its lines meet) has its lines in colour with their weights at their ends, the other tokens' lines are thin and grey`}.${w.some((row) => row.some((x) => x === 0)) ? ' A key of weight 0 (masked: a decoder sees no later token) gets no visible line.' : ''} ${tokens.note} Heads and positions count from 0; the weights under the drawing are the selected token's, the largest in bold.`.replace(
          '  ',
          ' ',
        ),
        ' Click, tap or focus another token to select it.', // (screen only)
      ),
      ...this.#exampleLine(heads, 'queries on the left, keys on the right'),
    );
    return figure;
  }
}

// tokens, queryTokens, keyTokens: the axes' names (the attributes' lists, or null); set an array
// of strings (each one name, a comma and all), the attribute's text, or null (steps-inputs.js).
defineListProperties(AttentionHeatmap, { tokens: 'tokens', queryTokens: 'query-tokens', keyTokens: 'key-tokens' });

// The weights of one token's lines as text at each line's far end (a key's row for a query,
// a query's row for a key), above the line, none for a weight of 0 (no line drawn).
// w: [Lq][Lk]; at: the drawing's { left, right, y(row) }.
function lineWeights(w, side, index, at) {
  const values = side === 'query' ? w[index] : w.map((row) => row[index]);
  return values.flatMap((x, n) => {
    if (!(x > 0)) return [];
    const t = document.createElementNS(SVG, 'text');
    t.setAttribute('class', 'weight');
    t.setAttribute('x', String(side === 'query' ? at.right - 6 : at.left + 6));
    t.setAttribute('y', String(at.y(n) - 8));
    t.setAttribute('text-anchor', side === 'query' ? 'end' : 'start');
    t.setAttribute('aria-hidden', 'true'); // the readout says them
    t.dataset[side === 'query' ? 'key' : 'query'] = String(n);
    t.textContent = formatNumber(x, 2);
    return [t];
  });
}

// The readout's lines: per map shown ([[Lq][Lk] weights, colour or null, name]), the weights of
// one query (the keys it attends to) or of one key (the queries that attend to it), in token
// order, the largest in bold: 'from “sat” (query 3), head 1: The 0.410 · cat 0.320 · …'.
function weightLines(maps, side, index, tokens) {
  const own = (side === 'query' ? tokens.q : tokens.k)[index];
  const names = side === 'query' ? tokens.k : tokens.q;
  return maps.map(([w, colour, name]) => {
    const values = side === 'query' ? w[index] : w.map((row) => row[index]);
    const line = document.createElement('div');
    line.className = 'weights';
    if (colour) {
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colour;
      swatch.setAttribute('aria-hidden', 'true');
      line.append(swatch);
    }
    const where = side === 'query' ? `from query “${own}” (position ${index})` : `to key “${own}” (position ${index})`;
    line.append(`${where}, ${name}: `);
    const best = values.indexOf(Math.max(...values));
    values.forEach((x, n) => {
      if (n) line.append(' · ');
      const entry = document.createElement(n === best ? 'b' : 'span');
      entry.textContent = `${names[n] ?? n} ${formatNumber(x, 3)}`;
      line.append(entry);
    });
    return line;
  });
}

// On paper the lines' weights cannot be hovered: each map drawn, as a table of its numbers
// (print only). maps: [[label, [Lq][Lk] weights, name]]; tokens: { q, k } as the axes name them.
function printedWeights(maps, tokens, masked) {
  const wrap = document.createElement('div');
  wrap.className = 'print-only';
  for (const [label, w, name] of maps) {
    const m = new AttentionMatrix();
    m.dataset.name = `printed-${name}`;
    m.setAttribute('label', `${label}: the lines' weights`);
    m.setAttribute('heat', 'sequential');
    m.setAttribute('precision', '2');
    m.setAttribute('row-title', 'query');
    m.setAttribute('col-title', 'key');
    m.rowLabels = tokens.q.slice(0, w.length);
    m.colLabels = tokens.k.slice(0, w[0].length);
    m.value = w;
    m.masked = masked;
    wrap.append(m);
  }
  return wrap;
}

// The lines view's key: what a line's width and opacity mean, drawn in the lines' own colour (a
// mid grey for `all`, whose lines take their head's colour: "grey: any head"; the head chips
// under it give each head's colour; longer words wrapped the key on a compact slide).
function linesKey(heads) {
  const key = document.createElement('div');
  key.className = 'key';
  key.setAttribute('part', 'legend');
  const sample = document.createElement('span');
  sample.className = heads ? 'samples neutral' : 'samples';
  sample.setAttribute('aria-hidden', 'true');
  // In a bordered box: on a dark page the faintest sample alone was invisible.
  for (const weight of [0.1, 0.4, 0.7, 1]) {
    const bar = document.createElement('span');
    bar.style.opacity = String(lineOpacity(weight));
    bar.style.height = `${lineWidth(weight)}px`;
    sample.append(bar);
  }
  // The scale's ends stay on the line with its samples however narrow the page.
  const scale = document.createElement('span');
  scale.className = 'scale';
  scale.append('0 (thin, faint)', sample, '1 (thick, solid)');
  key.append('line width and opacity = weight: ', scale);
  if (heads) key.append(` · grey: any head`);
  else key.append(" · thin grey: the other tokens' lines");
  return key;
}
