// A Vue 3 app written as a Vue user writes one: a template (compiled at run time, so no
// plugin) with the package's tags declared custom elements (compilerOptions.isCustomElement),
// attributes bound to reactive state, and v-if removing and re-adding the model elements.
// Reports what the elements showed after each step as JSON in #out.
import { createApp, ref, computed, nextTick } from 'vue/dist/vue.esm-bundler.js';
import { getApi } from 'attention-wasm/elements';

const until = async (condition, what, ms = 20_000) => {
  const t0 = performance.now();
  while (!condition()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const $ = (id) => document.getElementById(id);
const loaded = () => $('explainer')?.result && $('model')?.model && $('model').shadowRoot.querySelector('.main');
const tokens = (el) => el.result.tokens.map((t) => t.text).join('|');

const app = createApp({
  setup() {
    const text = ref('The cat sat');
    const temperature = ref(1);
    const show = ref(true);
    const x11 = ref(1);
    const x = computed(() =>
      JSON.stringify([
        [1, 0],
        [0, x11.value],
        [1, 1],
      ]),
    );
    return { text, temperature, show, x11, x };
  },
  template: `
    <template v-if="show">
      <attention-explainer id="explainer" :text="text" :temperature="temperature"></attention-explainer>
      <attention-model id="model" src="tiny-gpt2" :text="text"></attention-model>
    </template>
    <attention-steps id="steps" :x="x"></attention-steps>`,
});
app.config.compilerOptions.isCustomElement = (tag) =>
  tag.startsWith('attention-') || tag === 'positional-encoding' || tag === 'token-pruning';
const state = app.mount('#root');

async function run() {
  const attn = await getApi();
  await until(loaded, 'the model elements');
  await until(() => $('steps').stages, 'the steps');
  const firstWeights = Array.from($('steps').stages.weights.data);
  const out = { first: { explainer: tokens($('explainer')), model: $('model').text, steps: firstWeights } };
  state.text = 'A dog ran';
  state.temperature = 0.5;
  state.x11 = 3;
  await nextTick();
  await until(() => tokens($('explainer')).startsWith('A'), 'the new text');
  await until(() => $('steps').stages.weights.data[4] !== firstWeights[4], 'the new X');
  out.changed = {
    explainer: tokens($('explainer')),
    model: $('model').text,
    modelInput: $('model').shadowRoot.querySelector('input').value,
    temperature: $('explainer').getAttribute('temperature'),
    steps: Array.from($('steps').stages.weights.data),
  };
  out.rounds = [];
  for (let round = 0; round < 2; round++) {
    const held = [$('explainer').model, $('model').model];
    const inUse = attn.memory().inUseBytes;
    state.show = false;
    await sleep(2600); // past the model cache's grace (web/elements/model-cache.js GRACE_MS)
    const gone = { disposed: held.map((m) => m.disposed), freed: inUse - attn.memory().inUseBytes };
    state.show = true;
    await nextTick();
    await until(loaded, 'the model elements back');
    out.rounds.push({ ...gone, back: tokens($('explainer')), shared: $('explainer').model === $('model').model });
  }
  return out;
}
run().then(
  (out) => ($('out').textContent = JSON.stringify(out)),
  (error) => ($('out').textContent = JSON.stringify({ error: String(error) })),
);
