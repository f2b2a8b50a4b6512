// The install ledger: the managed root's record of what was installed, from which exact artifact,
// with which lifecycle scripts, and whether the user consented to it. In a managed root the
// ledger, not the node_modules tree, decides what is active. It is read back from disk, so it is
// parsed from `unknown` like any other boundary crossing.

import { z } from 'zod';
import { PackageNameSchema, PackageVersionSchema } from './manifest.ts';

export const INSTALL_MODES = ['sandbox-only', 'register', 'hybrid'] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

/** active: usable now. needs-trust: host code or scripts await consent. needs-rebuild: consent given, scripts not yet run successfully. */
export const PACK_INSTALL_STATUSES = ['active', 'needs-trust', 'needs-rebuild'] as const;
export type PackInstallStatus = (typeof PACK_INSTALL_STATUSES)[number];

export const INSTALL_SOURCES = ['registry', 'tarball-url', 'tarball-file'] as const;
export type InstallSource = (typeof INSTALL_SOURCES)[number];

/** What a user is shown about where the bytes came from. */
export const SOURCE_LABELS = { registry: 'registry', 'tarball-url': 'unverified source', 'tarball-file': 'unverified source' } as const;

const IntegritySchema = z.string().regex(/^sha(?:256|384|512)-[A-Za-z0-9+/]+=*$/, 'not an SRI integrity string');

/** One lifecycle script npm would run at install time, as written in the package. */
export const LifecycleScriptSchema = z
  .object({
    package: PackageNameSchema,
    version: PackageVersionSchema,
    /** Where the package sits in the root, e.g. node_modules/a/node_modules/b. */
    path: z.string().min(1).max(4096),
    event: z.string().min(1).max(64),
    command: z.string().max(10_000),
    /** True when the pack itself (not one of its dependencies) declares it. */
    own: z.boolean(),
  })
  .strict();
export type LifecycleScript = z.infer<typeof LifecycleScriptSchema>;

/** A package of the pack's installed closure (the pack itself first), pinned by the lockfile. */
export const ClosureEntrySchema = z
  .object({
    name: PackageNameSchema,
    version: PackageVersionSchema,
    path: z.string().min(1).max(4096),
    resolved: z.string().max(4096).optional(),
    integrity: IntegritySchema.optional(),
    hasInstallScript: z.boolean(),
    /** sha256 over the package directory's files (nested node_modules excluded), as installed with scripts off. */
    treeDigest: z.string().regex(/^[0-9a-f]{64}$/),
    /** The same digest after the trusted install scripts ran (scripts may write into their package). */
    builtDigest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  })
  .strict();
export type ClosureEntry = z.infer<typeof ClosureEntrySchema>;

export const TrustRecordSchema = z
  .object({
    name: PackageNameSchema,
    version: PackageVersionSchema,
    integrity: IntegritySchema,
    at: z.iso.datetime(),
  })
  .strict();
export type TrustRecord = z.infer<typeof TrustRecordSchema>;

export const PackRecordSchema = z
  .object({
    name: PackageNameSchema,
    version: PackageVersionSchema,
    spec: z.string().min(1).max(4096),
    resolved: z.string().max(4096),
    integrity: IntegritySchema,
    installMode: z.enum(INSTALL_MODES),
    installedAt: z.iso.datetime(),
    source: z.enum(INSTALL_SOURCES),
    sourceLabel: z.enum(['registry', 'unverified source']),
    scripts: z.array(LifecycleScriptSchema),
    closure: z.array(ClosureEntrySchema).min(1),
    trust: TrustRecordSchema.nullable(),
    status: z.enum(PACK_INSTALL_STATUSES),
    /** The user's decision to trust (or not) the pack for agents and its docs; absent: the default (shared/contract/pack-state.ts). Kept across updates. */
    useDecision: z.object({ trusted: z.boolean(), at: z.iso.datetime() }).strict().optional(),
    /** Why the last run of the trusted scripts failed (npm's own lines); cleared when they succeed. */
    setupFailure: z
      .object({ code: z.string().max(64), message: z.string().max(4000), at: z.iso.datetime() })
      .strict()
      .optional(),
  })
  .strict();
export type PackRecord = z.infer<typeof PackRecordSchema>;

export const LEDGER_FORMAT = 1;

export const LedgerSchema = z
  .object({
    format: z.literal(LEDGER_FORMAT),
    /** The registry this root installs from (remembered per root). */
    registry: z.url(),
    packs: z.record(PackageNameSchema, PackRecordSchema),
  })
  .strict()
  .refine((ledger) => Object.entries(ledger.packs).every(([key, record]) => key === record.name), {
    message: 'every pack record is filed under its own name',
  });
export type Ledger = z.infer<typeof LedgerSchema>;

/** Consent counts only for the exact artifact it was given to. */
export function trustCovers(record: Pick<PackRecord, 'name' | 'version' | 'integrity' | 'trust'>): boolean {
  const t = record.trust;
  return t !== null && t.name === record.name && t.version === record.version && t.integrity === record.integrity;
}
