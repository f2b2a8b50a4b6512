// What the module delivery route tells a browser besides a module's body, so the browser can run
// the module with the same kernel and recompute its module-graph digest before using it. The
// digest (shared/packs/digest.ts) hashes each source with its canonical graph id, kind and
// producer; the route sends those per module in one header, and the WASM binary (a graph source of
// a WASM entry) by the same opaque id with `?part=wasm`. No paths: graph ids name a pack's own
// files relative to the pack, exactly as the digest does.

import { z } from 'zod';
import { LIMITS } from './limits.ts';
import { WASM_TYPES, WasmBudgetsSchema } from './manifest.ts';

export const DELIVERY_DIGEST_HEADER = 'X-Sandbox-Module-Digest';
export const DELIVERY_DEPENDENCIES_HEADER = 'X-Sandbox-Module-Dependencies';
/** `encodeURIComponent(JSON.stringify(DeliveredModuleInfo))`. */
export const DELIVERY_GRAPH_HEADER = 'X-Sandbox-Module-Graph';

/** Which part of a module a delivery answers with. */
export const DELIVERY_PARTS = ['source', 'wasm'] as const;
export type DeliveryPart = (typeof DELIVERY_PARTS)[number];

export const GRAPH_SOURCE_KINDS = ['js', 'internal', 'npm-bundle', 'wasm-facade', 'wasm-binary', 'wasm-bridge'] as const;

/** One of a module's own graph sources; its content is the body, the WASM part, or the bridge text. */
export const DeliveredGraphSourceSchema = z
  .object({
    id: z.string().min(1).max(4096),
    kind: z.enum(GRAPH_SOURCE_KINDS),
    producer: z.record(z.string(), z.string()).optional(),
    content: z.enum(['source', 'wasm', 'bridge']),
  })
  .strict();
export type DeliveredGraphSource = z.infer<typeof DeliveredGraphSourceSchema>;

export const DeliveredModuleInfoSchema = z
  .object({
    /** The id the kernel's loader knows the module by (the catalog's module id). */
    moduleId: z.string().min(1).max(256),
    kind: z.enum(['js', 'wasm']),
    packName: z.string().max(256),
    packVersion: z.string().max(256),
    displayName: z.string().max(1024),
    /** Request string → module id, the loader's complete import map for this module. */
    imports: z.record(z.string(), z.string()),
    /** The sources this module adds to a graph digest (its dependencies add their own). */
    sources: z.array(DeliveredGraphSourceSchema).min(1).max(3),
    /** For a WASM entry: what the dispatcher needs besides the bytes. */
    wasm: z
      .object({
        // Each export with its validated types (the browser validates the binary against them again).
        exports: z
          .array(
            z
              .object({
                wasm: z.string().min(1).max(256),
                as: z.string().min(1).max(256),
                params: z.array(z.enum(WASM_TYPES)).max(LIMITS.wasmMaxParams).optional(),
                result: z.enum(WASM_TYPES).optional(),
              })
              .strict(),
          )
          .max(256),
        memoryPagesMax: z.number().int().min(0),
        budgets: WasmBudgetsSchema,
      })
      .strict()
      .optional(),
  })
  .strict();
export type DeliveredModuleInfo = z.infer<typeof DeliveredModuleInfoSchema>;
