// sanitize-html (Node, as a server or a static-site generator runs it) with the package's
// sanitizeHtmlOptions: the elements and their JSON attributes survive exactly; handlers,
// scripts and unknown attributes do not; its defaults drop the elements.
import test from 'node:test';
import assert from 'node:assert/strict';
import sanitizeHtml from 'sanitize-html';
import {
  sanitizeHtmlOptions,
  ELEMENT_TAGS,
  ELEMENT_ATTRIBUTES,
  domPurifyConfig,
} from 'attention-wasm/elements/sanitize';

const HTML = `<p>Weights:</p><attention-matrix label="weights" value="[[0.49,0.51],[0.52,0.48]]" editable="" onclick="steal()" style="x"></attention-matrix>
<attention-heatmap tokens="I,am" weights='[[0.5,0.5],[0.2,0.8]]' view="lines" for="m"><script>steal()</script></attention-heatmap>`;

test('sanitize-html: defaults drop the elements; sanitizeHtmlOptions keeps them and their attributes, not handlers or scripts', () => {
  assert.doesNotMatch(sanitizeHtml(HTML), /attention-/);
  const clean = sanitizeHtml(HTML, sanitizeHtmlOptions(sanitizeHtml.defaults));
  assert.equal(
    clean,
    '<p>Weights:</p><attention-matrix label="weights" value="[[0.49,0.51],[0.52,0.48]]" editable></attention-matrix>\n' +
      '<attention-heatmap tokens="I,am" weights="[[0.5,0.5],[0.2,0.8]]" view="lines" for="m"></attention-heatmap>',
  );
});

test('the allow-lists name every element and every attribute the elements observe', async () => {
  assert.equal(ELEMENT_TAGS.length, 10);
  assert.ok(ELEMENT_TAGS.includes('attention-explainer'));
  for (const name of [
    'value',
    'weights',
    'x',
    'mask',
    'stages',
    'layout',
    'json',
    'theme',
    'for',
    'task',
    'text',
    'top-k',
  ])
    assert.ok(ELEMENT_ATTRIBUTES.includes(name), name);
  assert.ok(domPurifyConfig.CUSTOM_ELEMENT_HANDLING.tagNameCheck.test('attention-matrix'));
  assert.ok(!domPurifyConfig.CUSTOM_ELEMENT_HANDLING.tagNameCheck.test('attention-matrix-x'));
  assert.ok(!domPurifyConfig.CUSTOM_ELEMENT_HANDLING.attributeNameCheck.test('onclick'));
  // Every observedAttributes entry of every element is allowed (read from the sources).
  const { readFileSync, readdirSync } = await import('node:fs');
  const dir = new URL('../web/elements/', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const match = readFileSync(new URL(file, dir), 'utf8').match(/static observedAttributes = \[([^\]]*)\]/);
    if (!match) continue;
    for (const name of match[1].match(/'([^']+)'/g).map((q) => q.slice(1, -1)))
      assert.ok(ELEMENT_ATTRIBUTES.includes(name), `${file}: ${name}`);
  }
});
