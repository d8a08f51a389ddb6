// A small static file server for the page: serves web/, dist/, bindings/, bench/ and examples/
// from the package root (and the tokenizer and chat template libraries' dist/ from wherever
// node_modules holds them), with .wasm as application/wasm, cross-origin isolated. Loopback
// by default. `npm start` (scripts/serve.js) and `npx attention-wasm` (bin/) both run it.
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVED = ['web', 'dist', 'bindings', 'bench', 'examples'];
// The dependencies the browser entry imports (by their bare names, mapped by the page's import
// map, or found beside the package): the tokenizer and chat template libraries' ES modules,
// served at /node_modules/@huggingface/<name>/dist/. Found as Node finds them from this file:
// in a clone, the project's node_modules; installed, the consumer's (npm hoists them there).
const DEPENDENCIES = Object.fromEntries(
  ['tokenizers', 'jinja'].map((name) => [
    join('node_modules', '@huggingface', name, 'dist'),
    distFolder(`@huggingface/${name}`),
  ]),
);
// The examples are written for a project that installed the package
// (./node_modules/attention-wasm/...): under /examples/ the server stands in for that folder.
const EXAMPLES_PACKAGE = join('examples', 'node_modules', 'attention-wasm');
const EXAMPLES_DEPENDENCIES = join('examples', 'node_modules', '@huggingface');
// What /docs/ shows when the API reference was not built (an installed package has none).
const NO_DOCS = join('web', 'api-reference.html');

// The folder of a package's entry module (its dist/), or null when it is not installed.
function distFolder(name) {
  try {
    return dirname(createRequire(import.meta.url).resolve(name));
  } catch {
    return null;
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ts': 'text/plain; charset=utf-8',
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

// The file a request's path names, or null (a 404). `served` null serves all of root as it is.
function fileFor(path, { root, served, docs }) {
  let relative = normalize(path.endsWith('/') ? `${path}index.html` : path).replace(/^[/\\]+/, '');
  if (relative.startsWith('..')) return null;
  if (served === null) return join(root, relative);
  if (served.includes('examples') && relative.startsWith(`${EXAMPLES_PACKAGE}${sep}`)) {
    return fileFor(relative.slice(EXAMPLES_PACKAGE.length), { root, served, docs });
  }
  if (served.includes('examples') && relative.startsWith(`${EXAMPLES_DEPENDENCIES}${sep}`))
    relative = relative.slice(`examples${sep}`.length);
  for (const [folder, found] of Object.entries(DEPENDENCIES)) {
    if (relative.startsWith(`${folder}${sep}`)) return found && join(found, relative.slice(folder.length + 1));
  }
  // /docs/ is the API reference TypeDoc writes into build/docs (npm run docs).
  if (docs && (relative === 'docs' || relative.startsWith(`docs${sep}`))) relative = join('build', relative);
  if (docs && relative.startsWith(`build${sep}docs${sep}`)) {
    const unbuilt = relative === join('build', 'docs', 'index.html') && !existsSync(join(root, relative));
    return join(root, unbuilt ? NO_DOCS : relative);
  }
  return served.includes(relative.split(sep)[0]) ? join(root, relative) : null;
}

/**
 * Starts the server; resolves to { server, url } once it listens. Port 0 picks a free one.
 * `root` and `served` (top-level folders allowed, or null for all) serve other trees
 * (the bundler test serves a Vite build with them). `isolated: false` leaves out the
 * cross-origin isolation headers (to test what a site without them gets). `/docs/` serves
 * build/docs, the API reference, or, when it was not built, web/api-reference.html, which says
 * how to get it (`docs: false` turns /docs/ off). `cdn: true` answers as an npm CDN does (CORS
 * for every origin, resources loadable cross-origin), to test pages on another origin that
 * import the package from here. `host` may be any address to listen on; the URL names it.
 */
export function startServer({
  port = 8080,
  host = '127.0.0.1',
  root = ROOT,
  served = SERVED,
  isolated = true,
  docs = true,
  cdn = false,
} = {}) {
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
    const file = fileFor(path, { root, served, docs });
    if (file === null) {
      res.writeHead(404).end('not found');
      return;
    }
    // Streamed, not read whole: a checkpoint can be larger than a Node buffer (2 GiB).
    let size;
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': size,
      'cache-control': 'no-cache',
      ...isolation,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    stream.on('error', () => res.destroy());
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({ server, url: `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}/` }),
    );
  });
}
