// Test support for the fixture builders (e2e/parity-*-fixture.build.ts): one way to write a case
// and the guest snippet that answers a call's value or its failure as [code, message].

import type { FixtureCase } from '../shared/testing/kernel-fixture.ts';

/** A fixture case: its name, why it exists, the guest code and what it must answer. */
export const fixtureCase = (name: string, why: string, code: string, expect: FixtureCase['expect'], extra: Partial<FixtureCase> = {}): FixtureCase => ({
  name,
  why,
  code,
  expect,
  ...extra,
});

/** Guest code that answers `call`'s awaited value, or [code, message] when it throws. */
export const catching = (call: string): string => `try { return await ${call}; } catch (e) { return [e.code, e.message]; }`;
