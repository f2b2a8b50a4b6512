// Test support: kernel contract fixtures as data. Each fixture file holds a small resolved module
// graph (what the catalog would hand the kernel) and cases: code, grants, and the exact outcome.
// The Node tests run them through the in-thread kernel and the worker pool; the browser runner
// (issue 9) runs the same files in Chromium, so loading, denial and hardening hold on both.

import { z } from 'zod';
import { validateWasmBinary } from '../packs/wasm-binary.ts';
import type { ExecutableModule } from '../protocol/catalog.ts';
import { WasmBudgetsSchema, WasmExportSchema } from '../protocol/manifest.ts';
import { CapabilityGrantsSchema, GuestModuleSchema, NO_GRANTS, type HostCallResult, type KernelRunRequest, type RunResult } from '../protocol/run.ts';

export const FixtureExpectSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }).strict(),
  z
    .object({
      ok: z.literal(false),
      code: z.string(),
      /** Exact message, when the fixture pins it. */
      message: z.string().optional(),
      /** Substrings the message must contain. */
      messageIncludes: z.array(z.string()).optional(),
    })
    .strict(),
]);

export const FixtureCaseSchema = z
  .object({
    name: z.string(),
    why: z.string(),
    code: z.string(),
    /** Which of the file's declared specifiers this node declares (default: all). */
    declare: z.array(z.string()).optional(),
    grants: CapabilityGrantsSchema.optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    /** Host answers for capability calls, by capability name (the same answer every call). */
    hostAnswers: z.record(z.string(), z.unknown()).optional(),
    /** Deadline for this case (default 5000 ms). */
    timeoutMs: z.number().int().min(1).optional(),
    expect: FixtureExpectSchema,
    /** Denials the receipt must list (by kind and request string), in order. */
    denied: z.array(z.object({ kind: z.enum(['import', 'capability']), request: z.string() }).strict()).optional(),
    /** Module ids the receipt must list as loaded, in load order. */
    loaded: z.array(z.string()).optional(),
    /** Declared specifiers this node imports with `isolation: true` (KernelRunRequest.isolated). */
    isolated: z.array(z.string()).optional(),
    /** The receipt's isolated modules: specifier and the node's calls of each export, in order. */
    isolatedCalls: z
      .array(z.object({ specifier: z.string(), calls: z.array(z.object({ export: z.string(), count: z.number() }).strict()) }).strict())
      .optional(),
  })
  .strict();
export type FixtureCase = z.infer<typeof FixtureCaseSchema>;

/**
 * A WASM module's host side, for fixtures whose WASM calls really run (conversions, traps,
 * budgets, timeouts) instead of being scripted with `hostAnswers`. The module's `source` in
 * `modules` must be the generated facade for these exports.
 */
export const FixtureWasmSchema = z
  .object({
    bytesBase64: z.string(),
    exports: z.array(WasmExportSchema),
    memoryPagesMax: z.number().int().min(0),
    budgets: WasmBudgetsSchema.optional(),
  })
  .strict();
export type FixtureWasm = z.infer<typeof FixtureWasmSchema>;

export const FixtureFileSchema = z
  .object({
    description: z.string(),
    entries: z.record(z.string(), z.string()),
    modules: z.record(z.string(), GuestModuleSchema),
    /** Real WASM binaries by module id (see FixtureWasmSchema). */
    wasm: z.record(z.string(), FixtureWasmSchema).optional(),
    cases: z.array(FixtureCaseSchema).min(1),
  })
  .strict();
export type FixtureFile = z.infer<typeof FixtureFileSchema>;

/** The executable modules of a fixture file, with validated WASM where the file ships bytes. */
export function fixtureExecutableModules(file: FixtureFile): Record<string, ExecutableModule> {
  const out: Record<string, ExecutableModule> = {};
  for (const [id, module] of Object.entries(file.modules)) {
    const wasm = file.wasm?.[id];
    if (!wasm) {
      out[id] = module;
      continue;
    }
    const bytes = Uint8Array.from(atob(wasm.bytesBase64), (c) => c.charCodeAt(0));
    const validated = validateWasmBinary(bytes, { memoryPagesMax: wasm.memoryPagesMax, exports: wasm.exports });
    if (!validated.ok) throw new Error(`fixture WASM ${id}: ${validated.message}`);
    out[id] = { ...module, wasm: { bytes, exports: validated.value.exports, memoryPagesMax: wasm.memoryPagesMax, budgets: wasm.budgets ?? {} } };
  }
  return out;
}

/** True when the case scripts its WASM answers (then no real WASM runs). */
export function scriptsWasm(testCase: FixtureCase): boolean {
  return Object.keys(testCase.hostAnswers ?? {}).some((key) => key.startsWith('wasm:'));
}

/** The kernel request for one case of a fixture file. */
export function fixtureRequest(file: FixtureFile, testCase: FixtureCase): KernelRunRequest {
  const timeoutMs = testCase.timeoutMs ?? 5000;
  const declared = testCase.declare ?? Object.keys(file.entries);
  const entries: Record<string, string> = {};
  for (const specifier of declared) {
    const id = file.entries[specifier];
    if (id === undefined) throw new Error(`fixture case ${testCase.name} declares ${specifier}, which the file does not resolve`);
    entries[specifier] = id;
  }
  return {
    code: testCase.code,
    entries,
    modules: file.modules,
    inputs: testCase.inputs ?? {},
    grants: testCase.grants ?? NO_GRANTS,
    timeoutMs,
    ...(testCase.isolated ? { isolated: testCase.isolated } : {}),
  };
}

/** Every way `result` differs from what the case expects; empty when it matches. */
export function fixtureProblems(testCase: FixtureCase, result: RunResult): string[] {
  const problems: string[] = [];
  const expect = testCase.expect;
  if (expect.ok !== result.ok) {
    problems.push(`expected ok=${expect.ok}, got ${JSON.stringify(result.ok ? { value: result.value } : { code: result.code, message: result.message })}`);
    return problems;
  }
  if (expect.ok && result.ok) {
    if (JSON.stringify(result.value) !== JSON.stringify(expect.value))
      problems.push(`value ${JSON.stringify(result.value)} !== ${JSON.stringify(expect.value)}`);
  } else if (!expect.ok && !result.ok) {
    if (result.code !== expect.code) problems.push(`code ${result.code} !== ${expect.code} (${result.message})`);
    if (expect.message !== undefined && result.message !== expect.message)
      problems.push(`message ${JSON.stringify(result.message)} !== ${JSON.stringify(expect.message)}`);
    for (const part of expect.messageIncludes ?? [])
      if (!result.message.includes(part)) problems.push(`message ${JSON.stringify(result.message)} lacks ${JSON.stringify(part)}`);
  }
  if (testCase.denied) {
    const got = result.receipt.denied.map((d) => ({ kind: d.kind, request: d.request }));
    if (JSON.stringify(got) !== JSON.stringify(testCase.denied)) problems.push(`denied ${JSON.stringify(got)} !== ${JSON.stringify(testCase.denied)}`);
  }
  if (testCase.isolatedCalls) {
    const got = (result.receipt.isolated ?? []).map((m) => ({ specifier: m.specifier, calls: m.calls }));
    if (JSON.stringify(got) !== JSON.stringify(testCase.isolatedCalls))
      problems.push(`isolated ${JSON.stringify(got)} !== ${JSON.stringify(testCase.isolatedCalls)}`);
  }
  if (testCase.loaded) {
    const got = result.receipt.modules.map((m) => m.moduleId);
    if (JSON.stringify(got) !== JSON.stringify(testCase.loaded)) problems.push(`loaded ${JSON.stringify(got)} !== ${JSON.stringify(testCase.loaded)}`);
  }
  return problems;
}

/** The host side a case scripts: capability answers by name, WASM answers by "wasm:<export>". */
export function fixtureAnswer(testCase: FixtureCase, key: string): HostCallResult {
  const answers = testCase.hostAnswers ?? {};
  if (Object.hasOwn(answers, key)) return { ok: true, value: answers[key] };
  return { ok: false, code: 'internal', message: `fixture ${testCase.name} scripts no host answer for ${key}` };
}

/**
 * The file's real WASM binaries, instantiated on this thread for the in-thread kernel: a WASM call
 * gets a real answer (`moduleId`, export, numbers), not a script.
 */
export async function fixtureWasmHost(file: FixtureFile): Promise<(moduleId: string, exportName: string, args: readonly number[]) => HostCallResult> {
  const instances = new Map<string, WebAssembly.Instance>();
  for (const [id, wasm] of Object.entries(file.wasm ?? {})) {
    const bytes = Uint8Array.from(atob(wasm.bytesBase64), (c) => c.charCodeAt(0));
    instances.set(id, (await WebAssembly.instantiate(bytes)).instance);
  }
  return (moduleId, exportName, args) => {
    const exported = instances.get(moduleId)?.exports[exportName];
    if (typeof exported !== 'function') return { ok: false, code: 'wasm-not-declared', message: `no export ${exportName}` };
    return { ok: true, value: (exported as (...a: number[]) => unknown)(...args) };
  };
}
