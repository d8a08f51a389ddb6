// Shared by the React and Vue apps (tests/hosts-frameworks.test.js): every element, given
// its attributes the way a framework passes them (as properties where the element has one),
// must show what the same element shows given the same strings with setAttribute.

/** [tag, { attribute: string }] for every element: JSON, comma lists, booleans, numbers. */
export const CASES = [
  [
    'attention-matrix',
    {
      label: 'weights',
      value: '[[0.49,0.51],[0.52,0.48]]',
      precision: '3',
      heat: 'sequential',
      'row-labels': 'I,am',
      'col-labels': '["I","am"]',
      editable: '',
    },
  ],
  ['attention-matrix', { value: '[[1,"-Infinity"],[0,0]]', toggle: '' }],
  [
    'attention-heatmap',
    { tokens: 'The,cat,sat', weights: '[[0.5,0.25,0.25],[0.2,0.6,0.2],[0.1,0.1,0.8]]', view: 'grid' },
  ],
  ['attention-heatmap', { example: '2', view: 'lines' }],
  ['attention-steps', { example: '2', precision: '3' }],
  ['attention-steps', { x: '[[1,0],[0,1],[1,1]]', mask: 'causal' }],
  ['attention-flash', { q: '[[1,0],[0,1]]', k: '[[1,0],[0,1],[1,1]]', v: '[[1,2],[3,4],[5,6]]', block: '1' }],
  ['positional-encoding', { kind: 'rope' }],
  ['token-pruning', { tokens: 'The,cat,sat,down', drop: '2', dim: '4' }],
];

/** After the framework rendered: twins made with setAttribute, then both sides' text compared. */
export async function compareWithTwins(rendered) {
  const twins = CASES.map(([tag, attributes]) => {
    const twin = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) twin.setAttribute(name, value);
    document.getElementById('twins').append(twin);
    return twin;
  });
  // Elements compute through the shared API and render on the next frame.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const text = (el) => el.shadowRoot?.textContent.replace(/\s+/g, ' ').trim();
  return CASES.map(([tag], i) => ({ tag, framework: text(rendered[i]), twin: text(twins[i]) }));
}
