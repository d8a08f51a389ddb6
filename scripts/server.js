// A small static file server for the page: serves web/, dist/, bindings/ and bench/ from the
// project root (and the tokenizer and chat template libraries' dist/ from node_modules), with .wasm as application/wasm, cross-origin isolated. Loopback only.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVED = ['web', 'dist', 'bindings', 'bench'];
// The dependencies the browser entry imports (by their bare names, mapped by the page's import
// map, or found beside the package): the tokenizer and chat template libraries' ES modules.
const DEPENDENCIES = ['tokenizers', 'jinja'].map((name) => join('node_modules', '@huggingface', name, 'dist'));
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ts': 'text/plain; charset=utf-8',
};

// Cross-origin isolation: with these on every response the page gets `crossOriginIsolated`
// (SharedArrayBuffer, so wasm threads, and precise timers). CORP marks our own files as
// loadable by our own pages under COEP.
const ISOLATION = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

// What public npm CDNs send: any origin may fetch (CORS) and embed (CORP) the files.
const CDN = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
};

/**
 * Starts the server; resolves to { server, url } once it listens. Port 0 picks a free one.
 * `root` and `served` (top-level folders allowed, or null for all) serve other trees
 * (the bundler test serves a Vite build with them). `isolated: false` leaves out the
 * cross-origin isolation headers (to test what a site without them gets). `/docs/` serves
 * build/docs, the API reference (`docs: false` turns that off). `cdn: true` answers as an npm
 * CDN does (CORS for every origin, resources loadable cross-origin), to test pages on
 * another origin that import the package from here.
 */
export function startServer({ port = 8080, host = '127.0.0.1', root = ROOT, served = SERVED, isolated = true, docs = true, cdn = false } = {}) {
  const isolation = cdn ? CDN : isolated ? ISOLATION : {};
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/docs' && docs && served !== null) {
      res.writeHead(302, { location: '/docs/' });
      res.end();
      return;
    }
    if (path === '/' && served !== null) {
      res.writeHead(302, { location: '/web/' });
      res.end();
      return;
    }
    let relative = normalize(path.endsWith('/') ? `${path}index.html` : path).replace(/^[/\\]+/, '');
    // /docs/ is the API reference TypeDoc writes into build/docs (npm run docs).
    if (docs && served !== null && (relative === 'docs' || relative.startsWith(`docs${sep}`))) relative = join('build', relative);
    const dependency = DEPENDENCIES.some((folder) => relative.startsWith(`${folder}${sep}`));
    if (relative.startsWith('..') || (served !== null && !dependency && !served.includes(relative.split(sep)[0]) && !(docs && relative.startsWith(`build${sep}docs${sep}`)))) {
      res.writeHead(404).end('not found');
      return;
    }
    try {
      const body = await readFile(join(root, relative));
      res.writeHead(200, { 'content-type': TYPES[extname(relative)] ?? 'application/octet-stream', 'content-length': body.length, 'cache-control': 'no-cache', ...isolation });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}/` }));
  });
}
