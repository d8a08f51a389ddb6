// Nothing at run time: 'attention-wasm/elements/react' is the elements' JSX typings
// (react.d.ts). This module lets a plain `import 'attention-wasm/elements/react'` (which
// TypeScript accepts as well as `import type {} from ...`) resolve in bundlers too.
export {};
