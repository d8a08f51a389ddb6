// One shared renderer: a labelled matrix with its shape, optional heat colouring (for
// weights in [0, 1]: viridis, text black or white by contrast) and the exact float32 value
// of every cell in data-value / title.
import { heatColour } from './elements/format.js';

const fmt = (x, digits) =>
  x === -Infinity
    ? '−∞'
    : x === Infinity
      ? '∞'
      : Number.isNaN(x)
        ? 'NaN'
        : x.toFixed(digits).replace(/^-(0\.0*)$/, '$1');

/**
 * @param {string} name   machine name, e.g. 'ex2-weights' (data-name, for tests)
 * @param {string} label  what a reader sees, e.g. 'softmax weights'
 * @param {{ data: Float32Array, shape: number[] }} t  a matrix (a vector is shown as 1 row)
 * @param {{ digits?: number, heat?: boolean, compare?: number[][] }} [options]
 *   compare: numbers the slides print, shown under the matrix
 */
export function matrixView(name, label, t, { digits = 4, heat = false, compare } = {}) {
  const rows = t.shape.length === 1 ? 1 : t.shape[t.shape.length - 2];
  const cols = t.shape[t.shape.length - 1];
  const figure = document.createElement('figure');
  figure.className = 'matrix';
  figure.dataset.name = name;
  figure.dataset.shape = t.shape.join(',');
  const caption = document.createElement('figcaption');
  caption.innerHTML = `<span class="label"></span> <span class="shape">[${rows} × ${cols}]</span>`;
  caption.querySelector('.label').textContent = label;
  figure.append(caption);
  const table = document.createElement('table');
  for (let i = 0; i < rows; i++) {
    const tr = table.insertRow();
    for (let j = 0; j < cols; j++) {
      const x = t.data[i * cols + j];
      const td = tr.insertCell();
      td.textContent = fmt(x, digits);
      td.dataset.value = String(x);
      td.title = String(x);
      const colour = heat ? heatColour(x, 'sequential', { min: 0, max: 1 }) : null;
      if (colour) {
        td.style.background = colour.background;
        td.style.color = colour.color;
      }
    }
  }
  figure.append(table);
  if (compare) {
    const note = document.createElement('div');
    note.className = 'slides';
    note.textContent = `slides: ${JSON.stringify(compare).replaceAll(',', ', ')}`;
    figure.append(note);
  }
  return figure;
}

/** A nested array as a tensor, for showing inputs. */
export function fromNested(rows) {
  const data = Float32Array.from(rows.flat());
  return { data, shape: [rows.length, rows[0].length] };
}
