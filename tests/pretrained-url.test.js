// loadModel from a URL (Node's fetch against the project's own server): the weights stream,
// every header is checked before anything is allocated, each tensor is packed as its bytes
// arrive. The same logits as from the folder; progress events in order; a file cut short or
// a header that lies is a RangeError naming the file and the tensor, with nothing left
// allocated; a missing folder says so.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-wasm';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startServer } from '../scripts/server.js';
import { writeSafetensors, readSafetensors } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = `${root}build/test-models/`;
let server, url, chunked, chunkedUrl;

test.before(async () => {
  rmSync(scratch, { recursive: true, force: true });
  const weights = new Uint8Array(readFileSync(`${root}tests/fixtures/hf/tiny-gpt2/model.safetensors`));
  const variant = (name, bytes) => {
    mkdirSync(`${scratch}${name}`, { recursive: true });
    writeFileSync(`${scratch}${name}/config.json`, readFileSync(`${root}tests/fixtures/hf/tiny-gpt2/config.json`));
    writeFileSync(`${scratch}${name}/model.safetensors`, bytes);
  };
  variant('cut', weights.subarray(0, weights.length - 1000));
  variant('header-cut', weights.subarray(0, 100));
  const tensors = readSafetensors(weights);
  variant(
    'lying',
    writeSafetensors(tensors, {
      headerOverride: (h) => {
        h['transformer.ln_f.bias'].shape = [31];
        return h;
      },
    }),
  );
  ({ server, url } = await startServer({ port: 0, served: ['tests', 'build'] }));
  // A server that sends no Content-Length (chunked): the size is known only at the end; under
  // /gzip/ it compresses, with the compressed Content-Length (as CDNs and dev servers do).
  chunked = createServer((req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname).slice(1);
      if (path.startsWith('gzip/')) {
        const zipped = gzipSync(readFileSync(`${root}${path.slice(5)}`));
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': zipped.length });
        res.end(zipped);
        return;
      }
      const body = readFileSync(`${root}${path}`);
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      for (let i = 0; i < body.length; i += 10_000) res.write(body.subarray(i, i + 10_000));
      res.end();
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => chunked.listen(0, '127.0.0.1', resolve));
  chunkedUrl = `http://127.0.0.1:${chunked.address().port}/`;
});

test.after(() => {
  server?.close();
  chunked?.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('a URL streams into the same model as the folder; progress in order', async () => {
  const text = 'The cat sat on the mat.';
  const folder = await attn.loadModel(`${root}tests/fixtures/hf/tiny-gpt2`);
  const expected = folder.forward(text, { attentions: true });
  folder.dispose();
  const events = [];
  const model = await attn.loadModel(`${url}tests/fixtures/hf/tiny-gpt2/`, { onProgress: (p) => events.push(p) });
  const out = model.forward(text, { attentions: true });
  assert.deepEqual(out.logits.data, expected.logits.data);
  assert.deepEqual(out.tokens, expected.tokens);
  model.dispose();
  const size = readFileSync(`${root}tests/fixtures/hf/tiny-gpt2/model.safetensors`).length;
  const bytes = events.filter((p) => p.file === 'model.safetensors' && !p.stage);
  assert.ok(
    bytes.length >= 1 && bytes.every((p, i) => p.total === size && (i === 0 || p.loaded > bytes[i - 1].loaded)),
  );
  assert.equal(bytes.at(-1).loaded, size);
  const packed = events.filter((p) => p.stage === 'weights');
  assert.deepEqual(
    packed.map((p) => p.loaded),
    packed.map((_, i) => i + 1),
  );
});

test('a URL cut short, a header that lies, a missing folder: named errors, nothing left allocated', async () => {
  const inUse = attn.memory().inUseBytes;
  const cases = [
    ['cut', /^loadModel: model.safetensors: tensor '[^']+' ends at byte \d+ but the file has 146640 \(truncated\?\)/],
    ['header-cut', /^loadModel: model.safetensors is 100 bytes but its header alone needs \d+ \(truncated\?\)/],
    [
      'lying',
      /^loadModel: model.safetensors: tensor 'transformer.ln_f.bias': shape \[31\] of F32 needs 124 bytes but data_offsets give 128/,
    ],
    ['nothing-here', /^loadModel: http:\/\/127.0.0.1:\d+\/build\/test-models\/nothing-here\/ has no config.json/],
  ];
  for (const [name, pattern] of cases) {
    await assert.rejects(
      attn.loadModel(`${url}build/test-models/${name}/`),
      (e) => e instanceof RangeError && pattern.test(e.message),
      name,
    );
    assert.equal(attn.memory().inUseBytes, inUse, `${name}: nothing left allocated`);
  }
  // Without a Content-Length the cut shows while streaming: after allocating, so the model is freed.
  await assert.rejects(
    attn.loadModel(`${chunkedUrl}build/test-models/cut/`),
    (e) =>
      e instanceof RangeError &&
      /^loadModel: model.safetensors ended at byte 146640, before tensor 'transformer.h.1.mlp.c_proj.weight' \(bytes \d+..\d+; truncated\?\)/.test(
        e.message,
      ),
  );
  assert.equal(attn.memory().inUseBytes, inUse, 'chunked cut: the model was freed');
  const whole = await attn.loadModel(`${chunkedUrl}tests/fixtures/hf/tiny-gpt2/`);
  const zipped = await attn.loadModel(`${chunkedUrl}gzip/tests/fixtures/hf/tiny-gpt2/`);
  assert.deepEqual(
    zipped.forward('The cat').logits.data,
    whole.forward('The cat').logits.data,
    'a gzip-encoded checkpoint (compressed Content-Length) loads the same',
  );
  whole.dispose();
  zipped.dispose();
});
