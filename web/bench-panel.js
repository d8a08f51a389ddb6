// The benchmark in the browser: attention-wasm vs plain JS loops, the same cases, checks
// and FLOP counts as `npm run bench` (bench/cases.js). The peers (onnxruntime-web, tfjs)
// run only in the Node benchmark: the page loads nothing from outside this project.
import { ATTENTION_CASES, attentionFlops, attentionInputs, checkAttention } from '../bench/cases.js';
import { plainAttention } from '../bench/plain-js.js';

const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 0));

// Browsers round performance.now() (to 0.1 ms in Chrome without cross-origin isolation),
// so each sample times a batch of calls lasting at least minSampleMs. The warm-up lets the
// engine tier the wasm up from its baseline compiler first.
async function timePerCall(fn, { samples = 7, minSampleMs = 20, warmupMs = 1000 } = {}) {
  const start = performance.now();
  while (performance.now() - start < warmupMs) {
    const slice = performance.now();
    while (performance.now() - slice < 50) fn();
    await nextFrame();
  }
  let batch = 1;
  for (;;) {
    // find a batch size (this also warms up)
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    if (performance.now() - t0 >= minSampleMs) break;
    batch *= 2;
  }
  const times = [];
  for (let s = 0; s < samples; s++) {
    await nextFrame();
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

/** Builds the panel: a size choice, a button, a progress bar and the results table. */
export function renderBenchPanel(attn, container) {
  container.innerHTML = `
    <div class="controls">
      <label>sizes <select name="sizes"><option value="quick">quick (N ≤ 256)</option><option value="full">full (N up to 2048, ~1 min)</option></select></label>
      <button type="button" name="run">Run benchmark</button>
      <progress max="1" value="0"></progress> <span data-role="stage"></span>
    </div>
    <table class="bench" tabindex="0" aria-label="benchmark results"><thead><tr><th>case</th><th>attention-wasm, new output</th><th>attention-wasm, <code>out</code> reused</th><th>plain JS</th><th>new output vs plain JS</th><th>checked</th></tr></thead><tbody></tbody></table>`;
  const button = container.querySelector('[name="run"]');
  const bar = container.querySelector('progress');
  const stage = container.querySelector('[data-role="stage"]');
  const body = container.querySelector('tbody');
  button.addEventListener('click', async () => {
    button.disabled = true;
    body.replaceChildren();
    const cases =
      container.querySelector('[name="sizes"]').value === 'quick'
        ? ATTENTION_CASES.filter((c) => c.n <= 256)
        : ATTENTION_CASES;
    try {
      for (const [index, c] of cases.entries()) {
        const inputs = attentionInputs(c);
        const shape = [c.heads, c.n, c.d];
        const t = Object.fromEntries(Object.entries(inputs).map(([key, data]) => [key, { data, shape }]));
        const ours = () => attn.attention(t.q, t.k, t.v).output.data;
        const reuse = { out: new Float32Array(c.heads * c.n * c.d) };
        const oursReused = () => attn.attention(t.q, t.k, t.v, reuse).output.data;
        const plain = () => plainAttention(inputs.q, inputs.k, inputs.v, c.heads, c.n, c.d);
        const step = (what, k) => {
          stage.textContent = `${c.name}: ${what}`;
          bar.value = (index + k / 4) / cases.length;
        };
        step('checking against float64', 0);
        await nextFrame();
        const errorOurs = Math.max(
          checkAttention(c, inputs, ours(), 'attention-wasm'),
          checkAttention(c, inputs, oursReused(), 'attention-wasm, out reused'),
        );
        const errorPlain = checkAttention(c, inputs, plain(), 'plain JS');
        step('timing attention-wasm', 1);
        const msOurs = await timePerCall(ours);
        step('timing attention-wasm, out reused', 2);
        const msReused = await timePerCall(oursReused);
        step('timing plain JS', 3);
        const msPlain = await timePerCall(plain, { samples: 3, minSampleMs: 1, warmupMs: 0 });
        const flops = attentionFlops(c);
        const row = body.insertRow();
        row.dataset.case = c.name;
        row.dataset.gflops = String(flops / msOurs / 1e6);
        row.dataset.gflopsReused = String(flops / msReused / 1e6);
        for (const text of [
          c.name,
          `${(flops / msOurs / 1e6).toFixed(1)} GFLOP/s (${msOurs.toFixed(3)} ms)`,
          `${(flops / msReused / 1e6).toFixed(1)} GFLOP/s (${msReused.toFixed(3)} ms)`,
          `${(flops / msPlain / 1e6).toFixed(2)} GFLOP/s (${msPlain.toFixed(2)} ms)`,
          `${(msPlain / msOurs).toFixed(1)}×`,
          `max |error| ${Math.max(errorOurs, errorPlain).toExponential(1)}`,
        ]) {
          row.insertCell().textContent = text;
        }
      }
      bar.value = 1;
      stage.textContent = `done: float32, d = 64, one thread, median of 7 samples, JS call included.`;
      container.dataset.done = 'true';
    } catch (error) {
      stage.textContent = `failed: ${error.message}`;
      container.dataset.done = 'error';
    } finally {
      button.disabled = false;
    }
  });
}
