// The run's module loader, the sandbox's import boundary: the engine asks it to name and then to
// load each import, and it answers only from the run's resolution (loader-policy.ts decides each
// import). A denied import becomes a receipt denial and an error the guest sees; nothing outside
// the resolution can ever be loaded, because the loader has nothing else to load.

import type { QuickJSRuntime } from 'quickjs-emscripten-core';
import type { KernelRunRequest, ReceiptDenial } from '../../protocol/run.ts';
import { ENTRY_MODULE_NAME } from './entry-transform.ts';
import { decideImport, type LoaderGraph } from './loader-policy.ts';
import type { RunState } from './run-state.ts';
import { reachedFrom, type ImageRecord } from '../supply/module-image.ts';
import type { IsolationRouting } from './isolation.ts';

/** Marker names the normalizer hands back for denied imports; reserved, so no module may use one. */
export const DENIED_PREFIX = 'denied:';

/**
 * `image`: the modules the sandbox holds evaluated already (module-image.ts; the run's own,
 * identical). The engine asks neither to name nor to load what such a module imports, so each is
 * recorded, with what it reaches, the first time the run imports it. The kernel's own modules
 * (the inputs module, the WASM bridge) are evaluated into every sandbox that has them and are
 * never loaded here.
 */
export function installModuleLoader(
  runtime: QuickJSRuntime,
  request: KernelRunRequest,
  graph: LoaderGraph,
  state: RunState,
  image?: ImageRecord,
  isolation?: IsolationRouting,
): void {
  const deniedNames = new Map<string, ReceiptDenial>();
  // Keyed by each module's own id, as receipts list them.
  const seen = (id: string) => state.modules.has(request.modules[id]?.moduleId ?? id);
  const record = (id: string) => {
    const module = request.modules[id]!;
    state.modules.set(module.moduleId, { moduleId: module.moduleId, displayName: module.displayName, digest: module.digest });
  };
  runtime.setModuleLoader(
    (moduleName, vm) => {
      const denial = deniedNames.get(moduleName);
      if (denial) return { error: new Error(denial.reason) };
      // An isolated context loads its own pack's modules only (isolation.ts).
      const modules = isolation?.contextOf(vm)?.modules ?? request.modules;
      const module = Object.hasOwn(modules, moduleName) ? modules[moduleName] : undefined;
      if (!module) {
        // The normalizer never produces such a name; the C side passes "" when a normalizer failed.
        const reason = `Import of ${JSON.stringify(moduleName)} was denied: it is not part of this run. This node's packages declaration is ${JSON.stringify(Object.keys(request.entries))}.`;
        state.deny({ kind: 'import', request: moduleName, from: 'unknown', code: 'import-denied', reason });
        return { error: new Error(reason) };
      }
      if (!seen(moduleName)) record(moduleName);
      return module.source;
    },
    (baseName, requestName, vm) => {
      const isolated = isolation?.contextOf(vm);
      // In an isolated context its entry imports its module, and the rest resolves within its own pack.
      const decision =
        isolated && baseName === isolated.entryName
          ? requestName === isolated.moduleId
            ? ({ ok: true, moduleId: requestName } as const)
            : ({ ok: false, code: 'import-denied', message: `Import of ${JSON.stringify(requestName)} was denied in an isolated module.` } as const)
          : decideImport(isolated ? isolated.graph : graph, baseName, requestName);
      if (decision.ok) {
        if (image) reachedFrom(image, decision.moduleId, seen, record);
        // The node's context reaches an isolated module only through its facade.
        return (isolated ? undefined : isolation?.facadeOf(decision.moduleId)) ?? decision.moduleId;
      }
      // Errors from a normalizer are lost by the C side, so deny through a unique marker name the
      // loader turns into the error. Unique per attempt: a denied name can never be cached.
      const marker = `${DENIED_PREFIX}${deniedNames.size}`;
      const from = baseName === ENTRY_MODULE_NAME ? "the node's code" : (graph.modules[baseName]?.displayName ?? baseName);
      const denial: ReceiptDenial = { kind: 'import', request: requestName, from, code: decision.code, reason: decision.message };
      deniedNames.set(marker, denial);
      state.deny(denial);
      return marker;
    },
  );
}
