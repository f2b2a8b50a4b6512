// Each workflow's workspace folder: the one a Code node granted `workspace` reads and writes. The
// user may choose one per workflow (kept in <data dir>/workspace-folders.json, read back through
// zod); otherwise it is <data dir>/workspaces/<workflow name>/, made on first use. Only this host
// side turns a workflow name into a folder: a run names the workflow, never a path.

import { mkdir, realpath, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { WorkflowNameSchema } from '../../shared/contract/schemas.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import { readJsonFileRepairing, writeJsonFileAtomic } from './json-file.ts';

export const WORKSPACES_DIR = 'workspaces';
export const WORKSPACE_FOLDERS_FILE = 'workspace-folders.json';

const FoldersSchema = z.record(WorkflowNameSchema, z.string().min(1).max(4096));

export interface WorkspaceFolder {
  readonly workflow: string;
  readonly path: string;
  readonly isDefault: boolean;
  readonly exists: boolean;
}

export interface WorkspaceStore {
  get(workflow: string): Promise<Result<WorkspaceFolder>>;
  /** Choose a folder (an existing directory, by its absolute path); null: back to the default. */
  set(workflow: string, folder: string | null): Promise<Result<WorkspaceFolder>>;
  /** The folder a run uses, made first when it is the default and missing. */
  forRun(workflow: string): Promise<Result<string>>;
  /**
   * A workflow was renamed: its chosen folder follows it, and so does its default folder (moved
   * when the new name has none yet). For workflows.rename; nothing in the folder is lost.
   */
  rename(from: string, to: string): Promise<Result<WorkspaceFolder>>;
}

export interface WorkspaceStoreOptions {
  readonly onRepaired?: (sentence: string) => void;
}

const isDir = async (dir: string): Promise<boolean> => (await stat(dir).catch(() => undefined))?.isDirectory() === true;
const exists = async (file: string): Promise<boolean> => (await stat(file).catch(() => undefined)) !== undefined;

export function createWorkspaceStore(dataDir: string, options: WorkspaceStoreOptions = {}): WorkspaceStore {
  const file = path.join(dataDir, WORKSPACE_FOLDERS_FILE);
  let queue: Promise<unknown> = Promise.resolve();

  async function chosen(): Promise<Result<Record<string, string>>> {
    const read = await readJsonFileRepairing(file, FoldersSchema, 'The workspace folders file', 'every workflow uses its default workspace folder');
    if (read.repaired) options.onRepaired?.(read.repaired);
    if (read.invalid) return fail('invalid-data', `${read.invalid} (fix or delete ${WORKSPACE_FOLDERS_FILE} in the data directory)`);
    return ok(read.value ?? {});
  }

  const defaultOf = (workflow: string): string => path.join(dataDir, WORKSPACES_DIR, workflow);

  async function get(workflow: string): Promise<Result<WorkspaceFolder>> {
    assertName(workflow);
    const folders = await chosen();
    if (!folders.ok) return folders;
    const picked = Object.hasOwn(folders.value, workflow) ? folders.value[workflow] : undefined;
    const folder = picked ?? defaultOf(workflow);
    return ok({ workflow, path: folder, isDefault: picked === undefined, exists: await isDir(folder) });
  }

  return {
    get,
    set(workflow, folder) {
      assertName(workflow);
      const next = queue.then(async (): Promise<Result<WorkspaceFolder>> => {
        let resolved: string | undefined;
        if (folder !== null) {
          const problem = await folderProblem(folder, dataDir);
          if (problem) return fail('invalid-data', problem);
          resolved = await realpath(folder);
        }
        const folders = await chosen();
        if (!folders.ok) return folders;
        const { [workflow]: _old, ...rest } = folders.value;
        try {
          await writeJsonFileAtomic(file, resolved === undefined ? rest : { ...rest, [workflow]: resolved }, FoldersSchema);
        } catch (error) {
          if (!isDiskFull(error)) throw error;
          return fail('disk-full', 'The disk holding the data directory is full, so the workspace folder could not be saved; it is as it was.');
        }
        return get(workflow);
      });
      queue = next.catch(() => undefined);
      return next;
    },
    rename(from, to) {
      assertName(from);
      assertName(to);
      const next = queue.then(async (): Promise<Result<WorkspaceFolder>> => {
        const folders = await chosen();
        if (!folders.ok) return folders;
        const { [from]: picked, ...rest } = folders.value;
        if (picked !== undefined) {
          try {
            await writeJsonFileAtomic(file, { ...rest, [to]: picked }, FoldersSchema);
          } catch (error) {
            if (!isDiskFull(error)) throw error;
            return fail('disk-full', 'The disk holding the data directory is full, so the workspace folder could not follow the renamed workflow.');
          }
        } else if ((await isDir(defaultOf(from))) && !(await exists(defaultOf(to)))) await rename(defaultOf(from), defaultOf(to));
        return get(to);
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async forRun(workflow) {
      const folder = await get(workflow);
      if (!folder.ok) return folder;
      if (folder.value.exists) return ok(folder.value.path);
      if (!folder.value.isDefault)
        return fail(
          'not-found',
          `The workspace folder chosen for the workflow "${workflow}" (${folder.value.path}) no longer exists; choose another one or go back to the default.`,
        );
      await mkdir(folder.value.path, { recursive: true });
      return ok(folder.value.path);
    },
  };
}

/** Why `folder` cannot be a workspace (a sentence), or undefined when it can. */
async function folderProblem(folder: string, dataDir: string): Promise<string | undefined> {
  if (!path.isAbsolute(folder)) return `"${folder}" is not a full path; give the folder's full path (starting at the top of the disk).`;
  if (!(await isDir(folder))) return `There is no folder at ${folder}; create it first, or give another one.`;
  const real = await realpath(folder);
  if (path.parse(real).root === real) return 'The top of the disk cannot be a workspace; choose a folder of its own.';
  const data = await realpath(dataDir).catch(() => dataDir);
  const inData = path.relative(data, real);
  if (inData === '' || (!inData.startsWith('..') && !path.isAbsolute(inData) && inData.split(path.sep)[0] !== WORKSPACES_DIR))
    return "The app's data directory cannot be a workspace (nodes would reach its packs and settings); choose another folder.";
  return undefined;
}

function assertName(workflow: string): void {
  if (!WorkflowNameSchema.safeParse(workflow).success) throw new RangeError(`not a workflow name: ${JSON.stringify(workflow)}`);
}
