// "Copy code" with hostile input: labels, tokens and values crafted to break out of the
// emitted literals (the exploit reported against attention-heatmap's jsLiteral) or out of an
// inline <script>. Every element's toCode() must contain no raw `</script` or `<!--`, and must
// run as an inline module script in headless Chromium (the package mapped by an import map)
// to its last line without running anything the input smuggled in.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './helpers/chromium.js';
import { startServer } from '../scripts/server.js';

test('toCode() of every element is inert under hostile labels, tokens and values', { timeout: 90_000 }, async () => {
  const { server, url } = await startServer({ port: 0, served: ['web', 'bindings', 'dist', 'tests'], docs: false });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}tests/helpers/blank.html`);
    const results = await page.evaluate(async () => {
      const map = document.createElement('script');
      map.type = 'importmap';
      map.textContent = JSON.stringify({
        imports: { 'attention-wasm': '/bindings/js/browser.js', 'attention-wasm/elements': '/web/elements/index.js' },
      });
      document.head.append(map);
      await import('attention-wasm/elements');
      const SMUGGLE = '</script><script>globalThis.__pwned = 1</script><!--';
      const make = (html) => {
        const t = document.createElement('template');
        t.innerHTML = html;
        const el = t.content.firstElementChild;
        document.body.append(el);
        return el;
      };
      const els = {
        // The reported exploit, exactly.
        exploit: make(
          `<attention-heatmap tokens="a,b" weights='[[0.5,0.5],["x\\"@@NaN@@", ",globalThis.__pwned=1],[1,2,2]);//"]]'></attention-heatmap>`,
        ),
        heatmapTokens: Object.assign(make('<attention-heatmap></attention-heatmap>'), {
          weights: [
            [0.5, 0.5],
            [-0, Infinity],
          ],
        }),
        matrix: make(`<attention-matrix value='[[1,"-Infinity"],["NaN",-0]]'></attention-matrix>`),
        steps: Object.assign(make('<attention-steps></attention-steps>'), {
          data: {
            x: [
              ['1', '0'],
              [0, '-1e3'],
            ],
            mask: 'causal',
          },
        }),
        flash: Object.assign(make('<attention-flash></attention-flash>'), {
          data: {
            q: [['1', 0]],
            k: [
              [1, 0],
              [0, 1],
            ],
            v: [
              ['2', 3],
              [4, 5],
            ],
          },
        }),
        positions: Object.assign(make('<positional-encoding kind="laplacian"></positional-encoding>'), {
          graph: {
            numNodes: '4',
            edges: [
              ['0', '1'],
              [1, 2],
              [2, 3],
            ],
          },
        }),
        pruning: make(`<token-pruning tokens='a,b,c'></token-pruning>`),
      };
      els.heatmapTokens.setAttribute('tokens', `a${SMUGGLE},b"+globalThis.__pwned+"`);
      els.matrix.label = `m${SMUGGLE}"; globalThis.__pwned = 1; "`;
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the elements compute
      globalThis.__ran = [];
      const out = {};
      for (const [name, el] of Object.entries(els)) {
        const code = el.toCode();
        const script = document.createElement('script');
        script.type = 'module';
        script.textContent = `${code}\nglobalThis.__ran.push(${JSON.stringify(name)});\n`;
        document.body.append(script);
        out[name] = { code, raw: /<\/script|<!--/i.test(code) };
      }
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const exploitWeights = els.exploit.weights;
      return { out, ran: globalThis.__ran.slice().sort(), pwned: globalThis.__pwned ?? null, exploitWeights };
    });
    assert.equal(results.pwned, null, 'no smuggled statement ran');
    for (const [name, { code, raw }] of Object.entries(results.out)) assert.equal(raw, false, `${name}: ${code}`);
    assert.deepEqual(results.ran, Object.keys(results.out).sort(), 'every snippet ran to its last line');
    // Values became numbers on the way in: the smuggled strings are NaN.
    assert.deepEqual(results.exploitWeights, [
      [
        [0.5, 0.5],
        [NaN, NaN],
      ],
    ]);
    assert.match(results.out.matrix.code, /\[\[1,-Infinity\],\[NaN,-0\]\]/, 'non-finite values and -0 written as JS');
    assert.match(results.out.heatmapTokens.code, /\[0\.5,0\.5,-0,Infinity\]/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
