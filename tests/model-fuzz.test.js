// TinyTransformer fuzzer (the API fuzzer's rule, for the training model): seeded random
// configs and calls of every method with valid, near-valid and garbage arguments, lying
// inputs (getters that answer differently on each read, that dispose the model, that throw)
// and disposed models. THE RULE: every call returns a well-formed result or throws a
// TypeError/RangeError whose message starts with 'TinyTransformer' (an Error saying
// 'disposed' for a disposed model; the caller's own exceptions pass through unchanged);
// a valid call returns, with finite losses, and a stateless call (forward, evaluate,
// gradients) gives the same bits on a twin model made from the model's getWeights(); the wasm heap's bytes in use return to their start once every model
// is disposed. Replay with ATTN_MODEL_FUZZ_SEED=<seed>; ATTN_MODEL_FUZZ_CALLS resizes it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { init } from 'attention-wasm';

const SEED = Number(process.env.ATTN_MODEL_FUZZ_SEED ?? 20261124);
const CALLS = Number(process.env.ATTN_MODEL_FUZZ_CALLS ?? 3000);
const attn = await init();

class CallerError extends Error {}

function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (a, b) => a + Math.floor(next() * (b - a + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

const JUNK = [
  undefined,
  null,
  0,
  -1,
  1.5,
  NaN,
  Infinity,
  2 ** 31,
  'x',
  '',
  true,
  Symbol('s'),
  1n,
  [],
  {},
  [[]],
  [[1, 'a']],
  new Float32Array(2),
  () => 1,
  new Proxy(
    {},
    {
      get() {
        throw new CallerError('trap');
      },
    },
  ),
];

function config(g) {
  const numHeads = g.pick([1, 2]);
  const c = {
    vocabSize: g.int(2, 9),
    maxLen: g.int(1, 6),
    dModel: numHeads * g.int(1, 4),
    numHeads,
    seed: g.int(0, 5),
  };
  if (g.chance(0.4)) c.numLayers = g.int(1, 2);
  if (g.chance(0.4)) c.dFF = g.int(1, 8);
  if (g.chance(0.3)) c.norm = g.pick(['pre', 'post']);
  if (g.chance(0.3)) c.causal = g.chance(0.5);
  if (g.chance(0.3)) c.activation = g.pick(['relu', 'gelu']);
  if (g.chance(0.3)) {
    c.head = 'classify';
    c.numClasses = g.int(2, 4);
  }
  return c;
}

// A valid batch for config c: tokens [B][L], targets, optional lengths.
function batch(g, c) {
  const B = g.int(1, 3),
    L = g.int(1, c.maxLen);
  const tokens = Array.from({ length: B }, () => Array.from({ length: L }, () => g.int(0, c.vocabSize - 1)));
  const classes = c.numClasses ?? c.vocabSize;
  const targets =
    c.head === 'classify'
      ? Array.from({ length: B }, () => g.int(0, classes - 1))
      : tokens.map((row) => row.map(() => g.int(0, classes - 1)));
  const b = { tokens, targets };
  if (g.chance(0.3)) b.lengths = Array.from({ length: B }, () => g.int(1, L));
  return b;
}

// A mistaken version of a valid argument: junk, a changed number, a lying object.
function perturb(g, value, model) {
  const kind = g.int(0, 5);
  if (kind === 0) return g.pick(JUNK);
  if (kind === 1 && value && typeof value === 'object') {
    // a getter per key that answers differently each read
    const copy = {};
    for (const [k, v] of Object.entries(value)) {
      let reads = 0;
      Object.defineProperty(copy, k, { enumerable: true, get: () => (reads++ === 0 ? v : g.pick(JUNK)) });
    }
    return copy;
  }
  if (kind === 2 && value && typeof value === 'object') {
    // a getter that disposes the model
    const copy = { ...value };
    const key = g.pick(Object.keys(copy).length ? Object.keys(copy) : ['tokens']);
    const v = copy[key];
    Object.defineProperty(copy, key, {
      enumerable: true,
      get: () => {
        model.dispose();
        return v;
      },
    });
    return copy;
  }
  if (kind === 3 && value && typeof value === 'object') {
    // a getter that throws the caller's own error
    const copy = { ...value };
    Object.defineProperty(copy, g.pick(Object.keys(copy).length ? Object.keys(copy) : ['tokens']), {
      enumerable: true,
      get: () => {
        throw new CallerError('getter');
      },
    });
    return copy;
  }
  if (kind === 4 && value && typeof value === 'object' && Array.isArray(value.tokens)) {
    // a token out of range
    return { ...value, tokens: value.tokens.map((row) => row.map((t) => t + g.pick([1000, -1000, 0.5]))) };
  }
  return { ...value, [g.pick(['extra', 'lr', 'lengths'])]: g.pick(JUNK) };
}

function disposedOf(model) {
  try {
    void model.step;
    return false;
  } catch {
    return true;
  }
}

const METHODS = ['forward', 'trainStep', 'evaluate', 'gradients', 'getWeights', 'setWeights', 'dispose', 'step'];

test(
  `TinyTransformer fuzzer: ${CALLS} calls (seed ${SEED}), named errors only, valid calls deterministic, no leak`,
  { timeout: 300_000 },
  (t) => {
    const outcomes = { returned: 0, checkedAgainstTwin: 0, namedError: 0, disposedError: 0, callerError: 0 };
    const startBytes = attn.memory().inUseBytes;
    const failures = [];
    const models = [];
    for (let i = 0; i < CALLS; i++) {
      const g = rng(SEED * 1_000_003 + i);
      if (!models.length || g.chance(0.05)) {
        const c = config(g);
        try {
          models.push({ c, model: new attn.TinyTransformer(c) });
        } catch (error) {
          failures.push(`call ${i}: constructor threw ${error.name}: ${error.message} for ${JSON.stringify(c)}`);
          continue;
        }
        if (models.length > 4) models.shift().model.dispose();
      }
      let m = g.pick(models);
      if (disposedOf(m.model) && g.chance(0.9)) {
        // mostly live models; some calls on disposed ones
        models.splice(models.indexOf(m), 1);
        m = { c: config(g) };
        m.model = new attn.TinyTransformer(m.c);
        models.push(m);
      }
      const method = g.pick(METHODS);
      const b = batch(g, m.c);
      const options =
        method === 'trainStep'
          ? g.pick([undefined, { lr: 1e-3 }, { lr: 1e-2, clipNorm: 1 }, { optimizer: 'sgd', lr: 0.1, momentum: 0.5 }])
          : undefined;
      let args;
      if (method === 'forward') args = [b.tokens, b.lengths ? { lengths: b.lengths } : undefined];
      else if (['trainStep', 'evaluate', 'gradients'].includes(method)) args = [b, options];
      else if (method === 'setWeights') args = [disposedOf(m.model) ? {} : m.model.getWeights()];
      else args = [];
      let disposedBefore = false;
      try {
        void m.model.step;
      } catch {
        disposedBefore = true;
      }
      const valid = g.chance(0.5) && !disposedBefore;
      if (!valid && args.length) args[0] = perturb(g, args[0], m.model);
      const describe = () => `call ${i}: ${method}${valid ? ' (valid)' : ''} on ${JSON.stringify(m.c)}`;
      try {
        const result = method === 'step' ? m.model.step : m.model[method](...args);
        if (valid && !disposedBefore && ['forward', 'evaluate', 'gradients'].includes(method)) {
          const twin = new attn.TinyTransformer(m.c);
          twin.setWeights(m.model.getWeights());
          const bits = (x) => JSON.stringify(x, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v));
          if (bits(result) !== bits(twin[method](...args)))
            failures.push(`${describe()}: a twin from getWeights() gave other bits`);
          outcomes.checkedAgainstTwin++;
          twin.dispose();
        }
        if (
          valid &&
          !disposedBefore &&
          typeof result === 'object' &&
          result !== null &&
          'loss' in result &&
          !Number.isFinite(result.loss)
        )
          failures.push(`${describe()}: loss ${result.loss}`);
        if (method === 'forward' && !(result?.logits?.data instanceof Float32Array))
          failures.push(`${describe()}: malformed result`);
        outcomes.returned++;
      } catch (error) {
        const named =
          (error instanceof TypeError || error instanceof RangeError) && /^TinyTransformer[.:]/.test(error.message);
        const disposed = error instanceof Error && /^TinyTransformer\.\w+: this model was disposed/.test(error.message);
        if (error instanceof CallerError) {
          outcomes.callerError++;
          continue;
        }
        if (named) outcomes.namedError++;
        if (disposed) outcomes.disposedError++;
        if (valid && !disposedBefore)
          failures.push(`${describe()}: a valid call threw ${error?.name}: ${error?.message}`);
        else if (!named && !disposed)
          failures.push(`${describe()}: threw ${error?.name}: ${String(error?.message).slice(0, 160)}`);
      }
      if (failures.length >= 10) break;
    }
    for (const { model } of models) model.dispose();
    t.diagnostic(JSON.stringify(outcomes));
    assert.deepEqual(failures, []);
    assert.ok(
      outcomes.checkedAgainstTwin > CALLS / 20 && outcomes.namedError > CALLS / 20,
      'both valid and mistaken calls were exercised',
    );
    assert.equal(attn.memory().inUseBytes, startBytes, 'every byte back once every model is disposed');
  },
);
