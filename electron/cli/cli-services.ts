// The CLI as a third face of the service contract: one install root's handlers — the same
// packHandlers, catalogHandlers, codeHandlers, settings and workflow handlers the app composes in
// services/app-services.ts — behind the same dispatcher (shared/contract/dispatcher.ts), called
// with `face: 'cli'`. A command builds a contract request from argv, calls it here, and prints the
// tagged result; the request schemas check CLI input exactly as they check the window's.
//
// What differs from the app is what a one-shot command on any root needs: nothing is created or
// reconciled on open (an install of a bad spec leaves a missing root missing), the catalog is
// discovered only when a call needs it, progress events become stderr lines, and the grants the
// contract does not carry (a workspace folder, secrets) travel in the call context.

import { createDispatcher, type FaceGrants, type Handlers } from '../../shared/contract/dispatcher.ts';
import { createEventHub } from '../../shared/contract/events.ts';
import type { MethodName, RequestOf, ValueOf } from '../../shared/contract/methods.ts';
import { trustCovers } from '../../shared/protocol/ledger.ts';
import type { Result } from '../../shared/protocol/result.ts';
import { WorkflowSchema } from '../../shared/protocol/workflow.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { readLedger } from '../install/ledger-store.ts';
import { catalogHandlers } from '../services/catalog-handlers.ts';
import { codeHandlers } from '../services/code-handlers.ts';
import { createCodeRunner } from '../services/code-runner.ts';
import { packHandlers } from '../services/pack-handlers.ts';
import { settingsHandlers } from '../services/settings-handlers.ts';
import { createSettingsStore } from '../services/settings-store.ts';
import { workflowHandlers } from '../services/workflow-handlers.ts';
import { createWorkflowStore } from '../services/workflow-store.ts';
import { openRootCatalog } from '../validation/root-catalog.ts';
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

export function openCliServices(root: string, io: Pick<CliIo, 'err'>, options: CliServicesOptions = {}): CliServices {
  const catalog = onDemandCatalog(root);
  const events = createEventHub();
  // The stage lines a person watches; a failure is printed once, by the command, from the result.
  events.subscribe((event) => {
    if (event.type === 'install-progress' && event.stage !== 'failed') io.err(`[${event.stage}] ${event.message}`);
  });
  // A settings or workflow file found damaged is repaired as it is read; the user is told here.
  const onRepaired = (sentence: string): void => io.err(`[repair] ${sentence}`);
  const runner = createCodeRunner(catalog.view, { sandboxWorkers: 1, wasmLanes: 1 });
  const isTrusted = async (packName: string): Promise<boolean> => {
    const read = await readLedger(root);
    const record = read.ok ? read.value?.packs[packName] : undefined;
    return record !== undefined && trustCovers(record);
  };
  const handlers: Handlers = {
    ...packHandlers({
      root,
      catalog: catalog.view,
      events,
      registry: async () => options.registry,
      ...(options.registryIndex ? { registryIndex: options.registryIndex } : {}),
      ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    }),
    ...catalogHandlers({ catalog: catalog.view, isTrusted, reconcile: () => null }),
    ...settingsHandlers(createSettingsStore(root, {}, { onRepaired })),
    ...codeHandlers(runner, catalog.view),
    ...workflowHandlers(createWorkflowStore(root, WorkflowSchema, { onRepaired })),
  };
  // A bug in a handler is a bug in sandbox-packs: the command reports it as one (main.ts). A list
  // answered without the rows that broke the contract is one too, but the command still has its
  // answer to print, so it is said on stderr and the command goes on.
  const bugs: unknown[] = [];
  const dispatcher = createDispatcher(handlers, {
    onBug: (_method, error) => bugs.push(error),
    onRowsRepaired: (_method, violation) => io.err(`${violation.message}. This is a bug in sandbox-packs; please report it with the command you ran.`),
  });

  return {
    root,
    async call(method, request, grants) {
      const result = await dispatcher.handle(method, request, { face: 'cli', ...(grants ? { grants } : {}) });
      const bug = bugs.shift();
      if (bug !== undefined) throw bug;
      // The dispatcher has parsed the answer against this method's contract already.
      return result as Result<ValueOf<typeof method>>;
    },
    openCatalog: () => catalog.open(),
    close: () => runner.close(),
  };
}

/**
 * A DiscoveryCatalog that discovers the root on first need: `reload` and `examine` (an install,
 * an update) open it themselves; the synchronous reads need `open()` first — reading before is a
 * bug in the command, not a user's mistake.
 */
function onDemandCatalog(root: string): { view: DiscoveryCatalog; open(): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> } {
  let opened: Promise<Result<DiscoveryCatalog, 'root-unreadable'>> | undefined;
  let current: DiscoveryCatalog | undefined;
  const open = (): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> => {
    opened ??= openRootCatalog(root).then((result) => {
      if (result.ok) current = result.value;
      else opened = undefined;
      return result;
    });
    return opened;
  };
  const ready = (): DiscoveryCatalog => {
    if (!current) throw new Error('the catalog was read before the command opened it');
    return current;
  };
  const view: DiscoveryCatalog = {
    root,
    summaries: () => ready().summaries(),
    diagnostics: () => ready().diagnostics(),
    resolveForExecution: (declarations) => ready().resolveForExecution(declarations),
    authorizeDelivery: (moduleId, principal, part) => ready().authorizeDelivery(moduleId, principal, part),
    skillDoc: (packName) => ready().skillDoc(packName),
    snapshot: () => ready().snapshot(),
    async reload() {
      if (!current) {
        const first = await open();
        if (!first.ok) return first;
      }
      return ready().reload();
    },
    async examine(packName) {
      const first = await open();
      return first.ok ? first.value.examine(packName) : first;
    },
  };
  return { view, open };
}

/** A failure of the request itself (argv made into a request the contract refuses) is bad usage. */
export function isUsageFailure(result: Result<unknown>): boolean {
  return !result.ok && (result.code === 'usage' || result.code === 'invalid-request');
}

/** Open the services for one command, and close them (the worker pools a run started) however it ends. */
export async function withCliServices<T>(
  root: string,
  io: Pick<CliIo, 'err'>,
  options: CliServicesOptions,
  use: (services: CliServices) => Promise<T>,
): Promise<T> {
  const services = openCliServices(root, io, options);
  try {
    return await use(services);
  } finally {
    await services.close();
  }
}
