// Compiled (not run) by tests/types.test.js with `tsc --noEmit --strict`: the public API as
// a TypeScript user writes it must type-check, and misuse must not.
import {
  init,
  tensor,
  toNested,
  VERSION,
  type Tensor,
  type AttentionResult,
  type MemoryEstimate,
  type LayerNormStats,
} from 'attention-wasm';
// The layer classes are types only: at run time they are reached through the API object.
import { MultiHeadAttention, type TransformerEncoderLayer } from 'attention-wasm';

async function main(): Promise<void> {
  const attn = await init({ wasmUrl: new URL('https://example.invalid/attention.wasm') });
  const q: Tensor = tensor(new Float32Array(8), [2, 4]);
  const threaded = await init({ threads: 'auto', simd: 'baseline' });
  const why: string | null = threaded.info.threadsReason;
  const count: number = threaded.info.threads + (threaded.info.build === 'relaxed' ? 1 : 0);
  // @ts-expect-error threads is a count or 'auto'
  await init({ threads: 'many' });
  // @ts-expect-error simd has three values
  await init({ simd: 'fast' });
  const result: AttentionResult = attn.attention(q, [[1, 2, 3, 4]], [[1, 2]], {
    mask: [[true], [false]],
    causal: true,
    causalAlign: 'bottom-right',
    scale: 0.5,
    keyLengths: [1],
    returnWeights: true,
    trace: true,
    enableGqa: false,
  });
  const cached: AttentionResult = attn.attention(q, q, q, {
    softcap: 30,
    layout: 'bshd',
    causal: true,
    causalAlign: 'bottom-right-per-sequence',
    pastKey: { data: new Uint16Array(4), shape: [1, 1, 4], dtype: 'float16' },
    pastValue: q,
  });
  const present: Tensor | undefined = cached.presentKey;
  void present;
  attn.attention(q, q, q, { causalAlign: -2 });
  const local = attn.attention(q, q, q, {
    causal: true,
    window: { left: 3 },
    dropout: { p: 0.1, seed: 7 },
    returnWeights: true,
  });
  const seed: number | undefined = local.dropoutSeed;
  const dropped: Tensor | undefined = local.droppedWeights;
  void seed;
  void dropped;
  attn.attentionBackward(q, q, q, q, { window: { left: 3, right: 0 }, dropout: { p: 0.1, seed: 7 } });
  // @ts-expect-error dropout is { p, seed }
  attn.attention(q, q, q, { dropout: 0.1 });
  // @ts-expect-error a window side is a number
  attn.attention(q, q, q, { window: { left: '3' } });
  // @ts-expect-error layout is 'bhsd' or 'bshd'
  attn.attention(q, q, q, { layout: 'nchw' });
  const cache = new attn.KVCache({ batch: 1, kvHeads: 1, capacity: 16, headDim: 4 });
  const step: Tensor = cache.attend(q, q, q, {
    causal: true,
    newLengths: [1],
    layout: 'bhsd',
    window: { left: 8 },
  }).output;
  const held: number[] = cache.lengths;
  void step;
  void held;
  cache.dispose();
  const reused = new Float32Array(4);
  const into: Float32Array = attn.attention(q, [[1, 2, 3, 4]], [[1, 2]], { out: reused }).output.data;
  void into;
  // @ts-expect-error out is a Float32Array
  attn.attention(q, q, q, { out: [0, 0] });
  const w: Tensor | undefined = result.weights;
  const scores: Tensor | undefined = result.trace?.maskedScores;
  const nested = toNested(result.output);
  const layer: MultiHeadAttention = new attn.MultiHeadAttention({ dModel: 8, numHeads: 2, numKvHeads: 1, seed: 3 });
  // @ts-expect-error the package exports no MultiHeadAttention value (use attn.MultiHeadAttention)
  void new MultiHeadAttention({ dModel: 8, numHeads: 2 });
  const out = layer.forward(q, undefined, undefined, { averageWeights: true }).output;
  layer.setWeights({ wq: tensor(new Float32Array(64), [8, 8]) });
  const pe: Tensor = attn.sinusoidalEncoding(4, 8, { base: 100 });
  const rope: Tensor = attn.applyRope(pe, { interleaved: true, positions: [0, 1, 2, 3] });
  const slopes: number[] = attn.alibiSlopes(8);
  const lap = attn.laplacianEncoding(
    {
      numNodes: 3,
      edges: [
        [0, 1],
        [1, 2],
      ],
    },
    2,
  );
  const eig: Float32Array = lap.eigenvalues;
  const enc: TransformerEncoderLayer = new attn.TransformerEncoderLayer({
    dModel: 8,
    numHeads: 2,
    dFF: 16,
    norm: 'pre',
    activation: 'gelu',
  });
  const y: Tensor = enc.forward(out, { causal: true });
  const pooled: Tensor = attn.setPool(y, 'mean');
  const normed: Tensor = attn.layerNorm(pooled, { eps: 1e-6 });
  const stats: LayerNormStats = attn.layerNorm(y, { axis: -2, returnStats: true, gamma: y });
  const invStd: Tensor = stats.invStdDev;
  // @ts-expect-error without returnStats layerNorm returns a tensor
  void attn.layerNorm(y, { axis: 0 }).mean;
  const rms: Tensor = attn.rmsNorm(y, { weight: [1, 2], eps: 1e-6, axis: -1 });
  const probs: Tensor = attn.softmax(y, { axis: 0 });
  const logProbs: Tensor = attn.logSoftmax(y);
  const ropeTables: Tensor = attn.applyRope(q, {
    cos: [[1]],
    sin: [[0]],
    positions: { data: new BigInt64Array(2), shape: [1, 2] },
    rotaryDim: 2,
    numHeads: 1,
    interleaved: true,
  });
  const softmaxEstimate: MemoryEstimate = attn.estimateMemory('softmax', q, { axis: 0 });
  const mem: number = attn.memory().peakBytes;
  const estimate: MemoryEstimate = attn.estimateMemory('attention', q, q, q, { returnWeights: true });
  const free: number = estimate.fits ? estimate.freeBytes - estimate.bytes : attn.memory().heapMaxBytes;
  // @ts-expect-error estimateMemory knows only the package's functions
  attn.estimateMemory('transpose', q);
  // @ts-expect-error causalAlign takes only the two alignments
  attn.attention(q, q, q, { causalAlign: 'center' });
  // @ts-expect-error setPool has no median
  attn.setPool(y, 'median');
  void [w, scores, nested, rope, slopes, eig, normed, mem, free, VERSION, attn.info.simd, why, count];
  layer.dispose();
  enc.dispose();
}
void main;

// TinyTransformer: config, batch, train step, weights round trip.
async function training(): Promise<void> {
  const attn = await init();
  const model = new attn.TinyTransformer({ vocabSize: 10, maxLen: 8, dModel: 16, numHeads: 2, head: 'token' });
  const r: import('attention-wasm').TrainStepResult = model.trainStep(
    { tokens: [[1, 2]], targets: [[2, -1]] },
    { lr: 1e-3, clipNorm: 1 },
  );
  const loss: number = r.loss + r.gradNorm + r.step;
  const w: import('attention-wasm').TinyTransformerWeights = model.getWeights();
  model.setWeights(JSON.parse(JSON.stringify(w)));
  const heads: number = model.forward({ data: new Int32Array([1, 2]), shape: [1, 2] }).attention[0].shape[1];
  const g: Float32Array = model.gradients({ tokens: [[1]], targets: [[1]] }).gradients['head.w'];
  void loss;
  void heads;
  void g;
  model.dispose();
}
void training;

// TextClassifier: load, predict, train with progress, files round trip.
async function classifying(): Promise<void> {
  const attn = await init();
  const classifier: import('attention-wasm').TextClassifier = await attn.TextClassifier.load(
    'https://example.org/review-sentiment/',
  );
  const p: import('attention-wasm').TextPrediction = classifier.predict('not bad at all');
  const weight: number = p.attention[0][0][0][0] + p.probabilities[p.labelId] + p.tokens[1].start;
  // A Hugging Face pair classifier: { text, pair }, each token's segment.
  const nli = await attn.TextClassifier.load('https://example.org/nli-checkpoint/');
  const format: 'attention-wasm' | 'hugging-face' | 'linear-probe' = nli.format;
  const paired: import('attention-wasm').TextPrediction = nli.predict({
    text: 'A man sleeps.',
    pair: 'A person rests.',
  });
  const segment: number | undefined = paired.tokens[1].segment;
  const layers: number = nli.modelConfig.numLayers ?? 0;
  const types: number[] = nli.tokenizer.encode('a', { pair: 'b' }).typeIds;
  void [format, segment, layers, types];
  nli.dispose();
  const trained = await attn.TextClassifier.train('good\tpositive\nbad\tnegative', {
    steps: 10,
    validation: [{ text: 'fine', label: 'positive' }],
    onProgress: ({ step, loss, accuracy }) => void [step, loss, accuracy],
  });
  const files: import('attention-wasm').ClassifierFiles = trained.toFiles({ dtype: 'F32' });
  const bytes: Uint8Array = files['model.safetensors'];
  const { accuracy }: { accuracy: number } = trained.evaluate([{ text: 'good', label: 'positive' }]);
  void [weight, bytes, accuracy, classifier.labels[0]];
  classifier.dispose();
  trained.dispose();
  // A linear probe on a loaded encoder, saved and loaded with it.
  const encoder = await attn.loadModel('sentence-transformers/all-MiniLM-L6-v2');
  const source: string | undefined = encoder.source?.source;
  const probe = await attn.TextClassifier.train('good\tpositive\nbad\tnegative', {
    encoder,
    pooling: 'cls',
    epochs: 5,
    onProgress: (p) => void (p.stage === 'training' ? p.epoch : p.embedded),
  });
  const probeFormat: 'linear-probe' | 'attention-wasm' | 'hugging-face' = probe.format;
  const again = await attn.TextClassifier.load(probe.toFiles(), { encoder });
  void [source, probeFormat, again.encoder?.descriptor.dModel];
}
void classifying;

// Sentence embeddings: the folder's pooling, or the caller's.
async function embedding(): Promise<void> {
  const attn = await init();
  const model = await attn.loadModel('https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/');
  const rows: number = model.embed(['a cat', 'a dog']).shape[0];
  const data: Float32Array = model.embed('a cat', { pooling: ['cls', 'mean'], normalize: true }).data;
  const modes: import('attention-wasm').PoolingMode[] | null = model.sentenceEmbedding?.pooling ?? null;
  // @ts-expect-error pooling is a mode name
  model.embed('a cat', { pooling: 'median' });
  void [rows, data, modes];
  model.dispose();
}
void embedding;

// One position's whole path (forward's trace) and the distribution sampling draws from.
async function tracing(): Promise<void> {
  const attn = await init();
  const model = await attn.loadModel('openai-community/gpt2');
  const { trace } = model.forward('The cat sat', { trace: { position: 2 } });
  const weights: Tensor = trace.layers[0].weights;
  const up: Tensor | null = trace.layers[0].mlpUp;
  const p: Float64Array = model.samplingDistribution(trace.logits ?? [], { temperature: 0.8, topK: 40, topP: 0.95 });
  // @ts-expect-error trace takes { position }
  model.forward('The cat sat', { trace: 2 });
  void [weights, up, p];
  model.dispose();
}
void tracing;

// Hub ids, chat templates and generation options.
async function chatting(): Promise<void> {
  const attn = await init();
  const model = await attn.loadModel('Qwen/Qwen2.5-0.5B-Instruct', {
    revision: 'main',
    hubUrl: 'https://huggingface.co',
    fetchOptions: { headers: { Authorization: 'Bearer hf_x' } },
  });
  const messages: import('attention-wasm').ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi!' },
  ];
  const text: string = model.applyChatTemplate(messages, { addGenerationPrompt: true, tokenize: false });
  const ids: number[] = model.applyChatTemplate(messages, {
    addGenerationPrompt: true,
    templateVariables: { enable_thinking: false },
  });
  const defaults: import('attention-wasm').GenerationDefaults = model.generationDefaults;
  const eos: readonly number[] = defaults.eosTokenId;
  const chat = await model.generate({
    messages,
    maxNewTokens: 32,
    repetitionPenalty: 1.1,
    minP: 0.05,
    stop: ['\n\n'],
    eosTokenId: [151645, 151643],
  });
  const plain = await model.generate(ids, { returnScores: true, eosTokenId: 2 });
  const stopped: 'length' | 'eos' | 'stop' | 'callback' | 'aborted' = chat.stopped;
  const processed: Float64Array | undefined = plain.processedScores?.[0];
  const templates: Readonly<Record<string, string>> | null = model.chatTemplates;
  void [text, eos, stopped, processed, templates];
  model.dispose();
  // @ts-expect-error tokenize: false returns a string, not ids
  const wrong: number[] = model.applyChatTemplate(messages, { tokenize: false });
  // @ts-expect-error messages need a role
  model.applyChatTemplate([{ content: 'Hi' }]);
  void wrong;
}
void chatting;

// A folder the reader picks (`<input type="file" webkitdirectory>`): its FileList loads as is.
async function pickedFolder(input: HTMLInputElement): Promise<void> {
  const attn = await init();
  if (input.files) (await attn.loadModel(input.files)).dispose();
  // @ts-expect-error an array of names is not a source
  await attn.loadModel(['config.json']);
}
void pickedFolder;
