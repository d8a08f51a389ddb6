// API fuzzer: 100,000 seeded calls (plus 300 of init()) of every public function, constructor
// and layer method of attention-wasm — attention, attentionBackward, the backward steps
// (linearBackward, layerNormBackward, feedForwardBackward, softmaxCrossEntropy), matmul, layerNorm, rmsNorm,
// softmax, logSoftmax, feedForward, setPool,
// sinusoidalEncoding, addPositionalEncoding, applyRope, alibiSlopes, alibiBias,
// laplacianEncoding, tensor, toNested, toTfjs, toOrt, estimateMemory, memory, init, the two
// layer classes and their forward/setWeights/getWeights/dispose, KVCache (a whole life of a
// cache per call: new, attend, dispose) — with valid, near-valid and garbage arguments; the
// later options have entries of their own: attention's layout 'bshd' and pastKey/pastValue,
// layerNorm's axis and returnStats, applyRope's cos/sin tables. Layout: the generators, one per
// kind of argument (junk, numbers, tensors, masks, options, graphs, layers' configs) and
// perturb() turning a valid call into a mistaken one, are in tests/helpers/arbitraries.js; here
// are the references, a table of public name → generator of a valid call (makeEntries,
// laterEntries, layerCalls), the properties each result must have, and one checking loop
// (runChild).
//
// THE RULE. Every call must either
//   (a) return a well-formed result ({ data: Float32Array, shape } with data.length equal to the
//       product of shape, not sharing an input's data; with options.out, its output's data is
//       exactly that array) and leave its honest inputs unchanged;
//       when every argument was valid the call MUST return, and its result must equal an
//       independent reference: the float64 helpers for attention (every layout, over
//       [pastKey, k] with a cache; presentKey/presentValue exactly [past, new]), KVCache.attend
//       (over what the cache must hold, kept here), matmul, layerNorm (its stats too), rmsNorm,
//       softmax, logSoftmax, applyRope with tables (ONNX RotaryEmbedding, transcribed here),
//       feedForward, MultiHeadAttention.forward and TransformerEncoderLayer.forward; closed forms
//       for setPool, sinusoidalEncoding, addPositionalEncoding, applyRope, alibiSlopes,
//       alibiBias, laplacianEncoding (L·v = λ·v), tensor, toNested, toTfjs, toOrt,
//       setWeights/getWeights; or
//   (b) throw a TypeError or RangeError whose message starts with the public name and ':'
//       ('attention:', 'MultiHeadAttention.forward:', ...; estimateMemory may also use the name
//       of the function it estimates, as documented, and must agree with that call).
// Two documented exceptions are accepted:
//   - an error thrown by the caller's own code (a getter, a Proxy trap, valueOf, a tf/ort module)
//     may pass through unchanged: the fuzzer's own code throws only CallerError instances and
//     exactly the instances it threw are accepted;
//   - a method of a disposed layer throws an Error whose message starts with
//     'Class.method: this object was disposed'; dispose() itself may be repeated.
// Anything else fails the test: another error class (a wasm RuntimeError, a plain Error, a
// thrown non-Error), a message that does not start with the name, a wrong result, a valid call
// that throws, a call slower than SLOW_MS, a hang (no progress for HANG_MS), a crash of the
// process, a call other than a constructor or dispose() changing the wasm heap's bytes in use,
// a live layer's weights changed by a call other than its own setWeights, a canary that
// changes, or heap bytes in use not back at their start once every layer is disposed.
//
// LYING INPUTS. "Shifty" tensors answer honestly the first reads of data/shape and lie
// afterwards (another shape, null, a shorter array, a detached buffer); Array subclasses whose
// slice/forEach/iterator lie; a Float32Array subclass whose length getter lies; options getters
// that detach another argument's buffer. A correct library reads each property once and copies
// before running caller code again, so for these the call must either throw as in (b) or return
// the reference result of the honest values.
//
// HOW IT RUNS. The test spawns this file as a child process (a V8 out-of-memory abort or a
// hang cannot be caught in-process). Before each call the child writes the call's index and a
// description to a progress file, so the parent can name a call that crashed or hung. A crash,
// a hang, a wasm trap, a changed heap or layer or canary ends the child (its module is no longer
// trustworthy); the parent starts a new one at the next call. Each call's arguments come from
// its own PRNG (mulberry32 seeded by the run seed and the call index), so a run replays exactly:
//   ATTN_FUZZ_SEED=<seed> node --test tests/api-fuzz.test.js
//   ATTN_FUZZ_CALLS=<n> (default 100,000) resizes it; ATTN_FUZZ_FROM=<i> starts at call i, so
//   ATTN_FUZZ_FROM=i ATTN_FUZZ_CALLS=i+1 replays call i alone (a layer method then gets a fresh
//   layer). Failures are grouped by kind, each with the first calls that showed it.
// Every 1,000 calls a fixed canary (masked attention, a MultiHeadAttention forward, a
// layerNorm) must give the same bits as the first canary of the run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import {
  init,
  tensor as packageTensor,
  toNested as packageToNested,
  toTfjs as packageToTfjs,
  toOrt as packageToOrt,
} from 'attention-wasm';
import { referenceAttention } from './helpers/reference.js';
import { refMatmul, refLayerNorm, refFeedForward, refMultiHead, refAdd } from './helpers/reference-layers.js';
import { assertClose } from './helpers/assert.js';
import {
  refLinearBackward,
  refLayerNormBackward,
  refFeedForwardBackward,
  refSoftmaxCrossEntropy,
} from './helpers/reference-backward.js';
import {
  makeGen,
  isProxy,
  sizeOf,
  HUGE_DIMS,
  CallerError,
  callerErrors,
  callerThrow,
  detach,
  throwingProxy,
  label,
  junk,
  evilObject,
  badNumber,
  randomFloats,
  nestable,
  nest,
  honestData,
  tensorArg,
  badShape,
  zeroSizeHuge,
  tensorMistake,
  maskArg,
  outArg,
  sameOut,
  optionsArg,
  optionsMistake,
  layerConfig,
  hugeConfig,
  graphMistake,
  perturb,
  windowArg,
  dropoutArg,
  OUT_OF_RANGE_SOFTCAPS,
} from './helpers/arbitraries.js';

const DEFAULT_SEED = 20261122;
const SEED = parseSeed(process.env.ATTN_FUZZ_SEED);
const CALLS = Number(process.env.ATTN_FUZZ_CALLS ?? 100_000);
const FROM = Number(process.env.ATTN_FUZZ_FROM ?? 0); // replay a range: ATTN_FUZZ_FROM=i ATTN_FUZZ_CALLS=j
const INIT_CALLS = 300; // init() is async and compiles wasm: fuzzed in a short first phase
const CHECK_EVERY = 1000; // canary
const STATS_EVERY = 250; // statistics to the parent
const SLOW_MS = 5_000; // one call
const HANG_MS = 20_000; // no progress at all
const BUDGET_MS = 10 * 60_000; // the whole run
const MAX_FAILURES = 20_000; // stop early after this many
const EXAMPLES = 2; // calls shown per kind of failure

function parseSeed(text) {
  if (text === undefined || text === '') return DEFAULT_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`ATTN_FUZZ_SEED must be an integer, got '${text}'`);
  return seed;
}

// ============================================================================================
// References and checks.
// ============================================================================================

// Float64 gradients of attention from the reference forward's weights and output, per entry:
// with dropout weight j reaches the output as P̃ = P·keep (keep 0 or 1/(1 − p)), with a softcap c
// the capped score's slope is 1 − (capped / c)²:
// dV = P̃ᵀ·dO, dS = (P̃ ∘ (dO·Vᵀ) − P ∘ rowsum(dO ∘ O)) ∘ slope·scale, dQ = dS·K, dK = dSᵀ·Q.
function refAttentionBackward(qc, kc, vc, dc, o) {
  const ref = referenceAttention(qc, kc, vc, { ...o, returnWeights: true });
  const [Lq, dk] = qc.shape.slice(-2),
    [Lk, dv] = vc.shape.slice(-2);
  const count = sizeOf(qc.shape.slice(0, -2));
  const scale = o.scale ?? 1 / Math.sqrt(dk);
  const dq = new Float64Array(count * Lq * dk),
    dK = new Float64Array(count * Lk * dk),
    dV = new Float64Array(count * Lk * dv);
  for (let b = 0; b < count; b++) {
    for (let i = 0; i < Lq; i++) {
      const row = b * Lq + i;
      let D = 0;
      for (let c = 0; c < dv; c++) D += dc.data[row * dv + c] * ref.output.data[row * dv + c];
      for (let j = 0; j < Lk; j++) {
        const p = ref.weights.data[row * Lk + j],
          pd = ref.droppedWeights.data[row * Lk + j];
        if (p === 0) continue;
        let dP = 0;
        for (let c = 0; c < dv; c++) dP += dc.data[row * dv + c] * vc.data[(b * Lk + j) * dv + c];
        const slope = o.softcap > 0 ? 1 - (ref.cappedScores.data[row * Lk + j] / o.softcap) ** 2 : 1;
        const dS = (pd * dP - p * D) * slope * scale;
        for (let t = 0; t < dk; t++) {
          dq[row * dk + t] += dS * kc.data[(b * Lk + j) * dk + t];
          dK[(b * Lk + j) * dk + t] += dS * qc.data[row * dk + t];
        }
        for (let c = 0; c < dv; c++) dV[(b * Lk + j) * dv + c] += pd * dc.data[row * dv + c];
      }
    }
  }
  return { dq: { data: dq, shape: qc.shape }, dk: { data: dK, shape: kc.shape }, dv: { data: dV, shape: vc.shape } };
}

function near(actual, expected, what, atol = 1e-5, rtol = 1e-4) {
  if (!actual || !(actual.data instanceof Float32Array)) throw new Error(`${what}: not a tensor`);
  assertClose(actual, expected, { atol, rtol, label: what });
}

// The problem with a value that should be a tensor { data: Float32Array, shape }, or null.
function tensorProblem(t, label = 'result') {
  if (t === null || typeof t !== 'object') return `${label} is ${inspect(t)}, not a tensor`;
  if (!(t.data instanceof Float32Array)) return `${label}.data is not a Float32Array`;
  if (!Array.isArray(t.shape) || t.shape.some((d) => !Number.isInteger(d) || d < 0))
    return `${label}.shape ${inspect(t.shape)} is not a list of dims`;
  if (t.data.length !== sizeOf(t.shape)) return `${label} has ${t.data.length} values but shape ${inspect(t.shape)}`;
  return null;
}

function sameBytes(a, b) {
  return (
    a.length === b.length &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
  );
}

// Value of t ({ data, shape }) at a multi-index aligned on the right (size-1 axes broadcast).
function at(t, index) {
  let offset = 0,
    stride = 1;
  for (let a = t.shape.length - 1, i = index.length - 1; a >= 0; a--, i--) {
    offset += (t.shape[a] === 1 ? 0 : index[i]) * stride;
    stride *= t.shape[a];
  }
  return t.data[offset];
}

function* indices(shape) {
  const index = new Array(shape.length).fill(0);
  for (let f = 0, n = sizeOf(shape); f < n; f++) {
    yield index.slice();
    for (let a = shape.length - 1; a >= 0; a--) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
}

function broadcastShape(...shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array(rank).fill(1);
  for (const s of shapes)
    s.forEach((d, i) => {
      if (d !== 1) out[rank - s.length + i] = d;
    });
  return out;
}

// Grouped-query attention by repetition: k [..., Hk, L, d] → [..., Hq, L, d].
function repeatHeads(t, hq) {
  const [hk, L, d] = t.shape.slice(-3);
  const outer = sizeOf(t.shape.slice(0, -3));
  const data = new Float32Array(outer * hq * L * d);
  for (let o = 0; o < outer; o++)
    for (let h = 0; h < hq; h++) {
      const src = (o * hk + Math.floor(h / (hq / hk))) * L * d;
      data.set(t.data.subarray(src, src + L * d), (o * hq + h) * L * d);
    }
  return { data, shape: [...t.shape.slice(0, -3), hq, L, d] };
}

// DynamicViT keep-mask as a full mask [...batch, L, L], combined with the user's mask.
function keepAsMask(keep, user, batch, L) {
  const shape = [...batch, L, L];
  const additive = user && !user.boolean;
  const data = additive ? new Float32Array(sizeOf(shape)) : new Uint8Array(sizeOf(shape));
  let f = 0;
  for (const index of indices(shape)) {
    const [i, j] = index.slice(-2);
    const allowed = i === j || at(keep, [...index.slice(0, -2), j]) === 1;
    if (additive) data[f++] = allowed ? at(user, index) : -Infinity;
    else data[f++] = allowed && (!user || at(user, index)) ? 1 : 0;
  }
  return { data, shape, boolean: !additive };
}

// ALiBi slopes exactly as the reference get_slopes(n) of the paper's code.
function refSlopes(n) {
  const powerOf2 = (m) => {
    const start = 2 ** -(2 ** -(Math.log2(m) - 3));
    return Array.from({ length: m }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return powerOf2(n);
  const closest = 2 ** Math.floor(Math.log2(n));
  return [
    ...powerOf2(closest),
    ...refSlopes(2 * closest)
      .filter((_, i) => i % 2 === 0)
      .slice(0, n - closest),
  ];
}

function refRope(x, positions, base, interleaved) {
  const [L, dim] = x.shape.slice(-2);
  const out = new Float64Array(x.data.length);
  for (let r = 0; r < x.data.length / dim; r++) {
    const pos = positions ? positions[r % L] : r % L;
    for (let i = 0; i < dim / 2; i++) {
      const angle = pos * base ** ((-2 * i) / dim);
      const [a, b] = interleaved ? [2 * i, 2 * i + 1] : [i, i + dim / 2];
      const xa = x.data[r * dim + a],
        xb = x.data[r * dim + b];
      out[r * dim + a] = xa * Math.cos(angle) - xb * Math.sin(angle);
      out[r * dim + b] = xb * Math.cos(angle) + xa * Math.sin(angle);
    }
  }
  return { data: out, shape: x.shape };
}

// Multi-head attention for batched or unbatched inputs (the helper takes batched only).
function refHeads(query, key, value, w, c, options) {
  const batch = (t) => (t.shape.length === 2 ? { data: t.data, shape: [1, ...t.shape] } : t);
  const keyLengths = options.keyLengths === undefined ? undefined : [].concat(Array.from(options.keyLengths));
  const r = refMultiHead(batch(query), batch(key), batch(value), w, c.numHeads, c.numKvHeads ?? c.numHeads, {
    ...options,
    keyLengths,
  });
  return r;
}

function refEncoder(x, w, c, options) {
  const mha = (input) => {
    const r = refHeads(input, input, input, w, c, options).output;
    return { data: r.data, shape: input.shape };
  };
  const ffn = (input) =>
    refFeedForward(input, { w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation: c.activation ?? 'relu' });
  const eps = c.eps ?? 1e-5;
  if ((c.norm ?? 'post') === 'post') {
    const x1 = refLayerNorm(refAdd(x, mha(x)), w.ln1Gamma, w.ln1Beta, eps);
    return refLayerNorm(refAdd(x1, ffn(x1)), w.ln2Gamma, w.ln2Beta, eps);
  }
  const x1 = refAdd(x, mha(refLayerNorm(x, w.ln1Gamma, w.ln1Beta, eps)));
  return refAdd(x1, ffn(refLayerNorm(x1, w.ln2Gamma, w.ln2Beta, eps)));
}

// ============================================================================================
// The table: public name → generator of a valid call { args, kinds, check } (and of a call
// with huge sizes). `kinds` names each argument's kind, for the mistakes in perturb(). A
// name 'fn (what)' is a second entry of the public function `fnName` (its own options).
// ============================================================================================

const SMALL_DIMS = [1, 1, 2, 3, 4, 5, 8, 16, 17];

// softmax / logSoftmax over a random valid axis, against the float64 reference.
function softmaxEntry(name, log) {
  return {
    make(g) {
      const shape = [...g.pick([[], [3], [2, 2], [0], [2, 3, 2]]), g.pick([0, ...SMALL_DIMS])];
      const axis = g.int(-shape.length, shape.length - 1);
      const [x, xc] = tensorArg(g, shape);
      const [options, o] = optionsArg(g, { axis: () => [axis, axis] }, 0.7);
      return {
        args: [x, options],
        kinds: ['tensor', 'options'],
        keys: [, ['axis']],
        check: (r) => near(r, refSoftmax(xc, o.axis ?? -1, log), name, 2e-6, 1e-5),
      };
    },
    huge: (g) => ({ args: [zeroSizeHuge(g, g.int(1, 3)), { axis: 0 }] }),
  };
}

function refSoftmax(x, axisIn, log) {
  const axis = axisIn < 0 ? axisIn + x.shape.length : axisIn;
  const outer = sizeOf(x.shape.slice(0, axis)),
    n = x.shape[axis],
    inner = sizeOf(x.shape.slice(axis + 1));
  const out = new Float64Array(x.data.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const at = (a) => (o * n + a) * inner + i;
      let m = -Infinity,
        s = 0;
      for (let a = 0; a < n; a++) m = Math.max(m, x.data[at(a)]);
      for (let a = 0; a < n; a++) s += Math.exp(x.data[at(a)] - m);
      for (let a = 0; a < n; a++) out[at(a)] = log ? x.data[at(a)] - m - Math.log(s) : Math.exp(x.data[at(a)] - m) / s;
    }
  return { data: out, shape: x.shape };
}

function refRmsNorm(x, axis, weight, eps) {
  const rows = sizeOf(x.shape.slice(0, axis)),
    dim = sizeOf(x.shape.slice(axis));
  const out = new Float64Array(x.data.length);
  for (let r = 0; r < rows && dim > 0; r++) {
    let squares = 0;
    for (let c = 0; c < dim; c++) squares += x.data[r * dim + c] ** 2;
    const inv = 1 / Math.sqrt(squares / dim + eps);
    for (let c = 0; c < dim; c++) out[r * dim + c] = x.data[r * dim + c] * inv * (weight ? weight.data[c] : 1);
  }
  return { data: out, shape: x.shape };
}

function makeEntries(attn) {
  const bool = (g) => () => {
    const b = g.chance(0.5);
    return [b, b];
  };
  const align = (g) => () => {
    const a = g.pick(['top-left', 'bottom-right']);
    return [a, a];
  };
  // attention() also takes per-sequence alignment and integer offsets.
  const attentionAlign = (g) => () => {
    const a = g.pick(['top-left', 'bottom-right', 'bottom-right-per-sequence', -2, 0, 3]);
    return [a, a];
  };
  const keyLengthsArg = (g, count, Lk, asNumber) => () => {
    const values = Array.from({ length: count }, () => g.int(0, Lk));
    if (asNumber && g.chance(0.5)) return [values[0], values];
    return [g.chance(0.3) ? Int32Array.from(values) : values, values];
  };

  const entries = {
    attention: {
      make(g) {
        const gqa = g.chance(0.12);
        const dk = g.pick(SMALL_DIMS),
          dv = g.int(0, 5),
          Lq = g.int(0, 6),
          Lk = g.chance(0.3) ? Lq : g.int(0, 6);
        let qLead, kLead, vLead;
        if (gqa) {
          const b = g.pick([[], [1], [2]]),
            hk = g.int(1, 2),
            hq = hk * g.int(1, 3);
          qLead = [...b, hq];
          kLead = [...b, hk];
          vLead = [...b, hk];
        } else {
          qLead = g.pick([[], [], [2], [3], [1, 2], [2, 2], [0], [2, 1]]);
          const variant = () =>
            g.chance(0.6) ? qLead : qLead.slice(g.int(0, qLead.length)).map((d) => (g.chance(0.3) ? 1 : d));
          kLead = variant();
          vLead = g.chance(0.7) ? kLead : variant();
        }
        const batch = gqa ? qLead : broadcastShape(qLead, kLead, vLead);
        const [q, qc] = tensorArg(g, [...qLead, Lq, dk]);
        const self = !gqa && Lq === Lk && dk === dv && g.chance(0.15);
        const [k, kc] = self ? [q, qc] : tensorArg(g, [...kLead, Lk, dk]);
        const [v, vc] = self ? [q, qc] : tensorArg(g, [...vLead, Lk, dv]);
        const spec = {
          mask: () => maskArg(g, [...batch, Lq, Lk]),
          causal: bool(g),
          causalAlign: attentionAlign(g),
          scale: () => {
            const s = g.pick([0, 0.125, 1, -0.5, 2]);
            return [s, s];
          },
          softcap: () => {
            const s = g.pick([0, 0.5, 3, 1e3]);
            return [s, s];
          },
          window: windowArg(g),
          dropout: dropoutArg(g),
          keyLengths: keyLengthsArg(g, batch.length ? batch[0] : 1, Lk, batch.length === 0),
          returnWeights: bool(g),
          trace: () => {
            const t = g.chance(0.3);
            return [t, t];
          },
          enableGqa: () => [false, false],
          out: outArg([...batch, Lq, dv]),
        };
        if (Lq === Lk && !gqa) {
          spec.keepMask = () => {
            const lead = batch.slice(g.int(0, batch.length)).map((d) => (g.chance(0.3) ? 1 : d));
            const shape = [...lead, Lk];
            const values = Array.from({ length: sizeOf(shape) }, () => (g.chance(0.7) ? 1 : 0));
            const canon = { data: values, shape };
            const form = g.int(0, 3);
            if (form === 0) return [{ data: Uint8Array.from(values), shape }, canon];
            if (form === 1) return [{ data: Float32Array.from(values), shape }, canon];
            if (form === 2 && nestable(shape))
              return [
                nest(
                  values.map((b) => b === 1),
                  shape,
                ),
                canon,
              ];
            if (nestable(shape)) return [nest(values, shape), canon];
            return [{ data: Uint8Array.from(values), shape }, canon];
          };
        }
        if (gqa) delete spec.enableGqa;
        let [options, o] = optionsArg(g, spec);
        if (gqa) {
          options = { ...options, enableGqa: true };
          o.enableGqa = true;
        } // required with fewer k/v heads
        return {
          args: [q, k, v, options],
          kinds: ['tensor', 'tensor', 'tensor', 'options'],
          keys: [, , , Object.keys(spec)],
          check(r) {
            const kx = gqa ? repeatHeads(kc, qLead.at(-1)) : kc,
              vx = gqa ? repeatHeads(vc, qLead.at(-1)) : vc;
            let mask = o.mask;
            if (o.keepMask) mask = keepAsMask(o.keepMask, o.mask, batch, Lq);
            const ref = referenceAttention(qc, kx, vx, { ...o, mask });
            if (o.out && r.output.data !== o.out) throw new Error('options.out given but the output is another array');
            near(r.output, ref.output, 'output');
            if (o.returnWeights || o.trace) near(r.weights, ref.weights, 'weights');
            else if (r.weights !== undefined) throw new Error('weights returned without returnWeights');
            if (o.trace)
              for (const stage of ['scores', 'scaledScores', 'maskedScores'])
                near(r.trace[stage], ref[stage], `trace.${stage}`, 1e-4);
            if (o.trace && o.softcap > 0) near(r.trace.cappedScores, ref.cappedScores, 'trace.cappedScores', 1e-4);
            if (o.dropout?.p > 0 && (o.returnWeights || o.trace))
              near(r.droppedWeights, ref.droppedWeights, 'droppedWeights');
            if (o.dropout?.p > 0 && r.dropoutSeed !== o.dropout.seed)
              throw new Error(`dropoutSeed ${r.dropoutSeed}, not the seed given`);
          },
        };
      },
      huge(g) {
        const tall = { data: new Float32Array(65536), shape: [65536, 1] };
        const one = { data: new Float32Array(2), shape: [2, 1] };
        return g.pick([
          () => ({ args: [tall, tall, tall, { returnWeights: true }] }),
          () => ({ args: [tall, tall, tall, { trace: true, causal: true }] }),
          () => ({
            args: [
              one,
              { data: new Float32Array(0), shape: [0, 1] },
              { data: new Float32Array(0), shape: [0, 2 ** 31] },
            ],
          }),
          () => ({ args: [zeroSizeHuge(g, 4), zeroSizeHuge(g, 3), zeroSizeHuge(g, 3), { returnWeights: true }] }),
          () => ({
            args: [
              { data: new Float32Array(0), shape: [2 ** 31, 2 ** 31, 0, 1] },
              { data: new Float32Array(0), shape: [0, 1] },
              { data: new Float32Array(0), shape: [0, 2 ** 31] },
              { returnWeights: true },
            ],
          }),
          () => ({ args: [one, one, one, { mask: { data: new Uint8Array(0), shape: [0, 2 ** 31] } }] }),
          () => ({ args: [one, one, one, { keyLengths: new Array(2 ** 20).fill(1) }] }),
        ])();
      },
    },

    attentionBackward: {
      make(g) {
        const dk = g.pick(SMALL_DIMS),
          dv = g.int(1, 5),
          Lq = g.int(0, 5),
          Lk = g.int(0, 5);
        const lead = g.pick([[], [], [2], [1, 2], [0]]);
        const [q, qc] = tensorArg(g, [...lead, Lq, dk]);
        const [k, kc] = tensorArg(g, [...lead, Lk, dk]);
        const [v, vc] = tensorArg(g, [...lead, Lk, dv]);
        const [dOut, dc] = tensorArg(g, [...lead, Lq, dv]);
        const spec = {
          mask: () => maskArg(g, [...lead, Lq, Lk]),
          causal: bool(g),
          causalAlign: align(g),
          scale: () => {
            const s = g.pick([0, 0.125, 1, -0.5, 2]);
            return [s, s];
          },
          softcap: () => {
            const s = g.pick([0, 0.5, 3]);
            return [s, s];
          },
          window: windowArg(g),
          dropout: dropoutArg(g),
          keyLengths: keyLengthsArg(g, lead.length ? lead[0] : 1, Lk, lead.length === 0),
        };
        const [options, o] = optionsArg(g, spec);
        return {
          args: [q, k, v, dOut, options],
          kinds: ['tensor', 'tensor', 'tensor', 'tensor', 'options'],
          keys: [, , , , Object.keys(spec)],
          check(r) {
            const ref = refAttentionBackward(qc, kc, vc, dc, o);
            near(r.dq, ref.dq, 'dq', 1e-4, 1e-3);
            near(r.dk, ref.dk, 'dk', 1e-4, 1e-3);
            near(r.dv, ref.dv, 'dv', 1e-4, 1e-3);
          },
        };
      },
    },

    matmul: {
      make(g) {
        const lead = g.pick([[], [], [2], [0], [2, 3]]),
          m = g.int(0, 5),
          k = g.pick([0, ...SMALL_DIMS]),
          n = g.int(0, 6);
        const aShape = g.chance(0.15) ? [k] : [...lead, m, k];
        const [a, ac] = tensorArg(g, aShape);
        const [b, bc] = tensorArg(g, [k, n]);
        const shape = [...aShape.slice(0, -1), n];
        const spec = { out: outArg(shape) };
        const [options, o] = optionsArg(g, spec);
        return {
          args: options === undefined && g.chance(0.5) ? [a, b] : [a, b, options],
          kinds: ['tensor', 'tensor', 'options'],
          keys: [, , Object.keys(spec)],
          check(r) {
            sameOut(r, o);
            near(r, k === 0 ? { data: new Float64Array(sizeOf(shape)), shape } : refMatmul(ac, bc), 'matmul');
          },
        };
      },
      huge(g) {
        const tall = { data: new Float32Array(65536), shape: [65536, 1] },
          wide = { data: new Float32Array(65536), shape: [1, 65536] };
        return g.pick([
          () => ({ args: [tall, wide] }),
          () => ({
            args: [
              { data: new Float32Array(0), shape: [2 ** 20, 0] },
              { data: new Float32Array(0), shape: [0, 2 ** 20] },
            ],
          }),
          () => ({ args: [zeroSizeHuge(g, 3), { data: new Float32Array(0), shape: [0, 2 ** 31] }] }),
        ])();
      },
    },

    layerNorm: {
      make(g) {
        const d = g.pick([0, ...SMALL_DIMS]);
        const shape = [...g.pick([[], [3], [2, 2], [0]]), d];
        const [x, xc] = tensorArg(g, shape);
        const [options, o] = optionsArg(g, {
          gamma: () => tensorArg(g, [d]),
          beta: () => tensorArg(g, [d]),
          eps: () => {
            const e = g.pick([1e-5, 1e-3, 0.1, 1, d > 1 ? 0 : 1e-5]);
            return [e, e];
          },
        });
        return {
          args: [x, options],
          kinds: ['tensor', 'options'],
          keys: [, ['gamma', 'beta', 'eps']],
          check: (r) => near(r, refLayerNorm(xc, o.gamma, o.beta, o.eps ?? 1e-5), 'layerNorm', 2e-4, 1e-3),
        };
      },
      huge: (g) => ({
        args: [zeroSizeHuge(g, g.int(1, 3)), { gamma: g.chance(0.5) ? zeroSizeHuge(g, 1) : undefined }],
      }),
    },

    feedForward: {
      make(g) {
        const dModel = g.pick(SMALL_DIMS),
          dFF = g.int(0, 9);
        const [x, xc] = tensorArg(g, [...g.pick([[], [2]]), g.int(0, 4), dModel]);
        const [w1, w1c] = tensorArg(g, [dModel, dFF], randomFloats(g, dModel * dFF, -1, 1));
        const [w2, w2c] = tensorArg(g, [dFF, dModel], randomFloats(g, dFF * dModel, -1, 1));
        const spec = {
          b1: () => tensorArg(g, [dFF]),
          b2: () => tensorArg(g, [dModel]),
          activation: () => {
            const a = g.pick(['relu', 'gelu']);
            return [a, a];
          },
        };
        const [extra, o] = optionsArg(g, spec, 0.5);
        const options = { w1, w2, ...(extra ? { ...extra } : {}) };
        return {
          args: [x, g.chance(0.2) ? Object.freeze(options) : options],
          kinds: ['tensor', 'options'],
          keys: [, ['w1', 'w2', 'b1', 'b2', 'activation']],
          check(r) {
            // With dFF = 0 the output is b2 (or 0) in every row (the helper needs dFF ≥ 1).
            const expected =
              dFF > 0
                ? refFeedForward(xc, { w1: w1c, w2: w2c, ...o })
                : { data: Float64Array.from(xc.data, (_, i) => (o.b2 ? o.b2.data[i % dModel] : 0)), shape: xc.shape };
            near(r, expected, 'feedForward', 1e-4, 1e-4);
          },
        };
      },
      huge(g) {
        const tall = { data: new Float32Array(65536), shape: [65536, 1] };
        return {
          args: [
            tall,
            {
              w1: { data: new Float32Array(65536), shape: [1, 65536] },
              w2: { data: new Float32Array(65536), shape: [65536, 1] },
            },
          ],
        };
      },
    },

    setPool: {
      make(g) {
        const op = g.pick([undefined, 'sum', 'mean', 'max']);
        const n = op === undefined || op === 'sum' ? g.int(0, 5) : g.int(1, 5);
        const shape = [...g.pick([[], [2], [0], [2, 3]]), n, g.int(0, 6)];
        const [x, xc] = tensorArg(g, shape);
        const args = op === undefined && g.chance(0.5) ? [x] : [x, op];
        return {
          args,
          kinds: ['tensor', 'op'],
          ops: ['sum', 'mean', 'max'],
          check(r) {
            const d = shape.at(-1),
              sets = sizeOf(shape.slice(0, -2));
            const out = new Float64Array(sets * d);
            for (let s = 0; s < sets; s++)
              for (let c = 0; c < d; c++) {
                const column = Array.from({ length: n }, (_, i) => xc.data[(s * n + i) * d + c]);
                out[s * d + c] =
                  op === 'max' ? Math.max(...column) : column.reduce((a, b) => a + b, 0) / (op === 'mean' ? n : 1);
              }
            near(r, { data: out, shape: [...shape.slice(0, -2), d] }, 'setPool', 1e-5, 1e-5);
          },
        };
      },
      huge: (g) => ({
        args: [
          { data: new Float32Array(0), shape: [g.pick(HUGE_DIMS), 0, g.pick(HUGE_DIMS)] },
          g.pick(['sum', 'mean', 'max']),
        ],
      }),
    },

    sinusoidalEncoding: {
      make(g) {
        const L = g.int(0, 10),
          d = g.int(1, 9);
        const [options, o] = optionsArg(
          g,
          {
            base: () => {
              const b = g.pick([10000, 100, 2, 1.5]);
              return [b, b];
            },
          },
          0.5,
        );
        return {
          args: [L, d, options],
          kinds: ['count', 'int', 'options'],
          keys: [, , ['base']],
          check(r) {
            const base = o.base ?? 10000,
              expected = new Float64Array(L * d);
            for (let p = 0; p < L; p++)
              for (let c = 0; c < d; c++) {
                const angle = p / base ** ((c - (c % 2)) / d);
                expected[p * d + c] = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
              }
            near(r, { data: expected, shape: [L, d] }, 'sinusoidalEncoding', 1e-6, 1e-6);
          },
        };
      },
      huge: (g) => ({
        args: g.pick([
          [2 ** 31, 8],
          [65536, 65536],
          [2 ** 53, 1],
          [0, 2 ** 53],
          [1, 2 ** 31],
        ]),
      }),
    },

    addPositionalEncoding: {
      make(g) {
        const L = g.int(0, 5),
          d = g.int(0, 5),
          offset = g.int(0, 3);
        const [x, xc] = tensorArg(g, [...g.pick([[], [2], [0]]), L, d]);
        const [table, tc] = tensorArg(g, [offset + L + g.int(0, 2), d]);
        const [options] = optionsArg(g, { offset: () => [offset, offset] }, 1);
        const off = options?.offset ?? 0;
        return {
          args: [x, table, options],
          kinds: ['tensor', 'tensor', 'options'],
          keys: [, , ['offset']],
          check(r) {
            const expected = Float64Array.from(xc.data, (value, i) =>
              Math.fround(value + tc.data[off * d + (i % (L * d))]),
            );
            near(r, { data: expected, shape: xc.shape }, 'addPositionalEncoding', 0, 0);
          },
        };
      },
      huge: (g) => ({
        args: [
          zeroSizeHuge(g, 3),
          { data: new Float32Array(0), shape: [g.pick(HUGE_DIMS), 0] },
          { offset: g.pick([0, 2 ** 53, 2 ** 31]) },
        ],
      }),
    },

    applyRope: {
      make(g) {
        const L = g.int(0, 5),
          dim = 2 * g.int(0, 4);
        const [x, xc] = tensorArg(g, [...g.pick([[], [2], [2, 2]]), L, dim]);
        const [options, o] = optionsArg(g, {
          positions: () => {
            const p = Array.from({ length: L }, () => g.int(0, 50) / g.pick([1, 2]));
            return [g.chance(0.5) ? Float32Array.from(p) : p, p];
          },
          base: () => {
            const b = g.pick([10000, 500, 2]);
            return [b, b];
          },
          interleaved: bool(g),
        });
        return {
          args: [x, options],
          kinds: ['tensor', 'options'],
          keys: [, ['positions', 'base', 'interleaved']],
          check: (r) =>
            near(r, refRope(xc, o.positions, o.base ?? 10000, o.interleaved === true), 'applyRope', 5e-5, 1e-4),
        };
      },
      huge: (g) => ({ args: [{ data: new Float32Array(0), shape: [g.pick(HUGE_DIMS), 0, 2] }, { positions: [] }] }),
    },

    softmax: softmaxEntry('softmax', false),
    logSoftmax: softmaxEntry('logSoftmax', true),

    rmsNorm: {
      make(g) {
        const shape = [...g.pick([[], [3], [2, 2], [0]]), g.pick([0, ...SMALL_DIMS])];
        const axis = g.int(-shape.length, shape.length - 1);
        const positive = axis < 0 ? axis + shape.length : axis;
        const [x, xc] = tensorArg(g, shape);
        let effective = shape.length - 1; // axis is made first (if at all): weight follows it
        const [options, o] = optionsArg(g, {
          axis: () => {
            effective = positive;
            return [axis, axis];
          },
          weight: () => tensorArg(g, shape.slice(effective)),
          eps: () => {
            const e = g.pick([1e-5, 1e-3, 0.1, 1]);
            return [e, e];
          },
        });
        return {
          args: [x, options],
          kinds: ['tensor', 'options'],
          keys: [, ['weight', 'eps', 'axis']],
          check: (r) => near(r, refRmsNorm(xc, effective, o.weight, o.eps ?? 1e-5), 'rmsNorm', 2e-5, 1e-4),
        };
      },
      huge: (g) => ({ args: [zeroSizeHuge(g, g.int(1, 3)), { axis: 0 }] }),
    },

    alibiSlopes: {
      make(g) {
        const n = g.int(1, 40);
        return {
          args: [n],
          kinds: ['int'],
          check(r) {
            if (!Array.isArray(r) || r.length !== n) throw new Error(`expected ${n} slopes, got ${inspect(r)}`);
            refSlopes(n).forEach((s, i) => {
              if (Math.abs(r[i] - s) > 1e-12 * s) throw new Error(`slope ${i}: ${r[i]} vs ${s}`);
            });
          },
        };
      },
      huge: (g) => ({ args: [g.pick([2 ** 28, 2 ** 31, 2 ** 53])] }),
    },

    alibiBias: {
      make(g) {
        const h = g.int(1, 6),
          Lq = g.int(0, 6),
          Lk = g.int(0, 6);
        const args = g.chance(0.3) ? [h, Lq] : [h, Lq, Lk];
        const K = args.length === 2 ? Lq : Lk;
        return {
          args,
          kinds: ['int', 'count', 'count'],
          check(r) {
            const slopes = refSlopes(h),
              expected = new Float64Array(h * Lq * K);
            for (let a = 0; a < h; a++)
              for (let i = 0; i < Lq; i++)
                for (let j = 0; j < K; j++) {
                  expected[(a * Lq + i) * K + j] = -slopes[a] * Math.abs(i + K - Lq - j);
                }
            near(r, { data: expected, shape: [h, Lq, K] }, 'alibiBias', 1e-6, 1e-6);
          },
        };
      },
      huge: (g) => ({
        args: g.pick([
          [64, 65536, 65536],
          [2 ** 31, 0, 5],
          [2 ** 31, 2 ** 31, 0],
          [1, 2 ** 53],
          [2 ** 20, 64],
        ]),
      }),
    },

    laplacianEncoding: {
      make(g) {
        const n = g.int(1, 8),
          k = g.int(0, n - 1);
        const pairs = [];
        for (let a = 0; a < n; a++)
          for (let b = a + 1; b < n; b++) if (g.chance(0.4)) pairs.push(g.chance(0.5) ? [a, b] : [b, a]);
        const graph = g.chance(0.1) && pairs.length === 0 ? { numNodes: n } : { numNodes: n, edges: pairs };
        return {
          args: [graph, k],
          kinds: ['graph', 'count'],
          keys: [['numNodes', 'edges']],
          check(r) {
            // L·v = λ·v for L = I - D^-1/2 A D^-1/2 (isolated nodes: a zero row), unit vectors.
            const A = Array.from({ length: n }, () => new Float64Array(n));
            for (const [a, b] of pairs) A[a][b] = A[b][a] = 1;
            const deg = A.map((row) => row.reduce((s, x) => s + x, 0));
            const L = A.map((row, i) =>
              Float64Array.from(row, (x, j) =>
                deg[i] === 0 || deg[j] === 0 ? 0 : (i === j ? 1 : 0) - x / Math.sqrt(deg[i] * deg[j]),
              ),
            );
            for (let i = 0; i < n; i++) if (deg[i] > 0) L[i][i] = 1;
            if (!(r.eigenvalues instanceof Float32Array) || r.eigenvalues.length !== k)
              throw new Error('eigenvalues: wrong length');
            for (let c = 0; c < k; c++) {
              const lambda = r.eigenvalues[c];
              if (c > 0 && lambda < r.eigenvalues[c - 1] - 1e-5) throw new Error('eigenvalues not ascending');
              const v = Array.from({ length: n }, (_, i) => r.data[i * k + c]);
              const norm = Math.hypot(...v);
              if (Math.abs(norm - 1) > 1e-4) throw new Error(`eigenvector ${c} has norm ${norm}`);
              for (let i = 0; i < n; i++) {
                const lv = L[i].reduce((s, x, j) => s + x * v[j], 0);
                if (Math.abs(lv - lambda * v[i]) > 2e-4)
                  throw new Error(`eigenpair ${c}: (L·v)[${i}] = ${lv} but λ·v = ${lambda * v[i]}`);
              }
            }
          },
        };
      },
      huge: (g) => ({
        args: g.pick([
          [{ numNodes: 100000, edges: [[0, 1]] }, 2],
          [{ numNodes: 2 ** 31, edges: [] }, 1],
          [{ numNodes: 2 ** 31, edges: [] }, 0],
          [{ numNodes: 2 ** 53, edges: [[0, 2 ** 53 - 1]] }, 2],
        ]),
      }),
    },

    tensor: {
      make(g) {
        const n = g.int(0, 12);
        const values = randomFloats(g, n);
        const shape = g.pick([undefined, [n], n % 2 === 0 ? [2, n / 2] : [n, 1], n === 1 ? [] : [1, n]]);
        const data = g.chance(0.5) ? Array.from(values) : honestData(g, values);
        const fn = g.chance(0.5) ? attn.tensor : packageTensor;
        return {
          fn,
          args: shape === undefined && g.chance(0.5) ? [data] : [data, shape],
          kinds: ['data', 'shape'],
          alias: true,
          check: (r) => near(r, { data: values, shape: shape ?? [n] }, 'tensor', 0, 0),
        };
      },
      huge: () => ({ args: [new Float32Array(0), [2 ** 31, 0, 2 ** 31]] }),
    },

    toNested: {
      make(g) {
        const shape = g.pick([[], [0], [3], [2, 3], [2, 0], [2, 1, 3]]);
        const [t, tc] = tensorArg(g, shape);
        return {
          fn: g.chance(0.5) ? attn.toNested : packageToNested,
          args: [t],
          kinds: ['tensor'],
          smallOnly: true,
          check: (r) => assert.deepEqual(r, nest(Array.from(tc.data), shape)),
        };
      },
      // [2 ** 31, 0] needs 2 ** 31 empty arrays; rare, as it may take the process down.
      huge: (g) => ({
        args: [
          {
            data: new Float32Array(0),
            shape: g.chance(0.02)
              ? [2 ** 31, 0]
              : g.pick([
                  [0, 2 ** 31],
                  [0, 2 ** 53, 2 ** 53],
                  [2 ** 12, 0],
                  [3, 0, 2 ** 40],
                ]),
          },
        ],
      }),
    },

    toTfjs: {
      make(g) {
        const shape = g.pick([[], [0], [3], [2, 3], [2, 1, 2]]);
        const [t, tc] = tensorArg(g, shape);
        const tf = { tensor: (data, dims, dtype) => ({ made: 'tf', data, shape: dims, dtype }) };
        return {
          fn: g.chance(0.5) ? attn.toTfjs : packageToTfjs,
          args: [t, tf],
          kinds: ['tensor', 'module'],
          alias: true,
          check: (r) => {
            near(r, tc, 'toTfjs', 0, 0);
            assert.equal(r.dtype, 'float32');
            assert.equal(r.made, 'tf');
          },
        };
      },
    },

    toOrt: {
      make(g) {
        const shape = g.pick([[], [0], [3], [2, 3], [2, 1, 2]]);
        const [t, tc] = tensorArg(g, shape);
        const ort = {
          Tensor: class {
            constructor(type, data, dims) {
              Object.assign(this, { made: 'ort', type, data, shape: dims });
            }
          },
        };
        return {
          fn: g.chance(0.5) ? attn.toOrt : packageToOrt,
          args: [t, ort],
          kinds: ['tensor', 'module'],
          alias: true,
          check: (r) => {
            near(r, tc, 'toOrt', 0, 0);
            assert.equal(r.type, 'float32');
            assert.equal(r.made, 'ort');
          },
        };
      },
    },

    linearBackward: {
      make(g) {
        const inDim = g.pick([0, ...SMALL_DIMS]),
          out = g.pick([0, ...SMALL_DIMS]);
        const lead = g.pick([[], [3], [2, 2], [0]]);
        const [x, xc] = tensorArg(g, [...lead, inDim]);
        const [w, wc] = tensorArg(g, [inDim, out]);
        const [dy, dyc] = tensorArg(g, [...lead, out]);
        return {
          args: [x, w, dy],
          kinds: ['tensor', 'tensor', 'tensor'],
          check(r) {
            const ref = refLinearBackward(xc, wc, dyc);
            near(r.dx, ref.dx, 'dx', 1e-4, 1e-4);
            near(r.dw, ref.dw, 'dw', 1e-4, 1e-4);
            near(r.db, ref.db, 'db', 1e-4, 1e-4);
          },
        };
      },
    },

    layerNormBackward: {
      make(g) {
        const d = g.pick([0, ...SMALL_DIMS]);
        const shape = [...g.pick([[], [3], [2, 2], [0]]), d];
        const [x, xc] = tensorArg(g, shape);
        const [dy, dyc] = tensorArg(g, shape);
        const [options, o] = optionsArg(g, {
          gamma: () => tensorArg(g, [d]),
          beta: () => tensorArg(g, [d]),
          eps: () => {
            const e = g.pick([1e-5, 1e-3, 0.1, 1]);
            return [e, e];
          },
        });
        return {
          args: [x, dy, options],
          kinds: ['tensor', 'tensor', 'options'],
          keys: [, , ['gamma', 'beta', 'eps']],
          check(r) {
            const ref = refLayerNormBackward(xc, dyc, o.gamma, o.eps ?? 1e-5);
            near(r.dx, ref.dx, 'dx', 2e-3, 2e-3);
            near(r.dgamma, ref.dgamma, 'dgamma', 2e-4, 1e-3);
            near(r.dbeta, ref.dbeta, 'dbeta', 1e-4, 1e-4);
          },
        };
      },
    },

    feedForwardBackward: {
      make(g) {
        const dModel = g.pick(SMALL_DIMS),
          dFF = g.int(0, 9);
        const shape = [...g.pick([[], [2]]), g.int(0, 4), dModel];
        const [x, xc] = tensorArg(g, shape);
        const [dy, dyc] = tensorArg(g, shape);
        const [w1, w1c] = tensorArg(g, [dModel, dFF], randomFloats(g, dModel * dFF, -1, 1));
        const [w2, w2c] = tensorArg(g, [dFF, dModel], randomFloats(g, dFF * dModel, -1, 1));
        const spec = {
          b1: () => tensorArg(g, [dFF]),
          b2: () => tensorArg(g, [dModel]),
          activation: () => {
            const a = g.pick(['relu', 'gelu']);
            return [a, a];
          },
        };
        const [extra, o] = optionsArg(g, spec, 0.5);
        const options = { w1, w2, ...(extra ? { ...extra } : {}) };
        return {
          args: [x, dy, options],
          kinds: ['tensor', 'tensor', 'options'],
          keys: [, , ['w1', 'w2', 'b1', 'b2', 'activation']],
          check(r) {
            const ref = refFeedForwardBackward(xc, dyc, { w1: w1c, w2: w2c, ...o });
            for (const name of ['dx', 'dw1', 'db1', 'dw2', 'db2']) near(r[name], ref[name], name, 2e-4, 1e-3);
          },
        };
      },
    },

    softmaxCrossEntropy: {
      make(g) {
        const C = g.pick([1, 2, 3, 5, 9, 17]),
          rows = g.int(0, 6);
        const [logits, lc] = tensorArg(g, [rows, C], randomFloats(g, rows * C, -4, 4));
        const targets = Array.from({ length: rows }, () => (g.chance(0.2) ? -1 : g.int(0, C - 1)));
        return {
          args: [logits, g.chance(0.5) ? targets : { data: Int32Array.from(targets), shape: [rows] }],
          kinds: ['tensor', 'junk'],
          check(r) {
            const ref = refSoftmaxCrossEntropy(lc, targets);
            if (
              Math.abs(r.loss - ref.loss) > 1e-5 * (1 + ref.loss) ||
              r.count !== ref.count ||
              r.accuracy !== ref.accuracy
            ) {
              throw new Error(
                `softmaxCrossEntropy: got ${inspect({ loss: r.loss, count: r.count, accuracy: r.accuracy })}, expected ${inspect({ loss: ref.loss, count: ref.count, accuracy: ref.accuracy })}`,
              );
            }
            near(r.dLogits, ref.dLogits, 'dLogits', 1e-6, 1e-4);
          },
        };
      },
    },

    memory: {
      make: (g) => ({ args: g.chance(0.5) ? [] : [junk(g)], kinds: ['junk'], check: () => {} }),
    },
  };
  // How a result must look, also for the calls with huge sizes.
  entries.attention.result = (r) =>
    tensorProblem(r?.output, 'output') ?? (r.weights ? tensorProblem(r.weights, 'weights') : null);
  entries.attentionBackward.result = (r) =>
    tensorProblem(r?.dq, 'dq') ?? tensorProblem(r.dk, 'dk') ?? tensorProblem(r.dv, 'dv');
  entries.linearBackward.result = (r) =>
    tensorProblem(r?.dx, 'dx') ?? tensorProblem(r.dw, 'dw') ?? tensorProblem(r.db, 'db');
  entries.layerNormBackward.result = (r) =>
    tensorProblem(r?.dx, 'dx') ?? tensorProblem(r.dgamma, 'dgamma') ?? tensorProblem(r.dbeta, 'dbeta');
  entries.feedForwardBackward.result = (r) =>
    ['dx', 'dw1', 'db1', 'dw2', 'db2'].reduce((p, k) => p ?? tensorProblem(r?.[k], k), null);
  entries.softmaxCrossEntropy.result = (r) =>
    typeof r?.loss === 'number' && Number.isInteger(r.count)
      ? tensorProblem(r.dLogits, 'dLogits')
      : `not a loss: ${inspect(r)}`;
  entries.alibiSlopes.result = (r) =>
    Array.isArray(r) && r.every((s) => typeof s === 'number') ? null : `not an array of numbers: ${inspect(r)}`;
  entries.laplacianEncoding.result = (r) =>
    tensorProblem(r) ?? (r.eigenvalues instanceof Float32Array ? null : 'no eigenvalues');
  entries.toNested.result = () => null;
  entries.memory.result = memoryProblem;
  return Object.assign(entries, laterEntries(attn));
}

function memoryProblem(r) {
  const fields = ['heapBytes', 'heapMaxBytes', 'inUseBytes', 'peakBytes'];
  return fields.every((f) => Number.isSafeInteger(r?.[f]) && r[f] >= 0) ? null : `memory() gave ${inspect(r)}`;
}

// ============================================================================================
// Options that came later, each a table entry of its own ('fn (what)' calls attn[fnName]),
// so that their calls count apart: attention's 'bshd' layout and pastKey/pastValue, the
// KVCache class, layerNorm's axis and returnStats, applyRope's cos/sin tables (ONNX
// RotaryEmbedding). Each against a float64 reference written here or in helpers/reference.js.
// ============================================================================================

// Softcaps across float32's positive range, its ends included. (This found that below 2^-128
// the kernels' 1/softcap was +Infinity, so a score of 0 became NaN: they divide now; and that
// caps that round to 0 or to Infinity in float32 were silently ignored or rejected by the
// core: they are a RangeError naming options.softcap now, generated by OUT_OF_RANGE_SOFTCAPS.)
const SOFTCAPS = [0, 0.5, 3, 30, 1e3, 1e-30, 1e30, 2 ** -149, 1e-40, 3e-39, 3.4028234663852886e38];

// [...outer, H, L, d] (the 'bhsd' layout) → [...outer, L, H, d] ('bshd'), a copy.
function toBshd(t) {
  const [H, L, d] = t.shape.slice(-3);
  const outer = sizeOf(t.shape.slice(0, -3));
  const data = new t.data.constructor(t.data.length);
  for (let o = 0; o < outer; o++)
    for (let h = 0; h < H; h++)
      for (let l = 0; l < L; l++)
        for (let c = 0; c < d; c++) {
          data[((o * L + l) * H + h) * d + c] = t.data[((o * H + h) * L + l) * d + c];
        }
  return { data, shape: [...t.shape.slice(0, -3), L, H, d] };
}

// [past, new] along the positions of every head: [..., P, d] and [..., L, d] → [..., P + L, d].
function concatRows(past, now) {
  const [P, d] = past.shape.slice(-2),
    L = now.shape.at(-2);
  const heads = sizeOf(past.shape.slice(0, -2));
  const data = new Float32Array(heads * (P + L) * d);
  for (let h = 0; h < heads; h++) {
    data.set(past.data.subarray(h * P * d, (h + 1) * P * d), h * (P + L) * d);
    data.set(now.data.subarray(h * L * d, (h + 1) * L * d), (h * (P + L) + P) * d);
  }
  return { data, shape: [...past.shape.slice(0, -2), P + L, d] };
}

// A tensor equal, bit for bit, to `want` (a copy of the cache must be exact).
function sameTensor(t, want, what) {
  const problem = tensorProblem(t, what);
  if (problem) throw new Error(problem);
  if (String(t.shape) !== String(want.shape))
    throw new Error(`${what} has shape ${inspect(t.shape)}, expected ${inspect(want.shape)}`);
  if (!sameBytes(t.data, want.data)) {
    const i = t.data.findIndex((x, j) => !Object.is(x, want.data[j]));
    throw new Error(`${what} differs from [past, new] at flat index ${i}: ${t.data[i]} vs ${want.data[i]}`);
  }
}

const attentionResultProblem = (r) =>
  tensorProblem(r?.output, 'output') ?? (r.weights ? tensorProblem(r.weights, 'weights') : null);

// attention() with layout 'bshd' and/or pastKey/pastValue, and the other options. Tensors are
// made in the 'bhsd' layout ([..., heads, L, d], the reference's) and passed transposed to
// [..., L, heads, d] with 'bshd'. The cache is [..., kvHeads, past, d] in either layout;
// presentKey/presentValue must be exactly [past, new] along the positions, and the output the
// reference's over them. With a cache, causal 'top-left' puts query i at key past + i.
function attentionLayoutEntry() {
  return {
    fnName: 'attention',
    make(g) {
      const gqa = g.chance(0.25);
      const dk = g.pick(SMALL_DIMS),
        dv = g.int(0, 5),
        Lq = g.int(0, 5),
        Lk = g.int(0, 4);
      // Leading dims [...outer, heads]: k and v share theirs, which broadcast against q's
      // (fewer dims, dims of 1, one head) or, with GQA, have hq / hk times fewer heads.
      const outer = g.pick([[], [], [1], [2], [2, 1], [0]]);
      const kOuter = g.chance(0.6) ? outer : outer.slice(g.int(0, outer.length)).map((d) => (g.chance(0.3) ? 1 : d));
      const hk = g.int(1, 2),
        hq = gqa ? hk * g.int(1, 3) : g.int(1, 3);
      const qLead = [...outer, hq],
        kLead = [...kOuter, gqa ? hk : g.chance(0.7) ? hq : 1];
      const batch = broadcastShape(qLead, gqa ? [...kOuter, hq] : kLead);
      const layout = g.pick(['bshd', 'bshd', 'bhsd', undefined]);
      const P = g.chance(0.65) ? g.int(0, 4) : -1; // past positions, or no cache
      const seqK = Math.max(P, 0) + Lk;
      const qc = { data: randomFloats(g, sizeOf(qLead) * Lq * dk), shape: [...qLead, Lq, dk] };
      const kc = { data: randomFloats(g, sizeOf(kLead) * Lk * dk), shape: [...kLead, Lk, dk] };
      const vc = { data: randomFloats(g, sizeOf(kLead) * Lk * dv), shape: [...kLead, Lk, dv] };
      const pass = (t) =>
        layout === 'bshd' ? tensorArg(g, toBshd(t).shape, toBshd(t).data)[0] : tensorArg(g, t.shape, t.data)[0];
      const [q, k, v] = [pass(qc), pass(kc), pass(vc)];
      const outShape = layout === 'bshd' ? [...batch.slice(0, -1), Lq, batch.at(-1), dv] : [...batch, Lq, dv];
      const spec = {
        layout: [layout === undefined ? 0 : 1, () => [layout, layout]],
        pastKey: [P >= 0 ? 1 : 0, () => tensorArg(g, [...kLead, P, dk])],
        pastValue: [P >= 0 ? 1 : 0, () => tensorArg(g, [...kLead, P, dv])],
        enableGqa: [gqa ? 1 : 0.1, () => [gqa, gqa]],
        mask: () => maskArg(g, [...batch, Lq, seqK]),
        causal: [
          0.5,
          () => {
            const b = g.chance(0.7);
            return [b, b];
          },
        ],
        causalAlign: () => {
          const a = g.pick(['top-left', 'bottom-right', 'bottom-right-per-sequence', -2, 0, 3]);
          return [a, a];
        },
        scale: () => {
          const s = g.pick([0, 0.125, 1, -0.5, 2]);
          return [s, s];
        },
        softcap: () => {
          const s = g.pick(SOFTCAPS);
          return [s, s];
        },
        window: windowArg(g),
        keyLengths: () => {
          const l = Array.from({ length: batch[0] }, () => g.int(0, seqK));
          return [g.chance(0.3) ? Int32Array.from(l) : l, l];
        },
        returnWeights: () => {
          const b = g.chance(0.5);
          return [b, b];
        },
        trace: () => {
          const t = g.chance(0.3);
          return [t, t];
        },
        out: outArg(outShape),
      };
      const [options, o] = optionsArg(g, spec);
      return {
        args: [q, k, v, options],
        kinds: ['tensor', 'tensor', 'tensor', 'options'],
        keys: [, , , Object.keys(spec)],
        check(r) {
          const past = o.pastKey !== undefined;
          const kx = past ? concatRows(o.pastKey, kc) : kc,
            vx = past ? concatRows(o.pastValue, vc) : vc;
          // With a cache, 'top-left' (the default) counts from the first new key: offset P.
          const causalAlign = past && (o.causalAlign ?? 'top-left') === 'top-left' ? P : o.causalAlign;
          const ref = referenceAttention(qc, gqa ? repeatHeads(kx, hq) : kx, gqa ? repeatHeads(vx, hq) : vx, {
            ...o,
            causalAlign,
          });
          if (o.out && r.output.data !== o.out) throw new Error('options.out given but the output is another array');
          near(r.output, o.layout === 'bshd' ? toBshd(ref.output) : ref.output, 'output');
          if (o.returnWeights || o.trace) near(r.weights, ref.weights, 'weights');
          else if (r.weights !== undefined) throw new Error('weights returned without returnWeights');
          if (o.trace)
            for (const stage of ['scores', 'scaledScores', 'maskedScores'])
              near(r.trace[stage], ref[stage], `trace.${stage}`, 1e-4);
          if (o.trace && o.softcap > 0) near(r.trace.cappedScores, ref.cappedScores, 'trace.cappedScores', 1e-4);
          if (!past) {
            if (r.presentKey !== undefined || r.presentValue !== undefined)
              throw new Error('presentKey/presentValue returned without pastKey');
            return;
          }
          sameTensor(r.presentKey, kx, 'presentKey');
          sameTensor(r.presentValue, vx, 'presentValue');
          const inputData = new Set(
            g.inputs.map(([value]) => (value && !Array.isArray(value) ? value.data : undefined)),
          );
          if (
            r.presentKey.data === r.presentValue.data ||
            inputData.has(r.presentKey.data) ||
            inputData.has(r.presentValue.data)
          ) {
            throw new Error('presentKey or presentValue shares its data with an input or with the other');
          }
        },
      };
    },
    result: (r) =>
      attentionResultProblem(r) ??
      (r.presentKey
        ? (tensorProblem(r.presentKey, 'presentKey') ?? tensorProblem(r.presentValue, 'presentValue'))
        : null),
  };
}

// What a KVCache must hold: { c: its config, keys, values ([batch, kvHeads, capacity, d],
// positions past a sequence's length as last written), lengths }, kept here by the same rule
// as the cache (attend writes every new position after each sequence's length and counts
// newLengths[n] of them).
function kvShadow(c) {
  const slots = c.batch * c.kvHeads * c.capacity;
  return {
    c,
    keys: new Float32Array(slots * c.headDim),
    values: new Float32Array(slots * c.valueDim),
    lengths: new Array(c.batch).fill(0),
  };
}

const cloneShadow = (sh) => ({
  c: sh.c,
  keys: sh.keys.slice(),
  values: sh.values.slice(),
  lengths: sh.lengths.slice(),
});

// mask broadcast to `shape` as a full tensor (the reference takes one sequence's block).
function fullMask(mask, shape) {
  const data = new (mask.boolean ? Uint8Array : Float32Array)(sizeOf(shape));
  let f = 0;
  for (const index of indices(shape)) data[f++] = at(mask, index);
  return { data, shape, boolean: mask.boolean };
}

// One attend() of Lnew new positions on the shadow: its arguments and, with `commit`, the
// reference result over what the cache then holds (the shadow is updated). Sequence n sees
// its first lengths[n] + newLengths[n] positions; with causal, query i sits at position
// lengths[n] + i (the old length), so the reference takes that as an integer offset.
function kvStep(g, sh, heads, Lnew, commit) {
  const { batch: B, kvHeads: Hk, capacity: C, headDim: hd, valueDim: dv } = sh.c;
  const Lq = g.int(0, 3);
  const layout = g.pick([undefined, 'bhsd', 'bshd', 'bshd']);
  const qc = { data: randomFloats(g, B * heads * Lq * hd), shape: [B, heads, Lq, hd] };
  const kc = { data: randomFloats(g, B * Hk * Lnew * hd), shape: [B, Hk, Lnew, hd] };
  const vc = { data: randomFloats(g, B * Hk * Lnew * dv), shape: [B, Hk, Lnew, dv] };
  const pass = (t) =>
    layout === 'bshd' ? tensorArg(g, toBshd(t).shape, toBshd(t).data)[0] : tensorArg(g, t.shape, t.data)[0];
  const [q, k, v] = [pass(qc), pass(kc), pass(vc)];
  const partial = g.chance(0.3) ? Array.from({ length: B }, () => g.int(0, Lnew)) : null;
  const added = partial ?? new Array(B).fill(Lnew);
  const T = Math.max(0, ...sh.lengths.map((l, n) => l + added[n]));
  const spec = {
    layout: [layout === undefined ? 0 : 1, () => [layout, layout]],
    newLengths: [partial ? 1 : 0, () => [g.chance(0.3) ? Int32Array.from(partial) : partial.slice(), partial]],
    causal: [
      0.6,
      () => {
        const b = g.chance(0.8);
        return [b, b];
      },
    ],
    scale: () => {
      const s = g.pick([0, 0.125, 1, -0.5, 2]);
      return [s, s];
    },
    softcap: () => {
      const s = g.pick(SOFTCAPS);
      return [s, s];
    },
    window: windowArg(g),
    mask: () => maskArg(g, [B, heads, Lq, T]),
    returnWeights: () => {
      const b = g.chance(0.6);
      return [b, b];
    },
  };
  const [options, o] = optionsArg(g, spec);
  const step = { args: [q, k, v, options], keys: Object.keys(spec), Lnew, before: sh.lengths.slice() };
  if (!commit) return step;
  for (let n = 0; n < B; n++)
    for (let h = 0; h < Hk; h++)
      for (let l = 0; l < Lnew; l++) {
        const slot = (n * Hk + h) * C + sh.lengths[n] + l,
          from = (n * Hk + h) * Lnew + l;
        sh.keys.set(kc.data.subarray(from * hd, (from + 1) * hd), slot * hd);
        sh.values.set(vc.data.subarray(from * dv, (from + 1) * dv), slot * dv);
      }
  sh.lengths = sh.lengths.map((l, n) => l + added[n]);
  const held = cloneShadow(sh);
  let expected = null; // computed when first needed (a perturbed call needs none)
  const reference = () => (expected ??= kvReference(held, step.before, added, qc, o, heads, T));
  return { ...step, o, reference, held };
}

// The reference result of an attend on what the cache then holds (`held`), one sequence at a
// time (each has its own causal offset and key length): { output, weights }.
function kvReference(held, before, added, qc, o, heads, T) {
  const { batch: B, kvHeads: Hk, capacity: C, headDim: hd, valueDim: dv } = held.c;
  const Lq = qc.shape[2],
    block = heads * Lq;
  const output = new Float64Array(B * block * dv),
    weights = new Float64Array(B * block * T);
  const mask = o.mask ? fullMask(o.mask, [B, heads, Lq, T]) : null;
  for (let n = 0; n < B; n++) {
    const rows = (store, d) => {
      const data = new Float32Array(Hk * T * d);
      for (let h = 0; h < Hk; h++)
        data.set(store.subarray((n * Hk + h) * C * d, ((n * Hk + h) * C + T) * d), h * T * d);
      return repeatHeads({ data, shape: [1, Hk, T, d] }, heads);
    };
    const r = referenceAttention(
      { data: qc.data.subarray(n * block * hd, (n + 1) * block * hd), shape: [1, heads, Lq, hd] },
      rows(held.keys, hd),
      rows(held.values, dv),
      {
        scale: o.scale,
        softcap: o.softcap,
        causal: o.causal,
        causalAlign: before[n],
        keyLengths: [before[n] + added[n]],
        window: o.window,
        mask: mask
          ? {
              data: mask.data.subarray(n * block * T, (n + 1) * block * T),
              shape: [1, heads, Lq, T],
              boolean: mask.boolean,
            }
          : undefined,
      },
    );
    output.set(r.output.data, n * block * dv);
    weights.set(r.weights.data, n * block * T);
  }
  const out = { data: output, shape: [B, heads, Lq, dv] };
  return { output: o.layout === 'bshd' ? toBshd(out) : out, weights: { data: weights, shape: [B, heads, Lq, T] } };
}

// How an attend result differs from its step's reference (or null).
function kvResultProblem(r, step) {
  try {
    const ref = step.reference();
    near(r.output, ref.output, 'output');
    if (step.o.returnWeights) near(r.weights, ref.weights, 'weights');
    else if (r.weights !== undefined) throw new Error('weights returned without returnWeights');
  } catch (e) {
    return e.message;
  }
  return null;
}

// How the cache differs from `held` (its lengths, the positions each sequence holds), or null.
function kvHeldProblem(cache, held) {
  const { batch: B, kvHeads: Hk, capacity: C, headDim: hd, valueDim: dv } = held.c;
  if (String(cache.lengths) !== String(held.lengths))
    return `cache.lengths is ${inspect(cache.lengths)}, expected ${inspect(held.lengths)}`;
  const T = Math.max(0, ...held.lengths);
  for (const [name, store, d] of [
    ['keys', held.keys, hd],
    ['values', held.values, dv],
  ]) {
    const t = cache[name]();
    const problem = tensorProblem(t, `cache.${name}()`);
    if (problem) return problem;
    if (String(t.shape) !== String([B, Hk, T, d]))
      return `cache.${name}() has shape ${inspect(t.shape)}, expected ${inspect([B, Hk, T, d])}`;
    for (let n = 0; n < B; n++)
      for (let h = 0; h < Hk; h++)
        for (let l = 0; l < held.lengths[n]; l++)
          for (let c = 0; c < d; c++) {
            const got = t.data[((n * Hk + h) * T + l) * d + c],
              want = store[((n * Hk + h) * C + l) * d + c];
            if (!Object.is(got, want))
              return `cache.${name}()[${n}][${h}][${l}][${c}] is ${got}, expected ${want} (what was appended there)`;
          }
  }
  return null;
}

const KV_CONFIG_KEYS = ['batch', 'kvHeads', 'capacity', 'headDim', 'valueDim'];

// attn.KVCache: one fuzz call is a whole life of a cache. new attn.KVCache(config); up to two
// valid attend() calls (made here and never perturbed), each against the float64 reference
// over what the cache must then hold, with cache.lengths and the held positions of keys() and
// values() exact; then the fuzzed cache.attend(q, k, v, options): valid, past the capacity
// (must be a RangeError naming KVCache.attend), or perturbed. After any throw the cache must
// hold exactly what it held (nothing appended) and still work: one more valid attend,
// against the reference. Then dispose(), after which attend throws 'KVCache.attend: this
// object was disposed'; the loop checks that the heap holds what it held before the call.
function kvCacheEntry(attn) {
  return {
    fnName: 'KVCache',
    make(g) {
      const batch = g.int(1, 3),
        kvHeads = g.int(1, 2),
        capacity = g.int(1, 10),
        headDim = g.pick([1, 2, 3, 4, 5, 8]);
      const valueDim = g.chance(0.5) ? undefined : g.int(1, 5);
      const heads = kvHeads * g.int(1, 3);
      const config = { batch, kvHeads, capacity, headDim, ...(valueDim === undefined ? {} : { valueDim }) };
      const sh = kvShadow({ batch, kvHeads, capacity, headDim, valueDim: valueDim ?? headDim });
      const room = () => capacity - Math.max(...sh.lengths);
      // The valid calls before and (after a throw) after the fuzzed one: their tensors are not
      // the fuzzed call's, so they are not perturbed; they must come back unchanged all the same.
      const mark = g.inputs.length;
      const steps = Array.from({ length: g.int(0, 2) }, () =>
        kvStep(g, sh, heads, g.int(0, Math.min(room(), 4)), true),
      );
      const again = kvStep(g, cloneShadow(sh), heads, g.int(0, Math.min(room(), 2)), true);
      const ownInputs = g.inputs.splice(mark);
      const held = cloneShadow(sh);
      const overflow = g.chance(0.25);
      const last = kvStep(g, sh, heads, overflow ? room() + g.int(1, 2) : g.int(0, Math.min(room(), 4)), !overflow);
      const state = { problem: null };
      const stepProblem = (cache, step, r, what) => {
        const p =
          kvResultProblem(r, step) ??
          kvHeldProblem(cache, step.held) ??
          inputsProblem({ inputs: ownInputs, labels: g.labels });
        return p && `${what}: ${p}`;
      };
      const call = {
        args: [config, ...last.args],
        kinds: ['config', 'tensor', 'tensor', 'tensor', 'options'],
        keys: [KV_CONFIG_KEYS, , , , last.keys],
        names: ['KVCache', 'KVCache.attend'],
        check: overflow
          ? null
          : (r) => {
              const p = kvResultProblem(r, last);
              if (p) throw new Error(p);
            },
        result: (r) =>
          state.problem ??
          (r && typeof r === 'object' ? attentionResultProblem(r) : `not an attend result: ${inspect(r)}`),
        after: () => state.problem,
        describe: () => {
          const [c, ...rest] = call.args.map((a) => show(a, g.labels));
          return (
            `cache = new attn.KVCache(${c}); ${steps.length} valid cache.attend() call(s) of ${inspect(steps.map((s) => s.Lnew))} new positions ` +
            `(lengths then ${inspect(held.lengths)}, capacity ${capacity}); cache.attend(${rest.join(', ')})` +
            `${overflow ? ` (${last.Lnew} new positions: past the capacity)` : ''}; cache.dispose()`
          );
        },
      };
      const original = call.args.slice();
      call.fn = (...args) => {
        const pristine = args.length === original.length && args.every((a, i) => a === original[i]);
        const cache = new attn.KVCache(args[0]);
        if (KV_CONFIG_KEYS.some((key) => cache.config[key] !== sh.c[key])) {
          call.check = null; // a mistaken config that made another cache: nothing to compare with
          try {
            return cache.attend(...args.slice(1));
          } finally {
            cache.dispose();
          }
        }
        let result,
          error,
          threw = false;
        try {
          for (const [i, step] of steps.entries()) {
            state.problem = stepProblem(cache, step, cache.attend(...step.args), `valid attend #${i + 1}`);
            if (state.problem) return undefined;
          }
          try {
            result = cache.attend(...args.slice(1));
          } catch (e) {
            error = e;
            threw = true;
          }
          if (threw) {
            if (overflow && pristine && !(error instanceof RangeError && error.message.startsWith('KVCache.attend:'))) {
              state.problem = `an attend past the capacity threw ${describeError(error)}, not a RangeError naming KVCache.attend`;
            }
            const changed = kvHeldProblem(cache, held);
            if (changed) state.problem ??= `after the fuzzed attend threw, ${changed} (nothing may be appended)`;
            try {
              state.problem ??= stepProblem(
                cache,
                again,
                cache.attend(...again.args),
                'the valid attend after the throw',
              );
            } catch (e) {
              state.problem ??= `the valid attend after the throw threw ${describeError(e)}`;
            }
          } else if (overflow && pristine) {
            state.problem = `an attend of ${last.Lnew} new positions to a cache holding ${inspect(held.lengths)} of ${capacity} returned`;
          } else if (call.check) {
            state.problem = kvHeldProblem(cache, last.held);
          }
        } finally {
          cache.dispose();
        }
        try {
          cache.attend();
          state.problem ??= 'attend() after dispose() returned';
        } catch (e) {
          if (!(e?.constructor === Error && e.message.startsWith('KVCache.attend: this object was disposed')))
            state.problem ??= `attend() after dispose() threw ${describeError(e)}`;
        }
        if (threw) throw error;
        return result;
      };
      return call;
    },
    huge: (g) => ({
      fn: (config) => new attn.KVCache(config).dispose(),
      args: [
        g.pick([
          { batch: 2 ** 15, kvHeads: 2 ** 15, capacity: 1, headDim: 1 },
          { batch: 1, kvHeads: 1, capacity: 2 ** 28, headDim: 2 },
          { batch: 1, kvHeads: 1, capacity: 2 ** 53, headDim: 1 },
          { batch: 2, kvHeads: 2 ** 31, capacity: 2, headDim: 2 ** 20 },
        ]),
      ],
      result: () => null,
      describe: (args) => `new attn.KVCache(${args}).dispose()`,
    }),
  };
}

// Layer norm over every axis from `axis` on (ONNX LayerNormalization), in float64, with its
// statistics: mean and 1/sqrt(biased variance + eps) of each group, shaped
// [...x.shape.slice(0, axis), 1, ...]; NaN for groups of no values (as NumPy's mean).
function refLayerNormStats(x, axis, gamma, beta, eps) {
  const rows = sizeOf(x.shape.slice(0, axis)),
    dim = sizeOf(x.shape.slice(axis));
  const output = new Float64Array(x.data.length),
    mean = new Float64Array(rows),
    inv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const group = Array.from(x.data.subarray(r * dim, (r + 1) * dim));
    const m = group.reduce((a, b) => a + b, 0) / dim;
    const variance = group.reduce((a, b) => a + (b - m) ** 2, 0) / dim;
    mean[r] = m;
    inv[r] = 1 / Math.sqrt(variance + eps);
    group.forEach((value, c) => {
      output[r * dim + c] = (value - m) * inv[r] * (gamma ? gamma.data[c] : 1) + (beta ? beta.data[c] : 0);
    });
  }
  const statsShape = [...x.shape.slice(0, axis), ...x.shape.slice(axis).map(() => 1)];
  return {
    output: { data: output, shape: x.shape },
    mean: { data: mean, shape: statsShape },
    invStdDev: { data: inv, shape: statsShape },
  };
}

// layerNorm with options.axis (any axis, negative too: every axis from it to the last is one
// group; gamma and beta shaped x.shape.slice(axis)) and returnStats ({ output, mean,
// invStdDev }), against refLayerNormStats.
function layerNormStatsEntry() {
  return {
    fnName: 'layerNorm',
    make(g) {
      const shape = Array.from({ length: g.int(1, 4) }, () => g.pick([0, 1, 2, 2, 3, 3, 4, 5]));
      const rank = shape.length;
      const axis = g.int(-rank, rank - 1),
        withAxis = g.chance(0.85);
      const first = withAxis ? (axis + rank) % rank : rank - 1;
      const inner = shape.slice(first),
        dim = sizeOf(inner);
      const stats = g.chance(0.75);
      const [x, xc] = tensorArg(g, shape);
      const [options, o] = optionsArg(g, {
        axis: [withAxis ? 1 : 0, () => [axis, axis]],
        returnStats: [0.9, () => [stats, stats]],
        gamma: () => tensorArg(g, inner),
        beta: () => tensorArg(g, inner),
        eps: () => {
          const e = g.pick([1e-5, 1e-3, 0.1, 1, dim > 1 ? 0 : 1e-5]);
          return [e, e];
        },
      });
      return {
        args: [x, options],
        kinds: ['tensor', 'options'],
        keys: [, ['gamma', 'beta', 'eps', 'axis', 'returnStats']],
        check(r) {
          const ref = refLayerNormStats(xc, first, o.gamma, o.beta, o.eps ?? 1e-5);
          if (!o.returnStats) return near(r, ref.output, 'layerNorm', 2e-4, 1e-3);
          near(r.output, ref.output, 'output', 2e-4, 1e-3);
          near(r.mean, ref.mean, 'mean', 1e-6, 1e-5);
          near(r.invStdDev, ref.invStdDev, 'invStdDev', 1e-6, 1e-5);
        },
      };
    },
    // A result is a tensor, or { output, mean, invStdDev } with returnStats.
    result: (r) =>
      r !== null && typeof r === 'object' && 'invStdDev' in r
        ? (tensorProblem(r.output, 'output') ??
          tensorProblem(r.mean, 'mean') ??
          tensorProblem(r.invStdDev, 'invStdDev'))
        : tensorProblem(r),
  };
}

// ONNX RotaryEmbedding (opset 23), transcribed from its definition: x is seen as
// [batch, L, heads, headDim] (a 4-D [batch, heads, L, headDim] transposed, a 3-D
// [batch, L, heads·headDim] reshaped); each token (b, l) takes row positions[b][l] of the
// tables (or, without positions, row (b, l) of tables already gathered [batch, L, R/2]); the
// first R = rotaryDim (0: headDim) features split into x1 and x2 (halves, or even and odd
// features with interleaved); real = cos·x1 − sin·x2 and imag = sin·x1 + cos·x2 go back where
// x1 and x2 were; the features past R are x's; the result has x's layout.
function refRopeTables(x, { cos, sin, positions, interleaved, rotaryDim, numHeads }) {
  const fourD = x.shape.length === 4;
  const [B, H, L, D] = fourD ? x.shape : [x.shape[0], numHeads, x.shape[1], x.shape[2] / numHeads];
  const where = (b, l, h, c) => (fourD ? ((b * H + h) * L + l) * D + c : ((b * L + l) * H + h) * D + c);
  const R = rotaryDim || D,
    half = R / 2;
  const out = Float64Array.from(x.data);
  for (let b = 0; b < B; b++)
    for (let l = 0; l < L; l++) {
      const row = positions ? positions[b * L + l] : b * L + l;
      const c = cos.data.subarray(row * half, (row + 1) * half),
        s = sin.data.subarray(row * half, (row + 1) * half);
      for (let h = 0; h < H; h++) {
        const pair = (i) =>
          interleaved
            ? [where(b, l, h, 2 * i), where(b, l, h, 2 * i + 1)]
            : [where(b, l, h, i), where(b, l, h, half + i)];
        for (let i = 0; i < half; i++) {
          const [a, z] = pair(i);
          const x1 = x.data[a],
            x2 = x.data[z];
          out[a] = c[i] * x1 - s[i] * x2;
          out[z] = s[i] * x1 + c[i] * x2;
        }
      }
    }
  return { data: out, shape: x.shape };
}

// Position ids [B, L] as a caller may hold them: nested arrays, or { data, shape } with
// number[], Int32Array, BigInt64Array, Float32Array or Uint8Array data.
function positionIds(g, ids, B, L) {
  const form = g.int(0, 5);
  if (form === 0 && B > 0) return nest(ids, [B, L]);
  const T = [Array, Int32Array, BigInt64Array, Float32Array, Uint8Array][Math.min(form, 4)];
  const data = T === Array ? ids.slice() : T === BigInt64Array ? BigInt64Array.from(ids, BigInt) : T.from(ids);
  return { data, shape: [B, L] };
}

// applyRope with the caller's cos/sin tables (ONNX RotaryEmbedding): 4-D or 3-D x (numHeads),
// tables with position ids or gathered per token, partial rotary dims, both pairings; against
// refRopeTables, and the features past rotaryDim must come back bit for bit.
function ropeTablesEntry() {
  return {
    fnName: 'applyRope',
    make(g) {
      const fourD = g.chance(0.6);
      const B = g.int(0, 2),
        H = g.int(1, 3),
        L = g.int(0, 4),
        D = g.int(2, 9);
      const R = 2 * g.int(1, Math.floor(D / 2)),
        half = R / 2;
      const xShape = fourD ? [B, H, L, D] : [B, L, H * D];
      const [x, xc] = tensorArg(g, xShape);
      const withIds = g.chance(0.6),
        maxPosition = g.int(1, 8);
      const tableShape = withIds ? [maxPosition, half] : [B, L, half];
      const ids = Array.from({ length: B * L }, () => g.int(0, maxPosition - 1));
      const rotary = R === D ? g.pick([undefined, 0, R]) : R;
      const [options, o] = optionsArg(
        g,
        {
          cos: [1, () => tensorArg(g, tableShape, randomFloats(g, sizeOf(tableShape), -1.5, 1.5))],
          sin: [1, () => tensorArg(g, tableShape, randomFloats(g, sizeOf(tableShape), -1.5, 1.5))],
          positions: [withIds ? 1 : 0, () => [positionIds(g, ids, B, L), ids]],
          rotaryDim: [rotary === undefined ? 0 : 1, () => [rotary, rotary]],
          numHeads: [fourD ? 0.3 : 1, () => [H, H]],
          interleaved: () => {
            const b = g.chance(0.5);
            return [b, b];
          },
        },
        0.5,
      );
      return {
        args: [x, options],
        kinds: ['tensor', 'options'],
        keys: [, ['cos', 'sin', 'positions', 'interleaved', 'rotaryDim', 'numHeads', 'base']],
        check(r) {
          near(r, refRopeTables(xc, { ...o, numHeads: H }), 'applyRope (tables)', 1e-5, 1e-5);
          for (let t = 0; t < B * H * L; t++)
            for (let f = R; f < D; f++) {
              const i = t * D + f; // both layouts hold rows of one head's D features
              if (!Object.is(r.data[i], xc.data[i]))
                throw new Error(
                  `feature ${f} (past rotaryDim ${R}) of row ${t} changed: ${r.data[i]} vs ${xc.data[i]}`,
                );
            }
        },
      };
    },
  };
}

// The entries above, by their table names.
function laterEntries(attn) {
  return {
    'attention (layout, past)': attentionLayoutEntry(),
    KVCache: kvCacheEntry(attn),
    'layerNorm (axis, stats)': layerNormStatsEntry(),
    'applyRope (tables)': ropeTablesEntry(),
  };
}

// ============================================================================================
// Layers: a pool of live (and some disposed) layers, with a shadow copy of their weights.
// ============================================================================================

const LAYER_CLASSES = ['MultiHeadAttention', 'TransformerEncoderLayer'];
const MAX_LIVE = 6;
const layerNames = new WeakMap(); // layer → 'layer#id', so descriptions do not print the module

class LayerPool {
  constructor(attn) {
    this.attn = attn;
    this.slots = [];
    this.nextId = 1;
  }

  add(cls, layer, config) {
    const slot = { id: this.nextId++, cls, layer, config, disposed: false, shadow: layer.getWeights() };
    layerNames.set(layer, `layer#${slot.id}`);
    this.slots.push(slot);
    const live = this.slots.filter((s) => !s.disposed);
    if (live.length > MAX_LIVE) this.dispose(live[0]);
    this.slots = this.slots.filter((s) => !s.disposed || s === slot || this.slots.indexOf(s) >= this.slots.length - 4);
    return slot;
  }

  dispose(slot) {
    slot.layer.dispose();
    slot.disposed = true;
  }

  // A slot of class `cls`: usually live, sometimes disposed; creates one if none is live.
  pick(g, cls) {
    const mine = this.slots.filter((s) => s.cls === cls);
    const disposed = mine.filter((s) => s.disposed);
    if (disposed.length && g.chance(0.06)) return g.pick(disposed);
    const live = mine.filter((s) => !s.disposed);
    if (live.length && g.chance(0.95)) return g.pick(live);
    const config = layerConfig(g, cls);
    return this.add(cls, new this.attn[cls](config), config);
  }

  // The first live layer whose weights differ from its shadow, as a message, or null.
  changed() {
    for (const slot of this.slots) {
      if (slot.disposed) continue;
      const now = slot.layer.getWeights();
      for (const [name, t] of Object.entries(slot.shadow)) {
        if (!sameBytes(now[name].data, t.data))
          return `weight ${name} of layer#${slot.id} (${slot.cls} ${JSON.stringify(slot.config)}) changed`;
      }
    }
    return null;
  }

  disposeAll() {
    for (const slot of this.slots) if (!slot.disposed) this.dispose(slot);
  }
}

// Valid calls of the layer methods on `slot`.
function layerCalls(attn) {
  const bool = (g) => () => {
    const b = g.chance(0.5);
    return [b, b];
  };
  const align = (g) => () => {
    const a = g.pick(['top-left', 'bottom-right']);
    return [a, a];
  };

  function forwardInputs(g, slot) {
    const layer = slot.layer,
      c = slot.config;
    const H = c.numHeads,
      dModel = c.dModel,
      kDim = c.kDim ?? dModel,
      vDim = c.vDim ?? dModel;
    const batched = g.chance(0.6),
      B = batched ? g.int(0, 2) : 1,
      lead = batched ? [B] : [];
    const encoder = slot.cls === 'TransformerEncoderLayer';
    const Lq = g.int(0, 5),
      Lk = encoder ? Lq : g.int(0, 5);
    const spec = {
      mask: () => maskArg(g, [...lead, H, Lq, Lk]),
      causal: bool(g),
      causalAlign: align(g),
      window: windowArg(g),
      keyLengths: () => {
        const v = Array.from({ length: B }, () => g.int(0, Lk));
        return [!batched && g.chance(0.5) ? v[0] : v, v];
      },
    };
    if (!encoder) Object.assign(spec, { returnWeights: bool(g), averageWeights: bool(g), trace: bool(g) });
    spec.out = outArg([...lead, Lq, dModel]);
    return { layer, c, H, dModel, kDim, vDim, lead, Lq, Lk, spec };
  }

  return {
    forward(g, slot) {
      const { c, H, dModel, kDim, vDim, lead, Lq, Lk, spec } = forwardInputs(g, slot);
      const w = slot.shadow;
      if (slot.cls === 'TransformerEncoderLayer') {
        const [x, xc] = tensorArg(g, [...lead, Lq, dModel]);
        const [options, o] = optionsArg(g, spec);
        return {
          args: g.chance(0.2) && options === undefined ? [x] : [x, options],
          kinds: ['tensor', 'options'],
          keys: [, Object.keys(spec)],
          check: (r) =>
            sameOut(r, o) ??
            near(
              r,
              Lq === 0 || lead[0] === 0
                ? { data: new Float64Array(0), shape: xc.shape }
                : { ...refEncoder(xc, w, c, o), shape: xc.shape },
              'encoder output',
              2e-4,
              2e-3,
            ),
        };
      }
      const [query, qc] = tensorArg(g, [...lead, Lq, dModel]);
      const self = Lq === Lk && kDim === dModel && vDim === dModel && g.chance(0.3);
      const [key, kc] = self ? [query, qc] : tensorArg(g, [...lead, Lk, kDim]);
      const [value, vc] = self || (vDim === kDim && g.chance(0.2)) ? [key, kc] : tensorArg(g, [...lead, Lk, vDim]);
      const [options, o] = optionsArg(g, spec);
      let args = [query, key, value, options];
      if (self && options === undefined && g.chance(0.5)) args = [query];
      else if (value === key && options === undefined && g.chance(0.5)) args = [query, key];
      return {
        args,
        kinds: ['tensor', 'tensor', 'tensor', 'options'],
        keys: [, , , Object.keys(spec)],
        check(r) {
          const outShape = [...lead, Lq, dModel];
          sameOut(r.output, o);
          if (Lq === 0 || lead[0] === 0)
            return near(r.output, { data: new Float64Array(0), shape: outShape }, 'output');
          const ref = refHeads(qc, kc, vc, w, c, o);
          near(r.output, { data: ref.output.data, shape: outShape }, 'output', 1e-4, 1e-3);
          if (o.averageWeights) {
            const block = Lq * Lk,
              avg = new Float64Array(sizeOf(lead.length ? lead : [1]) * block);
            ref.weights.data.forEach((x, i) => {
              avg[Math.floor(i / (H * block)) * block + (i % block)] += x / H;
            });
            near(r.weights, { data: avg, shape: [...lead, Lq, Lk] }, 'averaged weights', 1e-5, 1e-4);
          } else if (o.returnWeights || o.trace)
            near(r.weights, { data: ref.weights.data, shape: [...lead, H, Lq, Lk] }, 'weights', 1e-5, 1e-4);
          if (o.trace) near(r.trace.concat, { data: ref.concat.data, shape: outShape }, 'trace.concat', 1e-4, 1e-3);
        },
        result: (r) => tensorProblem(r?.output, 'output') ?? (r.weights && tensorProblem(r.weights, 'weights')),
      };
    },

    setWeights(g, slot) {
      const names = Object.keys(slot.shadow);
      const chosen = names.filter(() => g.chance(0.3));
      const weights = {},
        canon = {};
      for (const name of chosen)
        [weights[name], canon[name]] = tensorArg(
          g,
          slot.shadow[name].shape,
          randomFloats(g, sizeOf(slot.shadow[name].shape), -1, 1),
        );
      const form = g.int(0, 5);
      const arg =
        form === 0 ? Object.freeze(weights) : form === 1 ? Object.assign(Object.create(null), weights) : weights;
      return {
        args: [arg],
        kinds: ['weights'],
        keys: [names],
        check() {
          const now = slot.layer.getWeights();
          for (const name of names) {
            const expected = canon[name] ?? slot.shadow[name];
            if (!sameBytes(now[name].data, expected.data))
              throw new Error(`after setWeights, ${name} is not what was set`);
          }
          for (const name of chosen)
            slot.shadow[name] = { data: canon[name].data.slice(), shape: canon[name].shape.slice() };
        },
        result: () => null,
      };
    },

    getWeights(g, slot) {
      return {
        args: g.chance(0.7) ? [] : [junk(g)],
        kinds: ['junk'],
        check(r) {
          for (const [name, t] of Object.entries(slot.shadow)) {
            if (
              !r[name] ||
              tensorProblem(r[name]) ||
              !sameBytes(r[name].data, t.data) ||
              String(r[name].shape) !== String(t.shape)
            )
              throw new Error(`getWeights().${name} differs from what the layer holds`);
          }
          if (Object.keys(r).length !== Object.keys(slot.shadow).length) throw new Error('getWeights() has other keys');
        },
        result: () => null,
      };
    },

    dispose(g, slot) {
      return {
        args: g.chance(0.8) ? [] : [junk(g)],
        kinds: ['junk'],
        check: () => {},
        result: (r) => (r === undefined ? null : 'dispose() returned a value'),
        disposes: true,
      };
    },
  };
}

// ============================================================================================
// Turning a valid call into a mistaken one: one argument replaced by a mistake of its kind,
// an extra argument (ignored: still valid) or a missing one.
// ============================================================================================

// ============================================================================================
// The child: generates, calls and judges.
// ============================================================================================

// What a call is allowed to throw (null) or the problem.
function judgeThrow(call, error) {
  if (callerErrors.has(error)) return null;
  if (
    (error instanceof TypeError || error instanceof RangeError) &&
    call.names.some((n) => error.message.startsWith(`${n}:`))
  ) {
    return call.mustReturn ? `a valid call threw ${error.constructor.name}: ${error.message}` : null;
  }
  if (
    call.slot?.disposed &&
    error?.constructor === Error &&
    error.message.startsWith(`${call.name}: this object was disposed`)
  )
    return null;
  return `threw ${describeError(error)}`;
}

function describeError(error) {
  try {
    if (error instanceof Error) return `${error.constructor.name}: ${error.message}`;
    return `a non-Error: ${inspect(error)}`;
  } catch {
    return 'something that cannot be described';
  }
}

function judgeReturn(call, result) {
  if (call.slot?.disposed && !call.disposes && call.self === call.slot.layer)
    return 'returned although the layer was disposed';
  if (call.mustThrow) return 'returned although an argument was invalid (read by index)';
  const problem = (call.result ?? tensorProblem)(result);
  if (problem) return problem;
  if (!call.alias) {
    const inputData = new Set(call.inputs.map(([v]) => v?.data).filter(Boolean));
    for (const t of [result, result?.output, result?.weights]) {
      if (t && inputData.has(t.data)) return 'the result shares its data with an input';
    }
  }
  if (call.check) {
    try {
      call.check(result);
    } catch (e) {
      return `wrong result: ${e.message}`;
    }
  }
  return null;
}

// The honest inputs must be unchanged (callers own their memory).
function inputsProblem(call) {
  for (const [value, canon] of call.inputs) {
    const data =
      value && !Array.isArray(value) && !call.labels.has(value)
        ? Object.getOwnPropertyDescriptor(value, 'data')?.value
        : undefined;
    if (!(data instanceof Float32Array) || data.buffer.byteLength === 0) continue; // detached by the fuzzer itself
    if (!sameBytes(data, canon.data)) return `the call changed its input tensor ${inspect(canon.shape)}`;
  }
  return null;
}

function show(value, labels) {
  try {
    if (layerNames.has(value)) return layerNames.get(value);
    if (value && typeof value === 'object' && typeof value.forward === 'function' && !isProxy(value))
      return `a ${value.constructor?.name} (not from the pool)`;
    const text = labels.get(value);
    const shown = inspect(value, {
      depth: 3,
      maxArrayLength: 8,
      maxStringLength: 40,
      breakLength: Infinity,
      showProxy: true,
      getters: false,
    });
    return text ? `/* ${text} */ ${shown}` : shown;
  } catch {
    return '<cannot show>';
  }
}

function describeCall(call) {
  const args = call.args.map((a) => show(a, call.labels)).join(', ');
  if (call.describe) return call.describe(args);
  if (call.construct) return `new attn.${call.name}(${args})`;
  if (call.name === 'init') return `init(${args})`;
  if (call.slot) {
    const where = `layer#${call.slot.id} = new attn.${call.slot.cls}(${JSON.stringify(call.slot.config)})${call.slot.disposed ? ' (disposed)' : ''}`;
    const method = call.name.split('.')[1];
    if (call.self !== call.slot.layer)
      return `${call.slot.cls}.prototype.${method}.call(${show(call.self, call.labels)}, ${args})   // ${where}`;
    return `layer#${call.slot.id}.${method}(${args})   // ${where}`;
  }
  return `attn.${call.fnName ?? call.name}(${args})`;
}

// Builds call number `index`: { name, fn, self, construct, args, names, check, mustReturn, ... }.
function planCall(g, attn, entries, layers, pool, name) {
  let call;
  const huge = g.chance(0.03);
  if (name in entries) {
    const entry = entries[name];
    // Huge calls are not perturbed: without its returnWeights, [65536, 1] attention is valid and slow.
    call = huge && entry.huge ? { ...entry.huge(g), check: null, noPerturb: true } : entry.make(g);
    call.fn ??= attn[entry.fnName ?? name];
    call.fnName ??= entry.fnName;
    call.result ??= entry.result;
  } else if (name === 'estimateMemory') {
    call = planEstimate(g, attn, entries, layers, pool);
  } else if (LAYER_CLASSES.includes(name)) {
    const config = huge ? hugeConfig(g, name) : layerConfig(g, name);
    call = {
      fn: attn[name],
      construct: true,
      args: [config],
      kinds: ['config'],
      keys: [Object.keys(config)],
      config,
      check: huge ? null : () => {},
      result: (r) => (r instanceof attn[name] ? null : 'not a layer'),
    };
  } else {
    const [cls, method] = name.split('.');
    const slot = pool.pick(g, cls);
    call = layers[method](g, slot);
    Object.assign(call, { slot, fn: attn[cls].prototype[method], self: slot.layer });
    if (g.chance(0.03)) {
      // a wrong receiver: junk, or a live layer of either class
      const other = pool.slots.filter((s) => !s.disposed && s !== slot);
      call.self = g.chance(0.5) || !other.length ? junk(g) : g.pick(other).layer;
      call.check = null;
    }
  }
  call.name = name;
  call.names ??= [call.fnName ?? name];
  call.inputs = g.inputs;
  call.labels = g.labels;
  if (g.chance(0.5) && call.args.length && !call.noPerturb) perturb(g, call, g.canons);
  call.mustReturn = call.check != null && !g.evil && call.self === call.slot?.layer && !call.slot?.disposed;
  if (call.slot?.disposed) call.check = null;
  return call;
}

const SKIP = Symbol('skip');

// estimateMemory(fnName, ...the arguments of that call).
function planEstimate(g, attn, entries, layers, pool) {
  const known = [
    'attention',
    'attentionBackward',
    'matmul',
    'layerNorm',
    'rmsNorm',
    'softmax',
    'logSoftmax',
    'feedForward',
    'setPool',
    'sinusoidalEncoding',
    'addPositionalEncoding',
    'applyRope',
    'alibiSlopes',
    'alibiBias',
    'laplacianEncoding',
    'MultiHeadAttention',
    'TransformerEncoderLayer',
    'MultiHeadAttention.forward',
    'TransformerEncoderLayer.forward',
  ];
  const fnName = g.chance(0.95)
    ? g.pick(known)
    : g.chance(0.5)
      ? g.pick(['tensor', 'toNested', 'Attention', 'forward', ''])
      : junk(g);
  let inner = { args: [], kinds: [] };
  let real = null; // the estimated call itself, for the consistency check
  if (known.includes(fnName) && fnName in entries) {
    inner = g.chance(0.05) && entries[fnName].huge ? entries[fnName].huge(g) : entries[fnName].make(g);
    real = () => attn[fnName](...inner.args);
  } else if (LAYER_CLASSES.includes(fnName)) {
    const config = g.chance(0.1) ? hugeConfig(g, fnName) : layerConfig(g, fnName);
    inner = { args: [config], kinds: ['config'], keys: [Object.keys(config)] };
    real = () => new attn[fnName](inner.args[0]).dispose();
  } else if (typeof fnName === 'string' && fnName.endsWith('.forward')) {
    const cls = fnName.split('.')[0];
    const slot = pool.pick(g, cls);
    const forward = layers.forward(g, slot);
    const layerOrConfig = g.chance(0.7) ? slot.layer : slot.config;
    inner = {
      args: [layerOrConfig, ...forward.args],
      kinds: ['junk', ...forward.kinds],
      keys: [, ...(forward.keys ?? [])],
    };
    if (layerOrConfig === slot.layer && !slot.disposed)
      real = () => (inner.args[0] === slot.layer ? slot.layer.forward(...inner.args.slice(1)) : SKIP);
  }
  if (g.chance(0.3) && inner.args.length) perturb(g, inner, g.canons);
  const names = ['estimateMemory', ...(typeof fnName === 'string' && fnName ? [fnName, fnName.split('.')[0]] : [])];
  return {
    fn: attn.estimateMemory,
    args: [fnName, ...inner.args],
    kinds: ['junk'],
    names,
    noPerturb: true,
    result: (r) => estimateProblem(r),
    // The estimate and the call agree: same error, or the call runs when the estimate fits.
    after:
      g.evil || !real
        ? null
        : (estimateError, estimate) => {
            let error = null,
              threw = false;
            try {
              if (real() === SKIP) return null;
            } catch (e) {
              error = e;
              threw = true;
            }
            if (estimateError) {
              if (!threw) return `estimateMemory threw ${describeError(estimateError)} but the call returned`;
              if (error?.constructor !== estimateError.constructor || error.message !== estimateError.message)
                return `estimateMemory threw ${describeError(estimateError)} but the call threw ${describeError(error)}`;
              return null;
            }
            if (estimate.fits && threw)
              return `estimateMemory said it fits (${estimate.bytes} bytes) but the call threw ${describeError(error)}`;
            if (!estimate.fits && !(threw && error instanceof RangeError))
              return `estimateMemory said it does not fit (${estimate.bytes} bytes) but the call ${threw ? `threw ${describeError(error)}` : 'returned'}`;
            return null;
          },
  };
}

function estimateProblem(r) {
  if (!r || typeof r !== 'object') return `not an estimate: ${inspect(r)}`;
  if (typeof r.bytes !== 'number' || !(r.bytes >= 0)) return `bytes is ${r.bytes}`;
  if (typeof r.complete !== 'boolean' || typeof r.fits !== 'boolean' || !Array.isArray(r.blocks))
    return `malformed estimate ${inspect(r)}`;
  if (r.fits && r.bytes > r.freeBytes) return `fits with ${r.bytes} bytes but only ${r.freeBytes} free`;
  return null;
}

// Relative frequency of each public name.
const WEIGHTS = {
  attention: 5.5,
  'attention (layout, past)': 2.5,
  KVCache: 1.5,
  attentionBackward: 3,
  linearBackward: 2,
  layerNormBackward: 2,
  feedForwardBackward: 2,
  softmaxCrossEntropy: 2,
  matmul: 4,
  layerNorm: 3,
  'layerNorm (axis, stats)': 1.5,
  rmsNorm: 2,
  softmax: 2,
  logSoftmax: 2,
  feedForward: 3,
  setPool: 2,
  sinusoidalEncoding: 2,
  addPositionalEncoding: 2,
  applyRope: 1.5,
  'applyRope (tables)': 1.5,
  alibiSlopes: 1,
  alibiBias: 2,
  laplacianEncoding: 2,
  tensor: 2,
  toNested: 2,
  toTfjs: 1,
  toOrt: 1,
  memory: 0.5,
  estimateMemory: 4,
  MultiHeadAttention: 1.5,
  'MultiHeadAttention.forward': 5,
  'MultiHeadAttention.setWeights': 1.5,
  'MultiHeadAttention.getWeights': 0.7,
  'MultiHeadAttention.dispose': 0.3,
  TransformerEncoderLayer: 1.5,
  'TransformerEncoderLayer.forward': 4,
  'TransformerEncoderLayer.setWeights': 1.5,
  'TransformerEncoderLayer.getWeights': 0.7,
  'TransformerEncoderLayer.dispose': 0.3,
};
const WEIGHT_TOTAL = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);

function pickName(g) {
  let r = g.float(0, WEIGHT_TOTAL);
  for (const [name, w] of Object.entries(WEIGHTS)) if ((r -= w) < 0) return name;
  return 'attention';
}

// A fixed computation: masked attention on 8×8 inputs, a layer forward, a layerNorm. Its bytes.
function canary(attn) {
  const q = { data: Float32Array.from({ length: 64 }, (_, i) => Math.sin(i * 0.37)), shape: [8, 8] };
  const k = { data: Float32Array.from({ length: 64 }, (_, i) => Math.cos(i * 0.11)), shape: [8, 8] };
  const mask = { data: Uint8Array.from({ length: 64 }, (_, i) => ((i * 7) % 5 !== 0 ? 1 : 0)), shape: [8, 8] };
  const layer = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, seed: 11 });
  try {
    const parts = [
      attn.attention(q, k, q, { mask }).output.data,
      layer.forward(q, k, k).output.data,
      attn.layerNorm(k).data,
    ];
    return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  } finally {
    layer.dispose();
  }
}

// init() with junk options (async; each valid call compiles a module, so they are few).
async function fuzzInit(g, attn, wasmBytes) {
  const options = g.pick([
    () => junk(g),
    () => ({ [g.pick(['wasm', 'url', 'binary', 'wasmURL'])]: 1 }),
    () => ({ wasmBinary: junk(g) }),
    () => ({ wasmUrl: junk(g) }),
    () => optionsMistake(g, { wasmBinary: wasmBytes }, undefined, ['wasmBinary', 'wasmUrl']).value,
    () => ({
      wasmBinary: g.pick([
        new Uint8Array(8),
        new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]),
        wasmBytes.subarray(0, 100),
        new DataView(wasmBytes.buffer, wasmBytes.byteOffset, wasmBytes.byteLength),
      ]),
    }),
    () => ({
      wasmUrl: g.pick([
        '/nonexistent/attention.wasm',
        'ftp://example.invalid/a.wasm',
        'data:application/wasm;base64,AGFzbQ==',
        new URL('file:///dev/null'),
      ]),
    }),
    () => (g.chance(0.3) ? { wasmBinary: wasmBytes } : undefined),
  ])();
  const call = {
    name: 'init',
    args: options === undefined ? [] : [options],
    names: ['init'],
    labels: g.labels,
    inputs: [],
  };
  return {
    call,
    run: () => init(...call.args),
    check: (api) =>
      options === undefined && api !== attn
        ? 'init() did not return the shared instance'
        : typeof api?.attention === 'function'
          ? null
          : 'not an API object',
  };
}

async function runChild({ from, progressPath, canaryHex, withInit }) {
  const attn = await init();
  const entries = makeEntries(attn);
  const layers = layerCalls(attn);
  const pool = new LayerPool(attn);
  const progress = fs.openSync(progressPath, 'w');
  const send = (message) => process.send(message);
  const stats = {};
  const count = (name, outcome) => {
    (stats[name] ??= { returned: 0, threw: 0 })[outcome]++;
  };
  const mark = (index, name, text) => {
    const b = Buffer.from(`${index}\t${name}\t${text.slice(0, 4000)}\u0000`);
    fs.writeSync(progress, b, 0, b.length, 0);
  };
  let failures = 0;
  const seen = new Map(); // kind of failure → count; the first EXAMPLES of each kind are sent in full
  const fail = (index, call, text, problem, fatal = false) => {
    failures++;
    const kind = failureKind(call.name, problem);
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
    send(
      seen.get(kind) <= EXAMPLES
        ? { type: 'failure', kind, index, name: call.name, call: text, problem, fatal }
        : { type: 'failure', kind },
    );
  };

  // init() first, in the first segment only.
  const wasmBytes = new Uint8Array(fs.readFileSync(new URL('../dist/attention.wasm', import.meta.url)));
  if (withInit) {
    const quiet = { error: console.error, warn: console.warn, log: console.log };
    for (let i = 0; i < INIT_CALLS; i++) {
      const g = makeGen(SEED, -1 - i);
      const { call, run, check } = await fuzzInit(g, attn, wasmBytes);
      const text = describeCall(call);
      mark(-1 - i, 'init', text);
      Object.assign(console, { error: () => {}, warn: () => {}, log: () => {} }); // the Emscripten glue prints aborts
      let api,
        error,
        threw = false;
      try {
        api = await run();
      } catch (e) {
        error = e;
        threw = true;
      } finally {
        Object.assign(console, quiet);
      }
      count('init', threw ? 'threw' : 'returned');
      const problem = threw ? judgeThrow(call, error) : check(api);
      if (problem) fail(-1 - i, call, text, problem);
    }
  }

  const reference = canary(attn);
  const canaryBytes = canaryHex ? Buffer.from(canaryHex, 'hex') : reference;
  if (!reference.equals(canaryBytes))
    fail(
      from,
      { name: 'canary' },
      'canary at the start of a restarted segment',
      "the canary differs from the first run's",
      true,
    );
  const heapStart = attn.memory().inUseBytes;
  send({ type: 'start', from, canaryHex: reference.toString('hex'), heapStart });
  const t0 = performance.now();
  let index = from,
    stopped = false;
  for (; index < CALLS && !stopped; index++) {
    const g = makeGen(SEED, index);
    const name = pickName(g);
    let call, text;
    try {
      call = planCall(g, attn, entries, layers, pool, name);
      text = describeCall(call);
    } catch (e) {
      fail(
        index,
        { name },
        `(preparing a call of ${name})`,
        `setting up the call failed: ${describeError(e)}\n${e?.stack}`,
        true,
      );
      stopped = true;
      break;
    }
    mark(index, name, text);
    let heapBefore;
    try {
      heapBefore = attn.memory().inUseBytes;
    } catch (e) {
      fail(
        index,
        call,
        text,
        `the wasm heap was already broken before this call (memory() threw ${describeError(e)}): an earlier call corrupted it unnoticed`,
        true,
      );
      stopped = true;
      break;
    }
    const started = performance.now();
    let result,
      error,
      threw = false;
    try {
      result = call.construct ? Reflect.construct(call.fn, call.args) : Reflect.apply(call.fn, call.self, call.args);
    } catch (e) {
      error = e;
      threw = true;
    }
    const ms = performance.now() - started;
    let heapAfter;
    try {
      heapAfter = attn.memory().inUseBytes;
    } catch (e) {
      heapAfter = `unreadable (${describeError(e)})`;
    }
    count(name, threw ? 'threw' : 'returned');
    let problem = threw ? judgeThrow(call, error) : judgeReturn(call, result);
    // Only constructors and dispose() may change what the wasm heap holds.
    if (!problem && !call.construct && !name.endsWith('.dispose') && heapAfter !== heapBefore) {
      problem =
        typeof heapAfter === 'number'
          ? `the wasm heap holds ${heapAfter - heapBefore} more bytes after the call (${heapBefore} → ${heapAfter})`
          : `the wasm heap holds bytes that cannot be counted after the call: memory() is ${heapAfter}`;
    }
    problem ??= inputsProblem(call);
    if (!problem && call.after) problem = call.after(threw ? error : null, result);
    if (!problem && ms > SLOW_MS) problem = `took ${(ms / 1000).toFixed(1)} s`;
    // Bookkeeping of the layer pool: new layers (a mistaken config that still constructs is
    // disposed at once), disposals and weights set through any receiver.
    const target = call.self && pool.slots.find((s) => s.layer === call.self);
    try {
      if (!threw && call.construct) {
        if (call.check) pool.add(name, result, call.config);
        else if (result && typeof result.dispose === 'function') result.dispose();
      }
      if (!threw && target && name.endsWith('.dispose')) target.disposed = true;
      if (!threw && target && !target.disposed && name.endsWith('.setWeights') && !(call.check && target === call.slot))
        target.shadow = target.layer.getWeights();
    } catch (e) {
      problem ??= `bookkeeping after the call failed: ${describeError(e)}`;
    }
    const fatal =
      threw &&
      !(
        error instanceof TypeError ||
        error instanceof RangeError ||
        error instanceof CallerError ||
        error?.constructor === Error
      );
    const heapChanged = problem?.startsWith('the wasm heap holds') ?? false;
    if (problem) fail(index, call, text, problem, fatal || heapChanged);
    let changed;
    try {
      changed = pool.changed();
    } catch (e) {
      changed = `reading the live layers' weights threw ${describeError(e)}`;
    }
    if (changed) fail(index, call, text, `after this call, ${changed}`, true);
    if (fatal || changed || heapChanged || failures >= MAX_FAILURES) {
      stopped = true;
      break;
    }
    if (index % STATS_EVERY === STATS_EVERY - 1) send({ type: 'stats', stats, index });
    if (index % CHECK_EVERY === CHECK_EVERY - 1) {
      let bytes = null;
      try {
        bytes = canary(attn);
      } catch (e) {
        bytes = Buffer.from(describeError(e));
      }
      if (!bytes.equals(canaryBytes)) {
        fail(index, call, text, `the canary differs after call ${index}`, true);
        stopped = true;
        break;
      }
      await new Promise(setImmediate); // let the messages out
    }
  }
  if (stopped) index++; // resume after the call that stopped this segment
  let heapEnd = null;
  try {
    pool.disposeAll();
    heapEnd = attn.memory().inUseBytes;
  } catch (e) {
    if (!stopped)
      fail(index - 1, { name: 'dispose' }, '(disposing every layer at the end)', `threw ${describeError(e)}`, true);
  }
  send({ type: 'done', stats, next: index, stopped, heapStart, heapEnd, ms: performance.now() - t0 });
  fs.closeSync(progress);
  process.disconnect();
}

// Failures of one kind: same function, same problem up to numbers and quoted names.
function failureKind(name, problem) {
  const text = problem
    .split('\n')[0]
    .replace(/\([^)]*\)|\[[^\]]*\]|\{[^}]*\}|'[^']*'/g, '…')
    .replace(/layer\\?#\d+/g, 'layer')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/g, '#')
    .replace(/(the call threw [A-Za-z]+Error|stderr):.*/, '$1')
    .replace(/ first mismatch.*/, ' values differ')
    .replace(/weight \w+ of/, 'the weights of');
  return `${name}: ${text.slice(0, 100)}`;
}

// ============================================================================================
// The parent: runs the child segments with a watchdog, prints figures, asserts.
// ============================================================================================

function runSegment(from, canaryHex, progressPath, withInit) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=128', fileURLToPath(import.meta.url)], {
      env: childEnv({ from, progressPath, canaryHex, withInit }),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const segment = { from, failures: [], stats: {}, done: null, start: null, stderr: '' };
    child.stdout.on('data', (d) => process.stdout.write(d));
    child.stderr.on('data', (d) => {
      segment.stderr = (segment.stderr + d).slice(-4000);
    });
    child.on('message', (m) => {
      if (m.type === 'failure') segment.failures.push(m);
      else if (m.type === 'stats') segment.stats = m.stats;
      else if (m.type === 'start') segment.start = m;
      else if (m.type === 'done') {
        segment.done = m;
        segment.stats = m.stats;
      }
    });
    let last = null,
      lastChange = Date.now();
    const watchdog = setInterval(() => {
      const now = readProgress(progressPath);
      if (now?.index !== last?.index) {
        last = now;
        lastChange = Date.now();
        return;
      }
      if (Date.now() - lastChange > HANG_MS) {
        segment.hang = now;
        child.kill('SIGKILL');
      }
    }, 500);
    child.on('exit', (code, signal) => {
      clearInterval(watchdog);
      segment.exit = { code, signal };
      if (!segment.done) segment.crashAt = readProgress(progressPath);
      resolve(segment);
    });
  });
}

function childEnv(options) {
  const env = { ...process.env, ATTN_FUZZ_CHILD: JSON.stringify(options) };
  delete env.NODE_TEST_CONTEXT; // the child is not a test-runner child
  return env;
}

function readProgress(progressPath) {
  try {
    const text = fs.readFileSync(progressPath, 'utf8');
    const end = text.indexOf('\u0000');
    const [index, name, ...call] = text.slice(0, end).split('\t');
    return { index: Number(index), name, call: call.join('\t') };
  } catch {
    return null;
  }
}

async function runParent() {
  const { default: test } = await import('node:test');
  test(
    `API fuzz: ${CALLS.toLocaleString('en')} seeded calls of every public function (seed ${SEED})`,
    { timeout: BUDGET_MS + 60_000 },
    async () => {
      console.log(
        `api-fuzz: seed ${SEED} (replay: ATTN_FUZZ_SEED=${SEED} node --test tests/api-fuzz.test.js), ${CALLS} calls + ${INIT_CALLS} init() calls`,
      );
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-fuzz-'));
      const progressPath = path.join(dir, 'progress');
      const t0 = performance.now();
      const kinds = new Map(),
        stats = {},
        heaps = [];
      let failures = 0;
      const record = (f) => {
        failures++;
        if (!kinds.has(f.kind)) kinds.set(f.kind, { count: 0, examples: [] });
        const k = kinds.get(f.kind);
        k.count++;
        if (f.call !== undefined && k.examples.length < EXAMPLES) k.examples.push(f);
      };
      let from = FROM,
        canaryHex = null,
        segments = 0,
        made = 0;
      try {
        while (from < CALLS && performance.now() - t0 < BUDGET_MS && failures < MAX_FAILURES) {
          segments++;
          const s = await runSegment(from, canaryHex, progressPath, segments === 1 && FROM === 0);
          canaryHex ??= s.start?.canaryHex ?? null;
          s.failures.forEach(record);
          for (const [name, c] of Object.entries(s.stats)) {
            const total = (stats[name] ??= { returned: 0, threw: 0 });
            total.returned += c.returned;
            total.threw += c.threw;
          }
          if (s.done) {
            heaps.push({ from, to: s.done.next, ...s.done });
            made += s.done.next - from;
            from = s.done.next;
          } else {
            const at = s.crashAt ?? { index: from, call: '(unknown)' };
            const how = s.hang
              ? `hung (no progress for ${HANG_MS / 1000} s)`
              : `crashed the process (exit code ${s.exit.code}, signal ${s.exit.signal})`;
            const problem = `${how}; stderr: ${s.stderr.split('\n').filter(Boolean).slice(0, 3).join(' | ')}`;
            record({
              kind: failureKind(at.name ?? '?', how),
              index: at.index,
              name: at.name ?? '?',
              call: at.call,
              problem,
              fatal: true,
            });
            made += Math.max(0, at.index + 1 - from);
            from = Math.max(from, at.index + 1);
          }
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const seconds = (performance.now() - t0) / 1000;
      const counted = Object.values(stats).reduce((a, s) => a + s.returned + s.threw, 0);
      const initCalls = stats.init ? stats.init.returned + stats.init.threw : 0;
      const calls = made + initCalls;
      console.log(
        `api-fuzz: ${calls} calls (${made} + ${initCalls} init) in ${seconds.toFixed(1)} s, ${segments} child process(es); ` +
          `returned / threw per function${counted < calls ? ` (${calls - counted} calls of crashed children not broken down)` : ''}:`,
      );
      for (const [name, s] of Object.entries(stats).sort())
        console.log(
          `  ${name.padEnd(34)} ${String(s.returned).padStart(7)} returned ${String(s.threw).padStart(7)} threw`,
        );
      for (const h of heaps) {
        console.log(
          `api-fuzz: calls ${h.from}..${h.to - 1}: heap in use ${h.heapStart} bytes at the start, ${h.heapEnd ?? 'unreadable'} bytes after disposing every layer${h.stopped ? ' (child stopped early by a failure)' : ''}`,
        );
      }
      // Failures, by kind, with the first calls of each kind.
      const report = [...kinds.values()]
        .map(({ count, examples }) => {
          const [f, ...more] = examples;
          return (
            `- ${f.name}: ${f.problem}\n    ${count} time(s); first at call ${f.index} (seed ${SEED}): ${f.call}` +
            more.map((m) => `\n    also at call ${m.index}: ${m.call}`).join('')
          );
        })
        .join('\n');
      if (failures) console.log(`api-fuzz: ${failures} failure(s) of ${kinds.size} kind(s), seed ${SEED}:\n${report}`);
      assert.ok(made >= CALLS - FROM, `only ${made} of ${CALLS - FROM} calls ran (time budget ${BUDGET_MS / 1000} s)`);
      assert.equal(failures, 0, `the API broke its rules in ${failures} call(s) (seed ${SEED}):\n${report}`);
      // A segment stopped by a failure (a wasm trap mid-call) may leak; that failure is reported above.
      for (const h of heaps)
        if (!h.stopped) assert.equal(h.heapEnd, h.heapStart, `heap in use after calls ${h.from}..${h.to - 1}`);
    },
  );
}

if (process.env.ATTN_FUZZ_CHILD) await runChild(JSON.parse(process.env.ATTN_FUZZ_CHILD));
else await runParent();
