// Checks for TinyTransformer: its configuration and the integer tensors of a batch (tokens,
// targets, lengths). Each throws a TypeError or RangeError naming the method and the input,
// before any wasm memory is touched.
import { typeError, rangeError, describe } from './errors.js';
import { positiveInteger, checkKeys } from './checks.js';

const CONFIG_KEYS = [
  'vocabSize',
  'maxLen',
  'dModel',
  'numHeads',
  'numLayers',
  'dFF',
  'norm',
  'causal',
  'head',
  'numClasses',
  'activation',
  'positional',
  'seed',
];

function oneOf(fn, name, value, choices) {
  if (value === undefined) return choices[0];
  if (typeof value !== 'string')
    throw typeError(fn, `${name} must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describe(value)}`);
  if (!choices.includes(value))
    throw rangeError(fn, `${name} must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got '${value}'`);
  return value;
}

/** The resolved configuration (defaults filled in), frozen. */
export function checkModelConfig(fn, config) {
  if (config === undefined) throw typeError(fn, 'a config object is needed: { vocabSize, maxLen, ... }');
  checkKeys(fn, 'config', config, CONFIG_KEYS, ['causal']);
  const vocabSize = positiveInteger(fn, 'vocabSize', config.vocabSize);
  if (vocabSize < 2) throw rangeError(fn, `vocabSize must be at least 2, got ${vocabSize}`);
  const maxLen = positiveInteger(fn, 'maxLen', config.maxLen);
  const dModel = positiveInteger(fn, 'dModel', config.dModel ?? 64);
  const numHeads = positiveInteger(fn, 'numHeads', config.numHeads ?? 4);
  if (dModel % numHeads !== 0) throw rangeError(fn, `dModel (${dModel}) must be divisible by numHeads (${numHeads})`);
  const numLayers = positiveInteger(fn, 'numLayers', config.numLayers ?? 2);
  if (numLayers > 64) throw rangeError(fn, `numLayers must be at most 64, got ${numLayers}`);
  const dFF = positiveInteger(fn, 'dFF', config.dFF ?? 4 * dModel);
  const norm = oneOf(fn, 'norm', config.norm, ['pre', 'post']);
  const head = oneOf(fn, 'head', config.head, ['token', 'classify']);
  const activation = oneOf(fn, 'activation', config.activation, ['gelu', 'relu']);
  const positional = oneOf(fn, 'positional', config.positional, ['learned', 'sinusoidal']);
  let numClasses;
  if (head === 'classify') {
    if (config.numClasses === undefined) throw typeError(fn, "numClasses is needed with head: 'classify'");
    numClasses = positiveInteger(fn, 'numClasses', config.numClasses);
  } else {
    numClasses = positiveInteger(fn, 'numClasses', config.numClasses ?? vocabSize);
  }
  if (numClasses < 2) throw rangeError(fn, `numClasses must be at least 2, got ${numClasses}`);
  const seed = config.seed ?? 0;
  if (typeof seed !== 'number') throw typeError(fn, `seed must be a number, got ${describe(seed)}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw rangeError(fn, `seed must be an integer in [0, 2^32 - 1], got ${seed}`);
  // Parameters and one sequence's activations must fit the 2 GiB heap.
  const perLayer = 4 * dModel * dModel + 2 * dModel * dFF + 9 * dModel + dFF;
  const floats = vocabSize * dModel + (maxLen + 1) * dModel + numLayers * perLayer + (dModel + 1) * numClasses;
  if (4 * 4 * floats > 2 ** 31)
    throw rangeError(
      fn,
      `this model would have ${floats} parameters (${((16 * floats) / 2 ** 30).toFixed(1)} GiB with gradients and AdamW's moments): more than the 2 GiB wasm heap holds`,
    );
  return Object.freeze({
    vocabSize,
    maxLen,
    dModel,
    numHeads,
    numLayers,
    dFF,
    norm,
    causal: config.causal ?? false,
    head,
    numClasses,
    activation,
    positional,
    seed,
  });
}

/** Checks one value (read once by the caller); BigInts count as numbers, anything else not. */
function integerAt(fn, name, raw, where, min, max) {
  const value = typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof value !== 'number') throw typeError(fn, `${name}${where} must be an integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max)
    throw rangeError(fn, `${name}${where} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

/**
 * A rank-1 or rank-2 integer tensor as { data: Int32Array, shape }: nested arrays, or
 * { data, shape } with numeric data. Values checked against [min, max].
 */
export function readIntegers(fn, name, value, rank, min, max) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'shape' in value) {
    const shape = value.shape,
      data = value.data;
    if (!Array.isArray(shape) || shape.length !== rank || shape.some((n) => !Number.isInteger(n) || n < 0)) {
      throw rangeError(fn, `${name}.shape must be ${rank === 2 ? '[B, L]' : '[B]'}, got ${describe(shape)}`);
    }
    if (!Array.isArray(data) && !ArrayBuffer.isView(data))
      throw typeError(fn, `${name}.data must be an array or a typed array, got ${describe(data)}`);
    const count = shape.reduce((a, b) => a * b, 1);
    if (data.length !== count)
      throw rangeError(fn, `${name}.data has ${data.length} values but its shape [${shape.join(', ')}] needs ${count}`);
    const out = new Int32Array(count);
    for (let i = 0; i < count; i++) out[i] = integerAt(fn, name, data[i], `.data[${i}]`, min, max);
    return { data: out, shape: shape.slice() };
  }
  if (!Array.isArray(value))
    throw typeError(
      fn,
      `${name} must be ${rank === 2 ? 'an array of arrays [B][L]' : 'an array [B]'} or { data, shape }, got ${describe(value)}`,
    );
  if (rank === 1) {
    const out = new Int32Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = integerAt(fn, name, value[i], `[${i}]`, min, max);
    return { data: out, shape: [value.length] };
  }
  const B = value.length;
  if (B === 0) throw rangeError(fn, `${name} must hold at least one sequence`);
  const first = value[0];
  if (!Array.isArray(first) && !ArrayBuffer.isView(first))
    throw typeError(fn, `${name}[0] must be an array of integers, got ${describe(first)}`);
  const L = first.length;
  const out = new Int32Array(B * L);
  for (let b = 0; b < B; b++) {
    const row = value[b];
    if (!Array.isArray(row) && !ArrayBuffer.isView(row))
      throw typeError(fn, `${name}[${b}] must be an array of integers, got ${describe(row)}`);
    if (row.length !== L)
      throw rangeError(
        fn,
        `${name} must be rectangular: ${name}[${b}] has ${row.length} values but ${name}[0] has ${L}`,
      );
    for (let t = 0; t < L; t++) out[b * L + t] = integerAt(fn, name, row[t], `[${b}][${t}]`, min, max);
  }
  return { data: out, shape: [B, L] };
}

/**
 * Checks a batch { tokens, targets?, lengths? } (targets required when `needTargets`) for a
 * model config; returns Int32Arrays and B, L.
 */
export function readBatch(fn, c, batch, needTargets) {
  checkKeys(fn, 'batch key', batch, ['tokens', 'targets', 'lengths']);
  if (batch === undefined) throw typeError(fn, 'a batch { tokens, targets, lengths? } is needed');
  const tokens = readIntegers(fn, 'tokens', batch.tokens, 2, 0, c.vocabSize - 1);
  const [B, L] = tokens.shape;
  if (B < 1 || L < 1)
    throw rangeError(fn, `tokens must have at least one sequence of at least one token, got shape [${B}, ${L}]`);
  if (L > c.maxLen) throw rangeError(fn, `tokens has sequences of ${L} tokens but this model's maxLen is ${c.maxLen}`);
  let lengths = null;
  if (batch.lengths !== undefined) {
    lengths = readIntegers(fn, 'lengths', batch.lengths, 1, 1, L).data;
    if (lengths.length !== B)
      throw rangeError(fn, `lengths has ${lengths.length} values but tokens has ${B} sequences`);
  }
  let targets = null;
  if (needTargets || batch.targets !== undefined) {
    if (batch.targets === undefined) throw typeError(fn, 'batch.targets is needed');
    const classify = c.head === 'classify';
    const t = readIntegers(fn, 'targets', batch.targets, classify ? 1 : 2, classify ? 0 : -(2 ** 31), c.numClasses - 1);
    const expected = classify ? [B] : [B, L];
    if (t.shape.some((n, i) => n !== expected[i])) {
      throw rangeError(
        fn,
        `targets has shape [${t.shape.join(', ')}] but ${classify ? 'a classifier needs one class per sequence' : 'a token head needs one target per token'}: [${expected.join(', ')}]`,
      );
    }
    targets = t.data;
  }
  return { tokens: tokens.data, targets, lengths, B, L };
}

const STEP_DEFAULTS = {
  optimizer: 'adamw',
  lr: 1e-3,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0.01,
  momentum: 0,
  clipNorm: 0,
};

/** Checks trainStep's options; returns them with the defaults filled in. */
export function readStepOptions(fn, options) {
  checkKeys(fn, 'option', options, Object.keys(STEP_DEFAULTS));
  const o = { ...STEP_DEFAULTS };
  if (options === undefined) return o;
  o.optimizer = oneOf(fn, 'options.optimizer', options.optimizer, ['adamw', 'sgd']);
  // The core computes in float32: a value is checked as it arrives there (Math.fround), so
  // settings valid in JS but not in float32 (beta1 = 1 - 1e-10 is 1, eps = 1e-50 is 0,
  // lr = 1e39 is Infinity) are refused instead of turning the model into NaN.
  const number = (key, ok, rule) => {
    const value = options[key];
    if (value === undefined) return;
    if (typeof value !== 'number') throw typeError(fn, `options.${key} must be a number, got ${describe(value)}`);
    const single = Math.fround(value);
    if (!Number.isFinite(value) || !Number.isFinite(single) || !ok(value, single)) {
      throw rangeError(
        fn,
        `options.${key} must be ${rule}, got ${value}${Number.isFinite(value) && single !== value ? ` (${single} in float32)` : ''}`,
      );
    }
    o[key] = value;
  };
  const FLOAT32_MIN_NORMAL = 2 ** -126; // 1.18e-38
  number('lr', (v) => v >= 0, '>= 0 and finite in float32 (at most 3.4e38)');
  number('beta1', (v, f) => v >= 0 && f < 1, 'in [0, 1), and below 1 in float32 (at most 1 - 6e-8)');
  number('beta2', (v, f) => v >= 0 && f < 1, 'in [0, 1), and below 1 in float32 (at most 1 - 6e-8)');
  number('eps', (v, f) => f >= FLOAT32_MIN_NORMAL, '> 0 as a normal float32 (at least 1.18e-38)');
  number('weightDecay', (v) => v >= 0, '>= 0 and finite in float32 (at most 3.4e38)');
  number('momentum', (v, f) => v >= 0 && f < 1, 'in [0, 1), and below 1 in float32');
  number(
    'clipNorm',
    (v, f) => v === 0 || f >= FLOAT32_MIN_NORMAL,
    '0 (no clipping) or > 0 as a normal float32 (at least 1.18e-38)',
  );
  if (!Number.isFinite(Math.fround(Math.fround(o.lr) * Math.fround(o.weightDecay)))) {
    throw rangeError(
      fn,
      `options.lr × options.weightDecay must be finite in float32 (the decoupled decay lr·weightDecay), got ${o.lr} × ${o.weightDecay}`,
    );
  }
  return o;
}
