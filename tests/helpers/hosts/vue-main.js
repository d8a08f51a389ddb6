// A Vue 3 app (render functions, so the runtime-only build and no plugin) rendering every
// element with string attributes, which Vue sets as properties where the element has one;
// plus a reactive array given to .weights, read back and exported.
import { createApp, h, reactive } from 'vue';
import 'attention-wasm/elements';
import { CASES, compareWithTwins } from './frameworks.js';

const weights = reactive([
  [0.5, 0.5],
  [0.25, 0.75],
]);
const app = createApp({
  mounted() {
    const reactiveHeatmap = document.getElementById('reactive');
    const readBack = { weights: reactiveHeatmap.weights, json: JSON.stringify(reactiveHeatmap.toJSON()) };
    compareWithTwins([...document.getElementById('cases').children]).then((result) => {
      document.getElementById('out').textContent = JSON.stringify({ result, readBack });
    });
  },
  render: () =>
    h('div', [
      h(
        'div',
        { id: 'cases' },
        CASES.map(([tag, attributes]) => h(tag, attributes)),
      ),
      h('attention-heatmap', { id: 'reactive', tokens: 'a,b', weights }),
    ]),
});
app.mount('#root');
