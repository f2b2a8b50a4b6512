// `sandbox-packs serve`: the web host — the same renderer and service contract the desktop window
// uses, for a browser on this machine. It prints the URL carrying this launch's access token and
// runs until interrupted; Ctrl-C closes the server and every connection before exiting. The
// default data directory's first run seeds the shipped packs behind the served app, so the
// address is printed at once (electron/first-run/background.ts).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { createAppServices } from '../../services/app-services.ts';
import { startWebHost } from '../../server/web-host.ts';
import { assetPath } from '../../platform/assets.ts';
import { seedDataDirInBackground } from '../../first-run/index.ts';
import { EXIT, UsageError, type CliCommand } from '../command.ts';
import { parseCliArgs, rootOf } from '../args.ts';
import { usageText } from '../usage.ts';

const OPTIONS = {
  root: { kind: 'string', value: 'DIR', help: 'data directory / install root (default: the app data directory, or SANDBOX_PACKS_ROOT)' },
  port: { kind: 'string', value: 'N', help: 'port to listen on (default 0: a free port)' },
} as const;

const USAGE = usageText({
  synopsis: 'serve',
  about: [
    'Serves the app to a browser on 127.0.0.1 and prints the address to open (it carries a',
    'per-launch access token; anyone with the address can use the app until it stops).',
  ],
  options: OPTIONS,
  footer: ['The default data directory is seeded with the shipped packs and an example workflow on first start.'],
});

/** Where `npm run web` puts the renderer build (scripts/build-renderer.mjs). */
export const RENDERER_BUILD = assetPath('renderer');

export interface ServeArgs {
  readonly root?: string;
  readonly port: number;
}

export function parseServeArgs(args: readonly string[]): ServeArgs {
  const { values } = parseCliArgs(args, OPTIONS, { positionals: false });
  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${values.port}".`);
    port = Number(values.port);
  }
  return { ...(values.root !== undefined ? { root: values.root } : {}), port };
}

export const serve: CliCommand = {
  name: 'serve',
  summary: 'Serve the app to a browser on 127.0.0.1 (prints the address to open)',
  options: OPTIONS,
  usage: USAGE,
  async run(args, io) {
    const parsed = parseServeArgs(args);
    const dataDir = rootOf(parsed.root, io);
    const services = await createAppServices({
      dataDir,
      onBug: (where, error) => io.err(`bug in ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    });
    if (!services.ok) {
      io.err(`${services.code}: ${services.message}`);
      return EXIT.failed;
    }
    // The app's own data directory gets the shipped packs and the example on its first start,
    // behind the served app; a root given with --root is the caller's to manage (`sandbox-packs
    // first-run` seeds one).
    const seeding =
      parsed.root === undefined
        ? await seedDataDirInBackground(dataDir, services.value, (text, state) => (state === 'failed' ? io.err(text) : io.out(text)))
        : undefined;
    const staticDir = existsSync(path.join(RENDERER_BUILD, 'index.html')) ? RENDERER_BUILD : undefined;
    let host;
    try {
      host = await startWebHost({
        dispatcher: services.value.dispatcher,
        events: services.value.events,
        catalog: services.value.catalog,
        port: parsed.port,
        ...(staticDir ? { staticDir } : {}),
        onBug: (where, error) => io.err(`bug in ${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
      });
    } catch (error) {
      seeding?.close();
      await services.value.dispose();
      io.err(`The web host could not listen on 127.0.0.1:${parsed.port}: ${(error as Error).message}`);
      return EXIT.failed;
    }
    if (!staticDir) io.err('The renderer is not built, so only the API is served. `npm run web` builds it first.');
    io.out(`Sandbox Packs is serving ${dataDir}`);
    io.out(`Open ${host.url}`);
    io.out('Press Ctrl-C to stop.');
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    try {
      seeding?.close();
      await host.close();
    } finally {
      await services.value.dispose();
    }
    io.out(`Stopped (${signal}).`);
    return EXIT.ok;
  },
};
