// One element's page (scripts/element-shots.mjs's ELEMENT_PAGES, as docs/elements.md shows
// it) opened in headless Chromium, for the tests that read the elements as a reader would.
import { ELEMENT_PAGES, elementPage } from '../../scripts/element-shots.mjs';

/**
 * A page holding element `name`'s tag at `width` px, in a light or dark page, served under
 * `url`; resolves once the element has drawn. `errors` collects the page's uncaught errors.
 * @returns {Promise<{ page: import('playwright-core').Page, errors: string[] }>}
 */
export async function openElementPage(browser, url, name, width, scheme = 'light') {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route(`${url}element/${name}.html`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: elementPage(ELEMENT_PAGES[name], scheme) }),
  );
  await page.goto(`${url}element/${name}.html`);
  await page.waitForFunction(
    () => {
      const root = document.querySelector('main > h1 + *')?.shadowRoot;
      return root && root.children.length > 0 && !root.querySelector('progress');
    },
    null,
    { timeout: 60_000 },
  );
  // The sentiment element draws its stages once its classifier has read the sentence.
  await page.waitForFunction(
    () => {
      const el = document.querySelector('main > h1 + *');
      return el.localName !== 'attention-sentiment' || el.shadowRoot.querySelector('ol.pipeline li');
    },
    null,
    { timeout: 60_000 },
  );
  await page.waitForTimeout(300);
  return { page, errors };
}
