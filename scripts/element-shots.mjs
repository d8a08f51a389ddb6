// Screenshots of every element on a page of its own, as docs/elements.md shows it: 960 px
// wide (docs/elements.md's images), or with --all at 1280 and 390 px, light and dark, and
// as printed (print media, 1280 px):
//   node scripts/element-shots.mjs [--all] [--root DIR] [--out DIR]
// (--root: the checkout whose web/, bindings/ and dist/ are served; default this one;
//  --out: where the PNGs go, default docs/images/elements, or build/element-shots with --all (the
//  review set: 70 images, not kept in the repository); --only a,b: those pages only).
// With --all, a 390 px page taller than TILE_HEIGHT is also written as tiles a viewer shows at
// full size (name-390-part1.png …, name-390-dark-part1.png …; the whole page stays as well).
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from './server.js';
import { launchChromium } from '../tests/helpers/chromium.js';

/** Each element as a tutorial author writes it (the tag alone, on a page of its own). */
export const ELEMENT_PAGES = {
  matrix: `<attention-matrix label="weights" heat="sequential" precision="2" value="[[0.49, 0.51], [0.52, 0.48]]" row-labels="I,am" col-labels="I,am"
  caption="Worked example 2 of the “Transformer Insight” course slides (AI VIETNAM, 2023): self-attention over two tokens, named “I” and “am” here as in the heatmap (the slides number them 0 and 1), its weights as the slides print them. Row “I” is the query “I”'s weights over the keys “I” and “am”. Not causal: “I” also attends to the later “am”, as in an encoder; a decoder's causal mask would make that row [1, 0]."></attention-matrix>`,
  steps: `<attention-steps example="2" show-slides></attention-steps>`,
  flash: `<attention-flash block="2"></attention-flash>`,
  'heatmap-grid': `<attention-heatmap example="2" tokens="I,am"></attention-heatmap>`,
  'heatmap-lines': `<attention-heatmap example="2" tokens="I,am" view="lines"></attention-heatmap>`,
  'positional-sinusoidal': `<positional-encoding></positional-encoding>`,
  'positional-rope': `<positional-encoding kind="rope"></positional-encoding>`,
  pruning: `<token-pruning tokens="The,cat,sat,on,the,mat" drop="4"></token-pruning>`,
  'model-head': `<attention-model eager src="/web/elements/models/tiny-gpt2/" text="The cat sat on the mat"></attention-model>`,
  'model-model': `<attention-model eager src="/web/elements/models/tiny-gpt2/" text="The cat sat on the mat" view="model"></attention-model>`,
  'model-neuron': `<attention-model eager src="/web/elements/models/tiny-gpt2/" text="The cat sat on the mat" view="neuron"></attention-model>`,
  sentiment: `<attention-sentiment eager text="The food was great but the service was slow."></attention-sentiment>`,
  training: `<attention-training task="reverse" steps="300" autostart></attention-training>`,
  explainer: `<attention-explainer eager text="The cat sat on the mat"></attention-explainer>`,
};

/** The page of one element: the elements module and the tag, nothing else. */
export function elementPage(tag, scheme = 'light') {
  const title = /^<([a-z-]+)/.exec(tag)?.[1] ?? 'element';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="${scheme}">
<title>element</title><link rel="icon" href="data:,">
<style>body { margin: 16px; font: 16px system-ui, sans-serif; ${scheme === 'dark' ? 'background: #111; color: #eee;' : ''} }</style>
<script type="importmap">{ "imports": { "@huggingface/tokenizers": "/node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs", "@huggingface/jinja": "/node_modules/@huggingface/jinja/dist/index.js" } }</script>
<script type="module" src="/web/elements/index.js"></script></head><body><main><h1 style="font-size: 1rem">${title}</h1>${tag}</main></body></html>`;
}

/** The most px a tile of a tall screenshot holds, and the px two tiles share (a line cut at one tile's edge is whole in the other). */
export const TILE_HEIGHT = 1600;
export const TILE_OVERLAP = 48;

/**
 * The tiles of a screenshot `height` px tall: [[top, height]] of at most `most` px each, the
 * first at 0, the last ending at `height`, each starting `overlap` px before the previous one
 * ends; [] when the whole fits one.
 */
export function tileRanges(height, most = TILE_HEIGHT, overlap = TILE_OVERLAP) {
  if (height <= most) return [];
  const n = Math.ceil((height - overlap) / (most - overlap));
  const step = Math.ceil((height - overlap) / n);
  return Array.from({ length: n }, (_, i) => {
    const top = i * step;
    return [top, Math.min(step + overlap, height - top)];
  });
}

/** Waits until the element has drawn something that is not a progress bar (and all of it). */
export async function settled(page) {
  await page.waitForFunction(
    () => {
      const el = document.querySelector('main > h1 + *');
      const root = el?.shadowRoot;
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
  // A training run: until it stops (its steps, or the target accuracy), maps drawn.
  await page.waitForFunction(
    () => {
      const el = document.querySelector('main > h1 + *');
      return el.localName !== 'attention-training' || (el.history.length > 0 && el.state !== 'running');
    },
    null,
    { timeout: 60_000 },
  );
  await page.waitForTimeout(800);
}

async function main() {
  const { values } = parseArgs({
    options: { root: { type: 'string' }, out: { type: 'string' }, only: { type: 'string' }, all: { type: 'boolean' } },
  });
  const here = fileURLToPath(new URL('../', import.meta.url));
  const root = values.root ? `${values.root.replace(/\/$/, '')}/` : here;
  const out =
    values.out ??
    fileURLToPath(new URL(values.all ? '../build/element-shots/' : '../docs/images/elements/', import.meta.url));
  await mkdir(out, { recursive: true });
  // A folder of its own: the pages, and links to the checkout's web/, bindings/ and dist/.
  const site = await mkdtemp(join(tmpdir(), 'element-shots-'));
  for (const folder of ['web', 'bindings', 'dist', 'node_modules'])
    await symlink(join(folder === 'node_modules' ? here : root, folder), join(site, folder));
  for (const [name, tag] of Object.entries(ELEMENT_PAGES))
    for (const scheme of ['light', 'dark'])
      await writeFile(join(site, `${name}-${scheme}.html`), elementPage(tag, scheme));
  const { server, url } = await startServer({ port: 0, root: site, served: null, docs: false });
  const browser = await launchChromium();
  try {
    const only = values.only?.split(',');
    for (const name of Object.keys(ELEMENT_PAGES).filter((n) => !only || only.includes(n))) {
      const variants = values.all
        ? [
            [1280, 'light'],
            [390, 'light'],
            [1280, 'dark'],
            [390, 'dark'],
            [1280, 'light', 'print'],
          ]
        : [[960, 'light']];
      for (const [width, scheme, media = 'screen'] of variants) {
        const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
        await page.emulateMedia({ media });
        await page.goto(`${url}${name}-${scheme}.html`);
        try {
          await settled(page);
        } catch (error) {
          console.error(`${name}: ${error.message.split('\n')[0]}`);
        }
        const file = values.all
          ? `${out}/${name}-${width}${scheme === 'dark' ? '-dark' : ''}${media === 'print' ? '-print' : ''}.png`
          : `${out}/${name}.png`;
        await writeFile(file, await page.locator('main').screenshot());
        if (values.all && width === 390) await writeTiles(page, file.replace(/\.png$/, ''));
        await page.close();
      }
      console.log(name);
    }
  } finally {
    await browser.close();
    server.close();
    await rm(site, { recursive: true });
  }
}

// A tall page's <main> as tiles beside its whole screenshot: `${stem}-part1.png` ….
async function writeTiles(page, stem) {
  const box = await page.locator('main').boundingBox();
  const tiles = tileRanges(Math.ceil(box.height));
  for (const [n, [top, height]] of tiles.entries()) {
    const clip = { x: box.x, y: box.y + top, width: box.width, height };
    await writeFile(`${stem}-part${n + 1}.png`, await page.screenshot({ fullPage: true, clip }));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
