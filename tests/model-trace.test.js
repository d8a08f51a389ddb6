// forward's `trace: { position }`: one position's whole path, as the runner computed it,
// against a float64 reference written from the families' definitions
// (helpers/trace-reference.js) on a GPT-2 and a Llama fixture; against forward's own hidden
// states, attention maps and logits (the same run, so to float32); its checks (typed errors
// before anything is allocated). And samplingDistribution: softmax(logits / T) after top-k
// and top-p, renormalised, against a hand-written reference on both families.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { traceReference } from './helpers/trace-reference.js';

const attn = await init({ simd: 'baseline' });
const root = new URL('./fixtures/hf/', import.meta.url).pathname;
const FAMILIES = ['tiny-gpt2', 'tiny-llama'];
const models = Object.fromEntries(
  await Promise.all(FAMILIES.map(async (name) => [name, await attn.loadModel(`${root}${name}`)])),
);
const IDS = { 'tiny-gpt2': [5, 77, 120, 9, 260, 33], 'tiny-llama': [1, 304, 269, 298, 316, 278, 293] };

const flat = (x) => (Array.isArray(x) ? x.flat(Infinity) : Array.from(x));
// Row t of a [1, T, width] tensor.
const row = (t, at, width) => t.data.subarray(at * width, (at + 1) * width);

for (const name of FAMILIES) {
  for (const position of [0, 3, IDS[name].length - 1]) {
    test(`${name}: trace of position ${position} equals the float64 reference, stage by stage`, () => {
      const model = models[name];
      const { trace } = model.forward([IDS[name]], { trace: { position } });
      const ref = traceReference(`${root}${name}`, IDS[name], position);
      const d = model.descriptor;
      const T = IDS[name].length;
      assert.equal(trace.position, position);
      assert.equal(trace.id, IDS[name][position]);
      const close = (actual, expected, label) =>
        assertClose(actual.data, flat(expected), { atol: 2e-5, rtol: 2e-4, label: `${name} ${label}` });
      close(trace.embedding, ref.embedding, 'embedding');
      close(trace.tokenEmbedding, ref.tokenEmbedding, 'token embedding');
      if (ref.positionEmbedding) close(trace.positionEmbedding, ref.positionEmbedding, 'position embedding');
      else assert.equal(trace.positionEmbedding, null);
      trace.layers.forEach((layer, l) => {
        const r = ref.layers[l];
        assert.deepEqual(layer.query.shape, [d.numHeads, d.headDim]);
        assert.deepEqual(layer.keys.shape, [d.numKvHeads, T, d.headDim]);
        assert.deepEqual(layer.weights.shape, [d.numHeads, T]);
        assert.equal(layer.mlpUp === null, r.mlpUp === null, `${name}: mlpUp exactly when gated`);
        for (const key of Object.keys(r)) {
          if (r[key] === null) continue;
          // Masked scores: the same −Infinity entries, the others as the scores.
          close(layer[key], r[key], `layer ${l} ${key}`);
        }
      });
      close(trace.final, ref.final, 'final');
      close(trace.logits, ref.logits, 'logits');
    });
  }

  test(`${name}: the trace is forward's own numbers (hidden states, attention maps, logits)`, () => {
    const model = models[name];
    const d = model.descriptor;
    const ids = IDS[name];
    const T = ids.length;
    const p = 2;
    const out = model.forward([ids], { trace: { position: p }, hiddenStates: true, attentions: true });
    const { trace, hiddenStates, attentions, logits } = out;
    const exact = (a, b, label) => assert.deepEqual(Array.from(a), Array.from(b), `${name}: ${label}`);
    exact(trace.embedding.data, row(hiddenStates[0], p, d.dModel), 'embedding = hiddenStates[0]');
    for (let l = 0; l + 1 < d.numLayers; l++)
      exact(trace.layers[l].residual.data, row(hiddenStates[l + 1], p, d.dModel), `layer ${l} residual`);
    // The last hidden state is after the final norm (as Hugging Face reports it).
    exact(trace.final.data, row(hiddenStates[d.numLayers], p, d.dModel), 'final = the last hidden state');
    exact(trace.logits.data, row(logits, p, d.vocabSize), 'logits');
    for (let l = 0; l < d.numLayers; l++) {
      for (let h = 0; h < d.numHeads; h++) {
        const map = attentions[l].data.subarray((h * T + p) * T, (h * T + p + 1) * T);
        assertClose(trace.layers[l].weights.data.subarray(h * T, (h + 1) * T), map, {
          atol: 1e-7,
          rtol: 1e-6,
          label: `${name} layer ${l} head ${h} weights = attentions`,
        });
      }
    }
    // A trace changes no number: the same call without it, and a plain call against one
    // traced alone (the fused kernel; attention maps take the step-by-step path), agree bit for bit.
    const untraced = model.forward([ids], { hiddenStates: true, attentions: true });
    assert.equal('trace' in untraced, false);
    exact(untraced.logits.data, logits.data, 'logits without a trace');
    exact(model.forward([ids]).logits.data, model.forward([ids], { trace: { position: p } }).logits.data, 'fused path');
  });
}

test('trace: bad options are TypeError / RangeError naming PretrainedModel.forward and options.trace; nothing allocated', () => {
  const model = models['tiny-gpt2'];
  const ids = [IDS['tiny-gpt2']];
  const before = attn.memory().inUseBytes;
  const throws = (options, input, type, pattern) =>
    assert.throws(
      () => model.forward(input, options),
      (e) => e instanceof type && pattern.test(e.message),
      String(pattern),
    );
  throws({ trace: 3 }, ids, TypeError, /^PretrainedModel\.forward: options\.trace must be an object \{ position \}/);
  throws({ trace: null }, ids, TypeError, /^PretrainedModel\.forward: options\.trace must be an object/);
  throws({ trace: {} }, ids, TypeError, /^PretrainedModel\.forward: options\.trace\.position must be a number/);
  throws(
    { trace: { position: 1, layer: 0 } },
    ids,
    TypeError,
    /^PretrainedModel\.forward: unknown options\.trace key 'layer'/,
  );
  throws(
    { trace: { position: -1 } },
    ids,
    RangeError,
    /^PretrainedModel\.forward: options\.trace\.position must be an integer >= 0/,
  );
  throws(
    { trace: { position: 1.5 } },
    ids,
    RangeError,
    /options\.trace\.position must be an integer >= 0, got a number \(1\.5\)/,
  );
  throws(
    { trace: { position: 6 } },
    ids,
    RangeError,
    /^PretrainedModel\.forward: options\.trace\.position must be in \[0, 6\)/,
  );
  throws(
    { trace: { position: 0 } },
    [ids[0], ids[0]],
    RangeError,
    /options\.trace follows one sequence; the input has 2/,
  );
  throws(
    { trace: { position: 4 } },
    { inputIds: ids, attentionMask: [[1, 1, 1, 1, 0, 0]] },
    RangeError,
    /options\.trace\.position must be in \[0, 4\)/,
  );
  assert.equal(attn.memory().inUseBytes, before);
  // Right padding: a real position is traced as in the unpadded sequence.
  const padded = model.forward({ inputIds: ids, attentionMask: [[1, 1, 1, 1, 0, 0]] }, { trace: { position: 3 } });
  const unpadded = model.forward([ids[0].slice(0, 4)], { trace: { position: 3 } });
  assertClose(padded.trace.final.data, unpadded.trace.final.data, { atol: 1e-6, label: 'right-padded trace' });
  assert.equal(model.forward(ids, { trace: { position: 1 }, logits: false }).trace.logits, null);
});

// softmax(z / T), then top-k (ties with the k-th kept), then top-p as transformers' TopPLogitsWarper
// (sorted ascending, tokens whose cumulative probability is <= 1 - p removed, the top one kept),
// renormalised: written from the definitions, in float64.
function referenceDistribution(logits, { temperature = 1, topK = 0, topP = 1 }) {
  const z = Array.from(logits, (x) => x / temperature);
  let keep = z.map(() => true);
  if (topK > 0) {
    const kth = [...z].sort((a, b) => b - a)[topK - 1];
    keep = z.map((x) => x >= kth);
  }
  const softmax = (mask) => {
    const max = Math.max(...z.filter((_, i) => mask[i]));
    const e = z.map((x, i) => (mask[i] ? Math.exp(x - max) : 0));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / s);
  };
  if (topP < 1) {
    const p = softmax(keep);
    const ascending = p
      .map((x, i) => i)
      .filter((i) => keep[i])
      .sort((a, b) => p[a] - p[b] || b - a);
    let cumulative = 0;
    ascending.forEach((i, n) => {
      cumulative += p[i];
      if (cumulative <= 1 - topP && n < ascending.length - 1) keep[i] = false;
    });
  }
  return softmax(keep);
}

for (const name of FAMILIES) {
  test(`${name}: samplingDistribution = softmax(logits / T) after top-k and top-p, renormalised`, () => {
    const model = models[name];
    const { trace } = model.forward([IDS[name]], { trace: { position: 4 } });
    const cases = [
      { temperature: 1 },
      { temperature: 0.5 },
      { temperature: 2, topK: 5 },
      { temperature: 0.8, topP: 0.9 },
      { temperature: 1.3, topK: 20, topP: 0.5 },
      { temperature: 1, topK: 1 },
    ];
    for (const options of cases) {
      const p = model.samplingDistribution(trace.logits, options);
      assert.ok(p instanceof Float64Array && p.length === model.descriptor.vocabSize);
      assertClose(p, referenceDistribution(trace.logits.data, options), {
        atol: 1e-12,
        rtol: 1e-9,
        label: `${name} ${JSON.stringify(options)}`,
      });
      const kept = p.filter((x) => x > 0).length;
      if (options.topK) assert.ok(kept <= options.topK, `${name}: at most topK kept`);
      assertClose([p.reduce((a, b) => a + b, 0)], [1], { atol: 1e-12, label: 'sums to 1' });
    }
    // Greedy: all of it on the argmax.
    const greedy = model.samplingDistribution(trace.logits, { temperature: 0 });
    const top = trace.logits.data.indexOf(Math.max(...trace.logits.data));
    assert.equal(greedy[top], 1);
    assert.throws(
      () => model.samplingDistribution(trace.logits, { temperature: -1 }),
      (e) => e instanceof RangeError && /^PretrainedModel\.samplingDistribution: options\.temperature/.test(e.message),
    );
    assert.throws(
      () => model.samplingDistribution([1, 2], {}),
      (e) => e instanceof RangeError && /^PretrainedModel\.samplingDistribution: logits has 2 entries/.test(e.message),
    );
    assert.throws(
      () => model.samplingDistribution(trace.logits, { top_k: 3 }),
      (e) => e instanceof TypeError && /unknown option 'top_k'/.test(e.message),
    );
  });
}

// Every family the fixtures hold (windows, softcaps, q/k norms, post-norms, encoders, gated
// MLPs, grouped heads): the trace is forward's own hidden states, attention rows and logits.
test('every fixture family: the trace agrees with forward’s hidden states, attention maps and logits', async () => {
  const { readdirSync, existsSync } = await import('node:fs');
  const names = readdirSync(root).filter(
    (n) => existsSync(`${root}${n}/config.json`) && existsSync(`${root}${n}/tokenizer.json`),
  );
  assert.ok(names.length >= 15, names.join(' '));
  const checked = [];
  for (const name of names) {
    const model = await attn.loadModel(`${root}${name}`);
    try {
      const d = model.descriptor;
      const text = 'The cat sat on the mat, then it slept.';
      const T = model.tokenize(text).length;
      const p = Math.floor(T / 2);
      const out = model.forward(text, { trace: { position: p }, hiddenStates: true, attentions: true });
      const { trace } = out;
      const same = (a, b, label) => assert.deepEqual(Array.from(a), Array.from(b), `${name}: ${label}`);
      same(trace.embedding.data, row(out.hiddenStates[0], p, d.dModel), 'embedding');
      for (let l = 0; l + 1 < d.numLayers; l++)
        same(trace.layers[l].residual.data, row(out.hiddenStates[l + 1], p, d.dModel), `layer ${l} residual`);
      same(trace.final.data, row(out.hiddenStates[d.numLayers], p, d.dModel), 'final');
      if (d.lmHead) same(trace.logits.data, row(out.logits, p, d.vocabSize), 'logits');
      else assert.equal(trace.logits, null);
      for (let l = 0; l < d.numLayers; l++) {
        const rows = out.attentions[l].data;
        const w = trace.layers[l].weights.data;
        for (let h = 0; h < d.numHeads; h++)
          assertClose(w.subarray(h * T, (h + 1) * T), rows.subarray((h * T + p) * T, (h * T + p + 1) * T), {
            atol: 1e-7,
            rtol: 1e-6,
            label: `${name} layer ${l} head ${h} weights`,
          });
        // Masked keys are −Infinity exactly where the weights are 0 (softmax of −∞).
        const masked = trace.layers[l].maskedScores.data;
        for (let i = 0; i < masked.length; i++)
          if (masked[i] === -Infinity) assert.equal(w[i], 0, `${name}: a masked key has weight 0`);
      }
      checked.push(name);
    } finally {
      model.dispose();
    }
  }
  assert.deepEqual(checked, names);
});
