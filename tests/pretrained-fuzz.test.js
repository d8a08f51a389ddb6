// Fuzzing what a caller can hand the pretrained-model loader and runner (issue 21): mutated
// safetensors files (bytes flipped in the header, the length field changed, the file cut,
// header entries given random shapes, offsets and dtypes) and random forward inputs (ids in
// and out of range, ragged batches, masks, random Unicode text). Every call either works or
// throws a TypeError/RangeError naming the function; no wasm memory is left behind; valid
// calls give bit-identical answers on a twin model loaded apart (no state leaks between
// calls); token spans stay inside the text and in order.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { rng } from './helpers/assert.js';
import { writeSafetensors, readSafetensors, fixtureFiles } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 1);

function named(error, prefix) {
  return (error instanceof TypeError || error instanceof RangeError) && error.message.startsWith(prefix);
}

test(`safetensors headers and files mutated at random (${ROUNDS} rounds, seed ${SEED}): loads or named errors, nothing leaked`, async () => {
  const files = fixtureFiles(`${root}tiny-bert`);
  const tensors = readSafetensors(files['model.safetensors']);
  const names = Object.keys(tensors);
  const random = rng(SEED);
  const int = (n) => Math.floor(random(0, n));
  const pick = (list) => list[int(list.length)];
  const odd = () => pick([0, 1, -1, 2 ** 31, 2 ** 53, 1e300, 0.5, NaN, null, '3', [], {}, true, 128, 4096, 32, 55]);
  const inUse = attn.memory().inUseBytes;
  const outcomes = { loaded: 0, rejected: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const weights = files['model.safetensors'];
    const n = new DataView(weights.buffer, weights.byteOffset).getUint32(0, true);
    let bytes;
    const kind = int(4);
    if (kind === 0) {
      // bytes flipped in the header
      bytes = weights.slice();
      for (let k = 0, count = 1 + int(4); k < count; k++) bytes[8 + int(n)] = int(256);
    } else if (kind === 1) {
      // the file cut short
      bytes = weights.slice(0, int(weights.length));
    } else if (kind === 2) {
      // the length field changed
      bytes = weights.slice();
      new DataView(bytes.buffer).setUint32(0, pick([0, 1, n - 1, n + 1, n + 8, 2 ** 31, int(2 ** 32)]) >>> 0, true);
    } else {
      // header entries given random fields
      bytes = writeSafetensors(tensors, {
        headerOverride: (h) => {
          for (let k = 0, count = 1 + int(3); k < count; k++) {
            const entry = h[pick(names)];
            if (entry === null || typeof entry !== 'object' || !Array.isArray(entry.shape)) continue; // replaced whole already
            const field = pick(['shape', 'data_offsets', 'dtype', 'whole']);
            if (field === 'shape') entry.shape = int(2) ? [odd()] : entry.shape.map((d) => (int(3) ? d : odd()));
            else if (field === 'data_offsets') entry.data_offsets = entry.data_offsets.map((o) => (int(2) ? o : odd()));
            else if (field === 'dtype') entry.dtype = pick(['F16', 'BF16', 'F64', 'I8', 'f32', '', 7]);
            else h[pick(names)] = odd();
          }
          return h;
        },
      });
    }
    try {
      const model = await attn.loadModel({ ...files, 'model.safetensors': bytes });
      model.forward('the cat sat');
      model.dispose();
      outcomes.loaded++;
    } catch (error) {
      assert.ok(
        named(error, 'loadModel: '),
        `round ${round} (kind ${kind}): ${error?.constructor?.name}: ${error?.message}`,
      );
      outcomes.rejected++;
    }
    assert.equal(attn.memory().inUseBytes, inUse, `round ${round}: nothing left allocated`);
  }
  assert.ok(outcomes.rejected > ROUNDS / 2, JSON.stringify(outcomes));
});

test(`forward with random inputs (${ROUNDS} rounds, seed ${SEED}): answers equal a twin's, or named errors`, async () => {
  const model = await attn.loadModel(`${root}tiny-gpt2`);
  const twin = await attn.loadModel(`${root}tiny-gpt2`);
  const V = model.descriptor.vocabSize;
  const random = rng(SEED + 100);
  const int = (n) => Math.floor(random(0, n));
  const pick = (list) => list[int(list.length)];
  const id = () => (int(10) ? int(V) : pick([-1, V, 1.5, NaN, '3', null, 2 ** 40]));
  const seq = () => Array.from({ length: pick([0, 1, 2, 5, 31, 32, 33]) }, id);
  const text = () =>
    Array.from({ length: int(40) }, () =>
      String.fromCodePoint(pick([int(128), 0x300 + int(0x70), 0x4e00 + int(100), 0x1f600 + int(50), 0xd800])),
    ).join('');
  const input = () => {
    switch (int(7)) {
      case 0:
        return text();
      case 1:
        return Array.from({ length: 1 + int(3) }, text);
      case 2:
        return seq();
      case 3:
        return Array.from({ length: 1 + int(3) }, seq);
      case 4: {
        const ids = Array.from({ length: 1 + int(3) }, () => Array.from({ length: 1 + int(6) }, () => int(V)));
        return {
          inputIds: ids,
          attentionMask: ids.map((r) => r.map((_, t) => (int(5) ? (t < 1 + int(r.length) ? 1 : 0) : int(2)))),
        };
      }
      case 5:
        return pick([null, undefined, 42, {}, [[]], [[1], 'a'], new Int32Array([1, 2]), [new Int32Array([3, 4])]]);
      default:
        return [text(), 7];
    }
  };
  const inUse = attn.memory().inUseBytes;
  let ok = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const x = input();
    const options = int(4)
      ? { attentions: int(2) === 1, hiddenStates: int(2) === 1 }
      : pick([{ attentions: 1 }, null, { logits: false }]);
    let out, error;
    try {
      out = model.forward(x, options);
    } catch (e) {
      error = e;
    }
    if (error) {
      assert.ok(
        named(error, 'PretrainedModel.forward: ') || named(error, 'tokenizer.encode: '),
        `round ${round}: ${error?.constructor?.name}: ${error?.message}`,
      );
    } else {
      ok++;
      const again = twin.forward(x, options);
      assert.deepEqual(out.lastHiddenState.data, again.lastHiddenState.data, `round ${round}: twin agrees`);
      for (const row of out.tokens ?? []) {
        let last = 0;
        for (const t of row) {
          if (t.special) continue;
          assert.ok(t.start >= last && t.end >= t.start, `round ${round}: spans in order`);
          last = t.start;
        }
      }
      if (out.attentions) for (const a of out.attentions) assert.ok(a.data.every((v) => v >= 0 && v <= 1));
    }
    assert.equal(attn.memory().inUseBytes, inUse, `round ${round}: nothing left allocated`);
  }
  assert.ok(ok > ROUNDS / 8, `${ok} valid calls`);
  model.dispose();
  twin.dispose();
});
