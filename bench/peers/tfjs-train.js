// The training benchmark's tfjs side: the same model as attn.TinyTransformer (pre-norm, exact
// GELU through tf.erf, learned positions, a token head), written with tfjs-core ops and
// trained by tfjs's autodiff with tf.train.adam (tfjs has no AdamW; Adam is the same work
// less the decay), on tfjs-backend-wasm (one thread in Node).
//
// tfjs-core's Node bundle registers no gradients (the @tensorflow/tfjs union package does), so
// setup() bundles tfjs-core's own register_all_gradients with esbuild once (into build/bench/)
// and imports it: its registrations land in tfjs's global registries, shared by every copy.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';

export const name = 'tfjs-backend-wasm';

const root = fileURLToPath(new URL('../..', import.meta.url));
const GRADIENTS = `${root}build/bench/tfjs-gradients.mjs`;

export async function setup() {
  if (!existsSync(GRADIENTS)) {
    mkdirSync(`${root}build/bench`, { recursive: true });
    const { build } = await import('esbuild');
    await build({
      entryPoints: [`${root}node_modules/@tensorflow/tfjs-core/dist/register_all_gradients.js`],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: GRADIENTS,
      logLevel: 'error',
    });
  }
  await import(pathToFileURL(GRADIENTS).href);
  await tf.setBackend('wasm');
  await tf.ready();
  return `@tensorflow/tfjs-backend-wasm ${tf.version_core} (autodiff: tfjs-core's gradients)`;
}

// Xavier-uniform matrices, zero biases, unit gains, embeddings with std 1/√d (as ours).
function parameters(c) {
  const { vocabSize: V, maxLen, dModel: d, numLayers, dFF } = c;
  let seed = 7; // one seed per tensor (the same seed would make wq = wk = wv = wo)
  const uniform = (shape, a) => tf.variable(tf.randomUniform(shape, -a, a, 'float32', seed++));
  const xavier = (rows, cols) => uniform([rows, cols], Math.sqrt(6 / (rows + cols)));
  const zeros = (n) => tf.variable(tf.zeros([n]));
  const ones = (n) => tf.variable(tf.ones([n]));
  const p = { tok: uniform([V, d], Math.sqrt(3 / d)), pos: uniform([maxLen, d], Math.sqrt(3 / d)), layers: [] };
  for (let l = 0; l < numLayers; l++) {
    p.layers.push({
      g1: ones(d),
      b1: zeros(d),
      wq: xavier(d, d),
      bq: zeros(d),
      wk: xavier(d, d),
      bk: zeros(d),
      wv: xavier(d, d),
      bv: zeros(d),
      wo: xavier(d, d),
      bo: zeros(d),
      g2: ones(d),
      b2: zeros(d),
      w1: xavier(d, dFF),
      c1: zeros(dFF),
      w2: xavier(dFF, d),
      c2: zeros(d),
    });
  }
  Object.assign(p, { gf: ones(d), bf: zeros(d), wh: xavier(d, V), bh: zeros(V) });
  return p;
}

const layerNorm = (x, g, b) => {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
};
const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));

// x: [B·L, d] → [B·L, d]
function attention(x, w, B, L, c) {
  const { dModel: d, numHeads: H } = c,
    hd = d / H;
  const heads = (t) => tf.transpose(tf.reshape(t, [B, L, H, hd]), [0, 2, 1, 3]); // [B, H, L, hd]
  const q = heads(tf.add(tf.matMul(x, w.wq), w.bq));
  const kT = tf.transpose(heads(tf.add(tf.matMul(x, w.wk), w.bk)), [0, 1, 3, 2]);
  const v = heads(tf.add(tf.matMul(x, w.wv), w.bv));
  const p = tf.softmax(tf.mul(tf.matMul(q, kT), 1 / Math.sqrt(hd)));
  const o = tf.reshape(tf.transpose(tf.matMul(p, v), [0, 2, 1, 3]), [B * L, d]);
  return tf.add(tf.matMul(o, w.wo), w.bo);
}

function loss(p, c, tokens, targets, B, L) {
  // The embedding as oneHot·table: tf.gather's gradient needs UnsortedSegmentSum, which
  // tfjs-backend-wasm does not have (vocabulary 16: the product is a tiny part of the step).
  const embedded = tf.matMul(tf.oneHot(tf.reshape(tokens, [B * L]), c.vocabSize), p.tok);
  const positions = tf.tile(tf.slice(p.pos, [0, 0], [L, c.dModel]), [B, 1]);
  let x = tf.add(embedded, positions);
  for (const w of p.layers) {
    x = tf.add(x, attention(layerNorm(x, w.g1, w.b1), w, B, L, c));
    const h = gelu(tf.add(tf.matMul(layerNorm(x, w.g2, w.b2), w.w1), w.c1));
    x = tf.add(x, tf.add(tf.matMul(h, w.w2), w.c2));
  }
  const logits = tf.add(tf.matMul(layerNorm(x, p.gf, p.bf), p.wh), p.bh);
  return tf.losses.softmaxCrossEntropy(tf.oneHot(tf.reshape(targets, [B * L]), c.vocabSize), logits);
}

/** A trainer: step(tokens, targets) runs one Adam step and returns the loss (read back). */
export function trainer(c, { lr = 1e-3 } = {}) {
  const p = parameters(c);
  const optimizer = tf.train.adam(lr);
  return {
    step(tokens, targets) {
      const B = tokens.length,
        L = tokens[0].length;
      const t = tf.tensor2d(tokens.flat(), [B, L], 'int32'),
        y = tf.tensor2d(targets.flat(), [B, L], 'int32');
      const cost = optimizer.minimize(() => loss(p, c, t, y, B, L), true);
      const value = cost.dataSync()[0];
      tf.dispose([t, y, cost]);
      return value;
    },
    dispose() {
      optimizer.dispose();
      tf.dispose(p);
      tf.disposeVariables();
    },
  };
}
