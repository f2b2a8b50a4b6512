// The workflow file `sandbox-packs validate` and `run` read: Code nodes with their code, their
// packages declaration and (optionally) the capabilities they are granted. Parsed from `unknown`:
// workflows are shared between people and machines, so nothing in one is trusted.

import { z } from 'zod';
import { ErrorCodeSchema } from './codes.ts';
import { DeclarationListSchema } from './declaration.ts';
import { LIMITS } from './limits.ts';

export const WorkflowGrantsSchema = z
  .object({
    fetch: z
      .object({ hosts: z.array(z.string().min(1).max(253)).max(64), allowPrivate: z.boolean().optional() })
      .strict()
      .optional(),
    workspace: z.boolean().optional(),
    secrets: z.array(z.string().min(1).max(256)).max(64).optional(),
  })
  .strict();
export type WorkflowGrants = z.infer<typeof WorkflowGrantsSchema>;

export const CodeNodeSchema = z
  .object({
    id: z.string().min(1).max(200),
    type: z.literal('code'),
    code: z.string().max(LIMITS.bundledJsBytes),
    packages: DeclarationListSchema,
    grants: WorkflowGrantsSchema.optional(),
  })
  .strict();
export type CodeNode = z.infer<typeof CodeNodeSchema>;

export const WorkflowSchema = z
  .object({ nodes: z.array(CodeNodeSchema).max(1000) })
  .strict()
  .refine((w) => new Set(w.nodes.map((n) => n.id)).size === w.nodes.length, { message: 'node ids must be unique', path: ['nodes'] });
export type Workflow = z.infer<typeof WorkflowSchema>;

export const ValidationIssueSchema = z
  .object({
    nodeId: z.string(),
    severity: z.enum(['error', 'warning']),
    code: ErrorCodeSchema,
    message: z.string(),
    specifier: z.string().optional(),
    /** An installed or listed specifier the user probably meant ("did you mean"), when one matches. */
    suggestion: z.string().optional(),
    /** Where in the node's code (1-based), when the issue has a place: editors mark that line. */
    line: z.number().int().min(1).optional(),
    column: z.number().int().min(1).optional(),
  })
  .strict();
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;
