// Property-based tests of attn.attention (fast-check): generated cases against the float64
// reference (tests/helpers/reference.js), on both paths (fused, and step-by-step with weights).
//
// Generated: leading dims including 0- and 1-sized axes and broadcasting k/v; Lq, Lk in 0..9
// (Lq ≠ Lk for the causal alignments); dk 1..8, dv 0..6; boolean, additive and broadcast masks;
// causal top-left / bottom-right; key lengths; DynamicViT keep-masks; GQA; scales (0 and
// negative too); NaN and ±Infinity in k and v rows of keys blocked for every query.
// Properties: (1) equals the reference, outputs and weights; (2) a row with no visible key is
// exactly zeros; (3) no NaN (every visible input is finite); (4) permuting queries permutes
// the output rows; (5) permuting key/value pairs (with the mask's columns) changes nothing.
// Cases per run: 6,000 + 2,000 + 2,000 = 10,000, seeded (printed; ATTN_PROPERTY_SEED
// overrides). A failure reports the seed, the path and the shrunk case (fast-check's message).
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { init } from 'attention-wasm';
import { referenceAttention, broadcast } from './helpers/reference.js';
import { assertClose, rng } from './helpers/assert.js';

const attn = await init();
const SEED = Number(process.env.ATTN_PROPERTY_SEED ?? 20261122);
console.log(`attention properties: seed ${SEED} (set ATTN_PROPERTY_SEED to replay)`);

const size = (shape) => shape.reduce((a, b) => a * b, 1);

// ---- Arbitraries -------------------------------------------------------------------------

// Leading dims of q, and of k/v (each k/v dim equal to q's or 1, or the axis dropped).
const arbLeads = fc.constantFrom([], [0], [1], [2], [3], [2, 3], [1, 2], [2, 0]).chain((qLead) =>
  fc.record({
    qLead: fc.constant(qLead),
    kvLead: fc.oneof(
      fc.constant(qLead),
      fc.constant(qLead.map(() => 1)),
      fc.constant(qLead.slice(1)),
      fc.constant([])),
  }));

const arbMask = fc.record({
  kind: fc.constantFrom('none', 'boolean', 'additive'),
  // The mask's shape: keys only, one row for all queries, full rows, with a 1 for every
  // batch dim, or per-batch-entry [B, 1, ..., Lk].
  form: fc.constantFrom('[Lk]', '[1,Lk]', '[Lq,Lk]', '[1..,Lq,Lk]', '[B,..1,Lk]'),
});

const arbCase = fc.record({
  leads: arbLeads,
  Lq: fc.integer({ min: 0, max: 9 }),
  Lk: fc.integer({ min: 0, max: 9 }),
  dk: fc.integer({ min: 1, max: 8 }),
  dv: fc.integer({ min: 0, max: 6 }),
  gqa: fc.constantFrom(0, 0, 2, 3),   // k/v heads = q heads / group, on the last lead axis
  mask: arbMask,
  causal: fc.constantFrom('none', 'top-left', 'bottom-right'),
  keyLengths: fc.boolean(),
  keep: fc.boolean(),
  scale: fc.oneof(fc.constant(undefined), fc.constant(0), fc.double({ min: -3, max: 3, noNaN: true })),
  poison: fc.constantFrom('none', 'nan', 'inf', '-inf'),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

// How often the generator reached each feature (printed, and each must be reached).
const coverage = { gqa: 0, keepMask: 0, poisoned: 0, causalUnequal: 0, keyLengths: 0, emptyAxis: 0, broadcastKv: 0, rowWithoutKeys: 0 };

// ---- Building a case ----------------------------------------------------------------------

function fill(random, shape, lo = -2, hi = 2) {
  const data = new Float32Array(size(shape));
  for (let i = 0; i < data.length; i++) data[i] = random(lo, hi);
  return { data, shape };
}

// The concrete tensors and options of a generated case, and the reference's equivalents
// (GQA expanded to full heads, keep-mask combined into the mask).
function build(c) {
  const random = rng(c.seed);
  let { qLead, kvLead } = c.leads;
  const group = c.gqa && qLead.length > 0 && qLead.at(-1) > 0 ? c.gqa : 1;
  if (group > 1) {  // q heads = kv heads · group on the last lead axis
    const kvHeads = qLead.at(-1);
    qLead = [...qLead.slice(0, -1), kvHeads * group];
    kvLead = [...qLead.slice(0, -1), kvHeads];
  }
  const batch = broadcast(qLead, group > 1 ? qLead : kvLead);
  const { Lq, Lk, dk, dv } = c;
  const q = fill(random, [...qLead, Lq, dk]);
  const k = fill(random, [...kvLead, Lk, dk]);
  const v = fill(random, [...kvLead, Lk, dv]);
  const options = {};
  if (c.scale !== undefined) options.scale = c.scale;
  if (c.causal !== 'none' && Lq !== Lk) Object.assign(options, { causal: true, causalAlign: c.causal });
  else if (c.causal === 'top-left') options.causal = true;
  if (group > 1) options.enableGqa = true;
  if (c.keyLengths) {
    const lengths = Array.from({ length: batch.length ? batch[0] : 1 }, () => Math.floor(random(0, Lk + 1)));
    options.keyLengths = batch.length ? lengths : lengths[0];
  }

  // Keys blocked for every query by the mask: poisoned with NaN/±Inf in k and v.
  const blockedKeys = new Set();
  let maskKind = c.mask.kind;
  if (c.poison !== 'none' && Lk > 0) {
    blockedKeys.add(Math.floor(random(0, Lk)));
    if (maskKind === 'none') maskKind = 'boolean';
  }
  if (maskKind !== 'none') options.mask = makeMask(random, maskKind, c.mask.form, batch, Lq, Lk, blockedKeys);
  const poison = { nan: NaN, inf: Infinity, '-inf': -Infinity }[c.poison];
  for (const j of blockedKeys) {
    poisonRows(k, j, poison);
    poisonRows(v, j, poison);
  }

  let refMask = options.mask && { ...options.mask, boolean: maskKind === 'boolean' };
  if (c.keep && Lq === Lk && Lk > 0) {
    const keep = { data: Uint8Array.from({ length: Lk }, () => (random(0, 1) < 0.6 ? 1 : 0)), shape: [Lk] };
    options.keepMask = keep;
    refMask = combineKeep(keep.data, refMask, batch, Lk);
  }
  coverage.gqa += group > 1;
  coverage.keepMask += options.keepMask !== undefined;
  coverage.poisoned += blockedKeys.size > 0;
  coverage.causalUnequal += options.causal === true && Lq !== Lk;
  coverage.keyLengths += options.keyLengths !== undefined;
  coverage.emptyAxis += [...qLead, Lq, Lk, dv].includes(0);
  coverage.broadcastKv += kvLead.length < qLead.length || kvLead.some((d, i) => d !== qLead[qLead.length - kvLead.length + i]);
  const expand = (t) => (group > 1 ? repeatHeads(t, group) : t);
  const refOptions = { ...options, mask: refMask, keyLengths: typeof options.keyLengths === 'number' ? [options.keyLengths] : options.keyLengths };
  return { q, k, v, options, ref: () => referenceAttention(q, expand(k), expand(v), refOptions) };
}

function makeMask(random, kind, form, batch, Lq, Lk, blockedKeys) {
  const shape = {
    '[Lk]': [Lk], '[1,Lk]': [1, Lk], '[Lq,Lk]': [Lq, Lk], '[1..,Lq,Lk]': [...batch.map(() => 1), Lq, Lk],
    '[B,..1,Lk]': batch.length ? [batch[0], ...batch.slice(1).map(() => 1), 1, Lk] : [1, Lk],
  }[form];
  const n = size(shape);
  const data = kind === 'boolean' ? new Uint8Array(n) : new Float32Array(n);
  for (let f = 0; f < n; f++) {
    const j = f % Lk;
    if (kind === 'boolean') data[f] = blockedKeys.has(j) ? 0 : random(0, 1) < 0.7 ? 1 : 0;
    else data[f] = blockedKeys.has(j) || random(0, 1) < 0.2 ? -Infinity : random(-3, 3);
  }
  return { data, shape };
}

// Sets key row j of every [.., Lk, d] block of t to `value`.
function poisonRows(t, j, value) {
  const [L, d] = t.shape.slice(-2);
  for (let b = 0; b < size(t.shape.slice(0, -2)); b++) t.data.fill(value, (b * L + j) * d, (b * L + j + 1) * d);
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

// The keep-mask as the reference's mask: G_ij = (i == j or keep_j), combined with the mask
// (AND for a boolean mask; -Infinity where G blocks for an additive one).
function combineKeep(keep, mask, batch, L) {
  const shape = [...batch, L, L];
  const additive = mask !== undefined && !mask.boolean;
  const data = additive ? new Float32Array(size(shape)) : new Uint8Array(size(shape));
  const read = mask && broadcastReader(mask, shape);
  for (let f = 0; f < data.length; f++) {
    const j = f % L, i = Math.floor(f / L) % L;
    const g = i === j || keep[j] === 1;
    if (additive) data[f] = g ? read(f) : -Infinity;
    else data[f] = g && (!read || read(f) !== 0) ? 1 : 0;
  }
  return { data, shape, boolean: !additive };
}

// The value of a (broadcasting, right-aligned) mask at flat index f of `shape`.
function broadcastReader(mask, shape) {
  const padded = [...new Array(shape.length - mask.shape.length).fill(1), ...mask.shape];
  return (f) => {
    let offset = 0, stride = 1;
    for (let a = shape.length - 1, rest = f; a >= 0; a--) {
      const index = rest % shape[a];
      rest = Math.floor(rest / shape[a]);
      if (padded[a] !== 1) offset += index * stride;
      stride *= padded[a];
    }
    return mask.data[offset];
  };
}

// ---- Properties ---------------------------------------------------------------------------

const TOL = { atol: 2e-5, rtol: 2e-4 };

function checkAgainstReference(c) {
  const { q, k, v, options, ref } = build(c);
  const expected = ref();
  const fused = attn.attention(q, k, v, options);
  const stepwise = attn.attention(q, k, v, { ...options, returnWeights: true });
  assertClose(fused.output, expected.output, { ...TOL, label: 'fused output' });
  assertClose(stepwise.output, expected.output, { ...TOL, label: 'step-by-step output' });
  assertClose(stepwise.weights, expected.weights, { atol: 2e-6, rtol: 2e-4, label: 'weights' });
  // (2) rows that see no key (their reference weights sum to 0) are exactly zero.
  const [Lq, Lk] = expected.weights.shape.slice(-2);
  const dv = expected.output.shape.at(-1);
  for (let r = 0; r < expected.weights.data.length / Math.max(Lk, 1); r++) {
    let seen = 0;
    for (let j = 0; j < Lk; j++) seen += expected.weights.data[r * Lk + j];
    if (seen !== 0 && Lk > 0) continue;
    for (let c2 = 0; c2 < dv; c2++) {
      assert.equal(fused.output.data[r * dv + c2], 0, `fused row ${r} sees no key`);
      assert.equal(stepwise.output.data[r * dv + c2], 0, `step-by-step row ${r} sees no key`);
    }
    for (let j = 0; j < Lk; j++) assert.equal(stepwise.weights.data[r * Lk + j], 0, `weights row ${r}`);
    coverage.rowWithoutKeys++;
  }
  // (3) every visible input is finite, so nothing is NaN.
  for (const [label, t] of [['fused', fused.output], ['step-by-step', stepwise.output], ['weights', stepwise.weights]]) {
    assert.ok(!t.data.some(Number.isNaN), `${label} holds NaN (Lq ${Lq}, Lk ${Lk})`);
  }
}

// A case without causal rules and key lengths, with a full [Lq, Lk] mask or none, for the
// permutation properties.
const arbPermutable = fc.record({
  Lq: fc.integer({ min: 1, max: 9 }),
  Lk: fc.integer({ min: 1, max: 9 }),
  dk: fc.integer({ min: 1, max: 8 }),
  dv: fc.integer({ min: 1, max: 6 }),
  mask: fc.constantFrom('none', 'boolean', 'additive'),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
}).chain((c) => fc.record({
  c: fc.constant(c),
  perm: fc.shuffledSubarray([...Array(Math.max(c.Lq, c.Lk)).keys()], { minLength: Math.max(c.Lq, c.Lk), maxLength: Math.max(c.Lq, c.Lk) }),
}));

function permutableCase(c) {
  const random = rng(c.seed);
  const q = fill(random, [c.Lq, c.dk]), k = fill(random, [c.Lk, c.dk]), v = fill(random, [c.Lk, c.dv]);
  const mask = c.mask === 'none' ? undefined : makeMask(random, c.mask, '[Lq,Lk]', [], c.Lq, c.Lk, new Set());
  return { q, k, v, mask };
}

// Rows of t ([L, d] row-major) in the order `order` (a permutation of 0..L-1).
function permuteRows(t, order) {
  const d = t.shape.at(-1);
  const data = new t.data.constructor(t.data.length);
  order.forEach((from, to) => data.set(t.data.subarray(from * d, (from + 1) * d), to * d));
  return { data, shape: t.shape };
}

function permuteColumns(t, order) {
  const [L, d] = t.shape;
  const data = new t.data.constructor(t.data.length);
  for (let i = 0; i < L; i++) order.forEach((from, to) => { data[i * d + to] = t.data[i * d + from]; });
  return { data, shape: t.shape };
}

// ---- Tests --------------------------------------------------------------------------------

test('attention equals the float64 reference on 6,000 generated cases (both paths)', () => {
  fc.assert(fc.property(arbCase, (c) => { checkAgainstReference(c); }), { seed: SEED, numRuns: 6000 });
  console.log(`attention properties: features reached in 6,000 cases: ${JSON.stringify(coverage)}`);
  for (const [feature, count] of Object.entries(coverage)) assert.ok(count >= 100, `only ${count} cases with ${feature}`);
});

test('permuting the queries permutes the output rows (2,000 cases)', () => {
  fc.assert(fc.property(arbPermutable, ({ c, perm }) => {
    const order = perm.filter((i) => i < c.Lq);
    const { q, k, v, mask } = permutableCase(c);
    const base = attn.attention(q, k, v, { mask }).output;
    const moved = attn.attention(permuteRows(q, order), k, v, { mask: mask && permuteRows(mask, order) }).output;
    assertClose(moved, permuteRows(base, order), { atol: 1e-6, rtol: 1e-5, label: 'permuted queries' });
  }), { seed: SEED + 1, numRuns: 2000 });
});

test('permuting key/value pairs (and the mask columns) leaves the output unchanged (2,000 cases)', () => {
  fc.assert(fc.property(arbPermutable, ({ c, perm }) => {
    const order = perm.filter((i) => i < c.Lk);
    const { q, k, v, mask } = permutableCase(c);
    const base = attn.attention(q, k, v, { mask, returnWeights: true });
    const moved = attn.attention(q, permuteRows(k, order), permuteRows(v, order), { mask: mask && permuteColumns(mask, order), returnWeights: true });
    assertClose(moved.output, base.output, { atol: 1e-6, rtol: 1e-5, label: 'permuted keys' });
    assertClose(moved.weights, permuteColumns(base.weights, order), { atol: 1e-7, rtol: 1e-5, label: 'permuted key weights' });
  }), { seed: SEED + 2, numRuns: 2000 });
});
