// One shared renderer: a labelled matrix with its shape, optional heat colouring (for
// weights in [0, 1]) and the exact float32 value of every cell in data-value / title.

const fmt = (x, digits) => (x === -Infinity ? '−∞' : x === Infinity ? '∞' : Number.isNaN(x) ? 'NaN' : x.toFixed(digits).replace(/^-(0\.0*)$/, '$1'));

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
      if (heat && Number.isFinite(x)) td.style.background = `rgba(37, 99, 235, ${Math.min(1, Math.max(0, x)) * 0.75})`;
      if (heat && x > 0.55) td.style.color = '#fff';
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
