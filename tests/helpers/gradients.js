// Checks attn.attentionBackward against central differences of the float64 reference
// forward (tests/helpers/reference.js): the loss is Σ output·dOut, each input element is moved
// by ±h, and every gradient element must agree within atol + rtol·|numeric|.
import assert from 'node:assert/strict';
import { referenceAttention } from './reference.js';

/** Returns the backward's { dq, dk, dv } after checking them. */
export function checkAttentionGradients(
  attn,
  q,
  k,
  v,
  dOut,
  options,
  { label = 'attentionBackward', atol = 2e-3, rtol = 1e-2, h = 1e-3 } = {},
) {
  const loss = (qq, kk, vv) =>
    referenceAttention(qq, kk, vv, options).output.data.reduce((s, x, i) => s + x * dOut.data[i], 0);
  const grads = attn.attentionBackward(q, k, v, dOut, options);
  for (const [name, t, grad] of [
    ['q', q, grads.dq],
    ['k', k, grads.dk],
    ['v', v, grads.dv],
  ]) {
    for (let i = 0; i < t.data.length; i++) {
      const plus = { data: Float64Array.from(t.data), shape: t.shape },
        minus = { data: Float64Array.from(t.data), shape: t.shape };
      plus.data[i] += h;
      minus.data[i] -= h;
      const args = (x) => (name === 'q' ? [x, k, v] : name === 'k' ? [q, x, v] : [q, k, x]);
      const numeric = (loss(...args(plus)) - loss(...args(minus))) / (2 * h);
      assert.ok(
        Math.abs(grad.data[i] - numeric) <= atol + rtol * Math.abs(numeric),
        `${label}: d${name}[${i}] ${grad.data[i]} vs ${numeric}`,
      );
    }
  }
  return grads;
}
