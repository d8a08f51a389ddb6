// npm run bench's whole-model session (a child process of bench/run.js per thread count, as
// onnxruntime-web fixes its thread count when it starts):
//   node --expose-gc bench/models.js <threads>
// prints { threads, versions, rows, quantized, bandwidth } as JSON (quantized: the rows of
// bench/quantized-cases.js). The cases are bench/model-cases.js; here attention-wasm loads
// the checkpoint from memory (attn.loadModel with a map of file names to bytes) and
// onnxruntime-web the graphs' bytes.
// BENCH_ONLY=quantized: the quantized rows alone; BENCH_QUICK=1: one short round of each
// (to see every path run; the numbers are not measurements).
import * as ort from 'onnxruntime-web';
import { init } from 'attention-wasm';
import { makeBert, makeGpt2, bertRow, gpt2Rows, copyBandwidth, TIMING } from './model-cases.js';
import { gpt2QuantizedRows } from './quantized-cases.js';

const threads = Number(process.argv[2] ?? 1);
const progress = (text) => process.stderr.write(`models, ${threads} thread${threads > 1 ? 's' : ''}: ${text}\n`);
const attn = await init({ threads });
ort.env.wasm.numThreads = threads;
ort.env.logLevel = 'error';
const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };

const timing = process.env.BENCH_QUICK === '1' ? TIMING.quick : TIMING.full;
const floatRows = process.env.BENCH_ONLY !== 'quantized';

const bandwidth = copyBandwidth();
const rows = [];
if (floatRows) await timeFloatModels();
progress('GPT-2, quantized: making weights and the q8 graphs');
const files = makeGpt2({ q8: true });
const checkpoint = { 'config.json': files.config, 'model.safetensors': files.safetensors };
const quantized = await gpt2QuantizedRows({
  ort,
  progress,
  timing,
  load: {
    reference: () => attn.loadModel(checkpoint),
    engines: async () => ({
      'attention-wasm q8': await attn.loadModel(checkpoint, { dtype: 'q8' }),
      'attention-wasm q4': await attn.loadModel(checkpoint, { dtype: 'q4' }),
      'onnxruntime-web q8': {
        prefill: await ort.InferenceSession.create(files.prefillQ8, options),
        decode: await ort.InferenceSession.create(files.decodeQ8, options),
      },
      'onnxruntime-web fp32': {
        prefill: await ort.InferenceSession.create(files.prefill, options),
        decode: await ort.InferenceSession.create(files.decode, options),
      },
    }),
  },
});
const versions = {
  'attention-wasm': `attention-wasm ${attn.info.version} (${attn.info.build} build)`,
  'onnxruntime-web': `onnxruntime-web ${ort.env.versions?.web ?? ''}`.trim(),
};
process.stdout.write(JSON.stringify({ threads, versions, rows, quantized, bandwidth }));
process.exit(0);

// The float rows: BERT, GPT-2, GPT-2 from a bfloat16 checkpoint.
async function timeFloatModels() {
  progress('BERT: making weights');
  rows.push(
    await bertRow({
      ort,
      progress,
      timing,
      load: async () => {
        const files = makeBert();
        return {
          model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
          session: await ort.InferenceSession.create(files.onnx, options),
        };
      },
    }),
  );
  progress('GPT-2: making weights');
  rows.push(
    ...(await gpt2Rows({
      ort,
      progress,
      timing,
      load: async () => {
        const files = makeGpt2();
        return {
          model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
          prefill: await ort.InferenceSession.create(files.prefill, options),
          decode: await ort.InferenceSession.create(files.decode, options),
        };
      },
    })),
  );
  progress('GPT-2, bfloat16 checkpoint: making weights');
  rows.push(
    ...(await gpt2Rows({
      ort,
      progress,
      timing,
      bf16: true,
      load: async () => {
        const files = makeGpt2({ bf16: true });
        return {
          model: await attn.loadModel({ 'config.json': files.config, 'model.safetensors': files.safetensors }),
          prefill: await ort.InferenceSession.create(files.prefill, options),
          decode: await ort.InferenceSession.create(files.decode, options),
        };
      },
    })),
  );
}
