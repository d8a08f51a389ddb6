// The real-models section's form: a checkpoint folder URL or its files feed <attention-model>.
// The page's Content-Security-Policy lets it fetch from its own origin, any https: URL, and
// plain http: only from this computer (localhost, 127.0.0.1). Any other http: URL would fail
// with the browser's bare "Failed to fetch", so the form refuses it first and says why.

const LOOPBACK = new Set(['localhost', '127.0.0.1']);

/**
 * Why the page will not fetch from `value`, or null when it may (or when the URL is the
 * element's to judge: a path, another scheme).
 * @param {string} value @param {string} base the page's URL
 */
export function refusal(value, base) {
  let url;
  try {
    url = new URL(value, base);
  } catch {
    return null; // the element names the attribute and the value
  }
  if (url.protocol !== 'http:' || url.origin === new URL(base).origin || LOOPBACK.has(url.hostname)) return null;
  return (
    `${url.origin} is refused: this page fetches checkpoints over https:, and over plain http: only from ` +
    'this computer (localhost or 127.0.0.1), since files sent over plain http: from elsewhere can be changed ' +
    'on the way. Use the https: URL of the folder, serve it on this computer, or choose its files.'
  );
}

/** Binds the form to the element: a URL the page may fetch becomes its src; files its model. */
export function bindModelForm(form, element, message) {
  const url = form.querySelector('#model-url');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = url.value.trim();
    if (!value) return;
    message.textContent = refusal(value, document.baseURI) ?? '';
    message.hidden = message.textContent === '';
    if (message.hidden) element.setAttribute('src', value);
  });
  form.querySelector('#model-files').addEventListener('change', (event) => {
    const files = [...event.target.files];
    if (files.length) {
      message.hidden = true;
      element.removeAttribute('src');
      element.model = files;
    }
  });
}
