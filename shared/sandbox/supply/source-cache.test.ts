// Module sources sent to a worker once (source-cache.ts): the host leaves out what the worker
// keeps, the worker fills it in, and a source the worker no longer keeps makes it ask for the run
// in full — never a run with a source the host did not send for that very module object.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type GuestModule, type KernelRunRequest } from '../../protocol/run.ts';
import { KeptSources, SentSources } from './source-cache.ts';

const module = (id: string, source: string): GuestModule => ({
  moduleId: id,
  kind: 'js',
  packName: '@t/p',
  packVersion: '1.0.0',
  displayName: id,
  source,
  imports: {},
  digest: 'd'.repeat(64),
});
const request = (...modules: GuestModule[]): KernelRunRequest => ({
  code: 'return 1',
  entries: {},
  modules: Object.fromEntries(modules.map((m) => [m.moduleId, m])),
  inputs: {},
  grants: NO_GRANTS,
  timeoutMs: 1000,
});
/** What the worker gets: a structured clone, as postMessage makes. */
const posted = (wire: ReturnType<SentSources['wire']>) => structuredClone(wire);

describe('module sources sent once', () => {
  it('sends a source in full the first time, then only its reference; the worker fills it in', () => {
    const sent = new SentSources();
    const kept = new KeptSources();
    const a = module('m_a', 'export const a = 1;\n');
    const first = posted(sent.wire(request(a)));
    expect(first.request.modules.m_a!.source).toBe(a.source);
    expect(kept.fill(first.request, first.sources)).toBe(true);
    const second = posted(sent.wire(request(a)));
    expect(second.request.modules.m_a!.source).toBe('');
    expect(second.sources!.m_a).toBeLessThan(0);
    expect(kept.fill(second.request, second.sources)).toBe(true);
    expect(second.request.modules.m_a!.source).toBe(a.source);
  });

  it('gives another module object its own reference, whatever its id and digest: nothing is filled in from another source', () => {
    const sent = new SentSources();
    const kept = new KeptSources();
    const a1 = module('m_a', 'export const a = 1;\n');
    const a2 = module('m_a', 'export const a = 2;\n');
    const first = posted(sent.wire(request(a1)));
    expect(kept.fill(first.request, first.sources)).toBe(true);
    const other = posted(sent.wire(request(a2)));
    expect(other.request.modules.m_a!.source).toBe(a2.source);
    expect(kept.fill(other.request, other.sources)).toBe(true);
    expect(other.request.modules.m_a!.source).toBe(a2.source);
  });

  it('asks for the run in full when a source it relies on is no longer kept, and the full run works again', () => {
    const sent = new SentSources();
    const kept = new KeptSources(30);
    const a = module('m_a', 'export const a = "0123456789";\n');
    const b = module('m_b', 'export const b = "0123456789";\n');
    const withA = posted(sent.wire(request(a)));
    expect(kept.fill(withA.request, withA.sources)).toBe(true);
    // Keeping b pushes a out (30 characters kept at most).
    const withB = posted(sent.wire(request(b)));
    expect(kept.fill(withB.request, withB.sources)).toBe(true);
    const again = posted(sent.wire(request(a)));
    expect(again.request.modules.m_a!.source).toBe('');
    expect(kept.fill(again.request, again.sources)).toBe(false);
    sent.forget();
    const full = posted(sent.wire(request(a)));
    expect(full.request.modules.m_a!.source).toBe(a.source);
    expect(kept.fill(full.request, full.sources)).toBe(true);
  });

  it('refuses references that do not name a module of the run, or are not whole numbers', () => {
    const kept = new KeptSources();
    expect(kept.fill(request(module('m_a', 'x')), { m_b: 1 })).toBe(false);
    expect(kept.fill(request(module('m_a', 'x')), { m_a: 0 })).toBe(false);
    expect(kept.fill(request(module('m_a', 'x')), { m_a: 1.5 })).toBe(false);
    expect(kept.fill(request(module('m_a', 'x')), undefined)).toBe(true);
  });
});
