// A table too wide for its region wraps its data columns into bands, one under the other,
// each band with its own column titles and row titles, instead of scrolling sideways: a
// screenshot of a phone-wide page shows every column. A page wide enough keeps one band, the
// table as it was. Used by the explainer's grids and the neuron view's vectors (issue 45:
// at 390 px the right-hand columns were off the screenshot).

/**
 * The column ranges of bands of at most `per` of `columns` columns, as even as they can be
 * (9 by 7 → 5 + 4). With `align`, bands keep to whole groups of `align` columns (q's 8 dims,
 * then q ⊙ k's 8): several groups a band when `per` holds them, else even parts of each.
 *   → [[start, end), ...]
 */
export function bandRanges(columns, per, align = columns) {
  const even = (from, count, most) => {
    const n = Math.ceil(count / most);
    const size = Math.ceil(count / n);
    return Array.from({ length: n }, (_, i) => [from + i * size, Math.min(from + count, from + (i + 1) * size)]);
  };
  if (per >= columns) return [[0, columns]];
  if (per >= align) {
    const groups = Math.floor(per / align);
    return even(0, Math.ceil(columns / align), groups).map(([a, b]) => [a * align, Math.min(columns, b * align)]);
  }
  const out = [];
  for (let from = 0; from < columns; from += align) out.push(...even(from, Math.min(align, columns - from), per));
  return out;
}

/**
 * Lays `table` out in bands of its `columns` data columns. Each row spec gives its title cell
 * for a band (`title(band)`: band 0 may keep the focusable original, later bands a copy) and
 * its cell of column c (`cell(c)`): an element (the same one each time: it moves between
 * layouts with its listeners) or `{ key, make(span, range) }`, merged with the next columns of
 * the same key into one cell of `span` columns. `head` rows open the table (thead) and each
 * later band; `data` goes to each of a row's <tr>s (data-score ...). Returns `lay(ranges)`,
 * `fit(region, overflows)` for scrollRegion (one band when it fits, else as many columns a
 * band as fit), and `rowsOf(i)`, the <tr>s that row spec i now spans.
 *   rows: [{ head?, data?, title(band): HTMLElement, cell(c): HTMLElement | { key, make } }]
 */
export function columnBands(table, columns, rows, { align = columns } = {}) {
  let placed = rows.map(() => []);
  const lay = (ranges) => {
    const caption = table.caption;
    table.replaceChildren(...(caption ? [caption] : []));
    placed = rows.map(() => []);
    ranges.forEach(([a, end], band) => {
      const body = document.createElement('tbody');
      if (band > 0) body.className = 'band';
      rows.forEach((row, i) => {
        const tr = (row.head && band === 0 ? table.createTHead() : body).insertRow();
        Object.assign(tr.dataset, row.data);
        tr.append(row.title(band));
        for (let c = a; c < end;) {
          const cell = row.cell(c);
          if (cell instanceof Element) {
            tr.append(cell);
            c++;
            continue;
          }
          let span = 1;
          while (c + span < end && row.cell(c + span).key === cell.key) span++;
          tr.append(cell.make(span, [a, end]));
          c += span;
        }
        placed[i].push(tr);
      });
      table.append(body);
    });
  };
  const fit = (region, overflows) => {
    lay([[0, columns]]);
    if (!overflows()) return;
    // Columns that fit beside the row titles, from the widths drawn; then fewer until it fits.
    const titleWidth = Math.max(...Array.from(table.rows, (tr) => tr.cells[0].getBoundingClientRect().width));
    const perColumn = (table.getBoundingClientRect().width - titleWidth) / columns;
    let per = Math.max(1, Math.min(columns - 1, Math.floor((region.clientWidth - titleWidth) / perColumn)));
    lay(bandRanges(columns, per, align));
    while (per > 1 && overflows()) lay(bandRanges(columns, --per, align));
  };
  lay([[0, columns]]);
  return { lay, fit, rowsOf: (i) => placed[i] };
}

/** The CSS of a band after the first: a gap above its column titles. */
export const COLUMN_BANDS_STYLE = `
tbody.band > tr:first-child > * { padding-top: 0.7rem; }
`;
