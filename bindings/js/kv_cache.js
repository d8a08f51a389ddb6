// attn.KVCache: keys and values of past positions kept in wasm memory with a fixed capacity,
// for decoding token by token (issue 22, item 5). attend(q, k, v) writes the new keys and
// values in place after each sequence's own length and attends over everything the cache
// holds, in one call: no concatenation by the caller and no copy of the cache between JS and
// wasm per token (pastKey/pastValue on attention() copy it, as ONNX's functional form does).
//   cache: keys [batch, kvHeads, capacity, headDim], values [batch, kvHeads, capacity, valueDim]
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf, copyRows, intact } from './tensor.js';
import { planMask, planMaskMemory, writeMask } from './masks.js';
import { HeapScope, views } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys, positiveInteger, checkSoftcap, checkWindow } from './checks.js';
import { Parameters } from './parameters.js';
import { ENTRY_COLUMNS, callBlockShape, writeCall } from './attention_call.js';

const CONFIG = ['batch', 'kvHeads', 'capacity', 'headDim', 'valueDim'];
const OPTIONS = ['causal', 'window', 'scale', 'softcap', 'mask', 'newLengths', 'layout', 'returnWeights'];

// The config's sizes, checked: { batch, kvHeads, capacity, headDim, valueDim }.
function checkConfig(config) {
  const fn = 'KVCache';
  if (config === undefined)
    throw typeError(fn, 'a config { batch, kvHeads, capacity, headDim, valueDim? } is required');
  checkKeys(fn, 'config', config, CONFIG);
  const c = {};
  for (const key of ['batch', 'kvHeads', 'capacity', 'headDim'])
    c[key] = positiveInteger(fn, `config.${key}`, config[key]);
  c.valueDim = config.valueDim === undefined ? c.headDim : positiveInteger(fn, 'config.valueDim', config.valueDim);
  if (c.batch * c.kvHeads * c.capacity * Math.max(c.headDim, c.valueDim) > 2 ** 29) {
    throw rangeError(
      fn,
      `a cache of ${c.batch} × ${c.kvHeads} × ${c.capacity} positions of ${c.headDim} + ${c.valueDim} floats needs more than the wasm heap holds (2 GiB per tensor at most)`,
    );
  }
  return c;
}

// [batch, heads, L, d] ('bhsd') or [batch, L, heads, d] ('bshd') of a named tensor:
// { heads, rows, cols, offset(b, h), rowStride }.
function view(fn, name, t, layout, batch, cols, colsName) {
  const want = layout === 'bshd' ? `[${batch}, L, heads, ${colsName}]` : `[${batch}, heads, L, ${colsName}]`;
  if (t.shape.length !== 4 || t.shape[0] !== batch || t.shape[3] !== cols) {
    throw rangeError(fn, `${name} must have shape ${want}, got ${formatShape(t.shape)}`);
  }
  const [, a, b] = t.shape;
  const [heads, rows] = layout === 'bshd' ? [b, a] : [a, b];
  return layout === 'bshd'
    ? { heads, rows, rowStride: heads * cols, offset: (n, h) => (n * rows * heads + h) * cols }
    : { heads, rows, rowStride: cols, offset: (n, h) => (n * heads + h) * rows * cols };
}

/** The wasm memory of a cache of this config (for estimateMemory('KVCache', config)). */
export function kvCacheMemory(config) {
  const c = checkConfig(config);
  return Parameters.plan('KVCache', {
    keys: [c.batch, c.kvHeads, c.capacity, c.headDim],
    values: [c.batch, c.kvHeads, c.capacity, c.valueDim],
  });
}

/** The KVCache class bound to one loaded module. */
export function makeKVCache(module) {
  class KVCache {
    #c;
    #store;
    #lengths;

    /** A cache of `capacity` positions per sequence: { batch, kvHeads, capacity, headDim, valueDim? }. */
    constructor(config) {
      const c = checkConfig(config);
      this.#c = c;
      this.#store = new Parameters(module, 'KVCache', {
        keys: [c.batch, c.kvHeads, c.capacity, c.headDim],
        values: [c.batch, c.kvHeads, c.capacity, c.valueDim],
      });
      this.#lengths = new Int32Array(c.batch);
    }

    /** The positions each sequence holds: number[batch]. */
    get lengths() {
      return Array.from(this.#lengths);
    }

    /** The configuration: { batch, kvHeads, capacity, headDim, valueDim }. */
    get config() {
      return { ...this.#c };
    }

    /** Forgets every position (the memory stays, for the next sequence). */
    reset() {
      this.#store.check('reset');
      this.#lengths.fill(0);
    }

    /** Frees the cache's wasm memory; the object cannot be used afterwards. */
    dispose() {
      this.#store.dispose();
    }

    /** A copy of the keys, [batch, kvHeads, max length, headDim] (past a sequence's length: stale). */
    keys() {
      return this.#read('keys', this.#c.headDim);
    }

    /** A copy of the values, [batch, kvHeads, max length, valueDim]. */
    values() {
      return this.#read('values', this.#c.valueDim);
    }

    #read(name, d) {
      this.#store.check(name);
      const { batch, kvHeads, capacity } = this.#c;
      const length = Math.max(0, ...this.#lengths);
      const out = new Float32Array(batch * kvHeads * length * d);
      const heap = views(module).HEAPF32;
      const base = this.#store.addresses[name] >>> 2;
      for (let s = 0; s < batch * kvHeads; s++) {
        out.set(heap.subarray(base + s * capacity * d, base + (s * capacity + length) * d), s * length * d);
      }
      return { data: out, shape: [batch, kvHeads, length, d] };
    }

    /**
     * Appends k, v after each sequence's length and returns attention of q over all it holds.
     *   q: [batch, heads, Lq, headDim]  k: [batch, kvHeads, Lnew, headDim]  v: [batch, kvHeads, Lnew, valueDim]
     *   ([batch, L, heads, d] each with layout 'bshd'); heads a multiple of kvHeads.
     * Options: causal (query i sits at position length + i), window ({ left, right } keys around
     * that position: a sliding window), scale, softcap, mask ([..., Lq, T],
     * T = max length + Lnew after the append), newLengths (how many of the Lnew are real per
     * sequence; the rest are written but not counted), returnWeights.
     * Returns { output: [batch, heads, Lq, valueDim] (bshd: [batch, Lq, heads, valueDim]), weights? }.
     */
    attend(qIn, kIn, vIn, optionsIn) {
      const fn = 'KVCache.attend';
      this.#store.check('attend');
      const p = this.#plan(fn, qIn, kIn, vIn, optionsIn);
      this.#store.check('attend', true); // a getter may have disposed it
      checkBudget(module, p.memory);
      const heap = new HeapScope(module, fn);
      try {
        this.#append(p);
        const entries = new Int32Array(p.count * ENTRY_COLUMNS);
        const outOffsets = new Int32Array(p.count);
        const { kvHeads, capacity, headDim, valueDim } = this.#c;
        for (let n = 0, e = 0; n < this.#c.batch; n++) {
          for (let h = 0; h < p.heads; h++, e++) {
            const kv = n * kvHeads + Math.floor(h / p.group);
            const row = e * ENTRY_COLUMNS;
            entries[row] = p.q.offset(n, h);
            entries[row + 1] = kv * capacity * headDim;
            entries[row + 2] = kv * capacity * valueDim;
            entries[row + 3] = p.maskOffsets ? p.maskOffsets[e] : 0;
            entries[row + 4] = this.#lengths[n] + p.newLengths[n];
            entries[row + 5] = this.#lengths[n]; // causal: query i at position length + i
            outOffsets[e] = p.layout === 'bshd' ? (n * p.seqQ * p.heads + h) * valueDim : e * p.seqQ * valueDim;
          }
        }
        const { mask, allowed } = p.maskPlan ? writeMask(heap, p.maskPlan, p.seqK) : { mask: 0, allowed: 0 };
        const call = {
          // plain properties (see attention.js)
          q: heap.floats(p.qData),
          k: this.#store.addresses.keys,
          v: this.#store.addresses.values,
          mask,
          allowed,
          maskRowStride: p.maskPlan ? p.maskPlan.rowStride : 0,
          batch: p.count,
          seqQ: p.seqQ,
          seqK: p.seqK,
          headDim,
          valueDim,
          scale: p.scale,
          softcap: p.softcap,
          causal: p.causal,
          windowLeft: p.window.left,
          windowRight: p.window.right,
          qStride: p.q.rowStride,
          outStride: p.layout === 'bshd' ? p.heads * valueDim : 0,
          outOffsets: heap.ints(outOffsets),
          out: heap.alloc(sizeOf(p.outShape)),
          weights: p.weights ? heap.alloc(p.count * p.seqQ * p.seqK) : 0,
        };
        const status = module._attention_run(writeCall(heap, call, entries));
        if (status !== 0) throw rangeError(fn, `the core rejected the call: ${module._statusMessage(status)}`);
        for (let n = 0; n < this.#c.batch; n++) this.#lengths[n] += p.newLengths[n];
        const result = { output: { data: heap.read(call.out, sizeOf(p.outShape)), shape: p.outShape } };
        if (p.weights)
          result.weights = {
            data: heap.read(call.weights, p.count * p.seqQ * p.seqK),
            shape: [this.#c.batch, p.heads, p.seqQ, p.seqK],
          };
        return result;
      } finally {
        heap.release();
      }
    }

    // Everything attend needs, checked, before any memory is touched.
    #plan(fn, qIn, kIn, vIn, optionsIn) {
      const options = checkKeys(fn, 'option', optionsIn, OPTIONS, ['causal', 'returnWeights']);
      const layout = options.layout ?? 'bhsd';
      if (layout !== 'bhsd' && layout !== 'bshd')
        throw rangeError(fn, `options.layout must be 'bhsd' or 'bshd', got ${describe(layout)}`);
      if (options.scale !== undefined && (typeof options.scale !== 'number' || !Number.isFinite(options.scale))) {
        throw (typeof options.scale !== 'number' ? typeError : rangeError)(
          fn,
          `options.scale must be a finite number, got ${describe(options.scale)}`,
        );
      }
      const softcap = checkSoftcap(fn, options.softcap);
      const window = checkWindow(fn, options.window);
      const { batch, kvHeads, capacity, headDim, valueDim } = this.#c;
      const q = toTensor(fn, 'q', qIn),
        k = toTensor(fn, 'k', kIn),
        v = toTensor(fn, 'v', vIn);
      const qv = view(fn, 'q', q, layout, batch, headDim, 'headDim');
      const kv = view(fn, 'k', k, layout, batch, headDim, 'headDim');
      const vv = view(fn, 'v', v, layout, batch, valueDim, 'valueDim');
      if (kv.heads !== kvHeads || vv.heads !== kvHeads)
        throw rangeError(fn, `k and v must have the cache's ${kvHeads} kv heads, got ${kv.heads} and ${vv.heads}`);
      if (vv.rows !== kv.rows) throw rangeError(fn, `v has ${vv.rows} positions but k has ${kv.rows}`);
      if (qv.heads % kvHeads !== 0)
        throw rangeError(fn, `q's ${qv.heads} heads must be a multiple of the cache's ${kvHeads} kv heads`);
      const added = kv.rows;
      const newLengths = new Int32Array(batch).fill(added);
      if (options.newLengths !== undefined) {
        const given = options.newLengths;
        if (!Array.isArray(given) && !ArrayBuffer.isView(given))
          throw typeError(fn, `options.newLengths must be an array of integers, got ${describe(given)}`);
        if (given.length !== batch)
          throw rangeError(fn, `options.newLengths has ${given.length} entries but the cache holds ${batch} sequences`);
        for (let n = 0; n < batch; n++) {
          const x = given[n];
          if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > added)
            throw rangeError(fn, `options.newLengths[${n}] must be an integer in [0, ${added}], got ${describe(x)}`);
          newLengths[n] = x;
        }
      }
      for (let n = 0; n < batch; n++) {
        if (this.#lengths[n] + added > capacity) {
          throw rangeError(
            fn,
            `sequence ${n} holds ${this.#lengths[n]} of ${capacity} positions; ${added} new ones do not fit (reset() it, or make a larger cache)`,
          );
        }
      }
      const heads = qv.heads,
        seqQ = qv.rows,
        count = batch * heads;
      const seqK = Math.max(0, ...Array.from(this.#lengths, (length, n) => length + newLengths[n]));
      const maskPlan = planMask(fn, options.mask, [batch, heads], seqQ, seqK);
      const maskOffsets = maskPlan
        ? Array.from({ length: count }, (_, e) => {
            const [n, h] = [Math.floor(e / heads), e % heads];
            return n * maskPlan.leadStrides[0] + h * maskPlan.leadStrides[1];
          })
        : null;
      const outShape = layout === 'bshd' ? [batch, seqQ, heads, valueDim] : [batch, heads, seqQ, valueDim];
      const weights = options.returnWeights === true;
      const memory = new MemoryPlan(fn).tensor('q', q.shape);
      planMaskMemory(memory, maskPlan);
      memory
        .tensor('batch table', callBlockShape(module, count))
        .tensor('output offsets', [count])
        .tensor('output', outShape);
      if (weights) memory.tensor('weights', [batch, heads, seqQ, seqK]);
      memory.scratch('kernel workspace', () =>
        module._attentionScratch(1, seqQ, Math.max(1, seqK), headDim, valueDim, weights),
      );
      return {
        layout,
        softcap,
        window,
        heads,
        seqQ,
        seqK,
        count,
        group: heads / kvHeads,
        newLengths,
        maskPlan,
        maskOffsets,
        outShape,
        weights,
        memory,
        q: qv,
        qData: q.data,
        k: kv,
        kData: k.data,
        v: vv,
        vData: v.data,
        added,
        causal: options.causal === true,
        scale: options.scale ?? 1 / Math.sqrt(headDim),
      };
    }

    // Writes the new keys and values in place, after each sequence's length.
    #append(p) {
      // A getter read after the checks (options.mask, options.newLengths) may have detached
      // k's or v's buffer: both are checked before anything is written.
      intact('KVCache.attend', p.kData);
      intact('KVCache.attend', p.vData);
      const heap = views(module).HEAPF32;
      const { batch, kvHeads, capacity, headDim, valueDim } = this.#c;
      for (const [name, m, data, d] of [
        ['keys', p.k, p.kData, headDim],
        ['values', p.v, p.vData, valueDim],
      ]) {
        const base = this.#store.addresses[name] >>> 2;
        for (let n = 0; n < batch; n++) {
          for (let h = 0; h < kvHeads; h++) {
            const at = base + ((n * kvHeads + h) * capacity + this.#lengths[n]) * d;
            copyRows(heap, at, data, m.offset(n, h), p.added, m.rowStride, d);
          }
        }
      }
    }
  }
  return KVCache;
}
