/**
 * The custom elements for tutorial pages (`import 'attention-wasm/elements'`), their attributes, and their export methods.
 * @packageDocumentation
 * @module attention-wasm/elements
 */
// Types of attention-wasm/elements: the custom elements and their loader.
import type {
  AttentionWasm,
  Tensor,
  PretrainedModel,
  ModelSource,
  ModelToken,
  ModelTrace,
  LoadProgress,
} from '../../bindings/js/index.js';

/** Every stage of an `<attention-steps>` computation, as tensors. */
export interface AttentionStages {
  /** Queries Q = X·W_Q (or C·W_Q). */
  Q: Tensor;
  /** Keys K = X·W_K. */
  K: Tensor;
  /** Values V = X·W_V. */
  V: Tensor;
  /** The additive mask M (0 or −∞). */
  M: Tensor;
  /** Raw scores Q·Kᵀ. */
  scores: Tensor;
  /** Scaled scores Q·Kᵀ/√d. */
  scaled: Tensor;
  /** Masked scores Q·Kᵀ/√d + M. */
  masked: Tensor;
  /** Softmax weights. */
  weights: Tensor;
  /** Attention output A = weights·V. */
  A: Tensor;
  /** Y = A·W_O, when W_O is given. */
  Y: Tensor | null;
}

/** Inputs of `<attention-steps>` (nested rows of numbers). */
export interface AttentionStepsData {
  /** Inputs X [L, dModel] (keys and values; queries too unless C is given). */
  x: number[][];
  /** Queries' inputs C (cross-attention). */
  c?: number[][];
  /** W_Q [dModel, dk] (identity when left out). */
  wq?: number[][];
  /** W_K [dModel, dk] (identity when left out). */
  wk?: number[][];
  /** W_V [dModel, dv] (identity when left out). */
  wv?: number[][];
  /** W_O [dv, dOut], optional. */
  wo?: number[][];
  /** An additive mask [Lq, Lk] of 0 / -Infinity, or a preset: 'causal', 'causal-bottom-right'. */
  mask?: number[][] | 'none' | 'causal' | 'causal-top-left' | 'causal-bottom-right';
}

/** The export methods of the elements with an export toolbar. */
export interface Exportable {
  /** A PNG of the element as drawn (what the reader sees, at its on-screen size × devicePixelRatio). */
  toPNG(): Promise<Blob>;
  /** Every input and tensor the element shows, as plain JSON (non-finite numbers as strings such as "-Infinity"). */
  toJSON(): Record<string, unknown>;
  /** A short JavaScript module that reproduces the view with the public API, safe to paste into an inline script. */
  toCode(): string;
}

/** `<attention-matrix>`: one labelled, optionally editable matrix (an ARIA grid). */
export declare class AttentionMatrix extends HTMLElement implements Exportable {
  /** The matrix shown (a copy); set a tensor, nested rows, or the attribute's JSON text. */
  get value(): Tensor | null;
  /** Sets the matrix: a tensor, nested rows, or JSON text (as the `value` attribute). */
  set value(value: Tensor | number[][] | number[] | string | null);
  /** The caption. */
  label: string;
  /** Decimals shown (0-8, default 4). */
  precision: number;
  /** Cell colours: 'sequential' for weights, 'diverging' for signed values, null for none. */
  heat: 'sequential' | 'diverging' | null;
  /** Cells can be edited from the keyboard (set a boolean, or '' as the attribute). */
  editable: boolean;
  /** Cells switch between 0 and −∞ (a mask). */
  toggle: boolean;
  /** What the rows are (the axis title "query ↓"). */
  rowTitle: string;
  /** What the columns are (the axis title "key →"). */
  colTitle: string;
  /** One sentence under the matrix. */
  caption: string;
  /**
   * A colour scale shared with other matrices (note: what shares it, shown in the legend), or
   * null for the matrix's own (weights 0 to 1; signed values ± its largest |value|).
   */
  scale: {
    /** The colour scale's low end. */
    min: number;
    /** The colour scale's high end. */
    max: number;
    /** What shares the scale, as the legend says it ("one scale for every head"). */
    note?: string;
  } | null;
  /** What a NaN cell reads ('' = "NaN"), e.g. "—" for a value not defined yet. */
  blank: string;
  /**
   * Cells masked out, drawn hatched grey outside the colour map, with `label` in a key
   * ("dropped key: weight 0"). null: none.
   */
  masked: {
    /** 0/1 per cell, row-major, or a function of (row, col) that is true for a masked cell. */
    cells: ArrayLike<number> | ((row: number, col: number) => boolean);
    /** What masked the cells, in the key under the legend. */
    label: string;
  } | null;
  /** Row labels; set an array, a comma list or JSON text. */
  rowLabels: string[] | null;
  /** Column labels; set an array, a comma list or JSON text. */
  colLabels: string[] | null;
  /** Outlines cell [row, col] as linked from elsewhere (null clears). */
  highlight(cell: [number, number] | null): void;
  /** The table cell at (row, col). */
  cellAt(row: number, col: number): HTMLTableCellElement | null;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The label and the matrix, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that shows this matrix. */
  toCode(): string;
}

/** `<attention-steps>`: one attention head, stage by stage, live. */
export declare class AttentionSteps extends HTMLElement implements Exportable {
  /** The inputs (copies); setting them recomputes every stage. */
  data: AttentionStepsData | null;
  /** Every stage of the last computation (null before the first). */
  readonly stages: AttentionStages | null;
  /** X's token names (the `tokens` attribute's list), or null; set an array (each string one name), the attribute's text, or null. */
  get tokens(): string[] | null;
  /** Sets them: an array of strings (each one name, a comma and all), the attribute's text (a comma list or JSON array), or null to remove. */
  set tokens(value: string | readonly string[] | null);
  /** C's token names (the `query-tokens` attribute, cross-attention), as `tokens`. */
  get queryTokens(): string[] | null;
  /** Sets them: an array of strings (each one name, a comma and all), the attribute's text (a comma list or JSON array), or null to remove. */
  set queryTokens(value: string | readonly string[] | null);
  /** Highlights a query/key pair in every [Lq, Lk] stage (null clears). */
  highlightPair(query: number | null, key?: number): void;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** Every input and stage, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that computes every stage with the public API. */
  toCode(): string;
}

/** Inputs of `<attention-flash>`. */
export interface AttentionFlashData {
  /** Queries [Lq, d]. */
  q: number[][];
  /** Keys [Lk, d]. */
  k: number[][];
  /** Values [Lk, dv]. */
  v: number[][];
}

/** `<attention-flash>`: the fused kernel's online softmax, stepped block by block. */
export declare class AttentionFlash extends HTMLElement implements Exportable {
  /** The inputs (copies). */
  data: AttentionFlashData | null;
  /** Keys per block (default 2). */
  block: number;
  /** Blocks done (0 … blocks). */
  step: number;
  /** How many blocks the keys make. */
  readonly blocks: number;
  /** The library's output for the same q, k, v, once computed. */
  readonly reference: Float32Array | null;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The inputs, every step's per-row state and the result, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that runs the same online softmax and compares it with the library. */
  toCode(): string;
}

/** `<attention-heatmap>`: weights per head and their average, as grids or bertviz-style lines. */
export declare class AttentionHeatmap extends HTMLElement implements Exportable {
  /** The weights shown, [heads][Lq][Lk] (a copy). */
  get weights(): number[][][];
  /** Set a tensor [Lq, Lk] or [heads, Lq, Lk] (or [B, heads, Lq, Lk]), an attention result, nested arrays, or the attribute's JSON text. */
  set weights(value: number[][][] | number[][] | Tensor | { weights: Tensor } | string);
  /** Both axes' token names (the `tokens` attribute's list), or null (q0, q1, … and k0, k1, …); set an array (each string one label, a comma and all), the attribute's text, or null. */
  get tokens(): string[] | null;
  /** Sets them: an array of strings (each one name, a comma and all), the attribute's text (a comma list or JSON array), or null to remove. */
  set tokens(value: string | readonly string[] | null);
  /** The query axis's names (the `query-tokens` attribute), as `tokens`. */
  get queryTokens(): string[] | null;
  /** Sets them: an array of strings (each one name, a comma and all), the attribute's text (a comma list or JSON array), or null to remove. */
  set queryTokens(value: string | readonly string[] | null);
  /** The key axis's names (the `key-tokens` attribute), as `tokens`. */
  get keyTokens(): string[] | null;
  /** Sets them: an array of strings (each one name, a comma and all), the attribute's text (a comma list or JSON array), or null to remove. */
  set keyTokens(value: string | readonly string[] | null);
  /** 'grid' or 'lines'. */
  view: 'grid' | 'lines';
  /** Heads (0-based) toggled off by the head chips of the all-heads lines view, ascending; kept while the head count is the same. */
  hiddenHeads: number[];
  /** Highlights a query/key pair (null clears). */
  highlightPair(query: number | null, key?: number): void;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The tokens, every head's weights and their average, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that shows these weights in an `<attention-heatmap>`. */
  toCode(): string;
}

/** The graph of the Laplacian view of `<positional-encoding>`. */
export interface EncodingGraph {
  /** Nodes 0 … numNodes − 1. */
  numNodes: number;
  /** Undirected edges as node pairs. */
  edges: Array<[number, number]>;
}

/** `<positional-encoding>`: sinusoidal, RoPE, ALiBi or Laplacian encodings, live. */
export declare class PositionalEncoding extends HTMLElement implements Exportable {
  /** Which encoding is shown. */
  kind: 'sinusoidal' | 'rope' | 'alibi' | 'laplacian';
  /** The graph of the Laplacian view (a copy). */
  graph: EncodingGraph;
  /** The tensors shown, by name. */
  readonly tensors: Record<string, Tensor>;
  /** Adds or removes the edge between nodes a and b. */
  toggleEdge(a: number, b: number): void;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The tensors shown, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that computes the encoding shown. */
  toCode(): string;
}

/** What `<token-pruning>` computed last. */
export interface TokenPruningResult {
  /** The token vectors [L, dim]. */
  x: Tensor;
  /** G [L, L]: 1 on the diagonal, else keep_j. */
  G: Tensor;
  /** The renormalised weights [L, L]. */
  weights: Tensor;
}

/** `<token-pruning>`: DynamicViT keep-masks, G and the renormalised weights. */
export declare class TokenPruning extends HTMLElement implements Exportable {
  /** Keep decisions, 0/1 per token. */
  keep: number[];
  /** The tokens; set a comma list (as the attribute) or an array. */
  get tokens(): string[];
  /** Sets the tokens: a comma list or JSON array, or an array (each string one token, a comma and all). */
  set tokens(value: string | readonly string[]);
  /** x, G and the weights of the last update. */
  readonly result: TokenPruningResult | null;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The keep mask and the tensors shown, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that computes the same weights. */
  toCode(): string;
}

/** A prediction of `<attention-sentiment>`. */
export interface SentimentPrediction {
  /** The text classified. */
  text: string;
  /** The predicted label (the shipped classifier: `'negative'` or `'positive'`). */
  label: string;
  /** The probability of `label` (calibrated, when the classifier's config.json has a temperature). */
  probability: number;
  /** How sure that is, in words: `'confident'` (p ≥ 0.9), `'fairly sure'` (≥ 0.7), `'unsure'` (≥ 0.55), `'a coin toss'`. */
  confidence: 'confident' | 'fairly sure' | 'unsure' | 'a coin toss';
  /** Probabilities by label id. */
  probabilities: number[];
  /** `[CLS]`, then the subword tokens with their `[start, end)` spans in the text. */
  tokens: import('attention-wasm').ClassifiedToken[];
  /** `[layer][head][i][j]`: row i's attention over token j (rows sum to 1). */
  attention: number[][][][];
  /** True when the text had more tokens than the classifier reads. */
  truncated: boolean;
}

/**
 * `<attention-sentiment>`: the course's review classifier (trained on real review sentences)
 * on the reader's sentence, stage by stage, with its attention per layer and head.
 */
export declare class AttentionSentiment extends HTMLElement implements Exportable {
  /** The last prediction (null before the first). */
  readonly prediction: SentimentPrediction | null;
  /** The classifier in use, or null before it loads. */
  readonly classifier: import('attention-wasm').TextClassifier | null;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The text, classifier, layer and head shown, tokens, [CLS] rows, logits, temperature, probabilities and label, as JSON. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that loads the same classifier and predicts the same sentence. */
  toCode(): string;
}

/** One progress report of `<attention-training>`. */
export interface TrainingProgress {
  /** Training steps done. */
  step: number;
  /** Mean training loss over the last report's steps, in nats. */
  loss: number;
  /** Token accuracy on the task's fixed held-out set. */
  accuracy: number;
  /** Training speed over the last report's steps. */
  stepsPerSecond: number;
}

/** `<attention-training>`: a TinyTransformer trained on a toy task in a Worker; loss, accuracy and attention maps live. */
export declare class AttentionTraining extends HTMLElement implements Exportable {
  /** Every progress report of the current run. */
  readonly history: TrainingProgress[];
  /** Where the run is. */
  readonly state: 'idle' | 'running' | 'paused' | 'done';
  /** Starts training from scratch with the chosen task, model, seed and learning rate. */
  train(): void;
  /** Pauses training (the model stays in the Worker). */
  pause(): void;
  /** Resumes a paused run. */
  resume(): void;
  /** Stops training and clears the curve and the maps. */
  reset(): void;
  /** The attention maps last drawn: [layer][head][query][key]. */
  readonly maps: number[][][][];
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** The settings, the progress so far and the maps last drawn. */
  toJSON(): Record<string, unknown>;
  /** JavaScript that puts an element with the same settings on a page. */
  toCode(): string;
}

/**
 * `<attention-model>`: a pretrained checkpoint (a Hugging Face folder) run in the tab on the
 * reader's text, with bertviz's head, model and neuron views, the next token's (decoders),
 * the labels' (classifiers) or a [MASK]'s (masked LMs) probabilities, and export.
 */
export declare class AttentionModel extends HTMLElement {
  /**
   * The model shown: set a loaded {@link PretrainedModel}, or a source `attn.loadModel` takes
   * (Files, a Map or object of file names to bytes, a URL) for the element to load. A model the
   * element loads is shared with elements showing the same src and disposed 2 s after none
   * shows it; a model you set stays yours to dispose.
   */
  model: PretrainedModel | ModelSource | null;
  /** The text the model reads. */
  text: string;
  /** Which view is shown. */
  view: 'head' | 'model' | 'neuron';
  /** Why the last load or forward failed, or null. */
  readonly error: Error | null;
  /** The tokens and the selected layer's attention maps. */
  toJSON(): object;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** JavaScript that loads the model and computes what the element shows. */
  toCode(): string;
}

/**
 * `<attention-explainer>`: one token's whole path through a pretrained model (the shipped tiny
 * GPT-2 without `src`), stage by stage with the runner's own numbers (`forward`'s `trace`):
 * embedding, norm, Q/K/V per head, scores, mask, softmax, weighted sum, output projection and
 * residual, MLP, final norm, logits, and sampling (temperature, top-k, top-p sliders).
 */
export declare class AttentionExplainer extends HTMLElement {
  /** The model shown: a loaded {@link PretrainedModel} (stays yours), or a source `attn.loadModel` takes. */
  model: PretrainedModel | ModelSource | null;
  /** The text the model reads. */
  text: string;
  /** The trace shown: the tokens, the traced position and `forward`'s trace; null before one. */
  readonly result: ExplainerResult | null;
  /** Why the last load or forward failed, or null. */
  readonly error: Error | null;
  /** The tokens, the traced position, the shown layer's stages and the sampling probabilities. */
  toJSON(): object;
  /** A PNG of the element as drawn. */
  toPNG(): Promise<Blob>;
  /** JavaScript that loads the model and computes what the element shows. */
  toCode(): string;
}

/** The course's worked example n (1-4) as `<attention-steps>` data. */
export declare function exampleData(n: number): AttentionStepsData;
/** The API instance the elements share (loaded on first use). */
export declare function getApi(): Promise<AttentionWasm>;
/** Makes the elements use this instance (e.g. one with threads). */
export declare function useApi(instance: AttentionWasm | Promise<AttentionWasm>): void;

/** A boolean attribute: present (any string, '' included) or true is on. */
export type BooleanAttribute = boolean | '' | string;

/** Attributes every element takes. */
export interface CommonAttributes {
  /** Force the light or dark palette; by default the element follows the page's color-scheme, or its text colour when the page declares none. */
  theme?: 'light' | 'dark';
}

/** Attributes of `<attention-matrix>` (also accepted as properties of the same name). */
export interface AttentionMatrixAttributes extends CommonAttributes {
  /** The caption. */
  label?: string;
  /** JSON rows of numbers ("-Infinity" strings allowed); as a property also a tensor or nested rows. */
  value?: string | number[][] | Tensor;
  /** Decimals shown (0-8, default 4). */
  precision?: number | string;
  /** Cell colours: 'sequential' for weights, 'diverging' for signed values. */
  heat?: 'sequential' | 'diverging';
  /** Cells can be edited (arrow keys, typing, Enter). */
  editable?: BooleanAttribute;
  /** Cells switch between 0 and −∞ on click, Space or Enter (a mask). */
  toggle?: BooleanAttribute;
  /** Row labels: a comma list or JSON array (rows are numbered from 0 without). */
  'row-labels'?: string;
  /** What the rows are: the axis title "query ↓". */
  'row-title'?: string;
  /** What the columns are: the axis title "key →". */
  'col-title'?: string;
  /** One sentence under the matrix: what it shows and what to notice. */
  caption?: string;
  /** Column labels: a comma list or JSON array. */
  'col-labels'?: string;
}

/** Attributes of `<attention-steps>`. */
export interface AttentionStepsAttributes extends CommonAttributes {
  /** The course's worked example (1-4). */
  example?: number | string;
  /** Inputs X as JSON rows. */
  x?: string;
  /** Queries' inputs C (cross-attention) as JSON rows. */
  c?: string;
  /** W_Q as JSON rows. */
  wq?: string;
  /** W_K as JSON rows. */
  wk?: string;
  /** W_V as JSON rows. */
  wv?: string;
  /** W_O as JSON rows. */
  wo?: string;
  /** An additive mask as JSON rows, or a preset: none, causal, causal-bottom-right. */
  mask?: string;
  /** Show the slides' rounded values of an example beside the exact ones. */
  'show-slides'?: BooleanAttribute;
  /** Decimals shown. */
  precision?: number | string;
  /** Ids of elements whose pairs highlight with this one's (space-separated). */
  for?: string;
  /** The same as `for`, for sanitized pages (DOMPurify keeps `for` on labels only). */
  link?: string;
  /** Token names of X's rows (the keys): a comma list or JSON array (numbered without); as a property also an array of strings (a name may hold a comma). */
  tokens?: string | string[];
  /** Token names of C's rows (the queries of cross-attention). */
  'query-tokens'?: string;
  /** 'compact': the stages side by side in smaller type (fits a 960 × 700 slide). */
  layout?: 'compact';
  /** Only these stages, in this order (comma-separated): inputs, weights, projections, scores, scaled, mask, softmax, output, projection-out. */
  stages?: string;
  /** The id of a `<script type="application/json">` on the page holding the inputs. */
  json?: string;
}

/** Attributes of `<attention-flash>`. */
export interface AttentionFlashAttributes extends CommonAttributes {
  /** Queries as JSON rows. */
  q?: string;
  /** Keys as JSON rows. */
  k?: string;
  /** Values as JSON rows. */
  v?: string;
  /** Keys per block (default 2). */
  block?: number | string;
}

/** Attributes of `<attention-heatmap>`. */
export interface AttentionHeatmapAttributes extends CommonAttributes {
  /** Weights as JSON: [Lq][Lk] or [heads][Lq][Lk]; as a property also a tensor or an attention result. */
  weights?: string | number[][] | number[][][] | Tensor;
  /** Token labels for queries and keys: a comma list or JSON array; as a property (React 19 and Vue set it so) also an array of strings, each one label even if it holds a comma. */
  tokens?: string | string[];
  /** Query token labels (cross-attention). */
  'query-tokens'?: string;
  /** Key token labels (cross-attention). */
  'key-tokens'?: string;
  /** 'grid' (default) or 'lines' (bertviz's head view). */
  view?: 'grid' | 'lines';
  /** The head shown in the lines view (an index from 0), 'average', or 'all' (every head overlaid, a colour each). */
  head?: number | string;
  /** 'none': no export toolbar (an element embedding this one exports for both). */
  toolbar?: 'none';
  /** The course's worked example (1-4). */
  example?: number | string;
  /** Ids of linked elements (space-separated). */
  for?: string;
  /** The same as `for`, for sanitized pages (DOMPurify keeps `for` on labels only). */
  link?: string;
}

/** Attributes of `<positional-encoding>`. */
export interface PositionalEncodingAttributes extends CommonAttributes {
  /** Which encoding: sinusoidal (default), rope, alibi or laplacian. */
  kind?: 'sinusoidal' | 'rope' | 'alibi' | 'laplacian';
}

/** Attributes of `<token-pruning>`. */
export interface TokenPruningAttributes extends CommonAttributes {
  /** The tokens: a comma list; as a property also an array. */
  tokens?: string | string[];
  /** 1-based numbers of the tokens dropped at first, comma-separated. */
  drop?: string;
  /** Features of the made-up token vectors (default 4). */
  dim?: number | string;
}

/** Attributes of `<attention-sentiment>`. */
export interface AttentionSentimentAttributes extends CommonAttributes {
  /** The sentence classified. */
  text?: string;
  /**
   * A classifier: the URL of its folder or a Hugging Face Hub id (`owner/name`; a folder beside
   * the page with such a path is written `./owner/name`). This package's format, any Hugging
   * Face `*ForSequenceClassification` checkpoint, or a linear probe's folder; default: the
   * shipped review classifier.
   */
  model?: string;
  /** The layer shown (an index from 0, as in attentions[layer]; default the last). */
  layer?: number | string;
  /** The head whose full attention matrix is shown (an index from 0; default 0). */
  head?: number | string;
  /** Load the model at once rather than when the element nears the viewport. */
  eager?: BooleanAttribute;
  /**
   * A pretrained encoder (the URL of its folder or a Hub id): "Train" then trains a linear
   * probe on it (its pooled last layer → a softmax layer) on the review sentences, and shows it.
   */
  encoder?: string;
}

/** Attributes of `<attention-training>`. */
export interface AttentionTrainingAttributes extends CommonAttributes {
  /** The toy task. */
  task?: 'copy' | 'reverse' | 'sort' | 'induction';
  /** Model size. */
  preset?: 'small' | 'medium';
  /** Random seed. */
  seed?: number | string;
  /** Learning rate. */
  lr?: number | string;
  /** Stop after this many steps. */
  steps?: number | string;
  /** Steps per progress report. */
  every?: number | string;
  /** Start training when connected. */
  autostart?: BooleanAttribute;
  /** Held-out accuracy (%) at which a run pauses, "Keep training" going on (default 100), or 'none'. */
  target?: number | string | 'none';
}

/** Attributes of `<attention-model>`. */
export interface AttentionModelAttributes extends CommonAttributes {
  /** URL prefix of a Hugging Face checkpoint folder (config.json, tokenizer.json, model.safetensors). */
  src?: string;
  /** The text the model reads. */
  text?: string;
  /** The view: bertviz's head view (default), model view (layers × heads) or neuron view. */
  view?: 'head' | 'model' | 'neuron';
  /** The layer shown (an index from 0, as in attentions[layer][head]; default 0). */
  layer?: number | string;
  /** The head shown (an index from 0), 'average' or 'all'; the head view shows every head, a colour each, without it. */
  head?: number | string;
  /** The neuron view's query token (its position, from 0; default the last). */
  query?: number | string;
  /** Download the checkpoint at once rather than when the element nears the viewport. */
  eager?: BooleanAttribute;
  /** 'compact': the next-token table beside the view and tighter rows, for a slide (960 × 700). */
  layout?: 'compact';
}

/** What `<attention-explainer>` shows: {@link AttentionExplainer.result}. */
export interface ExplainerResult {
  /** The text's tokens with their spans. */
  tokens: ModelToken[];
  /** The followed token's position (0-based). */
  position: number;
  /** `forward`'s trace of that position. */
  trace: ModelTrace;
}

/** Attributes of `<attention-explainer>`. */
export interface AttentionExplainerAttributes extends CommonAttributes {
  /** URL prefix of a checkpoint folder, or a Hugging Face Hub id; absent: the tiny GPT-2 the package ships (offline). */
  src?: string;
  /** The text the model reads (default 'The cat sat on the mat'). */
  text?: string;
  /** The token followed (its position, from 0; default the last). */
  token?: number | string;
  /** The layer shown (an index from 0, as in attentions[layer][head]; default 0). */
  layer?: number | string;
  /** The head whose keys and values are shown (an index from 0; default 0). */
  head?: number | string;
  /** Sampling temperature (default 1; 0 is greedy). */
  temperature?: number | string;
  /** Top-k (default 0: off). */
  'top-k'?: number | string;
  /** Top-p in (0, 1] (default 1: off). */
  'top-p'?: number | string;
  /** Download the checkpoint at once rather than when the element nears the viewport. */
  eager?: BooleanAttribute;
  /** 'compact': one stage at a time in smaller type, for a slide (960 × 700). */
  layout?: 'compact';
  /** The stage a compact layout shows (1-based, 1 … 10; default 1). */
  stage?: number | string;
}

/** Every element's attributes by tag name: what framework typings (`attention-wasm/elements/react`, `/vue`) are made of. */
export interface AttentionElementAttributes {
  /** `<attention-matrix>` */
  'attention-matrix': AttentionMatrixAttributes;
  /** `<attention-steps>` */
  'attention-steps': AttentionStepsAttributes;
  /** `<attention-flash>` */
  'attention-flash': AttentionFlashAttributes;
  /** `<attention-heatmap>` */
  'attention-heatmap': AttentionHeatmapAttributes;
  /** `<positional-encoding>` */
  'positional-encoding': PositionalEncodingAttributes;
  /** `<token-pruning>` */
  'token-pruning': TokenPruningAttributes;
  /** `<attention-sentiment>` */
  'attention-sentiment': AttentionSentimentAttributes;
  /** `<attention-training>` */
  'attention-training': AttentionTrainingAttributes;
  /** `<attention-model>` */
  'attention-model': AttentionModelAttributes;
  /** `<attention-explainer>` */
  'attention-explainer': AttentionExplainerAttributes;
}

/** A cell of `<attention-matrix>`, counted from 0 (`cellfocus`). */
export interface MatrixCellDetail {
  /** Row, from 0. */
  row: number;
  /** Column, from 0. */
  col: number;
}
/** A cell of `<attention-matrix>` and its new value (`input`, `change`). */
export interface MatrixCellValueDetail extends MatrixCellDetail {
  /** The value typed. */
  value: number;
}
/** `<attention-matrix>`'s events. */
export interface AttentionMatrixEvents {
  /** A cell typed into. */
  input: MatrixCellValueDetail;
  /** A cell's value committed (Enter), or a mask cell toggled. */
  change: MatrixCellValueDetail;
  /** The focused cell. */
  cellfocus: MatrixCellDetail;
}
/** `<attention-steps>`'s events. */
export interface AttentionStepsEvents {
  /** Every stage, after each computation. */
  compute: AttentionStages;
}
/** One step of `<attention-flash>`. */
export interface FlashStepDetail {
  /** Blocks done. */
  block: number;
  /** Blocks in all. */
  blocks: number;
  /** That step's per-row state (running max, sum and partial output). */
  state: unknown;
}
/** `<attention-flash>`'s events. */
export interface AttentionFlashEvents {
  /** A block stepped (buttons or arrow keys). */
  step: FlashStepDetail;
}
/** The query/key pair under the pointer or focus (nulls: none). */
export interface HeatmapPairDetail {
  /** Query position, from 0. */
  query: number | null;
  /** Key position, from 0. */
  key: number | null;
  /** Its weight. */
  weight: number | null;
}
/** `<attention-heatmap>`'s events. */
export interface AttentionHeatmapEvents {
  /** The pair under the pointer or focus. */
  pair: HeatmapPairDetail;
  /** A head chip toggled. */
  headtoggle: {
    /** Heads (from 0) toggled off, ascending. */
    hidden: number[];
  };
}
/** `<token-pruning>`'s events. */
export interface TokenPruningEvents {
  /** A token ticked or unticked. */
  change: {
    /** The keep mask, 0/1 per token. */
    keep: number[];
  };
}
/** A classifier trained in the page (`trained`). */
export interface TrainedDetail {
  /** Training time. */
  seconds: number;
  /** Accuracy on held-out sentences, 0 … 1. */
  accuracy: number;
}
/** `<attention-sentiment>`'s events. */
export interface AttentionSentimentEvents {
  /** Each prediction shown. */
  prediction: SentimentPrediction;
  /** A classifier trained in the page ("Train from scratch") and shown. */
  trained: TrainedDetail;
}
/** The end of an `<attention-training>` run. */
export interface TrainingDoneDetail {
  /** Steps done. */
  step: number;
  /** Held-out token accuracy, 0 … 1. */
  accuracy: number;
}
/** `<attention-training>`'s events. */
export interface AttentionTrainingEvents {
  /** Each progress report. */
  'training-progress': TrainingProgress;
  /** The run reaching its steps or target. */
  'training-done': TrainingDoneDetail;
}
/** A model element's model, loaded (`modelload`). */
export interface ModelLoadDetail {
  /** The model (the element's, or shared with elements showing the same src: do not dispose it). */
  model: PretrainedModel;
}
/** `<attention-model>`'s forward (`forward`). */
export interface ModelForwardDetail {
  /** The tokens read. */
  tokens: ModelToken[];
  /** One `[1, numHeads, T, T]` tensor per layer. */
  attentions: Tensor[];
}
/** `<attention-model>`'s events. */
export interface AttentionModelEvents {
  /** The model loaded. */
  modelload: ModelLoadDetail;
  /** Its files' download or packing progress. */
  loadprogress: LoadProgress;
  /** Each forward shown. */
  forward: ModelForwardDetail;
}
/** `<attention-explainer>`'s events. */
export interface AttentionExplainerEvents {
  /** The model loaded. */
  modelload: ModelLoadDetail;
  /** Its files' download or packing progress. */
  loadprogress: LoadProgress;
  /** Each trace shown. */
  trace: ExplainerResult;
}

/**
 * Every element's events by tag name: each event's name and its `detail` (all are
 * `CustomEvent`s). React 19 listens to them as `on` + the name
 * (`<attention-model onmodelload={(e) => e.detail.model}>`, `ontraining-done`), which
 * `attention-wasm/elements/react` types from this map.
 */
export interface AttentionElementEvents {
  /** `<attention-matrix>` */
  'attention-matrix': AttentionMatrixEvents;
  /** `<attention-steps>` */
  'attention-steps': AttentionStepsEvents;
  /** `<attention-flash>` */
  'attention-flash': AttentionFlashEvents;
  /** `<attention-heatmap>` */
  'attention-heatmap': AttentionHeatmapEvents;
  /** `<positional-encoding>`: none. */
  'positional-encoding': Record<never, never>;
  /** `<token-pruning>` */
  'token-pruning': TokenPruningEvents;
  /** `<attention-sentiment>` */
  'attention-sentiment': AttentionSentimentEvents;
  /** `<attention-training>` */
  'attention-training': AttentionTrainingEvents;
  /** `<attention-model>` */
  'attention-model': AttentionModelEvents;
  /** `<attention-explainer>` */
  'attention-explainer': AttentionExplainerEvents;
}

/**
 * `addEventListener` and `removeEventListener` of element `E`, typed by its events `Events`
 * (`el.addEventListener('modelload', (e) => e.detail.model)`), then by the DOM's.
 */
export interface ElementEventListeners<E extends HTMLElement, Events> {
  /** Listens to one of the element's own events; the listener gets its `CustomEvent`. */
  addEventListener<K extends keyof Events & string>(
    type: K,
    listener: (this: E, event: CustomEvent<Events[K]>) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** Listens to a DOM event. */
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: E, event: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** Listens to any event. */
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /** Stops listening to one of the element's own events. */
  removeEventListener<K extends keyof Events & string>(
    type: K,
    listener: (this: E, event: CustomEvent<Events[K]>) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  /** Stops listening to a DOM event. */
  removeEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: E, event: HTMLElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  /** Stops listening to any event. */
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** `<attention-matrix>`'s listeners, typed by {@link AttentionMatrixEvents}. */
export interface AttentionMatrix {
  /** Listens to an event, typed by {@link AttentionMatrixEvents} first. */
  addEventListener: ElementEventListeners<AttentionMatrix, AttentionMatrixEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionMatrix, AttentionMatrixEvents>['removeEventListener'];
}
/** `<attention-steps>`'s listeners, typed by {@link AttentionStepsEvents}. */
export interface AttentionSteps {
  /** Listens to an event, typed by {@link AttentionStepsEvents} first. */
  addEventListener: ElementEventListeners<AttentionSteps, AttentionStepsEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionSteps, AttentionStepsEvents>['removeEventListener'];
}
/** `<attention-flash>`'s listeners, typed by {@link AttentionFlashEvents}. */
export interface AttentionFlash {
  /** Listens to an event, typed by {@link AttentionFlashEvents} first. */
  addEventListener: ElementEventListeners<AttentionFlash, AttentionFlashEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionFlash, AttentionFlashEvents>['removeEventListener'];
}
/** `<attention-heatmap>`'s listeners, typed by {@link AttentionHeatmapEvents}. */
export interface AttentionHeatmap {
  /** Listens to an event, typed by {@link AttentionHeatmapEvents} first. */
  addEventListener: ElementEventListeners<AttentionHeatmap, AttentionHeatmapEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionHeatmap, AttentionHeatmapEvents>['removeEventListener'];
}
/** `<token-pruning>`'s listeners, typed by {@link TokenPruningEvents}. */
export interface TokenPruning {
  /** Listens to an event, typed by {@link TokenPruningEvents} first. */
  addEventListener: ElementEventListeners<TokenPruning, TokenPruningEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<TokenPruning, TokenPruningEvents>['removeEventListener'];
}
/** `<attention-sentiment>`'s listeners, typed by {@link AttentionSentimentEvents}. */
export interface AttentionSentiment {
  /** Listens to an event, typed by {@link AttentionSentimentEvents} first. */
  addEventListener: ElementEventListeners<AttentionSentiment, AttentionSentimentEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionSentiment, AttentionSentimentEvents>['removeEventListener'];
}
/** `<attention-training>`'s listeners, typed by {@link AttentionTrainingEvents}. */
export interface AttentionTraining {
  /** Listens to an event, typed by {@link AttentionTrainingEvents} first. */
  addEventListener: ElementEventListeners<AttentionTraining, AttentionTrainingEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionTraining, AttentionTrainingEvents>['removeEventListener'];
}
/** `<attention-model>`'s listeners, typed by {@link AttentionModelEvents}. */
export interface AttentionModel {
  /** Listens to an event, typed by {@link AttentionModelEvents} first. */
  addEventListener: ElementEventListeners<AttentionModel, AttentionModelEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionModel, AttentionModelEvents>['removeEventListener'];
}
/** `<attention-explainer>`'s listeners, typed by {@link AttentionExplainerEvents}. */
export interface AttentionExplainer {
  /** Listens to an event, typed by {@link AttentionExplainerEvents} first. */
  addEventListener: ElementEventListeners<AttentionExplainer, AttentionExplainerEvents>['addEventListener'];
  /** Stops listening to an event. */
  removeEventListener: ElementEventListeners<AttentionExplainer, AttentionExplainerEvents>['removeEventListener'];
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-matrix': AttentionMatrix;
    'attention-steps': AttentionSteps;
    'attention-flash': AttentionFlash;
    'attention-heatmap': AttentionHeatmap;
    'positional-encoding': PositionalEncoding;
    'token-pruning': TokenPruning;
    'attention-sentiment': AttentionSentiment;
    'attention-training': AttentionTraining;
    'attention-model': AttentionModel;
    'attention-explainer': AttentionExplainer;
  }
}
