// First run behind an open window. Seeding the shipped packs takes a few seconds (one npm run and
// a discovery); the window and `serve`'s address must not wait for it. So the faces start the app
// services first and hand them to this: the seeding runs, each step goes out as a
// `first-run-progress` event (repeated while it runs, so a window or browser that connects
// mid-way shows it too), and when it is done the catalog is reloaded and `catalog-changed` sent,
// which refreshes every open screen.
//
// Invariant: until then every caller that needs a pack still being seeded is answered `busy`,
// never `unknown-specifier` (`seedInBackground`).

import type { ContractEvent, EventHub } from '../../shared/contract/events.ts';
import { fail, type Result } from '../../shared/protocol/result.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import type { FirstRunReport } from './first-run.ts';

/** How often the current step is repeated while seeding runs. */
const HEARTBEAT_MS = 1_000;

/** The sentence a run gets for a pack that is still being seeded (tested word for word). */
export function stillSettingUp(packName: string): string {
  return `${packName} is still being set up: the app is installing the packs it comes with on this first start. Run the node again in a moment.`;
}

export const FIRST_RUN_MESSAGES = {
  started: 'Setting up the packs that come with the app…',
  step: (what: string) => `Setting up the packs that come with the app: ${what}…`,
  checking: "Setting up the packs that come with the app: checking the packs' modules…",
  done: 'The packs that come with the app are ready.',
  failed: (code: string, message: string) =>
    `The packs that come with the app could not be set up (${code}): ${message} The app works without them; the next start tries again.`,
} as const;

export interface SeedingServices {
  readonly catalog: Pick<DiscoveryCatalog, 'reload' | 'holdForSetup'>;
  readonly events: EventHub;
}

export interface BackgroundSeedingOptions {
  readonly services: SeedingServices;
  /** The seeding itself (seedDataDir, or a test's runFirstRun), reporting each step. */
  readonly seed: (onProgress: (message: string) => void) => Promise<Result<FirstRunReport>>;
  /** The package names being seeded: the catalog answers `busy` for them until the seeding is over. */
  readonly packNames: readonly string[];
  /** Each step as a line of text (serve prints them, the Electron main process logs them). */
  readonly onMessage?: (text: string, state: 'running' | 'done' | 'failed') => void;
}

export interface BackgroundSeeding {
  /** Settles once seeding and the catalog reload after it have finished; never rejects. */
  readonly done: Promise<Result<FirstRunReport>>;
  isRunning(): boolean;
  /** Stops repeating the progress event (the seeding itself finishes on its own or on the next start). */
  close(): void;
}

/**
 * Starts the seeding behind the open faces. Until it is over a Code node that imports a pack still
 * being seeded would fail with `unknown-specifier` ("install the pack"), which is wrong advice: the
 * catalog holds the seeded packs for setup (catalog.ts holdForSetup), so every caller — a run, a
 * validation — is answered `busy` with a sentence saying the pack is still being set up.
 */
export function seedInBackground(options: BackgroundSeedingOptions): BackgroundSeeding {
  const { services, packNames } = options;
  const release = services.catalog.holdForSetup(packNames, stillSettingUp);
  let running = true;
  let current: ContractEvent = { type: 'first-run-progress', state: 'running', message: FIRST_RUN_MESSAGES.started };
  const announce = (event: ContractEvent): void => {
    current = event;
    if (event.type === 'first-run-progress') options.onMessage?.(event.message, event.state);
    services.events.emit(event);
  };
  announce(current);
  const heartbeat = setInterval(() => {
    if (running) services.events.emit(current);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const finish = (event: ContractEvent): void => {
    running = false;
    release();
    clearInterval(heartbeat);
    announce(event);
  };

  const done = (async (): Promise<Result<FirstRunReport>> => {
    try {
      const result = await options.seed((message) => announce({ type: 'first-run-progress', state: 'running', message: FIRST_RUN_MESSAGES.step(message) }));
      if (!result.ok) {
        finish({ type: 'first-run-progress', state: 'failed', message: FIRST_RUN_MESSAGES.failed(result.code, result.message) });
        return result;
      }
      announce({ type: 'first-run-progress', state: 'running', message: FIRST_RUN_MESSAGES.checking });
      const reloaded = await services.catalog.reload();
      if (reloaded.ok) {
        services.events.emit({
          type: 'catalog-changed',
          reason: 'reload',
          packCount: reloaded.value.packs,
          moduleCount: reloaded.value.readyModules + reloaded.value.skippedModules,
        });
      }
      finish({ type: 'first-run-progress', state: 'done', message: FIRST_RUN_MESSAGES.done });
      return result;
    } catch (error) {
      // A broken build (a staged tarball missing) is a bug, but the app keeps running without the packs.
      const failure = fail('internal', `first run stopped: ${(error as Error).message}`);
      finish({ type: 'first-run-progress', state: 'failed', message: FIRST_RUN_MESSAGES.failed(failure.code, failure.message) });
      return failure;
    }
  })();

  return {
    done,
    isRunning: () => running,
    close() {
      clearInterval(heartbeat);
    },
  };
}
