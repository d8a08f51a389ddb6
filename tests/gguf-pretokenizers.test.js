// GGUF files as llama.cpp's converter writes them (issue 46): every tokenizer.ggml.pre value
// gguf_tokenizer.js reads gives the token ids the Hugging Face tokenizer of that kind of model
// gives, on multilingual, emoji and whitespace text. The expected ids come from
// scripts/make-gguf-pretokenizer-fixtures.py, which tokenizes without the tokenizers library
// (the `regex` module and its own byte-level BPE) with each kind's tokenizer.json
// pre-tokenizer; tests/fixtures/gguf/pretokenizers.json also records llama-vocab.cpp's grouping
// of the names. Each kind splits the texts its own way (the script checks that no two agree),
// so a name mapped to the wrong kind fails.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ggufTokenizer, GGUF_PRE_TOKENIZERS } from '../bindings/js/models/gguf_tokenizer.js';
import { loadTokenizer } from '../bindings/js/models/tokenizer.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/gguf/pretokenizers.json', import.meta.url), 'utf8'));

// The tokenizer a GGUF file with this pre-tokenizer name and the fixture's vocabulary gives.
async function tokenizerOf(pre) {
  const meta = new Map([
    ['tokenizer.ggml.model', 'gpt2'],
    ['tokenizer.ggml.tokens', fixture.tokens],
    ['tokenizer.ggml.merges', fixture.merges],
    ['tokenizer.ggml.add_bos_token', false],
  ]);
  if (pre !== undefined) meta.set('tokenizer.ggml.pre', pre);
  const { json, config } = ggufTokenizer('test', 'test.gguf', meta, fixture.tokens.length);
  return loadTokenizer('test', json, config);
}

test('every tokenizer.ggml.pre value read is one llama.cpp writes, grouped as llama-vocab.cpp groups it', () => {
  assert.deepEqual(
    Object.keys(GGUF_PRE_TOKENIZERS).sort(),
    Object.keys(fixture.names).sort(),
    'the names read are the names the fixture tests',
  );
  for (const [name, kind] of Object.entries(GGUF_PRE_TOKENIZERS)) assert.equal(kind, fixture.names[name], name);
  for (const name of ['smollm', 'llama-bpe', 'qwen2', 'gpt-2', 'gpt-4o', 'tekken'])
    assert.ok(Object.hasOwn(GGUF_PRE_TOKENIZERS, name), name);
});

for (const name of Object.keys(fixture.names)) {
  test(`tokenizer.ggml.pre '${name}': the Hugging Face tokenizer's ids on multilingual, emoji and whitespace text`, async () => {
    const { ids } = fixture.kinds[fixture.names[name]];
    const tokenizer = await tokenizerOf(name);
    fixture.texts.forEach((text, i) => {
      const out = tokenizer.encode(text);
      assert.deepEqual(out.ids, ids[i], `${name}: text ${i} ${JSON.stringify(text)}`);
      assert.equal(tokenizer.decode(out.ids), text, `${name}: decode gives the text back`);
    });
  });
}

test('a file without tokenizer.ggml.pre reads as GPT-2; an unknown name is refused, naming the known ones', async () => {
  const tokenizer = await tokenizerOf(undefined);
  assert.deepEqual(
    fixture.texts.map((text) => tokenizer.encode(text).ids),
    fixture.kinds.gpt2.ids,
  );
  await assert.rejects(
    tokenizerOf('deepseek-coder'),
    /^RangeError: test: test\.gguf: tokenizer\.ggml\.pre 'deepseek-coder' is not supported \(supported: default, gpt-2, .*smollm.*\)/,
  );
});

test("SmolLM's own tokenizer.json (Digits, then ByteLevel) splits every \\p{N} as the tokenizers crate does", async () => {
  // @huggingface/tokenizers' Digits takes only ASCII \d; the crate and llama.cpp take \p{N}
  // (١٢٣٤, १२३ in the texts): tokenizer.js reads Digits as a Split on \p{N}.
  const vocab = Object.fromEntries(fixture.tokens.map((t, i) => [t, i]));
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const json = {
    version: '1.0',
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Digits', individual_digits: true }, byteLevel],
    },
    post_processor: null,
    decoder: byteLevel,
    model: { type: 'BPE', vocab, merges: fixture.merges.map((m) => m.split(' ')), ignore_merges: false },
  };
  const tokenizer = await loadTokenizer('test', json);
  assert.deepEqual(
    fixture.texts.map((text) => tokenizer.encode(text).ids),
    fixture.kinds.smollm.ids,
  );
});
