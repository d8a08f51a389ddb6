// One forward per concept in the core (issue 33 A.3): a single layer norm, a single RMS norm
// and a single activation table serve the layer classes, the pretrained runner and the
// training model. Read from the sources: a second definition anywhere in src/ fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.cc') ? [join(dir, e.name)] : [],
  );
}

// Files that define (not call) a function whose name matches `pattern`: a definition is the
// name at the start of a line's declaration, after a return type, and followed by a body.
function definers(pattern) {
  const found = new Map();
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    const re = new RegExp(`^(?:[\\w:<>*& ]+\\s)(${pattern.source})\\s*\\([^;{]*\\)\\s*(?:const\\s*)?\\{`, 'gm');
    for (const m of text.matchAll(re)) found.set(`${relative(src, file)}: ${m[1]}`, true);
  }
  return [...found.keys()].sort();
}

test('one layer norm and one RMS norm forward in src/: kernels/norms.cc', () => {
  assert.deepEqual(
    definers(/\w*(?:LayerNorm|RmsNorm)\w*/).filter((d) => !/Backward/.test(d)),
    [
      'kernels/norms.cc: LayerNorm',
      'kernels/norms.cc: LayerNormImpl',
      'kernels/norms.cc: LayerNormRowInDouble',
      'kernels/norms.cc: RmsNorm',
      'kernels/norms.cc: RmsNormImpl',
    ],
  );
});

test('one activation table in src/: kernels/activations.cc (the erf GELU from kernels/gelu.cc)', () => {
  const forwards = definers(/\w*(?:Activat|Relu|Gelu|Silu)\w*/).filter((d) => !/Backward/.test(d));
  const files = [...new Set(forwards.map((d) => d.split(':')[0]))].sort();
  assert.deepEqual(files, ['kernels/activations.cc', 'kernels/gelu.cc'], forwards.join('\n'));
  assert.ok(forwards.includes('kernels/activations.cc: Activate'));
});
