// Shapes of the package-manager methods (packs.*). They describe what the installer reports in
// terms the UI needs: which mode an install ran in, whether the pack is active or waits for the
// user's trust, and — for a trust decision — the literal scripts that would run.

import { z } from 'zod';
import { INSTALL_MODES, PACK_INSTALL_STATUSES } from '../protocol/ledger.ts';
import { LIMITS } from '../protocol/limits.ts';
import { PackageNameSchema } from '../protocol/manifest.ts';

const Text = (max: number) => z.string().max(max);

export const InstallModeSchema = z.enum(INSTALL_MODES);
export const PackActivationSchema = z.enum(PACK_INSTALL_STATUSES);

/** A lifecycle script found in the pack (`own`) or one of its dependencies, shown verbatim before trust. */
export const LifecycleScriptViewSchema = z.object({
  package: Text(214),
  version: Text(256),
  event: Text(64),
  command: Text(10_000),
  own: z.boolean(),
});

export const InstalledPackSchema = z.object({
  name: PackageNameSchema,
  version: Text(256),
  installMode: InstallModeSchema,
  status: PackActivationSchema,
  /** Where the bytes came from, as the user is told: "registry" or "unverified source". Never a path. */
  sourceLabel: z.enum(['registry', 'unverified source']),
  integrity: Text(512),
  scripts: z.array(LifecycleScriptViewSchema).max(1024),
  /** Whether the user's consent covers this exact artifact (name, version, integrity). */
  trusted: z.boolean(),
  installedAt: Text(64),
  /** The pack's own package.json description, where it has one. */
  description: Text(1000).optional(),
  /** True for a pack the app ships and seeded from its own tarball (not an unverified source). */
  shipped: z.boolean().optional(),
  /** The user's own decision to trust the pack for agents and its docs; absent: the default (pack-state.ts). */
  useDecision: z.enum(['trusted', 'untrusted']).optional(),
  /** Why the last run of its trusted install scripts failed (npm's lines), while it still has. */
  setupFailure: z.object({ code: Text(64), message: Text(4000) }).optional(),
});
export type InstalledPack = z.infer<typeof InstalledPackSchema>;

export const SearchHitSchema = z.object({
  name: PackageNameSchema,
  version: Text(256),
  description: Text(1000),
  sandboxModules: z.array(Text(LIMITS.specifierChars)).max(LIMITS.modulesPerPack),
  recommended: z.boolean(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

/** Client-chosen id so install progress events can be matched to the call that started them. */
export const OperationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an operation id is 1–64 letters, digits, "-" or "_"');

/** What the user typed: the installer parses it (and refuses git, flags, …) — here only bounded. */
export const PackSpecSchema = z.string().trim().min(1).max(2048);

export const TrustPlanSchema = z.object({
  name: PackageNameSchema,
  version: Text(256),
  integrity: Text(512),
  scripts: z.array(LifecycleScriptViewSchema).max(1024),
  /** The host-code entry (nodetool.register) trusting lets run, as the installed manifest names it. */
  register: Text(1024).optional(),
  /** Publisher and repository as the installed package.json states them (unverified claims). */
  author: Text(500).optional(),
  repository: Text(1000).optional(),
  /** When the registry says this version was published, where it says so. */
  publishedAt: Text(64).optional(),
});

/** The artifact the user reviewed: trust and rebuild refuse with pack-changed if another is installed now. */
export const ReviewedArtifactSchema = z.object({ version: Text(256), integrity: Text(512) }).strict();

/** The most installed packs one packs.updates answer checks. */
export const UPDATE_CHECKS_MAX = 1024;

/** One installed pack against the configured registry's latest version. */
export const UpdateCheckSchema = z.object({
  name: PackageNameSchema,
  installed: Text(256),
  /** registry: checked; tarball: installed from a file or URL, so there is nothing to ask a registry. */
  source: z.enum(['registry', 'tarball']),
  state: z.enum(['update', 'current', 'tarball', 'unavailable']),
  latest: Text(256).optional(),
  publishedAt: Text(64).optional(),
  /** Module specifiers the manifest of `latest` no longer declares. */
  removedModules: z.array(Text(300)).max(64),
  /** WASM exports the manifest of `latest` no longer declares, as specifier → names. */
  removedExports: z.array(z.object({ specifier: Text(300), names: z.array(Text(128)).max(64) })).max(64),
  /** Why the check could not answer (state unavailable). */
  message: Text(2000).optional(),
  /** What `latest` can do outside the sandbox, from its manifest: install mode, host code entry, own install scripts. */
  latestMode: InstallModeSchema.optional(),
  latestRegister: Text(1024).optional(),
  latestScripts: z
    .array(z.object({ event: Text(64), command: Text(10_000) }))
    .max(8)
    .optional(),
});
export type UpdateCheck = z.infer<typeof UpdateCheckSchema>;
export type TrustPlan = z.infer<typeof TrustPlanSchema>;
