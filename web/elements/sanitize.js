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

import { ATTRIBUTES, allAttributeNames } from './attributes.js';

/** The elements' tag names. */
export const ELEMENT_TAGS = Object.freeze(Object.keys(ATTRIBUTES));

/** Every attribute an element reads (all plain data; none is a URL but `model` and `src`, which are fetched as data, never run): the elements' table (attributes.js). */
export const ELEMENT_ATTRIBUTES = Object.freeze(allAttributeNames());

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
