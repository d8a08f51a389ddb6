// Prepended to the threaded ES6 glues (--extern-pre-js). Emscripten 3.1.6's Node code paths
// use `require` and `__dirname`, which an ES module lacks; give them Node's. In a browser or
// a Worker this does nothing.
const attnIsNode = typeof process === 'object' && typeof process.versions === 'object' && typeof process.versions.node === 'string';
const require = attnIsNode ? (await import('node:module')).createRequire(import.meta.url) : undefined;
const __dirname = attnIsNode ? (await import('node:url')).fileURLToPath(new URL('.', import.meta.url)) : undefined;
