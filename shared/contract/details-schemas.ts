// What packs.details answers: one installed pack's modules, what they export and its SKILL.md,
// for every state it can be in — also a pack that waits for trust, which is exactly when the user
// must decide. Such a pack is not in the catalog, so its rows are read from its files by the same
// static analysis discovery runs (`from: 'files'`); nothing of it is executed.

import { z } from 'zod';
import { LIMITS } from '../protocol/limits.ts';
import { PackageNameSchema } from '../protocol/manifest.ts';
import { ModuleSummarySchema, SkillDocSchema } from './schemas.ts';

export const PackDetailsSchema = z.object({
  name: PackageNameSchema,
  version: z.string().max(256),
  /** catalog: the modules the app serves now; files: read from the installed files of a pack that is not active. */
  from: z.enum(['catalog', 'files']),
  modules: z.array(ModuleSummarySchema).max(LIMITS.modulesPerPack),
  /** Why discovery rejected the whole pack, when it did. */
  rejected: z.string().max(LIMITS.reasonChars).optional(),
  skill: SkillDocSchema.optional(),
  /** Why there is no SKILL.md to show (missing, too large, malformed). */
  skillProblem: z.string().max(LIMITS.reasonChars).optional(),
});
export type PackDetails = z.infer<typeof PackDetailsSchema>;
