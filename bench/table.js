// The benchmark's markdown tables, shared by the Node and browser runners. A session is
// { threads, build, versions, rows } as bench/session.js returns it.
import { formatBytes } from '../bindings/js/memory.js';

const cell = (result) => (result ? `${result.gflops.toFixed(1)} (${result.ms.toFixed(3)})` : '–');
const ratio = (a, b) => (a && b ? `${(a.gflops / b.gflops).toFixed(2)}×` : '–');

/**
 * One row per case: for each session (thread count) this library (both runners: a new output
 * per call, and the output reused) and each peer in GFLOP/s (ms), each runner's ratio to the
 * best peer of that thread count, and each runner's speed-up over one thread.
 */
export function comparisonTable(sessions) {
  const columns = [];
  const ours = (label) => label.startsWith('attention-wasm');
  for (const s of sessions) {
    const labels = Object.keys(s.rows[0].results);
    const peers = labels.filter((l) => !ours(l) && l !== 'plain JS');
    const t = `${s.threads} thread${s.threads > 1 ? 's' : ''}`;
    for (const label of [...labels.filter(ours), ...labels.filter((l) => !ours(l))]) {
      columns.push({ title: `${label} ${t} GFLOP/s (ms)`, value: (row) => cell(row(s).results[label]) });
    }
    for (const label of labels.filter(ours)) {
      columns.push({
        title: `${label} vs best peer, ${t}`,
        value: (row) => {
          const r = row(s).results;
          const best = peers
            .map((p) => r[p])
            .filter(Boolean)
            .sort((a, b) => b.gflops - a.gflops)[0];
          return ratio(r[label], best);
        },
      });
    }
  }
  const single = sessions.find((s) => s.threads === 1);
  for (const s of sessions.filter((x) => x.threads > 1 && single)) {
    for (const label of Object.keys(s.rows[0].results).filter(ours)) {
      columns.push({
        title: `${label}: ${s.threads}-thread speed-up`,
        value: (row) => ratio(row(s).results[label], row(single).results[label]),
      });
    }
  }
  const lines = [
    `| case | ${columns.map((c) => c.title).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
  ];
  sessions[0].rows.forEach((first, i) => {
    const row = (s) => s.rows[i];
    lines.push(`| ${first.case} | ${columns.map((c) => c.value(row)).join(' | ')} |`);
  });
  return lines.join('\n');
}

/** The whole-model rows (bench/models.js sessions): ms or ms/token per engine and the ratio. */
export function modelTable(sessions) {
  const lines = [
    '| case | threads | attention-wasm | onnxruntime-web | attention-wasm speed-up | memory bound (decode) |',
    '|---|---|---|---|---|---|',
  ];
  for (const s of sessions) {
    for (const row of s.rows) {
      const ours = row.results['attention-wasm'].ms,
        theirs = row.results['onnxruntime-web'].ms;
      const bound = row.weightBytes
        ? `${((row.weightBytes / s.bandwidth) * 1000).toFixed(1)} ms at ${(s.bandwidth / 1e9).toFixed(1)} GB/s copy: ours ${(ours / ((row.weightBytes / s.bandwidth) * 1000)).toFixed(2)}× of it`
        : '';
      const unit = row.unit === 'ms/token' ? ' ms/token' : ' ms';
      lines.push(
        `| ${row.case} | ${s.threads} | ${ours.toFixed(1)}${unit}${row.unit === 'ms/token' ? ` (${(1000 / ours).toFixed(1)} tokens/s)` : ''} | ${theirs.toFixed(1)}${unit}${row.unit === 'ms/token' ? ` (${(1000 / theirs).toFixed(1)} tokens/s)` : ''} | ${(theirs / ours).toFixed(2)}× | ${bound} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * The quantized GPT-2 rows (bench/quantized-cases.js; a session's `quantized`): per engine
 * its time, each attention-wasm storage's ratio to the best peer of that thread count, and
 * what each engine gives up against attention-wasm's float32 model (prefill: the logits'
 * drift; decode: greedy tokens equal to the float model's). Decode also says how far each
 * engine is from its memory bound: the weight bytes it reads per token (its storage's) ÷ the
 * copy bandwidth measured in the same session, "1.4×" meaning 1.4 times that time.
 */
export function quantizedTable(sessions) {
  const first = sessions[0].quantized;
  const labels = Object.keys(first[0].results);
  const ours = labels.filter((l) => l.startsWith('attention-wasm'));
  const peers = labels.filter((l) => !l.startsWith('attention-wasm'));
  const lines = [];
  first.forEach((head, i) => {
    const decode = head.unit === 'ms/token';
    const extra = decode
      ? ['greedy tokens = float model’s', '× of memory bound']
      : head.drift
        ? ['logit drift from the float model']
        : [];
    lines.push(
      '',
      `${head.case}:`,
      '',
      `| threads | ${[...labels.map((l) => `${l} (${head.unit})`), ...ours.map((l) => `${l} vs best peer`), ...extra].join(' | ')} |`,
      `|---|${[...labels, ...ours, ...extra].map(() => '---:').join('|')}|`,
    );
    for (const s of sessions) {
      const row = s.quantized[i];
      const ms = (l) => row.results[l].ms;
      const best = Math.min(...peers.map(ms));
      const time = (l) => `${ms(l).toFixed(1)}${decode ? ` (${(1000 / ms(l)).toFixed(1)} tokens/s)` : ''}`;
      const each = (f) =>
        labels
          .map((l) => `${l.replace('attention-wasm', 'ours').replace('onnxruntime-web', 'ort')} ${f(l)}`)
          .join(', ');
      const cells = [...labels.map(time), ...ours.map((l) => `${(best / ms(l)).toFixed(2)}×`)];
      if (decode) {
        const boundMs = (l) => (row.weightBytes[l] / s.bandwidth) * 1000;
        cells.push(
          each((l) => `${row.sameTokens[l]}/${row.steps}`),
          `${each((l) => `${(ms(l) / boundMs(l)).toFixed(2)}×`)} (at ${(s.bandwidth / 1e9).toFixed(1)} GB/s copy)`,
        );
      } else if (row.drift) {
        cells.push(each((l) => row.drift[l].toExponential(1)));
      }
      lines.push(`| ${s.threads} | ${cells.join(' | ')} |`);
    }
  });
  return lines.join('\n').trimStart();
}

/**
 * The wllama comparison (bench/browser-wllama.js; sessions of bench/browser-wllama-session.js):
 * one line per engine, storage and thread count, and wllama's time ÷ ours ("2.00×": ours takes
 * half the time). wllama's wall clock (its worker's messages included) in brackets.
 */
export function wllamaTable(sessions) {
  const lines = [
    '| engine | dtype | threads | prefill 128 (ms) | decode (ms/token) | greedy tokens equal | wllama ÷ ours, prefill | wllama ÷ ours, decode |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of sessions) {
    for (const row of s.rows) {
      const ours = s.rows.find((r) => r.engine === 'attention-wasm' && r.storage === row.storage);
      const wllama = s.rows.find((r) => r.engine === 'wllama' && r.storage === row.storage);
      const mine = row.engine === 'attention-wasm';
      const wall = row.wallMs ? ` (call ${row.wallMs.toFixed(0)})` : '';
      lines.push(
        `| ${row.engine} | ${row.storage.toUpperCase()} | ${row.threads} | ${row.prefillMs.toFixed(0)}${wall} | ${row.decodeMs.toFixed(1)} | ${row.sameTokens ?? '?'}/${row.tokens.length} | ${mine ? `${(wllama.prefillMs / ours.prefillMs).toFixed(2)}×` : ''} | ${mine ? `${(wllama.decodeMs / ours.decodeMs).toFixed(2)}×` : ''} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * The long-context table (bench/browser-long-context.js): one row per engine, prompt length and thread count, with
 * its rounds (medians of that many); each peer's time ÷ ours on every row of ours (above 1: ours
 * is faster); our decode ÷ its memory bound where the run measured one (the bytes a token reads,
 * weights and cache, ÷ the tab's copy bandwidth: 1.00× would be the memory's pace); a length a
 * peer could not run shows its error.
 */
export function longContextTable(sessionList) {
  const peers = ['wllama', 'transformers.js q8', 'transformers.js fp32'].filter((p) =>
    sessionList.some((s) => s.rows.some((r) => r.engine === p)),
  );
  const lines = [
    `| engine | threads | prompt | rounds | prefill (ms) | decode (ms/token) | decode ÷ memory bound | cache | heap high-water |${peers.map((p) => ` ${p} ÷ ours, prefill | ${p} ÷ ours, decode |`).join('')}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|${peers.map(() => '---:|---:|').join('')}`,
  ];
  const bytes = (b) => (b === null || b === undefined ? '' : formatBytes(b));
  for (const s of sessionList) {
    for (const row of s.rows) {
      const ours = row.engine.startsWith('attention-wasm');
      const ratios = peers.map((p) => {
        const peer = s.rows.find((r) => r.engine === p && r.prompt === row.prompt);
        const ratio = (key) =>
          !ours || !peer ? '' : peer.error ? 'did not run' : `${(peer[key] / row[key]).toFixed(2)}×`;
        return ` ${ratio('prefillMs')} | ${ratio('decodeMs')} |`;
      });
      const bound =
        row.boundMs && !row.error ? `${(row.decodeMs / row.boundMs).toFixed(2)}× of ${row.boundMs.toFixed(1)}` : '';
      const times = row.error
        ? `did not run: ${row.error.replaceAll('|', '/')} | |`
        : `${row.prefillMs.toFixed(0)} | ${row.decodeMs.toFixed(1)} |`;
      lines.push(
        `| ${row.engine} | ${row.threads} | ${row.prompt} | ${row.error ? '' : (row.rounds ?? '')} | ${times} ${bound} | ${bytes(row.cacheBytes)} | ${bytes(row.heapBytes)} |${ratios.join('')}`,
      );
    }
  }
  return lines.join('\n');
}
