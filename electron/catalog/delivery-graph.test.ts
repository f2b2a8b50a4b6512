// The delivery extension for the browser runner: from what authorizeDelivery hands a browser
// (bodies, the WASM part, graph sources and dependency ids) every ready module's digest can be
// recomputed with the shared digest function, and a changed byte anywhere in the closure changes it.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalGraphBytes, type GraphSource } from '../../shared/packs/digest.ts';
import type { AuthorizedSandboxModuleDelivery } from '../../shared/protocol/catalog.ts';
import { wasmBridgeModuleSource } from '../../shared/packs/wasm-facade.ts';
import { openCatalog } from './catalog.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery/good');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const browser = { kind: 'browser' as const, origin: 'http://127.0.0.1' };

describe('delivery graph information', () => {
  it('lets a browser recompute the digest of every ready module, WASM entries included', async () => {
    const opened = await openCatalog({ root });
    if (!opened.ok) throw new Error(opened.message);
    const catalog = opened.value;
    const ready = catalog.summaries().filter((s) => s.status === 'ready');
    expect(ready.some((s) => s.kind === 'wasm')).toBe(true);

    const delivered = new Map<string, { source: AuthorizedSandboxModuleDelivery; wasm?: Uint8Array }>();
    const fetchAll = async (id: string): Promise<void> => {
      if (delivered.has(id)) return;
      const source = await catalog.authorizeDelivery(id, browser);
      if (!source.ok) throw new Error(source.message);
      const entry: { source: AuthorizedSandboxModuleDelivery; wasm?: Uint8Array } = { source };
      if (source.graph?.kind === 'wasm') {
        const wasm = await catalog.authorizeDelivery(id, browser, 'wasm');
        if (!wasm.ok || typeof wasm.body === 'string') throw new Error('no WASM part');
        expect(wasm.mediaType).toBe('application/wasm');
        expect(wasm.digest).toBe(source.digest);
        entry.wasm = wasm.body;
      }
      delivered.set(id, entry);
      for (const dep of source.dependencies) await fetchAll(dep);
    };
    const closure = (id: string): GraphSource[] => {
      const out = new Map<string, GraphSource>();
      const stack = [id];
      const seen = new Set<string>();
      while (stack.length) {
        const at = stack.pop() as string;
        if (seen.has(at)) continue;
        seen.add(at);
        const { source, wasm } = delivered.get(at) as { source: AuthorizedSandboxModuleDelivery; wasm?: Uint8Array };
        for (const s of source.graph?.sources ?? []) {
          const content = s.content === 'source' ? (source.body as string) : s.content === 'wasm' ? (wasm as Uint8Array) : wasmBridgeModuleSource();
          out.set(s.id, { id: s.id, kind: s.kind, content, ...(s.producer ? { producer: s.producer } : {}) });
        }
        stack.push(...source.dependencies);
      }
      return [...out.values()];
    };
    for (const summary of ready) {
      await fetchAll(summary.moduleId as string);
      expect(sha256(canonicalGraphBytes(closure(summary.moduleId as string)))).toBe(summary.digest);
    }
    // The bridge is never a dependency to fetch (the kernel supplies it; the facade's digest covers it).
    for (const { source } of delivered.values()) expect(source.dependencies).not.toContain('sandbox:wasm-bridge');
    // A WASM part of a JS module does not exist.
    const js = ready.find((s) => s.kind === 'js')?.moduleId as string;
    expect(await catalog.authorizeDelivery(js, browser, 'wasm')).toEqual({
      ok: false,
      code: 'not-found',
      message: expect.stringContaining('is not a WASM module'),
    });
    // A one-byte change in a dependency's body changes the root's recomputed digest.
    const withDeps = ready.find((s) => (delivered.get(s.moduleId as string)?.source.dependencies.length ?? 0) > 0);
    expect(withDeps).toBeDefined();
    const depId = delivered.get(withDeps?.moduleId as string)?.source.dependencies[0] as string;
    const dep = delivered.get(depId) as { source: AuthorizedSandboxModuleDelivery; wasm?: Uint8Array };
    delivered.set(depId, { ...dep, source: { ...dep.source, body: `${String(dep.source.body)} ` } });
    expect(sha256(canonicalGraphBytes(closure(withDeps?.moduleId as string)))).not.toBe(withDeps?.digest);
  });
});
