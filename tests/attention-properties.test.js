// Property-based tests of attn.attention(q, k, v, options) (fast-check).
//
// Generated (small sizes, so the 10,000 cases take seconds):
//   shapes   a batch from BATCHES (axes of 0 and 1 included); q, k and v each take it whole,
//            with some axes set to 1, or with leading axes dropped, so leading dims
//            broadcast both ways (q [2,3,Lq,d] with k [1,3,Lk,d] or k [Lk,d], q [1,2,..] with
//            k [2,2,..]); Lq, Lk in 0..9 (0 and 1 often); dk 1..8; dv 0..6; GQA with
//            k/v heads = q heads / 2 or / 3.
//   masks    boolean (Uint8Array, 1 = may attend) or additive (Float32Array, -Infinity
//            blocks; some cases also ±1e30 and ±FLT_MAX), shaped [Lk], [1,Lk], [Lq,Lk],
//            [1,..,1,Lq,Lk], [B,1,..,1,Lk], [...batch,Lq,Lk], or [...batch,Lq,Lk] with any
//            axes set to 1 and leading axes dropped; keep-masks (then Lk = Lq) shaped [L],
//            [1,L], [...batch,L], [B,1,..,1,L].
//   options  causal: default / top-left / bottom-right, with Lq ≠ Lk in most cases; key
//            lengths (a number, an array, an Int32Array); scale: default, ±0, [-3, 3], [-40, 40].
//   poison   NaN / ±Infinity in the k and v rows of keys blocked for every query that uses
//            them: a mask column that is false (-Infinity) everywhere, or keys at or past
//            the key length of every sequence that reads that k/v block.
// Properties:
//   (a) output and weights equal the float64 reference (helpers/reference.js; GQA heads
//       repeated and keep-masks folded into the mask here), on the fused path and on the
//       step-by-step path (returnWeights); tolerance scaled to the scores' magnitude
//       |scale|·dk·max|q|·max|k| + max|mask| and to max|v| (see `tolerance`).
//   (b) a row with no visible key is exactly zero (output on both paths, and weights); a
//       blocked key has weight exactly 0.
//   (c) every visible input is finite, so output and weights are all finite (no NaN).
//   (d) permuting the queries (and the mask's query rows) permutes the rows of output and
//       weights; permuting key/value pairs (and the mask's key columns) permutes the weight
//       columns and leaves the output unchanged. Causal, key lengths and keep-masks off;
//       both paths; broadcast shapes, masks, GQA and poisoned keys as above.
// Cases per run: 6,000 (a–c) + 2,000 + 2,000 (d) = 10,000. One seed, printed (default
// 20261122; ATTN_PROPERTY_SEED=<32-bit integer> sets it); the properties use it + 0, 1, 2.
// On failure the message gives the replay command, fast-check's seed, path and shrunk
// counterexample, and the failed assertion with the concrete shapes and options. How often
// each feature was generated is printed and must reach a minimum, so that no property
// passes vacuously; so is the largest error as a fraction of the tolerance.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { init } from 'attention-wasm';
import { referenceAttention, broadcast } from './helpers/reference.js';
import { assertClose, rng } from './helpers/assert.js';

const attn = await init();
const SEED = readSeed(process.env.ATTN_PROPERTY_SEED);
const RUNS = { reference: 6000, queries: 2000, keys: 2000 };
console.log(
  `attention properties: seed ${SEED} (ATTN_PROPERTY_SEED=${SEED} replays this run), ` +
    `${RUNS.reference + RUNS.queries + RUNS.keys} cases`,
);

function readSeed(text) {
  if (text === undefined || text === '') return 20261122;
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed !== (seed | 0))
    throw new Error(`ATTN_PROPERTY_SEED must be a 32-bit integer, got '${text}'`);
  return seed;
}

const FLT_MAX = 3.4028234663852886e38;
const size = (shape) => shape.reduce((a, b) => a * b, 1);

// ---- Arbitraries -------------------------------------------------------------------------

// Leading dims before broadcasting; every batch product stays ≤ 12 (also with GQA).
const BATCHES = [[], [0], [1], [2], [3], [1, 2], [2, 3], [3, 1], [2, 0], [2, 1, 2]];

// A sequence length or size: 0 and 1 often, otherwise 2..max.
const arbLength = (max) =>
  fc.oneof({ weight: 1, arbitrary: fc.constantFrom(0, 1) }, { weight: 3, arbitrary: fc.integer({ min: 2, max }) });

// How a tensor's leading dims follow the batch: axis a becomes 1 when bit a of `ones` is
// set, then the first `drop` axes are dropped.
const arbLeadForm = fc.record({ ones: fc.nat(7), drop: fc.nat(3) });
const WHOLE = { ones: 0, drop: 0 };

const arbShapes = fc.record({
  batch: fc.constantFrom(...BATCHES),
  q: fc.oneof({ weight: 3, arbitrary: fc.constant(WHOLE) }, { weight: 1, arbitrary: arbLeadForm }),
  k: arbLeadForm,
  v: fc.oneof(fc.constant('as k'), arbLeadForm),
  Lq: arbLength(9),
  Lk: arbLength(9),
  dk: fc.integer({ min: 1, max: 8 }),
  dv: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 7, arbitrary: fc.integer({ min: 1, max: 6 }) }),
  gqa: fc.constantFrom(1, 1, 2, 3), // q heads per k/v head
});

const MASK_FORMS = ['[Lk]', '[1,Lk]', '[Lq,Lk]', '[1..,Lq,Lk]', '[B,1..,Lk]', '[...batch,Lq,Lk]', 'any'];

const arbMask = fc.record({
  kind: fc.constantFrom('none', 'boolean', 'additive'),
  form: fc.constantFrom(...MASK_FORMS),
  // For 'any': axis a of [...batch, Lq, Lk], counted from the right (0 = keys), becomes 1
  // when bit a is set; then `drop` leading axes go (at least one axis stays).
  any: fc.record({ ones: fc.nat(31), drop: fc.nat(5) }),
  extreme: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

const arbOptions = fc.record({
  mask: arbMask,
  causal: fc.constantFrom('none', 'none', 'default', 'top-left', 'bottom-right'),
  keyLengths: fc.boolean(),
  keep: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('[L]', '[1,L]', '[...batch,L]', '[B,1..,L]') },
  ),
  scale: fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(0, -0),
    fc.double({ min: -3, max: 3, noNaN: true }),
    fc.double({ min: -40, max: 40, noNaN: true }),
  ),
  poison: fc.constantFrom('none', 'none', 'nan', 'inf', '-inf', 'mixed'),
});

// The numbers themselves come from `seed` (mulberry32), so a counterexample stays short.
// A keep-mask needs self-attention: Lk = Lq.
const arbCase = fc
  .record({ shapes: arbShapes, options: arbOptions, seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }) })
  .map((c) => (c.options.keep ? { ...c, shapes: { ...c.shapes, Lk: c.shapes.Lq } } : c));

// The permutation properties: no causal rule, key lengths or keep-mask.
const arbPermutable = arbCase.map((c) => ({
  ...c,
  options: { ...c.options, causal: 'none', keyLengths: false, keep: null },
}));
const arbPermutation = (n) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n });

// ---- Building a case ----------------------------------------------------------------------

function fill(random, shape, lo = -2, hi = 2) {
  const data = new Float32Array(size(shape));
  for (let i = 0; i < data.length; i++) data[i] = random(lo, hi);
  return { data, shape };
}

const leadOf = (batch, form) =>
  batch.map((d, a) => ((form.ones >> a) & 1 ? 1 : d)).slice(Math.min(form.drop, batch.length));

// The leading dims of q, k and v. GQA needs the head axis (the last leading axis) in all
// three, with q heads = k/v heads · group.
function leads(s) {
  const heads = s.batch.at(-1);
  const group = s.gqa > 1 && heads > 0 && size(s.batch) * s.gqa <= 12 ? s.gqa : 1;
  const vForm = s.v === 'as k' ? s.k : s.v;
  if (group === 1)
    return { group, qLead: leadOf(s.batch, s.q), kLead: leadOf(s.batch, s.k), vLead: leadOf(s.batch, vForm) };
  const head = s.batch.length - 1;
  const withHead = (form) => ({ ones: form.ones & ~(1 << head), drop: Math.min(form.drop, head) });
  const qLead = leadOf(s.batch, withHead(s.q));
  qLead[qLead.length - 1] = heads * group;
  return { group, qLead, kLead: leadOf(s.batch, withHead(s.k)), vLead: leadOf(s.batch, withHead(vForm)) };
}

// The concrete tensors and options of a generated case, the reference's equivalents, and
// counts of the features it uses (added to `seen`).
function build(c, seen) {
  const random = rng(c.seed);
  const s = c.shapes,
    o = c.options;
  const { group, qLead, kLead, vLead } = leads(s);
  const asQHeads = (lead) => (group > 1 ? [...lead.slice(0, -1), qLead.at(-1)] : lead);
  const batch = broadcast(qLead, asQHeads(kLead), asQHeads(vLead));
  const { Lq, Lk, dk, dv } = s;
  const q = fill(random, [...qLead, Lq, dk]);
  const k = fill(random, [...kLead, Lk, dk]);
  const v = fill(random, [...vLead, Lk, dv]);

  const options = {};
  if (o.scale !== undefined) options.scale = o.scale;
  if (o.causal !== 'none') options.causal = true;
  if (o.causal === 'top-left' || o.causal === 'bottom-right') options.causalAlign = o.causal;
  if (group > 1) options.enableGqa = true;
  let lengths = null;
  if (o.keyLengths) {
    lengths = Array.from({ length: batch.length ? batch[0] : 1 }, () => Math.floor(random(0, Lk + 1)));
    options.keyLengths = batch.length === 0 ? lengths[0] : random(0, 1) < 0.5 ? lengths : Int32Array.from(lengths);
  }

  // Keys blocked for every query: mask columns false (-Infinity) everywhere, and keys past
  // the key lengths. Their k and v rows are poisoned with NaN / ±Infinity.
  const poisoned = o.poison !== 'none' && Lk > 0;
  const maskedKeys = new Set();
  let maskKind = o.mask.kind;
  if (poisoned && (maskKind !== 'none' || !lengths)) {
    maskedKeys.add(Math.floor(random(0, Lk)));
    if (random(0, 1) < 0.3) maskedKeys.add(Math.floor(random(0, Lk)));
    if (maskKind === 'none') maskKind = 'boolean';
  }
  if (maskKind !== 'none') options.mask = makeMask(random, maskKind, o.mask, batch, Lq, Lk, maskedKeys);
  let poisonedPastLength = 0;
  if (poisoned) {
    for (const t of [k, v]) {
      const keyLimit = lengths ? keyLimits(t, batch, lengths) : () => Lk;
      poisonedPastLength += poisonKeys(
        t,
        (b, j) => maskedKeys.has(j) || j >= keyLimit(b),
        poisonValue(random, o.poison),
      );
    }
  }

  let refMask = options.mask && { ...options.mask, boolean: maskKind === 'boolean' };
  if (o.keep) {
    options.keepMask = makeKeep(random, o.keep, batch, Lk);
    refMask = combineKeep(options.keepMask, refMask, batch, Lk);
  }
  const expand = (t) => (group > 1 ? repeatHeads(t, group) : t);
  const refOptions = {
    mask: refMask,
    causal: options.causal,
    causalAlign: options.causalAlign,
    scale: options.scale,
    keyLengths: lengths,
  };

  const count = (feature, yes = true) => {
    if (yes) seen[feature] = (seen[feature] ?? 0) + 1;
  };
  count('computes', size(batch) > 0 && Lq > 0 && Lk > 0 && dv > 0);
  count('batch with a 0', batch.includes(0));
  count('Lq 0', Lq === 0);
  count('Lk 0', Lk === 0);
  count('Lq 1', Lq === 1);
  count('Lk 1', Lk === 1);
  count('dv 0', dv === 0);
  const broadcasts = (lead) =>
    lead.length < batch.length || lead.some((d, i) => d !== batch[batch.length - lead.length + i]);
  count('q broadcasts', broadcasts(qLead));
  count('k/v broadcast', broadcasts(asQHeads(kLead)) || broadcasts(asQHeads(vLead)));
  count('gqa', group > 1);
  count(`causal ${o.causal} Lq≠Lk`, o.causal !== 'none' && Lq !== Lk);
  count('key lengths', lengths !== null);
  count('keep-mask', o.keep !== null);
  count(`mask ${maskKind} ${o.mask.form}`, maskKind !== 'none');
  count('mask ±1e30/FLT_MAX', maskKind === 'additive' && o.mask.extreme);
  count('poisoned via mask', maskedKeys.size > 0);
  count('poisoned past key length', lengths !== null && poisonedPastLength > 0);
  count('scale 0', options.scale === 0);
  count('scale < 0', options.scale < 0);
  count('|scale| > 3', Math.abs(options.scale) > 3);
  return {
    q,
    k,
    v,
    options,
    ref: () => referenceAttention(q, expand(k), expand(v), refOptions),
    tol: tolerance(q, k, v, options.scale ?? 1 / Math.sqrt(dk), maskKind === 'additive' ? options.mask : null),
    describe: () => describeCase(q, k, v, options, o.poison),
  };
}

// A mask of `form` for weights [...batch, Lq, Lk]: boolean (70% true) or additive (20%
// -Infinity, the rest in [-3, 3], or ±1e30 / ±FLT_MAX in `extreme` cases). Keys in
// `blockedKeys` are blocked in every row.
function makeMask(random, kind, { form, any, extreme }, batch, Lq, Lk, blockedKeys) {
  const target = [...batch, Lq, Lk];
  const anyShape = () => {
    const ones = blockedKeys.size ? any.ones & ~1 : any.ones; // a blocked column needs the key axis
    const shape = target.map((d, a) => ((ones >> (target.length - 1 - a)) & 1 ? 1 : d));
    return shape.slice(Math.min(any.drop, shape.length - 1));
  };
  const shape = {
    '[Lk]': () => [Lk],
    '[1,Lk]': () => [1, Lk],
    '[Lq,Lk]': () => [Lq, Lk],
    '[1..,Lq,Lk]': () => [...batch.map(() => 1), Lq, Lk],
    '[B,1..,Lk]': () => (batch.length ? [batch[0], ...batch.slice(1).map(() => 1), 1, Lk] : [1, Lk]),
    '[...batch,Lq,Lk]': () => target,
    any: anyShape,
  }[form]();
  const n = size(shape),
    cols = shape.at(-1);
  const EXTREMES = [-FLT_MAX, -1e30, 1e30, FLT_MAX];
  const data = kind === 'boolean' ? new Uint8Array(n) : new Float32Array(n);
  for (let f = 0; f < n; f++) {
    const blocked = blockedKeys.has(f % cols);
    if (kind === 'boolean') data[f] = blocked || random(0, 1) < 0.3 ? 0 : 1;
    else if (blocked || random(0, 1) < 0.2) data[f] = -Infinity;
    else data[f] = extreme && random(0, 1) < 0.3 ? EXTREMES[Math.floor(random(0, 4))] : random(-3, 3);
  }
  return { data, shape };
}

// DynamicViT keep decisions (60% kept) of `form` for a batch of self-attention over L tokens.
function makeKeep(random, form, batch, L) {
  const shape = {
    '[L]': [L],
    '[1,L]': batch.length ? [1, L] : [L],
    '[...batch,L]': [...batch, L], // no more dims than the batch
    '[B,1..,L]': batch.length ? [batch[0], ...batch.slice(1).map(() => 1), L] : [L],
  }[form];
  return { data: Uint8Array.from({ length: size(shape) }, () => (random(0, 1) < 0.6 ? 1 : 0)), shape };
}

// The key limit of each [L, d] block of k or v (t): the key length of the sequence it
// belongs to when its first axis is the batch's first axis, else the longest key length
// (the block is shared by all sequences).
function keyLimits(t, batch, lengths) {
  const lead = t.shape.slice(0, -2);
  const longest = Math.max(...lengths);
  if (lead.length !== batch.length || lead.length === 0 || lead[0] !== batch[0]) return () => longest;
  const perSequence = size(lead.slice(1));
  return (b) => lengths[Math.floor(b / perSequence)];
}

// Sets row j of block b of t ([..., L, d]) to value() wherever hidden(b, j); returns the
// number of rows poisoned.
function poisonKeys(t, hidden, value) {
  const [L, d] = t.shape.slice(-2);
  let rows = 0;
  for (let b = 0; b < size(t.shape.slice(0, -2)); b++) {
    for (let j = 0; j < L; j++) {
      if (!hidden(b, j)) continue;
      for (let c = 0; c < d; c++) t.data[(b * L + j) * d + c] = value();
      rows++;
    }
  }
  return rows;
}

function poisonValue(random, kind) {
  const values = { nan: [NaN], inf: [Infinity], '-inf': [-Infinity], mixed: [NaN, Infinity, -Infinity] }[kind];
  return () => values[Math.floor(random(0, values.length))];
}

// k/v [..., Hk, L, d] → [..., Hk·group, L, d]: head h of q reads kv head floor(h / group).
function repeatHeads(t, group) {
  const [H, L, d] = t.shape.slice(-3);
  const lead = t.shape.slice(0, -3);
  const out = new Float32Array(t.data.length * group);
  for (let b = 0; b < size(lead); b++) {
    for (let h = 0; h < H * group; h++) {
      const src = (b * H + Math.floor(h / group)) * L * d;
      out.set(t.data.subarray(src, src + L * d), (b * H * group + h) * L * d);
    }
  }
  return { data: out, shape: [...lead, H * group, L, d] };
}

// The keep-mask as the reference's mask [...batch, L, L]: G_ij = (i == j or keep_j),
// combined with the mask (AND for a boolean mask; -Infinity where G blocks for an additive one).
function combineKeep(keep, mask, batch, L) {
  const shape = [...batch, L, L];
  const additive = mask !== undefined && !mask.boolean;
  const data = additive ? new Float32Array(size(shape)) : new Uint8Array(size(shape));
  const readMask = mask && broadcastReader(mask, shape);
  const readKeep = broadcastReader(keep, [...batch, L]);
  for (let f = 0; f < data.length; f++) {
    const j = f % L,
      i = Math.floor(f / L) % L,
      b = Math.floor(f / (L * L));
    const g = i === j || readKeep(b * L + j) === 1;
    if (additive) data[f] = g ? readMask(f) : -Infinity;
    else data[f] = g && (!readMask || readMask(f) !== 0) ? 1 : 0;
  }
  return { data, shape, boolean: !additive };
}

// The value of a (broadcasting, right-aligned) tensor at flat index f of `shape`.
function broadcastReader(t, shape) {
  const padded = [...new Array(shape.length - t.shape.length).fill(1), ...t.shape];
  return (f) => {
    let offset = 0,
      stride = 1;
    for (let a = shape.length - 1, rest = f; a >= 0; a--) {
      const index = rest % shape[a];
      rest = Math.floor(rest / shape[a]);
      if (padded[a] !== 1) offset += index * stride;
      stride *= padded[a];
    }
    return t.data[offset];
  };
}

// Float32 rounding moves a score by about eps·(|scale|·Σ|q_c·k_c| + |mask|) (masks of
// ±1e30 and beyond swamp the score in float64 too, so they do not count); a weight moves
// by at most twice the largest score error, an output by that times max|v| (plus the
// rounding of the sum). Over 40 seeds (400,000 cases) the largest error was 0.24 of these
// tolerances. `headroom` records the largest |error| / tolerance of a run (printed).
const EPS = 2 ** -24;
function tolerance(q, k, v, scale, additiveMask) {
  const maxAbs = (t, limit = Infinity) =>
    t.data.reduce((m, x) => (Math.abs(x) < limit ? Math.max(m, Math.abs(x)) : m), 0);
  const dk = q.shape.at(-1),
    Lk = k.shape.at(-2);
  const scores = Math.abs(scale) * dk * maxAbs(q) * maxAbs(k) + (additiveMask ? maxAbs(additiveMask, 1e29) : 0);
  const weights = 4 * EPS * (1 + scores);
  return {
    weights: { atol: weights, rtol: 0 },
    output: { atol: (weights + 2 * EPS * Lk) * Math.max(maxAbs(v), 1), rtol: 0 },
  };
}
const headroom = {};

function closeTo(actual, expected, tol, label, detail = '') {
  assertClose(actual, expected, { ...tol, label: label + detail });
  let worst = 0;
  for (let i = 0; i < expected.data.length; i++)
    worst = Math.max(worst, Math.abs(actual.data[i] - expected.data[i]) / tol.atol);
  headroom[label] = Math.max(headroom[label] ?? 0, worst);
}

function describeCase(q, k, v, options, poison) {
  const brief = (t) => t && `${t.data instanceof Uint8Array ? 'boolean' : 'additive'} ${JSON.stringify(t.shape)}`;
  const shown = {
    ...options,
    mask: brief(options.mask),
    keepMask: options.keepMask && JSON.stringify(options.keepMask.shape),
  };
  if (ArrayBuffer.isView(shown.keyLengths)) shown.keyLengths = `Int32Array [${shown.keyLengths}]`;
  return (
    `q ${JSON.stringify(q.shape)}, k ${JSON.stringify(k.shape)}, v ${JSON.stringify(v.shape)}, ` +
    `options ${JSON.stringify(shown)}, poison ${poison}`
  );
}

// Runs `check` and, if it throws, adds the concrete case to the error's message and to its
// stack (which is what fast-check prints after "Got").
function explained(built, check) {
  try {
    check();
  } catch (error) {
    const detail = `\n    case: ${built.describe()}`;
    error.message += detail;
    const at = String(error.stack).indexOf('\n    at ');
    if (at >= 0) error.stack = error.stack.slice(0, at) + detail + error.stack.slice(at);
    throw error;
  }
}

// Tensor t with index `order[i]` of `axis` (negative: from the end) moved to index i.
function permuteAxis(t, axis, order) {
  const a = t.shape.length + axis;
  const n = t.shape[a],
    inner = size(t.shape.slice(a + 1)),
    outer = size(t.shape.slice(0, a));
  const data = new t.data.constructor(t.data.length);
  for (let o = 0; o < outer; o++) {
    order.forEach((from, to) =>
      data.set(t.data.subarray((o * n + from) * inner, (o * n + from + 1) * inner), (o * n + to) * inner),
    );
  }
  return { data, shape: t.shape };
}

const bothPaths = (q, k, v, options) => [
  ['fused', attn.attention(q, k, v, options)],
  ['step-by-step', attn.attention(q, k, v, { ...options, returnWeights: true })],
];

// ---- Properties ---------------------------------------------------------------------------

const seen = { reference: {}, queries: {}, keys: {} };

function checkAgainstReference(c) {
  const built = build(c, seen.reference);
  explained(built, () => {
    const { q, k, v, options, tol } = built;
    const expected = built.ref();
    const [[, fused], [, stepwise]] = bothPaths(q, k, v, options);
    // (a) the reference, on both paths.
    closeTo(fused.output, expected.output, tol.output, 'fused output');
    closeTo(stepwise.output, expected.output, tol.output, 'step-by-step output');
    closeTo(stepwise.weights, expected.weights, tol.weights, 'weights');
    // (b) blocked keys weigh exactly 0; rows that see no key are exactly 0.
    const Lk = expected.weights.shape.at(-1),
      dv = expected.output.shape.at(-1);
    const rows = size(expected.output.shape.slice(0, -1));
    for (let r = 0; r < rows; r++) {
      let visible = 0;
      for (let j = 0; j < Lk; j++) {
        if (expected.maskedScores.data[r * Lk + j] !== -Infinity) visible++;
        else {
          const w = stepwise.weights.data[r * Lk + j];
          assert.ok(w === 0, `blocked key ${j} of row ${r} has weight ${w}`);
        }
      }
      if (visible > 0) {
        seen.reference['rows with keys'] = (seen.reference['rows with keys'] ?? 0) + 1;
        continue;
      }
      for (const [path, out] of [
        ['fused', fused.output],
        ['step-by-step', stepwise.output],
      ]) {
        const row = out.data.subarray(r * dv, (r + 1) * dv);
        assert.ok(
          row.every((x) => x === 0),
          `${path} output row ${r} sees no key but is [${row}]`,
        );
      }
      seen.reference['rows without keys'] = (seen.reference['rows without keys'] ?? 0) + 1;
    }
    // (c) every visible input is finite: so is everything returned.
    for (const [label, t] of [
      ['fused output', fused.output],
      ['step-by-step output', stepwise.output],
      ['weights', stepwise.weights],
    ]) {
      const bad = t.data.findIndex((x) => !Number.isFinite(x));
      assert.ok(bad < 0, `${label} holds ${t.data[bad]} at flat index ${bad}`);
    }
  });
}

// (d) Queries: q rows (and the mask's query rows) in another order move the result rows.
function checkQueryPermutation([c, order]) {
  const built = build(c, seen.queries);
  explained(built, () => {
    const { q, k, v, options, tol } = built;
    const mask =
      options.mask && options.mask.shape.length >= 2 && options.mask.shape.at(-2) !== 1
        ? permuteAxis(options.mask, -2, order)
        : options.mask;
    const moved = bothPaths(permuteAxis(q, -2, order), k, v, { ...options, mask });
    for (const [[path, base], [, after]] of bothPaths(q, k, v, options).map((b, i) => [b, moved[i]])) {
      const detail = ` (order ${order})`;
      closeTo(
        after.output,
        permuteAxis(base.output, -2, order),
        double(tol.output),
        `${path} output, queries moved`,
        detail,
      );
      if (base.weights)
        closeTo(
          after.weights,
          permuteAxis(base.weights, -2, order),
          double(tol.weights),
          'weights, queries moved',
          detail,
        );
    }
    countPermutation(seen.queries, order, options);
  });
}

// (d) Keys: k/v rows (and the mask's key columns) in another order change no output and
// move the weight columns.
function checkKeyPermutation([c, order]) {
  const built = build(c, seen.keys);
  explained(built, () => {
    const { q, k, v, options, tol } = built;
    const mask = options.mask && options.mask.shape.at(-1) !== 1 ? permuteAxis(options.mask, -1, order) : options.mask;
    const moved = bothPaths(q, permuteAxis(k, -2, order), permuteAxis(v, -2, order), { ...options, mask });
    for (const [[path, base], [, after]] of bothPaths(q, k, v, options).map((b, i) => [b, moved[i]])) {
      const detail = ` (order ${order})`;
      closeTo(after.output, base.output, double(tol.output), `${path} output, keys moved`, detail);
      if (base.weights)
        closeTo(
          after.weights,
          permuteAxis(base.weights, -1, order),
          double(tol.weights),
          'weights, keys moved',
          detail,
        );
    }
    countPermutation(seen.keys, order, options);
  });
}

// Two results each within `tol` of the exact one are within twice `tol` of each other.
const double = (tol) => ({ ...tol, atol: 2 * tol.atol });

function countPermutation(counts, order, options) {
  if (order.some((from, to) => from !== to)) {
    counts['moved'] = (counts['moved'] ?? 0) + 1;
    if (options.mask) counts['moved with a mask'] = (counts['moved with a mask'] ?? 0) + 1;
  }
}

// Runs a property with fast-check's seed SEED + offset (so the properties draw different
// cases). fast-check 4 keeps the failed assertion in error.cause, which node:test does not
// print: includeErrorInReport puts it in the message, after the seed, path and shrunk
// counterexample; the first line says how to replay the whole file.
function assertProperty(property, numRuns, offset) {
  try {
    fc.assert(property, { seed: (SEED + offset) | 0, numRuns, includeErrorInReport: true });
  } catch (error) {
    error.message = `replay: ATTN_PROPERTY_SEED=${SEED} node --test tests/attention-properties.test.js\n${error.message}`;
    throw error;
  }
}

// Every feature in `counts` reached in at least `min` cases (and every expected one present).
function assertReached(name, counts, expected, min) {
  console.log(`attention properties: ${name}: ${JSON.stringify(counts)}`);
  console.log(
    `attention properties: largest |error| / tolerance so far: ${JSON.stringify(headroom, (key, x) => (typeof x === 'number' ? +x.toFixed(3) : x))}`,
  );
  for (const feature of expected)
    assert.ok(
      (counts[feature] ?? 0) >= min,
      `${name}: only ${counts[feature] ?? 0} cases with '${feature}' (want ≥ ${min})`,
    );
}

// ---- Tests --------------------------------------------------------------------------------

test(`attention equals the float64 reference, zero rows, finite results (${RUNS.reference} cases, both paths)`, () => {
  assertProperty(fc.property(arbCase, checkAgainstReference), RUNS.reference, 0);
  const features = [
    'computes',
    'batch with a 0',
    'Lq 0',
    'Lk 0',
    'Lq 1',
    'Lk 1',
    'dv 0',
    'q broadcasts',
    'k/v broadcast',
    'gqa',
    'causal default Lq≠Lk',
    'causal top-left Lq≠Lk',
    'causal bottom-right Lq≠Lk',
    'key lengths',
    'keep-mask',
    ...MASK_FORMS.flatMap((form) => [`mask boolean ${form}`, `mask additive ${form}`]),
    'mask ±1e30/FLT_MAX',
    'poisoned via mask',
    'poisoned past key length',
    'scale 0',
    'scale < 0',
    '|scale| > 3',
    'rows without keys',
  ];
  assertReached('features reached', seen.reference, features, 40);
  assert.ok(seen.reference.computes >= RUNS.reference / 2, 'at least half the cases compute something');
});

test(`permuting the queries permutes the output and weight rows (${RUNS.queries} cases, both paths)`, () => {
  const arb = arbPermutable.chain((c) => fc.tuple(fc.constant(c), arbPermutation(c.shapes.Lq)));
  assertProperty(fc.property(arb, checkQueryPermutation), RUNS.queries, 1);
  assertReached(
    'query permutation, features reached',
    seen.queries,
    ['moved', 'moved with a mask', 'gqa', 'poisoned via mask'],
    200,
  );
});

test(`permuting key/value pairs leaves the output unchanged (${RUNS.keys} cases, both paths)`, () => {
  const arb = arbPermutable.chain((c) => fc.tuple(fc.constant(c), arbPermutation(c.shapes.Lk)));
  assertProperty(fc.property(arb, checkKeyPermutation), RUNS.keys, 2);
  assertReached(
    'key permutation, features reached',
    seen.keys,
    ['moved', 'moved with a mask', 'gqa', 'poisoned via mask'],
    200,
  );
});
