// What crosses the contract about secrets and workspace folders. A secret's value goes one way
// only, into `secrets.set`: no answer carries one (`secrets.list` names what is stored). A run
// names the secrets and the workspace its node was granted (`NodeGrantsSchema`), never their
// values or a folder: the host resolves both from its own secret store and the workflow's saved
// workspace setting, so a page can neither supply a secret value nor point a run at a folder.

import { z } from 'zod';
import { WorkflowNameSchema } from './schemas.ts';

/** A secret's name: an environment variable name (the CLI can take the value from one). */
export const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a secret name is 1–128 letters, digits or "_", not starting with a digit (like API_TOKEN)');

export const SecretValueSchema = z.string().min(1, 'a secret needs a value').max(65_536, 'a secret value is at most 64 KB');

/** Where secrets are kept: an owner-only file (CLI, web host) or sealed by the OS keychain (the desktop app). */
export const SecretStorageSchema = z.enum(['owner-only-file', 'os-keychain']);

export const SecretListSchema = z.object({
  storage: SecretStorageSchema,
  /** The stored names; each is set (a name without a value is not stored). */
  names: z.array(SecretNameSchema).max(1000),
});

/** The grants of a node a run resolves on the host: secrets by name, the workflow whose workspace folder it may use. */
export const NodeGrantsSchema = z
  .object({
    secrets: z.array(SecretNameSchema).max(64).optional(),
    workspace: z.object({ workflow: WorkflowNameSchema }).strict().optional(),
  })
  .strict();

/** A workflow's workspace folder as the host resolves it. */
export const WorkspaceFolderSchema = z.object({
  workflow: WorkflowNameSchema,
  path: z.string().max(4096),
  /** True when the user chose no folder: `<data dir>/workspaces/<workflow>/`, made on first use. */
  isDefault: z.boolean(),
  exists: z.boolean(),
  /** True where the app can show the system's folder picker (the desktop window); elsewhere the path is typed. */
  canPick: z.boolean(),
});
