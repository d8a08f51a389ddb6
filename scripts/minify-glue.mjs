// Minifies an ES6 Emscripten glue in place with emcc's own JS optimizer:
//   node scripts/minify-glue.mjs <emscripten root> dist/attention-relaxed.js
// The relaxed-SIMD build links at -O1 (binaryen 108 cannot read relaxed opcodes, see
// TOOLCHAIN.md), and at -O1 emcc neither removes dead glue code nor minifies it: 101 KB
// instead of 38. This runs the two passes emcc runs at -O2 on the glue (AJSDCE,
// minifyWhitespace). The optimizer parses scripts, not modules, so `import.meta.url` and the
// trailing `export default` are swapped out around it.
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const [emscriptenRoot, glue] = process.argv.slice(2);
const PLACEHOLDER = '__ATTN_IMPORT_META_URL__';
const EXPORT = /\nexport default (\w+);\s*$/;

const whole = readFileSync(glue, 'utf8');
// What --extern-pre-js put before the factory (the threaded builds' Node shim, with a
// top-level await) stays as it is.
const start = whole.indexOf('var createAttentionModule = (');
const exported = whole.match(EXPORT);
if (start < 0 || !exported || whole.includes(PLACEHOLDER)) throw new Error(`${glue}: not an ES6 Emscripten glue`);
const prefix = whole.slice(0, start);
const script = whole.slice(start).replace(EXPORT, '\n').replaceAll('import.meta.url', PLACEHOLDER);
const temporary = `${glue}.script.js`;
writeFileSync(temporary, script);
try {
  const minified = execFileSync(
    process.execPath,
    [join(emscriptenRoot, 'tools', 'acorn-optimizer.js'), temporary, 'AJSDCE', 'minifyWhitespace'],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: { ...process.env, NODE_PATH: '/usr/share/nodejs' }, // Debian's acorn
    },
  );
  writeFileSync(
    glue,
    `${prefix}${minified.replaceAll(PLACEHOLDER, 'import.meta.url')}\nexport default ${exported[1]};\n`,
  );
} finally {
  rmSync(temporary, { force: true });
}
