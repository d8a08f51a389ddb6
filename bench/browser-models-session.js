// The whole-model benchmark in a Chromium page (bench/models.html, run by
// bench/browser-models.js): window.runModels(threads, { only, quick }) first times loading
// the GPT-2-small-shaped checkpoint from the local server the way a page would
// (attn.loadModel(url), the download included, the Cache API off) and reads the memory it
// takes, then runs the cases of bench/model-cases.js and bench/quantized-cases.js with both
// engines loading their files from the server. only: 'quantized' runs the quantized rows
// alone; quick: one short round each (not a measurement).
import * as ort from 'onnxruntime-web';
import { init } from 'attention-wasm';
import { bertRow, gpt2Rows, copyBandwidth, TIMING } from './model-cases.js';
import { gpt2QuantizedRows } from './quantized-cases.js';

const status = document.getElementById('status');
const MODELS = '/build/bench/models';

window.runModels = async (threads, { only = null, quick = false } = {}) => {
  const attn = await init({ threads });
  ort.env.wasm.numThreads = threads;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const progress = (text) => {
    status.textContent = text;
    console.log(`progress: models, ${threads} thread${threads > 1 ? 's' : ''}: ${text}`);
  };
  const timing = quick ? TIMING.quick : TIMING.full;
  const versions = {
    'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build, ${attn.info.target})`,
    'onnxruntime-web': `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim(),
  };
  const { rows, load, bandwidth } =
    only === 'quantized' ? { rows: [], load: null, bandwidth: copyBandwidth() } : await floatCases();
  // 3. The quantized GPT-2 rows, last (the load above is timed in a fresh tab).
  const quantized = await quantizedRows();
  return { threads, versions, rows, quantized, bandwidth, load };

  async function floatCases() {
    // 1. GPT-2 small from the server into the tab: time and memory.
    progress('GPT-2: loading the checkpoint from the server');
    const before = { heap: attn.memory().heapBytes, js: performance.memory?.usedJSHeapSize ?? 0 };
    const t0 = performance.now();
    const model = await attn.loadModel(`${MODELS}/gpt2/`, { cache: false });
    const loadMs = performance.now() - t0;
    const load = {
      ms: loadMs,
      wasmHeapBytes: attn.memory().heapBytes,
      parameterBytes: model.parameterBytes,
      jsHeapBytes: (performance.memory?.usedJSHeapSize ?? 0) - before.js,
      firstForwardMs: 0,
    };
    const t1 = performance.now();
    model.forward(Array.from({ length: 128 }, (_, i) => (i * 7919) % 50257));
    load.firstForwardMs = performance.now() - t1;
    load.wasmHeapAfterForwardBytes = attn.memory().heapBytes;
    model.dispose();
    // 2. The cases, both engines reading their files from the server.
    const bandwidth = copyBandwidth();
    const rows = [
      await bertRow({
        ort,
        progress,
        timing,
        load: async () => ({
          model: await attn.loadModel(`${MODELS}/bert/`, { cache: false }),
          session: await ort.InferenceSession.create(`${MODELS}/bert/model.onnx`, options),
        }),
      }),
    ];
    rows.push(
      ...(await gpt2Rows({
        ort,
        progress,
        timing,
        load: async () => ({
          model: await attn.loadModel(`${MODELS}/gpt2/`, { cache: false }),
          prefill: await ort.InferenceSession.create(`${MODELS}/gpt2/prefill.onnx`, options),
          decode: await ort.InferenceSession.create(`${MODELS}/gpt2/decode.onnx`, options),
        }),
      })),
    );
    rows.push(
      ...(await gpt2Rows({
        ort,
        progress,
        timing,
        bf16: true,
        load: async () => ({
          model: await attn.loadModel(`${MODELS}/gpt2-bf16/`, { cache: false }),
          prefill: await ort.InferenceSession.create(`${MODELS}/gpt2-bf16/prefill.onnx`, options),
          decode: await ort.InferenceSession.create(`${MODELS}/gpt2-bf16/decode.onnx`, options),
        }),
      })),
    );
    return { rows, load, bandwidth };
  }

  function quantizedRows() {
    const gpt2 = `${MODELS}/gpt2/`;
    const sessions = async (prefill, decode) => ({
      prefill: await ort.InferenceSession.create(`${gpt2}${prefill}`, options),
      decode: await ort.InferenceSession.create(`${gpt2}${decode}`, options),
    });
    return gpt2QuantizedRows({
      ort,
      progress,
      timing,
      load: {
        reference: () => attn.loadModel(gpt2, { cache: false }),
        engines: async () => ({
          'attention-wasm q8': await attn.loadModel(gpt2, { cache: false, dtype: 'q8' }),
          'attention-wasm q4': await attn.loadModel(gpt2, { cache: false, dtype: 'q4' }),
          'onnxruntime-web q8': await sessions('prefill-q8.onnx', 'decode-q8.onnx'),
          'onnxruntime-web fp32': await sessions('prefill.onnx', 'decode.onnx'),
        }),
      },
    });
  }
};
status.textContent = 'ready';
document.body.dataset.ready = 'true';
