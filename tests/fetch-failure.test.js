// fetchFailureHint: a fetch that failed outright names the likely cause (no CORS header) only
// for a URL on another origin than the page's; the same origin, a relative path and Node
// (no page) get nothing added. The Chromium side is tests/hosts.test.js ("without CORS").
import test from 'node:test';
import assert from 'node:assert/strict';
import { fetchFailureHint } from '../bindings/js/fetch_failure.js';

const PAGE = 'http://127.0.0.1:8000';

test('another origin: the cause, both origins and the two fixes', () => {
  const hint = fetchFailureHint('http://127.0.0.1:9000/models/m/config.json', PAGE);
  assert.equal(
    hint,
    " (http://127.0.0.1:9000 is another origin than this page's, http://127.0.0.1:8000: if that server is up, it must allow this page" +
      ' to read the file with the header Access-Control-Allow-Origin (CORS), as npm CDNs and the Hugging Face Hub do,' +
      " or serve the file from this page's origin; the browser's console names the cause)",
  );
  assert.match(
    fetchFailureHint(new URL('https://cdn.example/x.wasm'), PAGE),
    /^ \(https:\/\/cdn\.example is another origin/,
  );
});

test('the same origin, a relative path, no page (Node), an opaque page or a non-http URL: nothing added', () => {
  assert.equal(fetchFailureHint('http://127.0.0.1:8000/models/m/config.json', PAGE), '');
  assert.equal(fetchFailureHint('./models/m/config.json', PAGE), '');
  assert.equal(fetchFailureHint('http://127.0.0.1:9000/x', undefined), '');
  assert.equal(fetchFailureHint('http://127.0.0.1:9000/x', 'null'), '');
  assert.equal(fetchFailureHint('data:application/json,{}', PAGE), '');
  assert.equal(fetchFailureHint('http://[bad', PAGE), '');
});

test('offline: nothing added (the network is the cause)', () => {
  assert.equal(fetchFailureHint('http://127.0.0.1:9000/models/m/config.json', PAGE, false), '');
  assert.notEqual(fetchFailureHint('http://127.0.0.1:9000/models/m/config.json', PAGE, true), '');
});

test('in Node the default page origin is absent, so a loadModel message stays as it was', () => {
  assert.equal(globalThis.location, undefined);
  assert.equal(fetchFailureHint('https://huggingface.co/x/resolve/main/config.json'), '');
});
