// The <attention-training> Worker: trains a TinyTransformer on a toy task off the page's main
// thread, in chunks, and posts after each chunk the loss, held-out accuracy, speed and the
// attention maps of one example sequence (every layer and head).
//   in:  { type: 'start', task, preset, seed, lr, every, maxSteps } | { type: 'pause' } |
//        { type: 'resume' } | { type: 'stop' }
//   out: { type: 'ready', build } | { type: 'progress', step, loss, accuracy, stepsPerSecond,
//        attention: [{ data, shape }] } | { type: 'done', step } | { type: 'error', message }
import { init } from './api.js';
import { TASKS } from './tasks.js';
import { toyConfig, trainToy } from './toy-training.js';

let attn = null;
let run = null; // { model, task, steps (the generator), paused, maxSteps, id }
let runs = 0;

async function start(message) {
  stop();
  attn ??= await init();
  const task = TASKS[message.task];
  if (!task) throw new Error(`unknown task '${message.task}'`);
  const model = new attn.TinyTransformer(toyConfig(task, message.preset, message.seed));
  const steps = trainToy(model, task, { seed: message.seed, lr: message.lr, every: message.every ?? 10 });
  run = {
    model,
    task,
    steps,
    paused: false,
    maxSteps: message.maxSteps ?? Infinity,
    id: ++runs,
    started: performance.now(),
    stepsAtStart: 0,
  };
  self.postMessage({ type: 'ready', build: attn.info.build, parameters: model.parameterCount });
  schedule(run.id);
}

function stop() {
  if (!run) return;
  run.model.dispose();
  run = null;
}

// One chunk per macrotask, so pause/stop messages get in between chunks.
function schedule(id) {
  setTimeout(() => chunk(id), 0);
}

function chunk(id) {
  if (!run || run.id !== id || run.paused) return;
  const t0 = performance.now();
  const { value } = run.steps.next();
  const seconds = (performance.now() - t0) / 1000;
  const { logits, attention } = run.model.forward([run.task.example]);
  void logits;
  const every = value.step - run.stepsAtStart;
  run.stepsAtStart = value.step;
  self.postMessage(
    { type: 'progress', ...value, stepsPerSecond: every / seconds, attention },
    attention.map((t) => t.data.buffer),
  );
  if (value.step >= run.maxSteps) {
    self.postMessage({ type: 'done', step: value.step });
    run.paused = true;
    return;
  }
  schedule(id);
}

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'start') await start(message);
    else if (message.type === 'pause' && run) run.paused = true;
    else if (message.type === 'resume' && run && run.paused) {
      run.paused = false;
      schedule(run.id);
    } else if (message.type === 'stop') stop();
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
};
