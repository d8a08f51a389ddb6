// One element's page (scripts/element-shots.mjs's ELEMENT_PAGES, as docs/elements.md shows
// it) opened in headless Chromium, for the tests that read the elements as a reader would.
import { ELEMENT_PAGES, elementPage, settled } from '../../scripts/element-shots.mjs';
import { startServer } from '../../scripts/server.js';
import { launchChromium } from './chromium.js';

/** A server of this checkout (web/, bindings/, dist/, node_modules/) and a browser. */
export async function startElementBrowser() {
  const { server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'node_modules'] });
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    server.close();
  };
  return { url, browser, close };
}

/**
 * A page holding element `name`'s tag at `width` px, in a light or dark page, served under
 * `url`; resolves once the element has drawn (element-shots.mjs's settled). `errors`
 * collects the page's uncaught errors.
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
  await settled(page);
  return { page, errors };
}

/**
 * The per-file setup of the tests that read the elements' pages: a server and a browser
 * started before the file's tests (node:test's `test.before`) and closed after them; returns
 * `open(name, width, scheme)`, openElementPage on them.
 * @param {typeof import('node:test').test} test
 */
export function elementPages(test) {
  let url, browser, close;
  test.before(async () => {
    ({ url, browser, close } = await startElementBrowser());
  });
  test.after(() => close?.());
  return (name, width, scheme) => openElementPage(browser, url, name, width, scheme);
}

/** A number as the views print it: '−0.250' → -0.25. */
export const printedNumber = (text) => Number(text.replace('−', '-'));

/**
 * The text a reader sees in element `tag` (the page's first; its shadow trees included): text
 * nodes whose element is rendered (checkVisibility) and not visually hidden, joined by spaces.
 */
export const visibleText = (page, tag) =>
  page.evaluate((tag) => {
    const parts = [];
    const walk = (root) => {
      for (const node of root.childNodes) {
        if (node.nodeType === Node.TEXT_NODE) {
          const box = node.parentElement?.getBoundingClientRect();
          // (a 1 px box: visually hidden, for screen readers)
          if (node.parentElement?.checkVisibility() && box.width > 1 && node.textContent.trim())
            parts.push(node.textContent.trim());
        } else if (node.nodeType === Node.ELEMENT_NODE) {
          if (node.shadowRoot) walk(node.shadowRoot);
          walk(node);
        }
      }
    };
    walk(document.querySelector(tag).shadowRoot);
    return parts.join(' ');
  }, tag);
