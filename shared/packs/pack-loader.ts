// Turns one installed package into a validated pack, without executing any of its code. This is
// the pure kernel of discovery: it receives the package.json text and a `read` power (the Node
// adapter in electron/catalog/ does containment, realpath and size checks on disk), applies every
// pack-level rule (manifest, names, duplicates, internal list, the 8 MB budget) and hands the
// module-level work to pack-graph.ts. A pack-level failure rejects the pack; a module-level
// failure skips that module and keeps the rest of the pack usable.

import type { ErrorCode } from '../protocol/codes.ts';
import type { PackWarning, SandboxModuleSummary } from '../protocol/catalog.ts';
import { LIMITS, formatBytes } from '../protocol/limits.ts';
import { NodetoolManifestSchema, PackageJsonSchema, type SandboxModuleEntry } from '../protocol/manifest.ts';
import { formatIssues } from '../protocol/parse.ts';
import type { Failure } from '../protocol/result.ts';
import { boundPack } from './answer-bounds.ts';
import type { Sha256Hex } from './digest.ts';
import { disclosureLine } from './disclosure.ts';
import { normalizeInternalList } from './internal-list.ts';
import { normalizePackPath, printable } from './pack-path.ts';
import { buildPackGraph, type LoadedPackGraph, type PackFileSource, type NpmCompile } from './pack-graph.ts';
import { checkSkill, type SkillDoc } from './skill.ts';
import { specifierFor, specifierKey, validateModuleName } from './specifier.ts';

export type PackFileCode = 'file-missing' | 'file-outside-pack' | 'file-symlink-escape' | 'file-too-large';

/** The result of reading one pack file. `size` accompanies `file-too-large` so the budget can tell the cases apart. */
export type PackFileRead =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | (Failure<PackFileCode> & { readonly size?: number });

export interface PackPowers {
  /** Read a file by its normalized pack-relative path, refusing anything larger than `maxBytes` without reading it. */
  readFile(path: string, maxBytes: number): Promise<PackFileRead>;
  /** SKILL.md at the pack root: undefined when absent; bytes omitted when larger than `maxBytes`. */
  readSkill(maxBytes: number): Promise<{ readonly size: number; readonly bytes?: Uint8Array } | undefined>;
  readonly sha256: Sha256Hex;
  /** Compiles `{ kind: "js", npm }` entries; absent → those modules are skipped. */
  readonly compileNpm?: NpmCompile;
}

export interface PackInput {
  /** The package name implied by its folder under node_modules (`@scope/name` or `name`). */
  readonly folderName: string;
  /** package.json as read from disk. */
  readonly packageJsonText: string;
  /** Its size in bytes, which counts toward the pack budget. */
  readonly packageJsonBytes: number;
}

export interface LoadedPack {
  readonly name: string;
  readonly version: string;
  readonly status: 'ok' | 'rejected';
  readonly code?: ErrorCode;
  readonly reason?: string;
  readonly warnings: readonly PackWarning[];
  readonly modules: readonly SandboxModuleSummary[];
  /** package.json `"private": true`: not delivered to browser principals (see electron/catalog/catalog.ts). */
  readonly private: boolean;
  /** Kept out of summaries and diagnostics; served only by the catalog's skillDoc(). */
  readonly skill?: SkillDoc;
  readonly graph?: LoadedPackGraph;
  /** Canonical paths of the `internal` list (to tell "internal-specifier" from "unknown-specifier"). */
  readonly internalPaths: readonly string[];
}

const SEMVER_CHARS = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export type PackLoad = { readonly kind: 'not-a-pack' } | { readonly kind: 'pack'; readonly pack: LoadedPack };

/**
 * An unparseable package.json is reported only when it looks like a pack's (it mentions
 * "nodetool"); any other broken package in node_modules is not discovery's business.
 */
function mentionsNodetool(text: string): boolean {
  return text.includes('"nodetool"');
}

/**
 * Load one pack. What it answers is held to the bounds of the catalog's answer rows
 * (answer-bounds.ts), so no pack can make a summaries or diagnostics answer break its schema.
 */
export async function loadPack(input: PackInput, powers: PackPowers): Promise<PackLoad> {
  const loaded = await loadUnbounded(input, powers);
  return loaded.kind === 'pack' ? { kind: 'pack', pack: boundPack(loaded.pack) } : loaded;
}

async function loadUnbounded(input: PackInput, powers: PackPowers): Promise<PackLoad> {
  const rejected = (name: string, version: string, code: ErrorCode, reason: string, warnings: PackWarning[] = []): PackLoad => ({
    kind: 'pack',
    pack: { name, version, status: 'rejected', code, reason, warnings, modules: [], private: false, internalPaths: [] },
  });

  let json: unknown;
  try {
    json = JSON.parse(input.packageJsonText.replace(/^\uFEFF/, ''));
  } catch (error) {
    if (!mentionsNodetool(input.packageJsonText)) return { kind: 'not-a-pack' };
    return rejected(input.folderName, '', 'package-json-invalid', `package.json is not valid JSON: ${printable(error instanceof Error ? error.message : String(error), 300)}`);
  }
  if (typeof json !== 'object' || json === null || !Object.hasOwn(json, 'nodetool')) return { kind: 'not-a-pack' };

  const rawNodetool = (json as { nodetool?: unknown }).nodetool;
  // A NodeTool package that registers nodes but ships no sandbox modules is not ours to judge.
  const isObject = typeof rawNodetool === 'object' && rawNodetool !== null && !Array.isArray(rawNodetool);
  if (isObject && !Object.hasOwn(rawNodetool, 'sandboxModules')) return { kind: 'not-a-pack' };
  const pkg = PackageJsonSchema.safeParse(json);
  const rawVersion = (json as { version?: unknown }).version;
  const version = pkg.success ? pkg.data.version : typeof rawVersion === 'string' ? printable(rawVersion, 64) : '';
  if (!pkg.success) {
    return rejected(input.folderName, version, 'manifest-invalid', `package.json: ${printable(formatIssues(pkg.error.issues), 1000)}`);
  }
  if (pkg.data.name !== input.folderName) {
    // A package installed under another name could impersonate that name's specifiers.
    return rejected(
      input.folderName,
      version,
      'manifest-invalid',
      `package.json names the package "${pkg.data.name}" but it is installed as "${input.folderName}"; a pack is known only by its install name.`,
    );
  }
  const name = pkg.data.name;
  if (!SEMVER_CHARS.test(version)) {
    // npm only installs semver versions; anything else did not come from a registry as-is.
    return rejected(name, printable(version, 64), 'manifest-invalid', `package.json version "${printable(version, 64)}" is not a semver version.`);
  }
  if (isObject && (rawNodetool as { apiVersion?: unknown }).apiVersion !== 1) {
    const apiVersion = (rawNodetool as { apiVersion?: unknown }).apiVersion;
    if (typeof apiVersion === 'number') {
      return rejected(name, version, 'api-version-unsupported', `nodetool.apiVersion is ${apiVersion}; this app understands apiVersion 1.`);
    }
  }
  const manifest = NodetoolManifestSchema.safeParse(rawNodetool);
  if (!manifest.success) {
    return rejected(name, version, 'manifest-invalid', `package.json nodetool: ${printable(formatIssues(manifest.error.issues), 1000)}`);
  }
  const entries = manifest.data.sandboxModules;
  if (entries === undefined) return { kind: 'not-a-pack' };
  const isPrivate = (json as { private?: unknown }).private === true;
  const warnings: PackWarning[] = [];

  // --- names and duplicates (pack-level) ---------------------------------------------------------
  interface EntryPlan {
    readonly entry: SandboxModuleEntry;
    readonly specifier: string;
    readonly nameError?: string;
  }
  const plans: EntryPlan[] = [];
  const bySpecifierKey = new Map<string, string>();
  for (const entry of entries) {
    const checked = validateModuleName(entry.name);
    if (!checked.ok) {
      plans.push({ entry, specifier: `${name}/${printable(entry.name, 64)}`, nameError: checked.message });
      continue;
    }
    const specifier = specifierFor(name, checked.value);
    const key = specifierKey(specifier);
    const earlier = bySpecifierKey.get(key);
    if (earlier !== undefined) {
      return rejected(name, version, 'duplicate-module-name', `Two modules resolve to the same specifier: "${earlier}" and "${specifier}".`);
    }
    bySpecifierKey.set(key, specifier);
    plans.push({ entry, specifier });
  }

  // --- internal list (pack-level) ----------------------------------------------------------------
  const internal = normalizeInternalList(manifest.data.internal ?? []);
  if (!internal.ok) return rejected(name, version, internal.code, internal.message);
  const internalPaths = internal.value;
  // Case-folded: on a case-insensitive filesystem "A.js" and "a.js" are one file.
  const internalFolded = new Set(internalPaths.map((p) => p.toLowerCase()));

  // --- files, under the pack budget ----------------------------------------------------------------
  let used = input.packageJsonBytes;
  const overBudget = (what: string, size: number): string =>
    `Reading ${what} (${formatBytes(size)}) takes the pack past ${formatBytes(LIMITS.packBytes)}.`;
  const cache = new Map<string, PackFileRead>();
  let budgetFailure: string | undefined;
  const readCounted = async (path: string, cap: number): Promise<PackFileRead> => {
    const cached = cache.get(path);
    if (cached) return cached;
    const remaining = LIMITS.packBytes - used;
    const result = await powers.readFile(path, Math.min(cap, Math.max(remaining, 0)));
    if (!result.ok && result.code === 'file-too-large' && result.size !== undefined && result.size <= cap) {
      budgetFailure ??= overBudget(path, result.size);
    }
    if (!result.ok && result.code === 'file-too-large' && result.size !== undefined && result.size > cap) {
      const capped: PackFileRead = { ...result, message: `${path} is ${formatBytes(result.size)}, over the ${formatBytes(cap)} limit for this kind of file.` };
      cache.set(path, capped);
      return capped;
    }
    if (result.ok) used += result.bytes.byteLength;
    cache.set(path, result);
    return result;
  };

  const files: PackFileSource[] = [];
  for (const plan of plans) {
    const { entry } = plan;
    const base = { specifier: plan.specifier, entry };
    if (plan.nameError !== undefined) {
      files.push({ ...base, role: 'entry', failure: { code: 'module-name-invalid', message: plan.nameError } });
      continue;
    }
    if (entry.kind === 'js' && entry.npm !== undefined) {
      files.push({ ...base, role: 'entry' });
      continue;
    }
    const rawFile = entry.file ?? '';
    const path = normalizePackPath(rawFile);
    if (!path.ok) {
      const code: PackFileCode = path.code === 'invalid' ? 'file-missing' : 'file-outside-pack';
      files.push({ ...base, role: 'entry', failure: { code, message: `file "${printable(rawFile)}": ${path.message}.` } });
      continue;
    }
    if (internalFolded.has(path.value.toLowerCase())) {
      return rejected(name, version, 'internal-invalid', `"${path.value}" is both in the "internal" list and the file of public entry "${plan.specifier}".`);
    }
    const cap = entry.kind === 'wasm' ? LIMITS.wasmBytes : LIMITS.authoredJsBytes;
    const read = await readCounted(path.value, cap);
    if (budgetFailure !== undefined) return rejected(name, version, 'pack-too-large', budgetFailure);
    files.push(read.ok ? { ...base, role: 'entry', path: path.value, bytes: read.bytes } : { ...base, role: 'entry', path: path.value, failure: { code: read.code, message: read.message } });
  }
  for (const path of internalPaths) {
    const read = await readCounted(path, LIMITS.authoredJsBytes);
    if (budgetFailure !== undefined) return rejected(name, version, 'pack-too-large', budgetFailure);
    files.push(read.ok ? { role: 'internal', path, bytes: read.bytes } : { role: 'internal', path, failure: { code: read.code, message: read.message } });
  }

  // --- SKILL.md (warnings only; counts toward the budget) --------------------------------------------
  let skill: SkillDoc | undefined;
  const rawSkill = await powers.readSkill(LIMITS.skillBytes);
  if (rawSkill?.bytes !== undefined) {
    used += rawSkill.bytes.byteLength;
    if (used > LIMITS.packBytes) return rejected(name, version, 'pack-too-large', overBudget('SKILL.md', rawSkill.bytes.byteLength));
  }
  const skillCheck = checkSkill(rawSkill === undefined ? {} : { size: rawSkill.size, ...(rawSkill.bytes ? { bytes: rawSkill.bytes } : {}) });
  if (skillCheck.ok) skill = skillCheck.skill;
  else warnings.push(skillCheck.warning);

  // --- modules --------------------------------------------------------------------------------------------
  const graph = await buildPackGraph({ packName: name, packVersion: version, files, internalPaths }, powers);
  if (!graph.ok) return rejected(name, version, graph.code, graph.message, warnings);
  warnings.push(...graph.value.warnings);

  const modules: SandboxModuleSummary[] = graph.value.entries.map((module) => ({
    specifier: module.specifier,
    packName: name,
    packVersion: version,
    kind: module.kind,
    status: module.status,
    ...(module.failure ? { code: module.failure.code, reason: module.failure.message } : {}),
    ...(module.moduleId ? { moduleId: module.moduleId, digest: module.digest } : {}),
    summary: disclosureLine({
      specifier: module.specifier,
      kind: module.kind,
      // Manifest fields only: never names read from pack code.
      ...(module.declaredExports ? { exports: module.declaredExports } : {}),
      ...(module.description !== undefined ? { description: module.description } : {}),
    }),
    ...(module.exports ? { exports: module.exports } : {}),
    ...(module.signatures ? { signatures: module.signatures } : {}),
    hasSkill: skill !== undefined,
  }));

  return {
    kind: 'pack',
    pack: { name, version, status: 'ok', warnings, modules, private: isPrivate, ...(skill ? { skill } : {}), graph: graph.value, internalPaths },
  };
}
