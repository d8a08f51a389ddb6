// The quantized GPT-2 rows of the whole-model benchmark (issue 34), shared by Node
// (bench/models.js) and Chromium (bench/browser-models-session.js): the GPT-2-small-shaped
// case of bench/model-cases.js (the same seeded float32 weights) run four ways —
//   attention-wasm q8 / q4: loadModel(files, { dtype: 'q8' | 'q4' }), every matrix quantized
//     at load into GGUF's Q8_0 / Q4_0 blocks;
//   onnxruntime-web q8: the graphs in transformers.js's default wasm form (model_quantized.onnx,
//     bench/peers/onnx-quantize.js);
//   onnxruntime-web fp32: the float graphs of the float rows.
// None of them computes the float model's numbers, so nothing is required to be equal: each
// one's prefill logits are compared with attention-wasm's float32 model (max |diff| / max
// |logit|, reported; a loose bound only catches a broken graph or kernel) and its greedy
// tokens counted against that model's.
// Two prefill rows: the forward with the logits of every position (the same work in every
// engine), and the first token as each one's generate reaches it (issue 47 item 4): ours
// generate(prompt, { maxNewTokens: 1 }), its LM head on the last position only;
// transformers.js's generate runs the exported prefill graph, which returns the logits of
// every position, then takes the last row's argmax.
import { measureInterleaved } from './cases.js';
import { GPT2, TIMING, ids, maxRelative, ortGreedy, ourGreedy } from './model-cases.js';

/** Bytes each engine reads per matrix weight (the tied LM head included). */
export const BYTES_PER_WEIGHT = {
  'attention-wasm q8': 34 / 32, // Q8_0, as GGUF counts it: 32 int8 codes + a float16 scale
  'attention-wasm q4': 18 / 32, // Q4_0: 32 4-bit codes + a float16 scale
  'onnxruntime-web q8': 1, // int8 codes, one scale per matrix
  'onnxruntime-web fp32': 4,
};

// Loose bounds on the prefill logits' drift from the float model: the measured drift is in
// the rows; these only stop the run when a path is broken (a transposed or mis-scaled matrix
// drifts by about 1).
const DRIFT_BOUND = {
  'attention-wasm q8': 0.1,
  'attention-wasm q4': 0.5,
  'onnxruntime-web q8': 0.1,
  'onnxruntime-web fp32': 1e-3,
};

// The index of the largest logit of the last of a [T, V] block's rows.
function lastRowArgmax(logits, V) {
  const from = logits.length - V;
  let best = from;
  for (let i = from; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best - from;
}

/**
 * Times the quantized GPT-2 rows. `load.reference()`: attention-wasm's float32 model (used
 * first, then disposed, so that it is not resident while the others run);
 * `load.engines()`: { 'attention-wasm q8': model, 'attention-wasm q4': model,
 * 'onnxruntime-web q8': { prefill, decode }, 'onnxruntime-web fp32': { prefill, decode } }.
 * Returns the prefill row, the first-token row and the decode row.
 */
export async function gpt2QuantizedRows({ ort, load, progress, timing = TIMING.full }) {
  const c = GPT2;
  const prompt = ids(c.T, c.V, 9);
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, c.T]) };

  // 1. The float model's logits and greedy tokens: what the others are held against.
  progress('GPT-2 quantized: the float32 reference');
  const reference = await load.reference();
  if (reference.matrixDtype !== 'float32')
    throw new Error(`GPT-2 quantized: the reference is ${reference.matrixDtype}`);
  const referenceLogits = reference.forward(prompt).logits.data;
  const referenceTokens = (await ourGreedy(reference, prompt)).tokens;
  reference.dispose();

  // 2. The four engines as { prefill(), greedy(), release() }.
  progress('GPT-2 quantized: loading the engines');
  const loaded = await load.engines();
  const engines = {};
  for (const [label, x] of Object.entries(loaded)) {
    if (label.startsWith('attention-wasm')) {
      const dtype = label.split(' ')[1];
      if (x.matrixDtype !== dtype) throw new Error(`GPT-2 quantized: ${label} holds its matrices as ${x.matrixDtype}`);
      engines[label] = {
        prefill: () => x.forward(prompt).logits.data,
        firstToken: async () =>
          (await x.generate(prompt, { maxNewTokens: 1, stopAtEos: false, kvDtype: 'float32' })).newIds[0],
        greedy: () => ourGreedy(x, prompt),
        release: async () => x.dispose(),
      };
    } else {
      engines[label] = {
        prefill: async () => (await x.prefill.run(feeds)).logits.data,
        firstToken: async () => {
          const out = await x.prefill.run(feeds);
          const token = lastRowArgmax(out.logits.data, c.V);
          for (const t of Object.values(out)) t.dispose?.();
          return token;
        },
        greedy: () => ortGreedy(ort, x, prompt),
        release: async () => {
          await x.prefill.release();
          await x.decode.release();
        },
      };
    }
  }

  // 3. Accuracy: logit drift and greedy agreement with the float model.
  const drift = {},
    sameTokens = {};
  for (const [label, engine] of Object.entries(engines)) {
    drift[label] = maxRelative(await engine.prefill(), referenceLogits);
    if (!(drift[label] < DRIFT_BOUND[label]))
      throw new Error(
        `GPT-2 quantized: ${label}'s logits drift ${drift[label]} from the float model's (bound ${DRIFT_BOUND[label]})`,
      );
    const { tokens } = await engine.greedy();
    sameTokens[label] = tokens.filter((t, i) => t === referenceTokens[i]).length;
    progress(
      `GPT-2 quantized: ${label}: logit drift ${drift[label].toExponential(1)}, greedy tokens as the float model's: ${sameTokens[label]} of ${c.steps}`,
    );
  }

  // 4. Timing: prefill interleaved, then decode runs taking turns.
  const prefillTimes = await measureInterleaved(
    Object.fromEntries(Object.entries(engines).map(([label, e]) => [label, e.prefill])),
    {
      warmupMs: timing.warmupMs,
      rounds: timing.rounds,
      roundMs: timing.roundMs,
      onProgress: (t) => progress(`GPT-2 quantized prefill: ${t}`),
    },
  );
  const firstTokenTimes = await measureInterleaved(
    Object.fromEntries(Object.entries(engines).map(([label, e]) => [label, e.firstToken])),
    {
      warmupMs: timing.warmupMs,
      rounds: timing.rounds,
      roundMs: timing.roundMs,
      onProgress: (t) => progress(`GPT-2 quantized first token: ${t}`),
    },
  );
  progress('GPT-2 quantized: timing decoding');
  const decodeRuns = Object.fromEntries(Object.keys(engines).map((label) => [label, []]));
  for (let r = 0; r < timing.decodeRuns; r++)
    for (const [label, e] of Object.entries(engines)) decodeRuns[label].push((await e.greedy()).msPerToken);
  for (const e of Object.values(engines)) await e.release();

  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  // Weights read per decoded token: every matrix, the tied LM head included, once.
  const weights = c.L * (4 * c.d * c.d + 2 * c.d * c.f) + c.V * c.d;
  const shape = 'GPT-2-small shape, quantized';
  return [
    {
      case: `${shape}, prefill T = ${c.T} (logits included)`,
      unit: 'ms',
      drift,
      results: prefillTimes,
    },
    {
      case: `${shape}, first token after T = ${c.T} (generate's prefill: ours with the LM head on the last position, transformers.js's graph with every position's logits)`,
      unit: 'ms',
      results: firstTokenTimes,
    },
    {
      case: `${shape}, decode with the cache after ${c.T} tokens`,
      unit: 'ms/token',
      sameTokens,
      steps: c.steps,
      weightBytes: Object.fromEntries(Object.keys(engines).map((label) => [label, weights * BYTES_PER_WEIGHT[label]])),
      results: Object.fromEntries(
        Object.entries(decodeRuns).map(([k, v]) => [k, { ms: Math.min(...v), medianMs: median(v) }]),
      ),
    },
  ];
}
