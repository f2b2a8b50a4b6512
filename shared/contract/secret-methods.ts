// secrets.* (the user's secret store) and workspaces.* (each workflow's workspace folder). Kept
// apart from methods.ts so the grant plumbing reads in one place; see secret-schemas.ts for what
// may cross (names and folders the user chose, never a secret's value on the way back).

import { z } from 'zod';
import { EmptyRequestSchema, WorkflowNameSchema } from './schemas.ts';
import { SecretListSchema, SecretNameSchema, SecretValueSchema, WorkspaceFolderSchema } from './secret-schemas.ts';
import { method } from './method.ts';

export const SECRET_METHODS = {
  'secrets.list': method(EmptyRequestSchema, SecretListSchema, 'The names of the stored secrets and where they are kept; never their values.'),
  'secrets.set': method(
    z.object({ name: SecretNameSchema, value: SecretValueSchema }).strict(),
    z.object({ name: SecretNameSchema }),
    'Store a secret (replaces one of the same name); the value is never sent back.',
  ),
  'secrets.delete': method(
    z.object({ name: SecretNameSchema }).strict(),
    z.object({ name: SecretNameSchema, deleted: z.boolean() }),
    'Delete a stored secret; `deleted` is false when none had that name.',
  ),
  'workspaces.get': method(
    z.object({ workflow: WorkflowNameSchema }).strict(),
    WorkspaceFolderSchema,
    "A workflow's workspace folder (the default when none was chosen).",
  ),
  'workspaces.set': method(
    z.object({ workflow: WorkflowNameSchema, path: z.string().min(1).max(4096).nullable() }).strict(),
    WorkspaceFolderSchema,
    "Choose a workflow's workspace folder (an existing folder, by its full path); null goes back to the default.",
  ),
  'workspaces.pick': method(
    z.object({ workflow: WorkflowNameSchema }).strict(),
    z.object({ folder: WorkspaceFolderSchema.nullable() }),
    "Choose a workflow's workspace folder with the system's folder picker (the desktop window only); `folder` is null when the user cancelled.",
  ),
} as const;
