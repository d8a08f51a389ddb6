// Type-checks files with the package's own TypeScript, as its users compile: --strict, module
// and resolution nodenext, target es2022, no output. Fails the calling test with tsc's report.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

// files: paths from the package root (or absolute); lib: tsc's --lib; flags: more of tsc's
// options (e.g. ['--types', 'node'], ['--jsx', 'react-jsx']).
export function assertTypeChecks(files, { lib = 'es2022,dom', flags = [] } = {}) {
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
  args.push('--target', 'es2022', '--lib', lib, ...flags, ...files);
  let output = '';
  try {
    output = execFileSync(process.execPath, [tsc, ...args], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    assert.fail(`tsc reported:\n${error.stdout}${error.stderr}`);
  }
  assert.equal(output.trim(), '', 'tsc printed nothing');
}
