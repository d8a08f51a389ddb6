// Interactive demo: random queries and keys, and the weight matrix as a heat map while you
// change the length, the causal rule, the scale and the key length.
import { matrixView } from './matrix-view.js';
import { seededRandom } from '../bindings/js/parameters.js';

function randomTensor(seed, shape) {
  const random = seededRandom(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: n }, () => random() * 2 - 1), shape };
}

/** Builds the playground inside `container`. */
export function renderPlayground(attn, container) {
  container.innerHTML = `
    <div class="controls">
      <label>tokens <input type="range" name="len" min="1" max="16" value="6"><output name="lenOut"></output></label>
      <label>query tokens <input type="range" name="lenQ" min="1" max="16" value="6"><output name="lenQOut"></output></label>
      <label>scale × 1/√d <input type="range" name="temp" min="0" max="4" step="0.25" value="1"><output name="tempOut"></output></label>
      <label>key length <input type="range" name="keyLen" min="0" max="16" value="16"><output name="keyLenOut"></output></label>
      <label><input type="checkbox" name="causal"> causal</label>
      <label>align <select name="align"><option>top-left</option><option>bottom-right</option></select></label>
      <button type="button" name="reseed">new random q, k</button>
    </div>
    <div class="matrices" data-role="out"></div>
    <p class="timing" data-role="timing"></p>`;
  const $ = (n) => container.querySelector(`[name="${n}"]`);
  let seed = 7;
  const d = 8;
  const update = () => {
    const lenK = Number($('len').value),
      lenQ = Number($('lenQ').value);
    $('keyLen').max = String(lenK);
    const keyLen = Math.min(Number($('keyLen').value), lenK);
    const temp = Number($('temp').value);
    $('lenOut').value = lenK;
    $('lenQOut').value = lenQ;
    $('tempOut').value = temp.toFixed(2);
    $('keyLenOut').value = keyLen;
    const q = randomTensor(seed, [lenQ, d]);
    const k = randomTensor(seed + 1, [lenK, d]);
    const v = randomTensor(seed + 2, [lenK, 2]);
    const options = {
      returnWeights: true,
      scale: temp / Math.sqrt(d),
      causal: $('causal').checked,
      causalAlign: $('align').value,
      keyLengths: [keyLen],
    };
    const t0 = performance.now();
    const r = attn.attention(q, k, v, options);
    const ms = performance.now() - t0;
    const out = container.querySelector('[data-role="out"]');
    out.replaceChildren(
      matrixView('demo-weights', 'weights (rows: queries, columns: keys)', r.weights, { digits: 2, heat: true }),
      matrixView('demo-output', 'output', r.output, { digits: 3 }),
    );
    container.querySelector('[data-role="timing"]').textContent =
      `attention([${lenQ}, ${d}], [${lenK}, ${d}], [${lenK}, 2]) took ${(ms * 1000).toFixed(0)} µs including the JS call.`;
  };
  container.addEventListener('input', update);
  $('reseed').addEventListener('click', () => {
    seed += 3;
    update();
  });
  update();
}
