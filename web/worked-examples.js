// Runs the course's worked examples through the public API, step by step, and renders
// each stage: inputs, projections, scaled scores, (mask), weights, A and Y = A·W_O.
import { WEIGHTS, EXAMPLES } from './examples-data.js';
import { matrixView, fromNested } from './matrix-view.js';

/** Computes every stage of one example with the library. */
export function computeExample(attn, ex) {
  const queriesFrom = ex.C ?? ex.X;
  const Q = attn.matmul(queriesFrom, WEIGHTS.W_Q);
  const K = attn.matmul(ex.X, WEIGHTS.W_K);
  const V = attn.matmul(ex.X, WEIGHTS.W_V);
  const { trace } = attn.attention(Q, K, V, { trace: true, mask: ex.mask });
  const Y = attn.matmul(trace.output, WEIGHTS.W_O);
  return { Q, K, V, trace, Y };
}

function step(title, formula, ...views) {
  const div = document.createElement('div');
  div.className = 'step';
  const h = document.createElement('h4');
  h.textContent = title;
  const f = document.createElement('code');
  f.textContent = formula;
  const row = document.createElement('div');
  row.className = 'matrices';
  row.append(...views);
  div.append(h, f, row);
  return div;
}

/** Renders one example into a <section>. */
export function renderExample(attn, ex) {
  const r = computeExample(attn, ex);
  const s = ex.slides;
  const id = (what) => `${ex.id}-${what}`;
  const section = document.createElement('section');
  section.className = 'example';
  section.id = ex.id;
  const h3 = document.createElement('h3');
  h3.textContent = ex.title;
  const p = document.createElement('p');
  p.textContent = ex.text;
  section.append(h3, p);
  const inputs = [matrixView(id('X'), ex.C ? 'X (encoder side: keys, values)' : 'X (tokens as rows)', fromNested(ex.X), { digits: 2 })];
  if (ex.C) inputs.unshift(matrixView(id('C'), 'C (decoder side: queries)', fromNested(ex.C), { digits: 2 }));
  section.append(step('Inputs', ex.C ? 'C: [n, 3] queries, X: [m, 3] keys and values' : 'X: [tokens, d_model = 3]', ...inputs));
  section.append(step('Projections', `Q = ${ex.C ? 'C' : 'X'}·W_Q,  K = X·W_K,  V = X·W_V`,
    matrixView(id('Q'), 'Q', r.Q, { compare: s.Q }),
    matrixView(id('K'), 'K', r.K, { compare: s.K }),
    matrixView(id('V'), 'V', r.V, { compare: s.V })));
  section.append(step('Scores', 'Q·Kᵀ, then scaled by 1/√d = 1/√3',
    matrixView(id('scores'), 'Q·Kᵀ', r.trace.scores),
    matrixView(id('scaled'), 'Q·Kᵀ/√3', r.trace.scaledScores, { compare: s.scaledScores })));
  if (ex.mask) {
    section.append(step('Mask', 'Q·Kᵀ/√3 + M   (−∞ blocks a key)',
      matrixView(id('mask'), 'M', fromNested(ex.mask), { digits: 0 }),
      matrixView(id('masked'), 'masked scores', r.trace.maskedScores)));
  }
  section.append(step('Weights', 'softmax over each row (rows sum to 1)',
    matrixView(id('weights'), 'softmax', r.trace.weights, { heat: true, compare: s.weights })));
  section.append(step('Output', 'A = weights·V,  Y = A·W_O',
    matrixView(id('A'), 'A', r.trace.output, { compare: s.A }),
    matrixView(id('Y'), 'Y', r.Y, { compare: s.Y })));
  if (ex.slips.length) {
    const ul = document.createElement('ul');
    ul.className = 'slips';
    for (const slip of ex.slips) {
      const li = document.createElement('li');
      li.textContent = slip;
      ul.append(li);
    }
    section.append(ul);
  }
  return section;
}

/** Renders all examples into `container`. */
export function renderWorkedExamples(attn, container) {
  const weights = document.createElement('div');
  weights.className = 'matrices';
  for (const [name, w] of Object.entries(WEIGHTS)) weights.append(matrixView(`weights-${name}`, name, fromNested(w), { digits: 2 }));
  container.append(weights);
  for (const ex of EXAMPLES) container.append(renderExample(attn, ex));
}
