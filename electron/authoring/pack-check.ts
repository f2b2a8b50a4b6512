// `sandbox-packs check`: run on an author's working folder exactly what the app does after
// installing a pack, and report it. Pack the folder as npm would (npm-pack.ts), install that
// tarball into a temporary managed root with the real installer (scripts off), discover it with
// the real catalog and npm compiler (bundle, scan, admission probe), then run SKILL.md's examples
// through the app's code runner. Every finding that would hurt a user of the published pack is a
// problem with a code from codes.ts and, where there is one, the file and line; `ok` is true only
// without problems. Everything temporary (work dir, probe workers, sandbox pool) ends in finally.

import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { PackWarning, SandboxPackStatus } from '../../shared/protocol/catalog.ts';
import type { InstallMode, LifecycleScript, PackInstallStatus } from '../../shared/protocol/ledger.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import { NodetoolManifestSchema, PackageJsonSchema, type NodetoolManifest } from '../../shared/protocol/manifest.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { createProbe } from '../compiler/probe.ts';
import { createInstaller } from '../install/installer.ts';
import { createCodeRunner } from '../services/code-runner.ts';
import { importFailures, type ImportFailure } from './import-check.ts';
import { npmPack } from './npm-pack.ts';
import { runExamples, type ExampleOutcome } from './run-examples.ts';
import { prepareExamples } from './skill-examples.ts';
import { wasmSignatureText } from '../../shared/packs/wasm-signature.ts';

export interface CheckOptions {
  /** The pack's working folder (its package.json). */
  readonly dir: string;
  /** Registry the pack's dependencies are installed from (npm's public registry by default). */
  readonly registry?: string;
  /** Run SKILL.md's examples (default true). */
  readonly examples?: boolean;
  /** Also run the examples with every pack imported isolated (`isolation: true`, issue 31): `isolatedExamples`. */
  readonly isolateExamples?: boolean;
  /** One line per stage, for a progress display. */
  readonly onProgress?: (line: string) => void;
}

export interface CheckProblem {
  readonly code: ErrorCode;
  readonly message: string;
  /** Pack-relative file the problem is in, when there is one. */
  readonly file?: string;
  readonly line?: number;
}

export interface SizeRow {
  readonly file: string;
  /** What the file is, e.g. "JS module @acme/x", "SKILL.md", "pack total". */
  readonly what: string;
  readonly bytes: number;
  readonly cap: number;
}

export interface CheckedModule {
  readonly specifier: string;
  readonly kind: 'js' | 'wasm';
  /** `fails-at-import`: discovery admitted it, but importing it throws (import-check.ts). */
  readonly status: 'ready' | 'skipped' | 'fails-at-import';
  readonly code?: ErrorCode;
  readonly reason?: string;
  readonly summary: string;
  readonly exports?: readonly string[];
  /** A WASM module's exports with their declared types, as `digest(bytes) → string (async)`. */
  readonly signatures?: readonly string[];
}

export interface CheckReport {
  readonly ok: boolean;
  readonly name: string;
  readonly version: string;
  readonly tarball: { readonly size: number; readonly unpackedSize: number; readonly files: readonly string[] };
  readonly installMode: InstallMode;
  /** What the app would do after install: active at once, or wait for the user's trust. */
  readonly status: PackInstallStatus;
  /** The literal install scripts a user would be shown (the pack's and its dependencies'). */
  readonly scripts: readonly LifecycleScript[];
  readonly packStatus: 'ok' | 'rejected';
  readonly modules: readonly CheckedModule[];
  readonly sizes: readonly SizeRow[];
  /** Discovery warnings that do not fail the check (e.g. a guarded global in an npm module). */
  readonly warnings: readonly PackWarning[];
  /** Undefined when examples were not run (--no-examples). */
  readonly examples?: readonly ExampleOutcome[];
  /** The same examples with their packs imported isolated, when asked (`isolateExamples`); informational, not problems. */
  readonly isolatedExamples?: readonly ExampleOutcome[];
  readonly problems: readonly CheckProblem[];
}

const SKILL_CODES = new Set<ErrorCode>(['skill-missing', 'skill-invalid', 'skill-too-large']);

export async function checkPack(options: CheckOptions): Promise<Result<CheckReport>> {
  const dir = path.resolve(options.dir);
  const progress = options.onProgress ?? (() => {});
  let packageText: string;
  try {
    packageText = await readFile(path.join(dir, 'package.json'), 'utf8');
  } catch (error) {
    return fail('package-json-invalid', `${path.join(dir, 'package.json')} could not be read: ${(error as Error).message}`);
  }

  const work = await mkdtemp(path.join(os.tmpdir(), 'sp-check-'));
  const probe = createProbe();
  let runner: ReturnType<typeof createCodeRunner> | undefined;
  try {
    progress('npm pack (scripts off)');
    await mkdir(path.join(work, 'pack'));
    const packed = await npmPack(dir, path.join(work, 'pack'));
    if (!packed.ok) return packed;

    progress(`installing ${packed.value.name}@${packed.value.version} into a temporary root (scripts off)`);
    const root = path.join(work, 'root');
    const installed = await createInstaller({ root, ...(options.registry ? { registry: options.registry } : {}) }).install(packed.value.file);
    if (!installed.ok) return installed;
    const { name, installMode, status, scripts } = installed.value;

    progress('discovering (compile npm modules, admission probe)');
    const opened = await openCatalog({ root, onlyPacks: new Set([name]), compiler: createNpmCompiler({ root, probe }) });
    if (!opened.ok) return opened;
    const catalog = opened.value;
    const pack = catalog.diagnostics().find((p) => p.name === name);
    if (!pack) return fail('internal', `Discovery did not list ${name} in the temporary root.`);

    const packDir = path.join(root, 'node_modules', ...name.split('/'));
    const manifest = NodetoolManifestSchema.safeParse(
      PackageJsonSchema.safeParse(JSON.parse(await readFile(path.join(packDir, 'package.json'), 'utf8'))).data?.nodetool,
    );
    const skillText = await readFile(path.join(packDir, 'SKILL.md'), 'utf8').catch(() => undefined);

    const problems: CheckProblem[] = [];
    if (pack.status === 'rejected')
      problems.push({ code: pack.code ?? 'manifest-invalid', message: pack.reason ?? 'The pack was rejected at discovery.', file: 'package.json' });
    for (const m of pack.modules) {
      if (m.status === 'skipped')
        problems.push({
          code: m.code ?? 'module-skipped',
          message: `${m.specifier}: ${m.reason ?? 'skipped'}`,
          ...moduleFile(manifest.data, name, m.specifier),
        });
    }
    for (const w of pack.warnings)
      if (SKILL_CODES.has(w.code)) problems.push({ code: w.code, message: w.message, file: 'SKILL.md', ...skillLine(w, skillText) });
    if (installMode === 'sandbox-only') {
      for (const s of scripts.filter((x) => x.own)) {
        problems.push({
          code: 'install-script-ignored',
          message: `scripts.${s.event} ("${s.command}") never runs: the app installs packs with scripts off, and a sandbox-only pack is never rebuilt. Ship built files instead (build before npm publish), or remove the script.`,
          file: 'package.json',
          ...lineOf(packageText, new RegExp(`^\\s*"${s.event}"\\s*:`)),
        });
      }
    }

    // Import every ready JS module as a node would; one that throws is not ready.
    runner = createCodeRunner(catalog, { sandboxWorkers: 1 });
    const readyJs = pack.status === 'ok' ? pack.modules.filter((m) => m.status === 'ready' && m.kind === 'js').map((m) => m.specifier) : [];
    if (readyJs.length) progress(`importing ${readyJs.length} module(s) in the sandbox`);
    const broken = new Map<string, ImportFailure>((await importFailures(runner, readyJs)).map((f) => [f.specifier, f]));
    for (const f of broken.values()) {
      const file = moduleFile(manifest.data, name, f.specifier).file;
      problems.push({
        code: f.code,
        message: `${f.specifier} is not ready: importing it throws, so every node that imports it fails. ${withFile(f.message, f.specifier, file)}`,
        ...(file !== undefined ? { file } : {}),
        ...(f.line !== undefined && file !== 'package.json' ? { line: f.line } : {}),
      });
    }

    let examples: ExampleOutcome[] | undefined;
    let isolatedExamples: ExampleOutcome[] | undefined;
    if (options.examples !== false && skillText !== undefined && pack.status === 'ok') {
      // An example of a skipped module cannot run; the skip is already a problem of its own.
      const skipped = new Set(pack.modules.filter((m) => m.status === 'skipped').map((m) => m.specifier));
      const prepared = prepareExamples(
        skillText,
        pack.modules.map((m) => m.specifier),
      ).map((e) => {
        const dead = e.specifiers.find((s) => skipped.has(s));
        if (dead && e.kind === 'run') return { kind: 'skip' as const, block: e.block, specifiers: e.specifiers, reason: `imports ${dead}, which was skipped` };
        const throwing = e.specifiers.find((s) => broken.has(s));
        return throwing && e.kind === 'run'
          ? { kind: 'skip' as const, block: e.block, specifiers: e.specifiers, reason: `imports ${throwing}, which throws when imported` }
          : e;
      });
      progress(`running ${prepared.length} SKILL.md example(s) in the sandbox`);
      examples = await runExamples(runner, prepared);
      if (options.isolateExamples) isolatedExamples = await runExamples(runner, prepared, { isolation: true });
      for (const outcome of examples)
        for (const f of outcome.failures)
          problems.push({ code: f.code, message: withModuleFiles(f.message, manifest.data, name), file: 'SKILL.md', line: f.line });
    }

    const report: CheckReport = {
      ok: problems.length === 0,
      name,
      version: installed.value.version,
      tarball: { size: packed.value.size, unpackedSize: packed.value.unpackedSize, files: packed.value.files.map((f) => f.path).sort() },
      installMode,
      status,
      scripts,
      packStatus: pack.status,
      modules: pack.modules.map((m) => {
        const thrown = broken.get(m.specifier);
        return {
          specifier: m.specifier,
          kind: m.kind,
          status: thrown ? ('fails-at-import' as const) : m.status,
          ...(thrown ? { code: thrown.code } : m.code ? { code: m.code } : {}),
          ...(thrown ? { reason: `importing it throws: ${thrown.message}` } : m.reason !== undefined ? { reason: m.reason } : {}),
          summary: m.summary,
          ...(m.exports ? { exports: m.exports } : {}),
          ...(m.signatures?.length ? { signatures: m.signatures.map(wasmSignatureText) } : {}),
        };
      }),
      sizes: await sizeRows(packDir, name, manifest.success ? manifest.data : undefined, catalog, pack),
      warnings: pack.warnings.filter((w) => !SKILL_CODES.has(w.code)),
      ...(examples ? { examples } : {}),
      ...(isolatedExamples ? { isolatedExamples } : {}),
      problems,
    };
    return ok(report);
  } finally {
    await runner?.close();
    await probe.close();
    await rm(work, { recursive: true, force: true });
  }
}

const specifierOf = (pack: string, moduleName: string): string => (moduleName === '.' ? pack : `${pack}/${moduleName}`);

function moduleFile(manifest: NodetoolManifest | undefined, pack: string, specifier: string): { file?: string } {
  const entry = manifest?.sandboxModules?.find((e) => specifierOf(pack, e.name) === specifier);
  return entry && 'file' in entry && typeof entry.file === 'string' ? { file: entry.file } : { file: 'package.json' };
}

/** "in SPEC, line …" of an error inside an authored module, written "in SPEC (its file), line …". */
function withFile(message: string, specifier: string, file: string | undefined): string {
  return file === undefined || file === 'package.json' ? message : message.split(`in ${specifier}, line `).join(`in ${specifier} (${file}), line `);
}

function withModuleFiles(message: string, manifest: NodetoolManifest | undefined, pack: string): string {
  let text = message;
  for (const entry of manifest?.sandboxModules ?? []) {
    const specifier = specifierOf(pack, entry.name);
    text = withFile(text, specifier, moduleFile(manifest, pack, specifier).file);
  }
  return text;
}

/** The 1-based line of the first line matching `pattern`, as `{ line }`, or nothing. */
function lineOf(text: string | undefined, pattern: RegExp): { line?: number } {
  if (text === undefined) return {};
  const index = text.split(/\r?\n/).findIndex((l) => pattern.test(l));
  return index >= 0 ? { line: index + 1 } : {};
}

/** A frontmatter problem's line: the parser names it ("line 3: …"), a schema issue names its key. */
function skillLine(warning: PackWarning, text: string | undefined): { line?: number } {
  const stated = /\bline (\d+)/.exec(warning.message);
  if (stated) return { line: Number(stated[1]) };
  const key = /frontmatter: (\w+):/.exec(warning.message);
  if (key) return lineOf(text, new RegExp(`^${key[1]}:`));
  return warning.code === 'skill-invalid' ? { line: 1 } : {};
}

async function fileSize(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch {
    return undefined;
  }
}

/** Sizes against each cap: every file discovery reads, each bundled npm module, and the pack total. */
async function sizeRows(
  packDir: string,
  pack: string,
  manifest: NodetoolManifest | undefined,
  catalog: DiscoveryCatalog,
  status: SandboxPackStatus,
): Promise<SizeRow[]> {
  const rows: SizeRow[] = [];
  let total = 0;
  const counted = async (file: string, what: string, cap: number): Promise<void> => {
    const bytes = await fileSize(path.join(packDir, file));
    if (bytes === undefined) return;
    total += bytes;
    rows.push({ file, what, bytes, cap });
  };
  await counted('package.json', 'package.json', LIMITS.packBytes);
  for (const entry of manifest?.sandboxModules ?? []) {
    const specifier = specifierOf(pack, entry.name);
    if (entry.kind === 'js' && entry.npm !== undefined) {
      const module = status.modules.find((m) => m.specifier === specifier);
      if (module?.status !== 'ready') continue;
      const resolved = catalog.resolveForExecution([{ specifier }]);
      const id = resolved.ok ? resolved.entries[specifier] : undefined;
      const source = id && resolved.ok ? resolved.modules[id]?.source : undefined;
      if (source !== undefined)
        rows.push({
          file: `(bundle of ${entry.npm})`,
          what: `npm module ${specifier}`,
          bytes: new TextEncoder().encode(source).byteLength,
          cap: LIMITS.bundledJsBytes,
        });
    } else if (entry.file !== undefined) {
      await counted(
        entry.file,
        `${entry.kind === 'wasm' ? 'WASM' : 'JS'} module ${specifier}`,
        entry.kind === 'wasm' ? LIMITS.wasmBytes : LIMITS.authoredJsBytes,
      );
    }
  }
  for (const file of manifest?.internal ?? []) await counted(file, 'internal helper', LIMITS.authoredJsBytes);
  await counted('SKILL.md', 'SKILL.md', LIMITS.skillBytes);
  rows.push({ file: '', what: 'pack total (files discovery reads)', bytes: total, cap: LIMITS.packBytes });
  return rows;
}
