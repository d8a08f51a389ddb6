/**
 * Sanitizer settings that keep the elements in cleaned HTML (DOMPurify, sanitize-html).
 * @module attention-wasm/elements/sanitize
 */

/** The elements' tag names. */
export declare const ELEMENT_TAGS: readonly string[];
/** Every attribute an element reads. */
export declare const ELEMENT_ATTRIBUTES: readonly string[];
/** DOMPurify options: the elements and their attributes allowed as custom elements. */
export declare const domPurifyConfig: {
  /** DOMPurify's custom-element handling. */
  readonly CUSTOM_ELEMENT_HANDLING: {
    /** The elements' tag names, exactly. */
    readonly tagNameCheck: RegExp;
    /** The elements' attributes, exactly. */
    readonly attributeNameCheck: RegExp;
    /** No `is="…"` on built-in elements. */
    readonly allowCustomizedBuiltInElements: false;
  };
};
/** The parts of sanitize-html's options that sanitizeHtmlOptions extends. */
export interface SanitizeHtmlAllowLists {
  /** Tags kept. */
  allowedTags: string[];
  /** Attributes kept, by tag. */
  allowedAttributes: Record<string, string[]>;
}
/** sanitize-html options: its defaults (pass `sanitizeHtml.defaults`) plus the elements and their attributes. */
export declare function sanitizeHtmlOptions<T extends object>(defaults: T): T & SanitizeHtmlAllowLists;
