// The TypeScript declarations: a usage file compiles under --strict, and misuse is caught.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('index.d.ts type-checks real usage (tsc --strict) and rejects misuse', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  let output = '';
  try {
    output = execFileSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        'tests/types/usage.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
  } catch (error) {
    output = `${error.stdout}${error.stderr}`;
    assert.fail(`tsc reported:\n${output}`);
  }
  assert.equal(output.trim(), '');
});

test('index.d.ts type-checks in a Node project without the DOM types (lib es2022, @types/node; no skipLibCheck)', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  try {
    execFileSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022',
        '--types',
        'node',
        'tests/types/node-usage.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
  } catch (error) {
    assert.fail(`tsc reported:\n${error.stdout}${error.stderr}`);
  }
});

test("the elements type-check in React 19 TSX and as Vue global components with the package's typings", () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  try {
    execFileSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        '--jsx',
        'react-jsx',
        'tests/types/react-app.tsx',
        'tests/types/vue-components.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
  } catch (error) {
    assert.fail(`tsc reported:\n${error.stdout}${error.stderr}`);
  }
});
