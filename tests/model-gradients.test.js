// TinyTransformer against a float64 model written from its definition
// (tests/helpers/model-reference.js): the forward pass (logits, every layer's attention, loss,
// accuracy) and every parameter's gradient, the latter against central finite differences of
// the float64 loss (h = 1e-5: exact to ~1e-9), over configurations covering both norms, both
// activations, causal, padding, ignored targets, both heads and both positional tables. Then
// AdamW and SGD against a float64 transcription of their update rules, step by step.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';
import { referenceModel } from './helpers/model-reference.js';

const attn = await init({ simd: 'baseline' });

const CONFIGS = [
  { norm: 'pre', activation: 'gelu', causal: false, head: 'token', positional: 'learned' },
  { norm: 'post', activation: 'gelu', causal: false, head: 'token', positional: 'learned' },
  { norm: 'pre', activation: 'relu', causal: true, head: 'token', positional: 'sinusoidal' },
  { norm: 'post', activation: 'relu', causal: true, head: 'token', positional: 'learned' },
  { norm: 'pre', activation: 'gelu', causal: false, head: 'classify', numClasses: 3, positional: 'learned' },
  { norm: 'post', activation: 'gelu', causal: false, head: 'classify', numClasses: 2, positional: 'sinusoidal' },
  {
    norm: 'pre',
    activation: 'gelu',
    causal: true,
    head: 'classify',
    numClasses: 3,
    positional: 'learned',
    numHeads: 1,
    numLayers: 1,
  },
];

function tiny(extra, seed) {
  return new attn.TinyTransformer({
    vocabSize: 5,
    maxLen: 4,
    dModel: 4,
    numHeads: 2,
    numLayers: 2,
    dFF: 6,
    seed,
    ...extra,
  });
}

// A batch with padding (lengths) and, for the token head, ignored targets.
function batchFor(model) {
  const tokens = [
    [1, 4, 0, 2],
    [3, 3, 1, 0],
    [2, 0, 4, 4],
  ];
  const lengths = [4, 2, 3];
  const C = model.config.numClasses;
  const targets =
    model.config.head === 'classify'
      ? [0, C - 1, 1 % C]
      : [
          [1, -1, 3 % C, 0],
          [4 % C, 2, 0, 1],
          [0, 1, -1, 2],
        ];
  return { tokens, lengths, targets };
}

test('forward: logits, attention, loss and accuracy match the float64 model (7 configurations)', () => {
  CONFIGS.forEach((config, n) => {
    const model = tiny(config, 10 + n);
    try {
      const batch = batchFor(model);
      const ref = referenceModel(model.getWeights(), batch);
      const { logits, attention } = model.forward(batch.tokens, { lengths: batch.lengths });
      const flat = ref.logits.flat(2);
      logits.data.forEach((v, i) =>
        assert.ok(
          Math.abs(v - flat[i]) <= 1e-5 * (1 + Math.abs(flat[i])),
          `${JSON.stringify(config)} logits[${i}] ${v} vs ${flat[i]}`,
        ),
      );
      attention.forEach((t, l) => {
        const want = ref.attention[l].flat(3);
        t.data.forEach((v, i) =>
          assert.ok(
            Math.abs(v - want[i]) <= 2e-6,
            `${JSON.stringify(config)} attention[${l}][${i}] ${v} vs ${want[i]}`,
          ),
        );
      });
      const evaluation = model.evaluate(batch);
      assert.ok(
        Math.abs(evaluation.loss - ref.loss) <= 1e-5 * (1 + ref.loss),
        `loss ${evaluation.loss} vs ${ref.loss}`,
      );
      assert.equal(evaluation.count, ref.count);
      assert.equal(evaluation.accuracy, ref.accuracy);
    } finally {
      model.dispose();
    }
  });
});

test('gradients: every element of every parameter matches central finite differences of the float64 loss (7 configurations, the whole model)', () => {
  const H = 1e-5;
  let checked = 0,
    worst = 0;
  CONFIGS.forEach((config, n) => {
    const model = tiny(config, 20 + n);
    try {
      const batch = batchFor(model);
      const { gradients, loss } = model.gradients(batch);
      const weights = model.getWeights();
      assert.ok(Math.abs(loss - referenceModel(weights, batch).loss) < 1e-5 * (1 + loss));
      for (const [name, t] of Object.entries(weights.tensors)) {
        const g = gradients[name];
        assert.equal(g.length, t.data.length, name);
        for (let i = 0; i < t.data.length; i++) {
          const keep = t.data[i];
          t.data[i] = keep + H;
          const plus = referenceModel(weights, batch).loss;
          t.data[i] = keep - H;
          const minus = referenceModel(weights, batch).loss;
          t.data[i] = keep;
          const fd = (plus - minus) / (2 * H);
          const diff = Math.abs(g[i] - fd);
          if (diff > 1e-3 * Math.max(Math.abs(g[i]), Math.abs(fd)) + 2e-5) {
            assert.fail(
              `${JSON.stringify(config)}: d loss / d ${name}[${i}] is ${g[i]}, finite differences give ${fd}`,
            );
          }
          if (Math.abs(fd) > 1e-3) worst = Math.max(worst, diff / Math.abs(fd));
          checked++;
        }
      }
    } finally {
      model.dispose();
    }
  });
  console.log(
    `# ${checked} gradient elements checked; worst relative error where |g| > 1e-3: ${worst.toExponential(2)}`,
  );
  assert.ok(checked > 2000);
});

test('AdamW (clipping, decoupled decay on matrices only) and SGD with momentum match a float64 transcription, step by step', () => {
  for (const optimizer of ['adamw', 'sgd']) {
    const model = tiny({ head: 'token' }, 31);
    try {
      const batch = batchFor(model);
      const o =
        optimizer === 'adamw'
          ? { optimizer, lr: 0.01, beta1: 0.8, beta2: 0.95, eps: 1e-6, weightDecay: 0.1, clipNorm: 0.5 }
          : { optimizer, lr: 0.05, momentum: 0.9, clipNorm: 0.5 };
      const m = {},
        v = {};
      for (let step = 1; step <= 4; step++) {
        const before = model.getWeights().tensors;
        const { gradients, gradNorm } = model.gradients(batch);
        const scale = gradNorm > o.clipNorm ? o.clipNorm / gradNorm : 1;
        const r = model.trainStep(batch, o);
        assert.equal(r.step, step);
        assert.equal(r.gradNorm, gradNorm, 'gradients() and trainStep see the same gradients');
        const after = model.getWeights().tensors;
        for (const [name, t] of Object.entries(before)) {
          const decays = /(\.w[qkvo12]|head\.w)$/.test(name);
          m[name] ??= new Float64Array(t.data.length);
          v[name] ??= new Float64Array(t.data.length);
          t.data.forEach((p, i) => {
            const g = gradients[name][i] * scale;
            let want;
            if (optimizer === 'adamw') {
              m[name][i] = o.beta1 * m[name][i] + (1 - o.beta1) * g;
              v[name][i] = o.beta2 * v[name][i] + (1 - o.beta2) * g * g;
              const mHat = m[name][i] / (1 - o.beta1 ** step),
                vHat = v[name][i] / (1 - o.beta2 ** step);
              want = p - o.lr * (mHat / (Math.sqrt(vHat) + o.eps) + (decays ? o.weightDecay * p : 0));
            } else {
              m[name][i] = o.momentum * m[name][i] + g;
              want = p - o.lr * m[name][i];
            }
            assert.ok(
              Math.abs(after[name].data[i] - want) <= 2e-6 * (1 + Math.abs(want)),
              `${optimizer} step ${step} ${name}[${i}]: ${after[name].data[i]} vs ${want}`,
            );
          });
        }
      }
    } finally {
      model.dispose();
    }
  }
});
