// The stages <attention-explainer> shows, from the runner's trace of one position: embedding
// (with its token and position rows), norm, Q/K/V per head, scores, mask and softmax, the
// weighted sum, the output projection and residual, the MLP, the final norm, the logits and
// sampling. Each is a titled <section> with one caption sentence; vectors are strips and small
// grids tables (explainer-views.js), every number the trace's.
import { captionLine, screenOrPaper } from './view-parts.js';
import { formatNumber } from './format.js';
import { vectorStrip, heatTable, valueRange } from './explainer-views.js';

// The model's words for its pieces: norm, activation, positions.
function describeModel(model) {
  const d = model.descriptor;
  const norm = d.norm === 'rms' ? 'RMSNorm' : 'LayerNorm';
  const activation = model.config.hidden_act ?? model.config.activation_function ?? d.activation;
  const positions =
    d.rotaryDim > 0
      ? `no position vector is added: RoPE rotates each query and key by its position (stage 3, ${d.rotaryDim} of ${d.headDim} dims per head)`
      : d.maxPositions > 0
        ? 'plus the learned position embedding of its position'
        : 'no position information';
  const scale = d.attentionScale > 0 ? d.attentionScale : 1 / Math.sqrt(d.headDim);
  return { norm, activation, positions, scale, gated: Boolean(d.gatedFfn) };
}

/**
 * The stages of `result` (the element's { tokens, labels, names, position, trace }) for layer and
 * head (0-based), each a <section>: a numbered title, one caption sentence, its vectors and
 * grids; `link` joins their highlighting; `headPicker()` gives stage 3's choice of the head whose
 * keys and values are shown, `sampling()` the sampling stage's controls and result.
 */
// What the mask stage does for the token at `position` of T: a decoder's later keys are −∞;
// the last token sees every key, so nothing is masked (on screen the reader is told where to
// look): text, or [text and spans] (screenOrPaper).
function maskWords(d, position, T) {
  if (!d.causal) return 'an encoder masks no key (padding aside), ';
  if (position === T - 1)
    return [
      'keys after it would be masked to −∞, but it is the last token, so it sees every key',
      ...screenOrPaper(' (pick an earlier token to see the −∞ cells)'),
      ', ',
    ];
  return `the ${T - 1 - position} keys after it are masked to −∞ (it may not look ahead), `;
}

export function explainerStages({ model: m, result: r, layer: l, head: h, link, headPicker, sampling: samplingParts }) {
  const d = m.descriptor,
    t = r.trace;
  const words = describeModel(m);
  const layer = t.layers[l];
  const tok = `“${r.names[r.position]}”`;
  const strip = (values, title, scale = null) => vectorStrip(values.data ?? values, { title, link, scale });
  // The strips of one stage, which a reader compares, on one colour scale (its legend says
  // so): [[values, title]] → strips. A ±0.12 strip beside a ±0.88 one looks paler.
  const strips = (...items) => {
    const [min, max] = valueRange(items.flatMap(([values]) => Array.from(values.data ?? values)));
    const title = `one scale for this stage's ${items.length} strips`;
    return items.map(([values, name]) => strip(values, name, items.length > 1 ? { min, max, title } : null));
  };
  // One colour range over several grids' values (−∞ left out), for grids a reader compares.
  const rangeOver = (...tensors) => valueRange(tensors.flatMap((values) => Array.from(values)));
  const heads = Array.from({ length: d.numHeads }, (_, i) => `head ${i}`);
  const dims = Array.from({ length: d.headDim }, (_, i) => String(i));
  const keys = r.names; // one name per token, as the picker names it ('at·9')
  const group = d.numHeads / d.numKvHeads;
  const kv = Math.floor(h / group);
  const T = r.tokens.length;
  const kvRows = (tensor) => tensor.data.subarray(kv * T * d.headDim, (kv + 1) * T * d.headDim);
  const L = `Layer ${l}`;
  // Whose keys and values stage 3 shows: the head's (with grouped-query attention, the
  // key/value head it shares with the others of its group).
  const kvName = group > 1 ? `key/value head ${kv} (read by heads ${kv * group}–${(kv + 1) * group - 1})` : `head ${h}`;
  // (on paper, which has no head chips: the head shown)
  const kvWords = [
    group > 1 ? `those of key/value head ${kv}, which head ${h} reads` : `those of head ${h}`,
    ...screenOrPaper(
      group > 1 ? ' (pick another head to see the others)' : ' (pick another head to see its own)',
      ` (the head shown: layer ${l}, head ${h})`,
    ),
  ];
  const stage = (n, title, caption, ...content) => {
    const section = document.createElement('section');
    const heading = Object.assign(document.createElement('h2'), { textContent: `${n} · ${title}`, id: `stage-${n}` });
    section.setAttribute('aria-labelledby', heading.id);
    section.append(heading, captionLine(caption), ...content);
    return section;
  };
  const pair = (...items) => {
    const div = document.createElement('div');
    div.className = 'pair';
    div.append(...items);
    return div;
  };
  const grid = (values, options) => heatTable(values, { link, kind: 'diverging', digits: 2, ...options });
  // q, k and v on one scale, the scores before and after the mask on another.
  const qkvScale = {
    range: rangeOver(layer.query.data, kvRows(layer.keys), kvRows(layer.values)),
    legendTitle: 'q, k, v entries: one scale',
  };
  const scoreScale = {
    range: rangeOver(layer.scores.data, layer.maskedScores.data),
    legendTitle: 'score (both grids: one scale)',
  };
  const sections = [
    stage(
      1,
      'Embedding',
      `The token at position ${r.position}, ${tok} (id ${t.id}), becomes the row ${t.id} of the embedding table, ${words.positions}; blue is below 0, red above.`,
      ...strips(
        ...(t.positionEmbedding
          ? [
              [t.tokenEmbedding, `token embedding (row ${t.id})`],
              [t.positionEmbedding, `position embedding (row ${r.position}: rows count from 0)`],
            ]
          : []),
        [
          t.embedding,
          d.embeddingNorm || d.typeVocabSize > 0
            ? 'embedding entering layer 0 (with token types and the embedding norm)'
            : `embedding entering layer 0${t.positionEmbedding ? ' (their sum)' : ''}`,
        ],
      ),
    ),
    stage(
      2,
      `${L}: ${words.norm} before attention`,
      `${words.norm} rescales the residual vector (${words.norm === 'LayerNorm' ? 'minus its mean, divided by its standard deviation' : 'divided by its root mean square'}, then per dimension weights); this is what attention reads.`,
      strip(layer.norm1, 'norm 1 output'),
    ),
    stage(
      3,
      `${L}: queries, keys and values, split into ${d.numHeads} heads`,
      [
        `The normalised vector times W_Q gives ${tok}'s query, ${d.numHeads} heads × ${d.headDim} dims${d.rotaryDim > 0 ? ' (RoPE-rotated)' : ''}; every token's keys and values come the same way, per head: below, `,
        ...kvWords,
        '.',
      ],
      grid(layer.query.data, {
        rows: heads,
        cols: dims,
        rowTitle: 'head',
        colTitle: 'dim',
        label: `query of ${tok}`,
        rowKind: 'head',
        colKind: 'dim',
        ...qkvScale,
      }),
      headPicker(),
      pair(
        ...['keys', 'values'].map((name) =>
          grid(kvRows(layer[name]), {
            rows: keys,
            cols: dims,
            rowTitle: 'token',
            colTitle: 'dim',
            label: `${name}, ${kvName}`,
            colKind: 'dim',
            ...qkvScale,
          }),
        ),
      ),
    ),
    stage(
      4,
      `${L}: scores, mask and softmax`,
      [
        `Each row is one head: ${tok}'s query · each key × ${formatNumber(words.scale, 4)} (1/√${d.headDim}); `,
        maskWords(d, r.position, T),
        'then softmax turns each row into weights that sum to 1.',
      ].flat(),
      grid(layer.scores.data, {
        rows: heads,
        cols: keys,
        rowTitle: 'head',
        colTitle: 'key',
        label: 'scaled scores',
        rowKind: 'head',
        ...scoreScale,
      }),
      grid(layer.maskedScores.data, {
        rows: heads,
        cols: keys,
        rowTitle: 'head',
        colTitle: 'key',
        label: 'masked scores',
        rowKind: 'head',
        ...scoreScale,
      }),
      grid(layer.weights.data, {
        rows: heads,
        cols: keys,
        rowTitle: 'head',
        colTitle: 'key',
        label: 'attention weights',
        rowKind: 'head',
        kind: 'sequential',
        range: [0, 1],
        legendTitle: 'weight',
      }),
    ),
    stage(
      5,
      `${L}: weighted sum of values`,
      `Each head's output is its weights times the values of the keys it sees; the heads are then laid side by side (${d.numHeads} × ${d.headDim}).`,
      grid(layer.heads.data, {
        rows: heads,
        cols: dims,
        rowTitle: 'head',
        colTitle: 'dim',
        label: 'head outputs',
        rowKind: 'head',
        colKind: 'dim',
      }),
    ),
    stage(
      6,
      `${L}: output projection and residual`,
      'W_O mixes the heads back to d_model; the result is added to the residual vector that entered the layer.',
      ...strips(
        [layer.attentionOutput, 'attention output (after W_O)'],
        [layer.attentionResidual, 'residual after attention'],
      ),
    ),
    stage(
      7,
      `${L}: MLP (${words.activation}${words.gated ? ', gated' : ''})`,
      words.gated
        ? `${words.norm} again, then ${words.activation}(x·W_gate) × (x·W_up), then W_down; the result joins the residual.`
        : `${words.norm} again, then x·W_in, ${words.activation}, then W_out; the result joins the residual.`,
      ...strips(
        [layer.norm2, 'norm 2 output'],
        [layer.mlpPre, words.gated ? 'gate x·W_gate (activation input)' : 'x·W_in (activation input)'],
        ...(layer.mlpUp ? [[layer.mlpUp, 'up x·W_up']] : []),
        [layer.mlpHidden, words.gated ? `${words.activation}(gate) × up` : `${words.activation}(x·W_in)`],
        [layer.mlpOutput, 'MLP output'],
        [layer.residual, `residual after layer ${l}`],
      ),
    ),
    stage(
      8,
      'Final norm',
      `After the last of ${d.numLayers} layers, ${words.norm} once more on the residual that leaves layer ${d.numLayers - 1} (the layer menu above shows any layer's stages): the result is compared with every token's output embedding.`,
      ...strips(
        [t.layers[d.numLayers - 1].residual, `residual after layer ${d.numLayers - 1}: the final norm's input`],
        [t.final, 'final norm output'],
      ),
    ),
  ];
  if (t.logits) {
    sections.push(
      stage(
        9,
        'Logits',
        `One score per vocabulary token (${d.vocabSize}): the final vector · that token's output embedding; higher means more likely next.`,
        vectorStrip(t.logits.data, { title: 'logits', axis: 'token id', link: null }),
      ),
    );
    const sampling = stage(
      10,
      'Sampling',
      'softmax(logits / temperature) over the tokens top-k and top-p keep, renormalised: the probabilities the next token is drawn from (temperature 0 picks the largest logit).',
    );
    sampling.classList.add('sampling-stage');
    sampling.append(...samplingParts());
    sections.push(sampling);
  }
  return sections;
}
