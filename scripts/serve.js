// npm start: serves the page on http://127.0.0.1:8080 (PORT overrides), cross-origin
// isolated, with the API reference at /docs/ (built here by TypeDoc when the
// devDependencies are installed; `npm run docs` builds it alone).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { startServer } from './server.js';

const root = new URL('..', import.meta.url);
const typedoc = new URL('node_modules/.bin/typedoc', root);
const built = new URL('build/docs/index.html', root);
const changed = (file) => !existsSync(built) || statSync(new URL(file, root)).mtimeMs > statSync(built).mtimeMs;
let docs = 'not built: run `npm install` (devDependencies) and `npm run docs`';
if (
  existsSync(typedoc) &&
  !['bindings/js/index.d.ts', 'web/elements/index.d.ts', 'web/elements/sanitize.d.ts', 'typedoc.json'].some(changed)
) {
  docs = 'up to date';
} else if (existsSync(typedoc)) {
  const result = spawnSync(typedoc.pathname, [], { cwd: root.pathname, encoding: 'utf8' });
  docs =
    result.status === 0
      ? 'built'
      : `failed to build, see \`npm run docs\`: ${(result.stdout + result.stderr).trim().split('\n')[0]}`;
} else if (existsSync(new URL('build/docs/index.html', root))) {
  docs = 'as last built';
}

const port = Number(process.env.PORT ?? 8080);
const { url } = await startServer({ port });
console.log(
  `attention-wasm: serving the worked examples at ${url}web/, the elements on a bare page at ${url}examples/embed.html and the API reference at ${url}docs/ (${docs})  (Ctrl+C stops)`,
);
