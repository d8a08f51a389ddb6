// The shell of the elements that show a pretrained model on the reader's text
// (<attention-model>, <attention-explainer>): everything but the view.
//   - the source: the src attribute (modelSource(); a subclass may default it), checked before
//     anything loads (a folder's http(s) URL, the shipped 'tiny-gpt2', and with
//     `static hubIds` a Hub id);
//   - the load: when the element nears the viewport, prints, or at once with `eager`
//     (print.js); a lease on the model shared with other elements showing the same source
//     (model-text.js), kept for the cache's grace when the element is moved, let go when a
//     newer load or a model handed over by page code replaces it;
//   - `modelload` and `loadprogress` events, the load's progress and failure for the view;
//   - one forward per frame (compute(model)) on a new model, text or other forward attribute,
//     its output (announced by computed(output)) or its error kept for render().
//
//   class AttentionModel extends ModelElement {
//     static tag = 'attention-model';
//     compute(model) { return model.forward(this.text, ...); }   // or null: nothing to show
//     render() { ... this.model, this.output, this.runError, this.loadProgress ... }
//   }
import { AttentionElement } from './base.js';
import { keepFocus } from './focus.js';
import { LIMITS } from './limits.js';
import { SHIPPED_NAME, isShippedModel } from './shipped-model.js';
import { oncePerFrame, leaseModel } from './model-text.js';
import { loadWhenNear, sameOrigin } from './print.js';
import { modelSource as hubIdOrUrl, modelUrl, isHubId } from './model-url.js';

export class ModelElement extends AttentionElement {
  /** Whether src may be a Hugging Face Hub id (else a folder's URL or the shipped model). */
  static hubIds = false;
  /** Attributes whose change runs the forward again (others call attributeChanged). */
  static forwardAttributes = ['text'];

  #model = null;
  #lease = null; // on the model shown or loading, unless page code handed the model over
  #started = false; // whether a load has been started (loads wait for the viewport)
  #output = null; // what compute() returned for the model and text shown
  #error = null; // why the last load or forward failed
  #loadFailed = false; // the error is a failed load: the view says what to try
  #progress = null; // while loading: the last progress ({ file, loaded, total, stage })
  #generation = 0; // a newer load makes an older one stale
  #stopLoadWatch = () => {};

  constructor() {
    super();
    // Every redraw (the base's and the subclass's own calls) keeps the focused control.
    const render = this.render.bind(this);
    this.render = () => keepFocus(this.shadowRoot, render);
  }

  connectedCallback() {
    super.connectedCallback();
    // Back within the grace: the same model (or its load) again. Later: it was freed, load anew.
    if (this.#lease && !this.#lease.renew()) this.#forgetModel();
    if (this.#model) return this.scheduleForward();
    const source = this.modelSource();
    if (source === null) return this.render();
    // A checkpoint is downloaded when the element nears the viewport (or prints), unless
    // `eager`: a page of many models does not fetch them all up front. A source on the page's
    // own origin also loads once the page is idle (print and full-page screenshots).
    this.#stopLoadWatch();
    this.#stopLoadWatch = loadWhenNear(
      this,
      () => {
        if (!this.#started) this.#loadFrom(this.modelSource());
      },
      { idle: !(this.constructor.hubIds && isHubId(source)) && sameOrigin(source) },
    );
    this.render(); // says that it waits
  }

  // The model stays loaded for the cache's grace (a move re-adds the element at once), then
  // is freed unless another element shows it.
  disconnectedCallback() {
    super.disconnectedCallback();
    this.#stopLoadWatch();
    this.#lease?.release();
  }

  attributeChangedCallback(name, old, value) {
    if (!this.isConnected || old === value) return;
    if (name === 'src' && (this.#started || this.hasAttribute('eager'))) this.#loadFrom(this.modelSource());
    else if (this.constructor.forwardAttributes.includes(name)) this.scheduleForward();
    else this.attributeChanged(name);
  }

  /** A subclass's answer to a changed attribute that is not src or a forward attribute. */
  attributeChanged() {
    this.render();
  }

  /** The model shown (a PretrainedModel), or null while none is loaded. */
  get model() {
    return this.#model;
  }
  /**
   * A model from attn.loadModel (page code keeps owning it: the element never frees it), or a
   * source loadModel takes (Files, a Map or object of file names to bytes, a URL): the
   * element loads it.
   */
  set model(value) {
    if (value && typeof value.forward === 'function' && typeof value.tokenize === 'function') {
      this.#generation++;
      this.#started = true;
      this.#lease?.release();
      this.#lease = null;
      this.#take(value);
    } else {
      this.#loadFrom(value, 'model');
    }
  }

  /** The text the model reads. */
  get text() {
    return this.attributeReader().get('text');
  }
  set text(value) {
    this.setAttribute('text', String(value));
  }

  /** Why the last load or forward failed, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  /** The source the element loads: the src attribute (null: none, until .model is set). */
  modelSource() {
    return this.getAttribute('src');
  }

  /** What the last forward computed (compute's value), or null. */
  get output() {
    return this.#output;
  }
  /** Why the last load or forward failed (null when neither did). */
  get runError() {
    return this.#error;
  }
  /** Whether the error is a failed load (the view then says what to try). */
  get loadFailed() {
    return this.#loadFailed;
  }
  /** Whether a load has started (or a model was handed over). */
  get loadStarted() {
    return this.#started;
  }
  /** While a model loads: its last progress { file, loaded, total, stage }; else null. */
  get loadProgress() {
    return this.#progress;
  }

  /**
   * The field of the text the model reads: a change sets the text attribute (after
   * `beforeChange()`, e.g. dropping a choice that depended on the old text). A text past the
   * limit is refused by the forward; the field holds its start only (laying out a megabyte in
   * a text field took 200-400 ms), and typing stops at the limit.
   */
  textField(beforeChange = () => {}) {
    const input = document.createElement('input');
    input.type = 'text';
    input.maxLength = LIMITS.model.chars;
    input.value = this.text.slice(0, LIMITS.model.chars);
    input.setAttribute('aria-label', 'text the model reads');
    input.addEventListener('change', () => {
      beforeChange();
      this.text = input.value;
    });
    return input;
  }

  /**
   * A menu that sets the attribute `attribute` (layer, head, query ...: an index from 0, or
   * from `first`: stage="1" is the first stage): `count` options named '<label> n', or by
   * `names` as they are ('layer 2 · window 512'; a token by its positionedLabels name, 'at·9',
   * as every view names it); `current` (0-based) selected; `changed()` runs after the
   * attribute is set.
   */
  attributeMenu(
    attribute,
    count,
    { label = attribute, names = null, current = 0, first = 0, changed = () => {} } = {},
  ) {
    const select = document.createElement('select');
    select.setAttribute('aria-label', label);
    for (let i = 0; i < count; i++) {
      const option = document.createElement('option');
      option.value = String(i + first);
      option.textContent = names ? names[i] : `${label} ${i}`; // counted from 0, as the views count
      option.selected = i === current;
      select.append(option);
    }
    select.addEventListener('change', () => {
      this.setAttribute(attribute, select.value);
      changed();
    });
    return select;
  }

  /** The model's name as the elements show it (the shipped one's says its weights are random). */
  modelName() {
    const m = this.#model;
    return isShippedModel(m) ? SHIPPED_NAME : (m.config._name_or_path ?? m.modelType);
  }

  /**
   * The first bad attribute value: layer and head read with the bounds of the model shown,
   * `position` (the attribute naming a token: query, token) with the text's `count` tokens,
   * then every attribute present; null when all are good.
   */
  boundedAttributeError(position, count) {
    const attributes = this.attributeReader();
    const d = this.#model?.descriptor;
    if (d) {
      attributes.get('layer', d.numLayers - 1);
      attributes.get('head', d.numHeads - 1);
      if (count) attributes.get(position, count - 1);
    }
    return attributes.checkAll().error;
  }

  /** A subclass's view: called whenever the model, its output, an error or the load changes. */
  render() {}
  /** A subclass's progress line: called on each progress event while loading. */
  progressChanged() {}
  /** A subclass's forward: what the view shows for `model` and the text (null: nothing). */
  compute() {
    return null;
  }

  /** Called with compute's value once it is the element's output (a subclass's event). */
  computed() {}

  /** Runs compute() in the next frame (once, however often this is called before). */
  scheduleForward = oncePerFrame(() => this.#forward());

  // A load from `source` (the src attribute, or what was given to .model). A newer load
  // makes this one stale: its model is never shown, and its lease is let go at once.
  async #loadFrom(source, name = 'src') {
    const generation = ++this.#generation;
    const previous = this.#lease;
    this.#lease = null;
    this.#started = true;
    this.#model = null;
    this.#output = null;
    this.#error = null;
    this.#loadFailed = false;
    this.#progress = null;
    const onProgress = (p) => {
      if (generation !== this.#generation) return;
      this.#progress = p;
      this.dispatchEvent(new CustomEvent('loadprogress', { bubbles: true, composed: true, detail: p }));
      this.progressChanged();
    };
    try {
      if (source != null && source !== '') {
        this.#lease = leaseModel(this.#checked(source, name), onProgress);
        this.#progress = { file: 'config.json', loaded: 0, total: null };
      }
    } catch (error) {
      this.#error = error;
    }
    // The old model is let go once the new load holds its own lease: src flipping back to
    // the old one within the cache's grace gets the same model without a second load.
    previous?.release();
    this.render();
    const lease = this.#lease;
    if (!lease) return;
    try {
      const model = await lease.promise;
      if (generation === this.#generation) this.#take(model);
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#progress = null;
      this.#error = error;
      this.#loadFailed = true;
      this.render();
    }
  }

  // A source as loadModel takes it: a string or URL checked by name (modelUrl, or modelSource
  // where Hub ids are allowed); Files or a Map as they are.
  #checked(source, name) {
    if (typeof source !== 'string' && !(source instanceof URL)) return source;
    const check = this.constructor.hubIds ? hubIdOrUrl : modelUrl;
    return check(this.constructor.tag, name, String(source));
  }

  // The element's model was freed while it was off the page: it loads again when back.
  #forgetModel() {
    this.#generation++;
    this.#lease = null;
    this.#started = false;
    this.#model = null;
    this.#output = null;
    this.#progress = null;
  }

  #take(model) {
    this.#model = model;
    this.#progress = null;
    this.#error = null;
    this.dispatchEvent(new CustomEvent('modelload', { bubbles: true, composed: true, detail: { model } }));
    this.scheduleForward();
  }

  // The forward for the model and text shown; its error is shown in place of the view.
  #forward() {
    const model = this.#model;
    if (!model) return this.render();
    this.#error = null;
    this.#output = null;
    try {
      this.#output = this.compute(model) ?? null;
      if (this.#output) this.computed(this.#output);
    } catch (error) {
      this.#error = error;
    }
    this.render();
  }
}
