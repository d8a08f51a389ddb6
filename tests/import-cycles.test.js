// No import circle in the package's JavaScript (issue 46): every module of bindings/js, its
// static and dynamic relative imports followed; a cycle is reported as the chain of files.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../bindings/js/', import.meta.url));

function modules(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = resolve(folder, name);
    if (statSync(path).isDirectory()) return modules(path);
    return path.endsWith('.js') ? [path] : [];
  });
}

// file → the files of the package it imports (import … from, export … from, import()).
function importGraph(files) {
  const known = new Set(files);
  const pattern = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;
  return new Map(
    files.map((file) => {
      const source = readFileSync(file, 'utf8');
      const targets = [...source.matchAll(pattern)].map((m) => resolve(dirname(file), m[1] ?? m[2]));
      return [file, targets.filter((t) => known.has(t))];
    }),
  );
}

function cycles(graph) {
  const found = [];
  const done = new Set();
  const path = [];
  const onPath = new Set();
  const visit = (file) => {
    path.push(file);
    onPath.add(file);
    for (const next of graph.get(file)) {
      if (onPath.has(next)) found.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return found.map((chain) => chain.map((f) => relative(root, f)).join(' → '));
}

test('the detector finds a circle when there is one', () => {
  const graph = new Map([
    ['/a.js', ['/b.js']],
    ['/b.js', ['/c.js']],
    ['/c.js', ['/a.js']],
    ['/d.js', ['/a.js']],
  ]);
  assert.equal(cycles(graph).length, 1);
});

test('no module of bindings/js imports itself through others', () => {
  const files = modules(root);
  assert.ok(files.length > 50, `${files.length} modules`);
  const graph = importGraph(files);
  // The graph is the real one: load_model.js reaches the tokenizer, the chunk entry both halves.
  const of = (name) => graph.get(resolve(root, name)).map((f) => relative(root, f));
  assert.ok(of('models/load_model.js').includes('models/tokenizer.js'));
  assert.deepEqual(of('models/models_chunk.js').sort(), ['models/load_model.js', 'text/text_classifier.js']);
  assert.deepEqual(cycles(graph), []);
});
