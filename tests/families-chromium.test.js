// The families of issue 46 in headless Chromium, loaded by a page as it would (URLs, streamed):
// SmolLM3 (NoPE layers), Granite 3 (multipliers), OLMo 2 (norms after), ModernBERT (masked LM),
// EmbeddingGemma (bidirectional, embed through its Dense modules) and the GGUF forms (a SmolLM2-style Q8_0 file with tokenizer.ggml.pre
// 'smollm', Granite's float32 file, EmbeddingGemma's gemma-embedding file through embed,
// ModernBERT's modern-bert base model on token ids) match the float64 PyTorch references as they
// do in Node.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { assertClose } from './helpers/assert.js';
import { startServer } from '../scripts/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const hf = (name) => `tests/fixtures/hf/${name}`;
const reference = (name) => JSON.parse(readFileSync(`${root}${hf(name)}/reference.json`, 'utf8'));
const tol = { rtol: 1e-4, atol: 1e-5 };
// What the page runs: each source (relative to the page) and the texts of its reference's batch.
const CASES = {
  smollm3: {
    source: hf('tiny-smollm3'),
    texts: reference('tiny-smollm3').cases[1].texts,
    prompt: reference('tiny-smollm3').greedy.prompt,
  },
  granite: {
    source: hf('tiny-granite'),
    texts: reference('tiny-granite').cases[1].texts,
    prompt: reference('tiny-granite').greedy.prompt,
  },
  graniteGguf: {
    source: 'tests/fixtures/gguf/tiny-granite-f32.gguf',
    texts: reference('tiny-granite').cases[1].texts,
    prompt: reference('tiny-granite').greedy.prompt,
  },
  smollmGguf: {
    source: 'tests/fixtures/gguf/tiny-smollm-q8_0.gguf',
    texts: reference('tiny-smollm').cases[1].texts,
    prompt: 'In 2026 there were 12345 tokens',
  },
  embeddinggemma: { source: hf('tiny-embeddinggemma'), texts: reference('tiny-embeddinggemma').embeddings.texts },
  olmo2: {
    source: hf('tiny-olmo2'),
    texts: reference('tiny-olmo2').cases[1].texts,
    prompt: reference('tiny-olmo2').greedy.prompt,
  },
  modernbert: { source: hf('tiny-modernbert'), texts: reference('tiny-modernbert').cases[1].texts },
  // The GGUF forms of EmbeddingGemma (embed) and of ModernBERT's base model (token ids: no tokenizer).
  embeddinggemmaGguf: {
    source: 'tests/fixtures/gguf/tiny-embeddinggemma-6-f32.gguf',
    texts: reference('tiny-embeddinggemma-6').embeddings.texts,
  },
  modernbertGguf: {
    source: 'tests/fixtures/gguf/tiny-modernbert-f32.gguf',
    input: {
      inputIds: reference('tiny-modernbert').cases[1].ids,
      attentionMask: reference('tiny-modernbert').cases[1].ids.map((row, b) =>
        row.map((_, i) => (i < reference('tiny-modernbert').cases[1].lengths[b] ? 1 : 0)),
      ),
    },
  },
};

let server, url, browser;
test.before(async () => {
  ({ server, url } = await startServer({ port: 0, served: ['bindings', 'dist', 'tests', 'build'] }));
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  server?.close();
  rmSync(`${root}build/families-page`, { recursive: true, force: true });
});

test(
  'SmolLM3, Granite, OLMo 2, ModernBERT, EmbeddingGemma and GGUF forms match their references in a page',
  { timeout: 180_000 },
  async () => {
    mkdirSync(`${root}build/families-page`, { recursive: true });
    writeFileSync(
      `${root}build/families-page/index.html`,
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import { init } from '/bindings/js/browser.js';
const attn = await init({ simd: 'baseline' });
const CASES = ${JSON.stringify(CASES)};
const plain = (t) => ({ shape: t.shape, data: Array.from(t.data) });
window.result = await (async () => {
  const out = {};
  for (const [id, { source, texts, prompt, input }] of Object.entries(CASES)) {
    const model = await attn.loadModel('../../' + source, { cache: false });
    if (id === 'modernbertGguf') {
      out[id] = { lastHiddenState: plain(model.forward(input).lastHiddenState) };
    } else if (id === 'embeddinggemmaGguf') {
      out[id] = { embeddings: plain(model.embed(texts)) };
    } else if (id === 'modernbert') {
      out[id] = { logits: plain(model.forward(texts).logits) };
    } else if (id === 'embeddinggemma') {
      out[id] = { lastHiddenState: plain(model.forward(texts).lastHiddenState), embeddings: plain(model.embed(texts)) };
    } else {
      const logits = plain(model.forward(texts).logits);
      const greedy = (await model.generate(prompt, { maxNewTokens: 6, stopAtEos: false })).ids;
      out[id] = { logits, greedy };
    }
    model.dispose();
  }
  return out;
})().catch((e) => ({ error: e.name + ': ' + e.message }));
</script></head><body></body></html>`,
    );
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}build/families-page/index.html`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 150_000 });
    const result = await page.evaluate(() => window.result);
    await page.close();
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(errors, []);
    for (const [id, name] of [
      ['smollm3', 'tiny-smollm3'],
      ['granite', 'tiny-granite'],
      ['graniteGguf', 'tiny-granite'],
      ['olmo2', 'tiny-olmo2'],
    ]) {
      const ref = reference(name);
      assertClose(result[id].logits, ref.cases[1].logits, { ...tol, label: `${id} logits` });
      assert.deepEqual(result[id].greedy, ref.greedy.ids.slice(0, ref.greedy.ids.length - 6), `${id} greedy`);
    }
    // ModernBERT's masked-LM logits of the padded batch.
    assertClose(result.modernbert.logits, reference('tiny-modernbert').cases[1].logits, {
      ...tol,
      label: 'modernbert logits',
    });
    // The Q8_0 SmolLM2-style file: Node's logits and tokens, bit for bit.
    const attn = await init({ simd: 'baseline' });
    const node = await attn.loadModel(`${root}${CASES.smollmGguf.source}`);
    try {
      assert.deepEqual(result.smollmGguf.logits.data, Array.from(node.forward(CASES.smollmGguf.texts).logits.data));
      const greedy = await node.generate(CASES.smollmGguf.prompt, { maxNewTokens: 6, stopAtEos: false });
      assert.deepEqual(result.smollmGguf.greedy, greedy.ids);
    } finally {
      node.dispose();
    }
    // EmbeddingGemma: the embeddings of the three texts as one batch, and the last hidden state's
    // real rows of texts 1 and 2 (the reference's padded batch).
    const eg = reference('tiny-embeddinggemma');
    assertClose(result.embeddinggemma.embeddings, eg.embeddings.batch, { ...tol, label: 'EmbeddingGemma embed' });
    const c = eg.cases[1];
    assert.deepEqual(c.texts, eg.embeddings.texts.slice(1, 3));
    const h = result.embeddinggemma.lastHiddenState;
    const d = h.shape[2];
    const rows = (t, T, batch) => {
      const data = batch.flatMap((b, k) => Array.from(t.data.slice(b * T * d, (b * T + c.lengths[k]) * d)));
      return { data, shape: [data.length] };
    };
    assertClose(rows(h, h.shape[1], [1, 2]), rows(c.hidden_states.at(-1), c.ids[0].length, [0, 1]), {
      ...tol,
      label: 'EmbeddingGemma last hidden state',
    });
    // The GGUF forms: EmbeddingGemma's embeddings (sentence-transformers' float64 reference) and
    // ModernBERT's last hidden state of the padded batch (PyTorch's, real rows).
    const eg6 = reference('tiny-embeddinggemma-6');
    assertClose(result.embeddinggemmaGguf.embeddings, eg6.embeddings.batch, {
      rtol: 1e-4,
      atol: 1e-6,
      label: 'EmbeddingGemma GGUF embed',
    });
    const mb = reference('tiny-modernbert').cases[1];
    const m = result.modernbertGguf.lastHiddenState;
    const [B, T, dm] = m.shape;
    const real = (t) => {
      const data = [];
      for (let b = 0; b < B; b++) data.push(...Array.from(t.data.slice(b * T * dm, (b * T + mb.lengths[b]) * dm)));
      return { data, shape: [data.length] };
    };
    assertClose(real(m), real(mb.hidden_states.at(-1)), { ...tol, label: 'ModernBERT GGUF last hidden state' });
  },
);
