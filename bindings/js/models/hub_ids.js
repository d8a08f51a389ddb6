// Hugging Face Hub ids ('Qwen/Qwen2.5-0.5B-Instruct'): which strings are ids, and the URL
// prefix an id's files are read from, <hubUrl>/<owner>/<name>/resolve/<revision>/, as the
// Hub's own clients build it (the revision one path segment, its '/' escaped: refs%2Fpr%2F1).
//
// How loadModel tells a string apart (sources.js):
//   1. a URL (a scheme: https:, http:, file:) is a URL;
//   2. in Node, a folder that exists is that folder, even when it reads as an id (as
//      transformers' from_pretrained decides): nothing on disk is ever fetched instead;
//   3. `owner/name` in the Hub's characters is a Hub id;
//   4. anything else is a folder path (Node) or a URL relative to the page (browsers).
// So './Qwen/Qwen2.5-0.5B-Instruct' always means a folder, and the full
// 'https://huggingface.co/Qwen/…/resolve/main/' always means the Hub.
import { typeError, rangeError, describe } from '../errors.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';
export const DEFAULT_REVISION = 'main';

// One half of an id, as the Hub allows it (huggingface_hub's validate_repo_id): ASCII letters,
// digits, '_', '-' and '.', starting and ending with a letter, digit or '_', no '--' or '..',
// at most 96 characters.
const ID_PART = /^(?!.*(?:--|\.\.))[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;
// One '/'-separated part of a revision (a branch, a tag, a commit, refs/pr/1): git's rules
// for a ref's parts, narrowed to the characters the Hub's names use.
const REVISION_PART = /^(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
const MAX_REVISION = 255;

/** Whether `text` is a Hub id: exactly `owner/name`, each in the Hub's characters. */
export function isHubId(text) {
  if (typeof text !== 'string') return false;
  const parts = text.split('/');
  return parts.length === 2 && parts.every((part) => ID_PART.test(part));
}

/**
 * Checks loadModel's `revision` and `hubUrl` options (before anything is fetched); returns
 * them with their defaults: { revision, hubUrl (a URL ending in '/'), revisionGiven }. A
 * revision names a Hub model's version, so it is refused for any other source; hubUrl says
 * where the Hub is, and other sources do not use it.
 */
export function checkHubOptions(fn, { revision, hubUrl }) {
  if (revision !== undefined) checkRevision(fn, revision);
  return {
    revision: revision ?? DEFAULT_REVISION,
    hubUrl: hubBase(fn, hubUrl ?? DEFAULT_HUB_URL),
    revisionGiven: revision !== undefined,
  };
}

function checkRevision(fn, revision) {
  if (typeof revision !== 'string')
    throw typeError(fn, `options.revision must be a string (a branch, tag or commit), got ${describe(revision)}`);
  const parts = revision.split('/');
  if (revision.length === 0 || revision.length > MAX_REVISION || !parts.every((part) => REVISION_PART.test(part))) {
    throw rangeError(
      fn,
      `options.revision ${JSON.stringify(revision.slice(0, 80))} is not a branch, tag or commit name: 1 to ${MAX_REVISION} characters of letters, digits, '_', '-', '.' and '/' between names, no '..', no part starting with '.'`,
    );
  }
}

// The Hub's address as a base URL ending in '/' (a mirror may sit under a path).
function hubBase(fn, hubUrl) {
  if (typeof hubUrl !== 'string' && !(hubUrl instanceof URL))
    throw typeError(
      fn,
      `options.hubUrl must be a string or URL (the Hub's address, e.g. '${DEFAULT_HUB_URL}'), got ${describe(hubUrl)}`,
    );
  let url;
  try {
    url = new URL(String(hubUrl));
  } catch {
    throw rangeError(
      fn,
      `options.hubUrl ${JSON.stringify(String(hubUrl).slice(0, 80))} is not an absolute URL (e.g. '${DEFAULT_HUB_URL}')`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw rangeError(fn, `options.hubUrl must be an http(s) URL, got a ${url.protocol} URL`);
  if (url.search || url.hash || url.username || url.password)
    throw rangeError(
      fn,
      'options.hubUrl may not hold a query, a fragment or credentials (pass a token in options.fetchOptions.headers)',
    );
  url.pathname = url.pathname.replace(/\/*$/, '/');
  return url;
}

/** The URL prefix of a model's files: <hubUrl>/<owner>/<name>/resolve/<revision>/. */
export function hubFolderUrl(id, { revision, hubUrl }) {
  return new URL(`${id}/resolve/${encodeURIComponent(revision)}/`, hubUrl);
}

const TOKEN = "{ fetchOptions: { headers: { Authorization: 'Bearer hf_…' } } }";

/** What loadModel says when the Hub has no config.json for an id (HTTP 404). */
export function hubNotFound(id, revision, url) {
  return `${id} was not found on the Hub at revision '${revision}': ${url} answered HTTP 404 (not found). Check the id and the revision; a gated or private model also needs a token: ${TOKEN}`;
}

/** What loadModel adds when the Hub refuses a file (HTTP 401 or 403). */
export function hubRefused(status) {
  return status === 401
    ? `the Hub answers 401 for a gated or private model asked without a token, and for a model that does not exist: check the id, or pass a token: ${TOKEN}`
    : `the Hub answers 403 when the token may not read this model (a gated model whose terms were not accepted, or a token without read access): ${TOKEN}`;
}
