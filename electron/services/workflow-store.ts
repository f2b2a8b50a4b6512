// Saved workflows: one JSON file per name under <data dir>/workflows/. A name is a single safe
// segment by its schema (no separators, no dots), so it maps to exactly one file inside that
// folder; files are parsed back with the workflow schema, so a hand-edited file that breaks the
// format is reported, never handed to the kernel. Saves are durable and keep the previous good
// generation as `<name>.json.bak`; a damaged file is restored from it when loaded (a garbled one
// without a backup is moved aside, never deleted) and `onRepaired` is told. A full disk answers
// `disk-full` and the saved copy stays as it was.

import { readdir } from 'node:fs/promises';
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
  };
}
