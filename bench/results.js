// Shared by the benchmark runners: bench/results/latest.json (a "node" and a "browser"
// part, each written by its runner and kept by the other) and progress output.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';

const FILE = new URL('./results/latest.json', import.meta.url);

/** Replaces one part ('node' or 'browser') of bench/results/latest.json. */
export function recordResults(part, result) {
  let all = {};
  try {
    all = JSON.parse(readFileSync(FILE, 'utf8'));
  } catch {
    all = {};
  }
  if (!all.node && !all.browser) all = {}; // a file of the old one-part layout
  all[part] = result;
  mkdirSync(new URL('./', FILE), { recursive: true });
  writeFileSync(FILE, `${JSON.stringify(all, null, 2)}\n`);
}

/**
 * Progress: on a terminal one line rewritten in place; elsewhere (a CI log, a file) one
 * line per step. `''` clears the terminal line.
 */
export function progressWriter(stream) {
  if (stream.isTTY) return (text) => stream.write(`\r\x1b[K${text.slice(0, (stream.columns ?? 100) - 1)}`);
  return (text) => {
    if (text) stream.write(`${text}\n`);
  };
}
