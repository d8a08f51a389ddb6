// Keys stay in a model element across its redraws (found in a reveal.js deck, where a key that
// reaches the page changes the slide), in headless Chromium: Enter in the text field and an
// arrow on the layer menu redraw the view, and the new field or menu has the focus, so the
// next key stays in the element too; and sliders follow their attributes when page code sets
// them (a Vue binding): the explainer's temperature slider and readout show the value its
// probabilities were computed with.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openElementPage, startElementBrowser } from './helpers/element-page.js';

let url, browser, close;

test.before(async () => {
  ({ url, browser, close } = await startElementBrowser());
});

test.after(() => close?.());

// In the page: the focused control through the shadow roots, as `tag[aria-label]`, or 'page'.
function focusedName() {
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return !el || el === document.body ? 'page' : `${el.localName}[${el.getAttribute('aria-label')}]`;
}

// In the page: counts the keydowns that reach the document (a deck listens there).
function countPageKeys() {
  window.pageKeys = 0;
  document.addEventListener('keydown', (e) => {
    if (e.composedPath()[0] === document.body || e.composedPath()[0] === document.documentElement) window.pageKeys++;
  });
}

for (const [name, tag] of [
  ['explainer', 'attention-explainer'],
  ['model-head', 'attention-model'],
]) {
  test(`${name}: Enter in the text field redraws the view and the field keeps the focus and its caret`, async () => {
    const { page, errors } = await openElementPage(browser, url, name, 1280);
    await page.evaluate(countPageKeys);
    const field = page.locator(`${tag} input[aria-label="text the model reads"]`);
    await field.focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' x');
    await page.keyboard.press('Enter');
    await page.waitForFunction((t) => document.querySelector(t).toJSON().text.endsWith(' x'), tag);
    // The view is drawn anew after the forward (the old field is gone).
    await page.waitForFunction(
      (t) =>
        document
          .querySelector(t)
          .toJSON()
          .tokens.some((k) => /x/.test(k.label)),
      tag,
    );
    assert.equal(await page.evaluate(focusedName), 'input[text the model reads]');
    const caret = await page.evaluate((t) => {
      const input = document.querySelector(t).shadowRoot.querySelector('input[aria-label="text the model reads"]');
      return [input.selectionStart, input.value.length];
    }, tag);
    assert.equal(caret[0], caret[1], 'the caret stays at the end, where the typing left it');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => window.pageKeys), 0, 'no key reached the page');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('model-head: an arrow on the layer menu redraws the view and the menu keeps the focus', async () => {
  const { page, errors } = await openElementPage(browser, url, 'model-head', 1280);
  await page.evaluate(countPageKeys);
  const menu = page.locator('attention-model select[aria-label="layer"]');
  await menu.focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.querySelector('attention-model').getAttribute('layer') === '1');
  assert.equal(await page.evaluate(focusedName), 'select[layer]');
  await page.keyboard.press('ArrowUp'); // the shipped model has 2 layers (0 and 1)
  await page.waitForFunction(() => document.querySelector('attention-model').getAttribute('layer') === '0');
  assert.equal(await page.evaluate(focusedName), 'select[layer]');
  assert.equal(await page.evaluate(() => window.pageKeys), 0, 'no key reached the page');
  assert.deepEqual(errors, []);
  await page.close();
});

test('explainer: temperature, top-k and top-p set by page code move their sliders and readouts', async () => {
  const { page, errors } = await openElementPage(browser, url, 'explainer', 1280);
  await page.waitForFunction(() => document.querySelector('attention-explainer').toJSON().trace);
  const shown = await page.evaluate(() => {
    const el = document.querySelector('attention-explainer');
    el.setAttribute('temperature', '0.5');
    el.setAttribute('top-k', '7');
    el.setAttribute('top-p', '0.8');
    const sliders = [...el.shadowRoot.querySelectorAll('.slider input[type=range]')];
    return sliders.map((s) => [s.dataset.attribute, s.value, s.nextElementSibling.textContent]);
  });
  assert.deepEqual(shown, [
    ['temperature', '0.5', '0.50'],
    ['top-k', '7', '7'],
    ['top-p', '0.8', '0.80'],
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('explainer: two quick arrows on the token radios both land (each redraw keeps the focus on the picked radio), at any gap between them', async () => {
  const { page, errors } = await openElementPage(browser, url, 'explainer', 1280);
  await page.evaluate(countPageKeys);
  const state = () =>
    page.evaluate(() => {
      const el = document.querySelector('attention-explainer');
      const a = el.shadowRoot.activeElement;
      return {
        position: el.result?.position,
        focused: a ? [a.getAttribute('role'), a.getAttribute('aria-checked'), a.textContent] : null,
        checked: el.shadowRoot.querySelector('.tokens [aria-checked=true]')?.textContent,
        keys: window.pageKeys,
      };
    });
  // Gaps from none to a few frames: a redraw (one forward a frame) falls before, between or
  // after the two keys.
  for (const gap of [0, 5, 10, 15, 20, 25, 30, 40, 50, 70]) {
    await page.evaluate(() => document.querySelector('attention-explainer').setAttribute('token', '0'));
    await page.waitForFunction(() => document.querySelector('attention-explainer').result?.position === 0);
    await page.waitForTimeout(100);
    await page.locator('attention-explainer [role=radio][aria-checked=true]').focus();
    await page.keyboard.press('ArrowRight');
    if (gap) await page.waitForTimeout(gap);
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(250);
    const s = await state();
    assert.equal(s.position, 2, `gap ${gap} ms: the token two to the right is traced`);
    assert.deepEqual(s.focused, ['radio', 'true', s.checked], `gap ${gap} ms: the picked radio has the focus`);
    assert.equal(s.keys, 0, `gap ${gap} ms: no key reached the page`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
