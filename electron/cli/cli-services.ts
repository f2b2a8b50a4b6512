// The CLI as a third face of the service contract: one install root's services composed exactly as
// the app's are (services/compose-services.ts), called with `face: 'cli'`. A command builds a
// contract request from argv, calls it here, and prints the tagged result; the request schemas
// check CLI input exactly as they check the window's. What differs is what a one-shot command on
// any root needs, and it is said in the options below: nothing created or reconciled on open, the
// catalog discovered only when a call needs it, progress events as stderr lines, and the grants
// the contract does not carry (a workspace folder, secrets) travelling in the call context.

import type { FaceGrants } from '../../shared/contract/dispatcher.ts';
import type { MethodName, RequestOf, ValueOf } from '../../shared/contract/methods.ts';
import type { Result } from '../../shared/protocol/result.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { composeServices } from '../services/compose-services.ts';
import type { CliIo } from './command.ts';

export interface CliServicesOptions {
  /** --registry: the registry installs and search use (the installer remembers it per root). */
  readonly registry?: string;
  /** --index: the registry index packs.search merges with; the bundled one by default. */
  readonly registryIndex?: string;
  /** --wait: how long an operation waits for another one on the same root (default 0: busy at once). */
  readonly lockWaitMs?: number;
}

export interface CliServices {
  readonly root: string;
  /** Dispatch one contract call as the CLI; `grants` are the CLI-only capabilities for code.run. */
  call<M extends MethodName>(method: M, request: RequestOf<M>, grants?: FaceGrants): Promise<Result<ValueOf<M>>>;
  /** Discover the root now (a command that reads the catalog opens it first, so an unreadable root is its own answer). */
  openCatalog(): Promise<Result<DiscoveryCatalog, 'root-unreadable'>>;
  close(): Promise<void>;
}

export async function openCliServices(root: string, io: Pick<CliIo, 'err'>, options: CliServicesOptions = {}): Promise<CliServices> {
  // A bug in a handler is a bug in sandbox-packs: the command reports it as one (main.ts). A list
  // answered without the rows that broke the contract is one too, but the command still has its
  // answer to print, so it is said on stderr and the command goes on.
  const bugs: unknown[] = [];
  const composed = await composeServices({
    dataDir: root,
    open: 'as-is',
    catalog: 'lazy',
    registry: { ...(options.registry ? { given: options.registry } : {}) },
    ...(options.registryIndex ? { registryIndex: options.registryIndex } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    // One command runs at a time: one sandbox worker and one WASM lane are enough.
    runner: { sandboxWorkers: 1, wasmLanes: 1 },
    // A settings or workflow file found damaged is repaired as it is read; the user is told here.
    onRepaired: (sentence) => io.err(`[repair] ${sentence}`),
    // Not redacted: the CLI prints to the person who named the root (--root, or their own data
    // directory) on their own terminal, and the path is what they act on ("the disk holding the
    // install root /mnt/x is full", "…/package.json could not be read"). What other clients see —
    // a window, a browser tab, an agent over MCP (`serve`, `mcp`) — goes through the app services,
    // which redact.
    redactPaths: false,
    dispatcher: {
      onBug: (_method, error) => bugs.push(error),
      onRowsRepaired: (_method, violation) => io.err(`${violation.message}. This is a bug in sandbox-packs; please report it with the command you ran.`),
    },
  });
  // 'lazy' discovers nothing on open, so composing cannot fail on an unreadable root.
  if (!composed.ok) throw new Error(`the CLI's services could not be composed: ${composed.code}: ${composed.message}`);
  const services = composed.value;
  // The stage lines a person watches; a failure is printed once, by the command, from the result.
  services.events.subscribe((event) => {
    if (event.type === 'install-progress' && event.stage !== 'failed') io.err(`[${event.stage}] ${event.message}`);
  });

  return {
    root,
    async call(method, request, grants) {
      const result = await services.dispatcher.handle(method, request, { face: 'cli', ...(grants ? { grants } : {}) });
      const bug = bugs.shift();
      if (bug !== undefined) throw bug;
      // The dispatcher has parsed the answer against this method's contract already.
      return result as Result<ValueOf<typeof method>>;
    },
    openCatalog: () => services.openCatalog(),
    close: () => services.dispose(),
  };
}

/** Open the services for one command, and close them (the worker pools a run started) however it ends. */
export async function withCliServices<T>(
  root: string,
  io: Pick<CliIo, 'err'>,
  options: CliServicesOptions,
  use: (services: CliServices) => Promise<T>,
): Promise<T> {
  const services = await openCliServices(root, io, options);
  try {
    return await use(services);
  } finally {
    await services.close();
  }
}
