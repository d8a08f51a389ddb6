// The C++ core under libFuzzer + ASan/UBSan (tests/native/fuzz_core.cc): random small
// problems for every entry point, each checked against a float64 reference inside the
// harness. Builds with clang++ into build/native-fuzz (about 30 s the first time), then fuzzes
// a temporary copy of the committed seed corpus (the repository is never written) for
// ATTN_FUZZ_SECONDS seconds (default 60).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = `${root}build/native-fuzz`;
const corpus = `${root}tests/native/fuzz_corpus`;
const seconds = Number(process.env.ATTN_FUZZ_SECONDS ?? 60);
const install =
  'install them with: apt-get install -y clang libclang-rt-14-dev (or npm test, whose setup installs them)';

// clang++ and its libFuzzer runtime (Debian: clang, libclang-rt-14-dev), or a message why not.
function missingClang() {
  let runtimeDir;
  try {
    runtimeDir = execFileSync('clang++', ['-print-runtime-dir'], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return `clang++ was not found; the fuzz test needs clang with libFuzzer: ${install}`;
  }
  const fuzzer = join(runtimeDir, 'libclang_rt.fuzzer-x86_64.a');
  if (!existsSync(fuzzer)) return `clang++ has no libFuzzer runtime (${fuzzer} is missing): ${install}`;
  return null;
}

test(
  `native core under libFuzzer + ASan/UBSan: ${seconds} s, reference checks, zero crashes`,
  { timeout: 600_000 + seconds * 2000 },
  (t) => {
    assert.ok(
      Number.isFinite(seconds) && seconds > 0,
      `ATTN_FUZZ_SECONDS must be a positive number, got ${process.env.ATTN_FUZZ_SECONDS}`,
    );
    const missing = missingClang();
    if (missing) assert.fail(missing);
    if (!existsSync(`${build}/CMakeCache.txt`)) {
      execFileSync(
        'cmake',
        ['-S', root, '-B', build, '-DATTN_FUZZ=ON', '-DCMAKE_CXX_COMPILER=clang++', '-DCMAKE_BUILD_TYPE=Release'],
        { stdio: 'pipe' },
      );
    }
    execFileSync('cmake', ['--build', build, '--target', 'fuzz_core', '--parallel', '2'], { stdio: 'pipe' });

    // libFuzzer adds what it finds to its first corpus directory and writes crash files to
    // -artifact_prefix: both go to a temporary copy, never into the repository.
    const work = mkdtempSync(join(tmpdir(), 'attn-fuzz-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    cpSync(corpus, join(work, 'corpus'), { recursive: true });
    const seeds = readdirSync(join(work, 'corpus')).length;
    assert.ok(seeds > 0, `no seed inputs in ${corpus}`);
    const args = [
      `-max_total_time=${seconds}`,
      '-timeout=10',
      '-rss_limit_mb=2048',
      '-print_final_stats=1',
      `-artifact_prefix=${work}/`,
      join(work, 'corpus'),
    ];
    const started = process.hrtime.bigint();
    const run = spawnSync(`${build}/fuzz_core`, args, {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      timeout: (seconds + 120) * 1000,
      env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1' },
    });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const output = `${run.stdout}${run.stderr}`;
    const tail = output.split('\n').slice(-80).join('\n');
    assert.equal(run.error, undefined, `fuzz_core did not run: ${run.error}`);
    const found = output.match(/.*(MISMATCH|ERROR:|runtime error).*/);
    assert.equal(found, null, `fuzz_core reported a problem (the case and the input's path are below):\n${tail}`);
    assert.equal(run.status, 0, `fuzz_core exited with ${run.status} (signal ${run.signal}):\n${tail}`);

    // The figures: "#N DONE cov: C ft: F corp: ..." and stat::number_of_executed_units.
    const done = output.match(/#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)\/(\S+)/);
    const units = output.match(/stat::number_of_executed_units:\s*(\d+)/);
    const rate = output.match(/stat::average_exec_per_sec:\s*(\d+)/);
    assert.ok(done && units, `no final statistics in the output:\n${tail}`);
    const executions = Number(units[1]);
    assert.ok(executions >= seeds, `only ${executions} executions for ${seeds} seeds`);
    console.log(
      `fuzz_core: ${executions} executions in ${elapsed.toFixed(1)} s (-max_total_time=${seconds}; ` +
        `${rate ? rate[1] : '?'} exec/s), ` +
        `cov ${done[2]} edges, ft ${done[3]} features, corpus ${seeds} -> ${done[4]} inputs (${done[5]}), 0 crashes`,
    );
  },
);
