// A SmolLM2 GGUF as llama.cpp's converter writes it (issue 46): architecture llama, a 'gpt2'
// tokenizer with tokenizer.ggml.pre 'smollm' (each digit its own piece), the tied embeddings as
// token_embd only, in Q8_0 and Q4_0 (scripts/make-gguf-fixtures.py, from tests/fixtures/hf/
// tiny-smollm, whose tokenizer.json has SmolLM's Digits + ByteLevel pre-tokenizer). Each file
// loads, tokenizes as the Python reference tokenizer does (digits apart), and gives the logits
// and greedy tokens of its safetensors twin quantized the same way (dtype 'q8' / 'q4').
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';

const attn = await init();
const hfDir = fileURLToPath(new URL('./fixtures/hf/tiny-smollm', import.meta.url));
const ggufDir = fileURLToPath(new URL('./fixtures/gguf/', import.meta.url));
const ref = JSON.parse(readFileSync(`${hfDir}/reference.json`, 'utf8'));

for (const [file, dtype] of [
  ['tiny-smollm-q8_0.gguf', 'q8'],
  ['tiny-smollm-q4_0.gguf', 'q4'],
]) {
  test(`${file}: tokens, logits and greedy tokens of the safetensors twin with dtype '${dtype}'`, async () => {
    const gguf = await attn.loadModel(`${ggufDir}${file}`);
    const twin = await attn.loadModel(hfDir, { dtype });
    try {
      assert.equal(gguf.matrixDtype, dtype);
      assert.equal(gguf.parameterBytes, twin.parameterBytes);
      for (const [text, ids] of Object.entries(ref.digits)) {
        assert.deepEqual(gguf.tokenizer.encode(text).ids, ids, `GGUF tokens of ${JSON.stringify(text)}`);
        assert.deepEqual(twin.tokenizer.encode(text).ids, ids, `folder tokens of ${JSON.stringify(text)}`);
      }
      const text = Object.keys(ref.digits)[0];
      assert.deepEqual(gguf.forward(text).logits.data, twin.forward(text).logits.data, 'logits');
      const options = { maxNewTokens: 12, stopAtEos: false };
      const generated = await gguf.generate(ref.greedy.prompt, options);
      assert.deepEqual(generated.ids, (await twin.generate(ref.greedy.prompt, options)).ids, 'greedy tokens');
      assert.deepEqual(
        generated.ids,
        (await gguf.generate(ref.greedy.prompt, { ...options, useCache: false })).ids,
        'greedy tokens without the cache',
      );
      assert.equal(generated.newIds.length, 12);
    } finally {
      gguf.dispose();
      twin.dispose();
    }
  });
}
