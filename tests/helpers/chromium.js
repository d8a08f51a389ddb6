// The one way the tests start headless Chromium (Debian's, /usr/bin/chromium, through
// playwright-core): the same flags everywhere, so a flag added for one machine reaches all.
import { chromium } from 'playwright-core';

/** The flags: headless, no sandbox (CI runs as root), no GPU, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
];

/** A browser; `extraArgs` for a test that needs more (e.g. QUIC off for a local HTTP/2 server). */
export function launchChromium(extraArgs = []) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}
