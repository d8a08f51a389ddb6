// Patches a threaded ES6 Emscripten 3.1.6 glue in place, after it is linked (and minified):
//   node scripts/patch-thread-glue.mjs dist/attention-threads.js
// 1. The pool Worker starts through attnStartWorker (bindings/node-shim.js), from a URL made
//    apart from `new Worker(...)`. Bundlers then see `new URL('x.worker.js', import.meta.url)`
//    as an asset to copy as it is, not `new Worker(new URL(...))` as a worker entry to bundle
//    (Vite bundled it as 'iife' by default and failed on the glue it imports), and a CDN
//    origin gets a blob: bootstrap instead of a SecurityError.
// 2. The worker imports the glue from the glue's own URL (import.meta.url), not from
//    "./<name>.js" beside the worker script: a bundler renames and moves both files.
// Each pattern must match exactly once, or the build stops: a new emcc needs a look here.
import { readFileSync, writeFileSync } from 'node:fs';

const [glue] = process.argv.slice(2);
let text = readFileSync(glue, 'utf8');

function replaceOnce(pattern, replacement, what) {
  const matches = text.match(new RegExp(pattern.source, 'g')) ?? [];
  if (matches.length !== 1) throw new Error(`${glue}: expected one ${what}, found ${matches.length}`);
  text = text.replace(pattern, replacement);
}

replaceOnce(
  /new Worker\(new URL\(("[\w.-]+\.worker\.js"),\s*import\.meta\.url\)\)/,
  (_, name) => `attnStartWorker(new URL(${name},import.meta.url))`,
  'new Worker(new URL(worker, import.meta.url))',
);
replaceOnce(
  /"urlOrBlob":\s*Module\["mainScriptUrlOrBlob"\]/,
  '"urlOrBlob":Module["mainScriptUrlOrBlob"]||import.meta.url',
  'urlOrBlob: Module["mainScriptUrlOrBlob"]',
);
if (!text.includes('function attnStartWorker('))
  throw new Error(`${glue}: the shim (bindings/node-shim.js) is missing`);
writeFileSync(glue, text);
