// attn.attention(q, k, v, options): scaled dot-product attention with the semantics of
// PyTorch's scaled_dot_product_attention. Step 1 checks everything and builds a plan
// (no wasm memory touched); step 2 copies in, runs the core, copies out.
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf, broadcastShapes, broadcastStrides } from './tensor.js';
import { planMask, planMaskMemory, writeMask, checkKeyLengths, keepMaskToMask } from './masks.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys, causalOffset } from './checks.js';
import { checkOut, readOutput } from './out.js';
import { ENTRY_COLUMNS, callBlockShape, writeCall } from './attention_call.js';

const FN = 'attention';
const OPTIONS = ['mask', 'keepMask', 'causal', 'causalAlign', 'scale', 'keyLengths', 'enableGqa', 'returnWeights', 'trace', 'out'];
const BOOLEAN_OPTIONS = ['causal', 'enableGqa', 'returnWeights', 'trace'];

function checkOptions(optionsIn) {
  const options = checkKeys(FN, 'option', optionsIn, OPTIONS, BOOLEAN_OPTIONS);
  causalOffset(FN, options.causalAlign, 0, 0);  // type and value, before the tensors
  if (options.scale !== undefined) {
    if (typeof options.scale !== 'number') throw typeError(FN, `options.scale must be a number, got ${describe(options.scale)}`);
    if (!Number.isFinite(options.scale)) throw rangeError(FN, `options.scale must be finite, got ${options.scale}`);
  }
  return options;
}

// Splits [..., rows, cols] into its parts, naming the tensor in errors.
function splitMatrix(name, t, rowsName, colsName) {
  if (t.shape.length < 2) {
    throw rangeError(FN, `${name} must have shape [..., ${rowsName}, ${colsName}], got ${formatShape(t.shape)}`);
  }
  const n = t.shape.length;
  return { lead: t.shape.slice(0, n - 2), rows: t.shape[n - 2], cols: t.shape[n - 1] };
}

// Grouped-query attention (PyTorch's enable_gqa): the head axis (the one before [L, d]) of
// k and v may be a divisor of q's; q head h then reads k/v head floor(h / group).
function gqaGroup(qLead, kLead, vLead) {
  if (qLead.length < 1 || kLead.length < 1 || vLead.length < 1) {
    throw rangeError(FN, 'enableGqa needs a head axis: q, k, v of shape [..., heads, L, d]');
  }
  const hq = qLead.at(-1), hk = kLead.at(-1), hv = vLead.at(-1);
  if (hk !== hv) throw rangeError(FN, `enableGqa: k has ${hk} heads but v has ${hv}`);
  if (hk === 0 || hq % hk !== 0) throw rangeError(FN, `enableGqa: q's ${hq} heads must be a multiple of k's ${hk}`);
  return hq / hk;
}

// Step 1: everything the call needs, checked; no wasm memory is touched here.
function plan(qIn, kIn, vIn, optionsIn) {
  const options = checkOptions(optionsIn);
  const q = toTensor(FN, 'q', qIn);
  const k = toTensor(FN, 'k', kIn);
  const v = toTensor(FN, 'v', vIn);
  const qm = splitMatrix('q', q, 'Lq', 'dk');
  const km = splitMatrix('k', k, 'Lk', 'dk');
  const vm = splitMatrix('v', v, 'Lk', 'dv');
  if (km.cols !== qm.cols) throw rangeError(FN, `k has ${km.cols} columns but q has ${qm.cols} (dk must match)`);
  if (vm.rows !== km.rows) throw rangeError(FN, `v has ${vm.rows} rows but k has ${km.rows} (one value per key)`);
  if (qm.cols === 0) throw rangeError(FN, 'q has 0 columns; dk must be at least 1');
  const group = options.enableGqa ? gqaGroup(qm.lead, km.lead, vm.lead) : 1;
  // With GQA, k and v broadcast as if they had q's head count; entries map head h to h / group.
  const asQHeads = (lead) => (group === 1 ? lead : [...lead.slice(0, -1), qm.lead.at(-1)]);
  const batch = broadcastShapes(FN, [['q', qm.lead], ['k', asQHeads(km.lead)], ['v', asQHeads(vm.lead)]]);
  const seqQ = qm.rows, seqK = km.rows, headDim = qm.cols, valueDim = vm.cols;
  const maskInput = options.keepMask === undefined || options.keepMask === null ? options.mask
    : keepMaskToMask(FN, options.keepMask, options.mask, batch, seqQ, seqK);
  const maskPlan = planMask(FN, maskInput, batch, seqQ, seqK);
  const keyLengths = checkKeyLengths(FN, options.keyLengths, batch, seqK);
  const out = checkOut(FN, options.out, [...batch, seqQ, valueDim]);  // last: no caller code runs after
  return {
    q, k, v, qm, km, vm, batch, group, seqQ, seqK, headDim, valueDim, maskPlan, keyLengths, out,
    causal: options.causal === true,
    causalOffset: causalOffset(FN, options.causalAlign, seqQ, seqK),
    scale: options.scale ?? 1 / Math.sqrt(headDim),
    trace: options.trace === true,
    weights: options.returnWeights === true || options.trace === true,
  };
}

// Per batch entry: offsets of q, k, v and the mask block, and the key limit.
function batchEntries(p) {
  const count = sizeOf(p.batch);
  const rank = p.batch.length;
  const pad = (lead) => [...new Array(rank - lead.length).fill(1), ...lead];
  const qs = broadcastStrides(pad(p.qm.lead), p.seqQ * p.headDim);
  const ks = broadcastStrides(pad(p.km.lead), p.seqK * p.headDim);
  const vs = broadcastStrides(pad(p.vm.lead), p.seqK * p.valueDim);

  const ms = p.maskPlan ? p.maskPlan.leadStrides : null;
  const entries = new Int32Array(count * ENTRY_COLUMNS);
  const index = new Array(rank).fill(0);
  for (let b = 0; b < count; b++) {
    let qo = 0, ko = 0, vo = 0, mo = 0;
    for (let a = 0; a < rank; a++) {
      // GQA: on the head axis (the last lead axis) k/v head = q head / group.
      const kvIndex = p.group > 1 && a === rank - 1 ? Math.floor(index[a] / p.group) : index[a];
      qo += index[a] * qs[a];
      ko += kvIndex * ks[a];
      vo += kvIndex * vs[a];
      if (ms) mo += index[a] * ms[a];
    }
    // Written by index: a subarray of a small typed array would move its data off the V8
    // heap, which costs tens of microseconds per call in Chromium.
    const row = b * ENTRY_COLUMNS;
    entries[row] = qo;
    entries[row + 1] = ko;
    entries[row + 2] = vo;
    entries[row + 3] = mo;
    entries[row + 4] = p.keyLengths ? p.keyLengths[rank > 0 ? index[0] : 0] : p.seqK;
    for (let a = rank - 1; a >= 0; a--) {  // next multi-index, last axis fastest
      if (++index[a] < p.batch[a]) break;
      index[a] = 0;
    }
  }
  return entries;
}

function emptyResult(p, outShape, weightShape) {
  const result = { output: { data: p.out ?? new Float32Array(sizeOf(outShape)), shape: outShape } };
  if (p.weights) result.weights = { data: new Float32Array(sizeOf(weightShape)), shape: weightShape };
  if (p.trace) {
    const stage = () => ({ data: new Float32Array(sizeOf(weightShape)), shape: weightShape.slice() });
    result.trace = { scores: stage(), scaledScores: stage(), maskedScores: stage(), weights: result.weights, output: result.output };
  }
  return result;
}

// The wasm memory of a planned call (empty when there is nothing to compute).
function memoryPlan(module, p) {
  const memory = new MemoryPlan(FN);
  const batchCount = sizeOf(p.batch);
  if (batchCount === 0 || p.seqQ === 0) return memory;
  const seen = new Set();
  for (const [name, t] of [['q', p.q], ['k', p.k], ['v', p.v]]) {
    if (!seen.has(t.data)) memory.tensor(name, t.shape);  // an array passed twice is copied once
    seen.add(t.data);
  }
  planMaskMemory(memory, p.maskPlan);
  memory.tensor('batch table', callBlockShape(batchCount));  // the call's slots lead it
  memory.tensor('output', [...p.batch, p.seqQ, p.valueDim]);
  const weightShape = [...p.batch, p.seqQ, p.seqK];
  if (p.weights) memory.tensor('weights', weightShape);
  if (p.trace) for (const stage of ['scores', 'scaled scores', 'masked scores']) memory.tensor(stage, weightShape);
  return memory.scratch('kernel workspace', () => module._attentionScratch(1, p.seqQ, p.seqK, p.headDim, p.valueDim, p.weights));
}

/**
 * Creates `attention` bound to one loaded module, and its memory estimate.
 * @param {object} module the Emscripten module
 */
export function makeAttention(module) {
  function attention(q, k, v, options) {
    const p = plan(q, k, v, options);
    const outShape = [...p.batch, p.seqQ, p.valueDim];
    const weightShape = [...p.batch, p.seqQ, p.seqK];
    const batchCount = sizeOf(p.batch);
    if (batchCount === 0 || p.seqQ === 0) return emptyResult(p, outShape, weightShape);
    checkBudget(module, memoryPlan(module, p));
    const heap = new HeapScope(module, FN);
    try {
      const weightCount = p.weights ? sizeOf(weightShape) : 0;
      const [qa, ka, va] = heap.floatsOnce([p.q.data, p.k.data, p.v.data]);
      const call = {
        q: qa, k: ka, v: va,
        ...(p.maskPlan ? writeMask(heap, p.maskPlan, p.seqK) : { mask: 0, allowed: 0 }),
        maskRowStride: p.maskPlan ? p.maskPlan.rowStride : 0,
        batch: batchCount, seqQ: p.seqQ, seqK: p.seqK, headDim: p.headDim, valueDim: p.valueDim,
        scale: p.scale, causal: p.causal, causalOffset: p.causalOffset,
        out: heap.alloc(sizeOf(outShape)),
        weights: p.weights ? heap.alloc(weightCount) : 0,
        rawScores: p.trace ? heap.alloc(weightCount) : 0,
        scaledScores: p.trace ? heap.alloc(weightCount) : 0,
        maskedScores: p.trace ? heap.alloc(weightCount) : 0,
      };
      const status = module._attention_run(writeCall(heap, call, batchEntries(p)));
      if (status !== 0) throw rangeError(FN, `the core rejected the call: ${module._statusMessage(status)}`);
      const output = { data: readOutput(heap, call.out, sizeOf(outShape), p.out), shape: outShape };
      const result = { output };
      if (p.weights) result.weights = { data: heap.read(call.weights, weightCount), shape: weightShape };
      if (p.trace) {
        const stage = (address) => ({ data: heap.read(address, weightCount), shape: weightShape.slice() });
        result.trace = {
          scores: stage(call.rawScores),
          scaledScores: stage(call.scaledScores),
          maskedScores: stage(call.maskedScores),
          weights: result.weights,
          output,
        };
      }
      return result;
    } finally {
      heap.release();
    }
  }
  const estimate = (q, k, v, options) => memoryPlan(module, plan(q, k, v, options));
  return { attention, estimate };
}
