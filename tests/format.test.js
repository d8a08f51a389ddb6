// The C++ keeps Google style (.clang-format), checked with clang-format --dry-run; the JS and
// TypeScript keep prettier's style at 120 columns (.prettierrc.json), checked with prettier --check.
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

test('JS and TypeScript sources are prettier-formatted', () => {
  // Every tracked .js/.mjs/.cjs/.ts/.tsx file except the fixtures (generated) — the same list a
  // contributor formats with `npx prettier --write .`.
  const files = execFileSync('git', ['ls-files', '*.js', '*.mjs', '*.cjs', '*.ts', '*.tsx'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !f.startsWith('tests/fixtures/'));
  assert.ok(files.length > 200, `found ${files.length} files`);
  const prettier = `${root}node_modules/prettier/bin/prettier.cjs`;
  try {
    execFileSync(process.execPath, [prettier, '--check', ...files], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    assert.fail(`prettier would change (run npx prettier --write .):\n${String(error.stdout).slice(0, 2000)}`);
  }
});
