// The TypeScript declarations: a usage file compiles under --strict, and misuse is caught.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import { assertTypeChecks } from './helpers/tsc.js';

const root = fileURLToPath(new URL('..', import.meta.url));

test('index.d.ts type-checks real usage (tsc --strict) and rejects misuse', () => {
  assertTypeChecks(['tests/types/usage.ts']);
});

test('index.d.ts type-checks in a Node project without the DOM types (lib es2022, @types/node; no skipLibCheck)', () => {
  assertTypeChecks(['tests/types/node-usage.ts'], { lib: 'es2022', flags: ['--types', 'node'] });
});

test("the elements type-check in React 19 TSX and as Vue global components with the package's typings", () => {
  assertTypeChecks(['tests/types/react-app.tsx', 'tests/types/vue-components.ts', 'tests/types/element-events.ts'], {
    flags: ['--jsx', 'react-jsx'],
  });
});

test('Vue templates under vue-tsc with strictTemplates: kebab-case attributes, @events with typed details; misuse refused', () => {
  const vueTsc = createRequire(import.meta.url).resolve('vue-tsc/bin/vue-tsc.js');
  // An app folder with the package as node_modules/attention-wasm, as a Vite + Vue project has it.
  const app = `${root}build/vue-tsc-app`;
  rmSync(app, { recursive: true, force: true });
  mkdirSync(`${app}/src`, { recursive: true });
  mkdirSync(`${app}/node_modules`);
  symlinkSync(root, `${app}/node_modules/attention-wasm`, 'dir');
  symlinkSync(`${root}node_modules/vue`, `${app}/node_modules/vue`, 'dir');
  symlinkSync(`${root}node_modules/@vue`, `${app}/node_modules/@vue`, 'dir');
  writeFileSync(`${app}/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
  writeFileSync(`${app}/src/elements.d.ts`, "import type {} from 'attention-wasm/elements/vue';\n");
  copyFileSync(`${root}tests/types/vue-strict.vue`, `${app}/src/Strict.vue`);
  writeFileSync(
    `${app}/tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2022', 'dom'],
        jsx: 'preserve',
        skipLibCheck: true,
      },
      vueCompilerOptions: { strictTemplates: true },
      include: ['src/**/*.ts', 'src/**/*.vue'],
    }),
  );
  try {
    execFileSync(process.execPath, [vueTsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
  } catch (error) {
    assert.fail(`vue-tsc reported:\n${error.stdout}${error.stderr}`);
  }
});
