// forward's `trace: { position }` option: one position's whole path through the model, as
// the runner computed it (src/model/trace.h lists the fields; the contract gives their
// numbers, the runner their places). Checked before anything is allocated; read out (copied)
// after the call. Shapes, with d = dModel, H = numHeads, Hkv = numKvHeads, hd = headDim,
// f = dFF, T = the sequence's length, V = vocabSize:
//   { position, id, embedding [d], tokenEmbedding [d], positionEmbedding [d] | null, layers: [{ norm1 [d], query [H, hd], keys [Hkv, T, hd],
//     values [Hkv, T, hd], scores [H, T], maskedScores [H, T], weights [H, T], heads [H, hd],
//     attentionOutput [d], attentionResidual [d], norm2 [d], mlpPre [f], mlpUp [f] | null,
//     mlpHidden [f], mlpOutput [d], residual [d] }], final [d], logits [V] | null }
import { typeError, rangeError, describe } from '../errors.js';
import { checkKeys } from '../checks.js';
import { tensor as makeTensor } from '../tensor.js';
import { contractOf } from '../contract.js';

/** options.trace → { position } (an integer ≥ 0), or undefined when absent. */
export function checkTraceOption(fn, trace) {
  if (trace === undefined) return undefined;
  if (trace === null || typeof trace !== 'object' || Array.isArray(trace))
    throw typeError(fn, `options.trace must be an object { position }, got ${describe(trace)}`);
  checkKeys(fn, 'options.trace key', trace, ['position']);
  const { position } = trace;
  if (typeof position !== 'number')
    throw typeError(
      fn,
      `options.trace.position must be a number (a position of the sequence), got ${describe(position)}`,
    );
  if (!Number.isInteger(position) || position < 0)
    throw rangeError(fn, `options.trace.position must be an integer >= 0, got ${describe(position)}`);
  return { position };
}

/** The checked batch can be traced at trace.position: one sequence, the position a real token. */
export function checkTracePosition(fn, trace, batch) {
  if (batch.B !== 1)
    throw rangeError(fn, `options.trace follows one sequence; the input has ${batch.B} (pass one text or one id list)`);
  if (batch.pads)
    throw rangeError(fn, 'options.trace follows a sequence without left padding (pass it without its attentionMask)');
  const length = batch.lengths[0];
  if (trace.position >= length)
    throw rangeError(
      fn,
      `options.trace.position must be in [0, ${length}) (the sequence's tokens), got ${trace.position}`,
    );
}

// [T, heads · hd] → [heads, T, hd].
function headsFirst(data, T, heads, hd) {
  const out = new Float32Array(data.length);
  for (let t = 0; t < T; t++)
    for (let h = 0; h < heads; h++)
      out.set(data.subarray((t * heads + h) * hd, (t * heads + h + 1) * hd), (h * T + t) * hd);
  return makeTensor(out, [heads, T, hd]);
}

/**
 * The trace of a forward call that ran with it (before the runner's outputs are released).
 * @param {object} d the model's descriptor   @param {object} batch the checked batch
 */
export function readTrace(module, handle, scope, d, batch, position, flags) {
  const fields = contractOf(module).traceFields;
  const T = batch.T;
  const read = (field, layer, shape) => {
    const count = shape.reduce((a, b) => a * b, 1);
    return makeTensor(scope.read(module._pretrainedTrace(handle, fields[field], layer, T), count), shape);
  };
  const { dModel: dm, numHeads: H, numKvHeads: Hkv, headDim: hd, dFF: f } = d;
  const layers = Array.from({ length: d.numLayers }, (_, l) => ({
    norm1: read('norm1', l, [dm]),
    query: read('query', l, [H, hd]),
    keys: headsFirst(read('keys', l, [T, Hkv * hd]).data, T, Hkv, hd),
    values: headsFirst(read('values', l, [T, Hkv * hd]).data, T, Hkv, hd),
    scores: read('scores', l, [H, T]),
    maskedScores: read('maskedScores', l, [H, T]),
    weights: read('weights', l, [H, T]),
    heads: read('heads', l, [H, hd]),
    attentionOutput: read('attentionOut', l, [dm]),
    attentionResidual: read('attentionResidual', l, [dm]),
    norm2: read('norm2', l, [dm]),
    mlpPre: read('mlpPre', l, [f]),
    mlpUp: d.gatedFfn ? read('mlpUp', l, [f]) : null,
    mlpHidden: read('mlpHidden', l, [f]),
    mlpOutput: read('mlpOut', l, [dm]),
    residual: read('residual', l, [dm]),
  }));
  const withLogits = (flags & contractOf(module).forwardFlags.logits) !== 0;
  return {
    position,
    id: batch.idRows[0][position],
    embedding: read('embedding', 0, [dm]),
    tokenEmbedding: read('tokenEmbedding', 0, [dm]),
    positionEmbedding: d.maxPositions > 0 ? read('positionEmbedding', 0, [dm]) : null,
    layers,
    final: read('final', 0, [dm]),
    logits: withLogits ? read('logits', 0, [d.vocabSize]) : null,
  };
}
