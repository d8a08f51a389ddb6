// Types of attention-wasm/elements: the custom elements and their loader.
import type { AttentionWasm, Tensor } from '../../bindings/js/index.js';

/** One stage of an `<attention-steps>` computation. */
export interface AttentionStages {
  Q: Tensor; K: Tensor; V: Tensor; M: Tensor;
  scores: Tensor; scaled: Tensor; masked: Tensor; weights: Tensor; A: Tensor;
  Y: Tensor | null;
}

/** Inputs of `<attention-steps>` (nested rows of numbers). */
export interface AttentionStepsData {
  x: number[][];
  c?: number[][];
  wq?: number[][];
  wk?: number[][];
  wv?: number[][];
  wo?: number[][];
  /** An additive mask [Lq, Lk] of 0 / -Infinity, or a preset: 'causal', 'causal-bottom-right'. */
  mask?: number[][] | 'none' | 'causal' | 'causal-top-left' | 'causal-bottom-right';
}

/** `<attention-matrix>`: one labelled, optionally editable matrix (an ARIA grid). */
export declare class AttentionMatrix extends HTMLElement {
  value: Tensor | null;
  label: string;
  precision: number;
  heat: 'sequential' | 'diverging' | null;
  editable: boolean;
  toggle: boolean;
  rowLabels: string[] | null;
  colLabels: string[] | null;
  highlight(cell: [number, number] | null): void;
  cellAt(row: number, col: number): HTMLTableCellElement | null;
}

/** `<attention-steps>`: one attention head, stage by stage, live. */
export declare class AttentionSteps extends HTMLElement {
  data: AttentionStepsData | null;
  readonly stages: AttentionStages | null;
  highlightPair(query: number | null, key?: number): void;
}

/** `<attention-flash>`: the fused kernel's online softmax, stepped block by block. */
export declare class AttentionFlash extends HTMLElement {
  data: { q: number[][]; k: number[][]; v: number[][] } | null;
  block: number;
  step: number;
  readonly blocks: number;
  readonly reference: Float32Array | null;
}

/** `<attention-heatmap>`: weights per head and their average, as grids or bertviz-style lines. */
export declare class AttentionHeatmap extends HTMLElement {
  /** [heads][Lq][Lk]; set a tensor [Lq, Lk] or [heads, Lq, Lk] (or [B, heads, Lq, Lk]). */
  weights: number[][][] | Tensor;
  view: 'grid' | 'lines';
  highlightPair(query: number | null, key?: number): void;
}

/** `<positional-encoding>`: sinusoidal, RoPE, ALiBi or Laplacian encodings, live. */
export declare class PositionalEncoding extends HTMLElement {
  kind: 'sinusoidal' | 'rope' | 'alibi' | 'laplacian';
  graph: { numNodes: number; edges: Array<[number, number]> };
  readonly tensors: Record<string, Tensor>;
  toggleEdge(a: number, b: number): void;
}

/** `<token-pruning>`: DynamicViT keep-masks, G and the renormalised weights. */
export declare class TokenPruning extends HTMLElement {
  keep: number[];
  readonly tokens: string[];
  readonly result: { x: Tensor; G: Tensor; weights: Tensor } | null;
}

/** A prediction of `<attention-sentiment>`. */
export interface SentimentPrediction {
  text: string;
  label: 'negative' | 'positive';
  /** The probability of `label`. */
  probability: number;
  /** The words read (at most the model's maxLen). */
  words: string[];
  /** Words not in the vocabulary (read as `<unk>`). */
  unknown: string[];
  /** [layer][head][T]: the [CLS] query's weights over [CLS] and the words. */
  attention: number[][][];
}

/** `<attention-sentiment>`: a review classifier trained on the synthetic corpus, and what its [CLS] query attends to. */
export declare class AttentionSentiment extends HTMLElement {
  readonly prediction: SentimentPrediction | null;
}

/** One progress report of `<attention-training>`. */
export interface TrainingProgress {
  step: number;
  /** Mean training loss over the last report's steps, in nats. */
  loss: number;
  /** Token accuracy on the task's fixed held-out set. */
  accuracy: number;
  stepsPerSecond: number;
}

/** `<attention-training>`: a TinyTransformer trained on a toy task in a Worker; loss, accuracy and attention maps live. */
export declare class AttentionTraining extends HTMLElement {
  readonly history: TrainingProgress[];
  readonly state: 'idle' | 'running' | 'paused' | 'done';
  train(): void;
  pause(): void;
  resume(): void;
  reset(): void;
}

/** The course's worked example n (1-4) as `<attention-steps>` data. */
export declare function exampleData(n: number): AttentionStepsData;
/** The API instance the elements share (loaded on first use). */
export declare function getApi(): Promise<AttentionWasm>;
/** Makes the elements use this instance (e.g. one with threads). */
export declare function useApi(instance: AttentionWasm | Promise<AttentionWasm>): void;

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
  }
}
