// Nothing at run time: 'attention-wasm/elements/vue' is the elements' Vue typings
// (vue.d.ts). This module lets a plain `import 'attention-wasm/elements/vue'` (which
// TypeScript accepts as well as `import type {} from ...`) resolve in bundlers too.
export {};
