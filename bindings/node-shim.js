// Prepended to the threaded ES6 glues (--extern-pre-js). Emscripten 3.1.6's Node code paths
// use `require` and `__dirname`, which an ES module lacks; give them Node's. In a browser or
// a Worker this does nothing. The module names are not string literals, and the import is
// marked ignored, so bundlers (webpack, esbuild, Vite, Rollup) leave it alone.
const attnIsNode = typeof process === 'object' && typeof process.versions === 'object' && typeof process.versions.node === 'string';
const attnNodeImport = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);
const attnNodeModules = ['node:module', 'node:url'];
const require = attnIsNode ? (await attnNodeImport(attnNodeModules[0])).createRequire(import.meta.url) : undefined;
const __dirname = attnIsNode ? (await attnNodeImport(attnNodeModules[1])).fileURLToPath(new URL('.', import.meta.url)) : undefined;
