#!/usr/bin/env node
// npx attention-wasm: serves the demo page and the elements on a bare page from the installed
// package on this computer, cross-origin isolated (so wasm threads work); no toolchain needed.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startServer } from '../scripts/server.js';

const USAGE = `Usage: npx attention-wasm [--port 8080] [--host 127.0.0.1] [--open]
  --port  the port to listen on (0: any free one); when it is taken, a free one is used
  --host  the address to listen on (threads need a secure context: localhost or 127.0.0.1)
  --open  open the page in the default browser`;

// The options, or an Error saying which one is wrong.
function readOptions(args) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      open: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535)
    throw new Error(`--port must be a whole number from 0 to 65535, got "${values.port}"`);
  return { ...values, port };
}

// Listens on the port asked for or, when another program holds it, on a free one (saying so).
async function listen(port, host) {
  try {
    return await startServer({ port, host });
  } catch (error) {
    if (error.code !== 'EADDRINUSE') throw error;
    const fallback = await startServer({ port: 0, host });
    console.log(`attention-wasm: port ${port} is taken; using ${new URL(fallback.url).port} instead`);
    return fallback;
  }
}

// The default browser, by the platform's own command; a failure only means the URL is to be copied.
function openInBrowser(url) {
  const [command, ...args] =
    process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['explorer'] : ['xdg-open'];
  spawn(command, [...args, url], { stdio: 'ignore', detached: true })
    .on('error', () => {})
    .unref();
}

// Under `npx attention-wasm` (npm exec), the server stops when npm does: npm exec runs this
// through a shell, and ending npm (its terminal closed, a process manager stopping it) left
// this process listening, orphaned. The parent (npm or the shell) and its parent are watched:
// when either is gone, the server closes. Run directly (node bin/…), nothing is watched.
function stopWithNpm(server) {
  if (process.env.npm_command !== 'exec') return;
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return error.code === 'EPERM';
    }
  };
  setInterval(() => {
    if (process.ppid === parent && (grandparent === null || grandparent <= 1 || alive(grandparent))) return;
    server.close();
    process.exit(0);
  }, 500).unref();
}

// The parent process id of `pid` (Linux: /proc; null where it cannot be read).
function parentOf(pid) {
  try {
    return Number(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')[1],
    );
  } catch {
    return null;
  }
}

let options;
try {
  options = readOptions(process.argv.slice(2));
} catch (error) {
  console.error(`attention-wasm: ${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
try {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const { server, url } = await listen(options.port, options.host);
  stopWithNpm(server);
  console.log(`attention-wasm ${version}: the worked examples at ${url}web/`);
  console.log(`  the elements on a bare page at ${url}examples/embed.html  (Ctrl+C stops)`);
  if (options.open) openInBrowser(`${url}web/`);
} catch (error) {
  console.error(`attention-wasm: cannot listen on ${options.host}:${options.port}: ${error.message}`);
  process.exit(1);
}
