// The benchmark's markdown tables, shared by the Node and browser runners. A session is
// { threads, build, versions, rows } as bench/session.js returns it.

const cell = (result) => (result ? `${result.gflops.toFixed(1)} (${result.ms.toFixed(3)})` : '–');
const ratio = (a, b) => (a && b ? `${(a.gflops / b.gflops).toFixed(2)}×` : '–');

/**
 * One row per case: for each session (thread count) this library and each peer in GFLOP/s
 * (ms), our ratio to the best peer of that thread count, and our speed-up over one thread.
 */
export function comparisonTable(sessions) {
  const columns = [];
  for (const s of sessions) {
    const labels = Object.keys(s.rows[0].results);
    const peers = labels.filter((l) => l !== 'attention-wasm' && l !== 'plain JS');
    const t = `${s.threads} thread${s.threads > 1 ? 's' : ''}`;
    columns.push({ title: `attention-wasm ${t} GFLOP/s (ms)`, value: (row) => cell(row(s).results['attention-wasm']) });
    for (const label of labels.filter((l) => l !== 'attention-wasm')) {
      columns.push({ title: `${label} ${t} GFLOP/s (ms)`, value: (row) => cell(row(s).results[label]) });
    }
    columns.push({
      title: `vs best peer, ${t}`,
      value: (row) => {
        const r = row(s).results;
        const best = peers.map((p) => r[p]).filter(Boolean).sort((a, b) => b.gflops - a.gflops)[0];
        return ratio(r['attention-wasm'], best);
      },
    });
  }
  const single = sessions.find((s) => s.threads === 1);
  for (const s of sessions.filter((x) => x.threads > 1 && single)) {
    columns.push({ title: `our ${s.threads}-thread speed-up`, value: (row) => ratio(row(s).results['attention-wasm'], row(single).results['attention-wasm']) });
  }
  const lines = [`| case | ${columns.map((c) => c.title).join(' | ')} |`, `|---|${columns.map(() => '---:').join('|')}|`];
  sessions[0].rows.forEach((first, i) => {
    const row = (s) => s.rows[i];
    lines.push(`| ${first.case} | ${columns.map((c) => c.value(row)).join(' | ')} |`);
  });
  return lines.join('\n');
}
