// Long texts are tokenized only as far as a limit needs (issue 44, item 7): forward and
// generate refuse a text longer than the model's positions after encoding a start of it, and
// embed truncates to max_seq_length from a start of the text, with the same tokens as encoding
// the whole text and cutting (checked against the whole encoding on texts of ~60,000
// characters for four tokenizer kinds). Sizes in the issue: a 1 MB text took forward 3.4 s
// and 530 MB to refuse; 20 such texts took embed 40 s.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { startFor, MARGIN } from '../bindings/js/models/text_limits.js';

const attn = await init({ simd: 'baseline' });
const hfDir = fileURLToPath(new URL('./fixtures/hf/', import.meta.url));

const PIECES = [
  'The cat sat on the mat. ',
  'Café ☕ naïve  two  spaces\nand a line\t',
  '注意力就是你所需要的全部。',
  '🐈‍⬛🐈 emoji and 123456789 digits ',
  'Ünïcödé — dashes… and "quotes" ',
  '    indented code();\n',
];
// A text of about `n` characters from the pieces in a fixed, mixed order.
function text(n, seed = 1) {
  let out = '';
  let s = seed;
  while (out.length < n) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    out += PIECES[s % PIECES.length];
  }
  return out;
}

for (const folder of ['tiny-gpt2', 'tiny-llama', 'tiny-bert', 'tiny-qwen2']) {
  test(`${folder}: a start of a long text has the whole text's first tokens`, async () => {
    const model = await attn.loadModel(`${hfDir}${folder}`);
    try {
      for (const [limit, seed] of [
        [64, 1],
        [512, 2],
        [2048, 3],
      ]) {
        const long = text(60_000, seed);
        const whole = model.tokenizer.encode(long, { addSpecialTokens: false }).ids;
        const start = startFor(model.tokenizer, long, limit);
        assert.ok(start.text.length < long.length, 'a start, not the whole text');
        assert.ok(start.count >= limit + MARGIN);
        const ids = model.tokenizer.encode(start.text, { addSpecialTokens: false }).ids;
        assert.deepEqual(ids.slice(0, limit), whole.slice(0, limit), `limit ${limit}`);
      }
      const short = 'A short text.';
      assert.deepEqual(startFor(model.tokenizer, short, 64), { text: short, count: null });
    } finally {
      model.dispose();
    }
  });
}

test('forward and generate refuse a 1 MB text after reading a start of it; embed truncates 20 of them', async () => {
  const gpt2 = await attn.loadModel(`${hfDir}tiny-gpt2`);
  const limit = gpt2.descriptor.contextLength;
  const huge = text(1_000_000, 7);
  let started = performance.now();
  assert.throws(
    () => gpt2.forward(huge),
    (e) =>
      e instanceof RangeError &&
      new RegExp(
        `^PretrainedModel\\.forward: the text has more than ${limit} tokens \\(its first \\d+ of ${huge.length} characters already make \\d+\\); this model takes at most ${limit} \\(max positions\\)$`,
      ).test(e.message),
  );
  const forwardMs = performance.now() - started;
  assert.throws(() => gpt2.forward(['short', huge]), /texts\[1\] has more than \d+ tokens/);
  await assert.rejects(
    gpt2.generate(huge, { maxNewTokens: 2 }),
    /^RangeError: PretrainedModel\.generate: the prompt has more than \d+ tokens/,
  );
  assert.equal(gpt2.forward('The cat').logits.shape[0], 1, 'the model still runs');
  gpt2.dispose();

  const embedder = await attn.loadModel(`${hfDir}tiny-bge-embedder`);
  const texts = Array.from({ length: 20 }, (_, i) => text(1_000_000, 100 + i));
  started = performance.now();
  const embedded = embedder.embed(texts);
  const embedMs = performance.now() - started;
  // The same as embedding each text's first 20,000 characters (far more than the limit's tokens).
  const cut = embedder.embed(texts.map((t) => t.slice(0, 20_000)));
  assert.deepEqual(embedded.shape, cut.shape);
  for (let i = 0; i < embedded.data.length; i++)
    assert.ok(Math.abs(embedded.data[i] - cut.data[i]) < 1e-6, `value ${i}: ${embedded.data[i]} vs ${cut.data[i]}`);
  embedder.dispose();
  console.log(
    `forward refused a 1 MB text in ${forwardMs.toFixed(0)} ms; embed of 20 × 1 MB texts took ${embedMs.toFixed(0)} ms`,
  );
});
