// attn.attention(q, k, v, options): scaled dot-product attention with the semantics of
// PyTorch's scaled_dot_product_attention. Step 1 checks everything and builds a plan
// (no wasm memory touched); step 2 copies in, runs the core, copies out.
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf, broadcastShapes, intact, copyRows } from './tensor.js';
import { planMask, planMaskMemory, writeMask, checkKeyLengths, keepMaskToMask } from './masks.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys, causalRule, checkSoftcap, checkWindow, checkDropout } from './checks.js';
import { checkOut, readOutput } from './out.js';
import { ENTRY_COLUMNS, callBlockShape, writeCall } from './attention_call.js';

const FN = 'attention';
const OPTIONS = [
  'mask',
  'keepMask',
  'causal',
  'causalAlign',
  'window',
  'scale',
  'softcap',
  'dropout',
  'keyLengths',
  'enableGqa',
  'layout',
  'pastKey',
  'pastValue',
  'returnWeights',
  'trace',
  'out',
];
const BOOLEAN_OPTIONS = ['causal', 'enableGqa', 'returnWeights', 'trace'];
const LAYOUTS = ['bhsd', 'bshd'];

function checkOptions(optionsIn) {
  const options = checkKeys(FN, 'option', optionsIn, OPTIONS, BOOLEAN_OPTIONS);
  const causal = causalRule(FN, options.causalAlign); // type and value, before the tensors
  if (options.scale !== undefined) {
    if (typeof options.scale !== 'number')
      throw typeError(FN, `options.scale must be a number, got ${describe(options.scale)}`);
    if (!Number.isFinite(options.scale)) throw rangeError(FN, `options.scale must be finite, got ${options.scale}`);
  }
  const softcap = checkSoftcap(FN, options.softcap);
  const window = checkWindow(FN, options.window);
  const dropout = checkDropout(FN, options.dropout);
  const layout = options.layout ?? 'bhsd';
  if (!LAYOUTS.includes(layout)) {
    const message = `options.layout must be 'bhsd' ([..., L, d]) or 'bshd' ([..., L, heads, d]), got`;
    if (typeof layout !== 'string') throw typeError(FN, `${message} ${describe(layout)}`);
    throw rangeError(FN, `${message} '${layout}'`);
  }
  if (
    (options.pastKey === undefined || options.pastKey === null) !==
    (options.pastValue === undefined || options.pastValue === null)
  ) {
    throw typeError(FN, 'options.pastKey and options.pastValue go together: pass both or neither');
  }
  return { options, causal, softcap, window, dropout, layout };
}

// Product of dims[from ..].
const product = (dims, from = 0) => dims.slice(from).reduce((n, d) => n * d, 1);

/**
 * Splits a tensor into the matrices of its heads, naming it in errors:
 *   'bhsd': [..., rows, cols], each leading index one matrix of contiguous rows;
 *   'bshd': [..., rows, heads, cols], the head axis after the rows (a projection's output
 *           [.., L, heads·d] reshaped): leading dims [..., heads], rows heads·cols apart.
 * Returns { lead, rows, cols, rowStride, strides } with strides[a] the elements between
 * consecutive indices of lead axis a.
 */
function splitMatrix(name, t, rowsName, colsName, layout) {
  const n = t.shape.length;
  if (layout === 'bshd') {
    if (n < 3)
      throw rangeError(
        FN,
        `${name} must have shape [..., ${rowsName}, heads, ${colsName}] with layout 'bshd', got ${formatShape(t.shape)}`,
      );
    const outer = t.shape.slice(0, n - 3);
    const [rows, heads, cols] = t.shape.slice(n - 3);
    const strides = outer.map((_, a) => product(outer, a + 1) * rows * heads * cols);
    return { lead: [...outer, heads], rows, cols, rowStride: heads * cols, strides: [...strides, cols] };
  }
  if (n < 2)
    throw rangeError(FN, `${name} must have shape [..., ${rowsName}, ${colsName}], got ${formatShape(t.shape)}`);
  const lead = t.shape.slice(0, n - 2);
  const [rows, cols] = t.shape.slice(n - 2);
  return { lead, rows, cols, rowStride: cols, strides: lead.map((_, a) => product(lead, a + 1) * rows * cols) };
}

// A matrix's strides for the broadcast batch of rank `rank` (axes of size 1 read index 0).
function batchStrides(m, rank) {
  const pad = rank - m.lead.length;
  return Array.from({ length: rank }, (_, a) => (a < pad || m.lead[a - pad] === 1 ? 0 : m.strides[a - pad]));
}

// Grouped-query attention (PyTorch's enable_gqa): the head axis (the one before [L, d]) of
// k and v may be a divisor of q's; q head h then reads k/v head floor(h / group).
function gqaGroup(qLead, kLead, vLead) {
  if (qLead.length < 1 || kLead.length < 1 || vLead.length < 1) {
    throw rangeError(FN, 'enableGqa needs a head axis: q, k, v of shape [..., heads, L, d]');
  }
  const hq = qLead.at(-1),
    hk = kLead.at(-1),
    hv = vLead.at(-1);
  if (hk !== hv) throw rangeError(FN, `enableGqa: k has ${hk} heads but v has ${hv}`);
  if (hk === 0 || hq % hk !== 0) throw rangeError(FN, `enableGqa: q's ${hq} heads must be a multiple of k's ${hk}`);
  return hq / hk;
}

const sameDims = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// The cache of an incremental call (ONNX Attention's past_key / past_value): [...lead, past,
// d] with k's (and v's) own leading dims in the 'bhsd' layout whatever options.layout is.
function planPast(options, km, vm) {
  if (options.pastKey === undefined || options.pastKey === null) return null;
  const key = toTensor(FN, 'options.pastKey', options.pastKey);
  const value = toTensor(FN, 'options.pastValue', options.pastValue);
  const expect = (t, name, m) => {
    const want = `[${[...m.lead, 'past', m.cols].join(', ')}]`;
    if (t.shape.length !== m.lead.length + 2 || !sameDims(t.shape.slice(0, -2), m.lead) || t.shape.at(-1) !== m.cols) {
      throw rangeError(
        FN,
        `options.${name} must have shape ${want} (the cache of ${name === 'pastKey' ? 'k' : 'v'}, heads before positions), got ${formatShape(t.shape)}`,
      );
    }
  };
  expect(key, 'pastKey', km);
  expect(value, 'pastValue', vm);
  const length = key.shape.at(-2);
  if (value.shape.at(-2) !== length)
    throw rangeError(FN, `options.pastKey holds ${length} positions but options.pastValue ${value.shape.at(-2)}`);
  return { key, value, length };
}

// Step 1: everything the call needs, checked; no wasm memory is touched here.
function plan(qIn, kIn, vIn, optionsIn) {
  const { options, causal, softcap, window, dropout, layout } = checkOptions(optionsIn);
  const q = toTensor(FN, 'q', qIn);
  const k = toTensor(FN, 'k', kIn);
  const v = toTensor(FN, 'v', vIn);
  const qm = splitMatrix('q', q, 'Lq', 'dk', layout);
  const km = splitMatrix('k', k, 'Lk', 'dk', layout);
  const vm = splitMatrix('v', v, 'Lk', 'dv', layout);
  if (km.cols !== qm.cols) throw rangeError(FN, `k has ${km.cols} columns but q has ${qm.cols} (dk must match)`);
  if (vm.rows !== km.rows) throw rangeError(FN, `v has ${vm.rows} rows but k has ${km.rows} (one value per key)`);
  if (qm.cols === 0) throw rangeError(FN, 'q has 0 columns; dk must be at least 1');
  const group = options.enableGqa ? gqaGroup(qm.lead, km.lead, vm.lead) : 1;
  const past = planPast(options, km, vm);
  // With GQA, k and v broadcast as if they had q's head count; entries map head h to h / group.
  const asQHeads = (lead) => (group === 1 ? lead : [...lead.slice(0, -1), qm.lead.at(-1)]);
  const batch = broadcastShapes(FN, [
    ['q', qm.lead],
    ['k', asQHeads(km.lead)],
    ['v', asQHeads(vm.lead)],
  ]);
  const seqQ = qm.rows,
    headDim = qm.cols,
    valueDim = vm.cols;
  const pastLength = past ? past.length : 0;
  const seqK = pastLength + km.rows; // every key: the cache's, then the new ones
  const maskInput =
    options.keepMask === undefined || options.keepMask === null
      ? options.mask
      : keepMaskToMask(FN, options.keepMask, options.mask, batch, seqQ, seqK);
  const keyLengths = checkKeyLengths(FN, options.keyLengths, batch, seqK);
  const validKeys = keyLengths ? Math.max(0, ...keyLengths) : seqK;
  const maskPlan = planMask(FN, maskInput, batch, seqQ, seqK, 'mask', { validKeys });
  const outShape =
    layout === 'bshd' ? [...batch.slice(0, -1), seqQ, batch.at(-1), valueDim] : [...batch, seqQ, valueDim];
  const out = checkOut(FN, options.out, outShape); // last: no caller code runs after
  return {
    q,
    k,
    v,
    qm,
    km,
    vm,
    batch,
    group,
    seqQ,
    seqK,
    headDim,
    valueDim,
    maskPlan,
    keyLengths,
    out,
    outShape,
    layout,
    past,
    pastLength,
    softcap,
    window,
    dropout,
    keys: keyMatrices(past, km, vm, seqK),
    causal: options.causal === true,
    causalOffsetOf: (keyLength) => causal(seqQ, seqK, pastLength, keyLength),
    scale: options.scale ?? 1 / Math.sqrt(headDim),
    trace: options.trace === true,
    weights: options.returnWeights === true || options.trace === true,
  };
}

// The keys and values as the core reads them: with a cache, present = [past, new] per head,
// contiguous ([...lead, seqK, d]); without one, the caller's tensors as they are.
function keyMatrices(past, km, vm, seqK) {
  if (!past) return { km, vm };
  const contiguous = (m) => ({
    ...m,
    rows: seqK,
    rowStride: m.cols,
    strides: m.lead.map((_, a) => product(m.lead, a + 1) * seqK * m.cols),
  });
  return { km: contiguous(km), vm: contiguous(vm) };
}

// Per batch entry: offsets of q, k, v and the mask block, the key limit and the causal offset.
function batchEntries(p) {
  const count = sizeOf(p.batch);
  const rank = p.batch.length;
  const qs = batchStrides(p.qm, rank),
    ks = batchStrides(p.keys.km, rank),
    vs = batchStrides(p.keys.vm, rank);
  const ms = p.maskPlan ? p.maskPlan.leadStrides : null;
  const entries = new Int32Array(count * ENTRY_COLUMNS);
  const index = new Array(rank).fill(0);
  for (let b = 0; b < count; b++) {
    let qo = 0,
      ko = 0,
      vo = 0,
      mo = 0;
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
    const keyLimit = p.keyLengths ? p.keyLengths[rank > 0 ? index[0] : 0] : p.seqK;
    entries[row] = qo;
    entries[row + 1] = ko;
    entries[row + 2] = vo;
    entries[row + 3] = mo;
    entries[row + 4] = keyLimit;
    entries[row + 5] = p.causalOffsetOf(keyLimit);
    for (let a = rank - 1; a >= 0; a--) {
      // next multi-index, last axis fastest
      if (++index[a] < p.batch[a]) break;
      index[a] = 0;
    }
  }
  return entries;
}

// Where each entry's output starts in the 'bshd' output [..., Lq, heads, dv].
function bshdOutOffsets(p) {
  const heads = p.batch.at(-1);
  const count = sizeOf(p.batch);
  const offsets = new Int32Array(count);
  for (let b = 0; b < count; b++) {
    offsets[b] = Math.floor(b / heads) * p.seqQ * heads * p.valueDim + (b % heads) * p.valueDim;
  }
  return offsets;
}

// Copies [past, new] of every head into `target` ([...lead, seqK, d]): the present cache.
//   past: [...lead, P, d]  m: the new rows' split (any layout)  data: their values
function writePresent(target, past, m, data) {
  const heads = sizeOf(m.lead),
    d = m.cols,
    P = past.shape.at(-2),
    T = P + m.rows;
  const leadIndex = new Array(m.lead.length).fill(0);
  for (let h = 0; h < heads; h++) {
    target.set(past.data.subarray(h * P * d, (h + 1) * P * d), h * T * d);
    let start = 0;
    for (let a = 0; a < m.lead.length; a++) start += leadIndex[a] * m.strides[a];
    copyRows(target, h * T * d + P * d, data, start, m.rows, m.rowStride, d);
    for (let a = m.lead.length - 1; a >= 0; a--) {
      if (++leadIndex[a] < m.lead[a]) break;
      leadIndex[a] = 0;
    }
  }
}

function emptyResult(p, weightShape) {
  const result = { output: { data: p.out ?? new Float32Array(sizeOf(p.outShape)), shape: p.outShape } };
  addStages(result, p, weightShape, () => new Float32Array(sizeOf(weightShape)));
  if (p.past) Object.assign(result, presentWithoutCall(p));
  return result;
}

// The weights, the trace's stages and the dropout's fields of a result (each only when the
// call asked for it); read(slot) gives the values of the call slot `slot`: from the heap after
// a call, zeros when nothing was computed.
function addStages(result, p, weightShape, read) {
  const tensor = (slot) => ({ data: read(slot), shape: weightShape.slice() });
  const dropped = p.dropout.p > 0;
  if (dropped) result.dropoutSeed = p.dropout.seed;
  if (!p.weights) return;
  result.weights = tensor('weights');
  if (dropped) result.droppedWeights = tensor('droppedWeights');
  if (!p.trace) return;
  const trace = { scores: tensor('rawScores'), scaledScores: tensor('scaledScores') };
  if (p.softcap > 0) trace.cappedScores = tensor('cappedScores');
  trace.maskedScores = tensor('maskedScores');
  trace.weights = result.weights;
  if (dropped) trace.droppedWeights = result.droppedWeights;
  trace.output = result.output;
  result.trace = trace;
}

// presentKey / presentValue when nothing is computed (no queries): the cache and the new rows.
function presentWithoutCall(p) {
  for (const data of [p.k.data, p.v.data, p.past.key.data, p.past.value.data]) intact(FN, data); // as writeInputs
  const present = (past, m, data) => {
    const shape = [...m.lead, p.seqK, m.cols];
    const out = new Float32Array(sizeOf(shape));
    writePresent(out, past, m, data);
    return { data: out, shape };
  };
  return { presentKey: present(p.past.key, p.km, p.k.data), presentValue: present(p.past.value, p.vm, p.v.data) };
}

// The wasm memory of a planned call (empty when there is nothing to compute).
function memoryPlan(module, p) {
  const memory = new MemoryPlan(FN);
  const batchCount = sizeOf(p.batch);
  if (batchCount === 0 || p.seqQ === 0) return memory;
  const seen = new Set();
  for (const [name, t] of p.past
    ? [['q', p.q]]
    : [
        ['q', p.q],
        ['k', p.k],
        ['v', p.v],
      ]) {
    if (!seen.has(t.data)) memory.tensor(name, t.shape); // an array passed twice is copied once
    seen.add(t.data);
  }
  if (p.past) {
    // the new keys and values go straight into the present cache
    memory.tensor('present keys', [...p.km.lead, p.seqK, p.headDim]);
    memory.tensor('present values', [...p.vm.lead, p.seqK, p.valueDim]);
  }
  planMaskMemory(memory, p.maskPlan);
  memory.tensor('batch table', callBlockShape(module, batchCount)); // the call's slots lead it
  if (p.layout === 'bshd') memory.tensor('output offsets', [batchCount]);
  memory.tensor('output', p.outShape);
  const weightShape = [...p.batch, p.seqQ, p.seqK];
  if (p.weights) memory.tensor('weights', weightShape);
  if (p.weights && p.dropout.p > 0) memory.tensor('dropped weights', weightShape);
  if (p.trace) {
    for (const stage of ['scores', 'scaled scores', ...(p.softcap > 0 ? ['capped scores'] : []), 'masked scores'])
      memory.tensor(stage, weightShape);
  }
  return memory.scratch('kernel workspace', () =>
    module._attentionScratch(1, p.seqQ, p.seqK, p.headDim, p.valueDim, p.weights),
  );
}

// Copies q, k and v in: { q, k, v } addresses (k and v: the present cache with one).
function writeInputs(heap, p) {
  if (!p.past) {
    const [q, k, v] = heap.floatsOnce([p.q.data, p.k.data, p.v.data]);
    return { q, k, v };
  }
  const q = heap.floats(p.q.data);
  const k = heap.alloc(sizeOf(p.km.lead) * p.seqK * p.headDim);
  const v = heap.alloc(sizeOf(p.vm.lead) * p.seqK * p.valueDim);
  for (const data of [p.k.data, p.v.data, p.past.key.data, p.past.value.data]) intact(FN, data);
  writePresent(heap.view(k, sizeOf(p.km.lead) * p.seqK * p.headDim), p.past.key, p.km, p.k.data);
  writePresent(heap.view(v, sizeOf(p.vm.lead) * p.seqK * p.valueDim), p.past.value, p.vm, p.v.data);
  return { q, k, v };
}

/**
 * Creates `attention` bound to one loaded module, and its memory estimate.
 * @param {object} module the Emscripten module
 */
export function makeAttention(module) {
  function attention(q, k, v, options) {
    const p = plan(q, k, v, options);
    const weightShape = [...p.batch, p.seqQ, p.seqK];
    const batchCount = sizeOf(p.batch);
    if (batchCount === 0 || p.seqQ === 0) return emptyResult(p, weightShape);
    checkBudget(module, memoryPlan(module, p));
    const heap = new HeapScope(module, FN);
    try {
      const weightCount = p.weights ? sizeOf(weightShape) : 0;
      const inputs = writeInputs(heap, p);
      const { km, vm } = p.keys;
      const bshd = p.layout === 'bshd';
      // Plain properties: an object spread here cost ~45 µs a call in Node 20 (a slow path).
      const { mask, allowed } = p.maskPlan ? writeMask(heap, p.maskPlan, p.seqK) : { mask: 0, allowed: 0 };
      const call = {
        q: inputs.q,
        k: inputs.k,
        v: inputs.v,
        mask,
        allowed,
        maskRowStride: p.maskPlan ? p.maskPlan.rowStride : 0,
        batch: batchCount,
        seqQ: p.seqQ,
        seqK: p.seqK,
        headDim: p.headDim,
        valueDim: p.valueDim,
        scale: p.scale,
        softcap: p.softcap,
        causal: p.causal,
        windowLeft: p.window.left,
        windowRight: p.window.right,
        dropout: p.dropout.p,
        dropoutSeed: p.dropout.seed,
        qStride: p.qm.rowStride,
        kStride: km.rowStride,
        vStride: vm.rowStride,
        outStride: bshd ? p.batch.at(-1) * p.valueDim : 0,
        outOffsets: bshd ? heap.ints(bshdOutOffsets(p)) : 0,
        out: heap.alloc(sizeOf(p.outShape)),
        weights: p.weights ? heap.alloc(weightCount) : 0,
        rawScores: p.trace ? heap.alloc(weightCount) : 0,
        scaledScores: p.trace ? heap.alloc(weightCount) : 0,
        cappedScores: p.trace && p.softcap > 0 ? heap.alloc(weightCount) : 0,
        maskedScores: p.trace ? heap.alloc(weightCount) : 0,
        droppedWeights: p.weights && p.dropout.p > 0 ? heap.alloc(weightCount) : 0,
      };
      const status = module._attention_run(writeCall(heap, call, batchEntries(p)));
      if (status !== 0) throw rangeError(FN, `the core rejected the call: ${module._statusMessage(status)}`);
      const output = { data: readOutput(heap, call.out, sizeOf(p.outShape), p.out), shape: p.outShape };
      const result = { output };
      addStages(result, p, weightShape, (slot) => heap.read(call[slot], weightCount));
      if (p.past) {
        const present = (address, m) => {
          const shape = [...m.lead, p.seqK, m.cols];
          return { data: heap.read(address, sizeOf(shape)), shape };
        };
        result.presentKey = present(call.k, p.km);
        result.presentValue = present(call.v, p.vm);
      }
      return result;
    } finally {
      heap.release();
    }
  }
  const estimate = (q, k, v, options) => memoryPlan(module, plan(q, k, v, options));
  return { attention, estimate };
}
