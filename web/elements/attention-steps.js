// <attention-steps>: the whole pipeline of one attention head, each stage a matrix with its
// formula and shape, computed live by the library:
//   X (or C and X) → Q, K, V → Q·Kᵀ → ÷√d → + M → softmax → ·V → ·W_O
//
//   <attention-steps example="2"></attention-steps>                 the course's example 2
//   <attention-steps x="[[1,0],[0,1],[1,1]]" wq="…" wk="…" wv="…" wo="…" mask="causal"></attention-steps>
//   <attention-steps><script type="application/json">{ "x": …, "wq": … }</script></attention-steps>
//   element.data = { x, c?, wq, wk, wv, wo?, mask? }; element.tokens = ['I', 'am']  (row names)
//
// X, C and the weights are editable (a cell, then Enter); every stage downstream recomputes
// at once through the public API. The mask M is edited by clicking cells (0 ↔ −∞) or with
// the presets (none, causal top-left / bottom-right, causal sliding window, padding: the first N keys); a row that sees no key
// shows zeros and says why. `show-slides` shows the slides' rounded values of an example.
// `layout="compact"` sets the stages side by side in smaller type (a slide); `stages="…"`
// shows only the named ones, in that order (inputs, weights, projections, scores, scaled,
// mask, softmax, output, projection-out). `json="id"` reads the inputs from a
// <script type="application/json" id="id"> elsewhere on the page.
// Events: `compute` (detail: every stage as tensors) after each recomputation. `for="id …"`:
// hovering a score, mask or weight cell highlights the pair in those elements too.
import { getApi, initCode } from './api.js';
import { AttentionMatrix } from './attention-matrix.js';
import { exampleCaption, attendsLater } from './course-examples.js';
import {
  MASK_PRESETS,
  SCORE_STAGES,
  exampleData,
  listOf,
  defineListProperties,
  presetMask,
  rowsOf,
  sameShapes,
  scoreScale,
  slideGap,
} from './steps-inputs.js';
import { tensorJson, jsLiteral, noInputCode } from './export.js';
import { AttentionElement, captionLine } from './base.js';
import { parseAttributeJson } from './limits.js';
import { positionedLabels } from './model-views.js';

const TAG = 'attention-steps';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.stages { display: flex; flex-direction: column; gap: 0.9rem; }
section { border-left: 3px solid var(--_accent); padding: 0 0.3rem 0 0.7rem; min-width: 0; }
.stage-title { margin: 0 0 0.15rem; font-size: 0.95em; font-weight: 700; }
code { font-size: 0.85em; }
.row { display: flex; flex-wrap: wrap; gap: 0.8rem; align-items: flex-start; margin-top: 0.3rem; max-width: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; font-size: 0.85em; margin-top: 0.3rem; }
button, select, input { font: inherit; }
.note { font-size: 0.85em; margin: 0.3rem 0 0; }
.slides { font-size: 0.75em; opacity: 0.85; font-family: ui-monospace, monospace; max-width: 100%; overflow-x: auto; }
.error { color: var(--_error); }
/* layout="compact": the stages side by side, wrapping, in smaller type (a 960 × 700 slide) */
:host([layout="compact"]) { font-size: 0.78rem; --attn-font: var(--attn-compact-font, 0.68rem/1.15 ui-monospace, SFMono-Regular, Menlo, monospace);
  --attn-cell-padding: 0.05rem 0.25rem; --attn-cell-width: 3.5ch; }
:host([layout="compact"]) attention-matrix::part(legend) { display: none; }
:host([layout="compact"]) attention-matrix::part(axis) { display: none; }
:host([layout="compact"]) .stage-title { display: inline; margin-right: 0.4rem; }
:host([layout="compact"]) .stages { flex-direction: row; flex-wrap: wrap; gap: 0.5rem 0.9rem; }
:host([layout="compact"]) section { padding-left: 0.4rem; border-left-width: 2px; }
:host([layout="compact"]) .controls, :host([layout="compact"]) .note { font-size: 0.8em; }
/* a slide has no room for the hints (the presets are there; the stages sit side by side) */
:host([layout="compact"]) .mask-hint, :host([layout="compact"]) .edit-hint, :host([layout="compact"]) [data-role="mask-note"], :host([layout="compact"]) .bars { display: none; }
`;

// The stages by name, for the `stages` attribute (which ones to show, in this order).
export const STAGE_NAMES = [
  'inputs',
  'weights',
  'projections',
  'scores',
  'scaled',
  'mask',
  'softmax',
  'output',
  'projection-out',
];

const ROWS = (t) => t.shape[0];
// Where the examples' printed numbers come from, in a reader's words (course-examples.js).
const SOURCE = 'As printed in the worked example this reproduces (the “Transformer Insight” course slides)';

// Token names as the axes show them: a repeated one with its position ("the·5").
const shown = (names) => names && positionedLabels(names);

export { exampleData, scoreScale };

export class AttentionSteps extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #data = null;
  #error = null;
  #stages = null;
  #generation = 0;
  #edited = false; // the reader changed an input: the slides' numbers no longer apply
  #preset = null; // the mask preset last chosen: { name, keys?, left? } (null: the input's own mask)

  connectedCallback() {
    super.connectedCallback();
    if (!this.#data) this.#readAttributes();
    this.#update();
  }

  attributeChangedCallback(name) {
    if (!this.isConnected) return;
    if (name === 'stages') {
      // which stages show: no recomputation, edits kept
      this.#showStages();
      return;
    }
    if (name === 'tokens' || name === 'query-tokens') {
      // names only: no recomputation, the inputs (set as a property or edited) kept; before
      // the first computation ends, its drawing reads them
      if (this.#stages && this.#data) {
        this.#render();
        this.checkAttributes();
      }
      return;
    }
    this.#readAttributes();
    this.#update();
  }

  /** The inputs: { x, c?, wq, wk, wv, wo?, mask? } as nested arrays (copies). */
  get data() {
    return this.#data && structuredClone(this.#data);
  }

  set data(value) {
    try {
      this.#data = this.#normalise(value ?? {});
      this.#preset = null;
      this.#error = null;
      if (this.isConnected) this.#update();
    } catch (error) {
      this.#data = null;
      this.#showError(error);
    }
  }

  /** Why the last input could not be shown, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  /**
   * Highlights the query/key pair in every [Lq, Lk] stage (scores, mask, weights), or clears
   * with null: what a linked <attention-heatmap> calls on hover.
   */
  highlightPair(query, key) {
    for (const name of ['scores', 'scaled', 'M', 'masked', 'weights']) {
      this.shadowRoot
        .querySelector(`attention-matrix[data-name="${name}"]`)
        ?.highlight(query == null ? null : [query, key]);
    }
  }

  /** Every input and every stage shown, as JSON (−∞ as the string "-Infinity"). */
  toJSON() {
    const d = this.#data;
    if (!d) return { element: TAG, error: String(this.#error?.message ?? 'no input') };
    const inputs = Object.fromEntries(
      ['x', 'c', 'wq', 'wk', 'wv', 'wo', 'mask']
        .filter((k) => d[k])
        .map((k) => [k, d[k].map((r) => r.map((x) => (Number.isFinite(x) ? x : String(x))))]),
    );
    const stages =
      this.#stages &&
      Object.fromEntries(
        Object.entries(this.#stages)
          .filter(([, t]) => t)
          .map(([k, t]) => [k, tensorJson(t)]),
      );
    return { element: 'attention-steps', inputs, stages };
  }

  /** JavaScript that computes every stage shown here with the public API. */
  toCode() {
    const d = this.#data;
    if (!d) return noInputCode(TAG, this.#error);
    const lines = ["import { init } from 'attention-wasm';", '', initCode()];
    if (d.c) lines.push(`const C = ${jsLiteral(d.c)};  // queries`);
    lines.push(
      `const X = ${jsLiteral(d.x)};`,
      `const W_Q = ${jsLiteral(d.wq)};`,
      `const W_K = ${jsLiteral(d.wk)};`,
      `const W_V = ${jsLiteral(d.wv)};`,
    );
    if (d.wo) lines.push(`const W_O = ${jsLiteral(d.wo)};`);
    lines.push(
      `const M = ${jsLiteral(d.mask)};  // added to the scaled scores: -Infinity blocks`,
      `const Q = attn.matmul(${d.c ? 'C' : 'X'}, W_Q), K = attn.matmul(X, W_K), V = attn.matmul(X, W_V);`,
      'const { trace } = attn.attention(Q, K, V, { mask: M, trace: true });  // scores, scaledScores, maskedScores, weights, output',
    );
    if (d.wo)
      lines.push(
        'const Y = attn.matmul(trace.output, W_O);',
        'console.log(attn.toNested(trace.weights), attn.toNested(Y));',
      );
    else lines.push('console.log(attn.toNested(trace.weights), attn.toNested(trace.output));');
    return `${lines.join('\n')}\n`;
  }

  /** Every stage of the last computation, as tensors (null before the first). */
  get stages() {
    return this.#stages;
  }

  #readAttributes() {
    try {
      // A bad example number leaves nothing to show: its message is the element's content.
      const attributes = this.attributeReader();
      const example = attributes.get('example');
      if (attributes.error) throw attributes.error;
      // Inline JSON: a child <script type="application/json">, or one elsewhere on the page
      // named by json="id" (Markdown ends an HTML block at a blank line, and sanitizers
      // drop scripts inside elements: see the README's Markdown notes).
      const ref = this.getAttribute('json');
      const json = ref
        ? (this.getRootNode().getElementById?.(ref.replace(/^#/, '')) ?? document.getElementById(ref.replace(/^#/, '')))
        : this.querySelector('script[type="application/json"]');
      if (ref && !json) throw new RangeError(`${TAG}: json="${ref}" names no element on the page`);
      let data;
      if (example !== null) data = exampleData(example, TAG);
      else if (json) data = parseAttributeJson(TAG, 'the inline JSON', json.textContent);
      else data = {};
      for (const key of ['x', 'c', 'wq', 'wk', 'wv', 'wo', 'mask']) {
        const attr = this.getAttribute(key);
        if (attr == null) continue;
        data[key] =
          key === 'mask' && /^[a-z-]+$/.test(attr)
            ? attr
            : parseAttributeJson(TAG, key, attr, (k, v) => (v === '-Infinity' ? -Infinity : v));
      }
      this.#data = data.x ? this.#normalise(data) : null;
      this.#edited = false;
      this.#preset = null;
      this.#error = null;
    } catch (error) {
      this.#data = null;
      this.#showError(error);
    }
  }

  // Checks the shapes here, so a reader's mistake is a message, not a broken page.
  #normalise(value) {
    const d = { ...value };
    for (const key of ['x', 'c', 'wq', 'wk', 'wv', 'wo']) d[key] = rowsOf(d[key], key);
    if (!d.x) throw new TypeError(`${TAG}: x is required (or example="1" … "4")`);
    if (d.c && d.c[0].length !== d.x[0].length)
      throw new RangeError(`${TAG}: c has ${d.c[0].length} columns but x has ${d.x[0].length}`);
    for (const name of ['wq', 'wk', 'wv'])
      if (d[name] && d[name].length !== d.x[0].length)
        throw new RangeError(`${TAG}: ${name} has ${d[name].length} rows but x has ${d.x[0].length} columns`);
    if (d.wq && d.wk && d.wq[0].length !== d.wk[0].length)
      throw new RangeError(`${TAG}: wq has ${d.wq[0].length} columns but wk has ${d.wk[0].length} (d_k must match)`);
    if (d.wo && d.wv && d.wo.length !== d.wv[0].length)
      throw new RangeError(`${TAG}: wo has ${d.wo.length} rows but wv has ${d.wv[0].length} columns`);
    const dModel = d.x[0].length;
    const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
    d.wq ??= identity(dModel);
    d.wk ??= identity(dModel);
    d.wv ??= identity(dModel);
    const lq = (d.c ?? d.x).length,
      lk = d.x.length;
    if (typeof d.mask === 'string' && !MASK_PRESETS.includes(d.mask))
      throw new RangeError(
        `${TAG}: mask must be JSON rows or one of ${MASK_PRESETS.join(', ')}, got "${d.mask.slice(0, 40)}"`,
      );
    if (typeof d.mask === 'string') d.mask = presetMask(d.mask, lq, lk);
    else d.mask = rowsOf(d.mask, 'mask') ?? presetMask('none', lq, lk);
    if (d.mask.length !== lq || d.mask[0].length !== lk)
      throw new RangeError(`attention-steps: mask must be [${lq}, ${lk}], got [${d.mask.length}, ${d.mask[0].length}]`);
    return d;
  }

  #showError(error) {
    this.#error = error;
    this.#stages = null;
    this.showError(error);
  }

  async #update() {
    const generation = ++this.#generation;
    if (!this.#data) return;
    // A bad attribute's message at once, over what is shown; the drawing below renews it.
    this.showAttributeError(this.attributeReader().checkAll().error);
    let attn;
    try {
      attn = await getApi();
    } catch (error) {
      this.#showError(error);
      return;
    }
    if (generation !== this.#generation) return;
    try {
      const before = this.#stages;
      this.#stages = this.#compute(attn);
      // An edit keeps every shape: update the matrices in place (about 4× faster than
      // building the stages again, and the focused cell keeps its focus).
      if (before && this.shadowRoot.querySelector('.stages') && sameShapes(before, this.#stages)) this.#refresh();
      else this.#render();
      this.showAttributeError(this.attributeReader().checkAll().error);
      this.dispatchEvent(new CustomEvent('compute', { detail: this.#stages }));
    } catch (error) {
      this.#showError(error);
    }
  }

  // Every stage through the public API: three projections, attention with its trace, W_O.
  #compute(attn) {
    const d = this.#data;
    const queriesFrom = d.c ?? d.x;
    const Q = attn.matmul(queriesFrom, d.wq);
    const K = attn.matmul(d.x, d.wk);
    const V = attn.matmul(d.x, d.wv);
    const M = attn.tensor(d.mask.flat(), [d.mask.length, d.mask[0].length]);
    const { trace } = attn.attention(Q, K, V, { mask: M, trace: true });
    const Y = d.wo ? attn.matmul(trace.output, d.wo) : null;
    return {
      Q,
      K,
      V,
      M,
      scores: trace.scores,
      scaled: trace.scaledScores,
      masked: trace.maskedScores,
      weights: trace.weights,
      A: trace.output,
      Y,
    };
  }

  // The pairs M blocks (−∞), for matrix `name` ('masked' or 'weights'): drawn hatched, so
  // that a blocked weight's 0 does not read as a small weight, nor a −∞ score as a low one.
  #maskedCells(name) {
    const blocked = this.#data.mask.flat().map((x) => (x === -Infinity ? 1 : 0));
    return { cells: blocked, label: name === 'weights' ? 'masked (M = −∞): weight 0' : 'masked: M = −∞' };
  }

  #matrix(
    name,
    label,
    value,
    { editable = false, heat = null, toggle = false, key = null, slides = null, rows = null, cols = null } = {},
  ) {
    const m = new AttentionMatrix();
    m.dataset.name = name;
    m.setAttribute('label', label);
    // Axis titles and names: [title, labels or null (numbered)] for the rows and the columns.
    if (rows) {
      m.setAttribute('row-title', rows[0]);
      if (rows[1]) m.rowLabels = rows[1];
    }
    if (cols) {
      m.setAttribute('col-title', cols[0]);
      if (cols[1]) m.colLabels = cols[1];
    }
    m.setAttribute('precision', String(this.attributeReader().get('precision')));
    if (heat) m.setAttribute('heat', heat);
    if (SCORE_STAGES.includes(name)) m.scale = scoreScale(this.#stages);
    if (editable) m.setAttribute('editable', '');
    if (toggle) m.setAttribute('toggle', '');
    m.value = value;
    if (name === 'masked' || name === 'weights') m.masked = this.#maskedCells(name);
    if (key) m.addEventListener('change', (e) => this.#onEdit(key, e.detail));
    if (['scores', 'scaled', 'M', 'masked', 'weights'].includes(name)) {
      m.addEventListener('cellfocus', (e) => this.#announce(e.detail.row, e.detail.col));
    }
    if (!slides) return m;
    const wrap = document.createElement('div');
    const note = document.createElement('div');
    note.className = 'slides';
    note.dataset.slides = JSON.stringify(slides).replaceAll(',', ', ');
    note.dataset.gap = String(slideGap(slides, value));
    this.#slideNote(note);
    wrap.append(m, note);
    return wrap;
  }

  // What the slides print under a matrix, while the inputs are the example's, and how far
  // their numbers lie from the exact ones (the slides round each step before the next); after
  // an edit, that they printed the unedited example (their numbers would sit under new values).
  #slideNote(note) {
    const gap = Number(note.dataset.gap);
    note.textContent = this.#edited
      ? `${SOURCE}: not comparable any more (they work the unedited example; your edit changed these values)`
      : `${SOURCE}: ${note.dataset.slides}. The slides round each step before the next, ` +
        `so the last digit can differ: the largest gap between a printed number and the exact one in the matrix above is ${gap.toFixed(4)}.`;
  }

  // Hover/focus on an [Lq, Lk] stage: the same pair in the other stages and in the elements
  // named in `for`.
  #announce(query, key) {
    this.highlightPair(query, key);
    for (const id of (this.getAttribute('for') ?? this.getAttribute('link') ?? '').split(/\s+/).filter(Boolean)) {
      (this.getRootNode().getElementById?.(id) ?? document.getElementById(id))?.highlightPair?.(query, key);
    }
  }

  #refresh() {
    const d = this.#data,
      s = this.#stages;
    const values = {
      C: d.c,
      X: d.x,
      W_Q: d.wq,
      W_K: d.wk,
      W_V: d.wv,
      W_O: d.wo,
      Q: s.Q,
      K: s.K,
      V: s.V,
      scores: s.scores,
      scaled: s.scaled,
      M: s.M,
      masked: s.masked,
      weights: s.weights,
      A: s.A,
      Y: s.Y,
    };
    const precision = String(this.attributeReader().get('precision'));
    this.shadowRoot.querySelector('[data-role="intro"]').replaceChildren(...this.#introWords());
    for (const note of this.shadowRoot.querySelectorAll('.slides')) this.#slideNote(note);
    for (const m of this.shadowRoot.querySelectorAll('attention-matrix')) {
      const value = values[m.dataset.name];
      if (SCORE_STAGES.includes(m.dataset.name)) m.scale = scoreScale(s);
      if (value) m.value = value;
      if (m.dataset.name === 'masked' || m.dataset.name === 'weights') m.masked = this.#maskedCells(m.dataset.name);
      m.setAttribute('precision', precision); // a changed precision="…" with the same shapes
    }
    this.shadowRoot.querySelector('[data-role="mask-note"]')?.replaceWith(this.#maskNote());
    const controls = this.shadowRoot.querySelector('section[data-stage=mask] .controls');
    if (controls) this.#showPreset(controls);
    const old = this.shadowRoot.querySelector('[data-role="no-key"]');
    const note = this.#blindNote();
    if (old && note) old.replaceWith(note);
    else if (old) old.remove();
    else if (note)
      this.shadowRoot.querySelector('attention-matrix[data-name="weights"]').closest('section').append(note);
  }

  // The line above the stages: the worked example shown (which one, the axes, and whether a
  // query may attend to a later key under the mask shown), then what the bars mean (a span,
  // not on a compact slide): [text, span].
  #introWords() {
    const d = this.#data;
    const example = Number.isInteger(d.example)
      ? `${exampleCaption(d.example, !d.c && attendsLater(d.mask, (m) => m !== -Infinity))} `
      : '';
    const bars = document.createElement('span');
    bars.className = 'bars';
    bars.textContent =
      'Each bar on the left marks one stage of the computation (its title, formula and matrices), in reading order as computed.';
    return [example, bars];
  }

  // The line beside M: what the mask shown does, and when the preset chosen changes nothing
  // (padding that keeps every key), or nothing beyond causal (a window covering every earlier key),
  // that it is so.
  #maskNote() {
    const mask = this.#data.mask;
    const lq = mask.length,
      lk = mask[0].length;
    const blocked = mask.flat().filter((m) => m === -Infinity).length;
    const preset = this.#preset;
    let words;
    if (blocked === 0) {
      const why =
        preset?.name === 'key-length' ? `padding keeps all ${lk} keys, none is padding: it blocks nothing` : null;
      words = why
        ? `M = 0 everywhere: every query may attend to every key (${why}).`
        : 'mask: none (M = 0 everywhere): every query may attend to every key.';
    } else {
      words = `M is −∞ at ${blocked} of ${lq * lk} query–key pairs: their weights become 0.`;
      if (preset?.name === 'causal-window' && preset.left >= lk - 1)
        words += ` The window (${preset.left} key${preset.left === 1 ? '' : 's'} before each query) covers every earlier key of these ${lk} tokens: M is the plain causal mask.`;
      if (preset?.name === 'key-length')
        words += ` Padding keeps the first ${preset.keys} of ${lk} keys; the rest are padding.`;
    }
    const note = document.createElement('p');
    note.className = 'note';
    note.dataset.role = 'mask-note';
    note.textContent = words;
    return note;
  }

  // The note under the weights when a row sees no key (null when every row sees one).
  #blindNote() {
    const blind = [];
    this.#data.mask.forEach((row, i) => {
      if (row.every((m) => m === -Infinity)) blind.push(i);
    });
    if (!blind.length) return null;
    const note = document.createElement('p');
    note.className = 'note';
    note.dataset.role = 'no-key';
    note.textContent = `Row${blind.length > 1 ? 's' : ''} ${blind.join(', ')} ${blind.length > 1 ? 'see' : 'sees'} no key: its weights and output are zeros (PyTorch's and FlashAttention's convention), not NaN.`;
    return note;
  }

  #onEdit(key, { row, col, value }) {
    this.#data[key][row][col] = value;
    if (key === 'mask') this.#preset = null;
    this.#edited = true;
    this.#update();
  }

  #stage(name, title, formula, ...children) {
    const section = document.createElement('section');
    section.dataset.stage = name;
    // A titled group, not a heading: the page's outline is the page's (an element cannot know
    // at which level it stands).
    section.setAttribute('role', 'group');
    section.setAttribute('aria-label', title);
    const h = document.createElement('div');
    h.className = 'stage-title';
    h.textContent = title;
    const f = document.createElement('code');
    f.textContent = formula;
    const row = document.createElement('div');
    row.className = 'row';
    row.append(...children.filter(Boolean));
    section.append(h, f, row);
    return section;
  }

  // The `stages` attribute: only the named stages, in the order named (all when absent or
  // when it names none that exist).
  #showStages(stages = this.shadowRoot.querySelector('.stages')) {
    if (!stages) return;
    const wanted = (this.getAttribute('stages') ?? '')
      .split(',')
      .map((x) => x.trim().toLowerCase())
      .filter((x) => STAGE_NAMES.includes(x));
    const sections = [...stages.children];
    for (const section of sections) section.hidden = wanted.length > 0 && !wanted.includes(section.dataset.stage);
    if (wanted.length)
      for (const name of wanted) {
        const section = sections.find((x) => x.dataset.stage === name);
        if (section) stages.append(section);
      }
  }

  // The mask controls say which preset M holds: the select shows it ("none" for an all-zero M
  // that no preset made), and only that preset's number is shown: a number beside another M
  // read as applied (round 5: "keys kept 2" beside an all-zero M; round 6: "(not applied to M)"
  // left its state unclear). Its inputs keep their values and focus.
  #showPreset(controls) {
    const zero = this.#data.mask.flat().every((m) => m === 0);
    const preset = this.#preset?.name ?? (zero ? 'none' : '');
    controls.querySelector('select').value = preset;
    for (const label of controls.querySelectorAll('label[data-preset]')) label.hidden = label.dataset.preset !== preset;
  }

  #maskControls() {
    const d = this.#data;
    const lq = d.mask.length,
      lk = d.mask[0].length;
    const controls = document.createElement('div');
    controls.className = 'controls print-hide'; // on paper the line beside M says what M does
    const label = document.createElement('label');
    label.textContent = 'Mask preset ';
    const select = document.createElement('select');
    for (const [value, text] of [
      ['', 'choose…'],
      ['none', 'none (all keys)'],
      ['causal-top-left', 'causal, top-left'],
      ['causal-bottom-right', 'causal, bottom-right'],
      ['causal-window', 'causal, sliding window…'],
      ['key-length', 'padding: first N keys only…'],
    ]) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = text;
      select.append(option);
    }
    label.append(select);
    const length = document.createElement('input');
    length.type = 'number';
    length.min = '0';
    length.max = String(lk);
    length.value = String(lk);
    length.setAttribute('aria-label', 'padding: keys kept (the first N; the rest are padding)');
    length.style.width = '4em';
    // Keys before each query a sliding window keeps (the 'causal-window' preset).
    const windowInput = document.createElement('input');
    windowInput.type = 'number';
    windowInput.min = '0';
    windowInput.max = String(Math.max(0, lk - 1));
    windowInput.value = '1';
    windowInput.setAttribute('aria-label', 'sliding window: keys before each query');
    windowInput.title = 'sliding window: keys before each query';
    windowInput.style.width = '4em';
    const windowSize = () => Math.max(0, Math.min(lk, Math.floor(Number(windowInput.value)) || 0));
    select.addEventListener('change', () => {
      if (!select.value) return;
      d.mask = presetMask(select.value, lq, lk, Number(length.value), windowSize());
      this.#preset = { name: select.value, keys: Number(length.value), left: windowSize() };
      this.#edited = true;
      this.#update();
    });
    // (A number is shown only beside its preset; hiding a focused one fires a late change.)
    windowInput.addEventListener('change', () => {
      if (windowInput.closest('label')?.hidden) return;
      select.value = 'causal-window';
      d.mask = presetMask('causal-window', lq, lk, lk, windowSize());
      this.#preset = { name: 'causal-window', left: windowSize() };
      this.#edited = true;
      this.#update();
    });
    length.addEventListener('change', () => {
      if (length.closest('label')?.hidden) return;
      const keys = Math.max(0, Math.min(lk, Number(length.value) || 0));
      d.mask = presetMask('key-length', lq, lk, keys);
      this.#preset = { name: 'key-length', keys };
      this.#edited = true;
      this.#update();
    });
    // Visible names for the two numbers (their aria-labels say the same at more length).
    const named = (text, input) => {
      const l = document.createElement('label');
      l.append(text, input);
      return l;
    };
    const keysKept = named('padding: keys kept ', length);
    const windowLabel = named('window: keys before each query ', windowInput);
    keysKept.dataset.preset = 'key-length';
    windowLabel.dataset.preset = 'causal-window';
    controls.append(label, keysKept, windowLabel);
    this.#showPreset(controls);
    return controls;
  }

  #render() {
    const d = this.#data;
    const s = this.#stages;
    const slides = this.attributeReader().get('show-slides') ? (d.slides ?? {}) : {};
    const dk = s.K.shape[1];
    const sqrt = Math.sqrt(dk);
    const cross = Boolean(d.c);
    // Row and column names: tokens (the `tokens` / `query-tokens` attributes, else numbered)
    // on the token axes, numbered features on the others.
    const keys = shown(listOf(this.getAttribute('tokens')));
    const queries = cross ? shown(listOf(this.getAttribute('query-tokens'))) : keys;
    const token = ['token', keys],
      query = ['query', queries],
      key = ['key', keys],
      feature = ['feature', null],
      out = ['output feature', null];
    const stages = document.createElement('div');
    stages.className = 'stages';
    stages.append(
      this.#stage(
        'inputs',
        'Inputs',
        cross
          ? `C: [${ROWS(s.Q)}, ${d.c[0].length}] queries; X: [${d.x.length}, ${d.x[0].length}] keys and values`
          : `X: [${d.x.length} tokens, d_model = ${d.x[0].length}]`,
        cross ? this.#matrix('C', 'C (queries)', d.c, { editable: true, key: 'c', rows: query, cols: feature }) : null,
        this.#matrix('X', cross ? 'X (keys, values)' : 'X (tokens as rows)', d.x, {
          editable: true,
          key: 'x',
          rows: token,
          cols: feature,
        }),
      ),
      this.#stage(
        'weights',
        'Weights',
        Number.isInteger(d.example)
          ? "the slides' made-up numbers, not learned (editable)"
          : 'learned in a model; here as given (editable)',
        this.#matrix('W_Q', 'W_Q', d.wq, { editable: true, key: 'wq', rows: feature, cols: out }),
        this.#matrix('W_K', 'W_K', d.wk, { editable: true, key: 'wk', rows: feature, cols: out }),
        this.#matrix('W_V', 'W_V', d.wv, { editable: true, key: 'wv', rows: feature, cols: out }),
        d.wo ? this.#matrix('W_O', 'W_O', d.wo, { editable: true, key: 'wo', rows: feature, cols: out }) : null,
      ),
      this.#stage(
        'projections',
        'Projections',
        `Q = ${cross ? 'C' : 'X'}·W_Q,  K = X·W_K,  V = X·W_V`,
        this.#matrix('Q', 'Q', s.Q, { slides: slides.Q, rows: query, cols: feature }),
        this.#matrix('K', 'K', s.K, { slides: slides.K, rows: key, cols: feature }),
        this.#matrix('V', 'V', s.V, { slides: slides.V, rows: key, cols: feature }),
      ),
      this.#stage(
        'scores',
        'Scores',
        `Q·Kᵀ: [${s.scores.shape.join(' × ')}]`,
        this.#matrix('scores', 'Q·Kᵀ', s.scores, { heat: 'diverging', rows: query, cols: key }),
      ),
      this.#stage(
        'scaled',
        'Scaled',
        `÷ √d_k = √${dk} = ${sqrt.toFixed(4)}`,
        this.#matrix('scaled', `Q·Kᵀ/√${dk}`, s.scaled, {
          heat: 'diverging',
          slides: slides.scaledScores,
          rows: query,
          cols: key,
        }),
      ),
      this.#stage(
        'mask',
        'Mask',
        '+ M (0: may attend, −∞: blocked)',
        this.#matrix('M', 'M', s.M, { toggle: true, key: 'mask', rows: query, cols: key }),
        this.#matrix('masked', 'masked scores', s.masked, { heat: 'diverging', rows: query, cols: key }),
      ),
    );
    // What can be changed, said where the first numbers are (on screen: paper edits nothing).
    const editHint = document.createElement('p');
    editHint.className = 'note edit-hint print-hide';
    editHint.textContent = `✎ marks what you can edit (${cross ? 'C, X' : 'X'} and the weights): click or tap a number, type a new one, then Enter; every stage below recomputes.`;
    stages.querySelector('[data-stage="inputs"]').append(editHint);
    const hint = document.createElement('p');
    hint.className = 'note mask-hint print-hide'; // nothing to click on paper
    hint.textContent = 'Click or tap a cell of M to switch it between 0 and −∞, or pick a preset:';
    stages.lastChild.append(this.#maskNote(), hint, this.#maskControls());
    const weights = this.#stage(
      'softmax',
      'Softmax',
      'softmax over each row (each row sums to 1)',
      this.#matrix('weights', 'weights', s.weights, {
        heat: 'sequential',
        slides: slides.weights,
        rows: query,
        cols: key,
      }),
    );
    const note = this.#blindNote();
    if (note) weights.append(note);
    stages.append(
      weights,
      this.#stage(
        'output',
        'Output',
        `A = weights·V: [${s.A.shape.join(' × ')}]`,
        this.#matrix('A', 'A', s.A, { slides: slides.A, rows: query, cols: feature }),
      ),
    );
    if (s.Y)
      stages.append(
        this.#stage(
          'projection-out',
          'Projection out',
          `Y = A·W_O: [${s.Y.shape.join(' × ')}]`,
          this.#matrix('Y', 'Y', s.Y, { slides: slides.Y, rows: query, cols: feature }),
        ),
      );
    this.#showStages(stages);
    // Keep the focused cell focused across the re-render.
    const active = this.shadowRoot.activeElement;
    const focus = active instanceof AttentionMatrix ? [active.dataset.name, active.shadowRoot.activeElement] : null;
    const intro = captionLine('');
    intro.replaceChildren(...this.#introWords());
    intro.dataset.role = 'intro';
    this.shadowRoot.replaceChildren(this.exportBar('attention-steps'), intro, stages);
    if (focus?.[1]?.dataset?.row != null) {
      const again = this.shadowRoot.querySelector(`attention-matrix[data-name="${focus[0]}"]`);
      again?.cellAt(Number(focus[1].dataset.row), Number(focus[1].dataset.col))?.focus();
    }
  }
}

// tokens (X's names: the keys, and the queries unless C is given) and queryTokens (C's): the
// attributes' lists, or null; set an array of strings (each one name), the text, or null.
defineListProperties(AttentionSteps, { tokens: 'tokens', queryTokens: 'query-tokens' });
