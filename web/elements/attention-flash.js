// <attention-flash>: the online softmax of the fused kernel (FlashAttention), stepped block
// by block. For each block of keys: the scores of every query row against the block, the
// running max m, the factor e^(m_old − m) that rescales what came before, the running sum ℓ
// and the partial output out; at the end out / ℓ, beside the ordinary softmax result of the
// library (attention(q, k, v) with returnWeights) and their largest difference. A memory
// counter compares the N×N matrix an ordinary softmax stores with what the fused path keeps.
//
//   <attention-flash block="2"></attention-flash>                       a built-in example
//   <attention-flash q="[[…]]" k="[[…]]" v="[[…]]" block="3"></attention-flash>
//   element.data = { q, k, v }
//
// Buttons and keys (on the element): → / Space next block, ← previous, Home start, End last.
// Events: `step` (detail: { block, blocks, state }).
import { getApi, initCode } from './api.js';
import { AttentionMatrix } from './attention-matrix.js';
import { jsLiteral, noInputCode } from './export.js';
import { AttentionElement } from './base.js';
import { LIMITS, tooBig, parseAttributeJson, attempt } from './limits.js';
import { consume } from './keys.js';

const TAG = 'attention-flash';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.row { display: flex; flex-wrap: wrap; gap: 0.8rem; align-items: flex-start; margin: 0.4rem 0; max-width: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; }
button { font: inherit; }
.status { font-weight: 600; }
.final-title { flex-basis: 100%; margin: 0.4rem 0 0; }
.memory, .verdict, .counting { font-size: 0.9em; }
code { font-size: 0.85em; }
.error { color: var(--_error); }
`;

const EXAMPLE = {
  // 2 queries, 6 keys, d = 3: three blocks of 2, the max moves twice
  q: [
    [0.9, -0.2, 0.4],
    [-0.5, 0.8, 0.1],
  ],
  k: [
    [0.1, 0.3, -0.2],
    [0.6, -0.1, 0.5],
    [1.2, 0.2, 0.9],
    [-0.4, 0.7, 0.0],
    [0.3, 1.5, -0.6],
    [0.8, -0.9, 0.3],
  ],
  v: [
    [1, 0],
    [0, 1],
    [1, 1],
    [2, 0],
    [0, 2],
    [-1, 1],
  ],
};

// Nested rows of numbers from input `name` (an array, or JSON text of one), checked:
// 1 … maxRows rows of the same 1 … maxCols numbers. Errors name the element and the input.
function rows(name, m, maxRows, maxCols) {
  if (typeof m === 'string') m = parseAttributeJson(TAG, name, m);
  if (!Array.isArray(m) || m.length === 0 || !Array.isArray(m[0]) || m[0].length === 0) {
    throw new TypeError(
      `${TAG}: ${name} must be rows of numbers such as [[1, 0], [0, 1]], got ${JSON.stringify(m)?.slice(0, 40) ?? String(m)}`,
    );
  }
  if (m.length > maxRows) throw tooBig(TAG, `${name}'s row count`, m.length, maxRows);
  const cols = m[0].length;
  if (cols > maxCols) throw tooBig(TAG, `${name}'s column count`, cols, maxCols);
  if (m.some((r) => !Array.isArray(r) || r.length !== cols))
    throw new RangeError(`${TAG}: ${name} must be rectangular (every row ${cols} numbers)`);
  return m.map((r) => Array.from(r, Number));
}

// q, k, v checked against each other and LIMITS.flash.
function inputs({ q, k, v }) {
  const { queries, keys, features } = LIMITS.flash;
  const d = { q: rows('q', q, queries, features), k: rows('k', k, keys, features), v: rows('v', v, keys, features) };
  if (d.q[0].length !== d.k[0].length)
    throw new RangeError(`${TAG}: q has ${d.q[0].length} columns but k has ${d.k[0].length}`);
  if (d.k.length !== d.v.length) throw new RangeError(`${TAG}: k has ${d.k.length} rows but v has ${d.v.length}`);
  return d;
}

/**
 * The online softmax, block by block, in float64: states[t] after t blocks, per query row
 * { m, l, o (unnormalised output), scores (this block's scaled scores), p (their e^(s − m)),
 * rescale (e^(m_old − m)) }.
 */
export function onlineSoftmaxSteps({ q, k, v }, block) {
  const d = q[0].length;
  const scale = 1 / Math.sqrt(d);
  const dv = v[0].length;
  let state = q.map(() => ({ m: -Infinity, l: 0, o: new Array(dv).fill(0), scores: [], p: [], rescale: 1 }));
  const states = [state];
  for (let j0 = 0; j0 < k.length; j0 += block) {
    const keys = k.slice(j0, j0 + block);
    state = q.map((qi, i) => {
      const prev = states.at(-1)[i];
      const scores = keys.map((kj) => qi.reduce((s, x, t) => s + x * kj[t], 0) * scale);
      const m = Math.max(prev.m, ...scores);
      const rescale = prev.m === -Infinity ? 0 : Math.exp(prev.m - m);
      const p = scores.map((s) => Math.exp(s - m));
      const l = prev.l * rescale + p.reduce((a, b) => a + b, 0);
      const o = prev.o.map((x, c) => x * rescale + p.reduce((s, pj, j) => s + pj * v[j0 + j][c], 0));
      return { m, l, o, scores, p, rescale, keys: [j0, j0 + keys.length] };
    });
    states.push(state);
  }
  return states;
}

/** Bytes the fused path keeps for lq query rows: m, ℓ and out (dv numbers) per row, and one block of scores. */
export function keptBytes(lq, dv, block) {
  return lq * (2 + dv) * 4 + lq * block * 4;
}

const KIB = 1024,
  MIB = 1024 * 1024;
const bytes = (n) => (n >= MIB ? `${Number((n / MIB).toFixed(2))} MiB` : `${Number((n / KIB).toFixed(2))} KiB`);

// The memory sentence's comparison at the element's own size: per query row the score matrix
// takes lk numbers, the fused path 2 + dv + block (m, ℓ, out and one block of scores), which
// does not grow with the number of keys lk; so it keeps less once lk > 2 + dv + block.
function memoryComparison(lk, dv, block) {
  const fused = 2 + dv + block;
  const relation = lk > fused ? 'less than' : lk === fused ? 'the same as' : 'more than';
  return (
    `Here that is ${relation} the score matrix: per query row the matrix holds one score per key (${lk}), the fused path 2 + ${dv} + ${block} = ${fused} numbers whatever the number of keys, ` +
    `so it keeps less once there are more than ${fused} keys.`
  );
}

// The memory sentence's large case, with its arithmetic: N = 4096 queries and keys, head_dim
// 64, blocks of 32 keys (the library's kernel).
function largeCase(n = 4096, dv = 64, block = 32) {
  const naive = n * n * 4;
  const kept = keptBytes(n, dv, block);
  return (
    `At N = ${n} tokens, head_dim ${dv} and blocks of ${block} keys (the library's kernel): the score matrix is ${n} × ${n} × 4 B = ${bytes(naive)}, ` +
    `while the fused path keeps m and ℓ (${n} × 2 × 4 B = ${bytes(n * 2 * 4)}), out (${n} × ${dv} × 4 B = ${bytes(n * dv * 4)}) and one block of scores (${n} × ${block} × 4 B = ${bytes(n * block * 4)}): ${bytes(kept)} per head.`
  );
}

export class AttentionFlash extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #data = null;
  #error = null;
  #states = [];
  #step = 0;
  #reference = null;
  #generation = 0;

  constructor() {
    super();
    this.addEventListener('keydown', (e) => this.#onKey(e));
  }

  connectedCallback() {
    super.connectedCallback();
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    if (!this.hasAttribute('role')) this.setAttribute('role', 'group');
    if (!this.hasAttribute('aria-label')) this.setAttribute('aria-label', 'online softmax, block by block');
    if (!this.#data) this.#readAttributes();
    this.#update();
  }

  attributeChangedCallback() {
    if (!this.isConnected) return;
    this.#readAttributes();
    this.#update();
  }

  /** The inputs { q, k, v } (nested rows). */
  get data() {
    return this.#data && structuredClone(this.#data);
  }
  set data(value) {
    this.#take(() => inputs(value ?? {}));
    if (this.isConnected) this.#update();
  }

  /** Why the last input could not be shown, or a bad attribute value (null when neither). */
  get error() {
    return this.#error ?? this.attributeError;
  }

  // New inputs, or the message saying why not (the element recovers on the next good ones).
  #take(make) {
    ({ value: this.#data, error: this.#error } = attempt(make));
  }

  /** Keys per block (default 2, also while the attribute is bad; the library's kernel uses 32). */
  get block() {
    return this.attributeReader().get('block');
  }
  set block(b) {
    this.setAttribute('block', String(b));
  }

  /** The current step (blocks done, 0 … blocks) and the per-row states there. */
  get step() {
    return this.#step;
  }
  set step(t) {
    this.#go(t);
  }
  get blocks() {
    return this.#states.length - 1;
  }
  get state() {
    return this.#states[this.#step];
  }
  /** The library's output for the same q, k, v (Float32Array), once computed. */
  get reference() {
    return this.#reference;
  }

  /** q, k, v, the block size, every step's per-row state, and the result beside the library's. */
  toJSON() {
    if (!this.#data) return { element: TAG, error: String(this.#error?.message ?? 'no input') };
    const clean = (x) => (Number.isFinite(x) ? x : String(x));
    return {
      element: 'attention-flash',
      ...this.data,
      block: this.block,
      steps: this.#states.map((state) =>
        state.map((r) => ({ m: clean(r.m), l: r.l, rescale: r.rescale, o: r.o, scores: r.scores, p: r.p })),
      ),
      reference: this.#reference && Array.from(this.#reference),
    };
  }

  /** JavaScript that runs the same online softmax and compares it with the library. */
  toCode() {
    const d = this.#data;
    if (!d) return noInputCode(TAG, this.#error);
    return `import { init } from 'attention-wasm';

${initCode()}
const q = ${jsLiteral(d.q)}, k = ${jsLiteral(d.k)}, v = ${jsLiteral(d.v)};
const block = ${this.block}, scale = 1 / Math.sqrt(q[0].length);
const out = q.map((qi) => {
  let m = -Infinity, l = 0, o = v[0].map(() => 0);
  for (let j0 = 0; j0 < k.length; j0 += block) {  // one block of keys at a time
    const s = k.slice(j0, j0 + block).map((kj) => qi.reduce((a, x, t) => a + x * kj[t], 0) * scale);
    const mNew = Math.max(m, ...s), rescale = Math.exp(m - mNew), p = s.map((x) => Math.exp(x - mNew));
    l = l * rescale + p.reduce((a, b) => a + b, 0);
    o = o.map((x, c) => x * rescale + p.reduce((a, pj, j) => a + pj * v[j0 + j][c], 0));
    m = mNew;
  }
  return o.map((x) => x / l);
});
console.log(out, attn.toNested(attn.attention(q, k, v, { returnWeights: true }).output));
`;
  }

  #readAttributes() {
    const given = ['q', 'k', 'v'].filter((name) => this.hasAttribute(name));
    if (given.length === 0) return this.#take(() => structuredClone(EXAMPLE));
    if (given.length < 3) {
      const missing = ['q', 'k', 'v'].filter((name) => !given.includes(name));
      return this.#take(() => {
        throw new TypeError(
          `${TAG}: ${given.join(' and ')} given without ${missing.join(' and ')}: set all three, or none for the built-in example`,
        );
      });
    }
    this.#take(() => inputs({ q: this.getAttribute('q'), k: this.getAttribute('k'), v: this.getAttribute('v') }));
  }

  async #update() {
    const generation = ++this.#generation;
    const d = this.#data;
    // A bad attribute's message at once, over what is shown; the drawing below renews it.
    this.showAttributeError(this.attributeReader().checkAll().error);
    try {
      if (this.#error) throw this.#error;
      this.#states = onlineSoftmaxSteps(d, this.block);
      this.#step = Math.min(this.#step, this.blocks);
      const attn = await getApi();
      if (generation !== this.#generation) return;
      this.#reference = attn.attention(d.q, d.k, d.v, { returnWeights: true }).output.data; // the ordinary softmax path
      this.#render();
    } catch (error) {
      this.showError(error);
    }
  }

  #onKey(e) {
    const to = {
      ArrowRight: this.#step + 1,
      ' ': this.#step + 1,
      ArrowLeft: this.#step - 1,
      Home: 0,
      End: this.blocks,
    }[e.key];
    if (to === undefined || e.target !== this) return;
    consume(e); // the host itself has focus: its shadow root never sees this key
    this.#go(to);
  }

  #go(t) {
    this.#step = Math.max(0, Math.min(this.blocks, t));
    this.#render();
    this.dispatchEvent(
      new CustomEvent('step', { detail: { block: this.#step, blocks: this.blocks, state: this.state } }),
    );
  }

  #matrix(name, label, value, options = {}) {
    const m = new AttentionMatrix();
    m.dataset.name = name;
    m.setAttribute('label', label);
    m.setAttribute('precision', '4');
    if (options.heat) m.setAttribute('heat', options.heat);
    if (options.scale) m.scale = options.scale;
    if (options.blank) m.blank = options.blank;
    if (options.caption) m.setAttribute('caption', options.caption);
    if (options.rowLabels) m.rowLabels = options.rowLabels;
    if (options.colLabels) m.colLabels = options.colLabels;
    if (options.axes) {
      m.setAttribute('row-title', options.axes[0]);
      m.setAttribute('col-title', options.axes[1]);
    }
    m.value = value;
    return m;
  }

  // Every block's running state at a glance (so that a still image holds the middle blocks
  // too): a row per step (the start, then after each block), m and ℓ of each query row.
  #history() {
    const lq = this.#data.q.length;
    const m = this.#matrix(
      'history',
      'm and ℓ after each block (the row of the step shown is marked ▶)',
      this.#states.map((state) => state.flatMap((r) => [r.m, r.l])),
      {
        rowLabels: this.#states.map(
          (_, t) => `${t === this.#step ? '▶ ' : ''}${t === 0 ? 'start' : `after block ${t} of ${this.blocks}`}`,
        ),
        colLabels: Array.from({ length: lq }, (_, i) => [`m (row ${i})`, `ℓ (row ${i})`]).flat(),
        axes: ['step', 'per query row: m (running max), ℓ (running sum)'],
      },
    );
    const row = document.createElement('div');
    row.className = 'row';
    row.append(m);
    return row;
  }

  // One colour scale for every block's scores: ± the largest |s| over all blocks, at least ±1
  // (scores less than 1 apart change the weights by less than a factor e), so that blocks
  // compare and small scores look small.
  #scoreScale() {
    let m = 1;
    for (const state of this.#states) for (const r of state) for (const x of r.scores) m = Math.max(m, Math.abs(x));
    return { min: -m, max: m, note: "one scale for every block's scores, at least ±1" };
  }

  #button(text, to, label) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'print-hide'; // nothing to press on paper
    b.textContent = text;
    b.title = label;
    b.disabled = to < 0 || to > this.blocks || to === this.#step;
    b.addEventListener('click', () => this.#go(to));
    return b;
  }

  // The result after the last block: out / ℓ (float64), the library's attention(q, k, v) and
  // their largest difference. prefix '' at the last step; 'final-' (names, and a title saying
  // it is the end) while an earlier step is shown.
  #endParts(prefix) {
    const d = this.#data;
    const last = this.#states[this.blocks];
    const dv = d.v[0].length;
    const result = last.map((r) => r.o.map((x) => (r.l > 0 ? x / r.l : 0)));
    const ref = this.#reference;
    let worst = 0;
    result.forEach((row, i) =>
      row.forEach((x, c) => {
        worst = Math.max(worst, Math.abs(x - ref[i * dv + c]));
      }),
    );
    const parts = [];
    if (prefix) {
      const title = document.createElement('p');
      title.className = 'status final-title';
      title.textContent = `Where it ends, after the last block (${this.blocks} of ${this.blocks}):`;
      parts.push(title);
    }
    parts.push(
      this.#matrix(`${prefix}result`, 'out / ℓ (online, float64)', result, { axes: ['query', 'value feature'] }),
      this.#matrix(
        `${prefix}reference`,
        'attention(q, k, v) (library, float32)',
        { data: ref, shape: [d.q.length, dv] },
        { axes: ['query', 'value feature'] },
      ),
    );
    const verdict = document.createElement('p');
    verdict.className = `verdict${prefix ? ' final-verdict' : ''}`;
    verdict.dataset.maxDifference = String(worst);
    verdict.textContent = `Same result: the largest difference is ${worst.toExponential(1)} (float32 rounding), though no row ever saw all its scores at once.`;
    parts.push(verdict);
    return parts;
  }

  #render() {
    const d = this.#data;
    const t = this.#step;
    const state = this.#states[t];
    const lq = d.q.length,
      lk = d.k.length,
      dv = d.v[0].length;
    const block = this.block;
    const controls = document.createElement('div');
    controls.className = 'controls';
    const status = document.createElement('span');
    status.className = 'status';
    status.setAttribute('aria-live', 'polite');
    status.textContent =
      t === 0
        ? `Start: no key seen (block size ${block})`
        : `Block ${t} of ${this.blocks}: keys ${state[0].keys[0]}–${state[0].keys[1] - 1}`;
    // On paper one step is shown: say so, and where the others are (a reader of a print saw
    // only the start and took it for all there is).
    const printed = Object.assign(document.createElement('span'), {
      className: 'paper-only',
      textContent: ` (printed at this step; the table of m and ℓ below holds every block's, and the end state follows it)`,
    });
    controls.append(
      this.#button('« Start', 0, 'start'),
      this.#button('◀ Back', t - 1, 'previous block'),
      this.#button('Next block ▶', t + 1, 'next block'),
      this.#button('End »', this.blocks, 'last block'),
      status,
      printed,
    );

    const inputs = document.createElement('div');
    inputs.className = 'row';
    const keyLabels = d.k.map((_, j) => (t > 0 && j >= state[0].keys[0] && j < state[0].keys[1] ? `▶${j}` : String(j)));
    inputs.append(
      this.#matrix('q', 'q', d.q, { axes: ['query', 'feature'] }),
      // ▶ marks the keys of the block just read (none at the start).
      this.#matrix('k', t > 0 ? `k (▶ = block ${t}'s keys)` : 'k (no block read yet)', d.k, {
        rowLabels: keyLabels,
        axes: ['key', 'feature'],
      }),
      this.#matrix('v', 'v', d.v, { rowLabels: keyLabels, axes: ['key', 'value feature'] }),
    );

    const running = document.createElement('div');
    running.className = 'row';
    const rowNames = d.q.map((_, i) => `row ${i}`);
    if (t > 0) {
      const blockKeys = Array.from({ length: state[0].keys[1] - state[0].keys[0] }, (_, j) =>
        String(state[0].keys[0] + j),
      );
      const blockAxes = ['query row', "this block's key"];
      running.append(
        this.#matrix(
          'block-scores',
          "s: this block's scores q·kᵀ/√d",
          state.map((r) => r.scores),
          { heat: 'diverging', rowLabels: rowNames, colLabels: blockKeys, axes: blockAxes, scale: this.#scoreScale() },
        ),
        this.#matrix(
          'block-p',
          'e^(s − m): s above, m the new running max',
          state.map((r) => r.p),
          { heat: 'sequential', rowLabels: rowNames, colLabels: blockKeys, axes: blockAxes },
        ),
      );
    }
    running.append(
      this.#matrix(
        'state',
        'running state',
        // Before the second block there is nothing to rescale (m_old = −∞): "—", said why.
        state.map((r) => [r.m, t > 1 ? r.rescale : NaN, r.l]),
        {
          rowLabels: rowNames,
          colLabels: ['max m', 'rescale e^(m_old−m)', 'sum ℓ'],
          axes: ['query row', ''],
          blank: '—',
          caption:
            t === 0
              ? 'rescale —: no block read yet, nothing to rescale.'
              : 'rescale —: first block, nothing to rescale (m_old = −∞: no earlier scores; ℓ and out start here).',
        },
      ),
      this.#matrix(
        'partial',
        'out: the partial output (unnormalised)',
        state.map((r) => r.o),
        { rowLabels: rowNames, axes: ['query row', 'value feature'] },
      ),
    );

    const end = document.createElement('div');
    end.className = 'row';
    const memory = document.createElement('p');
    memory.className = 'memory';
    const naive = lq * lk * 4;
    const kept = keptBytes(lq, dv, block);
    memory.dataset.naive = String(naive);
    memory.dataset.kept = String(kept);
    // Each factor named: rows, numbers per row (what each term holds), bytes per number.
    memory.textContent = `Memory (4 B = one float32 number): an ordinary softmax stores the ${lq} × ${lk} score matrix, ${lq} query rows × ${lk} keys × 4 B = ${naive} bytes; the fused path keeps, per query row, m and ℓ (2 numbers), out (${dv} numbers, the width of v) and one block of scores (${block} numbers, the keys in a block): ${lq} query rows × (2 + ${dv} + ${block}) numbers × 4 B = ${kept} bytes. ${memoryComparison(lk, dv, block)} ${largeCase()}`;
    // The end: out / ℓ beside the library's result. Before the last block it is still shown,
    // titled as the end, so that a still image (print, PNG, screenshot) holds both the step
    // shown and where the last block leads.
    end.append(...this.#endParts(t === this.blocks ? '' : 'final-'));
    const formula = document.createElement('p');
    formula.className = 'formula';
    formula.innerHTML =
      "Per query row, block by block, with <code>s</code> = its scores <code>q·kᵀ/√d</code> against the block's keys, <code>m</code> the running max, <code>ℓ</code> the running sum and <code>out</code> the running output (one vector per row): <code>m ← max(m, max s)</code>, <code>ℓ ← ℓ·e^(m_old−m) + Σ e^(s−m)</code>, <code>out ← out·e^(m_old−m) + Σ e^(s−m)·v</code>; at the end <code>output = out / ℓ</code>.";
    const counting = document.createElement('p');
    counting.className = 'counting';
    counting.textContent = 'Rows, keys and features count from 0; blocks are counted 1 of 3, 2 of 3, …';
    this.shadowRoot.replaceChildren(
      this.exportBar('attention-flash'),
      controls,
      formula,
      counting,
      inputs,
      running,
      this.#history(),
      end,
      memory,
    );
    this.showAttributeError(this.attributeReader().checkAll().error);
  }
}
