// <attention-sentiment>: the course's application (seed 001: a review classifier) running
// live. Type a sentence: the model labels it, and a table shows, per layer and head, how much
// the [CLS] query (the pooled query the classifier reads) attends to each word. A shipped
// model answers at once; "Train from scratch" trains a new one in a Worker and swaps it in.
//
//   <attention-sentiment text="the plot was dull but the acting was great"></attention-sentiment>
//
// Attributes: text, model (URL of a weights JSON; default the shipped models/sentiment.json),
// layer (1-based; default the last), eager (load the model at once rather than when the
// element nears the viewport). Events: `prediction` (detail { text, label, probability,
// words, attention }), `trained` (detail { seconds, accuracy }).
import { moduleWorker } from './workers.js';
import { loadWhenNear } from './print.js';
import { getApi } from './api.js';
import { THEME_STYLE, styleSheet, errorMessage, followPageScheme } from './theme.js';
import { containKeys } from './keys.js';
import { heatColour, formatNumber } from './format.js';
import { tokenize, TEMPLATES_DESCRIPTION } from './training/sentiment-corpus.js';
import { LABELS, classify } from './training/sentiment-training.js';

const STYLE = `${THEME_STYLE}
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
label { display: block; font-weight: 600; }
input { font: inherit; width: min(100%, 36rem); box-sizing: border-box; padding: 0.3rem 0.4rem; }
input:focus-visible, button:focus-visible, select:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.verdict { font-size: 1.15em; margin: 0.5rem 0; }
.verdict strong { font-weight: 700; }
.note { font-size: 0.85em; opacity: 0.85; }
.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid var(--attn-border, #8884); padding: 0.2rem 0.35rem; text-align: center; }
th[scope=row] { text-align: left; font-weight: 600; }
td.unknown, th.unknown { text-decoration: underline dotted; }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.4rem 0; font-size: 0.9em; }
button, select { font: inherit; }
.error { color: var(--_error); }`;

const SHIPPED = new URL('./models/sentiment.json', import.meta.url);

// The Worker, written out literally so bundlers bundle it (workers.js: from another origin).
const sentimentWorker = () => moduleWorker(() => new Worker(new URL('./training/sentiment-worker.js', import.meta.url), { type: 'module' }), './training/sentiment-worker.js');

export class AttentionSentiment extends HTMLElement {
  #internals = this.attachInternals();
  static observedAttributes = ['text', 'model', 'layer'];

  #model = null;      // the TinyTransformer in use
  #info = '';         // where its weights came from
  #loading = null;
  #worker = null;
  #parts = null;
  #timer = 0;
  #stopLoadWatch = () => {};

  constructor() {
    super();
    containKeys(this.attachShadow({ mode: 'open' })).adoptedStyleSheets = [styleSheet(STYLE)];
  }

  connectedCallback() {
    followPageScheme(this, this.#internals);
    if (!this.#parts) this.#build();
    // The model (about 80 KB gzipped) loads when the element nears the viewport, so a page
    // that shows it further down does not pay for it at load (attribute `eager`: at once),
    // and when the page prints (a printed page or a deck's print view never scrolls to it).
    this.#stopLoadWatch();
    this.#stopLoadWatch = loadWhenNear(this, () => this.#load());
  }

  disconnectedCallback() {
    this.#stopLoadWatch();
    this.#worker?.terminate();
    this.#worker = null;
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#parts || old === value) return;
    if (name === 'model') this.#load(true);
    else if (name === 'text') { this.#parts.input.value = value ?? ''; this.#predict(); }
    else this.#predict();
  }

  /** The last prediction ({ label, probability, words, attention }), or null. */
  prediction = null;

  #build() {
    const root = this.shadowRoot;
    const label = document.createElement('label');
    label.textContent = 'Review sentence';
    const input = document.createElement('input');
    input.type = 'text';
    input.setAttribute('part', 'input');
    input.value = this.getAttribute('text') ?? 'the movie was not good';
    input.addEventListener('input', () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#predict(), 60);
    });
    label.append(input);
    const verdict = document.createElement('p');
    verdict.className = 'verdict';
    verdict.setAttribute('aria-live', 'polite');
    const controls = document.createElement('div');
    controls.className = 'controls';
    const layerLabel = document.createElement('label');
    layerLabel.textContent = 'Layer ';
    const layer = document.createElement('select');
    layer.addEventListener('change', () => this.#predict());
    layerLabel.append(layer);
    const train = document.createElement('button');
    train.type = 'button';
    train.textContent = 'Train from scratch';
    train.addEventListener('click', () => this.#train());
    const status = document.createElement('span');
    status.setAttribute('role', 'status');
    controls.append(layerLabel, train, status);
    const table = document.createElement('div');
    table.className = 'table';
    // A region that may scroll sideways on narrow screens: focusable, so keyboards can scroll it.
    table.tabIndex = 0;
    table.setAttribute('role', 'region');
    table.setAttribute('aria-label', 'Attention of the [CLS] query per head');
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = TEMPLATES_DESCRIPTION;
    root.append(label, verdict, controls, table, note);
    this.#parts = { input, verdict, layer, train, status, table, note };
  }

  async #load(reload = false) {
    if (this.#loading && !reload) return this.#loading;
    this.#loading = (async () => {
      try {
        const attn = await getApi();
        const url = this.getAttribute('model') ?? SHIPPED.href;
        const response = await fetch(url);
        if (!response.ok) throw new Error(`attention-sentiment: cannot load the model ${url} (HTTP ${response.status})`);
        const saved = await response.json();
        this.#use(attn, saved, saved.trained ? `shipped model, ${(100 * saved.trained.heldOutAccuracy).toFixed(1)}% right on ${saved.trained.heldOutSentences} held-out sentences` : 'loaded model');
      } catch (error) {
        this.#parts.table.replaceChildren(errorMessage(error));
      }
    })();
    return this.#loading;
  }

  // Swaps in a model built from `saved` weights, only once they are in: a model whose
  // setWeights failed is disposed at once (it held its heap and answered from random
  // weights), the message says why, and the previous model stays (or none is shown).
  #use(attn, saved, info) {
    let model = null;
    try {
      model = new attn.TinyTransformer(saved?.config);
      model.setWeights(saved);
    } catch (error) {
      model?.dispose();
      throw new Error(`attention-sentiment: the model could not be loaded: ${error.message}`, { cause: error });
    }
    this.#model?.dispose();
    this.#model = model;
    this.#info = info;
    const { layer } = this.#parts;
    layer.replaceChildren(...Array.from({ length: saved.config.numLayers }, (_, l) => new Option(String(l + 1), String(l))));
    layer.value = String(Math.min(saved.config.numLayers, Number(this.getAttribute('layer') ?? saved.config.numLayers)) - 1);
    this.#predict();
  }

  #predict() {
    if (!this.#model) return;
    const { input, verdict, layer, table } = this.#parts;
    const text = input.value;
    const p = classify(this.#model, tokenize, text);
    if (p.label === null) {
      verdict.textContent = 'Type a sentence made of words from the corpus.';
      table.replaceChildren();
      this.prediction = null;
      return;
    }
    const probability = p.probabilities[p.label];
    verdict.replaceChildren('Prediction: ', Object.assign(document.createElement('strong'), { textContent: LABELS[p.label] }),
      ` (${formatNumber(100 * probability, 1)}% ; ${this.#info})`);
    const l = Number(layer.value || p.attention.length - 1);
    table.replaceChildren(this.#table(p, l));
    this.prediction = { text, label: LABELS[p.label], probability, words: p.words, unknown: p.unknown, attention: p.attention };
    this.dispatchEvent(new CustomEvent('prediction', { bubbles: true, composed: true, detail: this.prediction }));
  }

  // Rows: heads of layer l; columns: [CLS] and the words; cells: the [CLS] row's weights.
  #table(p, l) {
    const table = document.createElement('table');
    const caption = table.createCaption();
    caption.textContent = `What the [CLS] query attends to in layer ${l + 1} (weights of its softmax row, per head)`;
    const head = table.createTHead().insertRow();
    head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: 'head' }));
    for (const [j, word] of ['[CLS]', ...p.words].entries()) {
      const th = Object.assign(document.createElement('th'), { scope: 'col', textContent: word });
      if (j > 0 && p.unknown.includes(word)) { th.classList.add('unknown'); th.title = 'not in the vocabulary: read as <unk>'; }
      head.append(th);
    }
    const body = table.createTBody();
    for (const [h, row] of p.attention[l].entries()) {
      const tr = body.insertRow();
      tr.append(Object.assign(document.createElement('th'), { scope: 'row', textContent: String(h + 1) }));
      for (const w of row) {
        const td = tr.insertCell();
        td.textContent = formatNumber(w, 2);
        td.title = String(w);
        const colour = heatColour(w, 'sequential');
        td.style.background = colour.background;
        td.style.color = colour.color;
      }
    }
    return table;
  }

  #train() {
    const { train, status } = this.#parts;
    if (this.#worker) return;
    train.disabled = true;
    status.textContent = 'Training in a Worker…';
    this.#worker = sentimentWorker();
    this.#worker.onmessage = async ({ data }) => {
      if (data.type === 'progress') {
        status.textContent = `step ${data.step}: loss ${formatNumber(data.loss, 3)} nats, held-out accuracy ${formatNumber(100 * data.accuracy, 1)}%`;
      } else if (data.type === 'done') {
        try {
          this.#use(await getApi(), data.weights, `trained here in ${formatNumber(data.seconds, 1)} s, ${formatNumber(100 * data.accuracy, 1)}% right on held-out sentences`);
          status.textContent = `Done: trained in ${formatNumber(data.seconds, 1)} s.`;
          this.dispatchEvent(new CustomEvent('trained', { bubbles: true, composed: true, detail: { seconds: data.seconds, accuracy: data.accuracy } }));
        } catch (error) {
          status.textContent = error.message;  // the previous model stays
        }
        this.#finish();
      } else if (data.type === 'error') {
        status.textContent = data.message;
        this.#finish();
      }
    };
    this.#worker.postMessage({ type: 'train', steps: 600 });
  }

  #finish() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#parts.train.disabled = false;
  }
}
