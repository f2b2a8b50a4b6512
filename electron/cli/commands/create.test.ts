// `sandbox-packs create` prints its next steps as command lines, and each runs as printed: the
// real CLI (a child process, as a user starts it) creates a pack, then every printed step runs in
// a shell from the same folder — `check` with this same CLI (never `npx sandbox-packs`, which asks
// the public registry for a name that is not ours), and `npm publish` into a local Verdaccio.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_SCRIPT } from '../../testing/cli-process.ts';
import { startRegistry, type TestRegistry } from '../../testing/verdaccio.ts';

const exec = promisify(execFile);
const NAME = '@sp-fixture/create-steps';
let work: string;
let registry: TestRegistry;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'sp-create-steps-'));
  registry = await startRegistry({ uplink: false });
}, 60_000);
afterAll(async () => {
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
});

/** The indented lines after "then run:", up to the note that ends the list. */
function printedSteps(out: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Next: ') && l.endsWith('then run:'));
  const steps: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    steps.push(line.trim());
  }
  return steps;
}

describe('sandbox-packs create', () => {
  it('prints next steps that each run as printed: check passes with this CLI, npm publish publishes', async () => {
    const created = await exec(process.execPath, [CLI_SCRIPT, 'create', 'my pack', '--name', NAME], { cwd: work });
    const steps = printedSteps(created.stdout);
    expect(steps).toEqual([`node ${CLI_SCRIPT} check './my pack'`, "npm publish './my pack'"]);
    expect(created.stdout).not.toContain('npx');
    const env = { ...process.env, npm_config_registry: registry.url, npm_config_userconfig: registry.userconfig, npm_config_provenance: 'false' };
    for (const step of steps) {
      const ran = await exec('sh', ['-c', step], { cwd: work, env });
      if (step.includes(' check ')) expect(ran.stdout.split('\n')[0]).toBe(`${NAME}@0.1.0: check passed`);
    }
    const published = (await (await fetch(`${registry.url}${NAME.replace('/', '%2f')}`)).json()) as { versions: Record<string, unknown> };
    expect(Object.keys(published.versions)).toEqual(['0.1.0']);
  }, 120_000);
});
