// The data shapes the contract's methods exchange. Anything that comes from a pack (names,
// versions, summaries, reasons) is untrusted text: every string is length-bounded here, objects
// strip unknown keys on parse, and no shape has a field for a filesystem path. Skill bodies have
// exactly one schema that carries them (SkillDocSchema), used only by `catalog.skillDoc`.

import { z } from 'zod';
import { MODULE_STATUSES, PACK_STATUSES } from '../protocol/catalog.ts';
import { PackageNameSchema, WASM_TYPES } from '../protocol/manifest.ts';
import { LIMITS } from '../protocol/limits.ts';
import { ErrorCodeSchema } from './result-schema.ts';

const Text = (max: number) => z.string().max(max);

export const EmptyRequestSchema = z.object({}).strict();

/** A module row the UI may show (mirrors SandboxModuleSummary; codes restricted to the closed set). */
export const ModuleSummarySchema = z.object({
  specifier: Text(LIMITS.specifierChars),
  packName: Text(214),
  packVersion: Text(LIMITS.versionChars),
  kind: z.enum(['js', 'wasm']),
  status: z.enum(MODULE_STATUSES),
  code: ErrorCodeSchema.optional(),
  reason: Text(LIMITS.reasonChars).optional(),
  moduleId: Text(128).optional(),
  digest: Text(64).optional(),
  summary: Text(LIMITS.disclosureLineChars),
  exports: z.array(Text(LIMITS.exportNameChars)).max(LIMITS.exportsPerModule).optional(),
  signatures: z
    .array(
      z.object({
        as: Text(LIMITS.exportNameChars),
        params: z.array(z.enum(WASM_TYPES)).max(LIMITS.wasmMaxParams),
        results: z.array(z.enum(WASM_TYPES)).max(LIMITS.wasmMaxResults),
      }),
    )
    .max(LIMITS.exportsPerModule)
    .optional(),
  hasSkill: z.boolean(),
});
export type ModuleSummary = z.infer<typeof ModuleSummarySchema>;

export const PackWarningSchema = z.object({ code: ErrorCodeSchema, message: Text(LIMITS.reasonChars) });

/** One row per discovered pack (mirrors SandboxPackStatus). */
export const PackStatusSchema = z.object({
  name: Text(214),
  version: Text(LIMITS.versionChars),
  status: z.enum(PACK_STATUSES),
  code: ErrorCodeSchema.optional(),
  reason: Text(LIMITS.reasonChars).optional(),
  warnings: z.array(PackWarningSchema).max(LIMITS.warningsPerPack),
  modules: z.array(ModuleSummarySchema).max(LIMITS.modulesPerPack),
});
export type PackStatusRow = z.infer<typeof PackStatusSchema>;

/** One line of what reconcile did, and the most lines each of its lists holds. */
export const ReconcileLineSchema = Text(LIMITS.reasonChars);
export const RECONCILE_LINES_MAX = 256;

/** What the installer's start-up reconcile of the data directory found and fixed. */
export const ReconcileSummarySchema = z.discriminatedUnion('ok', [
  z
    .object({
      ok: z.literal(true),
      fixed: z.array(ReconcileLineSchema).max(RECONCILE_LINES_MAX),
      missing: z.array(ReconcileLineSchema).max(RECONCILE_LINES_MAX),
    })
    .strict(),
  z.object({ ok: z.literal(false), code: ErrorCodeSchema, message: Text(2000) }).strict(),
]);
export type ReconcileSummary = z.infer<typeof ReconcileSummarySchema>;

/** The body of a pack's SKILL.md, with what the UI needs to frame it (untrusted → banner). */
export const SkillDocSchema = z.object({
  packName: PackageNameSchema,
  packVersion: Text(LIMITS.versionChars),
  /** Whether the user trusted this pack; the UI shows an "untrusted documentation" banner when false. */
  trusted: z.boolean(),
  /** Frontmatter `name` and `description`, then the Markdown body after the frontmatter. */
  skillName: Text(LIMITS.skillNameChars),
  description: Text(LIMITS.skillDescriptionChars),
  markdown: Text(LIMITS.skillBytes),
});
export type SkillDoc = z.infer<typeof SkillDocSchema>;

/** A user-chosen workflow file name: one safe segment, never a path. */
export const WorkflowNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$/, 'a workflow name is 1–64 letters, digits, spaces, "-" or "_", starting with a letter or digit');

/** The registry the installer uses: http(s) only. */
export const RegistryUrlSchema = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'a registry is an http(s) URL without credentials');

/** The CodeAct session allowlist: the specifiers an agent session may mount (spec: "Trust model"). */
export const SessionAllowlistSchema = z.array(z.string().min(1).max(300)).max(256);

export const SettingsSchema = z.object({
  registry: RegistryUrlSchema,
  sessionAllowlist: SessionAllowlistSchema,
});
export type Settings = z.infer<typeof SettingsSchema>;
