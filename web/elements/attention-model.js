// <attention-model>: a pretrained checkpoint (a Hugging Face folder: config.json,
// tokenizer.json, model.safetensors) run in the tab on the reader's own text, with bertviz's
// three views: the head view (lines from each token to the tokens it attends to, one layer,
// any head), the model view (every layer × head as a small map) and the neuron view (how one
// query's q·k builds each score). Decoders show the next token's probabilities, classifiers
// their labels', masked-LM models the predictions at each [MASK].
//
//   <attention-model src="https://huggingface.co/distilgpt2/resolve/main/" text="The cat sat on the mat"></attention-model>
//   el.model = await attn.loadModel(files);   // or a model loaded elsewhere, or Files / a Map of file names to bytes
//
// Attributes: src (a URL prefix of the folder), text, view ("head", "model" or "neuron"),
// layer and head (indices from 0, as in attentions[layer][head]), query (the neuron view's
// token, from 0), eager (download at
// once rather than when the element nears the viewport), layout="compact" (a 960 × 700 slide). Events: `modelload`
// (detail { model }), `forward` (detail { tokens, attentions }), `loadprogress` (detail
// { file, loaded, total, stage }).
import {
  idLabeller,
  marksLegend,
  neuronTable,
  positionedLabels,
  probabilityList,
  tokenLabel,
  topK,
  splitWordNote,
  softmax,
} from './model-views.js';
import { modelGrid, modelMask, maskWords } from './model-grid.js';
import { COLUMN_BANDS_STYLE } from './column-bands.js';
import { positionNote, COUNTING } from './token-positions.js';
import { jsString } from './export.js';
import { scrollRegion } from './base.js';
import { screenOrPaper } from './view-parts.js';
import { ModelElement } from './model-element.js';
import { errorMessage } from './theme.js';
import { LIMITS } from './limits.js';
import { tokensWithin } from './model-text.js';
import { sameOrigin } from './print.js';
import { SHIPPED_MODEL, SHIPPED_MODEL_WORDS, SHIPPED_NAME, isShippedModel } from './shipped-model.js';

const TAG = 'attention-model';
// The three views, named as bertviz names them (the buttons, and the caption's first words).
const VIEW_NAMES = { head: 'Head view', model: 'Model view', neuron: 'Neuron view' };
// Its head view is an <attention-heatmap>: index.js defines every tag, <attention-matrix>
// (which the heatmap's grids build) first; defining the heatmap here, while this module is
// evaluated, upgraded a grid heatmap already in the markup before <attention-matrix> existed.

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.row { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; margin: 0.3rem 0; font-size: 0.9em; }
input[type=text] { font: inherit; flex: 1 1 12rem; min-width: 0; padding: 0.2rem 0.4rem; }
button, select { font: inherit; }
button[aria-pressed=true] { font-weight: 700; }
progress { width: min(24rem, 100%); }
.status { font-size: 0.85em; opacity: 0.85; }
.hint { font-size: 0.9em; overflow-wrap: anywhere; }
.caption { font-size: 0.85em; margin: 0.3rem 0; max-width: 60rem; }
.main { display: flex; flex-wrap: wrap; gap: 1rem 2.5rem; align-items: flex-start; }
.main > * { min-width: 0; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4rem 0; }
caption { text-align: start; font-size: 0.9em; padding-bottom: 0.2rem; }
th, td { padding: 0.1rem 0.35rem; text-align: start; }
table.probabilities th { overflow-wrap: anywhere; max-width: 12rem; }
.scroll { overflow-x: auto; max-width: 100%; }
button.thumb { padding: 0; border: 2px solid transparent; background: none; line-height: 0; cursor: pointer; }
button.thumb[aria-current=true] { border-color: var(--_focus, #2563eb); }
button.thumb canvas { width: 48px; height: 48px; image-rendering: pixelated; outline: 1px solid var(--_cell-edge); outline-offset: 0; display: block; }
.bar { position: relative; display: inline-block; width: 7rem; height: 0.9em; background: color-mix(in srgb, currentColor 10%, transparent); vertical-align: middle; }
.bar .fill { position: absolute; inset: 0 auto 0 0; background: var(--_bar, #2563eb); opacity: 0.7; }
.barred { display: inline-flex; gap: 0.4rem; align-items: center; }
.value, td.number { font-variant-numeric: tabular-nums; min-width: 3.2em; display: inline-block; text-align: end; }
table.neuron td.dim { min-width: 2.6em; height: 1.3em; padding: 0.1rem 0.2rem; font-size: max(0.8em, 11px); text-align: end; font-variant-numeric: tabular-nums; border: 1px solid var(--_cell-edge); }
table.neuron td.note { font-size: 0.85em; opacity: 0.85; }
table.neuron td.sum { font-variant-numeric: tabular-nums; text-align: end; font-weight: 600; padding: 0.1rem 0.4rem; }
table.neuron th[tabindex]:focus { outline: 2px solid var(--_focus); }
.readout { font-size: 0.85rem; min-height: 1.3em; font-variant-numeric: tabular-nums; }
.print-only { display: none; }
table.strongest td { vertical-align: top; overflow-wrap: anywhere; }
@media print {
  .print-only { display: block; }
  progress, progress + .status { display: none; }
}
.legends { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; margin: 0.3rem 0; }
table.scores td { font-variant-numeric: tabular-nums; text-align: end; }
table.scores .bar { width: 4rem; }
table.neuron th.index, table.neuron th.total { font-size: max(0.75em, 11px); opacity: 0.8; text-align: end; padding: 0 0.2rem; }
figure.axes-map { margin: 0.5rem 0; font-size: 0.8rem; }
figure.axes-map .axes-grid { display: grid; grid-template-columns: auto auto; justify-content: start; gap: 0.15rem 0.3rem; margin-top: 0.2rem; }
figure.axes-map figcaption { font-size: 0.85rem; }
figure.axes-map canvas { image-rendering: pixelated; outline: 1px solid var(--_cell-edge); }
figure.axes-map .ticks { display: flex; justify-content: space-between; align-items: center; font-variant-numeric: tabular-nums; }
figure.axes-map .ticks.left { flex-direction: column; align-items: end; }
figure.axes-map .ticks.each { justify-content: stretch; }
figure.axes-map .ticks.each > span { flex: 1 1 0; display: flex; align-items: center; justify-content: center; min-width: 0; font-size: max(0.75rem, 11px); }
figure.axes-map .ticks.left.each > span { justify-content: end; white-space: nowrap; }
figure.axes-map .corner { align-self: end; justify-self: end; font-size: max(0.75rem, 11px); white-space: nowrap; }
/* layout="compact" (a 960 × 700 slide): the next-token table beside the view, not under it; the
   model view's grid beside its enlarged map; the head view's second caption left out (the
   element's own says what a line is); type a little smaller */
:host([layout="compact"]) { font-size: 0.9rem; display: grid; grid-template-columns: minmax(0, 1fr) auto; column-gap: 1rem; }
:host([layout="compact"]) > * { grid-column: 1 / -1; }
/* the PNG/JSON/Copy-code buttons at the end of the view buttons' row */
:host([layout="compact"]) .row:has(> button) { grid-row: 2; grid-column: 1; }
:host([layout="compact"]) .export { grid-row: 2; grid-column: 2; align-self: center; margin: 0; }
:host([layout="compact"]) .main { flex-wrap: nowrap; gap: 1rem 1.5rem; }
:host([layout="compact"]) .main > :first-child { flex: 1 1 0; }
:host([layout="compact"]) .main > table.probabilities { flex: none; }
:host([layout="compact"]) attention-heatmap::part(caption) { display: none; }
:host([layout="compact"]) .model-grid-view { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
:host([layout="compact"]) .model-grid-view > :is(.legends, .readout) { flex-basis: 100%; }
:host([layout="compact"]) figure.axes-map { max-width: 20rem; margin: 0; }
/* the neuron view: its table at full width (one band), in tighter rows; the next token is
   the head and model views' (beside them there is room for it) */
:host([layout="compact"][view="neuron"]) .main > table.probabilities { display: none; }
:host([layout="compact"]) table.neuron td.dim { height: auto; padding: 0 0.2rem; line-height: 1.3; }
:host([layout="compact"]) table.scores :is(td, th) { padding: 0 0.35rem; line-height: 1.3; }
:host([layout="compact"]) table { margin: 0.2rem 0; }
:host([layout="compact"]) table.neuron :is(th, td) { padding-block: 0; }
:host([layout="compact"]) :is(.row, .caption, .readout, .legends) { margin-block: 0.2rem; }
:host([layout="compact"]) .caption { font-size: 0.8em; }
${COLUMN_BANDS_STYLE}`;

// Layer names when layers differ (Gemma's sliding-window layers beside global ones; Mistral's
// window on every layer): 'window 4096' or 'global'. Null when every layer is alike and global.
function layerNames(d) {
  const windows = d.layerWindows ?? [];
  if (!windows.some((w) => w > 0)) return null;
  return Array.from(
    { length: d.numLayers },
    (_, l) => `layer ${l} · ${windows[l] > 0 ? `window ${windows[l]}` : 'global'}`,
  );
}

// Head names with grouped-query attention: each query head with the key/value head it shares.
function headNames(d) {
  if (d.numKvHeads >= d.numHeads) return null;
  const group = d.numHeads / d.numKvHeads;
  return Array.from({ length: d.numHeads }, (_, h) => `head ${h} · key/value head ${Math.floor(h / group)}`);
}

// A byte size in KiB below 1 MiB, else in MiB, one decimal: '141.6 KiB'.
function byteWords(bytes) {
  return bytes < 2 ** 20 ? `${(bytes / 2 ** 10).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

// The model's size in words, the count first (a byte unit after "parameters" read as a
// count), then what they take: '36,256 parameters (141.6 KiB as float32; the runner's weight
// buffers take 180.6 KiB)'. The buffers are not count × 4 bytes (a cold reader checked): the
// runner keeps some matrices in a second layout, and other storages take other sizes.
function parameterWords(m) {
  // (more than the parameters: the matrices are laid out for the SIMD kernels, and an input
  // embedding shared with the output layer is kept once per layout; a reader asked why)
  const buffers = `in memory ${byteWords(m.parameterBytes)}: the runner's weights laid out for its SIMD kernels`;
  if (m.parameterCount == null) return `weights: ${buffers}`;
  const count = `${m.parameterCount.toLocaleString('en-US')} parameters`;
  return m.matrixDtype === 'float32'
    ? `${count} (${byteWords(m.parameterCount * 4)} as float32; ${buffers})`
    : `${count} (${m.matrixDtype} matrices; ${buffers})`;
}

// What to try when a model did not load: the folder's URL, the model shipped for offline use,
// a Hub folder online.
function loadHint() {
  const p = document.createElement('p');
  p.className = 'hint';
  p.textContent = `Try: the URL of the folder that holds config.json, tokenizer.json and model.safetensors (ending in /). Offline, ${SHIPPED_MODEL_WORDS}: src="${SHIPPED_MODEL}". Online, a Hugging Face folder such as src="https://huggingface.co/distilgpt2/resolve/main/" (the network must reach huggingface.co).`;
  return p;
}

export class AttentionModel extends ModelElement {
  static tag = TAG;
  static style = STYLE;

  #hiddenHeads = { count: 0, heads: [] }; // heads toggled off in the head view, kept across rebuilds

  /** 'head', 'model' or 'neuron' ('head' also while the attribute is bad: attributes.js). */
  get view() {
    return this.attributeReader().get('view');
  }
  set view(v) {
    this.setAttribute('view', v);
  }

  // The forward: the text's tokens, every layer's attention maps and the chosen layer's queries
  // and keys (the neuron view). Its output: { text, tokens, labels (tokenLabel's), names (the
  // labels the views show: a repeated one with its position), T, layer, maps: per layer
  // [H, T, T], queries, keys, extra: what the head adds }, or null for an empty text.
  compute(model) {
    const text = this.text;
    if (text.trim() === '') return null;
    const tokens = tokensWithin(TAG, model, text);
    const layer = this.#index('layer', model.descriptor.numLayers);
    const out = model.forward(text, { attentions: true, queriesAndKeys: layer });
    const labels = tokens.map((t) => tokenLabel(t, text));
    const names = positionedLabels(labels);
    return {
      text,
      tokens,
      labels,
      names,
      T: tokens.length,
      layer,
      maps: out.attentions.map((a) => a.data),
      attentions: out.attentions,
      queries: out.queries,
      keys: out.keys,
      extra: this.#extra(model, out, tokens, names),
    };
  }

  computed(r) {
    this.dispatchEvent(
      new CustomEvent('forward', {
        bubbles: true,
        composed: true,
        detail: { tokens: r.tokens, attentions: r.attentions },
      }),
    );
  }

  // What the head adds: next-token probabilities, label probabilities, masked-token guesses.
  #extra(model, out, tokens, labels) {
    const decode = idLabeller(model);
    if (model.head === 'causal-lm') {
      const V = model.descriptor.vocabSize,
        T = tokens.length;
      const p = softmax(out.logits.data.subarray((T - 1) * V, T * V));
      return probabilityList(
        `Next token after “${labels.at(-1)}” (the 8 most likely of the ${V} tokens in its vocabulary)`,
        topK(p, 8).map(([id, q]) => [decode(id), q]),
      );
    }
    if (model.head === 'sequence-classification') {
      return probabilityList(
        'Label probabilities',
        model.labels.map((label, i) => [label, out.probabilities.data[i]]),
        ['label', 'probability (0 … 1)'],
      );
    }
    if (model.head === 'masked-lm') {
      const V = model.descriptor.vocabSize;
      const masks = tokens.map((t, i) => (t.special && /mask/i.test(t.text) ? i : -1)).filter((i) => i >= 0);
      if (!masks.length) return null;
      const i = masks[0];
      const p = softmax(out.logits.data.subarray(i * V, (i + 1) * V));
      return probabilityList(
        `Predictions for “${labels[i]}” (position ${i})`,
        topK(p, 8).map(([id, q]) => [decode(id), q]),
      );
    }
    return null;
  }

  // Attribute `name` (layer, head or query: an index from 0, below `count`) as a number.
  // Absent, a word (head="all") or bad (its message shows above the element: render): layer
  // and head 0, query the last token (the neuron view opens on it: it sees every key; a
  // decoder's first query sees only itself).
  #index(name, count) {
    const n = this.attributeReader().get(name, count - 1);
    return typeof n === 'number' ? n : name === 'query' ? count - 1 : 0;
  }

  // The head attribute: a head index (below the model's heads), 'average', 'all', or null
  // (absent or bad).
  #head(d) {
    return this.attributeReader().get('head', d.numHeads - 1);
  }

  progressChanged() {
    const progress = this.shadowRoot.querySelector('progress');
    const status = this.shadowRoot.querySelector('.status');
    if (!progress || !this.loadProgress) return this.render();
    const { file, loaded, total, stage } = this.loadProgress;
    if (total) {
      progress.max = total;
      progress.value = loaded;
    } else {
      progress.removeAttribute('value');
    }
    const mb = (x) => (x / 2 ** 20).toFixed(1);
    status.textContent =
      stage === 'weights'
        ? `Packing weights: ${loaded} of ${total} tensors`
        : `Downloading ${file}: ${mb(loaded)}${total ? ` of ${mb(total)}` : ''} MiB`;
  }

  render() {
    const root = this.shadowRoot;
    if (this.loadProgress) {
      const progress = document.createElement('progress');
      progress.setAttribute('aria-label', 'loading the model');
      const status = document.createElement('div');
      status.className = 'status';
      status.setAttribute('aria-live', 'polite');
      root.replaceChildren(progress, status, this.#printNote());
      return this.progressChanged();
    }
    const parts = [];
    if (!this.model && !this.loadStarted && !this.runError && this.hasAttribute('src')) {
      const waiting = document.createElement('p');
      waiting.className = 'status';
      waiting.textContent = `The model loads when this element is scrolled into view (${this.getAttribute('src')}).`;
      // Offline, a model from another origin will not load when scrolled to either: a full-page
      // screenshot shows why, and what to try, rather than a promise.
      const stranded = globalThis.navigator?.onLine === false && !sameOrigin(this.getAttribute('src'));
      parts.push(...(stranded ? [this.#offlineLine(), loadHint()] : [waiting]));
    }
    if (this.model) parts.push(this.#inputRow(), this.#viewRow());
    if (this.runError && this.loadFailed && globalThis.navigator?.onLine === false) parts.push(this.#offlineLine());
    if (this.runError) parts.push(errorMessage(this.runError));
    if (this.runError && this.loadFailed) parts.push(loadHint());
    else if (this.output) {
      // The view beside what the head adds: a wide page uses its width, a narrow one stacks.
      const main = document.createElement('div');
      main.className = 'main';
      main.append(this.#body(), ...(this.output.extra ? [this.output.extra] : []));
      parts.push(this.#caption(), main);
    }
    if (this.model) parts.push(this.exportBar(TAG));
    root.replaceChildren(...parts);
    this.showAttributeError(this.boundedAttributeError('query', this.output?.T));
  }

  // What the view shows, in words: which side is the query, what a line's opacity or a cell's
  // shade means, what the colours are.
  #caption() {
    const d = this.model.descriptor,
      r = this.output;
    const layer = this.#index('layer', d.numLayers);
    const p = document.createElement('p');
    p.className = 'caption';
    // The view's name first: on paper (and in a screenshot of one view) the buttons that name
    // it are gone or easily missed.
    const title = document.createElement('strong');
    title.className = 'view-name';
    title.textContent = `${VIEW_NAMES[this.view] ?? VIEW_NAMES.head}. `;
    if (this.view === 'model') {
      p.textContent = `In each map a row is a query token, a column a key, and a brighter cell more weight.${d.causal ? ' Above the diagonal is hatched grey: masked, a decoder sees no later token.' : ''}`;
    } else if (this.view === 'neuron') {
      const h = this.#index('head', d.numHeads),
        i = this.#index('query', r.T);
      p.textContent = `Layer ${layer}, head ${h}: how the query “${r.names[i]}” scores each key: q · k (head_dim ${d.headDim}) scaled, then softmax into weights that sum to 1.${d.causal ? ' Later keys are masked: a decoder sees only itself and what came before.' : ''}`;
    } else {
      const head = this.#head(d);
      const which =
        head === 'average'
          ? 'the average of its heads'
          : head === 'all' || head === null
            ? `all ${d.numHeads} heads, a colour each`
            : `head ${head}`;
      const keys = d.causal ? ' it can see (a decoder: itself and the tokens before it)' : '';
      const from =
        head === 'all' || head === null
          ? [
              `lines join the selected query (in bold: “${r.names[r.T - 1]}”`,
              // (paper has no token to click)
              ...screenOrPaper(' until another token is clicked or focused'),
              ') to each key token (right)',
            ]
          : ['a line joins each query token (left) to each key token (right)'];
      p.replaceChildren(
        `Layer ${layer}, ${which}: `,
        ...from,
        `${keys}; the thicker and more opaque the line, the more weight the query gives that key.`,
      );
    }
    const shown = [...r.labels, ...Array.from(r.extra?.querySelectorAll('th') ?? [], (th) => th.textContent)];
    const marks = marksLegend(shown);
    if (marks) p.append(` Tokens: ${marks}.`);
    const split = splitWordNote(r.labels);
    if (split) p.append(` ${split}`);
    const repeated = positionNote(r.labels);
    if (repeated) p.append(` ${repeated}`);
    p.append(` ${COUNTING}`);
    p.prepend(title);
    return p;
  }

  // What a print (or a full-page screenshot) shows in place of a progress bar: the model was
  // still downloading, and what to try.
  #printNote() {
    const p = document.createElement('p');
    p.className = 'print-only';
    const offline = globalThis.navigator?.onLine === false ? ' (the browser is offline)' : '';
    p.textContent = `Could not load ${this.#source()} in time for print: it was still downloading${offline}. Try: print again once the model is drawn, or ${SHIPPED_MODEL_WORDS}, src="${SHIPPED_MODEL}".`;
    return p;
  }

  // Above the error of a failed load while the browser is offline: the cause in plain words.
  #offlineLine() {
    const p = document.createElement('p');
    p.className = 'error offline';
    p.textContent = `Could not load ${this.#source()}: the browser is offline.`;
    return p;
  }

  // The model's source in words: the src attribute, or what page code handed over.
  #source() {
    return this.getAttribute('src') ?? 'the model';
  }

  #inputRow() {
    const row = document.createElement('div');
    row.className = 'row';
    const m = this.model;
    const name = document.createElement('span');
    name.className = 'status';
    const d = m.descriptor;
    const kv = d.numKvHeads < d.numHeads ? ` on ${d.numKvHeads} key/value head${d.numKvHeads > 1 ? 's' : ''}` : '';
    const windows = (d.layerWindows ?? []).filter((w) => w > 0).length;
    const local =
      windows > 0
        ? ` · ${windows === d.numLayers ? 'every layer' : `${windows} of ${d.numLayers} layers`} windowed`
        : '';
    name.textContent = `${this.modelName()} · ${d.numLayers} layers × ${d.numHeads} heads${kv} · head_dim ${d.headDim}${local} · ${parameterWords(m)}`;
    row.append(this.textField(), name);
    return row;
  }

  #viewRow() {
    const row = document.createElement('div');
    row.className = 'row';
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', 'view');
    for (const [value, label] of Object.entries(VIEW_NAMES)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'print-hide'; // nothing to press on paper (the caption names the view)
      b.textContent = label;
      b.setAttribute('aria-pressed', String(this.view === value));
      b.addEventListener('click', () => {
        this.view = value;
      });
      row.append(b);
    }
    const d = this.model.descriptor;
    if (this.view !== 'model') row.append(this.#select('layer', d.numLayers, 'layer', layerNames(d)));
    if (this.view === 'neuron') {
      row.append(this.#select('head', d.numHeads, 'head', headNames(d)));
      row.append(this.#select('query', this.output?.T ?? 1, 'query', this.output?.names));
    }
    return row;
  }

  // A menu of the layer, head or query attribute (model-element.js attributeMenu); a new
  // layer runs the forward again (the neuron view needs that layer's q and k).
  #select(attribute, count, label, names) {
    return this.attributeMenu(attribute, count, {
      label,
      names,
      current: this.#index(attribute, count),
      changed: () => attribute === 'layer' && this.scheduleForward(),
    });
  }

  #body() {
    const r = this.output;
    const d = this.model.descriptor;
    const layer = this.#index('layer', d.numLayers);
    if (this.view === 'model') {
      return scrollRegion(
        'every layer and head',
        modelGrid(
          r.maps,
          d.numHeads,
          r.T,
          (l, h) => {
            this.setAttribute('layer', String(l));
            this.setAttribute('head', String(h));
            this.view = 'head';
          },
          // the maps the head view shows: one head, or every head of the layer (all, average)
          [layer, typeof this.#head(d) === 'number' ? this.#head(d) : null],
          r.names,
          d,
        ),
      );
    }
    if (this.view === 'neuron') {
      if (r.layer !== layer) {
        this.scheduleForward();
        return document.createElement('div');
      }
      const h = this.#index('head', d.numHeads),
        i = this.#index('query', r.T);
      const hd = d.headDim,
        group = d.numHeads / d.numKvHeads;
      const q = r.queries.data.subarray((h * r.T + i) * hd, (h * r.T + i + 1) * hd);
      const kh = Math.floor(h / group);
      const keys = Array.from({ length: r.T }, (_, j) =>
        r.keys.data.subarray((kh * r.T + j) * hd, (kh * r.T + j + 1) * hd),
      );
      const weights = r.maps[layer].subarray((h * r.T + i) * r.T, (h * r.T + i + 1) * r.T);
      // (a narrow page scrolls the table sideways in a labelled region: neuronTable)
      const mask = modelMask(d, layer);
      return neuronTable(q, keys, weights, r.names, r.names[i], (j) => !mask?.(i, j));
    }
    const heatmap = document.createElement('attention-heatmap');
    heatmap.setAttribute('view', r.T > LIMITS.heatmap.lineTokens ? 'grid' : 'lines');
    heatmap.setAttribute('tokens', JSON.stringify(r.names));
    heatmap.setAttribute('toolbar', 'none'); // the element's own toolbar exports the view
    // bertviz's head view: every head overlaid, a colour each, unless a head is chosen.
    const head = this.#head(d);
    heatmap.setAttribute(
      'head',
      head === 'average' || head === 'all' ? head : head !== null ? String(head) : d.numHeads > 1 ? 'all' : '0',
    );
    // The heatmap's head menu drives the element's head attribute (and so the caption).
    heatmap.addEventListener('change', (e) => {
      const select = e.composedPath()[0];
      if (select?.getAttribute?.('aria-label') === 'head') this.setAttribute('head', select.value);
    });
    heatmap.weights = { data: r.maps[layer], shape: [d.numHeads, r.T, r.T] };
    // The keys the model hid: hatched in the printed grids, not a small weight's colour.
    const mask = modelMask(d, layer);
    heatmap.masked = mask && { cells: mask, words: maskWords(d) };
    // The heads the reader hid stay hidden in the next layer, text or view (same head count).
    if (this.#hiddenHeads.count === d.numHeads) heatmap.hiddenHeads = this.#hiddenHeads.heads;
    heatmap.addEventListener('headtoggle', (e) => {
      this.#hiddenHeads = { count: d.numHeads, heads: e.detail.hidden };
    });
    // On paper the heatmap's lines view prints each shown head's weights as a table itself.
    return heatmap;
  }

  /** The tokens and the selected layer's attention maps, as JSON. */
  toJSON() {
    const r = this.output;
    const d = this.model?.descriptor;
    if (!r || !d) return { element: TAG, src: this.getAttribute('src'), text: this.text, tokens: [], attentions: null };
    const layer = this.#index('layer', d.numLayers);
    const maps = r.maps[layer];
    return {
      element: TAG,
      src: this.getAttribute('src'),
      modelType: this.model.modelType,
      ...(isShippedModel(this.model) ? { model: SHIPPED_NAME } : {}),
      text: r.text,
      tokens: r.tokens.map((t, i) => ({ ...t, label: r.labels[i], name: r.names[i] })),
      layer,
      attentions: { shape: [d.numHeads, r.T, r.T], data: Array.from(maps) },
    };
  }

  /** JavaScript that loads this model and computes what the element shows. */
  toCode() {
    const src = this.getAttribute('src');
    return `import { init } from 'attention-wasm';

const attn = await init();
const model = await attn.loadModel(${src ? jsString(src) : "files  /* the checkpoint's files: config.json, tokenizer.json, model.safetensors */"});
const out = model.forward(${jsString(this.text)}, { attentions: true });
// out.tokens[0]: the tokens with their spans; out.attentions[layer]: [1, heads, T, T]
console.log(out.tokens[0].map((t) => t.text), out.attentions[${this.#index('layer', this.model?.descriptor.numLayers ?? 1)}].shape);
`;
  }
}
