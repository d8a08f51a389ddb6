// A sentence-transformers folder (as the Hub serves all-MiniLM-L6-v2 or bge-small-en-v1.5):
// beside the model's own files, modules.json lists the pipeline a text goes through, e.g.
//   [{ "idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer" },
//    { "idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling" },
//    { "idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize" }]
// with the Pooling module's settings in 1_Pooling/config.json and the Transformer's in
// sentence_bert_config.json (max_seq_length, do_lower_case). This file reads them into what
// PretrainedModel.embed needs. A module path is data from a stranger: every one is checked
// (file_names.js checkFilePath: plain names joined by '/', no '..', no absolute path) before
// any file is read, and only the files sentence-transformers writes are read.
import { rangeError, show } from '../errors.js';
import { checkFilePath } from './file_names.js';
import { POOLING_MODES } from './pooling.js';
import { readDense } from './sentence_dense.js';

const MODULE = 'sentence_transformers.models.';
const MAX_MODULES = 64; // real pipelines have 2 to 5

// Pooling's config.json keys → POOLING_MODES, and Pooling's defaults (mean only).
const POOLING_KEYS = {
  pooling_mode_cls_token: 'cls',
  pooling_mode_max_tokens: 'max',
  pooling_mode_mean_tokens: 'mean',
  pooling_mode_mean_sqrt_len_tokens: 'meanSqrtLen',
  pooling_mode_weightedmean_tokens: 'weightedMean',
  pooling_mode_lasttoken: 'last',
};
const POOLING_DEFAULTS = { pooling_mode_mean_tokens: true };
// Pooling's `pooling_mode` string, which replaces the booleans when present.
const POOLING_NAMES = {
  cls: 'cls',
  max: 'max',
  mean: 'mean',
  mean_sqrt_len_tokens: 'meanSqrtLen',
  weightedmean: 'weightedMean',
  lasttoken: 'last',
};

// modules.json's entries, each path checked; a wrong shape is a RangeError naming the entry.
function checkModules(fn, modules) {
  if (!Array.isArray(modules)) throw rangeError(fn, 'modules.json must be a list of modules');
  if (modules.length > MAX_MODULES)
    throw rangeError(fn, `modules.json lists ${modules.length} modules; at most ${MAX_MODULES} are read`);
  return modules.map((m, i) => {
    if (m === null || typeof m !== 'object' || typeof m.type !== 'string' || typeof m.path !== 'string') {
      throw rangeError(fn, `modules.json's entry ${i} must be an object with a string "type" and a string "path"`);
    }
    // '' is the folder itself (the Transformer's usual place); anything else a folder inside it.
    if (m.path !== '') checkFilePath(fn, `modules.json's entry ${i} path`, m.path);
    return { type: m.type, path: m.path };
  });
}

// The pipeline embed runs: a Transformer at the folder's root, a Pooling, any number of Dense
// modules (EmbeddingGemma's projections), then optionally a Normalize. Returns { pooling,
// dense, normalize } (pooling: the Pooling module; dense: the Dense modules in order), or
// { unsupported } describing the first module embed cannot run.
function pipelineOf(modules) {
  const [first, second, ...rest] = modules;
  const is = (m, name) => m?.type === MODULE + name;
  const describeModule = (m) => `a ${m.type} module${m.path ? ` (${m.path})` : ''}`;
  if (!is(first, 'Transformer'))
    return { unsupported: first ? `${describeModule(first)} first, where the Transformer belongs` : 'no module' };
  if (first.path !== '')
    return { unsupported: `its Transformer in the folder '${first.path}' (embed runs the model at the folder's root)` };
  if (!is(second, 'Pooling')) return { unsupported: second ? describeModule(second) : 'no Pooling module' };
  const dense = [];
  while (is(rest[0], 'Dense')) dense.push(rest.shift());
  const normalize = is(rest[0], 'Normalize');
  if (normalize) rest.shift();
  if (rest.length > 0) return { unsupported: describeModule(rest[0]) };
  if (dense.some((m) => m.path === ''))
    return { unsupported: "a Dense module at the folder's root (its weights would be the model's)" };
  return { pooling: second, dense, normalize };
}

// 1_Pooling/config.json → the modes, in POOLING_MODES order.
function poolingModes(fn, where, config, dModel) {
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw rangeError(fn, `${where} must be a JSON object`);
  const dim = config.word_embedding_dimension;
  if (dim !== dModel)
    throw rangeError(
      fn,
      `${where} has word_embedding_dimension ${JSON.stringify(dim)} but the model's hidden size is ${dModel}`,
    );
  let on;
  if (config.pooling_mode !== undefined && config.pooling_mode !== null) {
    const mode = POOLING_NAMES[String(config.pooling_mode).toLowerCase()];
    if (mode === undefined)
      throw rangeError(
        fn,
        `${where} has pooling_mode ${JSON.stringify(config.pooling_mode)}; known: ${Object.keys(POOLING_NAMES).join(', ')}`,
      );
    on = new Set([mode]);
  } else {
    on = new Set();
    for (const [key, mode] of Object.entries(POOLING_KEYS)) {
      const value = config[key] ?? POOLING_DEFAULTS[key] ?? false;
      if (typeof value !== 'boolean')
        throw rangeError(fn, `${where} has ${key} ${show(value)}; it must be true or false`);
      if (value) on.add(mode);
    }
  }
  if (on.size === 0) throw rangeError(fn, `${where} turns every pooling mode off`);
  return POOLING_MODES.filter((mode) => on.has(mode));
}

// sentence_bert_config.json → { maxSeqLength, lowerCase }.
function transformerSettings(fn, config) {
  if (config === null) return { maxSeqLength: null, lowerCase: false };
  const { max_seq_length: max = null, do_lower_case: lower = false } = config;
  if (max !== null && (!Number.isInteger(max) || max < 1))
    throw rangeError(
      fn,
      `sentence_bert_config.json has max_seq_length ${JSON.stringify(max)}; it must be a positive integer`,
    );
  if (typeof lower !== 'boolean')
    throw rangeError(
      fn,
      `sentence_bert_config.json has do_lower_case ${JSON.stringify(lower)}; it must be true or false`,
    );
  return { maxSeqLength: max, lowerCase: lower };
}

/**
 * The folder's sentence-embedding pipeline, or null when it has no modules.json.
 * @param {string} fn @param {object} src a source (sources.js)
 * @param {(src: object, name: string, required: boolean) => Promise<unknown>} readJson
 * @param {number} dModel the model's hidden size
 * @returns {Promise<null | { pooling: string[] | null, dense: object[], normalize: boolean,
 *   maxSeqLength: number | null, lowerCase: boolean, unsupported: string | null }>} pooling
 *   null and unsupported set when the pipeline holds a module embed does not run (a custom
 *   module, a Dense with an activation it lacks, …); dense: sentence_dense.js readDense's, in order
 */
export async function readSentenceTransformers(fn, src, readJson, dModel) {
  const modules = await readJson(src, 'modules.json', false);
  if (modules === null) return null;
  const pipeline = pipelineOf(checkModules(fn, modules));
  const settings = transformerSettings(fn, await readJson(src, 'sentence_bert_config.json', false));
  const unsupported = (what) => ({ pooling: null, dense: [], normalize: false, ...settings, unsupported: what });
  if (pipeline.unsupported) return unsupported(pipeline.unsupported);
  const file = pipeline.pooling.path === '' ? 'config.json' : `${pipeline.pooling.path}/config.json`;
  const pooling = poolingModes(fn, file, await readJson(src, file, true), dModel);
  const dense = [];
  let width = pooling.length * dModel;
  for (const m of pipeline.dense) {
    const layer = await readDense(fn, src, readJson, m.path, width);
    if (layer.unsupported) return unsupported(layer.unsupported);
    dense.push(layer);
    width = layer.outFeatures;
  }
  return { pooling, dense, normalize: pipeline.normalize, ...settings, unsupported: null };
}
