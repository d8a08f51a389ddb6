// TensorFlow.js with the wasm backend (single-threaded in Node). matMul(a, b, false, true)
// is ~6× slower than an explicit transpose here, so the fast form is used.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';

export const name = 'tfjs-backend-wasm';

export async function setup() {
  await tf.setBackend('wasm');
  await tf.ready();
  return `@tensorflow/tfjs-backend-wasm ${tf.version_core}`;
}

export async function attention(c, { q, k, v }) {
  const scale = 1 / Math.sqrt(c.d);
  const dims = [c.heads, c.n, c.d];
  return () =>
    tf.tidy(() => {
      const kt = tf.transpose(tf.tensor3d(k, dims), [0, 2, 1]);
      const weights = tf.softmax(tf.mul(tf.matMul(tf.tensor3d(q, dims), kt), scale));
      return tf.matMul(weights, tf.tensor3d(v, dims)).dataSync();
    });
}

export async function multiHead(c, x, w) {
  const { n, dModel, heads } = c;
  const hd = dModel / heads;
  const W = Object.fromEntries(
    Object.entries(w).map(([key, data]) => [
      key,
      key.startsWith('w') ? tf.tensor2d(data, [dModel, dModel]) : tf.tensor1d(data),
    ]),
  );
  const scale = 1 / Math.sqrt(hd);
  return () =>
    tf.tidy(() => {
      const input = tf.tensor2d(x, [n, dModel]);
      const project = (p, perm) =>
        tf.transpose(tf.reshape(tf.add(tf.matMul(input, W[`w${p}`]), W[`b${p}`]), [n, heads, hd]), perm);
      const weights = tf.softmax(tf.mul(tf.matMul(project('q', [1, 0, 2]), project('k', [1, 2, 0])), scale));
      const merged = tf.reshape(tf.transpose(tf.matMul(weights, project('v', [1, 0, 2])), [1, 0, 2]), [n, dModel]);
      return tf.add(tf.matMul(merged, W.wo), W.bo).dataSync();
    });
}
