// The page's state in the URL, so a view can be shared as a link: the inputs a reader edited
// in each <attention-steps> (X, C, the weights, the mask), the step of <attention-flash> and
// the view of each <attention-heatmap>. Kept in the fragment (#state=…, JSON), replaced (not
// pushed) on every change; elements not in it keep their defaults.

import { LIMITS } from './elements/limits.js';

const KEY = 'state';

/** The state in the page's URL, or {} (a malformed or oversized one is ignored, with a warning). */
export function readState() {
  const match = location.hash.match(new RegExp(`[#&]${KEY}=([^&]*)`));
  if (!match) return {};
  if (match[1].length > LIMITS.urlStateChars) {
    console.warn(
      `attention-wasm page: the #state in this link is ${match[1].length} characters, more than the ${LIMITS.urlStateChars} the page reads; ignored`,
    );
    return {};
  }
  try {
    const state = JSON.parse(decodeURIComponent(match[1]), (k, v) => (v === '-Infinity' ? -Infinity : v));
    return state && typeof state === 'object' && !Array.isArray(state) ? state : {};
  } catch {
    return {};
  }
}

function writeState(state) {
  const json = JSON.stringify(state, (k, v) => (v === -Infinity ? '-Infinity' : v));
  history.replaceState(null, '', `#${KEY}=${encodeURIComponent(json)}`);
}

/**
 * Restores each element (by id) from the URL and keeps the URL up to date with its edits.
 * `steps`: <attention-steps> elements; `flash`: <attention-flash> elements; `heatmaps`.
 */
export function bindUrlState({ steps = [], flash = [], heatmaps = [] }) {
  const state = readState();
  // A bad entry (an element rejects it) shows that element's message; the rest still load.
  const entry = (id) => (state[id] && typeof state[id] === 'object' && !Array.isArray(state[id]) ? state[id] : null);
  for (const el of steps) if (entry(el.id)) el.data = { ...el.data, ...entry(el.id) };
  let pending = 0;
  const save = () => {
    // at most once per 300 ms: history.replaceState is not free
    clearTimeout(pending);
    pending = setTimeout(saveNow, 300);
  };
  const saveNow = () => {
    const next = {};
    for (const el of steps) {
      const d = el.data;
      if (!d || !el.dataset.edited) continue;
      next[el.id] = Object.fromEntries(
        ['x', 'c', 'wq', 'wk', 'wv', 'wo', 'mask'].filter((k) => d[k]).map((k) => [k, d[k]]),
      );
    }
    for (const el of flash) if (el.step > 0) next[el.id] = el.step;
    for (const el of heatmaps) if (el.view === 'lines') next[el.id] = 'lines';
    writeState(next);
  };
  for (const el of steps)
    el.addEventListener('compute', () => {
      if (el.dataset.ready) {
        el.dataset.edited = 'true';
        save();
      }
      el.dataset.ready = 'true';
    });
  for (const el of flash) {
    el.addEventListener('step', save);
    if (Number.isInteger(state[el.id]))
      customElements.whenDefined('attention-flash').then(() =>
        waitFor(() => el.blocks > 0).then(() => {
          el.step = state[el.id];
        }),
      );
  }
  for (const el of heatmaps) {
    if (state[el.id] === 'lines') el.setAttribute('view', 'lines');
    new MutationObserver(save).observe(el, { attributes: true, attributeFilter: ['view'] });
  }
  // Restored edits count as edits (so the next save keeps them).
  for (const el of steps) if (entry(el.id)) el.dataset.edited = 'true';
}

function waitFor(condition) {
  return new Promise((resolve) => {
    const poll = () => (condition() ? resolve() : requestAnimationFrame(poll));
    poll();
  });
}
