// The C++ keeps Google style (.clang-format), checked with clang-format --dry-run.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('C++ sources are clang-formatted', () => {
  const files = [];
  for (const dir of ['src', 'src/kernels', 'src/train', 'bindings', 'tests/native']) {
    for (const f of readdirSync(`${root}${dir}`)) if (/\.(h|cc)$/.test(f)) files.push(`${dir}/${f}`);
  }
  assert.ok(files.length > 20, `found ${files.length} files`);
  try {
    execFileSync('clang-format', ['--dry-run', '-Werror', ...files], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    assert.fail(`clang-format would change:\n${String(error.stderr).slice(0, 2000)}`);
  }
});
