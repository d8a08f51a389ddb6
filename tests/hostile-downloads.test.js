// A refused or aborted URL load stops downloading (issue 32 item 4). A checkpoint whose header
// asks for more memory than the heap holds is refused after its header: every body still
// downloading is cancelled (the server sees the connection close long before the file's end)
// and the Cache API keeps no copy (it keeps complete files only). The same for a load aborted
// by options.signal in the middle of the weights. In Node (fetch, no Cache API) and in
// headless Chromium (fetch and the Cache API).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './helpers/chromium.js';
import { init } from 'attention-wasm';
import { startServer } from '../scripts/server.js';
import { writeSafetensors, readSafetensors } from './helpers/safetensors.js';

const attn = await init({ simd: 'baseline' });
const fixture = fileURLToPath(new URL('./fixtures/hf/tiny-gpt2/', import.meta.url));
const config = JSON.parse(readFileSync(`${fixture}config.json`, 'utf8'));
const tensors = readSafetensors(new Uint8Array(readFileSync(`${fixture}model.safetensors`)));
const PADDING = 256 * 2 ** 20; // bytes of a tensor the model does not use

// A safetensors file whose first tensor is PADDING zero bytes (never materialized: the server
// streams zeros), then the model's tensors: { head, zeros, tail } with head + zeros + tail the file.
function paddedCheckpoint() {
  const entries = Object.entries(tensors);
  const header = { 'unused.padding': { dtype: 'F32', shape: [PADDING / 4], data_offsets: [0, PADDING] } };
  let offset = PADDING;
  for (const [name, t] of entries) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(8 + json.length);
  new DataView(head.buffer).setUint32(0, json.length, true);
  head.set(json, 8);
  const tail = new Uint8Array(offset - PADDING);
  let at = 0;
  for (const [, t] of entries) {
    tail.set(t.bytes, at);
    at += t.bytes.length;
  }
  return { head, zeros: PADDING, tail, size: head.length + PADDING + tail.length };
}

// Serves /<case>/<file> with CORS (the page is on another port); records each big download:
// bytes written, and whether the client closed it before its end.
async function checkpointServer() {
  const padded = paddedCheckpoint();
  const small = writeSafetensors(tensors);
  const huge = { ...config, vocab_size: 200_000_000 }; // needs ~24 GiB: refused after the header
  const files = {
    'refused/config.json': JSON.stringify(huge),
    'refused/model.safetensors': padded,
    'abort/config.json': JSON.stringify(config),
    'abort/model.safetensors': padded,
    'ok/config.json': JSON.stringify(config),
    'ok/model.safetensors': small,
  };
  const downloads = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).slice(1);
    const cors = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const file = files[name];
    if (file === undefined) return res.writeHead(404, cors).end();
    if (!file.zeros) {
      const body = typeof file === 'string' ? file : Buffer.from(file);
      return res.writeHead(200, { ...cors, 'content-length': Buffer.byteLength(body) }).end(body);
    }
    const record = { name, written: 0, size: file.size, closedEarly: false, done: false };
    downloads.push(record);
    res.writeHead(200, { ...cors, 'content-length': file.size, 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(1 << 20);
    let zerosLeft = file.zeros;
    res.on('close', () => {
      record.closedEarly = !record.done;
    });
    const pump = () => {
      if (record.written === 0) {
        res.write(file.head);
        record.written += file.head.length;
      }
      while (zerosLeft > 0) {
        const n = Math.min(zerosLeft, chunk.length);
        zerosLeft -= n;
        record.written += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      record.written += file.tail.length;
      record.done = true;
      res.end(Buffer.from(file.tail));
    };
    pump();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, downloads, url: `http://127.0.0.1:${server.address().port}/` };
}

const until = async (condition, ms = 5000) => {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

let checkpoints;
test.before(async () => {
  checkpoints = await checkpointServer();
});
test.after(() => checkpoints?.server.close());

test('Node: a refused load cancels its download; an aborted one too; a good one still loads', async () => {
  const { url, downloads } = checkpoints;
  downloads.length = 0;
  const inUse = attn.memory().inUseBytes;
  await assert.rejects(
    attn.loadModel(`${url}refused/`),
    /^RangeError: loadModel: the gpt2 (weights need .* of wasm memory|model's largest table)/,
  );
  assert.ok(await until(() => downloads[0]?.closedEarly), `the download was not closed: ${JSON.stringify(downloads)}`);
  assert.ok(
    downloads[0].written < downloads[0].size / 2,
    `${downloads[0].written} of ${downloads[0].size} bytes were sent`,
  );
  console.log(`# Node: the refused download sent ${downloads[0].written} of ${downloads[0].size} bytes`);
  // Aborted while streaming the unused 256 MiB: an AbortError, the download closed.
  const controller = new AbortController();
  const load = attn.loadModel(`${url}abort/`, {
    signal: controller.signal,
    onProgress: (p) => {
      if (p.loaded > 4 * 2 ** 20) controller.abort();
    },
  });
  await assert.rejects(load, (e) => e.name === 'AbortError');
  assert.ok(
    await until(() => downloads[1]?.closedEarly),
    `the aborted download was not closed: ${JSON.stringify(downloads)}`,
  );
  assert.ok(downloads[1].written < downloads[1].size / 2);
  assert.equal(attn.memory().inUseBytes, inUse, 'nothing left allocated');
  // A signal already aborted: nothing is requested.
  const before = downloads.length;
  await assert.rejects(attn.loadModel(`${url}abort/`, { signal: AbortSignal.abort() }), (e) => e.name === 'AbortError');
  assert.equal(downloads.length, before);
  const model = await attn.loadModel(`${url}ok/`);
  const reference = await attn.loadModel(fixture);
  assert.deepEqual(model.forward([[5, 6, 7]]).logits.data, reference.forward([[5, 6, 7]]).logits.data);
  model.dispose();
  reference.dispose();
});

test('Chromium: a refused or aborted load stops downloading and leaves nothing in the Cache API; a complete one is cached', async () => {
  const { url, downloads } = checkpoints;
  downloads.length = 0;
  const { server, url: pageUrl } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${pageUrl}tests/helpers/blank.html`);
    const refused = await page.evaluate(async (base) => {
      const { init } = await import('/bindings/js/browser.js');
      const attn = await init({ simd: 'baseline' });
      await caches.delete('attention-wasm-models');
      let message = null;
      try {
        await attn.loadModel(`${base}refused/`);
      } catch (e) {
        message = `${e.name}: ${e.message}`;
      }
      return message;
    }, url);
    assert.match(refused, /^RangeError: loadModel: the gpt2 (weights need .* of wasm memory|model's largest table)/);
    assert.ok(
      await until(() => downloads[0]?.closedEarly),
      `the download was not closed: ${JSON.stringify(downloads)}`,
    );
    const afterRefusal = downloads[0].written;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(downloads[0].written, afterRefusal, 'nothing more was sent after the refusal');
    assert.ok(afterRefusal < downloads[0].size / 2, `${afterRefusal} of ${downloads[0].size} bytes were sent`);
    console.log(`# Chromium: the refused download sent ${afterRefusal} of ${downloads[0].size} bytes`);
    const aborted = await page.evaluate(async (base) => {
      const { init } = await import('/bindings/js/browser.js');
      const attn = await init({ simd: 'baseline' });
      const controller = new AbortController();
      let name = null;
      try {
        await attn.loadModel(`${base}abort/`, {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.loaded > 4 * 2 ** 20) controller.abort();
          },
        });
      } catch (e) {
        name = e.name;
      }
      await new Promise((resolve) => setTimeout(resolve, 300)); // a partial copy would be stored by now
      const cache = await caches.open('attention-wasm-models');
      const stored = (await cache.keys()).map((r) => new URL(r.url).pathname);
      (await attn.loadModel(`${base}ok/`)).dispose();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const storedAfterOk = (await cache.keys()).map((r) => new URL(r.url).pathname).sort();
      const okBytes = (await (await cache.match(`${base}ok/model.safetensors`))?.arrayBuffer())?.byteLength ?? 0;
      return { name, stored, storedAfterOk, okBytes };
    }, url);
    assert.equal(aborted.name, 'AbortError');
    assert.ok(
      await until(() => downloads[1]?.closedEarly),
      `the aborted download was not closed: ${JSON.stringify(downloads)}`,
    );
    assert.ok(downloads[1].written < downloads[1].size / 2);
    assert.deepEqual(
      aborted.stored.filter((p) => p.endsWith('.safetensors')),
      [],
      'no partial weights in the cache',
    );
    assert.deepEqual(
      aborted.storedAfterOk.filter((p) => p.startsWith('/ok/')),
      ['/ok/config.json', '/ok/model.safetensors'],
    );
    assert.equal(aborted.okBytes, writeSafetensors(tensors).length, 'the cached copy is the whole file');
  } finally {
    await browser.close();
    server.close();
  }
});

test('Chromium: a Cache API that refuses the copy (over its quota) does not fail the load', async () => {
  // A 2.4 GB checkpoint in a headless tab: Cache.put cancels the body it was given, with no
  // reason, and rejects. The loader's copy must stop there and the load go on (it failed
  // with `undefined`, the cancelled body's reason, before).
  const { url } = checkpoints;
  const { server, url: pageUrl } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${pageUrl}tests/helpers/blank.html`);
    const result = await page.evaluate(async (base) => {
      const { init } = await import('/bindings/js/browser.js');
      const attn = await init({ simd: 'baseline' });
      await caches.delete('attention-wasm-models');
      // abort/: 256 MiB streamed in many chunks before the tensors (loaded whole here).
      const reference = await attn.loadModel(`${base}abort/`, { cache: false });
      const want = Array.from(reference.forward([[5, 6, 7]]).logits.data);
      reference.dispose();
      // Every cache refuses: its put reads a first chunk, cancels the body, rejects.
      let refusals = 0;
      const open = caches.open.bind(caches);
      caches.open = async (name) => {
        const cache = await open(name);
        cache.put = async (request, response) => {
          const reader = response.body.getReader();
          await reader.read();
          await reader.cancel();
          refusals++;
          throw undefined; // eslint-disable-line no-throw-literal
        };
        return cache;
      };
      let error = null,
        got = null;
      try {
        const model = await attn.loadModel(`${base}abort/`);
        got = Array.from(model.forward([[5, 6, 7]]).logits.data);
        model.dispose();
      } catch (e) {
        error = String(e?.message ?? e);
      }
      caches.open = open;
      const stored = (await (await open('attention-wasm-models')).keys()).length;
      return { error, same: got !== null && got.every((v, i) => v === want[i]), refusals, stored };
    }, url);
    assert.equal(result.error, null);
    assert.ok(result.refusals >= 1, 'the cache refused a copy');
    assert.ok(result.same, 'the logits are those of the load without the cache');
    assert.equal(result.stored, 0, 'nothing was stored');
  } finally {
    await browser.close();
    server.close();
  }
});
