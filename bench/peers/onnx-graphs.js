// ONNX models for the benchmark, built in memory with onnx-proto (no files, no network):
// attention as MatMul/Softmax ops, and multi-head attention with projections.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

const valueInfo = (name, dims) =>
  onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType: FLOAT,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  });
const node = (opType, input, output, attrs = {}, domain = '') =>
  onnx.NodeProto.create({
    opType,
    input,
    output,
    domain,
    attribute: Object.entries(attrs).map(([name, v]) =>
      Array.isArray(v)
        ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v }
        : Number.isInteger(v)
          ? { name, type: onnx.AttributeProto.AttributeType.INT, i: v }
          : { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v },
    ),
  });
const floatInit = (name, dims, data) =>
  onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: new Uint8Array(Float32Array.from(data).buffer) });
const int64Init = (name, values) =>
  onnx.TensorProto.create({ name, dims: [values.length], dataType: INT64, int64Data: values });

function model(graph, extraOpsets = []) {
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 17 }, ...extraOpsets],
      graph,
    }),
  ).finish();
}

/** softmax(q·kᵀ·scale)·v for q, k, v: [heads, N, d]. */
export function attentionModel(heads, n, d) {
  return model(
    onnx.GraphProto.create({
      name: 'attention',
      input: [valueInfo('q', [heads, n, d]), valueInfo('k', [heads, n, d]), valueInfo('v', [heads, n, d])],
      output: [valueInfo('out', [heads, n, d])],
      initializer: [floatInit('scale', [], [1 / Math.sqrt(d)])],
      node: [
        node('Transpose', ['k'], ['kt'], { perm: [0, 2, 1] }),
        node('MatMul', ['q', 'kt'], ['scores']),
        node('Mul', ['scores', 'scale'], ['scaled']),
        node('Softmax', ['scaled'], ['weights'], { axis: -1 }),
        node('MatMul', ['weights', 'v'], ['out']),
      ],
    }),
  );
}

/**
 * Multi-head self-attention with projections, the same computation as MultiHeadAttention:
 * x [N, dModel] → Q, K, V = x·W + b → heads → attention → concat → ·W_O + b_O.
 */
export function multiHeadModel(n, dModel, heads, w) {
  const hd = dModel / heads;
  const nodes = [];
  const inits = [
    floatInit('scale', [], [1 / Math.sqrt(hd)]),
    int64Init('split_shape', [n, heads, hd]),
    int64Init('merge_shape', [n, dModel]),
  ];
  for (const p of ['q', 'k', 'v']) {
    inits.push(floatInit(`w${p}`, [dModel, dModel], w[`w${p}`]), floatInit(`b${p}`, [dModel], w[`b${p}`]));
    nodes.push(
      node('MatMul', ['x', `w${p}`], [`${p}_mm`]),
      node('Add', [`${p}_mm`, `b${p}`], [`${p}_proj`]),
      node('Reshape', [`${p}_proj`, 'split_shape'], [`${p}_split`]),
      node('Transpose', [`${p}_split`], [`${p}_heads`], { perm: p === 'k' ? [1, 2, 0] : [1, 0, 2] }),
    );
  }
  inits.push(floatInit('wo', [dModel, dModel], w.wo), floatInit('bo', [dModel], w.bo));
  nodes.push(
    node('MatMul', ['q_heads', 'k_heads'], ['scores']),
    node('Mul', ['scores', 'scale'], ['scaled']),
    node('Softmax', ['scaled'], ['weights'], { axis: -1 }),
    node('MatMul', ['weights', 'v_heads'], ['heads_out']),
    node('Transpose', ['heads_out'], ['merged_t'], { perm: [1, 0, 2] }),
    node('Reshape', ['merged_t', 'merge_shape'], ['concat']),
    node('MatMul', ['concat', 'wo'], ['o_mm']),
    node('Add', ['o_mm', 'bo'], ['out']),
  );
  return model(
    onnx.GraphProto.create({
      name: 'mha',
      node: nodes,
      initializer: inits,
      input: [valueInfo('x', [n, dModel])],
      output: [valueInfo('out', [n, dModel])],
    }),
  );
}
