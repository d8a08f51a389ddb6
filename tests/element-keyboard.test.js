// A keyboard tab-through of every element (issue 45), each on a page of its own as
// docs/elements.md shows it (scripts/element-shots.mjs's pages), in headless Chromium: Tab
// from the top of the page reaches every interactive control of the element (buttons, fields,
// menus, sliders, focusable cells, tokens and regions, through the shadow roots), and each
// control Tab lands on shows a focus ring (an outline or a box shadow) and has an accessible
// name (aria-label, aria-labelledby, a <label>, its text, or a title).
import test from 'node:test';
import assert from 'node:assert/strict';
import { ELEMENT_PAGES } from '../scripts/element-shots.mjs';
import { openElementPage, startElementBrowser } from './helpers/element-page.js';

let url, browser, close;

test.before(async () => {
  ({ url, browser, close } = await startElementBrowser());
});

test.after(() => close?.());

// In the page: the element's controls a Tab may land on (visible, enabled, in tab order),
// kept in window.controls; and window.visited, the set Tab has reached so far.
function listControls() {
  const selector =
    'button, input:not([type=hidden]), select, textarea, a[href], [tabindex], summary, [contenteditable=true]';
  const controls = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches(selector) || el.disabled || el.tabIndex < 0 || el.closest('[hidden], [inert]')) continue;
      const box = el.getBoundingClientRect();
      if (box.width < 1 || box.height < 1 || getComputedStyle(el).visibility !== 'visible') continue;
      controls.push(el);
    }
  };
  walk(document.querySelector('main > h1 + *').shadowRoot);
  window.controls = controls;
  window.visited = new Set();
  return controls.length;
}

// In the page: the control that has the focus now (through shadow roots), recorded as
// visited, with its accessible name and whether a focus ring is drawn; null on the page.
function focused() {
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return null;
  window.visited.add(el);
  const root = el.getRootNode();
  const byIds = (ids) =>
    ids
      .split(/\s+/)
      .map((id) => root.getElementById?.(id)?.textContent ?? '')
      .join(' ');
  const name = (
    el.getAttribute('aria-label') ||
    (el.getAttribute('aria-labelledby') && byIds(el.getAttribute('aria-labelledby'))) ||
    [...(el.labels ?? [])].map((l) => l.textContent).join(' ') ||
    (el.matches('input, select, textarea') ? '' : el.textContent) ||
    el.title ||
    ''
  ).trim();
  const style = getComputedStyle(el);
  const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  const where = `${root.host?.localName ?? 'page'} ${el.localName}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  return { where, name, ring, index: window.controls.indexOf(el) };
}

// In the page: the controls Tab never reached (and still on the page: a redrawn view's old ones are not).
function unreached() {
  return window.controls
    .filter((el) => el.isConnected && !window.visited.has(el))
    .map(
      (el) =>
        `${el.getRootNode().host?.localName} ${el.localName} "${(el.getAttribute('aria-label') ?? el.textContent).trim().slice(0, 30)}"`,
    );
}

for (const name of Object.keys(ELEMENT_PAGES)) {
  test(`${name}: Tab reaches every control, each with a focus ring and a name`, async () => {
    const { page } = await openElementPage(browser, url, name, 1280);
    const count = await page.evaluate(listControls);
    assert.ok(count > 0, 'the element has controls');
    const problems = [];
    let landed = 0;
    // Tab until the focus leaves the element's controls after having entered them.
    for (let presses = 0; presses < 2 * count + 20; presses++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(focused);
      if (!at) {
        if (landed) break;
        continue;
      }
      landed++;
      if (!at.name) problems.push(`${at.where}: no accessible name`);
      if (!at.ring) problems.push(`${at.where} "${at.name}": no focus ring`);
    }
    const missed = await page.evaluate(unreached);
    await page.close();
    assert.deepEqual(problems, []);
    assert.deepEqual(missed, [], 'controls Tab never reached');
  });
}
