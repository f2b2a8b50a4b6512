// Serves kernel contract fixture files over the real delivery route, the way the catalog serves
// packs: each fixture module gets an opaque delivery id, graph sources and a real module-graph
// digest over its import closure, so the browser runner fetches and verifies fixture modules
// exactly like installed ones. Fixture module ids ("js:geo/lib/math.js") are not route-safe, so
// the delivery id is derived from the file and module id; the kernel still sees the fixture's id
// (the delivered graph info carries it), so receipts and messages match the Node runs.
//
// `tamper` makes the catalog serve a changed body under the unchanged digest, for the refusal tests.

import { createHash } from 'node:crypto';
import { graphClosure, moduleGraphDigest, type GraphSource } from '../shared/packs/digest.ts';
import type { AuthorizedSandboxModuleDelivery, SandboxModuleDelivery } from '../shared/protocol/catalog.ts';
import type { DeliveredModuleInfo, DeliveryPart } from '../shared/protocol/delivery.ts';
import { fail } from '../shared/protocol/result.ts';
import { fixtureExecutableModules, type FixtureFile } from '../shared/testing/kernel-fixture.ts';
import { BRIDGE_GRAPH_SOURCE } from '../shared/packs/pack-graph.ts';
import { WASM_BRIDGE_MODULE_ID } from '../shared/protocol/wasm-bridge.ts';
import type { DeliveryCatalog } from '../electron/server/module-delivery.ts';

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface FixtureDelivery {
  readonly catalog: DeliveryCatalog;
  /** Specifier → delivery id and digest, for every entry of a fixture file. */
  entries(fileName: string): Record<string, { moduleId: string; digest: string }>;
  /** The delivery id of one fixture module. */
  deliveryId(fileName: string, moduleId: string): string;
}

export interface FixtureDeliveryOptions {
  /** Body replacements by delivery id (the digest stays the honest one). */
  readonly tamper?: ReadonlyMap<string, string>;
}

export function fixtureDelivery(files: ReadonlyMap<string, FixtureFile>, options: FixtureDeliveryOptions = {}): FixtureDelivery {
  const deliveryId = (fileName: string, moduleId: string) => `f_${sha256Hex(new TextEncoder().encode(`${fileName}\u0000${moduleId}`)).slice(0, 32)}`;
  const records = new Map<string, AuthorizedSandboxModuleDelivery>();
  const binaries = new Map<string, Uint8Array>();
  const entryIds = new Map<string, Record<string, { moduleId: string; digest: string }>>();
  for (const [fileName, file] of files) {
    const executable = fixtureExecutableModules(file);
    // A WASM module with a binary adds it and the bridge to its graph, as pack-graph.ts does.
    const own = (moduleId: string): (GraphSource & { part: 'source' | 'wasm' | 'bridge' })[] => {
      const module = executable[moduleId];
      if (!module) throw new Error(`${fileName}: ${moduleId} is imported but not defined`);
      const id = `fixture:${fileName}/${moduleId}`;
      if (!module.wasm) return [{ id, kind: module.kind === 'wasm' ? 'wasm-facade' : 'js', content: module.source, part: 'source' }];
      return [
        { id, kind: 'wasm-facade', content: module.source, producer: { ...BRIDGE_GRAPH_SOURCE.producer }, part: 'source' },
        { id: `${id}#wasm`, kind: 'wasm-binary', content: module.wasm.bytes, part: 'wasm' },
        { ...BRIDGE_GRAPH_SOURCE, part: 'bridge' },
      ];
    };
    const deps = (moduleId: string) => [...new Set(Object.values(file.modules[moduleId]?.imports ?? {}))].filter((id) => id !== WASM_BRIDGE_MODULE_ID);
    const closure = (root: string): GraphSource[] => graphClosure(root, own, deps);
    for (const module of Object.values(file.modules)) {
      const graph: { -readonly [K in keyof DeliveredModuleInfo]: DeliveredModuleInfo[K] } = {
        moduleId: module.moduleId,
        kind: module.kind,
        packName: module.packName,
        packVersion: module.packVersion,
        displayName: module.displayName,
        imports: { ...module.imports },
        sources: own(module.moduleId).map((s) => ({ id: s.id, kind: s.kind, ...(s.producer ? { producer: { ...s.producer } } : {}), content: s.part })),
      };
      const wasm = executable[module.moduleId]?.wasm;
      if (wasm) {
        graph.wasm = {
          exports: wasm.exports.map((e) => ({ wasm: e.wasm, as: e.as, params: [...e.params], ...(e.results[0] ? { result: e.results[0] } : {}) })),
          memoryPagesMax: wasm.memoryPagesMax,
          budgets: { ...wasm.budgets },
        };
        binaries.set(deliveryId(fileName, module.moduleId), wasm.bytes);
      }
      const id = deliveryId(fileName, module.moduleId);
      records.set(id, {
        ok: true,
        moduleId: id,
        mediaType: 'text/javascript',
        body: options.tamper?.get(id) ?? module.source,
        digest: moduleGraphDigest(closure(module.moduleId), sha256Hex),
        dependencies: deps(module.moduleId)
          .map((dep) => deliveryId(fileName, dep))
          .sort(),
        graph,
      });
    }
    const entries: Record<string, { moduleId: string; digest: string }> = {};
    for (const [specifier, moduleId] of Object.entries(file.entries)) {
      const id = deliveryId(fileName, moduleId);
      entries[specifier] = { moduleId: id, digest: (records.get(id) as AuthorizedSandboxModuleDelivery).digest };
    }
    entryIds.set(fileName, entries);
  }
  return {
    catalog: {
      async authorizeDelivery(moduleId: string, _principal: unknown, part?: DeliveryPart): Promise<SandboxModuleDelivery> {
        const record = records.get(moduleId);
        if (!record) return fail('not-found', `No module with id "${moduleId}" is in the fixture catalog.`);
        if (part !== 'wasm') return record;
        const bytes = binaries.get(moduleId);
        if (!bytes) return fail('not-found', `${record.graph?.displayName ?? moduleId} is not a WASM module with a binary.`);
        return { ...record, mediaType: 'application/wasm', body: bytes };
      },
    },
    entries: (fileName) => entryIds.get(fileName) ?? {},
    deliveryId,
  };
}
