// The q8 form of a float ONNX graph, as onnxruntime's quantize_dynamic writes it and as
// transformers.js ships it (model_quantized.onnx, its default on the wasm device; its
// scripts/quantize.py: IntegerOps mode, weights QInt8 for a graph without Conv, activations
// QUInt8, per-tensor, no reduced range, MatMulConstBOnly). Applied to the node and initializer
// lists of a graph before it is encoded:
//   MatMul(x, W) with W a float initializer →
//     DynamicQuantizeLinear(x) → x_q (uint8), x_scale, x_zero_point   (at run time)
//     MatMulInteger(x_q, W_q, x_zero_point, W_zero_point) → int32
//     Cast(float) · (x_scale · W_scale)
//   W_q: int8, symmetric (zero point 0, scale max|W| / 127), one scale for the whole matrix.
//   Gather(E, ids) with E a float initializer (an embedding table) →
//     Gather(E_q, ids) → DequantizeLinear(·, E_scale, E_zero_point)
//   E_q: uint8, asymmetric over [min(E, 0), max(E, 0)] (quantize_dynamic treats the table as
//   an activation, which is uint8).
// onnxruntime's graph optimizer fuses the MatMul group into DynamicQuantizeMatMul, as it does
// for transformers.js's files.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const { FLOAT, INT8, UINT8 } = onnx.TensorProto.DataType;

const tensor = (name, dims, dataType, bytes) => onnx.TensorProto.create({ name, dims, dataType, rawData: bytes });
const scalarFloat = (name, value) => tensor(name, [], FLOAT, new Uint8Array(Float32Array.of(value).buffer));
const node = (opType, input, output, attribute = []) => onnx.NodeProto.create({ opType, input, output, attribute });

function floatsOf(init) {
  const raw = init.rawData;
  return new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
}

// The prefill and decode graphs are built from the same weight arrays: each array is
// quantized once per quantizer (keyed by its buffer: one per weight array in
// bench/model-cases.js).
const cache = new Map();
function once(init, quantize) {
  const { buffer, byteOffset, byteLength } = init.rawData;
  if (byteOffset !== 0 || byteLength !== buffer.byteLength) return quantize(floatsOf(init));
  if (!cache.has(quantize)) cache.set(quantize, new WeakMap());
  const done = cache.get(quantize);
  if (!done.has(buffer)) done.set(buffer, quantize(floatsOf(init)));
  return done.get(buffer);
}

/** int8, symmetric, per tensor: { codes (Int8Array), scale } with w ≈ codes · scale. */
export function quantizeWeight(w) {
  let max = 0;
  for (let i = 0; i < w.length; i++) max = Math.max(max, Math.abs(w[i]));
  const scale = max > 0 ? max / 127 : 1;
  const codes = new Int8Array(w.length);
  // Math.round rounds halves up; numpy's rint (onnxruntime's quantizer) rounds them to even.
  // A weight exactly halfway between two codes does not occur in float data of this kind.
  for (let i = 0; i < w.length; i++) codes[i] = Math.max(-127, Math.min(127, Math.round(w[i] / scale)));
  return { codes, scale };
}

/** uint8, asymmetric over a range that includes 0: { codes (Uint8Array), scale, zeroPoint }. */
export function quantizeTable(e) {
  let lo = 0,
    hi = 0;
  for (let i = 0; i < e.length; i++) {
    lo = Math.min(lo, e[i]);
    hi = Math.max(hi, e[i]);
  }
  const scale = hi > lo ? (hi - lo) / 255 : 1;
  const zeroPoint = Math.round(-lo / scale);
  const codes = new Uint8Array(e.length);
  for (let i = 0; i < e.length; i++) codes[i] = Math.max(0, Math.min(255, Math.round(e[i] / scale) + zeroPoint));
  return { codes, scale, zeroPoint };
}

/**
 * Rewrites a float graph's nodes and initializers into the q8 form (see the top of the file).
 * @param {object[]} nodes NodeProtos, in order
 * @param {object[]} inits TensorProtos (float ones with rawData)
 * @returns {{ nodes: object[], inits: object[] }} the new lists (the float weights it
 *   replaced are left out)
 */
export function quantizeDynamic(nodes, inits) {
  const byName = new Map(inits.map((t) => [t.name, t]));
  const isFloatInit = (name) => byName.get(name)?.dataType === FLOAT && byName.get(name).dims.length === 2;
  const replaced = new Set();
  const added = [];
  const out = [];
  // One DynamicQuantizeLinear per activation, shared by every MatMul that reads it.
  const dynamic = new Map();
  const quantizeActivation = (x) => {
    if (!dynamic.has(x)) {
      const names = [`${x}_quantized`, `${x}_scale`, `${x}_zero_point`];
      out.push(node('DynamicQuantizeLinear', [x], names));
      dynamic.set(x, names);
    }
    return dynamic.get(x);
  };
  for (const n of nodes) {
    if (n.opType === 'MatMul' && isFloatInit(n.input[1])) {
      const [x, w] = n.input;
      const y = n.output[0];
      if (!replaced.has(w)) {
        const { codes, scale } = once(byName.get(w), quantizeWeight);
        added.push(
          tensor(`${w}_quantized`, byName.get(w).dims, INT8, new Uint8Array(codes.buffer)),
          scalarFloat(`${w}_scale`, scale),
          tensor(`${w}_zero_point`, [], INT8, new Uint8Array(1)),
        );
        replaced.add(w);
      }
      const [xq, xScale, xZero] = quantizeActivation(x);
      out.push(
        node('MatMulInteger', [xq, `${w}_quantized`, xZero, `${w}_zero_point`], [`${y}_int32`]),
        node(
          'Cast',
          [`${y}_int32`],
          [`${y}_float`],
          [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT }],
        ),
        node('Mul', [xScale, `${w}_scale`], [`${y}_scales`]),
        node('Mul', [`${y}_float`, `${y}_scales`], [y]),
      );
    } else if (n.opType === 'Gather' && isFloatInit(n.input[0])) {
      const [e, ids] = n.input;
      const y = n.output[0];
      if (!replaced.has(e)) {
        const { codes, scale, zeroPoint } = once(byName.get(e), quantizeTable);
        added.push(
          tensor(`${e}_quantized`, byName.get(e).dims, UINT8, codes),
          scalarFloat(`${e}_scale`, scale),
          tensor(`${e}_zero_point`, [], UINT8, Uint8Array.of(zeroPoint)),
        );
        replaced.add(e);
      }
      out.push(
        node('Gather', [`${e}_quantized`, ids], [`${y}_quantized`]),
        node('DequantizeLinear', [`${y}_quantized`, `${e}_scale`, `${e}_zero_point`], [y]),
      );
    } else {
      out.push(n);
    }
  }
  return { nodes: out, inits: [...inits.filter((t) => !replaced.has(t.name)), ...added] };
}
