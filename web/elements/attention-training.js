// <attention-training>: watch attention being learned. Pick a toy task (copy, reverse, sort,
// induction), press Train: a TinyTransformer trains in a module Worker (the page stays
// responsive) while the element draws the loss curve, the held-out token accuracy and the
// attention maps of every layer and head on one example sequence, redrawn as training goes.
//
//   <attention-training task="reverse" seed="1" lr="0.003" steps="2000"></attention-training>
//
// Attributes: task (copy | reverse | sort | induction), preset (small | medium), seed, lr,
// steps (stop after), every (steps per progress report), autostart. Events (bubbling,
// composed): `training-progress` (detail { step, loss, accuracy, stepsPerSecond }),
// `training-done` (detail { step, accuracy }) when `steps` are done.
import { moduleWorker } from './workers.js';
import { AttentionElement, colourLegend, captionLine } from './base.js';
import { jsString } from './export.js';
import { formatNumber, heatColour } from './format.js';
import { TASKS } from './training/tasks.js';
import { PRESETS } from './training/toy-training.js';
import { positionedLabels } from './model-views.js';
import { positionNote } from './token-positions.js';
import { tickIndices } from './ticks.js';

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem 0.9rem; align-items: center; margin-bottom: 0.4rem; }
label { font-size: 0.9em; }
select, input, button { font: inherit; }
input[type=number] { width: 5em; }
button:focus-visible, select:focus-visible, input:focus-visible, canvas:focus-visible { outline: 2px solid var(--_focus); outline-offset: 2px; }
.stats { font-variant-numeric: tabular-nums; margin: 0.3rem 0; }
.description { font-size: 0.9em; margin: 0.2rem 0 0.5rem; }
canvas { display: block; max-width: 100%; height: auto; border: 1px solid var(--attn-border, var(--_cell-edge)); color: var(--_accent); }
/* the loss chart's key: each line's colour, dash and marker, and its axis */
.curve-key { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; font-size: 0.8rem; margin: 0.2rem 0 0; }
.curve-key svg { vertical-align: -0.15em; margin-inline-end: 0.3em; overflow: visible; }
.curve-key .loss svg { color: var(--_accent); }
.curve-key .accuracy svg { color: var(--_selected); }
.maps { display: flex; flex-wrap: wrap; gap: 1rem; margin-top: 0.5rem; }
.maps figure { margin: 0; }
.maps figcaption { font-size: 0.85em; font-weight: 600; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }`;

const MILESTONES = [0.5, 0.9, 0.99];
// The words after "paused" on screen: what the button (named for this moment) does.
const KEEP_TRAINING = 'The “Keep training” button trains on past the target.';

const CURVE_W = 480,
  MIN_CURVE_W = 240,
  H = 170,
  PAD = { left: 44, right: 40, top: 24, bottom: 28 }; // (top: the y axes' titles, written across; right: the accuracy axis)

// The Worker, written out literally so bundlers bundle it (workers.js: from another origin).
const trainingWorker = () =>
  moduleWorker(
    () => new Worker(new URL('./training/worker.js', import.meta.url), { type: 'module' }),
    './training/worker.js',
  );

// How long an element that left the page keeps its paused Worker (and model) alive.
const LEAVE_STOP_MS = 60_000;
const TAG = 'attention-training';
const AWAY = 'Paused: the element left the page; it resumes when it is back.';

export class AttentionTraining extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #parts = null;
  #worker = null;
  #history = []; // [{ step, loss, accuracy }]
  #state = 'idle'; // idle | running | paused | done
  #announced = new Set();
  #lastMaps = 0;
  #pendingMaps = null;
  #maps = [];
  #reachedTarget = false; // the run paused once at the target accuracy
  #targetNote = ''; // what the stats line says about it (reports in flight keep it)

  #leaving = 0;
  #resumeOnReturn = false;

  /** Progress so far: [{ step, loss, accuracy, stepsPerSecond }]. */
  get history() {
    return this.#history.slice();
  }
  /** 'idle', 'running', 'paused' or 'done'. */
  get state() {
    return this.#state;
  }

  connectedCallback() {
    super.connectedCallback();
    if (!this.#parts) this.#build();
    // The loss chart is drawn at the element's width in CSS px (its 11 px text stays 11 px).
    this.onResize(() => this.#drawCurve());
    clearTimeout(this.#leaving);
    if (this.#resumeOnReturn) {
      // it left the page while training and is back
      this.#resumeOnReturn = false;
      this.resume();
    }
    if (this.hasAttribute('autostart') && this.#state === 'idle') this.train();
  }

  // A move (reveal's scroll or print view, a keyed reorder in React or Vue) disconnects and
  // reconnects the element within one task: training goes on. An element that stays away
  // pauses (it resumes when it comes back), and after a minute away its Worker stops.
  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.#leaving);
    this.#leaving = setTimeout(() => {
      if (this.isConnected) return;
      if (this.#state === 'running') {
        this.pause();
        this.#resumeOnReturn = true;
        this.#parts.stats.textContent = AWAY;
      }
      this.#leaving = setTimeout(() => this.#stopAway(), LEAVE_STOP_MS);
    }, 0);
  }

  #stopAway() {
    if (this.isConnected || !this.#worker) return;
    this.reset();
    this.#resumeOnReturn = false;
    this.#parts.stats.textContent = `Stopped: the element was off the page for ${LEAVE_STOP_MS / 1000} s.`;
  }

  attributeChangedCallback() {
    if (!this.#parts) return;
    const attributes = this.#attributes();
    this.#parts.task.value = attributes.get('task');
    this.#describe();
    this.showAttributeError(attributes.error);
  }

  // Every attribute as attributes.js types it (a bad one reads as its default; `error` says
  // which): every="0" looped at step 0 with a NaN loss, and every="1e9" never reported.
  #attributes() {
    return this.attributeReader().checkAll();
  }

  #build() {
    const root = this.shadowRoot;
    const controls = document.createElement('div');
    controls.className = 'controls';
    const field = (text, control) => {
      const label = document.createElement('label');
      label.append(`${text} `, control);
      controls.append(label);
      return control;
    };
    const task = field('Task', document.createElement('select'));
    for (const t of Object.values(TASKS)) task.append(new Option(t.title, t.name));
    const attributes = this.#attributes();
    task.value = attributes.get('task');
    task.addEventListener('change', () => {
      this.setAttribute('task', task.value);
      this.reset();
    });
    const preset = field('Model', document.createElement('select'));
    for (const [name, p] of Object.entries(PRESETS))
      preset.append(new Option(`${name}: ${p.numLayers} layers, ${p.numHeads} heads, d ${p.dModel}`, name));
    preset.value = attributes.get('preset');
    const lr = field('Learning rate', document.createElement('select'));
    for (const v of ['0.0003', '0.001', '0.003', '0.01']) lr.append(new Option(v, v));
    lr.value = attributes.get('lr');
    const seed = field(
      'Seed',
      Object.assign(document.createElement('input'), {
        type: 'number',
        min: 0,
        max: 4294967295,
        step: 1,
        value: String(attributes.get('seed')),
      }),
    );
    const button = (text, action) => {
      const b = Object.assign(document.createElement('button'), {
        type: 'button',
        className: 'print-hide', // nothing to press on paper
        textContent: text,
      });
      b.addEventListener('click', action);
      controls.append(b);
      return b;
    };
    const train = button('Train', () =>
      this.#state === 'running' ? this.pause() : this.#state === 'paused' ? this.resume() : this.train(),
    );
    const reset = button('Reset', () => this.reset());
    const description = Object.assign(document.createElement('p'), { className: 'description' });
    const stats = Object.assign(document.createElement('p'), { className: 'stats', textContent: 'Not trained yet.' });
    const live = Object.assign(document.createElement('p'), { className: 'sr' });
    live.setAttribute('role', 'status');
    const canvas = Object.assign(document.createElement('canvas'), { width: CURVE_W, height: H });
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', 'Loss curve: no training yet');
    const maps = Object.assign(document.createElement('div'), { className: 'maps' });
    const key = document.createElement('div');
    key.append(colourLegend({ kind: 'sequential', min: 0, max: 1, title: 'attention weight' }), captionLine(''));
    key.hidden = true; // shown with the first maps
    const curveCaption = captionLine('');
    const curveKey = chartKey();
    root.append(this.exportBar(), controls, description, stats, live, canvas, curveKey, curveCaption, maps, key);
    this.#parts = {
      task,
      preset,
      lr,
      seed,
      train,
      reset,
      description,
      stats,
      live,
      canvas,
      curveKey,
      curveCaption,
      maps,
      key,
    };
    this.showAttributeError(attributes.error);
    this.#describe();
    this.#drawCurve();
  }

  #describe() {
    const t = TASKS[this.#attributes().get('task')];
    this.#parts.description.textContent = `${t.description} Example: ${t.example.map(t.tokenLabel).join(' ')}.`;
  }

  /** Starts training from scratch with the chosen task, model, seed and learning rate. */
  train() {
    if (!this.#parts) this.#build();
    this.reset();
    const p = this.#parts;
    // A bad attribute is a message above the controls, and no Worker starts.
    const attributes = this.#attributes();
    const every = attributes.get('every');
    const maxSteps = attributes.get('steps');
    this.showAttributeError(attributes.error);
    if (attributes.error) return;
    this.#worker = trainingWorker();
    this.#worker.onmessage = ({ data }) => this.#message(data);
    this.#worker.postMessage({
      type: 'start',
      task: p.task.value,
      preset: p.preset.value,
      seed: Math.max(0, Math.floor(Number(p.seed.value) || 0)) >>> 0,
      lr: Number(p.lr.value),
      every,
      maxSteps,
    });
    this.#setState('running');
    p.stats.textContent = 'Starting the Worker…';
  }

  /** Pauses training (the model stays in the Worker). */
  pause() {
    if (this.#state !== 'running') return;
    this.#worker.postMessage({ type: 'pause' });
    this.#setState('paused');
  }

  /** Resumes a paused run. */
  resume() {
    if (this.#state !== 'paused' || !this.#worker) return;
    this.#targetNote = this.#targetNote.replace(': paused.', '; training goes on.');
    this.#worker.postMessage({ type: 'resume' });
    this.#setState('running');
  }

  /** Stops training and clears the curve and the maps. */
  reset() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#history = [];
    this.#announced.clear();
    this.#setState('idle');
    if (!this.#parts) return;
    this.#parts.stats.textContent = 'Not trained yet.';
    this.#parts.maps.replaceChildren();
    this.#parts.key.hidden = true;
    this.#maps = [];
    this.#reachedTarget = false;
    this.#targetNote = '';
    this.#drawCurve();
  }

  #setState(state) {
    this.#state = state;
    this.#parts.train.textContent =
      state === 'running' ? 'Pause' : state === 'paused' ? (this.#reachedTarget ? 'Keep training' : 'Resume') : 'Train';
  }

  #message(data) {
    const p = this.#parts;
    if (data.type === 'progress') {
      // Sent before the Worker read the pause: dropped, so that the curve, the maps and the
      // status all end at the step where the run paused (resume goes on from the Worker's).
      if (this.#state === 'paused') return;
      const entry = { step: data.step, loss: data.loss, accuracy: data.accuracy, stepsPerSecond: data.stepsPerSecond };
      this.#history.push(entry);
      // (the speed is this machine's, not the model's: on screen only, not on paper)
      p.stats.replaceChildren(
        `step ${data.step} · loss ${formatNumber(data.loss, 4)} nats · held-out token accuracy ${formatNumber(100 * data.accuracy, 1)}%`,
        Object.assign(document.createElement('span'), {
          className: 'print-hide',
          textContent: ` · ${Math.round(data.stepsPerSecond)} steps/s on this device`,
        }),
        `${this.#resumeOnReturn ? ` · ${AWAY}` : ''}${this.#targetNote ? ` · ${this.#targetNote}` : ''}`,
      );
      for (const m of MILESTONES) {
        if (data.accuracy >= m && !this.#announced.has(m)) {
          this.#announced.add(m);
          p.live.textContent = `Held-out accuracy passed ${100 * m}% at step ${data.step}.`;
        }
      }
      this.#drawCurve();
      this.#queueMaps(data.attention);
      this.dispatchEvent(new CustomEvent('training-progress', { bubbles: true, composed: true, detail: entry }));
      this.#stopAtTarget(data);
    } else if (data.type === 'done') {
      this.#setState('done');
      this.dispatchEvent(
        new CustomEvent('training-done', {
          bubbles: true,
          composed: true,
          detail: { step: data.step, accuracy: this.#history.at(-1)?.accuracy ?? 0 },
        }),
      );
    } else if (data.type === 'error') {
      p.stats.textContent = data.message;
      this.#setState('idle');
    }
  }

  // The run pauses once when the held-out accuracy reaches `target` (default 100%): there is
  // nothing more to see, and the button says "Keep training" for a reader who wants more.
  #stopAtTarget(data) {
    const target = this.attributeReader().get('target');
    if (target === 'none' || this.#reachedTarget || this.#state !== 'running') return;
    if (100 * data.accuracy < target) return;
    this.#reachedTarget = true;
    this.pause();
    const text = `Reached the target, ${target}% held-out accuracy, at step ${data.step}: paused.`;
    this.#targetNote = text;
    this.#parts.stats.append(` · ${text}`); // (append: the speed's screen-only span stays a span)
    // The button's words, on screen only (on paper there is no button to press).
    this.#parts.stats.append(
      Object.assign(document.createElement('span'), {
        className: 'print-hide',
        textContent: ` ${KEEP_TRAINING}`,
      }),
    );
    this.#parts.live.textContent = `${text} ${KEEP_TRAINING}`;
  }

  // Redraws the maps at most every 200 ms (progress may come faster than a reader can see).
  #queueMaps(attention) {
    const due = this.#pendingMaps === null;
    this.#pendingMaps = attention;
    if (!due) return;
    const wait = Math.max(0, 200 - (performance.now() - this.#lastMaps));
    setTimeout(
      () =>
        requestAnimationFrame(() => {
          const maps = this.#pendingMaps;
          this.#pendingMaps = null;
          this.#lastMaps = performance.now();
          if (maps && this.#state !== 'idle') this.#drawMaps(maps);
        }),
      wait,
    );
  }

  // One canvas per layer, its heads side by side (canvas, not DOM grids: a redraw costs well
  // under a millisecond, so the main thread stays free while training), with a text summary.
  #drawMaps(attention) {
    const task = TASKS[this.#parts.task.value];
    const names = task.example.map(task.tokenLabel);
    const labels = positionedLabels(names);
    const caption =
      `Each map: one head's weights on an example sequence (${names.join(' ')}), a query per row, a key per column; rows sum to 1. ${task.causal ? 'Causal: each query sees only itself and earlier keys (a decoder-style mask), so the upper-right triangle is 0.' : 'Not causal: every query sees every key, later ones too (bidirectional, as an encoder).'} Layers, heads and positions count from 0. ${positionNote(names)}`.trim();
    const figures = this.#parts.maps.children;
    this.#maps = attention.map((t) => {
      const [, heads, T] = t.shape;
      return Array.from({ length: heads }, (_, h) =>
        Array.from({ length: T }, (_, i) => Array.from(t.data.subarray((h * T + i) * T, (h * T + i + 1) * T))),
      );
    });
    let lines = 1;
    this.#maps.forEach((layer, l) => {
      let figure = figures[l];
      if (!figure) {
        figure = document.createElement('figure');
        const caption = Object.assign(document.createElement('figcaption'), {
          textContent: `Layer ${l}: each head's weights, query rows × key columns`,
        });
        const canvas = document.createElement('canvas');
        canvas.setAttribute('role', 'img');
        figure.append(caption, canvas);
        this.#parts.maps.append(figure);
        this.#parts.key.hidden = false;
      }
      const canvas = figure.querySelector('canvas');
      lines = drawHeads(
        canvas,
        layer,
        labels,
        getComputedStyle(this).color || '#000',
        getComputedStyle(canvas).borderTopColor,
      );
    });
    // Staggered key names: say the order they are read in (a reader saw two rows of names).
    const staggered =
      lines > 1
        ? ` The key names above each map stand on ${lines} staggered lines so that they fit: read them left to right, zigzagging between the lines (${labels.join(', ')}), the same order as the rows.`
        : '';
    this.#parts.key.querySelector('.caption').textContent = caption + staggered;
  }

  /** The settings, the progress so far and the maps last drawn, as JSON. */
  toJSON() {
    const p = this.#parts;
    return {
      element: TAG,
      task: p?.task.value,
      preset: p?.preset.value,
      seed: Number(p?.seed.value),
      lr: Number(p?.lr.value),
      history: this.history,
      maps: this.maps,
    };
  }

  /** JavaScript that puts this run on a page: the element with the same settings. */
  toCode() {
    const p = this.#parts;
    const set = (name, value) => `training.setAttribute('${name}', ${jsString(String(value))});`;
    return `import 'attention-wasm/elements';

const training = document.createElement('attention-training');
${set('task', p?.task.value ?? 'reverse')}
${set('preset', p?.preset.value ?? 'small')}
${set('seed', p?.seed.value ?? 1)}
${set('lr', p?.lr.value ?? '0.003')}
training.setAttribute('autostart', '');
document.body.append(training);
`;
  }

  /** The attention maps last drawn: [layer][head][query][key] (an example sequence's). */
  get maps() {
    return structuredClone(this.#maps);
  }

  // The loss chart, CURVE_W px wide or the element's width when narrower (never scaled down
  // by CSS, which shrank its 11 px text to 5 px at 390 px), sharp on high-density screens.
  #drawCurve() {
    const { canvas } = this.#parts;
    const border = 2; // the canvas's 1 px border, left and right
    const W = Math.max(MIN_CURVE_W, Math.min(CURVE_W, Math.floor(this.clientWidth || CURVE_W) - border));
    const dpr = globalThis.devicePixelRatio || 1;
    if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
    }
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const colour = getComputedStyle(this).color || '#000';
    const accent = getComputedStyle(canvas).color || '#2563eb'; // --_accent, resolved (light-dark)
    const second = getComputedStyle(this.#parts.curveKey.querySelector('.accuracy svg')).color || '#b45309'; // --_selected
    ctx.clearRect(0, 0, W, H);
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.font = '11px system-ui, sans-serif';
    const x0 = PAD.left,
      x1 = W - PAD.right,
      y0 = H - PAD.bottom,
      y1 = PAD.top;
    // The axes: loss on the left, held-out accuracy on the right, steps along the bottom.
    ctx.beginPath();
    ctx.moveTo(x0, y1);
    ctx.lineTo(x0, y0);
    ctx.lineTo(x1, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    const h = this.#history;
    const maxStep = Math.max(10, h.at(-1)?.step ?? 10);
    const xOf = (step) => x0 + (x1 - x0) * (step / maxStep);
    // A log axis: the loss falls by orders of magnitude, and a linear axis squashed the curve
    // against 0 within a few reports. It spans the powers of 10 around the losses seen.
    const losses = h.map((e) => e.loss).filter((x) => x > 0 && Number.isFinite(x));
    const top = Math.ceil(Math.log10(Math.max(...losses, 1)));
    const bottom = Math.min(top - 1, Math.floor(Math.log10(Math.min(...losses, 0.1))));
    const yOf = (loss) => y0 - (y0 - y1) * ((Math.log10(loss) - bottom) / (top - bottom));
    const yAccuracy = (accuracy) => y0 - (y0 - y1) * Math.max(0, Math.min(1, accuracy));
    // Steps: round ticks from 0 to the last report's (ticks.js), each a mark and its number.
    ctx.textAlign = 'center';
    ctx.fillText('step', (x0 + x1) / 2, H - 2);
    const steps = tickIndices(maxStep + 1, 'decimal');
    for (const step of steps) {
      const x = xOf(step);
      ctx.beginPath();
      ctx.moveTo(x, y0);
      ctx.lineTo(x, y0 + 4);
      ctx.stroke();
      ctx.fillText(String(step), x, y0 + 14);
    }
    ctx.textAlign = 'right';
    for (let e = bottom; e <= top; e++) {
      const y = yOf(10 ** e);
      ctx.fillText(formatNumber(10 ** e, Math.max(0, -e)), x0 - 4, y + 4);
      ctx.globalAlpha = 0.25;
      ctx.beginPath();
      ctx.moveTo(x0, y);
      ctx.lineTo(x1, y);
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    // The accuracy axis: 0, 50 and 100 %, marks outside the plot (its gridlines would cross the loss's).
    ctx.textAlign = 'left';
    for (const percent of [0, 50, 100]) {
      const y = yAccuracy(percent / 100);
      ctx.beginPath();
      ctx.moveTo(x1, y);
      ctx.lineTo(x1 + 4, y);
      ctx.stroke();
      ctx.fillText(`${percent}%`, x1 + 6, y + 4);
    }
    // The y axes' titles across, above each axis (rotated, they were too small to read).
    ctx.fillText('↑ training loss (nats)', 2, 12);
    ctx.textAlign = 'right';
    ctx.fillText('held-out accuracy ↑', W - 2, 12);
    // Markers while the points are at least 6 px apart (closer, they would merge into the line).
    const markers = h.length > 0 && (x1 - x0) / Math.max(1, h.length) >= 6;
    const line = (stroke, dash, yOfEntry, mark) => {
      ctx.strokeStyle = stroke;
      ctx.fillStyle = stroke;
      ctx.lineWidth = 2;
      ctx.setLineDash(dash);
      ctx.beginPath();
      h.forEach((e, i) => (i === 0 ? ctx.moveTo : ctx.lineTo).call(ctx, xOf(e.step), yOfEntry(e)));
      ctx.stroke();
      ctx.setLineDash([]);
      if (markers) for (const e of h) mark(xOf(e.step), yOfEntry(e));
      ctx.lineWidth = 1;
    };
    if (h.length > 0) {
      line(
        accent,
        [],
        (e) => yOf(Math.max(e.loss, 10 ** bottom)),
        (x, y) => {
          ctx.beginPath();
          ctx.arc(x, y, 3, 0, 2 * Math.PI);
          ctx.fill();
        },
      );
      line(
        second,
        [6, 3],
        (e) => yAccuracy(e.accuracy),
        (x, y) => ctx.fillRect(x - 3, y - 3, 6, 6),
      );
    }
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    const every = this.#attributes().get('every');
    this.#parts.curveCaption.textContent = `Training loss (left axis, log scale) and held-out token accuracy (right axis) against step: each loss point is the mean loss of the training batches of the ${every} steps before it, so the curves start at step ${every}; each accuracy point is measured on held-out sequences at that step. The latest numbers are in the line above.`;
    canvas.setAttribute(
      'aria-label',
      h.length === 0
        ? 'Loss curve: no training yet'
        : `Loss curve: ${formatNumber(h[0].loss, 3)} nats at step ${h[0].step}, ${formatNumber(h.at(-1).loss, 4)} nats at step ${h.at(-1).step}; held-out token accuracy ${formatNumber(100 * h.at(-1).accuracy, 1)}%`,
    );
  }
}

const CELL = 18,
  GAP = 14,
  FONT = '11px system-ui, sans-serif';

// Heads of one layer side by side on `canvas`: T × T cells on viridis, 1 px apart on the
// border colour (`grid`: light on a dark page, so that a low weight's near-black cell stays a
// cell), token labels on both axes (a repeated token with its position: "1·4"), all written
// across: column labels wider than a cell go in staggered lines (label i on line i mod k, k
// lines so that labels on one line stand k cells apart); the aria-label names, per head, the
// key each query attends to most. Returns the column labels' line count.
//   heads: [heads][T][T] weights   labels: [T]
function drawHeads(canvas, heads, labels, colour, grid) {
  const T = labels.length;
  const ctx = canvas.getContext('2d');
  ctx.font = FONT;
  const widest = Math.ceil(Math.max(...labels.map((l) => ctx.measureText(l).width)));
  const lines = Math.ceil((widest + 3) / CELL); // the column labels' staggered lines
  const left = Math.max(14, widest + 4), // the row labels' column
    top = 14 * lines; // the column labels' lines
  const size = left + T * CELL;
  canvas.width = heads.length * (size + GAP) - GAP;
  canvas.height = top + T * CELL + 16;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.font = FONT; // (a new width resets the context)
  ctx.textBaseline = 'middle';
  heads.forEach((rows, h) => {
    const x0 = h * (size + GAP) + left,
      y0 = top;
    ctx.fillStyle = colour;
    ctx.textAlign = 'center';
    ctx.fillText(`head ${h}`, x0 + (T * CELL) / 2, y0 + T * CELL + 9);
    labels.forEach((label, i) => {
      ctx.textAlign = 'right';
      ctx.fillText(label, x0 - 3, y0 + i * CELL + CELL / 2);
      ctx.textAlign = 'center';
      ctx.fillText(label, x0 + i * CELL + CELL / 2, top - 7 - 14 * (lines - 1 - (i % lines)));
    });
    ctx.fillStyle = grid;
    ctx.fillRect(x0 - 1, y0 - 1, T * CELL + 1, T * CELL + 1);
    rows.forEach((row, i) =>
      row.forEach((w, j) => {
        ctx.fillStyle = heatColour(w, 'sequential').background;
        ctx.fillRect(x0 + j * CELL, y0 + i * CELL, CELL - 1, CELL - 1);
      }),
    );
  });
  const strongest = heads.map(
    (rows, h) =>
      `head ${h}: ${rows.map((row, i) => `${labels[i]}→${labels[row.indexOf(Math.max(...row))]}`).join(' ')}`,
  );
  canvas.setAttribute('aria-label', `Attention maps, the key each query attends to most. ${strongest.join('; ')}`);
  return lines;
}

// The loss chart's key: a sample of each line (colour, dash and marker, as drawn) and what it
// shows, on which axis.
function chartKey() {
  const key = document.createElement('div');
  key.className = 'curve-key';
  key.setAttribute('part', 'legend');
  const entry = (className, dash, marker, words) => {
    const span = Object.assign(document.createElement('span'), { className });
    span.innerHTML = `<svg width="28" height="10" aria-hidden="true"><line x1="0" y1="5" x2="28" y2="5" stroke="currentColor" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>${marker}</svg>`;
    span.append(words);
    return span;
  };
  key.append(
    entry(
      'loss',
      '',
      '<circle cx="14" cy="5" r="3" fill="currentColor"/>',
      'training loss (nats, left axis, log scale)',
    ),
    entry(
      'accuracy',
      '6 3',
      '<rect x="11" y="2" width="6" height="6" fill="currentColor"/>',
      'held-out token accuracy (%, right axis)',
    ),
  );
  return key;
}
