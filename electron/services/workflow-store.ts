// Saved workflows: one JSON file per name under <data dir>/workflows/. A name is a single safe
// segment by its schema (no separators, no dots), so it maps to exactly one file inside that
// folder; files are parsed back with the workflow schema, so a hand-edited file that breaks the
// format is reported, never handed to the kernel.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { WorkflowNameSchema } from '../../shared/contract/schemas.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { readJsonFile, writeJsonFileAtomic } from './json-file.ts';

export const WORKFLOWS_DIR = 'workflows';

export interface WorkflowStore<W> {
  list(): Promise<Result<string[]>>;
  load(name: string): Promise<Result<W>>;
  save(name: string, workflow: W): Promise<Result<string>>;
}

export function createWorkflowStore<S extends z.ZodType>(dataDir: string, schema: S): WorkflowStore<z.output<S>> {
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
      const read = await readJsonFile(fileOf(name), schema);
      if (!read.ok) return read;
      if (read.value === undefined) return fail('not-found', `There is no saved workflow named "${name}".`);
      return ok(read.value);
    },
    async save(name, workflow) {
      await writeJsonFileAtomic(fileOf(name), workflow);
      return ok(name);
    },
  };
}
