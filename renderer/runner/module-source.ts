// Fetches a run's modules for the browser runner by opaque id and refuses any whose content does
// not hash to its digest. The delivery route sends each module's body plus its graph sources'
// ids, kinds and producers (shared/protocol/delivery.ts); once a module's whole import closure
// is here, its module-graph digest is recomputed with the same shared function the catalog used,
// so a tampered body, a swapped dependency or a poisoned cache entry cannot reach the kernel.
//
// The trust anchor for an entry is the digest the caller expects (from the node's resolution);
// the header digest of a dependency is only used after it, too, has been recomputed. The cache
// is keyed by digest and filled only with verified modules. I/O (fetch, hash) is injected.

import { canonicalGraphBytes, graphClosure, type GraphSource, type Sha256HexAsync } from '../../shared/packs/digest.ts';
import { validateWasmBinary } from '../../shared/packs/wasm-binary.ts';
import type { ExecutableModule } from '../../shared/protocol/catalog.ts';
import type { ErrorCode } from '../../shared/protocol/codes.ts';
import {
  DELIVERY_DEPENDENCIES_HEADER,
  DELIVERY_DIGEST_HEADER,
  DELIVERY_GRAPH_HEADER,
  DeliveredModuleInfoSchema,
  type DeliveredModuleInfo,
  type DeliveryPart,
} from '../../shared/protocol/delivery.ts';
import { formatIssues } from '../../shared/protocol/parse.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { generateWasmFacade, wasmBridgeModuleSource } from '../../shared/packs/wasm-facade.ts';

/** One answer of the delivery route, as the fetch power hands it over. */
export interface FetchedPart {
  readonly status: number;
  header(name: string): string | null;
  readonly bytes: Uint8Array;
}

export interface ModuleSourcePowers {
  /** GET `/api/sandbox-modules/:id` (the part, and `?digest=` when known) with the session token. */
  fetchPart(deliveryId: string, part: DeliveryPart, digest: string | undefined): Promise<FetchedPart>;
  readonly sha256: Sha256HexAsync;
}

/** A module whose digest was recomputed and matched. */
export interface VerifiedModule {
  readonly deliveryId: string;
  readonly digest: string;
  readonly info: DeliveredModuleInfo;
  readonly source: string;
  readonly wasmBytes?: Uint8Array;
  /** Delivery ids and digests of the modules it imports (all verified with it). */
  readonly dependencies: readonly { readonly deliveryId: string; readonly digest: string }[];
}

/** Verified modules by digest. Bounded; nothing unverified is ever put in. */
export class DigestCache {
  readonly #entries = new Map<string, VerifiedModule>();
  constructor(readonly capacity = 512) {}
  get(digest: string): VerifiedModule | undefined {
    const hit = this.#entries.get(digest);
    if (hit) {
      this.#entries.delete(digest);
      this.#entries.set(digest, hit);
    }
    return hit;
  }
  /** Only `loadModules` calls this, after verification. */
  remember(module: VerifiedModule): void {
    this.#entries.delete(module.digest);
    this.#entries.set(module.digest, module);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as string);
  }
  get size(): number {
    return this.#entries.size;
  }
}

/** What the node declared: specifier → the module id to fetch and the digest it must have. */
export type ExpectedEntries = Readonly<Record<string, { readonly moduleId: string; readonly digest: string }>>;

export interface LoadedModules {
  /** Specifier → the kernel's module id. */
  readonly entries: Record<string, string>;
  /** Every module of the closure, as the kernel and the WASM dispatcher take them. */
  readonly modules: Record<string, ExecutableModule>;
  /** How many modules came from the cache, and how many were fetched. */
  readonly cached: number;
  readonly fetched: number;
}

const DIGEST = /^[0-9a-f]{64}$/;
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,128}$/;
const decoder = new TextDecoder('utf-8', { fatal: true });

interface Pending {
  readonly deliveryId: string;
  readonly claimedDigest: string;
  readonly info: DeliveredModuleInfo;
  readonly source: string;
  readonly wasmBytes?: Uint8Array;
  readonly dependencyIds: readonly string[];
}

/** Fetch (or take from the cache) every module the entries reach, verifying each digest. */
export async function loadModules(expected: ExpectedEntries, powers: ModuleSourcePowers, cache: DigestCache): Promise<Result<LoadedModules>> {
  const verified = new Map<string, VerifiedModule>(); // by delivery id
  const pending = new Map<string, Pending>();
  let cached = 0;
  let fetched = 0;

  // Walk: cache hits bring their recorded dependencies (by digest); misses are fetched.
  const queue: { deliveryId: string; digest: string | undefined }[] = [];
  for (const [specifier, entry] of Object.entries(expected)) {
    if (!DELIVERY_ID.test(entry.moduleId) || !DIGEST.test(entry.digest))
      return fail('invalid-data', `${specifier}: the node's resolution names no valid module id and digest.`);
    queue.push({ deliveryId: entry.moduleId, digest: entry.digest });
  }
  // One wave per import depth: cache hits are taken at once, the rest fetched in parallel.
  while (queue.length) {
    const wave = new Map<string, string | undefined>();
    for (const { deliveryId, digest } of queue.splice(0)) {
      if (verified.has(deliveryId) || pending.has(deliveryId)) continue;
      const hit = digest !== undefined ? cache.get(digest) : undefined;
      if (hit && hit.deliveryId === deliveryId) {
        verified.set(deliveryId, hit);
        cached++;
        for (const dep of hit.dependencies) queue.push({ deliveryId: dep.deliveryId, digest: dep.digest });
        continue;
      }
      if (!wave.has(deliveryId) || digest !== undefined) wave.set(deliveryId, digest);
    }
    const answers = await Promise.all([...wave].map(([deliveryId, digest]) => fetchOne(deliveryId, digest, powers)));
    for (const got of answers) {
      if (!got.ok) return got;
      fetched++;
      pending.set(got.value.deliveryId, got.value);
      for (const dep of got.value.dependencyIds) queue.push({ deliveryId: dep, digest: undefined });
    }
  }

  // Recompute every fetched module's digest over its closure (fetched and cached modules alike).
  const sourcesOf = new Map<string, GraphSource[]>();
  const ownSources = (id: string): GraphSource[] => {
    const module = pending.get(id) ?? verified.get(id);
    if (!module) return [];
    return module.info.sources.map((s) => ({
      id: s.id,
      kind: s.kind,
      content: s.content === 'source' ? module.source : s.content === 'wasm' ? (module.wasmBytes ?? new Uint8Array()) : wasmBridgeModuleSource(),
      ...(s.producer ? { producer: s.producer } : {}),
    }));
  };
  const depsOf = (id: string): readonly string[] => pending.get(id)?.dependencyIds ?? verified.get(id)?.dependencies.map((d) => d.deliveryId) ?? [];
  const closure = (root: string): GraphSource[] => {
    const memo = sourcesOf.get(root);
    if (memo) return memo;
    const list = graphClosure(root, ownSources, depsOf);
    sourcesOf.set(root, list);
    return list;
  };
  const computed = new Map<string, string>();
  // Dependencies were queued after their importers: checking in reverse order names the module
  // whose own content changed, not the first importer whose closure it spoils.
  for (const [id, module] of [...pending].reverse()) {
    let digest: string;
    try {
      digest = await powers.sha256(canonicalGraphBytes(closure(id)));
    } catch (error) {
      return fail('invalid-data', `Module ${module.info.displayName} (${id}) could not be hashed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (digest !== module.claimedDigest) return mismatch(module.info.displayName, id, digest, module.claimedDigest);
    computed.set(id, digest);
  }
  for (const [specifier, entry] of Object.entries(expected)) {
    const digest = computed.get(entry.moduleId) ?? verified.get(entry.moduleId)?.digest;
    if (digest !== entry.digest) {
      const name = pending.get(entry.moduleId)?.info.displayName ?? specifier;
      return mismatch(name, entry.moduleId, digest ?? 'nothing', entry.digest);
    }
  }
  for (const [id, module] of pending) {
    const dependencies = module.dependencyIds.map((dep) => ({ deliveryId: dep, digest: computed.get(dep) ?? verified.get(dep)?.digest ?? '' }));
    const done: VerifiedModule = {
      deliveryId: id,
      digest: computed.get(id) as string,
      info: module.info,
      source: module.source,
      ...(module.wasmBytes ? { wasmBytes: module.wasmBytes } : {}),
      dependencies,
    };
    verified.set(id, done);
    cache.remember(done);
  }

  // The kernel's view: module ids from the verified info; every import must target a module of this closure.
  const modules: Record<string, ExecutableModule> = {};
  const kernelIds = new Set<string>();
  for (const module of verified.values()) kernelIds.add(module.info.moduleId);
  for (const module of verified.values()) {
    const built = executable(module, kernelIds);
    if (!built.ok) return built;
    if (Object.hasOwn(modules, built.value.moduleId))
      return fail('invalid-data', `Two delivered modules claim the module id ${JSON.stringify(built.value.moduleId)}.`);
    modules[built.value.moduleId] = built.value;
  }
  const entries: Record<string, string> = {};
  for (const [specifier, entry] of Object.entries(expected)) entries[specifier] = (verified.get(entry.moduleId) as VerifiedModule).info.moduleId;
  return ok({ entries, modules, cached, fetched });
}

function mismatch(displayName: string, id: string, got: string, want: string): Result<never> {
  return fail(
    'digest-mismatch',
    `Module ${displayName} (${id}) was refused: what was delivered hashes to ${got.slice(0, 12)}…, not to its digest ${want.slice(0, 12)}…. Nothing was run; reload the page or run in the main process.`,
  );
}

async function fetchOne(deliveryId: string, digest: string | undefined, powers: ModuleSourcePowers): Promise<Result<Pending>> {
  const answer = await powers.fetchPart(deliveryId, 'source', digest);
  if (answer.status !== 200) return failureOf(answer, deliveryId);
  const claimedDigest = answer.header(DELIVERY_DIGEST_HEADER) ?? '';
  if (!DIGEST.test(claimedDigest)) return fail('invalid-data', `Module ${deliveryId} was delivered without a valid digest.`);
  const rawInfo = answer.header(DELIVERY_GRAPH_HEADER);
  let parsedJson: unknown;
  try {
    parsedJson = JSON.parse(decodeURIComponent(rawInfo ?? ''));
  } catch {
    return fail('invalid-data', `Module ${deliveryId} was delivered without readable graph information (${DELIVERY_GRAPH_HEADER}).`);
  }
  const info = DeliveredModuleInfoSchema.safeParse(parsedJson);
  if (!info.success) return fail('invalid-data', `Module ${deliveryId}: ${DELIVERY_GRAPH_HEADER}: ${formatIssues(info.error.issues)}`);
  const depsHeader = answer.header(DELIVERY_DEPENDENCIES_HEADER) ?? '';
  const dependencyIds = depsHeader === '' ? [] : depsHeader.split(',');
  if (!dependencyIds.every((d) => DELIVERY_ID.test(d))) return fail('invalid-data', `Module ${deliveryId} lists a dependency that is not a module id.`);
  let source: string;
  try {
    source = decoder.decode(answer.bytes);
  } catch {
    return fail('invalid-data', `Module ${info.data.displayName} (${deliveryId}) is not UTF-8 text.`);
  }
  if (info.data.kind !== 'wasm' || !info.data.sources.some((s) => s.content === 'wasm'))
    return ok({ deliveryId, claimedDigest, info: info.data, source, dependencyIds });
  const binary = await powers.fetchPart(deliveryId, 'wasm', claimedDigest);
  if (binary.status !== 200) return failureOf(binary, deliveryId);
  if (binary.header(DELIVERY_DIGEST_HEADER) !== claimedDigest) {
    return mismatch(info.data.displayName, deliveryId, binary.header(DELIVERY_DIGEST_HEADER) ?? 'nothing', claimedDigest);
  }
  return ok({ deliveryId, claimedDigest, info: info.data, source, wasmBytes: binary.bytes, dependencyIds });
}

function failureOf(answer: FetchedPart, deliveryId: string): Result<never> {
  try {
    const body = JSON.parse(new TextDecoder().decode(answer.bytes)) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string' && typeof body.message === 'string') return fail(body.code as ErrorCode, body.message);
  } catch {
    // fall through: not a tagged failure
  }
  return fail('service-unreachable', `Module ${deliveryId} could not be fetched (HTTP ${answer.status}).`);
}

function executable(module: VerifiedModule, kernelIds: ReadonlySet<string>): Result<ExecutableModule> {
  const { info } = module;
  for (const [request, target] of Object.entries(info.imports)) {
    if (target !== 'sandbox:wasm-bridge' && !kernelIds.has(target)) {
      return fail('invalid-data', `Module ${info.displayName} imports ${JSON.stringify(request)} as ${target}, which was not delivered with it.`);
    }
  }
  const base = {
    moduleId: info.moduleId,
    kind: info.kind,
    packName: info.packName,
    packVersion: info.packVersion,
    displayName: info.displayName,
    source: module.source,
    imports: info.imports,
    digest: module.digest,
  };
  if (info.kind !== 'wasm') return ok(base);
  // A WASM entry delivered without a binary can be mounted, but the dispatcher serves only modules
  // with bytes, so every call to it is refused (`wasm-not-declared`); the fixtures' scripted
  // WASM modules are delivered this way.
  if (!info.wasm && !module.wasmBytes && !info.sources.some((s) => s.content === 'wasm')) return ok(base);
  if (!info.wasm || !module.wasmBytes) return fail('invalid-data', `WASM module ${info.displayName} was delivered without its binary or exports.`);
  // The signatures come from the verified binary itself, like at discovery; the facade must be
  // exactly what the generator makes of them.
  const validated = validateWasmBinary(module.wasmBytes, { memoryPagesMax: info.wasm.memoryPagesMax, exports: info.wasm.exports });
  if (!validated.ok) return fail(validated.code, `${info.displayName}: ${validated.message}`);
  if (generateWasmFacade({ moduleId: info.moduleId, exports: validated.value.exports }) !== module.source) {
    return fail('invalid-data', `WASM module ${info.displayName}: the delivered facade does not match its exports.`);
  }
  return ok({
    ...base,
    wasm: { bytes: module.wasmBytes, exports: validated.value.exports, memoryPagesMax: info.wasm.memoryPagesMax, budgets: info.wasm.budgets },
  });
}
