// The one translation of a run into the kernel's request: the deadline defaulted and clamped
// here, the WASM bridge id left for the kernel to supply, and a frozen resolution's guest view
// built once and shared (the hot-path cache), an unfrozen one copied each time.
import { describe, expect, it } from 'vitest';
import type { ExecutableModule } from './catalog.ts';
import { toKernelRequest } from './kernel-request.ts';
import { LIMITS } from './limits.ts';
import { NO_GRANTS } from './run.ts';
import { WASM_BRIDGE_MODULE_ID } from './wasm-bridge.ts';

/** A catalog module as the resolution holds it, with the fields the guest never sees. */
const jsModule = (name: string): ExecutableModule => ({
  moduleId: `js:${name}`,
  kind: 'js',
  packName: `@acme/${name}`,
  packVersion: '1.2.0',
  specifier: `@acme/${name}`,
  displayName: `@acme/${name}`,
  source: 'export const v = 1;\n',
  imports: {},
  digest: 'a'.repeat(64),
  graphSources: [],
});
const reporter = jsModule('reporter');

describe('toKernelRequest', () => {
  it('defaults and clamps the deadline, grants nothing by default, and keeps the partition', () => {
    const empty = { entries: {}, modules: {} };
    expect(toKernelRequest({ code: '1', resolution: empty })).toEqual({
      code: '1',
      entries: {},
      modules: {},
      inputs: {},
      grants: NO_GRANTS,
      timeoutMs: LIMITS.guestTimeoutMs,
    });
    expect(toKernelRequest({ code: '1', resolution: empty, timeoutMs: 10 ** 9 }).timeoutMs).toBe(LIMITS.guestTimeoutMs);
    expect(toKernelRequest({ code: '1', resolution: empty, timeoutMs: 250, partition: 'cli' })).toMatchObject({ timeoutMs: 250, partition: 'cli' });
  });

  it('leaves out the WASM bridge module and every field the guest does not see', () => {
    const bridge = { ...reporter, moduleId: WASM_BRIDGE_MODULE_ID };
    const request = toKernelRequest({ code: '1', resolution: { entries: {}, modules: { 'js:reporter': reporter, [WASM_BRIDGE_MODULE_ID]: bridge } } });
    expect(request.modules).toStrictEqual({
      'js:reporter': {
        moduleId: 'js:reporter',
        kind: 'js',
        packName: '@acme/reporter',
        packVersion: '1.2.0',
        displayName: '@acme/reporter',
        source: reporter.source,
        imports: {},
        digest: reporter.digest,
      },
    });
  });

  it("builds a frozen resolution's guest modules once and shares them; an unfrozen one is copied each time", () => {
    const frozen = { entries: { '@acme/reporter': 'js:reporter' }, modules: Object.freeze({ 'js:reporter': reporter }) };
    const first = toKernelRequest({ code: '1', resolution: frozen });
    expect(toKernelRequest({ code: '2', resolution: frozen }).modules).toBe(first.modules);
    expect(Object.isFrozen(first.modules) && Object.isFrozen(first.modules['js:reporter']!.imports)).toBe(true);

    const open: { entries: Record<string, string>; modules: Record<string, ExecutableModule> } = { entries: {}, modules: { 'js:reporter': reporter } };
    const before = toKernelRequest({ code: '1', resolution: open });
    open.modules['js:reporter'] = { ...reporter, source: 'export const changed = 1;\n' };
    const after = toKernelRequest({ code: '1', resolution: open });
    expect(after.modules).not.toBe(before.modules);
    expect(after.modules['js:reporter']!.source).toBe('export const changed = 1;\n');
  });
});
