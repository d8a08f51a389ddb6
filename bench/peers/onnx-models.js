// Whole pretrained-model graphs for the benchmark, built in memory with onnx-proto from the
// same weights the safetensors checkpoint holds (bench/models.js), the way an exporter
// writes them (MatMul/Add projections, LayerNormalization, Erf or Tanh GELU, Softmax), so
// that onnxruntime-web's graph optimizer fuses them as it does for transformers.js models:
//   BERT: input_ids [1, T] → last hidden state [1, T, d]
//   GPT-2 prefill: input_ids [1, T] → logits [1, T, V] and every layer's keys and values
//   GPT-2 decode: input_ids [1, 1], position [1, 1], past keys/values [1, H, P, hd] per layer
//                 → logits [1, 1, V] and the present keys/values [1, H, P + 1, hd]
// GPT-2 also comes in transformers.js's q8 form (q8: true; bench/peers/onnx-quantize.js).
import onnxProto from 'onnx-proto';
import { quantizeDynamic } from './onnx-quantize.js';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
export const INT64 = onnx.TensorProto.DataType.INT64;
const dimOf = (d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d });
export const valueInfo = (name, dims, elemType = FLOAT) =>
  onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType, shape: { dim: dims.map(dimOf) } } } });
const attr = (name, v) =>
  Array.isArray(v)
    ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v }
    : Number.isInteger(v)
      ? { name, type: onnx.AttributeProto.AttributeType.INT, i: v }
      : { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v };
const floatInit = (name, dims, data) =>
  onnx.TensorProto.create({
    name,
    dims,
    dataType: FLOAT,
    rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  });
const int64Init = (name, values) =>
  onnx.TensorProto.create({ name, dims: [values.length], dataType: INT64, int64Data: values });

export class Graph {
  constructor() {
    this.nodes = [];
    this.inits = [];
    this.count = 0;
  }
  op(type, inputs, attrs = {}, outputs = 1) {
    const names = Array.from({ length: outputs }, () => `t${this.count++}`);
    this.nodes.push(
      onnx.NodeProto.create({
        opType: type,
        input: inputs,
        output: names,
        attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
      }),
    );
    return outputs === 1 ? names[0] : names;
  }
  init(name, dims, data) {
    this.inits.push(floatInit(name, dims, data));
    return name;
  }
  ints(name, values) {
    this.inits.push(int64Init(name, values));
    return name;
  }
  linear(x, w, b, name, inDim, outDim) {
    const y = this.op('MatMul', [x, this.init(`${name}.w`, [inDim, outDim], w)]);
    return b ? this.op('Add', [y, this.init(`${name}.b`, [outDim], b)]) : y;
  }
  layerNorm(x, gamma, beta, name, d, eps) {
    return this.op('LayerNormalization', [x, this.init(`${name}.g`, [d], gamma), this.init(`${name}.b`, [d], beta)], {
      axis: -1,
      epsilon: eps,
    });
  }
  // [1, T, d] → [1, H, T, hd]
  heads(x, H, hd) {
    return this.op('Transpose', [this.op('Reshape', [x, this.ints(`split${this.count}`, [1, -1, H, hd])])], {
      perm: [0, 2, 1, 3],
    });
  }
  merge(x, d) {
    return this.op('Reshape', [
      this.op('Transpose', [x], { perm: [0, 2, 1, 3] }),
      this.ints(`merge${this.count}`, [1, -1, d]),
    ]);
  }
  model(inputs, outputs) {
    return onnx.ModelProto.encode(
      onnx.ModelProto.create({
        irVersion: 8,
        opsetImport: [{ domain: '', version: 17 }],
        graph: onnx.GraphProto.create({
          name: 'model',
          node: this.nodes,
          initializer: this.inits,
          input: inputs,
          output: outputs,
        }),
      }),
    ).finish();
  }
}

// softmax(q·kᵀ/√hd + mask)·v over [1, H, T, *] tensors; mask: an additive tensor name or null.
function attention(g, q, k, v, hd, mask) {
  let scores = g.op('Mul', [
    g.op('MatMul', [q, g.op('Transpose', [k], { perm: [0, 1, 3, 2] })]),
    g.init(`scale${g.count}`, [], Float32Array.of(1 / Math.sqrt(hd))),
  ]);
  if (mask) scores = g.op('Add', [scores, mask]);
  return g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v]);
}

function geluErf(g, x) {
  const half = g.op('Mul', [x, g.init(`half${g.count}`, [], Float32Array.of(0.5))]);
  const erf = g.op('Erf', [g.op('Mul', [x, g.init(`rsqrt2_${g.count}`, [], Float32Array.of(Math.SQRT1_2))])]);
  return g.op('Mul', [half, g.op('Add', [erf, g.init(`one${g.count}`, [], Float32Array.of(1))])]);
}

function geluTanh(g, x) {
  const cube = g.op('Mul', [g.op('Mul', [x, x]), x]);
  const inner = g.op('Mul', [
    g.op('Add', [x, g.op('Mul', [cube, g.init(`c${g.count}`, [], Float32Array.of(0.044715))])]),
    g.init(`k${g.count}`, [], Float32Array.of(Math.sqrt(2 / Math.PI))),
  ]);
  const t = g.op('Add', [g.op('Tanh', [inner]), g.init(`one${g.count}`, [], Float32Array.of(1))]);
  return g.op('Mul', [g.op('Mul', [x, g.init(`half${g.count}`, [], Float32Array.of(0.5))]), t]);
}

/**
 * BERT encoder (post-norm), weights in the row-vector convention ([in, out]).
 * @param {object} w { wordEmbeddings, positionEmbeddings, tokenTypeEmbeddings, embNormG, embNormB, layers: [...] }
 */
export function bertModel(c, w) {
  const g = new Graph();
  const { d, H, L, f } = c;
  const hd = d / H;
  const positions = g.ints(
    'position_ids',
    Array.from({ length: c.T }, (_, i) => i),
  );
  let x = g.op('Add', [
    g.op('Gather', [g.init('wemb', [c.V, d], w.wordEmbeddings), 'input_ids']),
    g.op('Gather', [g.init('pemb', [c.P, d], w.positionEmbeddings), positions]),
  ]);
  x = g.op('Add', [x, g.op('Gather', [g.init('temb', [2, d], w.tokenTypeEmbeddings), g.ints('zero', [0])])]);
  x = g.layerNorm(x, w.embNormG, w.embNormB, 'embln', d, 1e-12);
  w.layers.forEach((l, i) => {
    const [q, k, v] = ['q', 'k', 'v'].map((p) =>
      g.heads(g.linear(x, l[`w${p}`], l[`b${p}`], `l${i}.${p}`, d, d), H, hd),
    );
    const a = g.linear(g.merge(attention(g, q, k, v, hd, null), d), l.wo, l.bo, `l${i}.o`, d, d);
    x = g.layerNorm(g.op('Add', [a, x]), l.ln1g, l.ln1b, `l${i}.ln1`, d, 1e-12);
    const h = geluErf(g, g.linear(x, l.w1, l.b1, `l${i}.f1`, d, f));
    x = g.layerNorm(g.op('Add', [g.linear(h, l.w2, l.b2, `l${i}.f2`, f, d), x]), l.ln2g, l.ln2b, `l${i}.ln2`, d, 1e-12);
  });
  g.op('Identity', [x]);
  g.nodes.at(-1).output[0] = 'last_hidden_state';
  return g.model([valueInfo('input_ids', [1, c.T], INT64)], [valueInfo('last_hidden_state', [1, c.T, d])]);
}

/**
 * GPT-2 (pre-norm, causal), prefill or one decode step with past keys and values.
 * @param {object} w { wte, wteT ([d, V]), wpe, lnfG, lnfB, layers: [...] } (Conv1D weights as [in, out])
 * @param {{ decode: boolean, q8?: boolean }} mode q8: every weight matrix and embedding table
 *   quantized as onnxruntime's quantize_dynamic does (transformers.js's model_quantized.onnx)
 */
export function gpt2Model(c, w, { decode, q8 = false }) {
  const g = new Graph();
  const { d, H, L, f } = c;
  const hd = d / H;
  const T = decode ? 1 : c.T;
  const positions = decode
    ? 'position_ids'
    : g.ints(
        'position_ids_const',
        Array.from({ length: T }, (_, i) => i),
      );
  let x = g.op('Add', [
    g.op('Gather', [g.init('wte', [c.V, d], w.wte), 'input_ids']),
    g.op('Gather', [g.init('wpe', [c.P, d], w.wpe), positions]),
  ]);
  // Prefill: an additive causal mask [T, T]; a decode step's one query sees every key.
  let mask = null;
  if (!decode) {
    const m = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = -1e9;
    mask = g.init('causal_mask', [T, T], m);
  }
  const presents = [];
  w.layers.forEach((l, i) => {
    const n = g.layerNorm(x, l.ln1g, l.ln1b, `l${i}.ln1`, d, 1e-5);
    const qkv = g.linear(n, l.cattnW, l.cattnB, `l${i}.attn`, d, 3 * d);
    const [qs, ks, vs] = g.op('Split', [qkv, g.ints(`split3_${i}`, [d, d, d])], { axis: -1 }, 3);
    const q = g.heads(qs, H, hd);
    let k = g.heads(ks, H, hd),
      v = g.heads(vs, H, hd);
    if (decode) {
      k = g.op('Concat', [`past_key_${i}`, k], { axis: 2 });
      v = g.op('Concat', [`past_value_${i}`, v], { axis: 2 });
    }
    presents.push(k, v);
    const a = g.linear(g.merge(attention(g, q, k, v, hd, mask), d), l.cprojW, l.cprojB, `l${i}.proj`, d, d);
    x = g.op('Add', [x, a]);
    const h = geluTanh(
      g,
      g.linear(g.layerNorm(x, l.ln2g, l.ln2b, `l${i}.ln2`, d, 1e-5), l.fcW, l.fcB, `l${i}.fc`, d, f),
    );
    x = g.op('Add', [x, g.linear(h, l.mprojW, l.mprojB, `l${i}.mproj`, f, d)]);
  });
  x = g.layerNorm(x, w.lnfG, w.lnfB, 'lnf', d, 1e-5);
  const logits = g.op('MatMul', [x, g.init('wteT', [d, c.V], w.wteT)]);
  // Name the outputs.
  const rename = (from, to) => {
    for (const node of g.nodes) node.output = node.output.map((o) => (o === from ? to : o));
    for (const node of g.nodes) node.input = node.input.map((o) => (o === from ? to : o));
  };
  rename(logits, 'logits');
  const outputs = [valueInfo('logits', [1, T, c.V])];
  presents.forEach((name, k) => {
    const to = `present_${k % 2 ? 'value' : 'key'}_${k >> 1}`;
    rename(name, to);
    outputs.push(valueInfo(to, [1, H, decode ? 'total' : T, hd]));
  });
  if (q8) ({ nodes: g.nodes, inits: g.inits } = quantizeDynamic(g.nodes, g.inits));
  const inputs = [valueInfo('input_ids', [1, T], INT64)];
  if (decode) {
    inputs.push(valueInfo('position_ids', [1, 1], INT64));
    for (let i = 0; i < L; i++)
      inputs.push(valueInfo(`past_key_${i}`, [1, H, 'past', hd]), valueInfo(`past_value_${i}`, [1, H, 'past', hd]));
  }
  return g.model(inputs, outputs);
}
