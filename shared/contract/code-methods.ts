// The methods whose shapes come from the sandbox kernel (code.run, code.validate) and from the workflow file format (workflows.*). Kept apart from methods.ts
// because they follow the kernel's protocol files (shared/protocol/run.ts) rather than defining
// their own.
//
// Capabilities over the contract: a Code node run from the UI may be granted `fetch` to listed
// hosts (private and loopback addresses stay refused by the host handler), and its secrets and
// workspace by name only (`nodeGrants`): the host resolves the values from its secret store and
// the folder from the workflow's saved workspace setting, so no page supplies either.

import { z } from 'zod';
import { DeclarationListSchema } from '../protocol/declaration.ts';
import { LIMITS } from '../protocol/limits.ts';
import { IDENTIFIER_PATTERN, RunResultSchema } from '../protocol/run.ts';
import { runInputProblems } from '../protocol/run-inputs.ts';
import { ValidationIssueSchema, WorkflowSchema } from '../protocol/workflow.ts';
import { EmptyRequestSchema, WorkflowNameSchema } from './schemas.ts';
import { NodeGrantsSchema } from './secret-schemas.ts';
import { method } from './method.ts';

const HostPatternSchema = z
  .string()
  .max(253)
  .regex(/^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/, 'a host is a lower-case DNS name, optionally starting with "*."');

/**
 * A run's inputs: JSON values under identifier names. Reserved names, the nesting depth
 * (LIMITS.jsonDepth) and JSON-ness are checked with loops (run-inputs.ts) on the record as it
 * arrived, rather than by z.json(): that recursed once per level (a value a few thousand levels
 * deep ran out of stack) and, being a reference cycle, kept zod from compiling this schema.
 */
const RunInputsSchema = z
  .record(z.string(), z.unknown())
  .superRefine((inputs, ctx) => {
    for (const problem of runInputProblems(inputs)) ctx.addIssue({ code: 'custom', path: [problem.name], message: problem.message });
  })
  .pipe(z.record(z.string().regex(IDENTIFIER_PATTERN, 'an input name must be a JavaScript identifier'), z.unknown()));

/** The caller's name for a run, so code.cancel can stop it (the UI's Stop button). */
export const RunIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a run id is 1 to 64 letters, digits, "-" or "_"');

export const CodeRunRequestSchema = z
  .object({
    code: z.string().max(LIMITS.authoredJsBytes),
    packages: DeclarationListSchema,
    inputs: RunInputsSchema.optional(),
    fetchHosts: z.array(HostPatternSchema).max(64).optional(),
    timeoutMs: z.number().int().min(1).max(LIMITS.guestTimeoutMs).optional(),
    runId: RunIdSchema.optional(),
    /** The node's secret and workspace grants, by name; resolved on the host side (secret-schemas.ts). */
    nodeGrants: NodeGrantsSchema.optional(),
  })
  .strict();

export const ResolvedPackageSchema = z.object({
  specifier: z.string().max(300),
  packName: z.string().max(214),
  packVersion: z.string().max(256),
  digest: z.string().max(64),
});

export const CODE_METHODS = {
  'code.run': method(
    CodeRunRequestSchema,
    z.object({ result: RunResultSchema, resolved: z.array(ResolvedPackageSchema) }),
    'Run a Code node in the sandbox with its declared packages; a guest failure is a result with ok: false, not a failed call.',
  ),

  'code.cancel': method(
    z.object({ runId: RunIdSchema }).strict(),
    z.object({ cancelled: z.boolean() }),
    'Stop the code.run started with this runId; its worker is replaced, and the run answers with code "cancelled". `cancelled` is false when no such run is going.',
  ),

  'code.validate': method(
    z.object({ workflow: WorkflowSchema }).strict(),
    z.object({ valid: z.boolean(), issues: z.array(ValidationIssueSchema) }),
    'Check a workflow against the installed packs before it runs; `valid` is false when any issue is an error.',
  ),

  'workflows.list': method(EmptyRequestSchema, z.object({ names: z.array(WorkflowNameSchema) }), 'Saved workflow names.'),
  'workflows.load': method(
    z.object({ name: WorkflowNameSchema }).strict(),
    z.object({ name: WorkflowNameSchema, workflow: WorkflowSchema }),
    'Load a saved workflow.',
  ),
  'workflows.save': method(
    z.object({ name: WorkflowNameSchema, workflow: WorkflowSchema }).strict(),
    z.object({ name: WorkflowNameSchema }),
    'Save a workflow under a name (replaces one saved under the same name).',
  ),
  'workflows.rename': method(
    z.object({ from: WorkflowNameSchema, to: WorkflowNameSchema }).strict(),
    z.object({ name: WorkflowNameSchema }),
    'Rename a saved workflow; refused with name-taken when another is saved under the new name.',
  ),
  'workflows.delete': method(
    z.object({ name: WorkflowNameSchema }).strict(),
    z.object({ name: WorkflowNameSchema }),
    'Delete a saved workflow and its backup.',
  ),
} as const;
