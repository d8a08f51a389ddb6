// The C++ core built natively with g++ under AddressSanitizer + UBSan (tests/native/
// core_test.cc): both attention paths agree on awkward sizes and no access leaves its
// buffer. Builds incrementally into build/native-asan (about a minute the first time).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = `${root}build/native-asan`;

test(
  'native core under ASan/UBSan: fused = step-by-step, MHA, MatMul tails, scratch failures as statuses',
  { timeout: 600_000 },
  () => {
    if (!existsSync(`${build}/CMakeCache.txt`)) {
      execFileSync('cmake', ['-S', root, '-B', build, '-DATTN_NATIVE_TESTS=ON', '-DCMAKE_BUILD_TYPE=Release'], {
        stdio: 'pipe',
      });
    }
    execFileSync('cmake', ['--build', build, '--parallel', '2'], { stdio: 'pipe' });
    const out = execFileSync(`${build}/core_test`, {
      encoding: 'utf8',
      env: {
        ...process.env,
        ASAN_OPTIONS: 'detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=64',
        UBSAN_OPTIONS: 'halt_on_error=1',
      },
    });
    assert.match(out, /core_test: \d+ attention cases compared, 0 mismatches/);
  },
);
