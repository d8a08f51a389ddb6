// <positional-encoding>: the position encodings of the course, computed by the library.
//   kind="sinusoidal" (default): the encoding PE [positions, dModel] as a heatmap and the
//     position similarity PE·PEᵀ beside it (sliders: positions, dModel, base);
//   kind="rope": one 2-D pair of a vector rotating as the position advances, and the
//     relative-position property: q_m·k_n depends only on m − n (a table of scores);
//   kind="alibi": the per-head bias matrices −slope_h·|i − j| (heads, length);
//   kind="laplacian": a small graph the reader edits (click a node, then another, to add or
//     remove their edge) and its Laplacian eigenvector encoding with the eigenvalues.
import { getApi, initCode } from './api.js';
import { AttentionMatrix } from './attention-matrix.js';
import { heatColour, formatNumber } from './format.js';
import { tensorJson, jsLiteral } from './export.js';
import { AttentionElement, colourLegend, captionLine, axisTitle } from './base.js';
import { consume } from './keys.js';

const TAG = 'positional-encoding';
// Each kind's name, the first line of its view: four views that look alike in a screenshot
// or on paper say which encoding they draw.
const VIEW_NAMES = {
  sinusoidal: 'Sinusoidal positional encoding (added to the token embeddings, as in the original Transformer)',
  rope: 'RoPE: rotary position embedding (q and k turned by an angle that grows with the position)',
  alibi: 'ALiBi: attention with linear biases (a penalty growing with the distance, added to the scores)',
  laplacian: 'Laplacian eigenvector positional encoding (the positions of a graph’s nodes)',
};

const STYLE = `
:host { display: block; font: var(--attn-text-font, 1rem/1.45 system-ui, sans-serif); max-width: 100%; }
.controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; font-size: 0.9em; }
.row { display: flex; flex-wrap: wrap; gap: 0.8rem; margin-top: 0.5rem; align-items: flex-start; max-width: 100%; }
figure { margin: 0; max-width: 100%; display: flex; flex-direction: column; gap: 0.2rem; }
.plot { display: grid; grid-template-columns: auto auto; gap: 2px 4px; justify-content: start; }
.yticks, .xticks { position: relative; font-size: 0.75rem; font-variant-numeric: tabular-nums; }
.xticks { height: 1.2em; }
.yticks > span { position: absolute; right: 0; top: var(--at); transform: translateY(-50%); line-height: 1; }
.xticks > span { position: absolute; left: var(--at); top: 0; transform: translateX(-50%); line-height: 1.2; }
.view-name { margin: 0.4rem 0 0; font-weight: 700; }
canvas:focus { outline: 2px solid var(--_focus); }
.readout { font-size: 0.8rem; min-height: 1.3em; font-variant-numeric: tabular-nums; }
figure .caption { max-width: 22rem; }
figcaption { font-size: 0.85em; }
canvas { max-width: 100%; image-rendering: pixelated; border: 1px solid var(--attn-border, var(--_cell-edge)); }
svg { max-width: 100%; height: auto; }
svg circle { fill: var(--_node); cursor: pointer; }
svg circle.selected { fill: var(--_selected); }
svg circle:focus { outline: none; stroke: currentColor; stroke-width: 3; }
svg line { stroke: currentColor; stroke-width: 2; }
svg line.k { stroke-dasharray: 4 3; }
svg polygon.arrowhead { fill: currentColor; }
.shades .samples { display: inline-flex; gap: 2px; }
.shades .samples span { display: inline-block; width: 12px; height: 0.7rem; background: currentColor; }
svg text { font: 12px system-ui, sans-serif; fill: #fff; pointer-events: none; }
svg text.label, svg text.tick, svg text.axis-title { fill: currentColor; }
/* a halo of the page's colour, so that an arrow under a tick's number does not hide it */
svg text.tick { paint-order: stroke; stroke: Canvas; stroke-width: 3px; stroke-linejoin: round; }
svg text.tick, svg text.axis-title { font-size: 11px; }
svg line.axis { stroke-width: 1; opacity: 0.55; }
svg rect.frame { fill: none; stroke: currentColor; stroke-width: 1; opacity: 0.35; }
.pair { font-size: 0.85em; margin: 0; }
svg line.leader { stroke-width: 0.75; opacity: 0.6; stroke-dasharray: 1 2.5; }
.styles svg { vertical-align: middle; margin-inline: 0.2rem; }
.styles .entry { white-space: nowrap; }
.styles line { stroke: currentColor; stroke-width: 2; }
.styles line.sample-k { stroke-dasharray: 4 3; }
.styles line.sample-leader { stroke-width: 0.75; stroke-dasharray: 1 2.5; opacity: 0.6; }
.note { font-size: 0.85em; }
.note .formula { white-space: nowrap; }
/* On paper nothing is hovered: what the readout would give, where it fits on a line */
.print-only { display: none; }
@media print { .print-only { display: block; } .readout { display: none; } }
`;

const SVG = 'http://www.w3.org/2000/svg';
// The RoPE view's query and key: one made-up feature pair each, the same at every position
// (RoPE then rotates each by its own position).
const ROPE_Q = [1, 0.5],
  ROPE_K = [0.3, 1];

// A big matrix as a canvas heatmap, one cell per value: a diverging map centred on 0 when
// the values are signed, else the sequential one; axis titles and end ticks, a legend with
// the numbers the colours span, a caption; hover or focus (then the arrow keys) reads a cell.
//   t: [rows, cols]   axes: { rows: 'position', cols: 'feature' }   legendTitle: what a colour is
function heatCanvas(t, label, axes, legendTitle, sentence) {
  const [rows, cols] = t.shape;
  const cell = Math.max(2, Math.floor(Math.min(320 / cols, 240 / rows)));
  const canvas = document.createElement('canvas');
  canvas.width = cols * cell;
  canvas.height = rows * cell;
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  const ctx = canvas.getContext('2d');
  let min = Infinity,
    max = -Infinity;
  for (const x of t.data)
    if (Number.isFinite(x)) {
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
  const kind = min < 0 ? 'diverging' : 'sequential';
  const span =
    kind === 'diverging'
      ? (() => {
          const m = Math.max(-min, max);
          return { min: -m, max: m };
        })()
      : { min, max };
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      ctx.fillStyle = heatColour(t.data[i * cols + j], kind, span)?.background ?? '#000';
      ctx.fillRect(j * cell, i * cell, cell, cell);
    }
  canvas.setAttribute(
    'aria-label',
    `${label}: a ${rows} by ${cols} heatmap, ${axes.rows} down, ${axes.cols} across, values ${formatNumber(min, 3)} to ${formatNumber(max, 3)}; arrow keys read a cell`,
  );
  const readout = document.createElement('div');
  readout.className = 'readout';
  readout.setAttribute('aria-live', 'polite');
  let at = [0, 0];
  const read = ([i, j]) => {
    at = [i, j];
    readout.textContent = `${axes.rows} ${i}, ${axes.cols} ${j}: ${t.data[i * cols + j]}`;
  };
  canvas.addEventListener('mousemove', (e) => {
    const box = canvas.getBoundingClientRect();
    const j = Math.min(cols - 1, Math.floor(((e.clientX - box.left) / box.width) * cols));
    const i = Math.min(rows - 1, Math.floor(((e.clientY - box.top) / box.height) * rows));
    if (i >= 0 && j >= 0) read([i, j]);
  });
  canvas.addEventListener('focus', () => read(at));
  canvas.addEventListener('keydown', (e) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!moves[e.key]) return;
    consume(e);
    read([
      Math.max(0, Math.min(rows - 1, at[0] + moves[e.key][0])),
      Math.max(0, Math.min(cols - 1, at[1] + moves[e.key][1])),
    ]);
  });
  const plot = document.createElement('div');
  plot.className = 'plot';
  plot.append(axisTicks('yticks', rows), canvas, document.createElement('span'), axisTicks('xticks', cols));
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption');
  caption.textContent = `${label} [${rows} × ${cols}]`;
  figure.append(
    caption,
    axisTitle(`${axes.rows} ↓   ${axes.cols} →`),
    plot,
    readout,
    colourLegend({ kind, min, max, title: `${legendTitle} (this image's own scale)`, digits: 2 }),
    captionLine(sentence),
  );
  return figure;
}

// An axis's tick numbers under (xticks) or beside (yticks) a heatmap of n cells: 0, every
// step (a round number giving at most five ticks) and the last, n − 1, each at its cell's
// centre (in %, so a canvas scaled down to a narrow page keeps them in place); a step tick
// closer than half a step to the last is left out.
function axisTicks(className, n) {
  const step = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100].find((s) => (n - 1) / s <= 4) ?? Math.ceil((n - 1) / 4);
  const at = [];
  for (let i = 0; i < n - 1; i += step) if (i === 0 || n - 1 - i >= step / 2) at.push(i);
  if (n > 1) at.push(n - 1);
  const div = document.createElement('div');
  div.className = className;
  div.setAttribute('aria-hidden', 'true');
  for (const i of at) {
    const span = Object.assign(document.createElement('span'), { textContent: String(i) });
    span.style.setProperty('--at', `${((i + 0.5) / n) * 100}%`);
    div.append(span);
  }
  if (className === 'yticks') div.style.width = `${String(n - 1).length + 0.5}ch`;
  return div;
}

// One arrow of the RoPE wheel from the centre to (x, y) (|(x, y)| ≤ 1, y up): its shaft and
// its arrowhead, [line, polygon].
function arrow(x, y, opacity, kind) {
  const r = Math.hypot(x, y) || 1;
  const [ux, uy] = [x / r, y / r];
  const line = svgElement('line', { x1: 0, y1: 0, x2: 80 * x - 10 * ux, y2: -80 * y + 10 * uy }, kind);
  // The shaft stops short of the tip, where the arrowhead (a triangle) ends.
  line.style.opacity = String(opacity);
  const head = document.createElementNS(SVG, 'polygon');
  const [tx, ty, nx, ny] = [90 * x, -90 * y, -uy, -ux]; // tip, and the unit normal
  const [bx, by] = [90 * x - 12 * ux, -90 * y + 12 * uy];
  head.setAttribute(
    'points',
    [
      [tx, ty],
      [bx + 5 * nx, by + 5 * ny],
      [bx - 5 * nx, by - 5 * ny],
    ]
      .map((pt) => pt.map((v) => v.toFixed(2)).join(','))
      .join(' '),
  );
  head.setAttribute('class', `arrowhead ${kind}`);
  head.style.opacity = String(opacity);
  return [line, head];
}

// An SVG element with its attributes (numbers written as they are) and class.
function svgElement(name, attributes, className) {
  const el = document.createElementNS(SVG, name);
  for (const [a, v] of Object.entries(attributes)) el.setAttribute(a, String(v));
  if (className) el.setAttribute('class', className);
  return el;
}

// The angles (rad) at which to write the wheel's labels: each arrow's own angle, pushed apart
// until neighbours (around the circle) are at least `gap` apart, so that no two labels meet.
//   angles: [n] (any range; n·gap < 2π)
function spreadAngles(angles, gap) {
  const order = angles.map((a, i) => [((a % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI), i]);
  order.sort((a, b) => a[0] - b[0]);
  const at = order.map(([a]) => a);
  for (let round = 0; round < 200; round++) {
    let moved = false;
    for (let j = 0; j < at.length; j++) {
      const next = (j + 1) % at.length;
      const between = next === 0 ? at[0] + 2 * Math.PI - at[j] : at[next] - at[j];
      if (between >= gap - 1e-9) continue;
      const push = (gap - between) / 2;
      at[j] -= push;
      at[next] += push;
      moved = true;
    }
    if (!moved) break;
  }
  const spread = new Array(angles.length);
  order.forEach(([, i], j) => (spread[i] = at[j]));
  return spread;
}

// The wheel's labels: each arrow's name on a ring outside the arrows, at its spread angle, with
// a thin leader line from the arrow's tip to it.
//   tips: [{ x, y, name }] (|(x, y)| ≤ 1, y up)
function wheelLabels(tips) {
  const ring = 118;
  const spread = spreadAngles(
    tips.map(({ x, y }) => Math.atan2(y, x)),
    0.3,
  );
  return tips.flatMap(({ x, y, name }, i) => {
    const [cx, cy] = [Math.cos(spread[i]), Math.sin(spread[i])];
    const leader = svgElement(
      'line',
      { x1: 90 * x, y1: -90 * y, x2: (ring - 10) * cx, y2: -(ring - 10) * cy },
      'leader',
    );
    const label = svgElement('text', { x: ring * cx, y: -ring * cy + 4, 'text-anchor': 'middle' }, 'label');
    label.textContent = name;
    return [leader, label];
  });
}

// The wheel's axes: the plane of the pair shown (feature 2i across, 2i + 1 up) through the
// centre, with tick marks at −1, −0.5, 0.5 and 1 of the vectors' own units (`unit` px each),
// inside a frame (half-side FRAME px) that holds the arrows and their labels. The tick numbers
// and the axis titles sit outside the frame (below it and left of it), where no arrow or label
// reaches: { lines, words } (the words go over the arrows, which are drawn between the two).
const FRAME = 136;
function wheelAxes(unit) {
  const lines = [
    svgElement('line', { x1: -100, y1: 0, x2: 100, y2: 0 }, 'axis'),
    svgElement('line', { x1: 0, y1: -100, x2: 0, y2: 100 }, 'axis'),
    svgElement('rect', { x: -FRAME, y: -FRAME, width: 2 * FRAME, height: 2 * FRAME }, 'frame'),
  ];
  const words = [];
  for (const v of [-1, -0.5, 0, 0.5, 1]) {
    const px = v * unit;
    if (v !== 0) {
      lines.push(svgElement('line', { x1: px, y1: -3, x2: px, y2: 3 }, 'axis tick x'));
      lines.push(svgElement('line', { x1: -3, y1: -px, x2: 3, y2: -px }, 'axis tick y'));
    }
    lines.push(svgElement('line', { x1: px, y1: FRAME, x2: px, y2: FRAME + 4 }, 'axis tick x'));
    lines.push(svgElement('line', { x1: -FRAME - 4, y1: -px, x2: -FRAME, y2: -px }, 'axis tick y'));
    const x = svgElement('text', { x: px, y: FRAME + 15, 'text-anchor': 'middle' }, 'tick x');
    const y = svgElement('text', { x: -FRAME - 6, y: -px + 4, 'text-anchor': 'end' }, 'tick y');
    x.textContent = y.textContent = formatNumber(v, 1).replace(/\.0$/, '');
    words.push(x, y);
  }
  const xTitle = svgElement('text', { x: 0, y: FRAME + 31, 'text-anchor': 'middle' }, 'axis-title');
  xTitle.textContent = 'x: feature 2i →';
  const yTitle = svgElement('text', { x: -FRAME - 30, y: -FRAME - 8 }, 'axis-title');
  yTitle.textContent = '↑ y: feature 2i + 1';
  return { lines, words: [...words, xTitle, yTitle] };
}

// The RoPE wheel's key: an arrow's shade says its position (the first palest, the last darkest).
function shadeKey(opacities) {
  const key = document.createElement('div');
  key.className = 'legend shades';
  key.setAttribute('part', 'legend');
  const samples = document.createElement('span');
  samples.className = 'samples';
  samples.setAttribute('aria-hidden', 'true');
  for (const opacity of opacities)
    samples.append(Object.assign(document.createElement('span'), { style: `opacity: ${opacity}` }));
  key.append(`arrow shade = position: 0`, samples, String(opacities.length - 1));
  return key;
}

// The RoPE wheel's other key: what each line style is (solid q, dashed k, dotted a label's
// leader), each with a sample drawn as the wheel draws it.
function lineStyleKey() {
  const key = document.createElement('div');
  key.className = 'legend styles';
  key.setAttribute('part', 'legend');
  const sample = (kind) => {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('width', '28');
    svg.setAttribute('height', '8');
    svg.setAttribute('aria-hidden', 'true');
    // (sample-*: not the wheel's q, k and leader lines, which tests and readers count)
    svg.append(svgElement('line', { x1: 1, y1: 4, x2: 27, y2: 4 }, `sample-${kind}`));
    return svg;
  };
  // each sample and its words in one unbreakable span (at 390 px a sample sat a line above them)
  const entry = (kind, words) => {
    const span = document.createElement('span');
    span.className = 'entry';
    span.append(sample(kind), words);
    return span;
  };
  key.append(
    'line:',
    entry('q', 'solid = query q_m'),
    entry('k', 'dashed = key k_n'),
    entry('leader', 'dotted = joins a name to its arrow’s tip'),
  );
  return key;
}

// Why PE's right side is striped, read from its values: feature pair i turns at ωᵢ =
// base^(−2i/d_model), slower as i grows; from the first pair k after which every pair's sine
// stays within ±0.5 over all the positions shown, the sines (even features) stay near 0 and
// the cosines (odd features) near 1, so the columns alternate pale and red down the rows.
//   pe: [positions, d_model]
function stripeWords(pe) {
  const [positions, d] = pe.shape;
  const slow = (i) =>
    Array.from({ length: positions }, (_, p) => Math.abs(pe.data[p * d + 2 * i])).every((v) => v <= 0.5);
  let k = d / 2;
  while (k > 0 && slow(k - 1)) k--;
  const why = 'Higher features turn at lower frequencies (ωᵢ = base^(−2i/d_model) shrinks as i grows)';
  if (k === d / 2) return `${why}, so the further right a column, the more slowly it changes down the rows.`;
  // the bounds read from the values (a reader saw feature 16 reach 0.30, visibly pink, where
  // the words said "near 0 (palest)")
  let sine = 0,
    cosine = 1;
  for (let p = 0; p < positions; p++)
    for (let i = k; i < d / 2; i++) {
      sine = Math.max(sine, Math.abs(pe.data[p * d + 2 * i]));
      if (2 * i + 1 < d) cosine = Math.min(cosine, pe.data[p * d + 2 * i + 1]);
    }
  return `${why}: from feature ${2 * k} on, over these ${positions} positions the sines (even features) stay within ±${formatNumber(sine, 2)} of 0 (pale) and the cosines (odd features) at ${formatNumber(cosine, 2)} or more (red), hence the stripes.`;
}

// What PE·PEᵀ shows, read from its values. PE_p · PE_p′ = Σᵢ cos((p − p′)·ωᵢ) depends only on
// the distance, so row 0 holds every value: s(Δ) = similarity[0, Δ], Δ = 0 … positions − 1.
// "Falls off overall": the mean of the nearer half of the distances is above the farther
// half's; "ripples": s rises again somewhere as Δ grows.
//   similarity: [positions, positions]
function similarityWords(similarity) {
  const n = similarity.shape[0];
  const s = Array.from(similarity.data.subarray(0, n));
  const low = s.indexOf(Math.min(...s));
  const half = Math.floor(n / 2);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const falls = mean(s.slice(1, half + 1)) > mean(s.slice(half + 1));
  const ripples = s.slice(1).some((x, gap) => x > s[gap] + 1e-4);
  const trend = falls
    ? ripples
      ? 'falls off overall as the positions move apart, rippling on the way'
      : 'falls off steadily as the positions move apart'
    : ripples
      ? 'ripples rather than falling off as the positions move apart'
      : 'stays level as the positions move apart';
  const f = (x) => formatNumber(x, 2);
  // The colours as heatCanvas chooses them: diverging when a value is below 0.
  const colours =
    Math.min(...similarity.data) < 0
      ? 'Blue is below 0, red above, white 0.'
      : `The colours span ${f(s[low])} to ${f(s[0])}: the darkest cell is ${f(s[low])}, not 0.`;
  return (
    `Each cell is the dot product of two positions' encodings: it depends only on their distance (each diagonal holds one value). ` +
    `It is ${f(s[0])} (= d_model/2) on the diagonal and ${trend}; the lowest, ${f(s[low])}, is at distance ${low}. ${colours}`
  );
}

// On paper, every value of PE·PEᵀ: one per distance (each diagonal holds one), from row 0.
//   similarity: [positions, positions]
function similarityByDistance(similarity) {
  const n = similarity.shape[0];
  const values = Array.from(similarity.data.subarray(0, n), (x, gap) => `${gap}: ${formatNumber(x, 2)}`);
  const p = document.createElement('p');
  p.className = 'caption print-only';
  p.textContent = `The value at each distance |p − p′| (each diagonal): ${values.join(', ')}.`;
  return p;
}

function transpose(t) {
  const [rows, cols] = t.shape;
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) data[j * rows + i] = t.data[i * cols + j];
  return { data, shape: [cols, rows] };
}

function slider(name, label, min, max, step, value, onInput) {
  const l = document.createElement('label');
  const input = document.createElement('input');
  Object.assign(input, {
    type: 'range',
    name,
    min: String(min),
    max: String(max),
    step: String(step),
    value: String(value),
  });
  const out = document.createElement('output');
  out.textContent = String(value);
  input.addEventListener('input', () => {
    out.textContent = input.value;
    onInput(Number(input.value));
  });
  l.append(`${label} `, input, out);
  return l;
}

export class PositionalEncoding extends AttentionElement {
  static tag = TAG;
  static style = STYLE;

  #state = {
    positions: 32,
    dModel: 32,
    base: 10000,
    heads: 4,
    length: 6,
    nodes: 6,
    edges: [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 0],
    ],
    k: 2,
    selected: null,
  };
  #tensors = {};

  connectedCallback() {
    super.connectedCallback();
    this.#update();
  }
  attributeChangedCallback() {
    if (this.isConnected) this.#update();
  }

  /** The encoding shown (sinusoidal while the attribute names none: attributes.js). */
  get kind() {
    return this.attributeReader().get('kind');
  }
  set kind(v) {
    this.setAttribute('kind', v);
  }
  /** The graph of the Laplacian view: { numNodes, edges }. */
  get graph() {
    return { numNodes: this.#state.nodes, edges: this.#state.edges.map((e) => e.slice()) };
  }
  set graph(g) {
    this.#state.nodes = Number(g.numNodes);
    this.#state.edges = Array.from(g.edges, (e) => [Number(e[0]), Number(e[1])]);
    this.#update();
  }
  /** The tensors shown, by name. */
  get tensors() {
    return this.#tensors;
  }

  /** Adds or removes the edge between nodes a and b (the Laplacian view's click). */
  toggleEdge(a, b) {
    if (a === b) return;
    const edges = this.#state.edges;
    const at = edges.findIndex(([x, y]) => (x === a && y === b) || (x === b && y === a));
    if (at >= 0) edges.splice(at, 1);
    else edges.push([Math.min(a, b), Math.max(a, b)]);
    this.#update();
  }

  async #update() {
    // A bad attribute's message at once, over what is shown; the drawing below renews it.
    this.showAttributeError(this.attributeReader().checkAll().error);
    const attn = await getApi();
    const views = {
      sinusoidal: () => this.#sinusoidal(attn),
      rope: () => this.#rope(attn),
      alibi: () => this.#alibi(attn),
      laplacian: () => this.#laplacian(attn),
    };
    const attributes = this.attributeReader().checkAll();
    const kind = attributes.get('kind');
    const content = views[kind]();
    const active = this.shadowRoot.activeElement;
    const focusName = active?.getAttribute?.('name') ?? active?.dataset?.node;
    const name = Object.assign(document.createElement('p'), { className: 'view-name', textContent: VIEW_NAMES[kind] });
    this.shadowRoot.replaceChildren(this.exportBar(`positional-${kind}`), name, ...content);
    this.showAttributeError(attributes.error);
    if (focusName != null) this.shadowRoot.querySelector(`[name="${focusName}"], [data-node="${focusName}"]`)?.focus();
  }

  #sinusoidal(attn) {
    const s = this.#state;
    const pe = attn.sinusoidalEncoding(s.positions, s.dModel, { base: s.base });
    const similarity = attn.matmul(pe, transpose(pe));
    this.#tensors = { pe, similarity };
    const controls = document.createElement('div');
    controls.className = 'controls';
    const base = document.createElement('label');
    const select = document.createElement('select');
    select.name = 'base';
    for (const b of [10000, 100, 10]) {
      const o = document.createElement('option');
      o.textContent = String(b);
      o.selected = b === s.base;
      select.append(o);
    }
    select.addEventListener('change', () => {
      s.base = Number(select.value);
      this.#update();
    });
    base.append('base ', select);
    controls.append(
      slider('positions', 'positions', 4, 64, 1, s.positions, (v) => {
        s.positions = v;
        this.#update();
      }),
      slider('dModel', 'd_model', 4, 64, 2, s.dModel, (v) => {
        s.dModel = v;
        this.#update();
      }),
      base,
    );
    const row = document.createElement('div');
    row.className = 'row';
    row.append(
      heatCanvas(
        pe,
        'PE',
        { rows: 'position', cols: 'feature' },
        'PE value',
        `Each row encodes one position: left features (fast sines) change quickly from row to row, right ones slowly. ${stripeWords(pe)}`,
      ),
      heatCanvas(
        similarity,
        'PE·PEᵀ',
        { rows: 'position', cols: 'position' },
        'dot product',
        similarityWords(similarity),
      ),
    );
    row.lastChild.append(similarityByDistance(similarity));
    const note = document.createElement('p');
    note.className = 'note';
    // Each formula whole on its line (round 5: at 390 px a line ended "with ωᵢ" at the edge,
    // its "= base^…" on the next, and read as cut off).
    const formula = (text) =>
      Object.assign(document.createElement('span'), { className: 'formula', textContent: text });
    note.append(
      formula('PE[p, 2i] = sin(p·ωᵢ)'),
      ', ',
      formula('PE[p, 2i+1] = cos(p·ωᵢ)'),
      ', with ',
      formula('ωᵢ = base^(−2i/d_model)'),
      '. So ',
      formula('PE_p · PE_p′ = Σᵢ cos((p − p′)·ωᵢ)'),
      ', a sum of d_model/2 cosines of the distance: each is 1 where p = p′; elsewhere the fast ones (small i) swing between −1 and 1, which makes the ripples, and the slow ones (large i) change little from one position to the next.',
    );
    return [controls, row, note];
  }

  #rope(attn) {
    const dim = 2;
    const positions = Array.from({ length: 8 }, (_, p) => p);
    const base = this.#state.base; // the first pair turns 1 rad per position for any base
    // Scores q_m·k_n: the same made-up q and k at every position, each rotated to its own
    // position m or n: constant along diagonals.
    const atEvery = (vector) =>
      attn.applyRope(attn.tensor(Float32Array.from(positions.flatMap(() => vector)), [positions.length, dim]), {
        positions,
        base,
      });
    const [q, k] = [atEvery(ROPE_Q), atEvery(ROPE_K)];
    const scores = attn.matmul(q, transpose(k));
    this.#tensors = { q, k, scores };
    // The wheel: the grid's q at each query position (solid arrows) and its k at each key
    // position (dashed), as RoPE rotates them, on the axes of the pair's plane.
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `${-FRAME - 32} ${-FRAME - 22} ${2 * FRAME + 36} ${2 * FRAME + 58}`);
    svg.setAttribute('width', String(2 * FRAME + 36));
    svg.setAttribute('role', 'img');
    svg.setAttribute(
      'aria-label',
      `q = (${ROPE_Q.join(', ')}) and k = (${ROPE_K.join(', ')}) rotated by RoPE at positions 0 to 7, 1 rad per position, in the plane of features 0 (x) and 1 (y)`,
    );
    // later positions darker; the first at 0.52, 4.3:1 or more against either page
    const shade = (p) => 0.45 + (0.55 * (p + 1)) / positions.length;
    const longest = Math.max(Math.hypot(...ROPE_Q), Math.hypot(...ROPE_K));
    const axes = wheelAxes(90 / longest);
    svg.append(...axes.lines);
    const tips = [];
    for (const [name, t] of [
      ['q', q],
      ['k', k],
    ])
      positions.forEach((p) => {
        const [x, y] = [t.data[2 * p] / longest, t.data[2 * p + 1] / longest];
        svg.append(...arrow(x, y, shade(p), name));
        tips.push({ x, y, name: `${name}${p}` });
      });
    svg.append(...axes.words, ...wheelLabels(tips));
    const m = new AttentionMatrix();
    m.dataset.name = 'scores';
    m.setAttribute('label', 'q_m · k_n after RoPE (rows m, columns n)');
    m.setAttribute('precision', '2');
    m.setAttribute('heat', 'diverging');
    m.value = scores;
    const row = document.createElement('div');
    row.className = 'row';
    m.rowLabels = positions.map(String);
    m.colLabels = positions.map(String);
    m.setAttribute('row-title', 'query position m');
    m.setAttribute('col-title', 'key position n');
    m.setAttribute(
      'caption',
      `q = (${ROPE_Q.join(', ')}) and k = (${ROPE_K.join(', ')}), two made-up feature pairs, the same at every position: q is rotated to query position m, k to key position n (1 rad per position, as the wheel), and each cell is their dot product, q·R((n − m)·1 rad)·k. Every diagonal (equal m − n) holds one value: the score depends only on the distance.`,
    );
    const pair = document.createElement('p');
    pair.className = 'pair';
    pair.textContent = 'The pair shown: i = 0, features 0 (x) and 1 (y).';
    const wheel = document.createElement('figure');
    wheel.append(
      pair,
      svg,
      shadeKey(positions.map(shade)),
      lineStyleKey(),
      captionLine(
        `Solid arrows q0 … q7: one query vector, q = (${ROPE_Q.join(', ')}) before rotation, rotated by RoPE to query positions 0 to 7 (q_m is q at position m). Dashed arrows k0 … k7: one key vector, k = (${ROPE_K.join(', ')}) before rotation, rotated to key positions 0 to 7. These are the q_m and k_n of the score table q_m · k_n. Each turns 1 rad per position, so the angle between q_m and k_n, and with it their score, depends only on n − m.`,
      ),
    );
    row.append(wheel, m);
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `RoPE rotates feature pair i (features 2i and 2i + 1 of each query and key head) by θᵢ = base^(−2i/d) radians per position (base ${base}), d being the head dimension: here d = ${dim}, one pair (a model's heads typically have 64 or 128 features: 32 or 64 pairs). The pair shown is the first (i = 0), so θ₀ = base⁰ = 1 rad per position whatever the base; later pairs turn more slowly. A score between positions m and n then depends only on m − n.`;
    return [row, note];
  }

  #alibi(attn) {
    const s = this.#state;
    const bias = attn.alibiBias(s.heads, s.length);
    const slopes = attn.alibiSlopes(s.heads);
    this.#tensors = { bias };
    const controls = document.createElement('div');
    controls.className = 'controls';
    controls.append(
      slider('heads', 'heads', 1, 8, 1, s.heads, (v) => {
        s.heads = v;
        this.#update();
      }),
      slider('length', 'length', 2, 10, 1, s.length, (v) => {
        s.length = v;
        this.#update();
      }),
    );
    const row = document.createElement('div');
    row.className = 'row';
    const per = s.length * s.length;
    // One colour scale for every head, so that their slopes compare: ± the largest |bias|.
    const largest = bias.data.reduce((a, x) => Math.max(a, Math.abs(x)), 0) || 1;
    for (let h = 0; h < s.heads; h++) {
      const m = new AttentionMatrix();
      m.dataset.name = `head-${h + 1}`;
      m.setAttribute('label', `head ${h + 1}, slope ${slopes[h]}`);
      m.setAttribute('precision', '2');
      m.setAttribute('heat', 'diverging');
      m.setAttribute('row-title', 'query i');
      m.setAttribute('col-title', 'key j');
      m.scale = { min: -largest, max: largest, note: 'one scale for every head' };
      m.value = { data: bias.data.slice(h * per, (h + 1) * per), shape: [s.length, s.length] };
      row.append(m);
    }
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent =
      'ALiBi adds −slope·|i − j| to the scores instead of adding positions to the tokens: far keys are penalised, more so in heads with steeper slopes.';
    return [controls, row, note];
  }

  #laplacian(attn) {
    const s = this.#state;
    const k = Math.min(s.k, Math.max(1, s.nodes - 1));
    const encoding = attn.laplacianEncoding({ numNodes: s.nodes, edges: s.edges }, k);
    this.#tensors = {
      encoding: { data: encoding.data, shape: encoding.shape },
      eigenvalues: { data: encoding.eigenvalues, shape: [k] },
    };
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '-120 -120 240 240');
    svg.setAttribute('width', '240');
    svg.setAttribute(
      'aria-label',
      `graph of ${s.nodes} nodes and ${s.edges.length} edges: select a node, then another, to add or remove their edge`,
    );
    const at = (i) => [
      90 * Math.cos((2 * Math.PI * i) / s.nodes - Math.PI / 2),
      90 * Math.sin((2 * Math.PI * i) / s.nodes - Math.PI / 2),
    ];
    for (const [a, b] of s.edges) {
      const line = document.createElementNS(SVG, 'line');
      const [x1, y1] = at(a),
        [x2, y2] = at(b);
      Object.entries({ x1, y1, x2, y2 }).forEach(([n, v]) => line.setAttribute(n, String(v)));
      line.dataset.edge = `${a}-${b}`;
      svg.append(line);
    }
    for (let i = 0; i < s.nodes; i++) {
      const [x, y] = at(i);
      const c = document.createElementNS(SVG, 'circle');
      Object.entries({ cx: x, cy: y, r: 13 }).forEach(([n, v]) => c.setAttribute(n, String(v)));
      c.setAttribute('tabindex', '0');
      c.setAttribute('role', 'button');
      c.setAttribute('aria-label', `node ${i + 1}${s.selected === i ? ', selected' : ''}`);
      c.dataset.node = String(i);
      if (s.selected === i) c.classList.add('selected');
      const choose = () => {
        if (s.selected === null) {
          s.selected = i;
          this.#update();
          return;
        }
        const a = s.selected;
        s.selected = null;
        if (a === i) this.#update();
        else this.toggleEdge(a, i);
      };
      c.addEventListener('click', choose);
      c.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          consume(e);
          choose();
        }
      });
      const t = document.createElementNS(SVG, 'text');
      t.setAttribute('x', String(x - 4));
      t.setAttribute('y', String(y + 4));
      t.textContent = String(i + 1);
      svg.append(c, t);
    }
    const controls = document.createElement('div');
    controls.className = 'controls';
    controls.append(
      slider('nodes', 'nodes', 3, 12, 1, s.nodes, (v) => {
        s.nodes = v;
        s.edges = s.edges.filter(([a, b]) => a < v && b < v);
        s.selected = null;
        this.#update();
      }),
      slider('k', 'eigenvectors k', 1, 4, 1, s.k, (v) => {
        s.k = v;
        this.#update();
      }),
    );
    const m = new AttentionMatrix();
    m.dataset.name = 'encoding';
    m.setAttribute('label', 'encoding (nodes × k)');
    m.setAttribute('precision', '3');
    m.setAttribute('heat', 'diverging');
    m.rowLabels = Array.from({ length: s.nodes }, (_, i) => `node ${i + 1}`);
    m.setAttribute('row-title', 'node');
    m.setAttribute('col-title', 'eigenvector');
    m.value = encoding;
    const values = new AttentionMatrix();
    values.dataset.name = 'eigenvalues';
    values.setAttribute('label', 'eigenvalues');
    values.setAttribute('precision', '4');
    values.setAttribute('row-title', '');
    values.setAttribute('col-title', 'eigenvector');
    values.value = { data: encoding.eigenvalues, shape: [1, k] };
    const row = document.createElement('div');
    row.className = 'row';
    row.append(svg, m, values);
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent =
      "Each node's position is its row of the k eigenvectors of the normalised Laplacian after the trivial one: nodes close in the graph get similar rows. ";
    note.append(
      Object.assign(document.createElement('span'), {
        className: 'print-hide', // nothing to click on paper
        textContent: 'Click or tap a node, then another, to add or remove the edge between them.',
      }),
    );
    return [controls, row, note];
  }

  /** The tensors shown and the settings, as JSON. */
  toJSON() {
    return {
      element: 'positional-encoding',
      kind: this.kind,
      graph: this.kind === 'laplacian' ? this.graph : undefined,
      tensors: Object.fromEntries(Object.entries(this.#tensors).map(([k, t]) => [k, tensorJson(t)])),
    };
  }

  /** JavaScript that computes what this view shows. */
  toCode() {
    const s = this.#state;
    const call = {
      sinusoidal: `const pe = attn.sinusoidalEncoding(${s.positions}, ${s.dModel}, { base: ${s.base} });`,
      rope: [
        'const positions = [0, 1, 2, 3, 4, 5, 6, 7];',
        `const atEvery = (pair) => attn.applyRope(attn.tensor(positions.flatMap(() => pair), [8, 2]), { positions, base: ${s.base} });`,
        `const q = atEvery(${jsLiteral(ROPE_Q)}), k = atEvery(${jsLiteral(ROPE_K)});  // the wheel's arrows`,
        'const { trace } = attn.attention(q, k, k, { trace: true });  // trace.scores[m][n] = q_m · k_n',
      ].join('\n'),
      alibi: `const bias = attn.alibiBias(${s.heads}, ${s.length});  // add as a mask: attention(q, k, v, { mask: bias })`,
      laplacian: `const encoding = attn.laplacianEncoding(${jsLiteral(this.graph)}, ${jsLiteral(s.k)});`,
    }[this.kind];
    return `import { init } from 'attention-wasm';\n\n${initCode()}\n${call}\n`;
  }
}
