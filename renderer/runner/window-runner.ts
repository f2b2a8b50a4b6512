// The page's one browser runner, started on first use and closed when the page goes away: its
// workers (one kernel worker, two WASM workers) are a page-lifetime resource shared by every Code
// node, rather than one set per node. It exists only when the page was served by the web host
// (the delivery route and the session token are there); the Electron window has neither.

import { TOKEN_KEY } from '../api/connect.ts';
import { pagePowers } from './browser-powers.ts';
import { BrowserRunner } from './browser-runner.ts';

let runner: BrowserRunner | undefined;

/** Why this window cannot run code itself, or undefined when it can. */
export function windowRunnerUnavailable(win: Window = window): string | undefined {
  if (win.location.protocol !== 'http:' && win.location.protocol !== 'https:')
    return 'This window was not opened from the local web host, so it cannot fetch pack modules itself.';
  if (win.sessionStorage.getItem(TOKEN_KEY) === null) return 'This window has no session token for the local web host.';
  return undefined;
}

export function windowRunner(win: Window = window): BrowserRunner {
  if (runner) return runner;
  const token = win.sessionStorage.getItem(TOKEN_KEY);
  if (token === null) throw new Error('windowRunner: no session token (check windowRunnerUnavailable first)');
  const created = new BrowserRunner({ ...pagePowers(win.location.origin, token), wasmWorkers: 2 });
  runner = created;
  win.addEventListener(
    'pagehide',
    () => {
      created.close();
      if (runner === created) runner = undefined;
    },
    { once: true },
  );
  return created;
}
