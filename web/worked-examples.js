// The course's worked examples on the page: one <attention-steps> each (editable, every
// stage computed by the library, the slides' rounded numbers beside the exact ones), with
// the slips the slides make. Edits go into the URL (see url-state.js).
import { EXAMPLES } from './examples-data.js';

/** Renders all examples into `container`; returns their <attention-steps> elements. */
export function renderWorkedExamples(container) {
  const elements = [];
  EXAMPLES.forEach((ex, index) => {
    const section = document.createElement('section');
    section.className = 'example';
    section.id = `section-${ex.id}`;
    const h3 = document.createElement('h3');
    h3.textContent = ex.title;
    const p = document.createElement('p');
    p.textContent = ex.text;
    const steps = document.createElement('attention-steps');
    steps.id = ex.id;
    steps.setAttribute('example', String(index + 1));
    steps.setAttribute('show-slides', '');
    section.append(h3, p, steps);
    if (ex.slips.length) {
      const ul = document.createElement('ul');
      ul.className = 'slips';
      for (const slip of ex.slips) ul.append(Object.assign(document.createElement('li'), { textContent: slip }));
      section.append(ul);
    }
    container.append(section);
    elements.push(steps);
  });
  return elements;
}
