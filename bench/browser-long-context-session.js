// The long-context rows in a Chromium page (bench/long-context.html, run by
// bench/browser-long-context.js): window.runLongContext(threads, { path, prompts, steps, rounds,
// kvDtypes, wllama, onnx, log }) measures the tab's copy bandwidth, loads the GGUF file at `path` into both engines (as
// bench/browser-wllama-session.js does), and onnxruntime-web the same weights as the ONNX graphs
// transformers.js runs (bench/peers/onnx-llama.js, files named in `onnx`), and times, per prompt length, a prefill of that many
// ids and `steps` greedy tokens after it: ours once per kvDtype (the key/value cache's storage),
// wllama at its defaults (its own batch sizes and flash attention; a context of the prompt and
// the steps). Rounds interleaved, each turn after a full GC and 30 ms idle; medians.
//   attention-wasm: model.generate(ids, { maxNewTokens: steps, kvDtype }); prefill = the call
//     to its first token, decode = first to last token ÷ (steps − 1); cacheBytes as generate
//     reports it; heap = malloc's high-water mark of the tab after the runner's first call
//     (monotone over the session: the prompts run shortest first).
//   wllama: createCompletion, the prompt cache off; llama.cpp's own timings.
//   transformers.js q8 / fp32: what its generate runs, on onnxruntime-web (wasm, graph
//     optimisation 'all'): the prefill graph on the prompt (logits of every position, as the
//     exported graph returns them), then one decode-graph call per token with the past keys and
//     values; prefill = the call to its first token. A length it cannot run (out of memory) is a
//     row with the error instead of times.
import { Wllama } from '@wllama/wllama';
import * as ort from 'onnxruntime-web';
import { init } from 'attention-wasm';
import { pieceOf, promptIds } from './wllama-cases.js';
import { copyBandwidth } from './bandwidth.js';

const status = document.getElementById('status');
const WLLAMA_WASM = new URL('/node_modules/@wllama/wllama/esm/wasm/wllama.wasm', location.href).href;
// The short prompt every engine warms up on before a long prompt's first (timed) run.
const SHORT_WARMUP = 2048;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

window.runLongContext = async (threads, options) => {
  const { path, prompts, steps, rounds, kvDtypes, wllama: withWllama = true, onnx = {}, log = false } = options;
  // Prompts longer than this run no warm-up: the first timed round is each engine's first run
  // (a 16k prefill takes minutes; its first run's extra cost is small beside it).
  const warmupUpTo = options.warmupUpTo ?? Infinity;
  const attn = await init({ threads });
  ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: long context, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  progress('loading ours');
  const ours = await attn.loadModel(`/${path}`, { cache: false });
  const vocab = ours.descriptor.vocabSize;
  const layers = ours.descriptor.numLayers;
  const ortSessions = {};
  for (const [form, files] of Object.entries(onnx)) {
    progress(`loading transformers.js ${form} graphs`);
    const sessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
    ortSessions[`transformers.js ${form}`] = {
      prefill: await ort.InferenceSession.create(`/${files.prefill}`, sessionOptions),
      decode: await ort.InferenceSession.create(`/${files.decode}`, sessionOptions),
    };
  }
  // The tab's copy bandwidth (bytes/s), for the decode's memory bound (the Node side divides
  // the bytes a token reads by it).
  progress('measuring the copy bandwidth');
  const bandwidth = copyBandwidth();
  const rows = [];
  let libllama = null;
  for (const prompt of prompts) {
    const ids = promptIds(prompt, vocab);
    let wllama = null;
    if (withWllama) {
      progress(`${prompt} tokens: loading wllama`);
      wllama = await loadWllama(`/${path}`, threads, prompt + steps, log);
      libllama = Wllama.getLibllamaVersion?.() ?? libllama;
    }
    // Every engine's run of `tokens` (a prompt's ids), by label.
    const runnersFor = (tokens) => {
      const runners = {};
      for (const kvDtype of kvDtypes)
        runners[`attention-wasm kv ${kvDtype}`] = () => oursRun(attn, ours, tokens, steps, kvDtype);
      if (wllama) {
        const text = tokens.map(pieceOf).join('');
        runners.wllama = () => wllamaRun(wllama, text, tokens.length, steps);
      }
      for (const [label, sessions] of Object.entries(ortSessions))
        runners[label] = () => ortRun(sessions, tokens, steps, vocab, layers);
      return runners;
    };
    const runners = runnersFor(ids);
    const first = {};
    const failed = {};
    const samples = Object.fromEntries(Object.keys(runners).map((label) => [label, []]));
    const warm = prompt <= warmupUpTo;
    // Past warmupUpTo, every engine still runs once on a short prompt first (SHORT_WARMUP
    // tokens: two of our key ranges, so a decode step splits its keys as the long one does):
    // the tab compiles each engine's decode kernels (only a decode step runs them) before the
    // timed run, which otherwise times some of its tokens on the baseline compiler. A failure
    // here is left to the timed run to report.
    if (!warm && prompt > SHORT_WARMUP) {
      for (const [label, run] of Object.entries(runnersFor(ids.slice(0, SHORT_WARMUP)))) {
        progress(`${prompt} tokens: warm-up at ${SHORT_WARMUP} tokens: ${label}`);
        await run().catch(() => null);
      }
    }
    for (const [label, run] of Object.entries(runners)) {
      progress(`${prompt} tokens: ${warm ? 'warm-up' : 'first run (timed)'}: ${label}`);
      try {
        first[label] = await run();
        if (!warm) samples[label].push(first[label]);
      } catch (error) {
        failed[label] = String(error?.message ?? error).slice(0, 200);
        delete runners[label];
        delete samples[label];
      }
    }
    for (let r = warm ? 0 : 1; r < rounds; r++) {
      const order = r % 2 === 0 ? Object.keys(runners) : Object.keys(runners).reverse();
      for (const label of order) {
        progress(`${prompt} tokens: round ${r + 1}/${rounds}: ${label}`);
        globalThis.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 30));
        samples[label].push(await runners[label]());
      }
    }
    if (wllama) await wllama.exit();
    for (const [label, error] of Object.entries(failed))
      rows.push({ engine: label, prompt, steps, threads, prefillMs: null, decodeMs: null, error, rounds: 0 });
    for (const label of Object.keys(runners))
      rows.push({
        engine: label,
        prompt,
        steps,
        threads,
        prefillMs: median(samples[label].map((s) => s.prefillMs)),
        decodeMs: median(samples[label].map((s) => s.decodeMs)),
        cacheBytes: first[label].cacheBytes ?? null,
        heapBytes: first[label].heapBytes ?? null,
        rounds,
        tokens: first[label].tokens,
      });
  }
  ours.dispose();
  return {
    threads,
    bandwidth,
    versions: {
      'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
      ...(withWllama ? { wllama: `@wllama/wllama 3.13.0 (llama.cpp ${libllama ?? '?'})` } : {}),
      ...(Object.keys(onnx).length
        ? { 'onnxruntime-web': `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim() }
        : {}),
    },
    rows,
  };
};

// wllama at its defaults but for the context (the prompt and the steps, rounded up to 256) and
// the threads; CPU only.
async function loadWllama(url, threads, tokens, log) {
  const blob = await (await fetch(url)).blob();
  const say = (...a) => console.log(`progress: [wllama] ${a.map(String).join(' ')}`);
  const quiet = () => {};
  const wllama = new Wllama(
    { default: WLLAMA_WASM },
    log
      ? { suppressNativeLog: false, logger: { debug: say, log: say, warn: say, error: say } }
      : { suppressNativeLog: true, logger: { debug: quiet, log: quiet, warn: console.warn, error: console.error } },
  );
  await wllama.loadModel([blob], {
    n_threads: threads,
    n_ctx: Math.ceil(tokens / 256) * 256,
    n_parallel: 1,
    n_gpu_layers: 0,
    warmup: false,
  });
  return wllama;
}

async function oursRun(attn, model, ids, steps, kvDtype) {
  const t0 = performance.now();
  let first = 0;
  const { newIds, cacheBytes } = await model.generate(ids, {
    maxNewTokens: steps,
    stopAtEos: false,
    kvDtype,
    onToken: ({ index }) => {
      if (index === 0) first = performance.now();
    },
  });
  const end = performance.now();
  const heapBytes = attn.memory().peakBytes;
  return { prefillMs: first - t0, decodeMs: (end - first) / (steps - 1), cacheBytes, heapBytes, tokens: newIds };
}

async function wllamaRun(wllama, text, prompt, steps) {
  const response = await wllama.createCompletion({
    prompt: text,
    max_tokens: steps,
    temperature: 0,
    top_k: 1,
    ignore_eos: true,
    cache_prompt: false,
    return_tokens: true,
  });
  const t = response.timings;
  if (!t || t.prompt_n !== prompt || t.cache_n !== 0 || t.predicted_n !== steps)
    throw new Error(`long-context bench: unexpected wllama timings ${JSON.stringify(t)}`);
  return { prefillMs: t.prompt_ms, decodeMs: t.predicted_ms / (t.predicted_n - 1), tokens: null };
}

// transformers.js's generate on its exported graphs: the prompt through the prefill graph,
// greedy tokens through the decode graph with the past keys and values.
async function ortRun({ prefill, decode }, ids, steps, vocab, layers) {
  const int64 = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  const pastOf = (out) => {
    const past = {};
    for (let i = 0; i < layers; i++) {
      past[`past_key_${i}`] = out[`present_key_${i}`];
      past[`past_value_${i}`] = out[`present_value_${i}`];
    }
    return past;
  };
  const argmaxOfRow = (logits, row) => {
    const data = logits.data;
    let best = row * vocab;
    for (let i = row * vocab; i < (row + 1) * vocab; i++) if (data[i] > data[best]) best = i;
    return best - row * vocab;
  };
  const t0 = performance.now();
  let out = await prefill.run({ input_ids: int64(ids), position_ids: int64(ids.map((_, i) => i)) });
  let next = argmaxOfRow(out.logits, ids.length - 1);
  const first = performance.now();
  const tokens = [next];
  for (let s = 1; s < steps; s++) {
    const past = pastOf(out);
    out = await decode.run({ input_ids: int64([next]), position_ids: int64([ids.length + s - 1]), ...past });
    for (const t of Object.values(past)) t.dispose?.();
    next = argmaxOfRow(out.logits, 0);
    tokens.push(next);
  }
  const end = performance.now();
  const cacheBytes = Object.entries(out)
    .filter(([name]) => name.startsWith('present_'))
    .reduce((sum, [, t]) => sum + t.data.byteLength, 0);
  for (const t of Object.values(out)) t.dispose?.();
  return { prefillMs: first - t0, decodeMs: (end - first) / (steps - 1), cacheBytes, heapBytes: null, tokens };
}

status.textContent = 'ready';
document.body.dataset.ready = 'true';
