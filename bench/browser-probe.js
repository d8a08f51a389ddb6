// The linear probe's rows of npm run bench:browser (issue 35, item 3; called by
// bench/browser.js): TextClassifier.train(corpus, { encoder }) in a Chromium page
// (bench/probe.html) on the first 2,000 review sentences of the training split (as
// bench/probe.js does in Node), with a BERT-base-shaped encoder (bench/model-cases.js
// makeBert: 12 layers × 768, random weights) loaded from the local server; 2 threads, then 1.
// makeBert writes no tokenizer: the encoder reads the shipped review classifier's WordPiece
// vocabulary (web/elements/models/review-sentiment/tokenizer.json, 6,719 pieces, inside BERT's
// 30,522 rows) with BERT's [CLS] … [SEP] template added. That vocabulary was learned on these
// reviews, so a sentence is a few tokens shorter than bert-base-uncased would make it (most
// words are one piece): the time per sentence is a little lower than a real BERT's. Random
// weights: the accuracy printed says nothing about a real encoder.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { makeBert } from './model-cases.js';
import { runPage } from './browser-models.js';

const root = new URL('..', import.meta.url);
const FOLDER = new URL('build/bench/models/bert-probe/', root);
const VOCABULARY = new URL('web/elements/models/review-sentiment/tokenizer.json', root);

/**
 * What a full run and a quick one (BENCH_QUICK=1: a smoke run, not a measurement) train on;
 * heldOut: how many held-out sentences the accuracy reads (null: all 600).
 */
export const PROBE_SIZES = {
  full: { sentences: 2000, epochs: 30, heldOut: null },
  quick: { sentences: 64, epochs: 2, heldOut: 64 },
};

/** The tokenizer's caveat, as the results record it and the tables repeat it. */
export const PROBE_TOKENIZER =
  "the review classifier's WordPiece vocabulary (6,719 pieces, learned on these reviews) with BERT's [CLS] … [SEP]: sentences come out a little shorter than bert-base-uncased's";

/** The shipped WordPiece tokenizer.json with BERT's single-text template ([CLS] $A [SEP]). */
export function probeTokenizer() {
  const json = JSON.parse(readFileSync(VOCABULARY, 'utf8'));
  const vocab = json.model.vocab;
  const special = (token) => ({ id: token, ids: [vocab[token]], tokens: [token] });
  json.post_processor = {
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: '[CLS]', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '[SEP]', type_id: 0 } },
    ],
    pair: [
      { SpecialToken: { id: '[CLS]', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '[SEP]', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 1 } },
      { SpecialToken: { id: '[SEP]', type_id: 1 } },
    ],
    special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
  };
  return json;
}

// build/bench/models/bert-probe/: makeBert's config and weights (its ONNX graph is not needed
// here) and the tokenizer above; written once (tokenizer.json last: a folder cut short is redone).
function writeProbeModel(progress) {
  if (existsSync(new URL('tokenizer.json', FOLDER))) return;
  progress('probe: writing the BERT-base-shaped checkpoint with a WordPiece tokenizer');
  mkdirSync(FOLDER, { recursive: true });
  const files = makeBert();
  const bertVocab = files.config.vocab_size;
  const tokenizer = probeTokenizer();
  const largest = Math.max(...Object.values(tokenizer.model.vocab));
  if (largest >= bertVocab) throw new Error(`probe: the vocabulary's id ${largest} has no row in BERT's ${bertVocab}`);
  writeFileSync(new URL('config.json', FOLDER), JSON.stringify(files.config));
  writeFileSync(new URL('model.safetensors', FOLDER), files.safetensors);
  writeFileSync(new URL('tokenizer.json', FOLDER), JSON.stringify(tokenizer));
}

/**
 * Runs one page per thread count (2, then 1); resolves to { sentences, epochs, quick,
 * tokenizer, shape, rows: [{ threads, build, embedMs (per sentence), tokensPerSentence,
 * trainSeconds, accuracy (null: not evaluated), heldOut }] }.
 */
export async function browserProbeSessions({ browser, url, progress, quick = false }) {
  writeProbeModel(progress);
  const options = quick ? PROBE_SIZES.quick : PROBE_SIZES.full;
  const rows = [];
  // The loader asks for the optional files (tokenizer_config.json, …) the folder lacks: 404s.
  // The 1-thread page skips the held-out accuracy (meaningless here, and 600 more forwards).
  for (const threads of [2, 1])
    rows.push(
      await runPage({
        browser,
        url,
        path: 'bench/probe.html',
        run: 'runProbe',
        threads,
        progress,
        ignore: /status of 404/,
        options: threads === 1 ? { ...options, heldOut: 0 } : options,
      }),
    );
  const { sentences, epochs, shape } = rows[0];
  return { sentences, epochs, quick, tokenizer: PROBE_TOKENIZER, shape, rows: rows.map(({ shape: _, ...row }) => row) };
}

/** The printed table (docs/benchmarks.md's is scripts/make-benchmark-docs.mjs probeTable). */
export function browserProbeTable({ sentences, epochs, shape, rows }) {
  const lines = [
    `| linear probe on ${shape} | threads | tokens per sentence | embedding, per sentence | training the head (${sentences.toLocaleString('en-US')} sentences, ${epochs} epochs) | held-out accuracy (random weights: meaningless) |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.build} build | ${r.threads} | ${r.tokensPerSentence.toFixed(1)} | ${r.embedMs.toFixed(1)} ms | ${r.trainSeconds.toFixed(2)} s | ${r.accuracy === null ? '–' : `${(100 * r.accuracy).toFixed(1)}% of ${r.heldOut}`} |`,
    );
  return lines.join('\n');
}
