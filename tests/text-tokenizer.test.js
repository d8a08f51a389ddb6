// The review classifier's tokenizer (issue 20): a WordPiece vocabulary learned from the
// corpus, written as a Hugging Face tokenizer.json and read by @huggingface/tokenizers.
// Checked against the library itself (the training encoder must give the same ids), against
// the text (round trips, character offsets), for unknown words ([UNK], one per word), and
// the pieces of the learning (BertNormalizer, BertPreTokenizer, greedy longest match,
// float16 conversion) against hand-computed cases and closed forms.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { loadTokenizer } from '../bindings/js/models/tokenizer.js';
import {
  learnVocabulary,
  wordPieceTokenizerJson,
  WordPieceEncoder,
  normalize,
  preTokenize,
  segment,
  SPECIAL_TOKENS,
} from '../bindings/js/text/wordpiece.js';
import { floatToHalf } from '../bindings/js/text/safetensors_io.js';
import { halfToFloat } from '../bindings/js/tensor.js';
import { SOURCES, readUciFile } from '../web/elements/training/review-recipe.js';

const DIR = new URL('../web/elements/models/review-sentiment/', import.meta.url);
const json = JSON.parse(readFileSync(new URL('tokenizer.json', DIR), 'utf8'));
const vocab = Object.keys(json.model.vocab).sort((a, b) => json.model.vocab[a] - json.model.vocab[b]);
const tokenizer = await loadTokenizer('test', json);
const encoder = new WordPieceEncoder(vocab);
const sentences = Object.values(SOURCES).flatMap((name) =>
  readUciFile(readFileSync(new URL(`training/${name}`, DIR), 'utf8')).map((r) => r.text),
);

test('tokenizer.json: a standard WordPiece file (BertNormalizer, BertPreTokenizer, "##" pieces), specials first, ids dense', () => {
  assert.equal(json.model.type, 'WordPiece');
  assert.equal(json.normalizer.type, 'BertNormalizer');
  assert.equal(json.pre_tokenizer.type, 'BertPreTokenizer');
  assert.deepEqual(vocab.slice(0, SPECIAL_TOKENS.length), SPECIAL_TOKENS);
  assert.deepEqual(
    Object.values(json.model.vocab).sort((a, b) => a - b),
    vocab.map((_, i) => i),
  );
  assert.equal(tokenizer.vocabSize, vocab.length);
  assert.equal(tokenizer.type, 'WordPiece');
  // No one-letter continuation pieces: a word the pieces cannot spell is one [UNK].
  assert.equal(vocab.filter((t) => /^##.$/u.test(t)).length, 0);
});

test("the training encoder gives the library's ids on all 3,000 corpus sentences and on 2,000 random strings", () => {
  for (const text of sentences)
    assert.deepEqual(encoder.encode(text), tokenizer.encode(text, { addSpecialTokens: false }).ids, text);
  const alphabet = 'abcdefgxyzÉéüß东京 \t\n.,!?\'"-–—()🙂\u0000\u200b\u0301ﬁİ0123456789';
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((a) => a.join('')),
      (text) => {
        assert.deepEqual(
          encoder.encode(text),
          tokenizer.encode(text, { addSpecialTokens: false }).ids,
          JSON.stringify(text),
        );
      },
    ),
    { numRuns: 2000, seed: 20 },
  );
});

test("round trips and offsets: every token's span spells it, and decoding gives the normalized words back", () => {
  let checked = 0;
  for (const text of sentences) {
    const e = tokenizer.encode(text, { addSpecialTokens: false });
    const words = preTokenize(normalize(text));
    // Pieces glued back into words (a "##" piece continues the word before it).
    const glued = [];
    e.tokens.forEach((t) => (t.startsWith('##') ? (glued[glued.length - 1] += t.slice(2)) : glued.push(t)));
    assert.equal(glued.length, words.length, text);
    glued.forEach((g, i) => assert.ok(g === words[i] || g === '[UNK]', `${text}: ${g} vs ${words[i]}`));
    e.tokens.forEach((t, i) => {
      const [start, end] = e.offsets[i];
      assert.ok(start >= 0 && end > start && end <= text.length, `${text}: ${t} at ${start}..${end}`);
      if (t !== '[UNK]') assert.equal(normalize(text.slice(start, end)), t.replace(/^##/, ''), `${text}: ${t}`);
      if (i > 0) assert.ok(start >= e.offsets[i - 1][1], 'spans in order, not overlapping');
    });
    if (!e.tokens.includes('[UNK]')) {
      const decoded = tokenizer.decode(e.ids);
      assert.equal(decoded.replace(/\s+/g, ''), words.join(''), text);
      checked++;
    }
  }
  assert.ok(checked > 1500, `${checked} sentences without [UNK]`);
});

test('unknown words: made-up words are one [UNK] each, spanning the word; known words are not [UNK], and many are spelled from pieces', () => {
  const e = tokenizer.encode('the movie was bad qqq zzxv blorftk', { addSpecialTokens: false });
  assert.deepEqual(e.tokens, ['the', 'movie', 'was', 'bad', '[UNK]', '[UNK]', '[UNK]']);
  assert.deepEqual(e.offsets.slice(4), [
    [18, 21],
    [22, 26],
    [27, 34],
  ]);
  const known = tokenizer.encode('the acting was disappointing', { addSpecialTokens: false }).tokens;
  assert.deepEqual(known, ['the', 'acting', 'was', 'disappointing']);
  // Corpus words that the vocabulary spells from a start piece and "##" pieces.
  const spelled = [...new Set(sentences.flatMap((s) => preTokenize(normalize(s))))].filter((w) => {
    const t = tokenizer.encode(w, { addSpecialTokens: false }).tokens;
    return t.length >= 2 && !t.includes('[UNK]') && t.slice(1).every((x) => x.startsWith('##'));
  });
  assert.ok(spelled.length >= 100, `${spelled.length} words spelled from pieces`);
  assert.equal(encoder.encode('qqq blorftk')[0], encoder.unk);
});

test('BertNormalizer and BertPreTokenizer: hand-computed cases', () => {
  assert.equal(normalize('Café NAÏVE\tok\u0000\u200b'), 'cafe naive ok');
  assert.equal(normalize('東京'), ' 東  京 ');
  assert.deepEqual(preTokenize("don't stop-now!!"), ['don', "'", 't', 'stop', '-', 'now', '!', '!']);
  assert.deepEqual(preTokenize('  a  b '), ['a', 'b']);
});

test('greedy longest match and learning: a hand-worked corpus', () => {
  const known = new Set(['un', '##believ', '##able', 'b', '##e', '##l', '##i', '##v', '##a']);
  assert.deepEqual(segment('unbelievable', known), ['un', '##believ', '##able']);
  assert.deepEqual(segment('believe', known), ['b', '##e', '##l', '##i', '##e', '##v', '##e']);
  assert.equal(segment('zzz', known), null);
  // "low" ×5, "lower" ×2, "newest" ×6, "widest" ×3 (the BPE paper's example): the first merges
  // are the most frequent pairs, "##e ##s" (9) and then "##es ##t" (9).
  const texts = [
    ...Array(5).fill('low'),
    ...Array(2).fill('lower'),
    ...Array(6).fill('newest'),
    ...Array(3).fill('widest'),
  ];
  const v = learnVocabulary(texts, { vocabSize: 100, alphabetMinFrequency: 1 });
  const learned = v.slice(v.indexOf('w') + 1);
  assert.deepEqual(learned.slice(0, 2), ['##es', '##est']);
  assert.deepEqual(learnVocabulary(texts, { vocabSize: 100, alphabetMinFrequency: 1 }), v, 'deterministic');
  const json2 = wordPieceTokenizerJson(v);
  assert.equal(Object.keys(json2.model.vocab).length, v.length);
});

test('float16: every half survives half → float → half; ties round to even; overflow → Infinity', () => {
  for (let h = 0; h < 0x10000; h++) {
    const x = halfToFloat(h);
    if (Number.isNaN(x)) continue;
    assert.equal(floatToHalf(x), h, `half ${h.toString(16)}`);
  }
  assert.equal(floatToHalf(1 + 2 ** -11), 0x3c00, '1 + half an ulp → 1 (even)');
  assert.equal(floatToHalf(1 + 3 * 2 ** -11), 0x3c02, '1 + 1.5 ulp → 1 + 2 ulp (even)');
  assert.equal(floatToHalf(65520), 0x7c00);
  assert.equal(floatToHalf(2 ** -25), 0, 'half the smallest subnormal → 0 (even)');
  assert.equal(floatToHalf(3 * 2 ** -26), 1);
});
