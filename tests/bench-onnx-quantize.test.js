// The benchmark's q8 peer (bench/peers/onnx-quantize.js): a float graph rewritten into the form
// transformers.js's model_quantized.onnx has, run by onnxruntime-web, gives what that form
// computes, worked out here in float64 from the same codes: the activations quantized to uint8
// per tensor at run time, int8 weights with one scale, integer sums, then the two scales; an
// embedding table's rows dequantized from uint8.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-web';
import onnxProto from 'onnx-proto';
import { quantizeDynamic, quantizeWeight, quantizeTable } from '../bench/peers/onnx-quantize.js';

const { onnx } = onnxProto;
const { FLOAT, INT64 } = onnx.TensorProto.DataType;
const [T, D, N, V] = [5, 64, 24, 10];

function seeded(seed) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
}
const random = seeded(34);
const W = Float32Array.from({ length: D * N }, () => random() * 0.05);
const E = Float32Array.from({ length: V * D }, () => random() * 0.3 + 0.05);
const X = Float32Array.from({ length: T * D }, () => random() * 2);
const IDS = [3, 0, 9, 3, 7];

// y = x·W, e = E[ids]: one MatMul on a weight, one Gather from a table.
function floatGraph() {
  const init = (name, dims, data) =>
    onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer) });
  const info = (name, dims, elemType = FLOAT) =>
    onnx.ValueInfoProto.create({
      name,
      type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
    });
  const nodes = [
    onnx.NodeProto.create({ opType: 'MatMul', input: ['x', 'W'], output: ['y'] }),
    onnx.NodeProto.create({ opType: 'Gather', input: ['E', 'ids'], output: ['e'] }),
  ];
  const q = quantizeDynamic(nodes, [init('W', [D, N], W), init('E', [V, D], E)]);
  const graph = onnx.GraphProto.create({
    name: 'q8',
    node: q.nodes,
    initializer: q.inits,
    input: [info('x', [T, D]), info('ids', [T], INT64)],
    output: [info('y', [T, N]), info('e', [T, D])],
  });
  return {
    q,
    bytes: onnx.ModelProto.encode(
      onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }),
    ).finish(),
  };
}

// ONNX DynamicQuantizeLinear: uint8 over [min(x, 0), max(x, 0)], halves rounded to even.
function dynamicQuantize(x) {
  const lo = Math.min(0, ...x),
    hi = Math.max(0, ...x);
  const scale = (hi - lo) / 255;
  const even = (v) => (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v));
  const zero = Math.max(0, Math.min(255, even(-lo / scale)));
  return { codes: Array.from(x, (v) => Math.max(0, Math.min(255, even(v / scale) + zero))), scale, zero };
}

test('the q8 form replaces the float weights by int8 codes and the table by uint8 codes', () => {
  const { q } = floatGraph();
  assert.deepEqual(
    q.nodes.map((n) => n.opType),
    ['DynamicQuantizeLinear', 'MatMulInteger', 'Cast', 'Mul', 'Mul', 'Gather', 'DequantizeLinear'],
  );
  const types = Object.fromEntries(q.inits.map((t) => [t.name, t.dataType]));
  assert.equal(types.W, undefined);
  assert.equal(types.E, undefined);
  assert.equal(types.W_quantized, onnx.TensorProto.DataType.INT8);
  assert.equal(types.E_quantized, onnx.TensorProto.DataType.UINT8);
  // Symmetric int8 weights: the largest |w| is code ±127.
  const { codes, scale } = quantizeWeight(W);
  assert.equal(Math.max(...codes.map(Math.abs)), 127);
  assert.ok(Math.abs(scale * 127 - Math.max(...W.map(Math.abs))) < 1e-9);
});

test('onnxruntime-web runs the q8 form to what its integer arithmetic gives', async () => {
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(floatGraph().bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const out = await session.run({
    x: new ort.Tensor('float32', X, [T, D]),
    ids: new ort.Tensor('int64', BigInt64Array.from(IDS, BigInt), [T]),
  });
  await session.release();
  // MatMul: Σ (x_q − x_zero)·w_q, times x_scale·w_scale.
  const x = dynamicQuantize(X);
  const w = quantizeWeight(W);
  let worst = 0,
    largest = 0;
  for (let t = 0; t < T; t++)
    for (let n = 0; n < N; n++) {
      let sum = 0;
      for (let d = 0; d < D; d++) sum += (x.codes[t * D + d] - x.zero) * w.codes[d * N + n];
      const expected = sum * Math.fround(Math.fround(x.scale) * Math.fround(w.scale));
      worst = Math.max(worst, Math.abs(out.y.data[t * N + n] - expected));
      largest = Math.max(largest, Math.abs(expected));
    }
  assert.ok(worst <= 1e-6 * largest, `MatMul off by ${worst} (largest ${largest})`);
  // And it is a quantization of x·W: within a few percent of the float product.
  let drift = 0;
  for (let t = 0; t < T; t++)
    for (let n = 0; n < N; n++) {
      let f = 0;
      for (let d = 0; d < D; d++) f += X[t * D + d] * W[d * N + n];
      drift = Math.max(drift, Math.abs(out.y.data[t * N + n] - f));
    }
  assert.ok(drift < 0.03 * largest, `MatMul drifts ${drift} from the float product (largest ${largest})`);
  // Gather: the rows' uint8 codes, dequantized.
  const e = quantizeTable(E);
  IDS.forEach((id, t) => {
    for (let d = 0; d < D; d++) {
      const expected = (e.codes[id * D + d] - e.zeroPoint) * Math.fround(e.scale);
      assert.ok(Math.abs(out.e.data[t * D + d] - expected) <= 1e-6, `row ${t}, column ${d}`);
    }
  });
});
