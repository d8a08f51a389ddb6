// A GGUF file and its safetensors twin on the same input (tests/gguf-embeddinggemma.test.js,
// tests/gguf-modernbert.test.js).
import assert from 'node:assert/strict';
import { assertClose } from './assert.js';

/** The rows of real tokens of a [B, T, d] tensor ({ shape, data }: a result's or a reference's). */
export function realRows({ shape, data }, lengths) {
  const [B, T, d] = shape;
  const out = [];
  for (let b = 0; b < B; b++)
    for (let i = 0; i < lengths[b]; i++) for (let x = 0; x < d; x++) out.push(data[(b * T + i) * d + x]);
  return { data: Float64Array.from(out), shape: [out.length] };
}

/**
 * Every hidden state and attention map of the two models equal bit for bit, and the last hidden
 * state's real rows within rtol 1e-4, atol 1e-5 of the float64 PyTorch reference case `c`
 * ({ texts, lengths, hidden_states }).
 */
export function assertTwins(gguf, twin, input, c) {
  const a = gguf.forward(input, { hiddenStates: true, attentions: true });
  const b = twin.forward(input, { hiddenStates: true, attentions: true });
  a.hiddenStates.forEach((h, l) => assert.deepEqual(h.data, b.hiddenStates[l].data, `hidden state ${l}`));
  a.attentions.forEach((m, l) => assert.deepEqual(m.data, b.attentions[l].data, `attention ${l}`));
  assertClose(realRows(a.hiddenStates.at(-1), c.lengths), realRows(c.hidden_states.at(-1), c.lengths), {
    rtol: 1e-4,
    atol: 1e-5,
    label: `last hidden state vs PyTorch (${c.texts.length} texts)`,
  });
}
