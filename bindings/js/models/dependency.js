// A runtime dependency imported on first use: by its bare name (Node, bundlers, pages with an
// import map), or, where a browser cannot resolve a bare name (a page or a module Worker
// without an import map), by its path beside this package: node_modules/<file> of an installed
// package (or a CDN's <file> beside /attention-wasm@<version>/: jsDelivr's /npm/, unpkg's /; or
// beside a folder of the package's own name, /attention-wasm/, served at an origin's root),
// or the repository's node_modules in a checkout (served at its origin's root).

/**
 * @param {() => Promise<object>} byName `() => import('<name>')`, written at the caller so that
 *   bundlers see the literal name and bundle the dependency
 * @param {string} file the module's path inside node_modules, e.g. '@huggingface/jinja/dist/index.js'
 * @returns {Promise<object>} the module; rejects with byName's error when no place has it
 */
export async function importDependency(byName, file) {
  try {
    return await byName();
  } catch (error) {
    const beside = [`../../../../${file}`, `../../../node_modules/${file}`];
    // (a folder named as the package, versioned or not: an installed copy first)
    const installed = /\/attention-wasm(@[^/]*)?\/bindings\/js\/models\/[^/]*$/.test(import.meta.url);
    for (const path of installed ? beside : beside.slice().reverse()) {
      try {
        return await import(/* @vite-ignore */ /* webpackIgnore: true */ new URL(path, import.meta.url).href);
      } catch {
        /* the next place */
      }
    }
    throw error;
  }
}
