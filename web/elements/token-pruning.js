// <token-pruning>: DynamicViT keep-masks (course seed 003). Tick tokens off and see the
// matrix G (G_ij = 1 if i = j, else keep_j) and the renormalised weights
// Ã_ij = exp(P_ij)·G_ij / Σ_k exp(P_ik)·G_ik, computed by attention(x, x, x, { keepMask }):
// a dropped token still attends to itself, and no other token attends to it.
//
//   <token-pruning tokens="The,cat,sat,on,the,mat" drop="2,5"></token-pruning>
//
// Attributes: tokens (comma list or JSON array; the property also an array), drop (1-based token numbers dropped at first), dim
// (features of the made-up token vectors, default 4). Property: keep (0/1 per token).
// Events: `change` (detail: { keep }).
import { getApi, initCode } from './api.js';
import { AttentionElement } from './base.js';
import { AttentionMatrix } from './attention-matrix.js';
import { tensorJson, jsLiteral, noInputCode } from './export.js';
import { LIMITS, tooBig } from './limits.js';
import { positionedLabels } from './model-views.js';
import { positionNote } from './token-positions.js';
import { screenOrPaper } from './view-parts.js';
import { listOf, setListAttribute } from './steps-inputs.js';

const TAG = 'token-pruning';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
fieldset { border: 1px solid var(--attn-border, #8886); display: flex; flex-wrap: wrap; gap: 0.2rem 0.8rem; padding: 0.3rem 0.6rem; }
legend { font-size: 0.85em; }
.row { display: flex; flex-wrap: wrap; gap: 0.8rem; margin-top: 0.5rem; max-width: 100%; }
label { font-size: 0.9em; }
.note { font-size: 0.85em; }`;

export class TokenPruning extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #keep = null;
  #error = null;
  #generation = 0;
  #result = null;

  connectedCallback() {
    super.connectedCallback();
    this.#reset();
  }
  attributeChangedCallback() {
    if (this.isConnected) this.#reset();
  }

  get tokens() {
    return listOf(this.typedAttribute('tokens')) ?? [''];
  }
  /**
   * The tokens: a comma list or JSON array (as the attribute takes them) or an array of strings
   * (written as JSON, so that a token holding a comma stays one token).
   */
  set tokens(v) {
    setListAttribute(this, 'tokens', v ?? []);
  }
  /** Keep decisions, 0/1 per token. */
  get keep() {
    return this.#keep.slice();
  }
  set keep(value) {
    this.#keep = Array.from(value, (x) => (x ? 1 : 0));
    this.#update();
  }
  /** { x, G, weights } of the last update, as tensors. */
  get result() {
    return this.#result;
  }

  #reset() {
    const drop = new Set(
      this.typedAttribute('drop')
        .split(',')
        .filter(Boolean)
        .map((s) => Number(s) - 1),
    );
    this.#keep = this.tokens.map((_, i) => (drop.has(i) ? 0 : 1));
    this.#update();
  }

  // The checked sizes: tokens (1 … LIMITS.pruning.tokens: past it, a message instead of the
  // element) and dim (attributes.js: a bad one is a message above the element drawn with 4).
  #sizes() {
    const tokens = this.tokens;
    if (tokens.length > LIMITS.pruning.tokens)
      throw tooBig(TAG, 'tokens', `${tokens.length} tokens`, LIMITS.pruning.tokens);
    const attributes = this.attributeReader().checkAll();
    return { tokens, d: attributes.get('dim'), problem: attributes.error };
  }

  /** Why the last input could not be shown, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  async #update() {
    const generation = ++this.#generation;
    let tokens, d, problem;
    try {
      ({ tokens, d, problem } = this.#sizes());
      this.#error = null;
    } catch (error) {
      this.#error = error;
      this.#result = null;
      this.showError(error);
      return;
    }
    // A bad attribute's message at once, over what is shown; the drawing below renews it.
    this.showAttributeError(problem);
    const keep = this.#keep.slice(0, tokens.length);
    while (keep.length < tokens.length) keep.push(1);
    const attn = await getApi();
    if (generation !== this.#generation) return; // a newer update (attributes changed meanwhile) wins
    const L = tokens.length;
    // Made-up token vectors (no learned weights, seed 002's basic self-attention: Q = K = V = X).
    const x = attn.tensor(
      Float32Array.from({ length: L * d }, (_, i) => Math.cos(1.3 * i + 0.4 * (i % d))),
      [L, d],
    );
    const G = attn.tensor(
      Float32Array.from({ length: L * L }, (_, f) => (Math.floor(f / L) === f % L || keep[f % L] ? 1 : 0)),
      [L, L],
    );
    const { weights } = attn.attention(x, x, x, { keepMask: keep, returnWeights: true });
    this.#result = { x, G, weights };
    this.#render(tokens);
    this.showAttributeError(problem);
  }

  #render(tokens) {
    const fieldset = document.createElement('fieldset');
    const legend = document.createElement('legend');
    // (paper has nothing to untick: it says what a tick is)
    legend.replaceChildren(
      ...screenOrPaper('Keep (untick to drop a token)', 'Kept tokens: ticked = kept, unticked = dropped'),
    );
    fieldset.append(legend);
    tokens.forEach((t, i) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = this.#keep[i] === 1;
      box.addEventListener('change', () => {
        this.#keep[i] = box.checked ? 1 : 0;
        this.dispatchEvent(new CustomEvent('change', { detail: { keep: this.keep } }));
        this.#update().then(() => this.shadowRoot.querySelectorAll('input')[i]?.focus());
      });
      label.append(box, ` ${t}`);
      fieldset.append(label);
    });
    const row = document.createElement('div');
    row.className = 'row';
    const names = positionedLabels(tokens); // a repeated token with its position ("the·5")
    const matrix = (name, label, value, precision, heat, caption) => {
      const m = new AttentionMatrix();
      m.dataset.name = name;
      m.setAttribute('label', label);
      m.setAttribute('precision', String(precision));
      if (heat) m.setAttribute('heat', heat);
      m.setAttribute('row-title', 'query');
      m.setAttribute('col-title', 'key');
      m.setAttribute('caption', caption);
      m.rowLabels = names;
      m.colLabels = names;
      m.value = value;
      return m;
    };
    const dropped = names.filter((_, i) => this.#keep[i] === 0);
    const weights = matrix(
      'weights',
      'Ã: softmax over the kept keys',
      this.#result.weights,
      2,
      'sequential',
      `Ã is the matrix of attention weights with the dropped tokens masked out (DynamicViT: Ã_ij = exp(P_ij)·G_ij / Σ_k exp(P_ik)·G_ik, P the scores): row i is query token i's weights over the keys j it may see, summing to 1; a dropped token gets 0 from every other query.${dropped.length ? ` The dropped ${dropped.length > 1 ? `tokens (${dropped.join(', ')}) keep their query rows` : `token (${dropped[0]}) keeps its query row`}, still looking at the kept tokens and ${dropped.length > 1 ? 'themselves' : 'itself'}, so that no shape changes (DynamicViT prunes this way while it trains); what changes is that no other token attends to ${dropped.length > 1 ? 'them' : 'it'}.` : ''}`,
    );
    // A dropped key's 0 (G_ij = 0) is masked, not a small weight: hatched, outside the map.
    weights.masked = {
      cells: Array.from(this.#result.G.data, (g) => (g === 0 ? 1 : 0)),
      label: 'dropped key: weight 0',
    };
    row.append(
      matrix(
        'G',
        'G (G_ij = 1 if i = j, else keep_j)',
        this.#result.G,
        0,
        null,
        `Row i is query token i, column j key token j: 1 where query i may look at key j. A dropped token's column is 0, except its own cell. ${positionNote(tokens)}`.trim(),
      ),
      weights,
    );
    const d = this.#result.x.shape[1];
    const source = document.createElement('p');
    source.className = 'note';
    source.dataset.role = 'source';
    source.textContent = `Where the numbers come from: P is not a probability but the scaled scores, P = x·xᵀ/√d, of made-up token vectors x (x[t, f] = cos(1.3·(t·d + f) + 0.4·f), d = ${d} features a token; not a trained model's; Q = K = V = x, as plain self-attention). The keep decisions are the ticks above: in DynamicViT a small prediction network gives each token a keep probability from its features, and keep_j is drawn from it while training (the most probable tokens are kept at inference).`;
    this.shadowRoot.replaceChildren(this.exportBar(), fieldset, row, source);
  }

  /** Tokens, keep decisions, G and the weights as JSON. */
  toJSON() {
    if (!this.#result) return { element: TAG, error: String(this.#error?.message ?? 'not computed yet') };
    return {
      element: 'token-pruning',
      tokens: this.tokens,
      keep: this.keep,
      G: tensorJson(this.#result.G),
      weights: tensorJson(this.#result.weights),
    };
  }

  /** JavaScript that computes these weights with the public API. */
  toCode() {
    if (!this.#result) return noInputCode(TAG, this.#error);
    const [L, d] = this.#result.x.shape;
    return `import { init } from 'attention-wasm';

${initCode()}
const x = attn.tensor(Float32Array.from({ length: ${L * d} }, (_, i) => Math.cos(1.3 * i + 0.4 * (i % ${d}))), [${L}, ${d}]);
const { weights } = attn.attention(x, x, x, { keepMask: ${jsLiteral(this.keep)}, returnWeights: true });
console.log(attn.toNested(weights));
`;
  }
}
