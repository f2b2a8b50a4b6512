// The service contract as data: method name → request schema and value schema. Main-side
// handlers, the dispatcher, the HTTP route, the IPC channel and both renderer clients are all
// derived from this one record, so a method exists everywhere or nowhere. Method names are the
// only "channel names" there are; no face builds its own.

import { z } from 'zod';
import { PackageNameSchema } from '../protocol/manifest.ts';
import type { Result } from '../protocol/result.ts';
import { resultSchema } from './result-schema.ts';
import {
  EmptyRequestSchema,
  ModuleSummarySchema,
  PackStatusSchema,
  ReconcileSummarySchema,
  RegistryUrlSchema,
  SessionAllowlistSchema,
  SettingsSchema,
  SkillDocSchema,
} from './schemas.ts';
import {
  InstalledPackSchema,
  OperationIdSchema,
  PackSpecSchema,
  ReviewedArtifactSchema,
  TrustPlanSchema,
  UPDATE_CHECKS_MAX,
  UpdateCheckSchema,
} from './pack-schemas.ts';
import { PackSearchResultSchema } from './search-schemas.ts';
import { PackDetailsSchema } from './details-schemas.ts';
import { CODE_METHODS } from './code-methods.ts';
import { SECRET_METHODS } from './secret-methods.ts';
import { method } from './method.ts';

const PackNameRequest = z.object({ name: PackageNameSchema, operationId: OperationIdSchema.optional() }).strict();
/** Trust and rebuild name the artifact the dialog showed; a stale dialog is refused, never acted on. */
const ReviewedRequest = z.object({ name: PackageNameSchema, operationId: OperationIdSchema.optional(), reviewed: ReviewedArtifactSchema.optional() }).strict();

export const CONTRACT = {
  'packs.list': method(
    EmptyRequestSchema,
    // The registry the root remembers (set by its first install); absent in a root nothing was installed in.
    z.object({ registry: z.string().max(2048).optional(), packs: z.array(InstalledPackSchema) }),
    'Packs installed in the managed root, from the ledger, and the registry the root remembers.',
  ),
  'packs.search': method(
    z.object({ term: z.string().max(200) }).strict(),
    PackSearchResultSchema,
    "Search for packs: the bundled registry index merged with the configured registry's npm search for the sandbox-pack keyword.",
  ),
  'packs.install': method(
    z.object({ spec: PackSpecSchema, operationId: OperationIdSchema.optional() }).strict(),
    InstalledPackSchema,
    'Install a pack with scripts disabled; progress arrives as install-progress events.',
  ),
  'packs.uninstall': method(PackNameRequest, z.object({ name: PackageNameSchema }), 'Remove an installed pack.'),
  'packs.cancel': method(
    z.object({ operationId: OperationIdSchema }).strict(),
    z.object({ cancelled: z.boolean() }),
    'Stop the install or update started with this operationId: npm is stopped, what it changed is undone, and the call answers with code "install-cancelled". `cancelled` is false when no such operation is running.',
  ),
  'packs.update': method(
    z.object({ name: PackageNameSchema, to: z.string().min(1).max(256).optional(), operationId: OperationIdSchema.optional() }).strict(),
    InstalledPackSchema,
    'Update a pack; it is classified again like a fresh install.',
  ),
  'packs.trust': method(ReviewedRequest, InstalledPackSchema, 'Trust a pack as installed and run its install scripts against the artifact on disk.'),
  'packs.trustDryRun': method(PackNameRequest, TrustPlanSchema, 'The literal install scripts trusting this pack would run.'),
  'packs.rebuild': method(ReviewedRequest, InstalledPackSchema, "Run a trusted pack's install scripts again."),
  'packs.decideUse': method(
    z.object({ name: PackageNameSchema, trusted: z.boolean() }).strict(),
    InstalledPackSchema,
    "Trust a pack for agents and its docs, or revoke that (the agent's default allowlist follows); runs nothing.",
  ),
  'packs.updates': method(
    EmptyRequestSchema,
    z.object({ registry: z.string().max(2048), packs: z.array(UpdateCheckSchema).max(UPDATE_CHECKS_MAX) }),
    'Each installed pack against the latest version on the configured registry (read from its metadata; nothing is installed or run).',
  ),
  'packs.details': method(
    z.object({ name: PackageNameSchema }).strict(),
    PackDetailsSchema,
    "One installed pack's modules, their exports and its SKILL.md, also before trust (read from its files; nothing of it runs).",
  ),

  'catalog.summaries': method(EmptyRequestSchema, z.object({ modules: z.array(ModuleSummarySchema) }), 'Every discovered module with its one-line summary.'),
  'catalog.diagnostics': method(
    EmptyRequestSchema,
    z.object({
      packs: z.array(PackStatusSchema),
      reconcile: ReconcileSummarySchema.nullable(),
      // The npm the installer runs and the runtime it runs on (versions only: answers carry no paths).
      runtime: z.object({ npm: z.string().nullable(), node: z.string(), electron: z.string().nullable() }).strict(),
    }),
    'One row per pack: status, warnings, modules; what start-up reconcile fixed (null where none ran); the npm and runtime versions in use.',
  ),
  'catalog.skillDoc': method(
    z.object({ packName: PackageNameSchema }).strict(),
    SkillDocSchema,
    "A pack's SKILL.md body, marked trusted or not; the only method that returns skill text.",
  ),

  ...CODE_METHODS,
  ...SECRET_METHODS,

  'settings.get': method(EmptyRequestSchema, SettingsSchema, 'The registry and the agent session allowlist.'),
  'settings.setRegistry': method(z.object({ registry: RegistryUrlSchema }).strict(), SettingsSchema, 'Change the registry packs are installed from.'),
  'settings.setSessionAllowlist': method(
    z.object({ sessionAllowlist: SessionAllowlistSchema }).strict(),
    SettingsSchema,
    'Set the specifiers an agent session may mount.',
  ),
} as const;

export type Contract = typeof CONTRACT;
export type MethodName = keyof Contract;
/** What a caller passes (before defaults/transforms). */
export type RequestOf<M extends MethodName> = z.input<Contract[M]['request']>;
/** What a handler receives (after parsing). */
export type ParsedRequestOf<M extends MethodName> = z.output<Contract[M]['request']>;
export type ValueOf<M extends MethodName> = z.output<Contract[M]['value']>;

export const METHOD_NAMES = Object.keys(CONTRACT) as MethodName[];

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(CONTRACT, value);
}

const responseSchemas = new Map<MethodName, z.ZodType>();
/** The tagged-result schema of a method's response (cached: built once per method). */
export function responseSchemaOf<M extends MethodName>(name: M): z.ZodType<Result<ValueOf<M>>> {
  let schema = responseSchemas.get(name);
  if (!schema) {
    schema = resultSchema(CONTRACT[name].value);
    responseSchemas.set(name, schema);
  }
  return schema as z.ZodType<Result<ValueOf<M>>>;
}
