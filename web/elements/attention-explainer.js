// <attention-explainer>: one token's whole path through a pretrained model, stage by stage,
// with the runner's own numbers (forward's `trace: { position }`; no second forward in JS):
// embedding (+ positions, or RoPE noted), norm, Q/K/V split into heads, scaled scores, mask,
// softmax, the weighted sum of values, the output projection and residual, the MLP with its
// activation, the final norm, the logits, and sampling with temperature, top-k and top-p
// (model.samplingDistribution: what generate would draw from). Hovering or focusing a head
// or a dimension highlights it in every stage that shows it.
//
//   <attention-explainer text="The cat sat on the mat"></attention-explainer>   (the shipped tiny GPT-2)
//   <attention-explainer src="https://huggingface.co/distilgpt2/resolve/main/" token="2"></attention-explainer>
//
// Attributes: src (a model folder's URL or a Hub id; absent: the tiny GPT-2 this package ships), text,
// token (its position, from 0; default the last), layer and head (indices from 0, as in
// attentions[layer][head]), temperature, top-k, top-p,
// eager, layout="compact" (a slide: one stage at a time, `stage`, 1-based, or the stage menu). Property: model (a PretrainedModel, or a source loadModel takes). Events:
// `modelload` (detail { model }), `loadprogress` (detail { file, loaded, total, stage }), `trace`
// (detail { tokens, position, trace }). The loading and its lifecycle: model-element.js.
import { initCode } from './api.js';
import { ModelElement } from './model-element.js';
import { errorMessage } from './theme.js';
import { jsString } from './export.js';
import { formatNumber, exactNumber } from './format.js';
import { tokenLabel, bar, idLabeller, marksLegend, positionedLabels } from './model-views.js';
import { positionNote, COUNTING } from './token-positions.js';
import { tokensWithin } from './model-text.js';
import { SHIPPED_MODEL, SHIPPED_MODEL_WORDS } from './shipped-model.js';
import { createLink, EXPLAINER_VIEWS_STYLE } from './explainer-views.js';
import { explainerStages } from './explainer-stages.js';

const TAG = 'attention-explainer';
/** Tokens in the sampling table. */
const SHOWN_TOKENS = 10;

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.row { display: flex; gap: 0.4rem 0.8rem; align-items: center; flex-wrap: wrap; margin: 0.3rem 0; font-size: 0.9em; }
input[type=text] { font: inherit; flex: 1 1 12rem; min-width: 0; padding: 0.2rem 0.4rem; }
button, select, input { font: inherit; }
select { max-width: 100%; }
.status { font-size: 0.85em; opacity: 0.9; overflow-wrap: anywhere; }
/* the model's line under the text field, never squeezed against the element's right edge */
.row > .status { flex: 1 1 100%; }
input[type=text] { max-width: 40rem; }
.tokens { display: flex; flex-wrap: wrap; gap: 0.25rem; }
.tokens button { padding: 0.1rem 0.45rem; border: 1px solid var(--attn-border, #8886); border-radius: 4px; background: none; color: inherit; cursor: pointer; }
.tokens button[aria-checked=true] { border: 2px solid var(--_selected); font-weight: 700; }
/* Wide pages: the stages flow in two columns (down the first, then the second). They take the
   width they are given and ask for none (contain: inline-size): a page that sizes the element
   to its content (an inline-block, a flex item) gets a width its controls need, and the
   grids band to fit it (a 9-column grid had held such a host at 499 px on a 390 px phone). */
.stages { columns: 32rem 2; column-gap: 2rem; contain: inline-size; }
section { border-top: 1px solid var(--attn-border, #8884); padding: 0.4rem 0; break-inside: avoid; }
h2 { font-size: 1rem; margin: 0.2rem 0; }
.pair { display: flex; flex-wrap: wrap; gap: 0.3rem 1.5rem; }
.pair > * { min-width: 0; max-width: 100%; }
label.slider { display: inline-flex; gap: 0.3rem; align-items: center; flex-wrap: wrap; }
label.slider output { font-variant-numeric: tabular-nums; min-width: 2.5em; }
table.sampling { border-collapse: collapse; font-size: 0.85em; }
table.sampling caption { text-align: start; padding-bottom: 0.2rem; }
table.sampling th, table.sampling td { padding: 0.1rem 0.4rem; text-align: start; }
table.sampling td.number { text-align: end; font-variant-numeric: tabular-nums; }
.bar { position: relative; display: inline-block; width: 6rem; height: 0.9em; background: color-mix(in srgb, currentColor 10%, transparent); vertical-align: middle; }
.bar .fill { position: absolute; inset: 0 auto 0 0; background: var(--_bar, #2563eb); opacity: 0.75; }
.barred { display: inline-flex; gap: 0.4rem; align-items: center; }
.value { font-variant-numeric: tabular-nums; min-width: 3.2em; display: inline-block; text-align: end; }
.hint { font-size: 0.9em; overflow-wrap: anywhere; }
p.pick { font-size: 0.9em; margin: 0.3rem 0; }
table.sampling tr.picked { outline: 2px solid var(--_selected); outline-offset: -2px; font-weight: 700; }
.head-chips button[aria-pressed=true] { font-weight: 700; border: 2px solid var(--_selected); }
@media print { section { break-inside: avoid; } }
/* layout="compact" (a 960 × 700 slide): one stage, its strips two a line, no lists of largest values */
:host([layout="compact"]) .stages { columns: auto; }
:host([layout="compact"]) section { border-top: none; padding-top: 0; }
:host([layout="compact"]) .strip { display: inline-block; width: calc(50% - 0.8rem); min-width: min(100%, 18rem); margin: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
:host([layout="compact"]) .largest { display: none; }
:host([layout="compact"]) .grid { display: inline-block; max-width: calc(100% - 1.2rem); vertical-align: top; margin-right: 1.2rem; }
/* side by side, a grid still never grows past the page: a wide one wraps into bands (column-bands.js) */
:host([layout="compact"]) section > .caption { font-size: 0.9em; margin: 0.2rem 0; }
:host([layout="compact"]) table.heat { font-size: max(11px, 0.7rem); line-height: 1.2; }
:host([layout="compact"]) table.heat td { min-width: 0; padding: 0 0.2rem; }
:host([layout="compact"]) table.heat th { padding: 0 0.2rem; }
:host([layout="compact"]) .readout { min-height: 0; }
:host([layout="compact"]) .pick-label { display: none; }
${EXPLAINER_VIEWS_STYLE}`;

export class AttentionExplainer extends ModelElement {
  static tag = TAG;
  static style = STYLE;

  static hubIds = true;
  static forwardAttributes = ['text', 'token'];

  #link = createLink();
  #shownValue = new Map(); // slider attribute → how its readout shows a value

  attributeChanged(name) {
    if (name === 'temperature' || name === 'top-k' || name === 'top-p') this.#renderSampling();
    else this.render();
  }

  /** The trace shown (forward's `trace`), with its tokens: { tokens, position, trace }, or null. */
  get result() {
    const r = this.output;
    return r && { tokens: r.tokens, position: r.position, trace: r.trace };
  }

  /** The src attribute, or the tiny GPT-2 this package ships. */
  modelSource() {
    return this.getAttribute('src') || SHIPPED_MODEL;
  }

  // The one forward: the chosen token's trace (the text's other positions are its keys).
  compute(model) {
    const text = this.text;
    const tokens = tokensWithin(TAG, model, text);
    if (tokens.length === 0) return null;
    const position = this.#index('token', tokens.length);
    const { trace } = model.forward(text, { trace: { position } });
    const labels = tokens.map((t) => tokenLabel(t, text));
    // names: the labels as shown, a repeated one with its position ('at·3')
    return { text, tokens, labels, names: positionedLabels(labels), position, trace };
  }

  computed({ tokens, position, trace }) {
    this.dispatchEvent(
      new CustomEvent('trace', { bubbles: true, composed: true, detail: { tokens, position, trace } }),
    );
  }

  // Attribute `name` as an index in [0, count): token, layer and head count from 0 (token
  // defaults to the last), stage from 1 (stage 1 of 10 is index 0).
  #index(name, count) {
    const first = name === 'stage' ? 1 : 0;
    const n = this.attributeReader().get(name, count - 1 + first);
    return typeof n === 'number' ? n - first : name === 'token' ? count - 1 : 0;
  }

  #sampling() {
    const reader = this.attributeReader();
    const V = this.model?.descriptor.vocabSize ?? 1;
    return {
      temperature: reader.get('temperature'),
      topK: Math.min(reader.get('top-k'), V),
      topP: reader.get('top-p'),
    };
  }

  render() {
    this.#link.clear();
    const root = this.shadowRoot;
    const parts = [];
    const loading = this.loadProgress !== null;
    if (loading || (!this.model && !this.runError)) {
      const status = Object.assign(document.createElement('p'), { className: 'status' });
      status.setAttribute('aria-live', 'polite');
      status.textContent = loading
        ? `Loading the model (${this.modelSource()})…`
        : `The model loads when this element is scrolled into view (${this.modelSource()}).`;
      parts.push(status);
      if (loading) {
        const progress = document.createElement('progress'); // indeterminate while it loads
        progress.setAttribute('aria-label', 'loading the model');
        parts.push(progress);
      }
    }
    if (this.model) parts.push(this.#inputRow());
    if (this.runError) {
      parts.push(errorMessage(this.runError));
      if (!this.model)
        parts.push(
          Object.assign(document.createElement('p'), {
            className: 'hint',
            textContent: `Try: the URL of a folder holding config.json, tokenizer.json and model.safetensors (ending in /); offline, leave src out (or src="${SHIPPED_MODEL}") for ${SHIPPED_MODEL_WORDS}.`,
          }),
        );
    } else if (this.output) {
      const sections = this.#stages();
      const stages = document.createElement('div');
      stages.className = 'stages';
      // layout="compact" (a slide): the stage attribute's stage only; the stage menu picks another.
      const shown = this.#compact() ? this.#index('stage', sections.length) : -1;
      stages.append(...(shown >= 0 ? [sections[shown]] : sections));
      parts.push(this.#pickers(shown >= 0 ? sections : null), stages);
    }
    if (this.model) parts.push(this.exportBar(TAG));
    root.replaceChildren(...parts);
    this.showAttributeError(this.boundedAttributeError('token', this.output?.tokens.length));
  }

  #inputRow() {
    const row = document.createElement('div');
    row.className = 'row';
    const d = this.model.descriptor;
    const name = Object.assign(document.createElement('span'), { className: 'status' });
    name.textContent = `${this.modelName()} · ${d.numLayers} layers · ${d.numHeads} heads${d.numKvHeads < d.numHeads ? ` on ${d.numKvHeads} key/value heads` : ''} · d_model ${d.dModel} · head_dim ${d.headDim} · vocabulary ${d.vocabSize}`;
    // a new text: the token to follow is the last again
    row.append(
      this.textField(() => this.removeAttribute('token')),
      name,
    );
    return row;
  }

  #compact() {
    return this.attributeReader().get('layout') === 'compact';
  }

  // The token to follow (a radio group: arrow keys move, Enter/Space or click picks), the
  // layer and the head; in a compact layout the stage shown (`sections`: all of them).
  #pickers(sections) {
    const r = this.output,
      d = this.model.descriptor;
    const wrap = document.createElement('div');
    const group = document.createElement('div');
    group.className = 'tokens';
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', 'token to follow');
    const buttons = r.names.map((label, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('role', 'radio');
      b.setAttribute('aria-checked', String(i === r.position));
      b.tabIndex = i === r.position ? 0 : -1;
      b.textContent = label;
      // Its name, as shown (names are unique: positionedLabels), finds it again after a redraw
      // (focus.js keepFocus): a second quick arrow lands on the new radio, not a replaced one.
      b.setAttribute('aria-label', label);
      b.title = `position ${i}, id ${r.tokens[i].id}`;
      b.addEventListener('click', () => this.#pick(i));
      b.addEventListener('keydown', (e) => {
        const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
        if (step === undefined) return;
        e.preventDefault();
        const next = (i + step + buttons.length) % buttons.length;
        buttons[next].focus();
        this.#pick(next);
      });
      return b;
    });
    group.append(...buttons);
    const label = Object.assign(document.createElement('div'), {
      className: 'status pick-label',
      textContent: 'Token to follow',
    });
    // (how to pick one: on screen only)
    label.append(
      Object.assign(document.createElement('span'), {
        className: 'print-hide',
        textContent: ' (click, or arrow keys)',
      }),
      ':',
    );
    const row = document.createElement('div');
    row.className = 'row';
    row.append(
      ...(sections ? [this.#stageMenu(sections)] : []),
      // The head: stage 3's chips, where it shows (the other stages show every head).
      this.#select('layer', d.numLayers, 'layer'),
      Object.assign(document.createElement('span'), {
        className: 'status',
        textContent: this.#marks(),
      }),
    );
    wrap.append(label, group, row);
    return wrap;
  }

  // The legend of the marks in the text's token labels ('Tokens: ␣ = space.'), and what a
  // repeated token's position mark means ('at·9 is the “at” at position 9'), or ''.
  #marks() {
    const legend = marksLegend(this.output.labels);
    return [legend ? `Tokens: ${legend}.` : '', positionNote(this.output.labels), COUNTING].filter(Boolean).join(' ');
  }

  // The focused radio is the picked one (arrows move the focus first; a click focuses it), so
  // the redraw's keepFocus puts the focus on the picked token's new radio.
  #pick(i) {
    this.setAttribute('token', String(i));
  }

  // The compact layout's menu of stages, by their titles ('4 · Layer 1: scores, mask and softmax').
  #stageMenu(sections) {
    return this.attributeMenu('stage', sections.length, {
      label: 'stage',
      first: 1,
      names: sections.map((section) => section.querySelector('h2').textContent),
      current: this.#index('stage', sections.length),
    });
  }

  // A menu of the layer or head attribute (model-element.js attributeMenu).
  #select(attribute, count, label) {
    return this.attributeMenu(attribute, count, { label, current: this.#index(attribute, count) });
  }

  // Stage 3's head chips: whose keys and values the grids show (the head attribute; the
  // other stages show every head). A pressed chip keeps the focus when the view is redrawn.
  #headChips() {
    const d = this.model.descriptor;
    const current = this.#index('head', d.numHeads);
    const group = document.createElement('div');
    group.className = 'row head-chips print-hide';
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', 'keys and values of head');
    group.append(Object.assign(document.createElement('span'), { textContent: 'keys and values of:' }));
    for (let h = 0; h < d.numHeads; h++) {
      const b = Object.assign(document.createElement('button'), { type: 'button', textContent: `head ${h}` });
      b.setAttribute('aria-pressed', String(h === current));
      b.addEventListener('click', () => {
        this.setAttribute('head', String(h));
        this.shadowRoot.querySelector('.head-chips [aria-pressed=true]')?.focus();
      });
      group.append(b);
    }
    return group;
  }

  // The ten stages (explainer-stages.js) of the shown layer and head.
  #stages() {
    const d = this.model.descriptor;
    return explainerStages({
      model: this.model,
      result: this.output,
      layer: this.#index('layer', d.numLayers),
      head: this.#index('head', d.numHeads),
      link: this.#link,
      headPicker: () => this.#headChips(),
      sampling: () => [this.#sliders(), this.#samplingResult()],
    });
  }

  #sliders() {
    const V = this.model.descriptor.vocabSize;
    const s = this.#sampling();
    const row = document.createElement('div');
    row.className = 'row';
    const slider = (attribute, label, value, min, max, step, shown) => {
      const wrap = document.createElement('label');
      wrap.className = 'slider';
      const input = Object.assign(document.createElement('input'), { type: 'range', min, max, step, value });
      input.dataset.attribute = attribute;
      const output = Object.assign(document.createElement('output'), { textContent: shown(value) });
      this.#shownValue.set(attribute, shown);
      input.addEventListener('input', () => {
        output.textContent = shown(Number(input.value));
        this.setAttribute(attribute, input.value);
      });
      wrap.append(label, input, output);
      return wrap;
    };
    row.append(
      slider('temperature', 'temperature', s.temperature, 0, 2, 0.05, (v) =>
        v === 0 ? '0 (greedy)' : formatNumber(v, 2),
      ),
      slider('top-k', 'top-k', s.topK, 0, Math.min(V, 50), 1, (v) => (v === 0 ? 'off' : String(v))),
      slider('top-p', 'top-p', s.topP, 0.05, 1, 0.05, (v) => (v >= 1 ? '1 (off)' : formatNumber(v, 2))),
    );
    return row;
  }

  // The sampling stage's result: the greedy pick drawn (the token temperature 0 takes: the
  // library's samplingDistribution at temperature 0, 1 on the largest logit) with its
  // probability at these settings, then the table of the most likely tokens.
  #samplingResult() {
    const model = this.model,
      r = this.output;
    const p = model.samplingDistribution(r.trace.logits, this.#sampling());
    const pick = model.samplingDistribution(r.trace.logits, { temperature: 0 }).indexOf(1);
    const decode = idLabeller(model);
    const wrap = document.createElement('div');
    wrap.className = 'sampling-result';
    const line = document.createElement('p');
    line.className = 'pick';
    line.dataset.id = String(pick);
    line.append(
      `After position ${r.position} “${r.names[r.position]}”, the greedy pick (temperature 0 takes the largest logit): `,
      Object.assign(document.createElement('strong'), { textContent: `“${decode(pick)}”` }),
      ` (id ${pick}, outlined in the table); at these settings sampling draws it with probability ${formatNumber(p[pick], 3)}.`,
    );
    wrap.append(line, this.#samplingTable(p, pick, decode));
    return wrap;
  }

  // The probabilities `p` the library returned for these logits and settings, most likely
  // first; the greedy pick's row outlined; the marks its token labels use named.
  #samplingTable(p, pick, decode) {
    const model = this.model,
      t = this.output.trace;
    const kept = p.reduce((n, x) => n + (x > 0), 0);
    const order = Array.from(p.keys())
      .sort((a, b) => p[b] - p[a] || t.logits.data[b] - t.logits.data[a])
      .slice(0, SHOWN_TOKENS);
    const labels = order.map(decode);
    const marks = marksLegend([...labels, decode(pick)]);
    const table = document.createElement('table');
    table.className = 'sampling';
    const vocab = model.descriptor.vocabSize;
    const dropped = kept < vocab ? 'the others get 0' : 'all: top-k and top-p remove none here';
    table.createCaption().textContent = `${kept} of ${vocab} tokens kept (${dropped}); the ${order.length} most likely:${marks ? ` (tokens: ${marks})` : ''}`;
    const head = table.createTHead().insertRow();
    for (const title of ['next token', 'id', 'logit', 'probability'])
      head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: title }));
    const body = table.createTBody();
    order.forEach((id, i) => {
      const tr = body.insertRow();
      tr.append(Object.assign(document.createElement('th'), { scope: 'row', textContent: labels[i] }));
      Object.assign(tr.insertCell(), { className: 'number', textContent: String(id) });
      const logit = Object.assign(tr.insertCell(), {
        className: 'number',
        textContent: formatNumber(t.logits.data[id], 3),
      });
      logit.title = exactNumber(t.logits.data[id]);
      const probability = tr.insertCell();
      probability.append(bar(p[id]));
      probability.title = exactNumber(p[id]);
      tr.dataset.id = String(id);
      tr.dataset.p = String(p[id]);
      if (id === pick) tr.classList.add('picked');
    });
    return table;
  }

  #renderSampling() {
    const old = this.shadowRoot.querySelector('.sampling-result');
    if (!old || !this.output?.trace.logits) return this.render();
    old.replaceWith(this.#samplingResult());
    this.#syncSliders();
    this.showAttributeError(this.boundedAttributeError('token', this.output?.tokens.length));
  }

  // The sliders follow their attributes when page code sets them (a Vue binding, setAttribute):
  // each range and its readout show the value the table was computed with.
  #syncSliders() {
    const s = this.#sampling();
    const values = { temperature: s.temperature, 'top-k': s.topK, 'top-p': s.topP };
    for (const input of this.shadowRoot.querySelectorAll('.slider input[type=range]')) {
      const value = values[input.dataset.attribute];
      if (value === undefined || Number(input.value) === value) continue;
      input.value = String(value);
      const output = input.nextElementSibling;
      if (output) output.textContent = this.#shownValue.get(input.dataset.attribute)(value);
    }
  }

  /** The tokens, the traced position, the shown layer's stages and the sampling's probabilities, as JSON. */
  toJSON() {
    const r = this.output;
    const base = { element: TAG, src: this.modelSource(), text: this.text };
    if (!r) return { ...base, tokens: [], trace: null };
    const d = this.model.descriptor;
    const l = this.#index('layer', d.numLayers);
    const plain = (x) => x && { shape: x.shape, data: Array.from(x.data) };
    const layer = Object.fromEntries(Object.entries(r.trace.layers[l]).map(([k, v]) => [k, plain(v)]));
    const s = this.#sampling();
    const p = r.trace.logits ? this.model.samplingDistribution(r.trace.logits, s) : null;
    return {
      ...base,
      modelType: this.model.modelType,
      tokens: r.tokens.map((t, i) => ({ ...t, label: r.labels[i], name: r.names[i] })),
      position: r.position,
      layer: l,
      trace: {
        id: r.trace.id,
        embedding: plain(r.trace.embedding),
        layer,
        finalNormInput: plain(r.trace.layers.at(-1).residual),
        final: plain(r.trace.final),
        logits: plain(r.trace.logits),
      },
      sampling: { ...s, probabilities: p && Array.from(p) },
    };
  }

  /** JavaScript that loads this model and computes what the element shows. */
  toCode() {
    const r = this.output;
    const position = r ? r.position : 0;
    const s = this.#sampling();
    return `import { init } from 'attention-wasm';

${initCode()}
const model = await attn.loadModel(${jsString(this.modelSource())});
const { trace } = model.forward(${jsString(this.text)}, { trace: { position: ${position} } });
// trace.embedding [d]; trace.layers[l]: norm1, query [H, hd], keys, values, scores, maskedScores,
// weights [H, T], heads, attentionOutput, attentionResidual, norm2, mlpPre, mlpHidden, mlpOutput, residual
const p = model.samplingDistribution(trace.logits, { temperature: ${s.temperature}, topK: ${s.topK}, topP: ${s.topP} });
console.log(trace.layers[${this.#index('layer', this.model?.descriptor.numLayers ?? 1)}].weights, p);
`;
  }
}
