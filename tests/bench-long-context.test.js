// The long-context benchmark (bench/browser-long-context.js, issue 47 item 5) runs end to end
// at a tiny size in headless Chromium: ours with two cache storages and wllama on the same
// GGUF file, and transformers.js's q8 graphs of the same weights on onnxruntime-web, one row each, the cache's bytes as generate reports them, and nothing recorded
// (a tiny run is not a measurement). The numbers themselves are for a quiet machine.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const results = `${root}bench/results/latest.json`;

test(
  'bench/browser-long-context.js --tiny: a row per engine and storage, the cache bytes, nothing recorded',
  { timeout: 300_000 },
  () => {
    const before = existsSync(results) ? readFileSync(results, 'utf8') : null;
    const args = ['--tiny', '--threads=1', '--prompts=600', '--steps=3', '--rounds=1', '--kv=float32,q8'];
    const out = execFileSync('node', ['bench/browser-long-context.js', ...args], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.match(out, /A quick check: NOT a measurement\./);
    const rows = out
      .split('\n')
      .filter((line) => /^\| (attention-wasm|wllama|transformers\.js)/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    assert.deepEqual(
      rows.map((r) => [r[1], r[2], r[3]]),
      [
        ['attention-wasm kv float32', '1', '600'],
        ['attention-wasm kv q8', '1', '600'],
        ['wllama', '1', '600'],
        ['transformers.js q8', '1', '600'],
      ],
    );
    // 2 layers × 603 tokens × 32 key/value columns, keys and values: 4 bytes each, or one q8_0
    // block of 34 bytes a row.
    assert.equal(rows[0][8], '301.5 KiB');
    assert.equal(rows[1][8], '80.1 KiB');
    // transformers.js: float32 present keys and values of the 602 tokens it has fed (the last
    // token generated is never fed back).
    assert.equal(rows[3][8], `${((2 * 2 * 602 * 32 * 4) / 1024).toFixed(1)} KiB`);
    // Every row of ours carries its rounds, its decode ÷ its memory bound, and both peers' ratios.
    for (const r of rows.slice(0, 2)) {
      assert.equal(r[4], '1');
      assert.match(r[7], /^\d+\.\d\d× of \d+\.\d$/);
      assert.ok(
        r.slice(10, 14).every((cell) => /^\d+\.\d\d×$/.test(cell)),
        r.join('|'),
      );
    }
    for (const r of rows) assert.ok(Number(r[5]) > 0 && Number(r[6]) > 0, `times of ${r[1]}`);
    assert.equal(existsSync(results) ? readFileSync(results, 'utf8') : null, before, 'nothing recorded');
  },
);
