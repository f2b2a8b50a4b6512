// Events main pushes to every connected face (IPC window, SSE clients). Typed as data like the
// methods, parsed on the receiving side, and delivered through a tiny hub that owns nothing but
// its listener set — a throwing listener cannot break delivery to the others.

import { z } from 'zod';
import { OperationIdSchema } from './pack-schemas.ts';

/**
 * The one list of install stages: the installer reports them (electron/install/root-ops.ts), the
 * handlers add `failed`, and the renderer labels each running one. `waiting`: another operation
 * holds the root's lock; `repairing`: an operation that was interrupted (a killed process) is
 * being rolled back or finished first, each repair one message; `compiling` is the new pack's
 * discovery before it is recorded; `rebuilding` is a trusted pack's install scripts running;
 * `removing` is an uninstall's npm run.
 */
export const INSTALL_STAGES = [
  'waiting',
  'repairing',
  'resolving',
  'fetching',
  'classifying',
  'compiling',
  'rebuilding',
  'removing',
  'done',
  'failed',
] as const;
export type InstallStage = (typeof INSTALL_STAGES)[number];

export const InstallProgressEventSchema = z.object({
  type: z.literal('install-progress'),
  operationId: OperationIdSchema.optional(),
  operation: z.enum(['install', 'update', 'uninstall', 'trust', 'rebuild']),
  stage: z.enum(INSTALL_STAGES),
  message: z.string().max(2000),
});

export const CatalogChangedEventSchema = z.object({
  type: z.literal('catalog-changed'),
  /** Why the catalog was reloaded. */
  reason: z.enum(['install', 'update', 'uninstall', 'trust', 'rebuild', 'reload']),
  packCount: z.number().int().min(0),
  moduleCount: z.number().int().min(0),
});

/**
 * The first start seeds the data directory with the shipped packs behind the open window. Sent at
 * each step and repeated while it runs, so a window or browser that connects mid-way shows it too.
 */
export const FirstRunProgressEventSchema = z.object({
  type: z.literal('first-run-progress'),
  state: z.enum(['running', 'done', 'failed']),
  message: z.string().max(2000),
});

export const ContractEventSchema = z.discriminatedUnion('type', [InstallProgressEventSchema, CatalogChangedEventSchema, FirstRunProgressEventSchema]);
export type ContractEvent = z.infer<typeof ContractEventSchema>;
export type ContractEventListener = (event: ContractEvent) => void;
export type Unsubscribe = () => void;

export interface EventHub {
  emit(event: ContractEvent): void;
  subscribe(listener: ContractEventListener): Unsubscribe;
  readonly listenerCount: number;
}

export function createEventHub(onListenerError: (error: unknown) => void = () => {}): EventHub {
  const listeners = new Set<ContractEventListener>();
  return {
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
    subscribe(listener) {
      // Wrap so the same function subscribed twice gets two independent unsubscribes.
      const entry: ContractEventListener = (event) => listener(event);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    get listenerCount() {
      return listeners.size;
    },
  };
}
