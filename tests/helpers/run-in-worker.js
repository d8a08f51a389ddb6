// A module Worker for browser tests: receives the source of an async function, runs it here
// and posts back its result (or { error }).
self.onmessage = async (event) => {
  try {
    const run = (0, eval)(`(${event.data})`);
    self.postMessage(await run());
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
