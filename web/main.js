// The page: loads the package exactly as a browser user would, then renders the worked
// examples (the custom elements of web/elements/, its first user) and the demos. body[data-ready] tells tests (and people) it is done.
import { init } from '../bindings/js/browser.js';
import { useApi } from './elements/api.js';
import { renderWorkedExamples } from './worked-examples.js';
import { bindUrlState } from './url-state.js';
import { renderPlayground } from './demo-playground.js';
import { renderBenchPanel } from './bench-panel.js';
import { renderPositions } from './demo-positions.js';
import { renderHeads } from './demo-heads.js';
import { SLIDE_NOTES } from './examples-data.js';
import { bindModelForm } from './model-form.js';

const status = document.getElementById('status');
try {
  // The elements share the page's instance. It is handed over before they are registered:
  // an element that connected first would load a build of its own (the baseline), a second
  // wasm download for the page.
  const loading = init();
  useApi(loading);
  await import('./elements/index.js');
  const attn = await loading;
  status.textContent = `attention-wasm ${attn.info.version} loaded (${attn.info.target}).`;
  const steps = renderWorkedExamples(document.getElementById('examples'));

  const notes = document.getElementById('slide-notes');
  for (const n of SLIDE_NOTES) notes.append(Object.assign(document.createElement('li'), { textContent: n }));
  renderPlayground(attn, document.getElementById('playground'));
  renderPositions(attn, document.getElementById('positions'));
  renderHeads(attn, document.getElementById('heads'));
  renderBenchPanel(attn, document.getElementById('bench'));
  bindModelForm(
    document.getElementById('model-form'),
    document.getElementById('model'),
    document.getElementById('model-url-refused'),
  );
  bindUrlState({
    steps,
    flash: [...document.querySelectorAll('attention-flash[id]')],
    heatmaps: [...document.querySelectorAll('attention-heatmap[id]')],
  });
  document.body.dataset.ready = 'true';
} catch (error) {
  status.textContent = `Could not load attention-wasm: ${error.message}`;
  status.classList.add('error');
  document.body.dataset.ready = 'error';
  throw error;
}
