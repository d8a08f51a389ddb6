// Sanitizer settings for Markdown sites and CMSs that clean HTML before it reaches the page
// (attention-wasm/elements/sanitize; no side effects, no DOM: usable on a server too).
// Default DOMPurify and sanitize-html configurations drop every custom element; these allow
// the package's elements and their attributes, and nothing else.
//
//   import DOMPurify from 'dompurify';
//   import { domPurifyConfig } from 'attention-wasm/elements/sanitize';
//   const clean = DOMPurify.sanitize(html, domPurifyConfig);
//
//   import sanitizeHtml from 'sanitize-html';
//   import { sanitizeHtmlOptions } from 'attention-wasm/elements/sanitize';
//   const clean = sanitizeHtml(html, sanitizeHtmlOptions(sanitizeHtml.defaults));
//
// Inline <script type="application/json"> children are scripts, which both remove: use the
// attributes (JSON in `x`, `value`, `weights`, …), or a script outside the sanitized
// content named by json="id".

/** The elements' tag names. */
export const ELEMENT_TAGS = Object.freeze([
  'attention-matrix',
  'attention-steps',
  'attention-flash',
  'attention-heatmap',
  'positional-encoding',
  'token-pruning',
  'attention-sentiment',
  'attention-training',
  'attention-model',
]);

/** Every attribute an element reads (all plain data; none is a URL but `model`, `encoder` and `src`, which are fetched as data, never run). */
export const ELEMENT_ATTRIBUTES = Object.freeze([
  'label',
  'value',
  'precision',
  'heat',
  'editable',
  'toggle',
  'row-labels',
  'col-labels', // attention-matrix
  'example',
  'x',
  'c',
  'wq',
  'wk',
  'wv',
  'wo',
  'mask',
  'show-slides',
  'stages',
  'layout',
  'json', // attention-steps
  'q',
  'k',
  'v',
  'block', // attention-flash
  'weights',
  'tokens',
  'query-tokens',
  'key-tokens',
  'view',
  'head',
  'toolbar', // attention-heatmap
  'kind',
  'drop',
  'dim', // positional-encoding, token-pruning
  'text',
  'model',
  'layer',
  'eager',
  'encoder', // attention-sentiment
  'task',
  'preset',
  'seed',
  'lr',
  'steps',
  'every',
  'autostart', // attention-training
  'src',
  'query', // attention-model
  'theme',
  'for',
  'link', // every element
]);

const exact = (names) => new RegExp(`^(${names.map((n) => n.replace(/[-]/g, '\\-')).join('|')})$`);

/**
 * DOMPurify options: the elements and their attributes allowed as custom elements. DOMPurify
 * 3.4 removes `for` from every element but <label> and <output> whatever the options (it
 * guards against DOM clobbering), so sanitized pages link elements with `link="id …"`, which
 * the elements read the same way.
 */
export const domPurifyConfig = Object.freeze({
  CUSTOM_ELEMENT_HANDLING: Object.freeze({
    tagNameCheck: exact(ELEMENT_TAGS),
    attributeNameCheck: exact(ELEMENT_ATTRIBUTES),
    allowCustomizedBuiltInElements: false,
  }),
});

/**
 * sanitize-html options: its defaults (pass `sanitizeHtml.defaults`) plus the elements and
 * their attributes.
 * @param {{ allowedTags: string[], allowedAttributes: Record<string, string[]> }} defaults
 */
export function sanitizeHtmlOptions(defaults) {
  return {
    ...defaults,
    allowedTags: [...defaults.allowedTags, ...ELEMENT_TAGS],
    allowedAttributes: {
      ...defaults.allowedAttributes,
      ...Object.fromEntries(ELEMENT_TAGS.map((tag) => [tag, [...ELEMENT_ATTRIBUTES]])),
    },
  };
}
