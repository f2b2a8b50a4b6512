// Saved workflows: one JSON file per name under <data dir>/workflows/. A name is a single safe
// segment by its schema (no separators, no dots), so it maps to exactly one file inside that
// folder; files are parsed back with the workflow schema, so a hand-edited file that breaks the
// format is reported, never handed to the kernel. Saves are durable and keep the previous good
// generation as `<name>.json.bak`; a damaged file is restored from it when loaded (a garbled one
// without a backup is moved aside, never deleted) and `onRepaired` is told. A full disk answers
// `disk-full` and the saved copy stays as it was. Rename never replaces another saved workflow
// (`name-taken`); delete removes the file and its backup (the UI asks first).

import { access, link, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { WorkflowNameSchema } from '../../shared/contract/schemas.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { isDiskFull } from '../platform/durable-file.ts';
import { readJsonFileRepairing, writeJsonFileAtomic } from './json-file.ts';

export const WORKFLOWS_DIR = 'workflows';

export interface WorkflowStore<W> {
  list(): Promise<Result<string[]>>;
  load(name: string): Promise<Result<W>>;
  save(name: string, workflow: W): Promise<Result<string>>;
  /** Moves `from` (and its backup) to `to`; refuses a `to` that is saved already. */
  rename(from: string, to: string): Promise<Result<string>>;
  /** Removes the saved workflow and its backup. */
  remove(name: string): Promise<Result<string>>;
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

export interface WorkflowStoreOptions {
  /** Told, in a sentence, about each repair of a damaged workflow file. */
  readonly onRepaired?: (sentence: string) => void;
}

export function createWorkflowStore<S extends z.ZodType>(dataDir: string, schema: S, options: WorkflowStoreOptions = {}): WorkflowStore<z.output<S>> {
  const dir = path.join(dataDir, WORKFLOWS_DIR);
  const fileOf = (name: string): string => {
    // The schema already refuses anything else; this is the assertion that keeps it so.
    if (!WorkflowNameSchema.safeParse(name).success) throw new RangeError(`not a workflow name: ${JSON.stringify(name)}`);
    return path.join(dir, `${name}.json`);
  };
  return {
    async list() {
      let entries: string[];
      try {
        entries = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok([]);
        throw error;
      }
      const names = entries
        .filter((entry) => entry.endsWith('.json'))
        .map((entry) => entry.slice(0, -'.json'.length))
        .filter((name) => WorkflowNameSchema.safeParse(name).success);
      return ok(names.sort((a, b) => a.localeCompare(b)));
    },
    async load(name) {
      const read = await readJsonFileRepairing(fileOf(name), schema, 'The saved workflow file', `the workflow "${name}" is no longer listed`);
      if (read.repaired) options.onRepaired?.(read.repaired);
      if (read.value !== undefined) return ok(read.value);
      if (read.invalid) return fail('invalid-data', read.invalid);
      if (read.repaired) return fail('invalid-data', read.repaired);
      return fail('not-found', `There is no saved workflow named "${name}".`);
    },
    async save(name, workflow) {
      try {
        await writeJsonFileAtomic(fileOf(name), workflow, schema);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        return fail(
          'disk-full',
          `The disk holding the data directory is full, so the workflow "${name}" could not be saved; the saved copy is as it was. Free some space, then save again.`,
        );
      }
      return ok(name);
    },
    async rename(from, to) {
      const source = fileOf(from);
      const target = fileOf(to);
      if (!(await exists(source))) return fail('not-found', `There is no saved workflow named "${from}".`);
      if (from === to) return ok(to);
      const taken = () => fail('name-taken', `A workflow named "${to}" is saved already; choose another name, or delete that one first.`);
      // Only a change of case (one file on a case-insensitive disk) may move onto a name that "exists".
      if (from.toLowerCase() === to.toLowerCase()) {
        if ((await readdir(dir)).includes(`${to}.json`)) return taken();
        await rename(source, target);
      } else {
        // A hard link fails when the target exists, so no check-then-write race can replace another workflow.
        try {
          await link(source, target);
        } catch (error) {
          if (errno(error) === 'EEXIST') return taken();
          if (errno(error) !== 'EPERM' && errno(error) !== 'ENOTSUP' && errno(error) !== 'EXDEV') throw error;
          if (await exists(target)) return taken();
          await rename(source, target);
        }
        await unlink(source).catch((error: unknown) => {
          if (errno(error) !== 'ENOENT') throw error;
        });
      }
      if (await exists(`${source}.bak`)) await rename(`${source}.bak`, `${target}.bak`);
      return ok(to);
    },
    async remove(name) {
      const file = fileOf(name);
      try {
        await unlink(file);
      } catch (error) {
        if (errno(error) === 'ENOENT') return fail('not-found', `There is no saved workflow named "${name}".`);
        throw error;
      }
      // Left behind, the backup would bring the workflow back as "restored" on the next load of that name.
      await rm(`${file}.bak`, { force: true });
      return ok(name);
    },
  };
}
