// attn.attentionBackward(q, k, v, dOut, options): the gradients of attention, the first step
// of training in the browser (issue 10). Same masks, causal rule, scale and key lengths as
// attention(); q, k, v and dOut share their leading dims (no broadcasting: a broadcast input's
// gradient would be a sum over the entries that share it), except grouped-query heads with
// enableGqa, whose dk and dv sum over each group. Checks first, then one wasm call.
import { typeError, rangeError, describe } from './errors.js';
import { toTensor, formatShape, sizeOf } from './tensor.js';
import { planMask, planMaskMemory, writeMask, checkKeyLengths } from './masks.js';
import { HeapScope } from './heap.js';
import { MemoryPlan, checkBudget } from './memory.js';
import { checkKeys, causalRule, checkSoftcap, checkWindow, checkDropout } from './checks.js';
import { ENTRY_COLUMNS, callBlockShape, writeCall } from './attention_call.js';

const FN = 'attentionBackward';
const OPTIONS = ['mask', 'causal', 'causalAlign', 'window', 'scale', 'softcap', 'dropout', 'keyLengths', 'enableGqa'];

// [..., rows, cols] of a named tensor.
function split(name, t, rowsName, colsName) {
  if (t.shape.length < 2)
    throw rangeError(FN, `${name} must have shape [..., ${rowsName}, ${colsName}], got ${formatShape(t.shape)}`);
  return { lead: t.shape.slice(0, -2), rows: t.shape.at(-2), cols: t.shape.at(-1) };
}

const sameDims = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function plan(qIn, kIn, vIn, dOutIn, optionsIn) {
  const options = checkKeys(FN, 'option', optionsIn, OPTIONS, ['causal', 'enableGqa']);
  const causal = causalRule(FN, options.causalAlign);
  const softcap = checkSoftcap(FN, options.softcap);
  const window = checkWindow(FN, options.window);
  const dropout = checkDropout(FN, options.dropout, true); // the forward's seed, given back
  if (options.scale !== undefined && typeof options.scale !== 'number')
    throw typeError(FN, `options.scale must be a number, got ${describe(options.scale)}`);
  if (options.scale !== undefined && !Number.isFinite(options.scale))
    throw rangeError(FN, `options.scale must be finite, got ${options.scale}`);
  const q = toTensor(FN, 'q', qIn),
    k = toTensor(FN, 'k', kIn),
    v = toTensor(FN, 'v', vIn),
    dOut = toTensor(FN, 'dOut', dOutIn);
  const qm = split('q', q, 'Lq', 'dk'),
    km = split('k', k, 'Lk', 'dk'),
    vm = split('v', v, 'Lk', 'dv'),
    om = split('dOut', dOut, 'Lq', 'dv');
  if (km.cols !== qm.cols) throw rangeError(FN, `k has ${km.cols} columns but q has ${qm.cols} (dk must match)`);
  if (vm.rows !== km.rows) throw rangeError(FN, `v has ${vm.rows} rows but k has ${km.rows} (one value per key)`);
  if (qm.cols === 0) throw rangeError(FN, 'q has 0 columns; dk must be at least 1');
  // Grouped-query attention: k and v have fewer heads (the last leading axis), each shared by
  // `group` query heads; their gradients sum over the group. Otherwise no broadcasting.
  let group = 1;
  if (options.enableGqa) {
    if (qm.lead.length === 0) throw rangeError(FN, 'enableGqa needs a head axis: q, k, v of shape [..., heads, L, d]');
    const hq = qm.lead.at(-1),
      hk = km.lead.at(-1);
    if (!sameDims(km.lead, vm.lead))
      throw rangeError(FN, `enableGqa: v has leading dims ${formatShape(vm.lead)} but k has ${formatShape(km.lead)}`);
    if (!sameDims(km.lead.slice(0, -1), qm.lead.slice(0, -1)) || hk === 0 || hq % hk !== 0) {
      throw rangeError(
        FN,
        `enableGqa: k's leading dims ${formatShape(km.lead)} must be q's ${formatShape(qm.lead)} with a head count that divides ${hq}`,
      );
    }
    group = hq / hk;
  }
  for (const [name, m] of group > 1
    ? [['dOut', om]]
    : [
        ['k', km],
        ['v', vm],
        ['dOut', om],
      ]) {
    if (!sameDims(m.lead, qm.lead)) {
      throw rangeError(
        FN,
        `${name} has leading dims ${formatShape(m.lead)} but q has ${formatShape(qm.lead)} (the backward does not broadcast${group > 1 ? '' : '; grouped heads need enableGqa'})`,
      );
    }
  }
  if (om.rows !== qm.rows || om.cols !== vm.cols) {
    throw rangeError(
      FN,
      `dOut must have shape ${formatShape([...qm.lead, qm.rows, vm.cols])} (the output's), got ${formatShape(dOut.shape)}`,
    );
  }
  const batch = qm.lead;
  const seqQ = qm.rows,
    seqK = km.rows,
    headDim = qm.cols,
    valueDim = vm.cols;
  return {
    q,
    k,
    v,
    dOut,
    batch,
    seqQ,
    seqK,
    headDim,
    valueDim,
    group,
    maskPlan: planMask(FN, options.mask, batch, seqQ, seqK),
    keyLengths: checkKeyLengths(FN, options.keyLengths, batch, seqK),
    causal: options.causal === true,
    causalOffsetOf: (keyLength) => causal(seqQ, seqK, 0, keyLength),
    scale: options.scale ?? 1 / Math.sqrt(headDim),
    softcap,
    window,
    dropout,
  };
}

function memoryPlan(module, p) {
  const memory = new MemoryPlan(FN);
  const count = sizeOf(p.batch);
  if (count === 0 || p.seqQ === 0) return memory;
  for (const name of ['q', 'k', 'v', 'dOut']) memory.tensor(name, p[name].shape);
  planMaskMemory(memory, p.maskPlan);
  memory.tensor('batch table', callBlockShape(module, count)); // the call's slots lead it
  memory.tensor('dq', p.q.shape);
  memory.tensor('dk', p.k.shape);
  memory.tensor('dv', p.v.shape);
  return memory.scratch('kernel workspace', () => 4 * (2 * Math.max(1, p.seqK) + Math.max(1, p.valueDim)));
}

// Entry b: q, k, v at b·(their block), the mask block from the mask plan, the key limit.
function batchEntries(p) {
  const count = sizeOf(p.batch);
  const entries = new Int32Array(count * ENTRY_COLUMNS);
  const rank = p.batch.length;
  const ms = p.maskPlan ? p.maskPlan.leadStrides : null;
  const index = new Array(rank).fill(0);
  for (let b = 0; b < count; b++) {
    let mo = 0;
    if (ms) for (let a = 0; a < rank; a++) mo += index[a] * ms[a];
    const row = b * ENTRY_COLUMNS;
    // GQA: query head h reads k/v head h / group (entries b share them; dk, dv accumulate).
    const kv =
      p.group > 1
        ? Math.floor(b / p.batch.at(-1)) * (p.batch.at(-1) / p.group) + Math.floor((b % p.batch.at(-1)) / p.group)
        : b;
    entries[row] = b * p.seqQ * p.headDim;
    entries[row + 1] = kv * p.seqK * p.headDim;
    entries[row + 2] = kv * p.seqK * p.valueDim;
    entries[row + 3] = mo;
    entries[row + 4] = p.keyLengths ? p.keyLengths[rank > 0 ? index[0] : 0] : p.seqK;
    entries[row + 5] = p.causalOffsetOf(entries[row + 4]);
    for (let a = rank - 1; a >= 0; a--) {
      if (++index[a] < p.batch[a]) break;
      index[a] = 0;
    }
  }
  return entries;
}

/** attentionBackward bound to one loaded module, and its memory estimate. */
export function makeAttentionBackward(module) {
  function attentionBackward(q, k, v, dOut, options) {
    const p = plan(q, k, v, dOut, options);
    const zeros = (t) => ({ data: new Float32Array(sizeOf(t.shape)), shape: t.shape.slice() });
    if (sizeOf(p.batch) === 0 || p.seqQ === 0) return { dq: zeros(p.q), dk: zeros(p.k), dv: zeros(p.v) };
    checkBudget(module, memoryPlan(module, p));
    const heap = new HeapScope(module, FN);
    try {
      const [qa, ka, va, oa] = heap.floatsOnce([p.q.data, p.k.data, p.v.data, p.dOut.data]);
      // Plain properties, as attention() (a spread inside the literal takes V8's slow path).
      const { mask, allowed } = p.maskPlan ? writeMask(heap, p.maskPlan, p.seqK) : { mask: 0, allowed: 0 };
      const call = {
        q: qa,
        k: ka,
        v: va,
        mask,
        allowed,
        maskRowStride: p.maskPlan ? p.maskPlan.rowStride : 0,
        batch: sizeOf(p.batch),
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
      };
      const dq = heap.alloc(sizeOf(p.q.shape)),
        dk = heap.alloc(sizeOf(p.k.shape)),
        dv = heap.alloc(sizeOf(p.v.shape));
      const status = module._attention_backward_run(writeCall(heap, call, batchEntries(p)), oa, dq, dk, dv);
      if (status !== 0) throw rangeError(FN, `the core rejected the call: ${module._statusMessage(status)}`);
      return {
        dq: { data: heap.read(dq, sizeOf(p.q.shape)), shape: p.q.shape.slice() },
        dk: { data: heap.read(dk, sizeOf(p.k.shape)), shape: p.k.shape.slice() },
        dv: { data: heap.read(dv, sizeOf(p.v.shape)), shape: p.v.shape.slice() },
      };
    } finally {
      heap.release();
    }
  }
  return { attentionBackward, estimate: (q, k, v, dOut, options) => memoryPlan(module, plan(q, k, v, dOut, options)) };
}
