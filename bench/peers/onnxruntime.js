// onnxruntime-web (wasm backend) running the same computations as ONNX graphs, with the
// thread count of the session (numThreads is fixed once its wasm has started: one count per
// process or page).
import * as ort from 'onnxruntime-web';
import { attentionModel, multiHeadModel } from './onnx-graphs.js';

export const name = 'onnxruntime-web';

export async function setup(threads = 1) {
  ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  return `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim();
}

const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };

/** Returns an async function: JS arrays in → output Float32Array [heads, n, d]. */
export async function attention(c, { q, k, v }) {
  const session = await ort.InferenceSession.create(attentionModel(c.heads, c.n, c.d), options);
  const dims = [c.heads, c.n, c.d];
  return async () => {
    const result = await session.run({
      q: new ort.Tensor('float32', q, dims),
      k: new ort.Tensor('float32', k, dims),
      v: new ort.Tensor('float32', v, dims),
    });
    return result.out.data;
  };
}

/** Multi-head self-attention with projections: x [n, dModel] → [n, dModel]. */
export async function multiHead(c, x, w) {
  const session = await ort.InferenceSession.create(multiHeadModel(c.n, c.dModel, c.heads, w), options);
  return async () => (await session.run({ x: new ort.Tensor('float32', x, [c.n, c.dModel]) })).out.data;
}
