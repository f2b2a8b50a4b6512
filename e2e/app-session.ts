// The start-up and teardown every e2e suite against the real app repeats: the app's services over a
// data dir behind the web host, pages opened on the token URL and waited for until the app (or the
// parity page) is up, and the teardown in the same order each suite used. Each suite still makes
// its own data dir, registry and build, so what it tests stays visible in the file.

import type { Browser, Page } from 'playwright-core';
import type { AppServices } from '../electron/services/app-services.ts';
import type { WebHost, WebHostOptions } from '../electron/server/web-host.ts';
import { startAppHost } from '../electron/testing/test-support.ts';
import { watchProblems } from './support.ts';

/** A page on the host and the console and page errors it has logged so far. */
export interface WatchedPage {
  readonly page: Page;
  readonly problems: string[];
}

export interface AppSession {
  readonly services: AppServices;
  readonly host: WebHost;
  /** Points the app at `registry` through the contract, as the Settings screen does. */
  useRegistry(registry: string): Promise<void>;
  /** A new page on the token URL, once the app's heading shows. */
  openApp(viewport?: { width: number; height: number }): Promise<WatchedPage>;
  /** A new page on the token URL of a host serving the parity build, once it says it is ready. */
  openParity(): Promise<WatchedPage>;
  /** Closes every browser context (the suite's pages), then the host, then the services. */
  close(): Promise<void>;
}

/**
 * The app's services over `dataDir` behind a web host serving `staticDir` (and `catalog` in place
 * of the services' own, for the parity page's kernel fixtures), with pages in `browser`.
 */
export async function startAppSession(
  browser: Browser,
  dataDir: string,
  staticDir: string,
  catalog?: WebHostOptions['catalog'],
  registryIndex?: string,
): Promise<AppSession> {
  const { services, host } = await startAppHost(dataDir, staticDir, catalog, registryIndex);
  const open = async (viewport?: { width: number; height: number }): Promise<WatchedPage> => {
    const page = await browser.newPage(viewport ? { viewport } : undefined);
    const problems = watchProblems(page);
    await page.goto(host.url);
    return { page, problems };
  };
  return {
    services,
    host,
    useRegistry: async (registry) => {
      const set = await services.dispatcher.handle('settings.setRegistry', { registry }, { face: 'test' });
      if (!set.ok) throw new Error(set.message);
    },
    openApp: async (viewport) => {
      const opened = await open(viewport);
      await opened.page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
      return opened;
    },
    openParity: async () => {
      const opened = await open();
      await opened.page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
      return opened;
    },
    close: async () => {
      for (const context of browser.contexts()) await context.close();
      await host.close();
      await services.dispose();
    },
  };
}
