// First run: a fresh data directory gets the packs the app ships and an example workflow whose
// Code node imports two of them, so the app shows something that works at once, with no network.
// The packs are installed from the shipped tarballs (pack-tarball.ts) with one npm run for all of
// them (seed-install.ts); their npm modules come precompiled (precompiled.ts), so the first
// discovery does not bundle them.
//
// Invariants: the ledger stays truthful — each seeded record says it came from a local tarball
// ("tarball-file", shown as an unverified source like any tarball), with the tarball's integrity,
// and npm ran with scripts off: nothing executes pack code. It runs once per data directory, and
// only on a fresh one (`runFirstRun`).

import type { ChildProcess } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { EXAMPLE_WORKFLOW_NAME } from '../../shared/protocol/example-workflow.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { WorkflowSchema, type Workflow } from '../../shared/protocol/workflow.ts';
import { ledgerPath, readLedger } from '../install/ledger-store.ts';
import { readJsonFile, writeJsonFileAtomic } from '../services/json-file.ts';
import { createWorkflowStore } from '../services/workflow-store.ts';
import { SHIPPED_PACKS, type ShippedPack } from '../platform/assets.ts';
import { installPrecompiled, type PrecompiledOutcome, type PrecompiledSource } from './precompiled.ts';
import { installShippedTarballs } from './seed-install.ts';

export const FIRST_RUN_FILE = 'first-run.json';
export const EXAMPLE_WORKFLOW = EXAMPLE_WORKFLOW_NAME;

const MarkerSchema = z
  .object({
    format: z.literal(1),
    state: z.enum(['incomplete', 'done', 'skipped']),
    at: z.iso.datetime(),
    packs: z.array(z.string()),
  })
  .strict();
type Marker = z.infer<typeof MarkerSchema>;

/** The example's code: YAML parsed by the bridge pack, a distance by the geo pack's WASM export. */
export const EXAMPLE_CODE = [
  'import { load } from "@nodetool-ai/sandbox-yaml";',
  'import { distanceMeters } from "@nodetool-ai/sandbox-geo/simplify-wasm";',
  '',
  'const trip = load(`',
  'from: { name: Berlin, lat: 52.52, lon: 13.405 }',
  'to: { name: Paris, lat: 48.8566, lon: 2.3522 }',
  '`);',
  'const meters = await distanceMeters(trip.from.lat, trip.from.lon, trip.to.lat, trip.to.lon);',
  'return `${trip.from.name} → ${trip.to.name}: ${Math.round(meters / 1000)} km`;',
  '',
].join('\n');

export const EXAMPLE: Workflow = {
  nodes: [
    {
      id: 'example',
      type: 'code',
      code: EXAMPLE_CODE,
      packages: [{ specifier: '@nodetool-ai/sandbox-yaml' }, { specifier: '@nodetool-ai/sandbox-geo/simplify-wasm' }],
    },
  ],
};

export interface FirstRunOptions {
  readonly dataDir: string;
  /** The shipped tarball of a pack (the staged one, or one built on demand in dev). */
  readonly tarball: (pack: ShippedPack) => Promise<string>;
  /** Remembered in a fresh ledger; npm never contacts it for a local tarball with bundled deps. */
  readonly registry?: string;
  readonly onProgress?: (message: string) => void;
  /** The packs to seed (default: every shipped pack); tests seed fewer to stay quick. */
  readonly packs?: readonly ShippedPack[];
  /** The precompiled cache of the packs' npm modules and its expected sha256; without it they are compiled at discovery. */
  readonly precompiled?: () => Promise<PrecompiledSource | undefined>;
  /** Sees each npm child as it starts (tests count the runs). */
  readonly onNpmSpawn?: (child: ChildProcess) => void;
}

export interface FirstRunReport {
  /** done: seeded now. already-done / skipped: nothing to do (marker present, or not a fresh directory). */
  readonly state: 'done' | 'already-done' | 'skipped';
  readonly installed: readonly string[];
  readonly workflow?: string;
  /** What became of the precompiled cache, when packs were installed and one was offered. */
  readonly precompiled?: PrecompiledOutcome;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

function marker(state: Marker['state'], packs: readonly string[]): Marker {
  return { format: 1, state, at: new Date().toISOString(), packs: [...packs] };
}

/** Whether runFirstRun would do anything: no marker and no ledger (fresh), or an interrupted or damaged marker. */
export async function firstRunNeeded(dataDir: string): Promise<boolean> {
  const read = await readJsonFile(path.join(dataDir, FIRST_RUN_FILE), MarkerSchema);
  if (!read.ok) return true;
  if (read.value) return read.value.state === 'incomplete';
  return !(await exists(ledgerPath(dataDir)));
}

/**
 * Seeds a fresh data directory; idempotent. An interrupted run (marker "incomplete") resumes and
 * skips the packs the ledger already holds. A pack that fails to install fails the whole call
 * with the installer's code, and the marker stays "incomplete" so the next start tries again.
 *
 * The marker file makes this run once per data directory: a user who uninstalls a seeded pack
 * does not get it back on the next start. "Fresh" means no marker and no ledger: a data directory
 * that already holds installs (from an older version, or managed by hand) is left alone and only
 * gets the marker.
 */
export async function runFirstRun(options: FirstRunOptions): Promise<Result<FirstRunReport>> {
  const { dataDir } = options;
  const progress = options.onProgress ?? (() => {});
  const markerFile = path.join(dataDir, FIRST_RUN_FILE);
  const read = await readJsonFile(markerFile, MarkerSchema);
  if (!read.ok)
    return fail('invalid-data', `The first-run marker is damaged (${read.message}); delete ${FIRST_RUN_FILE} in the data directory to run it again.`);
  if (read.value && read.value.state !== 'incomplete') return ok({ state: 'already-done', installed: [] });
  if (!read.value && (await exists(ledgerPath(dataDir)))) {
    await writeJsonFileAtomic(markerFile, marker('skipped', []));
    return ok({ state: 'skipped', installed: [] });
  }
  await writeJsonFileAtomic(markerFile, marker('incomplete', []));

  const ledger = await readLedger(dataDir);
  const present = new Set(ledger.ok && ledger.value ? Object.keys(ledger.value.packs) : []);
  const packs = options.packs ?? SHIPPED_PACKS;
  const wanted = packs.filter((pack) => !present.has(pack.name));
  const installed: string[] = [];
  let precompiled: PrecompiledOutcome | undefined;
  if (wanted.length > 0) {
    progress(`installing ${wanted.length} shipped pack${wanted.length === 1 ? '' : 's'} from the bundled tarballs`);
    const tarballs = await Promise.all(wanted.map(async (pack) => ({ pack, file: await options.tarball(pack) })));
    const result = await installShippedTarballs({
      root: dataDir,
      tarballs,
      ...(options.registry ? { registry: options.registry } : {}),
      ...(options.onNpmSpawn ? { onNpmSpawn: options.onNpmSpawn } : {}),
    });
    if (!result.ok) return fail(result.code, `First run could not install the shipped packs: ${result.message}`);
    installed.push(...result.value);
    if (options.precompiled) {
      progress("preparing the packs' modules from the precompiled cache");
      const source = await options.precompiled();
      precompiled = source ? await installPrecompiled(dataDir, source, installed) : { ignored: 'this build has no precompiled cache' };
    }
  }

  const workflows = createWorkflowStore(dataDir, WorkflowSchema);
  const listed = await workflows.list();
  let workflow: string | undefined;
  if (listed.ok && !listed.value.includes(EXAMPLE_WORKFLOW)) {
    const saved = await workflows.save(EXAMPLE_WORKFLOW, EXAMPLE);
    if (!saved.ok) return saved;
    workflow = EXAMPLE_WORKFLOW;
  }
  await writeJsonFileAtomic(
    markerFile,
    marker(
      'done',
      packs.map((p) => p.name),
    ),
  );
  return ok({ state: 'done', installed, ...(workflow ? { workflow } : {}), ...(precompiled ? { precompiled } : {}) });
}
