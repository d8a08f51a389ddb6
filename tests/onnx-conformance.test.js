// ONNX's own backend test cases for the attention-related operators (issue 22, item 9), run
// through the public API as a user porting a model would call it. The only caller-side step
// is a reshape between ONNX's 3-D [batch, L, heads·d] and our [batch, L, heads, d] (layout
// 'bshd'), which moves no data. The cases are ONNX's, extracted by
// scripts/extract-onnx-cases.py into tests/fixtures/onnx/cases.json; their expected outputs
// come from onnx/reference (NumPy, float64 where it matters), not from this library.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { init } from 'attention-wasm';

const attn = await init();
const { cases } = JSON.parse(readFileSync(new URL('./fixtures/onnx/cases.json', import.meta.url), 'utf8'));

// A fixture tensor as the API takes it: float32 as Float32Array, float16 as its bits with
// dtype 'float16', bool as a Uint8Array (a boolean mask), int64 as numbers.
function decode(t) {
  if (t === null) return undefined;
  const bytes = Buffer.from(t.data, 'base64');
  const copy = new Uint8Array(bytes).buffer; // aligned
  switch (t.dtype) {
    case 'float32':
      return { data: new Float32Array(copy), shape: t.shape };
    case 'float16':
      return { data: new Uint16Array(copy), shape: t.shape, dtype: 'float16' };
    case 'bool':
      return { data: new Uint8Array(copy), shape: t.shape };
    case 'int64':
      return { data: Array.from(new BigInt64Array(copy), Number), shape: t.shape };
    default:
      throw new Error(`fixture dtype ${t.dtype}`);
  }
}

// Expected values as numbers.
function expected(t) {
  const x = decode(t);
  if (t.dtype !== 'float16') return { data: Array.from(x.data), shape: x.shape };
  return { data: Array.from(halves(x.data)), shape: x.shape };
}

// IEEE binary16 bits → numbers, written here (not the library's decoder) so the test is independent.
function halves(bits) {
  return Array.from(bits, (h) => {
    const sign = h & 0x8000 ? -1 : 1,
      e = (h >> 10) & 31,
      f = h & 1023;
    if (e === 0) return sign * f * 2 ** -24;
    if (e === 31) return f ? NaN : sign * Infinity;
    return sign * (1 + f / 1024) * 2 ** (e - 15);
  });
}

const reshape = (t, shape) => ({ ...t, shape });

// |actual - expected| <= atol + rtol·|expected| everywhere; infinities and NaN must match.
function assertClose(name, actual, want, { rtol, atol }) {
  assert.deepEqual(actual.shape, want.shape, `${name}: shape`);
  let worst = 0,
    at = -1;
  for (let i = 0; i < want.data.length; i++) {
    const a = actual.data[i],
      e = want.data[i];
    if (Number.isNaN(e) || !Number.isFinite(e)) {
      assert.ok(Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)), `${name}[${i}]: ${a} where ONNX has ${e}`);
      continue;
    }
    const excess = Math.abs(a - e) - (atol + rtol * Math.abs(e));
    if (!(excess <= worst)) {
      worst = Number.isNaN(excess) ? Infinity : excess;
      at = i;
    }
  }
  assert.ok(at < 0, `${name}[${at}]: ${actual.data[at]} vs ONNX ${want.data[at]} (beyond rtol ${rtol}, atol ${atol})`);
}

const tolerance = (c) =>
  c.inputs.some((t) => t?.dtype === 'float16') ? { rtol: 1e-3, atol: 1e-3 } : { rtol: 1e-4, atol: 1e-5 };

// ONNX Attention (opsets 23, 24) → attn.attention.
function runAttention(c) {
  const a = c.attributes;
  const [Q, K, V, mask, pastKey, pastValue, nonpad] = [0, 1, 2, 3, 4, 5, 6].map((i) => decode(c.inputs[i] ?? null));
  const threeD = Q.shape.length === 3;
  // 3-D inputs: [batch, L, heads·d] is [batch, L, heads, d] ('bshd'), a reshape.
  const split = (t, heads) => reshape(t, [t.shape[0], t.shape[1], heads, t.shape[2] / heads]);
  const q = threeD ? split(Q, a.q_num_heads) : Q;
  const k = threeD ? split(K, a.kv_num_heads) : K;
  const v = threeD ? split(V, a.kv_num_heads) : V;
  const headAxis = threeD ? 2 : 1;
  const mode = a.qk_matmul_output_mode ?? 0;
  const wantQk = c.outputs[3] !== undefined && c.outputs[3] !== null;
  const options = {
    layout: threeD ? 'bshd' : 'bhsd',
    ...(a.scale !== undefined ? { scale: a.scale } : {}),
    ...(a.softcap ? { softcap: a.softcap } : {}),
    ...(a.is_causal ? { causal: true } : {}),
    ...(mask ? { mask } : {}),
    ...(pastKey ? { pastKey, pastValue } : {}),
    ...(nonpad ? { keyLengths: nonpad.data } : {}),
    // With nonpad_kv_seqlen and no cache each sequence's diagonal ends at its own last key.
    ...(a.is_causal && nonpad && !pastKey ? { causalAlign: 'bottom-right-per-sequence' } : {}),
    ...(q.shape[headAxis] !== k.shape[headAxis] ? { enableGqa: true } : {}),
    ...(wantQk ? { trace: true } : {}),
  };
  const result = attn.attention(q, k, v, options);
  const got = [];
  const out = result.output;
  got.push(threeD ? reshape(out, [out.shape[0], out.shape[1], out.shape[2] * out.shape[3]]) : out);
  got.push(result.presentKey, result.presentValue);
  if (wantQk) {
    const t = result.trace;
    got.push([t.scaledScores, t.cappedScores ?? t.scaledScores, t.maskedScores, t.weights][mode]);
  }
  return got;
}

const RUNNERS = {
  Attention: runAttention,
  Softmax: (c) => [attn.softmax(decode(c.inputs[0]), { axis: c.attributes.axis ?? -1 })],
  LogSoftmax: (c) => [attn.logSoftmax(decode(c.inputs[0]), { axis: c.attributes.axis ?? -1 })],
  LayerNormalization: (c) => {
    const [x, gamma, beta] = c.inputs.map((t) => decode(t ?? null));
    const { output, mean, invStdDev } = attn.layerNorm(x, {
      gamma,
      beta,
      eps: c.attributes.epsilon ?? 1e-5,
      axis: c.attributes.axis ?? -1,
      returnStats: true,
    });
    return [output, mean, invStdDev];
  },
  RMSNormalization: (c) => {
    const [x, weight] = c.inputs.map((t) => decode(t ?? null));
    return [attn.rmsNorm(x, { weight, eps: c.attributes.epsilon ?? 1e-5, axis: c.attributes.axis ?? -1 })];
  },
  RotaryEmbedding: (c) => {
    const [x, cos, sin, positions] = [0, 1, 2, 3].map((i) => decode(c.inputs[i] ?? null));
    const a = c.attributes;
    return [
      attn.applyRope(x, {
        cos,
        sin,
        ...(positions ? { positions } : {}),
        interleaved: a.interleaved === 1,
        ...(a.rotary_embedding_dim ? { rotaryDim: a.rotary_embedding_dim } : {}),
        ...(a.num_heads ? { numHeads: a.num_heads } : {}),
      }),
    ];
  },
};

test('the fixture holds every extracted case of the six operators', () => {
  const counts = {};
  for (const c of cases) counts[c.op] = (counts[c.op] ?? 0) + 1;
  assert.deepEqual(counts, {
    Attention: 76,
    LayerNormalization: 19,
    LogSoftmax: 7,
    RMSNormalization: 19,
    RotaryEmbedding: 8,
    Softmax: 7,
  });
});

for (const c of cases) {
  test(`ONNX ${c.name} (${c.op}, opset ${c.opset})`, () => {
    const before = attn.memory().inUseBytes;
    const got = RUNNERS[c.op](c);
    c.outputs.forEach((want, i) => {
      if (want === null) return;
      assert.ok(got[i], `${want.name}: no such output`);
      assertClose(want.name, got[i], expected(want), tolerance(c));
    });
    assert.equal(attn.memory().inUseBytes, before, 'the call freed what it allocated');
  });
}
