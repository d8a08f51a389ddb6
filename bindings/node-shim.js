// Prepended to the threaded ES6 glues (--extern-pre-js); scripts/patch-thread-glue.mjs then
// points the glue's pool at attnStartWorker below.
//
// Node: Emscripten 3.1.6's Node code paths use `require` and `__dirname`, which an ES module
// lacks; give them Node's. process.getBuiltinModule (Node 20.16+) is synchronous, so the glue
// has no top-level await: bundlers can put it in a worker bundle of any format (Vite's
// default 'iife' refuses top-level await). In a browser or a Worker both stay undefined.
const attnBuiltin =
  typeof process === 'object' &&
  typeof process.versions?.node === 'string' &&
  typeof process.getBuiltinModule === 'function'
    ? process.getBuiltinModule
    : null;
const require = attnBuiltin ? attnBuiltin('module').createRequire(import.meta.url) : undefined;
const __dirname = attnBuiltin
  ? attnBuiltin('path').dirname(attnBuiltin('url').fileURLToPath(import.meta.url))
  : undefined;

// Browsers: starts one pool Worker from the pthread script at `url`. A Worker script must
// have the page's origin, so from another origin (the package on a CDN) or a data: URL (a
// bundler that inlined it) a same-origin blob: script loads it with importScripts. The
// blob's URL is revoked once the Worker has fetched it (its first message).
function attnStartWorker(url) {
  const here = globalThis.location?.href;
  const script = String(url);
  if (here && new URL(script, here).origin === new URL(here).origin) return new Worker(script);
  const bootstrap = URL.createObjectURL(
    new Blob([`importScripts(${JSON.stringify(new URL(script, here).href)});`], { type: 'text/javascript' }),
  );
  const worker = new Worker(bootstrap);
  worker.addEventListener('message', () => URL.revokeObjectURL(bootstrap), { once: true });
  return worker;
}
