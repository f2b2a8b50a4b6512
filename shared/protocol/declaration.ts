// What a Code node saves about each module it imports. Resolution always uses the installed
// version; the recorded version and graph digest only produce warnings when they drift.

import { z } from 'zod';

export const DigestSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a digest is 64 lower-case hex characters (sha256)');

export const SpecifierSchema = z.string().min(1).max(300);

export const SandboxModuleDeclarationSchema = z
  .object({
    specifier: SpecifierSchema,
    resolvedPackVersion: z.string().min(1).max(256).optional(),
    contentDigest: DigestSchema.optional(),
    /**
     * The module runs in a QuickJS context of its own (shared/sandbox/kernel/isolation.ts): none of
     * the node's capabilities, inputs or globals, and only copies of the values passed to it.
     */
    isolation: z.boolean().optional(),
  })
  .strict();
export type SandboxModuleDeclaration = z.infer<typeof SandboxModuleDeclarationSchema>;

export const DeclarationListSchema = z.array(SandboxModuleDeclarationSchema).max(64);
