// Test support for the npm compiler's suites: a fresh fixture root per test (fixture-root.ts),
// compiling one `npm` field as the only module of a pack with the real compiler, and the exports
// a bundle really has in the real engine (the admission probe). One shape for every suite, so a
// change to how the compiler is called is made once.

import { afterAll, afterEach, beforeEach } from 'vitest';
import { createNpmCompiler, type NpmCompiler } from '../compiler/npm-compiler.ts';
import { createProbe, type Probe } from '../compiler/probe.ts';
import { createFixtureRoot, type FixtureRoot } from './fixture-root.ts';

export interface CompilerFixture {
  /** This test's root (made before each test, removed after it). */
  readonly fx: FixtureRoot;
  /** Compile `npmName` as the one module of pack `packName` in this test's root. */
  compileFrom(npmName: string, packName?: string): Promise<{ result: Awaited<ReturnType<NpmCompiler['compile']>>; compiler: NpmCompiler; packDir: string }>;
  /** Exports of a compiled bundle as the real engine sees them (it must initialise). */
  engineExports(source: string): Promise<string[]>;
}

/** Registers the per-test root's hooks for the calling suite; one probe for the whole file, closed after it. */
export function useCompilerFixture(): CompilerFixture {
  let current: FixtureRoot | undefined;
  const probe: Probe = createProbe();
  afterAll(() => probe.close());
  beforeEach(async () => {
    current = await createFixtureRoot();
  });
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });
  const fixture: CompilerFixture = {
    get fx() {
      if (!current) throw new Error('the compiler fixture is used outside a test');
      return current;
    },
    async compileFrom(npmName, packName = 'the-pack') {
      const packDir = await fixture.fx.addPack(packName, npmName);
      const compiler = createNpmCompiler({ root: fixture.fx.root, probe });
      const result = await compiler.compile({ packDir, packName, packVersion: '1.0.0', npmName, specifier: packName });
      return { result, compiler, packDir };
    },
    async engineExports(source) {
      const probed = await probe(source, 'test');
      if (!probed.ok) throw new Error(probed.message);
      return probed.exports;
    },
  };
  return fixture;
}
