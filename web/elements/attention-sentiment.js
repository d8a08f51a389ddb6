// <attention-sentiment>: the course's application (seed 001: a review classifier) on the
// reader's own sentence, stage by stage: text → subword tokens → indices → vectors →
// attention layers → [CLS] → linear & softmax. The shipped classifier was trained on real
// review sentences (models/review-sentiment/, its README says what and how well);
// "Train from scratch" trains a new one in a Worker with the same recipe and swaps it in.
//
//   <attention-sentiment text="not bad at all"></attention-sentiment>
//
// Attributes: text; model (the URL of a classifier folder, or a Hugging Face Hub id: this
// package's format, any Hugging Face *ForSequenceClassification checkpoint TextClassifier.load
// reads, or a linear probe's folder; default the shipped one); encoder (the URL of an
// encoder's folder or a Hub id: "Train" then trains a linear probe on it, on the same review
// sentences); layer and head (indices from 0; default the last layer, head 0); eager (load at once
// rather than when the element nears the viewport).
// For a checkpoint the pipeline is its own: its tokenizer's tokens and ids (special tokens
// included), no vectors stage (its embedding rows are not read back), every head's [CLS] row
// of the chosen layer at a glance (a click on a head shows its full map), and its
// classification head's probabilities.
// The verdict gives the label, its probability and how sure that is in words (confidence.js);
// the examples the classifier shown gets wrong say so in the list and in the verdict.
// Events: `prediction` (detail: { text, label, probability, confidence, probabilities, tokens, attention }),
// `trained` (detail: { seconds, accuracy }).
import { moduleWorker } from './workers.js';
import { loadWhenNear, sameOrigin } from './print.js';
import { getApi, initCode } from './api.js';
import { jsLiteral, jsString, noInputCode } from './export.js';
import { AttentionElement, scrollRegion, colourLegend } from './base.js';
import { errorMessage } from './theme.js';
import { heatColour, formatNumber } from './format.js';
import { EXAMPLES, LABELS, reviewSplits } from './training/review-recipe.js';
import { confidenceWords, confidenceBand } from './confidence.js';
import { acquire, wasDisposed } from './model-cache.js';
import { modelSource, isHubId } from './model-url.js';
import { fetchFiles } from './shipped-model.js';
import { positionedLabels } from './model-views.js';
import { positionNote } from './token-positions.js';
import {
  CLS_NOTE,
  HEAD_CAPTIONS,
  HEAD_TITLES,
  MOST_ATTENDED,
  VERDICT_PATHS,
  describeClassifier,
  exampleName,
  percent,
  topIndices,
} from './sentiment-words.js';

const TAG = 'attention-sentiment';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
label.sentence { display: block; font-weight: 600; }
textarea { display: block; font: inherit; width: min(100%, 40rem); box-sizing: border-box; padding: 0.3rem 0.4rem; field-sizing: content; min-height: calc(1lh + 0.6rem + 2px); resize: vertical; }
@media print { textarea { resize: none; } }
textarea:focus-visible, button:focus-visible, select:focus-visible, .scroll:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.verdict { font-size: 1.15em; margin: 0.5rem 0; }
.note, .stage-note { font-size: 0.85em; opacity: 0.85; }
.scroll { overflow-x: auto; max-width: 100%; }
/* a map too wide for the page (a phone) scrolls sideways: its row names stay in view, and a
   dashed right edge (beside the hint line above) says that it goes on */
.scroll-hint:not([hidden]) + .scroll { border-right: 3px dashed currentColor; }
table.map th[scope=row] { position: sticky; left: 0; background: Canvas; z-index: 1; }
table { border-collapse: collapse; font-size: 0.85em; }
table.vectors tbody + tbody { border-top: 3px double currentColor; }
th, td { border: 1px solid var(--attn-border, var(--_cell-edge)); padding: 0.2rem 0.35rem; text-align: center; }
th[scope=row] { text-align: left; font-weight: 600; }
.unknown { text-decoration: underline dotted; }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.4rem 0; font-size: 0.9em; }
.controls > label { display: inline-flex; align-items: center; gap: 0.3em; max-width: 100%; min-width: 0; }
.controls select { min-width: 0; flex: 0 1 auto; }
button, select { font: inherit; max-width: 100%; }
ol.pipeline { list-style: none; padding-left: 0; }
ol.pipeline > li { margin: 0.6rem 0; }
ol.pipeline .stage-title { font-size: 1em; font-weight: 700; margin: 0 0 0.2rem; }
.chips { display: flex; flex-wrap: wrap; gap: 0.25rem; }
button.head { padding: 0 0.35rem; min-width: 1.8em; }
button.head[aria-pressed=true] { font-weight: 700; outline: 2px solid var(--_focus); }
.chip { border: 1px solid var(--attn-border, #8884); border-radius: 0.3rem; padding: 0 0.3rem; font-family: ui-monospace, monospace; }
.error { color: var(--_error); }`;

// The shipped classifier's files, each written out literally so that bundlers copy them (a
// folder URL is not an asset: Vite 8 with no config left it behind, and the element read
// the app's index.html as config.json).
const SHIPPED = {
  'config.json': new URL('./models/review-sentiment/config.json', import.meta.url),
  'tokenizer.json': new URL('./models/review-sentiment/tokenizer.json', import.meta.url),
  'model.safetensors': new URL('./models/review-sentiment/model.safetensors', import.meta.url),
};

// The review sentences the small model learns from (UCI, CC BY 4.0), for a linear probe.
const REVIEWS = {
  imdb: new URL('./models/review-sentiment/training/imdb_labelled.txt', import.meta.url),
  amazon: new URL('./models/review-sentiment/training/amazon_cells_labelled.txt', import.meta.url),
  yelp: new URL('./models/review-sentiment/training/yelp_labelled.txt', import.meta.url),
};

async function reviewFiles() {
  const entries = await Promise.all(
    Object.entries(REVIEWS).map(async ([name, url]) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`cannot fetch ${url} (HTTP ${response.status})`);
      return [name, await response.text()];
    }),
  );
  return Object.fromEntries(entries);
}

// A lease (model-cache.js) on the classifier at `url` (null: the shipped one): elements showing
// the same classifier share it, and it is freed when none shows it.
function leaseClassifier(url) {
  const load = (signal) =>
    getApi().then(async (attn) =>
      attn.TextClassifier.load(url ?? (await fetchFiles(SHIPPED, signal)), { fetchOptions: { signal } }),
    );
  const isDisposed = (classifier) => wasDisposed(classifier, (c) => c.predict(''));
  return acquire(`TextClassifier ${url ?? 'shipped'}`, load, { isDisposed });
}

// The Worker, written out literally so bundlers bundle it (workers.js: from another origin).
const reviewWorker = () =>
  moduleWorker(
    () => new Worker(new URL('./training/review-worker.js', import.meta.url), { type: 'module' }),
    './training/review-worker.js',
  );

// Whether `label` is wrong for an example labelled `gold` (only a classifier with the
// examples' labels can be: one with others is not marked).
// Labels compare without case (a checkpoint's are often 'NEGATIVE' and 'POSITIVE').
const sameLabel = (a, b) => a.toLowerCase() === b.toLowerCase();
const hasLabel = (classifier, gold) => classifier.labels.some((l) => sameLabel(l, gold));
const isMistake = (classifier, gold, label) =>
  gold !== undefined && hasLabel(classifier, gold) && !sameLabel(label, gold);

// A scrollRegion fit (view-parts.js) for the [CLS] table: the keys across where they fit,
// else the table turned (a row per key, a column per head), which a phone shows whole.
function turnFit(across, turned) {
  return (region, overflows) => {
    if (region.firstElementChild !== across) region.replaceChildren(across);
    if (overflows()) region.replaceChildren(turned);
  };
}

const make = (tag, props = {}, ...children) => {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
};

export class AttentionSentiment extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #classifier = null;
  #lease = null; // on the classifier shown
  #pendingLease = null; // on the classifier loading
  #generation = 0; // of the newest load: an older one that arrives later is not shown
  #info = '';
  #loading = null;
  #worker = null;
  #parts = null;
  #timer = 0;
  #last = null; // the last prediction: { text, classifier, p }
  #head = 0; // the head whose full map is shown (its button in the [CLS] table is pressed)
  #source = null; // where the classifier shown came from: 'shipped', a URL or Hub id, or null (trained here)
  #error = null; // why no classifier could be loaded, or null
  #shown = null; // the layer and head of the prediction shown: { l, h }
  #stopLoadWatch = () => {};

  connectedCallback() {
    super.connectedCallback();
    if (!this.#parts) this.#build();
    this.#holdAgain();
    // The classifier (about 1 MB gzipped) loads when the element nears the viewport, or
    // when the page prints; attribute `eager`: at once.
    this.#stopLoadWatch();
    const model = this.getAttribute('model');
    this.#stopLoadWatch = loadWhenNear(this, () => this.#load(), {
      idle: !model || (!isHubId(model) && sameOrigin(model)),
    });
  }

  // The classifier stays loaded for the cache's grace (a move re-adds the element at once),
  // then is freed unless another element shows it.
  disconnectedCallback() {
    super.disconnectedCallback();
    this.#stopLoadWatch();
    this.#worker?.terminate();
    this.#worker = null;
    this.#lease?.release();
    this.#pendingLease?.release();
  }

  // Back on the page: the classifiers held again, unless one was freed while the element was
  // away; then it starts over (the classifier loads again when the element nears the viewport).
  #holdAgain() {
    const kept = [this.#lease, this.#pendingLease].map((lease) => !lease || lease.renew());
    if (kept.every(Boolean)) return;
    this.#lease?.release();
    this.#pendingLease?.release();
    this.#lease = this.#pendingLease = this.#classifier = this.#loading = null;
    this.#generation++;
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#parts || old === value) return;
    if (name === 'model') this.#load(true);
    else if (name === 'encoder') this.#labelTrain();
    else if (name === 'text') {
      this.#parts.input.value = value ?? '';
      this.#predict();
    } else {
      this.#syncSelects();
      this.#predict();
    }
  }

  /** The last prediction, or null. */
  prediction = null;

  /** The classifier in use (attn.TextClassifier), or null before it loads. */
  get classifier() {
    return this.#classifier;
  }

  /**
   * The prediction shown as JSON: the text, the classifier, the layer and head shown, the
   * tokens, the [CLS] query's attention rows of that layer (rows[head][key]), the logits, the
   * calibration temperature T and the probabilities softmax(logit / T), and the label.
   */
  toJSON() {
    const last = this.#last;
    if (!this.prediction || !this.#shown || !last || last.classifier !== this.#classifier)
      return { element: TAG, error: String(this.#error?.message ?? 'no prediction yet') };
    const { text, p } = last;
    const { l, h } = this.#shown;
    const classifier = this.#classifier;
    return {
      element: TAG,
      text,
      classifier: {
        source: this.#source ?? 'trained on this page',
        format: classifier.format,
        description: describeClassifier(classifier),
        labels: classifier.labels.slice(),
      },
      layer: l,
      head: h,
      tokens: p.tokens.map((t) => ({ text: t.text, id: t.id, start: t.start, end: t.end })),
      clsAttention: p.attention[l].map((rows) => Array.from(rows[0])), // [head][key]
      logits: Array.from(p.logits),
      temperature: classifier.temperature ?? 1,
      probabilities: Array.from(p.probabilities),
      label: p.label,
    };
  }

  /** JavaScript that loads the same classifier and predicts the same sentence with the public API. */
  toCode() {
    const json = this.toJSON();
    if (json.error) return noInputCode(TAG, this.#error ?? new Error(json.error));
    if (this.#source === null)
      return noInputCode(
        TAG,
        new Error('the classifier was trained on this page; save its files with classifier.toFiles() to load it again'),
      );
    const load =
      this.#source === 'shipped'
        ? `// The shipped review classifier (a URL prefix, Files or toFiles() output work alike).
const folder = new URL('web/elements/models/review-sentiment/', import.meta.resolve('attention-wasm/package.json'));
const classifier = await attn.TextClassifier.load(folder);`
        : `const classifier = await attn.TextClassifier.load(${jsString(this.#source)});`;
    return `import { init } from 'attention-wasm';

${initCode()}
${load}
const p = classifier.predict(${jsString(json.text)});
// probabilities = softmax(logits / T), T = classifier.temperature (${jsLiteral(json.temperature)})
console.log(p.label, JSON.stringify(Array.from(p.probabilities)));
`;
  }

  #build() {
    const root = this.shadowRoot;
    // A text area that grows with the sentence (field-sizing), so that a long review is shown
    // whole at any width (a one-line field cut it at 390 px); Enter does not break the line.
    const input = make('textarea', { rows: 1, value: this.getAttribute('text') ?? 'not bad at all' });
    input.setAttribute('part', 'input');
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') e.preventDefault();
    });
    input.addEventListener('input', () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#predict(), 80);
    });
    const label = make('label', { className: 'sentence' }, 'Review sentence ', input);
    const examples = make('select');
    examples.append(
      new Option('Examples…', ''),
      ...EXAMPLES.map((example, i) => new Option(exampleName(example, i, false), String(i))),
    );
    // The chosen example stays selected (arrow keys step through the list, each one shown)
    // until the reader types.
    examples.addEventListener('change', () => {
      if (examples.value === '') return;
      input.value = EXAMPLES[Number(examples.value)][1];
      this.#predict();
    });
    input.addEventListener('input', () => {
      examples.value = '';
    });
    const verdict = make('p', { className: 'verdict' });
    verdict.setAttribute('aria-live', 'polite');
    const layer = make('select');
    layer.addEventListener('change', () => this.#predict());
    const train = make('button', { type: 'button', className: 'print-hide' }); // nothing to press on paper
    train.addEventListener('click', () => (this.getAttribute('encoder') ? this.#trainProbe() : this.#train()));
    const status = make('span');
    status.setAttribute('role', 'status');
    const controls = make(
      'div',
      { className: 'controls' },
      make('label', { className: 'print-hide' }, 'Examples ', examples), // a menu to pick from: not on paper
      make('label', {}, 'Layer ', layer),
      train,
      status,
    );
    const pipeline = make('ol', { className: 'pipeline' });
    const note = make('p', { className: 'note' });
    root.append(this.exportBar(), label, controls, verdict, pipeline, note);
    this.#parts = { input, verdict, layer, train, status, pipeline, note, examples };
    this.#labelTrain();
  }

  // Loads the classifier attribute `model` names (without it, the shipped one). The shown
  // one stays until it arrives; a newer load makes this one stale: never shown, let go.
  #load(reload = false) {
    if (this.#loading && !reload) return this.#loading;
    const generation = ++this.#generation;
    const previous = this.#pendingLease;
    const url = this.getAttribute('model');
    let lease = null;
    try {
      lease = leaseClassifier(url === null ? null : modelSource(TAG, 'model', url));
    } catch (error) {
      this.#error = error;
      this.#parts.pipeline.replaceChildren(errorMessage(error));
    }
    this.#pendingLease = lease;
    previous?.release(); // after the new lease: a model flipped back to within the grace is reused
    this.#loading = (async () => {
      if (!lease) return;
      try {
        const classifier = await lease.promise;
        if (generation !== this.#generation) return;
        this.#pendingLease = null;
        this.#use(
          classifier,
          url ? 'loaded classifier' : 'shipped classifier',
          lease,
          url ? modelSource(TAG, 'model', url) : 'shipped',
        );
      } catch (error) {
        if (generation !== this.#generation) return;
        this.#pendingLease = null;
        lease.release();
        this.#error = new Error(`${TAG}: the classifier could not be loaded: ${error.message}`, { cause: error });
        this.#parts.pipeline.replaceChildren(errorMessage(this.#error));
      }
    })();
    return this.#loading;
  }

  // Shows `classifier`, held by `lease`; the one shown before is let go. source: where it came
  // from ('shipped', a URL or a Hub id; null: trained here), for toCode().
  #use(classifier, info, lease, source = null) {
    this.#source = source;
    this.#error = null;
    const old = this.#lease;
    this.#lease = lease;
    old?.release();
    this.#classifier = classifier;
    this.#info = info;
    const { layer, note } = this.#parts;
    const c = classifier.modelConfig;
    // Layers and heads count from 0, as prediction.attention[layer][head] does.
    layer.replaceChildren(...Array.from({ length: c.numLayers }, (_, l) => new Option(String(l), String(l))));
    this.#syncSelects();
    note.replaceChildren(describeClassifier(classifier));
    this.#markMistakes(classifier);
    this.#predict();
  }

  // The examples `classifier` labels wrong, marked in the list (by the classifier shown: a
  // model trained here may get others wrong).
  #markMistakes(classifier) {
    const options = [...this.#parts.examples.options].slice(1);
    const comparable = EXAMPLES.every(([gold]) => hasLabel(classifier, gold));
    EXAMPLES.forEach((example, i) => {
      options[i].textContent = exampleName(
        example,
        i,
        comparable && isMistake(classifier, example[0], classifier.predict(example[1]).label),
      );
    });
  }

  #syncSelects() {
    const { layer } = this.#parts;
    const c = this.#classifier?.modelConfig;
    if (!c) return;
    // layer and head: indices from 0, as in attentions[layer][head] (absent or blank: fallback)
    const pick = (name, count, fallback) => {
      const text = this.getAttribute(name)?.trim();
      const n = text ? Number(text) : NaN;
      return String(Number.isInteger(n) && n >= 0 && n < count ? n : fallback);
    };
    layer.value = pick('layer', c.numLayers, c.numLayers - 1);
    this.#head = Number(pick('head', c.numHeads, 0));
  }

  #predict() {
    if (!this.#classifier) return;
    const { input, verdict, layer, pipeline } = this.#parts;
    const text = input.value;
    if (text.trim() === '') {
      verdict.textContent = 'Type a review sentence.';
      pipeline.replaceChildren();
      this.prediction = null;
      this.#shown = null;
      return;
    }
    // A layer or head picked shows the same prediction again: the model does not run twice.
    const same = this.#last?.text === text && this.#last.classifier === this.#classifier;
    const p = same ? this.#last.p : this.#classifier.predict(text);
    this.#last = { text, classifier: this.#classifier, p };
    const probability = p.probabilities[p.labelId];
    const confidence = confidenceWords(probability);
    const gold = EXAMPLES.find(([, t]) => t === text)?.[0];
    const mistake = isMistake(this.#classifier, gold, p.label)
      ? ` The model gets this wrong: the sentence is ${gold}.`
      : '';
    verdict.replaceChildren(
      'Prediction: ',
      make('strong', { textContent: p.label }),
      ` (p = ${formatNumber(probability, 3)}, ${confidenceBand(probability)}; ${this.#info})${mistake}`,
    );
    const l = Number(layer.value || 0),
      h = Math.min(this.#head, this.#classifier.modelConfig.numHeads - 1);
    pipeline.replaceChildren(...this.#stages(text, p, l, h));
    this.#shown = { l, h };
    this.prediction = {
      text,
      label: p.label,
      probability,
      confidence,
      probabilities: p.probabilities,
      tokens: p.tokens,
      attention: p.attention,
      truncated: p.truncated,
    };
    this.dispatchEvent(new CustomEvent('prediction', { bubbles: true, composed: true, detail: this.prediction }));
  }

  #stages(text, p, l, h) {
    const classifier = this.#classifier;
    const c = classifier.modelConfig;
    // This package's format shows its tokens after the learned [CLS] row; a checkpoint's
    // tokenizer gives its special tokens ([CLS] … [SEP]) among the tokens.
    const own = classifier.format === 'attention-wasm';
    const tokens = own ? p.tokens.slice(1) : p.tokens;
    // Each stage a list item titled in bold (not a heading: the page's outline is the page's).
    const stage = (title, ...content) =>
      make('li', {}, make('div', { className: 'stage-title', textContent: title }), ...content);
    const chips = (items) =>
      make(
        'div',
        { className: 'chips' },
        ...items.map(([t, title, unknown]) =>
          make('span', { className: `chip${unknown ? ' unknown' : ''}`, textContent: t, title }),
        ),
      );
    const unk = (t) => t.text === '[UNK]' || t.text === '<unk>';
    // The tables' row and column names: a repeated token with its position ("was·4").
    const texts = p.tokens.map((t) => t.text);
    const names = positionedLabels(texts);
    // One colour scale for the layer's tables: 0 to its largest weight (a fixed 0-1 scale drew
    // weights of at most 0.14 all dark).
    const top = Math.max(...p.attention[l].flatMap((rows) => rows.flatMap((row) => Array.from(row))));
    return [
      stage('1. Text', make('p', { textContent: text })),
      stage(
        `2. Subword tokens (${tokens.length}${own ? ' after [CLS]' : ''}${p.truncated ? `, cut at ${classifier.maxLength}` : ''})`,
        chips(
          p.tokens.map((t, i) => [
            t.text,
            own && i === 0
              ? CLS_NOTE
              : unk(t)
                ? 'not in the vocabulary: read as [UNK], which carries no sentiment'
                : t.start >= 0
                  ? `“${text.slice(t.start, t.end)}”, characters ${t.start}–${t.end}`
                  : 'a special token the tokenizer adds',
            unk(t),
          ]),
        ),
        // (what the chips' tooltips say, on the page too: a print has no tooltips)
        ...(p.tokens.some(unk)
          ? [
              make('p', {
                className: 'stage-note',
                textContent: `${p.tokens.find(unk).text} (dotted underline): a word not in the vocabulary, which carries no sentiment.`,
              }),
            ]
          : []),
      ),
      stage(
        '3. Indices',
        chips(p.tokens.map((t, i) => [`${own && i === 0 ? '[CLS] ' : ''}${t.id}`, own && i === 0 ? CLS_NOTE : t.text])),
        ...(own
          ? [
              make('p', {
                className: 'stage-note',
                textContent: `Each token's index in the vocabulary. “[CLS] ${p.tokens[0].id}”: the [CLS] token, index ${p.tokens[0].id}, ${CLS_NOTE}.`,
              }),
            ]
          : []),
      ),
      stage(
        '4. Vectors',
        own
          ? scrollRegion('Token vectors', this.#vectorTable(tokens, names))
          : make('p', {
              className: 'stage-note',
              textContent: `Each index picks a row of the ${classifier.vocabSize.toLocaleString('en-US')} × ${c.dModel} embedding table, and position vectors are added. This checkpoint's rows are not read back here (only this package's own classifiers show them).`,
            }),
      ),
      stage(
        `5. Attention in layer ${l} (layers 0 to ${c.numLayers - 1})`,
        make('p', {
          className: 'stage-note',
          textContent: 'Layers, heads and token positions count from 0, as in prediction.attention[layer][head].',
        }),
        // One legend before both tables, for both (round 5: under the second only, the first
        // table's 0.30 read as a fraction of 1).
        colourLegend({
          kind: 'sequential',
          min: 0,
          max: top,
          title: `both tables below: cell shade = attention weight, on a scale from 0 to ${formatNumber(top, 2)} (the largest weight in layer ${l}), not 0 to 1`,
        }),
        this.#clsRegion(p, names, l, h, top),
        make('p', {
          className: 'stage-note print-hide', // nothing to press on paper
          textContent: "Press or tap a head's number to show its full map.",
        }),
        this.#mostAttended(p, names, l),
        scrollRegion(`Attention matrix of head ${h} in layer ${l}`, this.#matrix(p, names, l, h, top)),
        ...(positionNote(texts) ? [make('p', { className: 'stage-note', textContent: positionNote(texts) })] : []),
      ),
      stage(
        HEAD_TITLES[classifier.format],
        make('p', { className: 'stage-note', textContent: VERDICT_PATHS[classifier.format](c) }),
        scrollRegion('Logits and probabilities', this.#softmaxTable(p)),
      ),
    ];
  }

  // The [CLS] vector and the token rows of this package's format (first numbers of each);
  // names: [CLS]'s and the tokens' row names, in order.
  #vectorTable(tokens, names) {
    const classifier = this.#classifier;
    const d = classifier.modelConfig.dModel;
    const { cls, tokens: vectors } = classifier.vectors(tokens.map((t) => t.id));
    const shown = 4;
    const table = make('table', { className: 'vectors' });
    table.createCaption().textContent = `The first row: the classifier's own learned [CLS] vector (not a row of the embedding table). The others: the row each token's index picks of the ${classifier.vocabSize.toLocaleString('en-US')} × ${d} embedding table. First ${shown} of ${d} numbers each; a learned position vector is added to every row next.`;
    const head = table.createTHead().insertRow();
    head.append(
      make('th', { scope: 'col', textContent: 'token' }),
      ...Array.from({ length: shown }, (_, k) => make('th', { scope: 'col', textContent: `v${k}` })),
    );
    // [CLS]'s own vector in a body of its own (ruled off from the table's rows).
    const row = (body, name, v) => {
      const tr = body.insertRow();
      tr.append(make('th', { scope: 'row', textContent: name }));
      for (let k = 0; k < shown; k++) tr.insertCell().textContent = formatNumber(v[k], 3);
    };
    row(table.createTBody(), `${names[0]} (own vector)`, cls);
    const rows = table.createTBody();
    vectors.forEach((v, i) => row(rows, names[i + 1], v));
    return table;
  }

  // Logits → probabilities, with the calibration step when there is one: probabilities are
  // softmax(logit / T), T the classifier's calibration temperature (config.json), so a reader
  // who computes the softmax of the column beside them gets the probabilities shown.
  #softmaxTable(p) {
    const T = this.#classifier.temperature ?? 1;
    // (A multi-label classifier's sigmoids, which do not sum to 1, take no temperature.)
    const total = Array.from(p.probabilities).reduce((a, b) => a + b, 0);
    const calibrated = T !== 1 && Math.abs(total - 1) < 1e-4;
    const table = make('table');
    table.createCaption().textContent = calibrated
      ? `${HEAD_CAPTIONS[this.#classifier.format]}. Calibration: the logits are divided by the temperature T = ${formatNumber(T, 3)} before the softmax, so the probabilities are softmax(logit / T). T is stored with the classifier: a calibration fitted after training, so that its probabilities match how often it is right (of the sentences it gives 0.8, about 80% are right).`
      : HEAD_CAPTIONS[this.#classifier.format];
    const head = table.createTHead().insertRow();
    head.append(
      make('th', { scope: 'col', textContent: 'label' }),
      make('th', { scope: 'col', textContent: 'logit' }),
      ...(calibrated ? [make('th', { scope: 'col', textContent: `logit ÷ T (T = ${formatNumber(T, 3)})` })] : []),
      make('th', { scope: 'col', textContent: calibrated ? 'probability = softmax(logit ÷ T)' : 'probability' }),
    );
    const body = table.createTBody();
    this.#classifier.labels.forEach((name, k) => {
      const tr = body.insertRow();
      tr.append(make('th', { scope: 'row', textContent: name }));
      tr.insertCell().textContent = formatNumber(p.logits[k], 3);
      if (calibrated) tr.insertCell().textContent = formatNumber(p.logits[k] / T, 3);
      tr.insertCell().textContent = formatNumber(p.probabilities[k], 4);
    });
    return table;
  }

  // What [CLS] attends to in layer l: a row per head, a column per key ("head ↓ key →", as
  // the explainer's tables), turned (a row per key) where the page is too narrow for the keys.
  #clsRegion(p, names, l, shown, top) {
    const across = this.#clsTable(p, names, l, shown, top, false);
    const region = scrollRegion(`What the [CLS] query attends to in layer ${l}`, across, {
      fit: turnFit(across, this.#clsTable(p, names, l, shown, top, true)),
    });
    return region;
  }

  // The [CLS] row's weights of every head of layer l; cells [head][key]: rows the heads,
  // columns the keys, or `turned`: rows the keys, columns the heads (its caption then only its
  // aria-label: the region's caption line, made from the other, is shared). A head's header is a
  // button: pressed, that head's full map is shown below.
  #clsTable(p, names, l, shown, top, turned) {
    const table = make('table', { className: 'map' });
    table.dataset.orient = turned ? 'keys-as-rows' : 'keys-as-columns';
    const caption = `What the [CLS] query (row 0 of each head's map) attends to in layer ${l}: a cell is one head's weight on one key, every head at a glance; the head outlined is the one whose full map is below`;
    if (turned) table.setAttribute('aria-label', caption);
    else table.createCaption().textContent = caption;
    const heads = p.attention[l];
    const pick = (h) => {
      const button = make('button', { type: 'button', className: 'head', textContent: String(h) });
      button.setAttribute('aria-pressed', String(h === shown));
      button.setAttribute('aria-label', `Head ${h}: show its full map`);
      button.addEventListener('click', () => {
        this.#head = h;
        this.#predict();
        // The table was drawn again: the keyboard stays on the head pressed.
        this.shadowRoot.querySelectorAll('button.head')[h]?.focus();
      });
      return button;
    };
    const head = table.createTHead().insertRow();
    const body = table.createTBody();
    if (turned) {
      head.append(
        make('th', { scope: 'col', textContent: 'key ↓ head →' }),
        ...heads.map((_, h) => make('th', { scope: 'col' }, pick(h))),
      );
      names.forEach((name, j) => {
        const tr = body.insertRow();
        tr.append(make('th', { scope: 'row', textContent: name }));
        heads.forEach((rows) => this.#cell(tr, rows[0][j], top));
      });
      return table;
    }
    head.append(
      make('th', { scope: 'col', textContent: 'head ↓ key →' }),
      ...names.map((n) => make('th', { scope: 'col', textContent: n })),
    );
    heads.forEach((rows, h) => {
      const tr = body.insertRow();
      tr.append(make('th', { scope: 'row' }, pick(h)));
      rows[0].forEach((w) => this.#cell(tr, w, top));
    });
    return table;
  }

  // The words [CLS] attends to most in layer l (the mean over its heads), in a line a narrow
  // page shows whole, under the table that scrolls sideways.
  #mostAttended(p, names, l) {
    const heads = p.attention[l];
    const mean = names.map((_, j) => heads.reduce((sum, rows) => sum + rows[0][j], 0) / heads.length);
    const top = topIndices(mean, MOST_ATTENDED);
    return make('p', {
      className: 'stage-note most-attended',
      textContent: `Most attended by [CLS] in layer ${l} (mean of its ${heads.length} heads): ${top.map((j) => `${names[j]} ${formatNumber(mean[j], 2)}`).join(', ')}.`,
    });
  }

  // Every row of one head: row i is token i's softmax over all tokens.
  #matrix(p, names, l, h, top) {
    const table = make('table', { className: 'map' });
    table.createCaption().textContent = `Head ${h} of layer ${l}: every token's attention over all tokens (each row sums to 1)`;
    const head = table.createTHead().insertRow();
    head.append(
      make('th', { scope: 'col', textContent: 'query ↓ key →' }),
      ...names.map((n) => make('th', { scope: 'col', textContent: n })),
    );
    const body = table.createTBody();
    p.attention[l][h].forEach((row, i) => {
      const tr = body.insertRow();
      tr.append(make('th', { scope: 'row', textContent: names[i] }));
      row.forEach((w) => this.#cell(tr, w, top));
    });
    return table;
  }

  // A weight's cell, shaded on the scale 0 … top.
  #cell(tr, w, top) {
    const td = tr.insertCell();
    td.textContent = formatNumber(w, 2);
    td.title = String(w);
    const colour = heatColour(w, 'sequential', { min: 0, max: top });
    td.style.background = colour.background;
    td.style.color = colour.color;
  }

  // "Train" trains the small model from scratch, or, with attribute `encoder`, a linear probe on it.
  #labelTrain() {
    if (!this.#parts) return;
    this.#parts.train.textContent = this.getAttribute('encoder') ? 'Train a linear probe' : 'Train from scratch';
  }

  // A linear probe on the encoder attribute names (a folder URL or a Hub id), trained here on
  // the review sentences the small model learns from (the page's thread: the encoder runs a
  // batch at a time, and the page stays live between batches). The probe shown loads its own
  // encoder back from the files (by the same source; a URL comes from the browser's cache), so
  // that freeing the probe frees it; the one trained with is freed at once.
  async #trainProbe() {
    const { train, status } = this.#parts;
    if (train.disabled) return;
    train.disabled = true;
    let encoder = null;
    try {
      const source = modelSource(TAG, 'encoder', this.getAttribute('encoder'));
      const attn = await getApi();
      status.textContent = 'Loading the encoder…';
      encoder = await attn.loadModel(source);
      const { train: rows, heldOut } = reviewSplits(await reviewFiles());
      let accuracy = NaN;
      const started = performance.now();
      const trained = await attn.TextClassifier.train(rows, {
        encoder,
        labels: LABELS.slice(),
        validation: Object.values(heldOut).flat(),
        onProgress: (p) => {
          if (p.stage === 'embedding')
            status.textContent = `Embedding ${p.part === 'train' ? 'the training' : 'the held-out'} sentences: ${p.embedded} of ${p.total}`;
          else {
            accuracy = p.accuracy;
            status.textContent = `epoch ${p.epoch} of ${p.epochs}: loss ${formatNumber(p.loss, 3)} nats, held-out accuracy ${percent(p.accuracy)}`;
          }
        },
      });
      const seconds = (performance.now() - started) / 1000;
      const files = trained.toFiles();
      trained.dispose();
      const probe = await attn.TextClassifier.load(files);
      this.#generation++;
      this.#pendingLease?.release();
      this.#pendingLease = null;
      this.#use(
        probe,
        `a linear probe trained here in ${formatNumber(seconds, 1)} s, ${percent(accuracy)} right on held-out sentences`,
        acquire(null, async () => probe),
      );
      status.textContent = `Done: a linear probe trained in ${formatNumber(seconds, 1)} s.`;
      this.dispatchEvent(new CustomEvent('trained', { bubbles: true, composed: true, detail: { seconds, accuracy } }));
    } catch (error) {
      status.textContent = error.message; // the classifier shown stays
    } finally {
      encoder?.dispose();
      train.disabled = false;
    }
  }

  #train() {
    const { train, status } = this.#parts;
    if (this.#worker) return;
    train.disabled = true;
    status.textContent = 'Training in a Worker…';
    this.#worker = reviewWorker();
    this.#worker.onmessage = async ({ data }) => {
      if (data.type === 'progress') {
        status.textContent = `step ${data.step} of ${data.steps}: loss ${formatNumber(data.loss, 3)} nats, held-out accuracy ${percent(data.accuracy)} (${formatNumber(data.seconds, 0)} s)`;
      } else if (data.type === 'done') {
        try {
          const attn = await getApi();
          const classifier = await attn.TextClassifier.load(data.files);
          // The newest classifier: one still loading from a URL is not shown over it.
          this.#generation++;
          this.#pendingLease?.release();
          this.#pendingLease = null;
          // The element's own: not shared, freed as the cache frees the others.
          this.#use(
            classifier,
            `trained here in ${formatNumber(data.seconds, 1)} s, ${percent(data.accuracy)} right on held-out sentences`,
            acquire(null, async () => classifier),
          );
          status.textContent = `Done: trained in ${formatNumber(data.seconds, 1)} s.`;
          this.dispatchEvent(
            new CustomEvent('trained', {
              bubbles: true,
              composed: true,
              detail: { seconds: data.seconds, accuracy: data.accuracy },
            }),
          );
        } catch (error) {
          status.textContent = error.message; // the previous classifier stays
        }
        this.#finish();
      } else if (data.type === 'error') {
        status.textContent = data.message;
        this.#finish();
      }
    };
    this.#worker.postMessage({ type: 'train' });
  }

  #finish() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#parts.train.disabled = false;
  }
}
