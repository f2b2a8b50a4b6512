// packs.details: one installed pack's modules, exports and SKILL.md for its Details panel. An
// active pack answers from the catalog (what runs); any other pack — waiting for trust, a failed
// setup, one still being set up — is examined from its installed files with the catalog's own
// static discovery (catalog.examine: read, validate, analyse; nothing of the pack is executed).
// SKILL.md is read the same contained way discovery reads it, so a host-code pack shows its too.

import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { PackDetails } from '../../shared/contract/details-schemas.ts';
import type { ModuleSummary } from '../../shared/contract/schemas.ts';
import { checkSkill } from '../../shared/packs/skill.ts';
import { LIMITS } from '../../shared/protocol/limits.ts';
import type { PackRecord } from '../../shared/protocol/ledger.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { isInside, packReadPowers } from '../catalog/pack-files.ts';

async function readSkill(root: string, record: PackRecord, trusted: boolean): Promise<Pick<PackDetails, 'skill' | 'skillProblem'>> {
  let packReal: string;
  try {
    const modulesReal = await realpath(path.join(root, 'node_modules'));
    packReal = await realpath(path.join(modulesReal, ...record.name.split('/')));
    if (!isInside(modulesReal, packReal)) return { skillProblem: `The folder of ${record.name} is outside the install root, so it was not read.` };
  } catch {
    return { skillProblem: `The files of ${record.name} could not be read.` };
  }
  const raw = await packReadPowers(packReal).readSkill(LIMITS.skillBytes);
  const checked = checkSkill(raw === undefined ? {} : { size: raw.size, ...(raw.bytes ? { bytes: raw.bytes } : {}) });
  if (!checked.ok) return { skillProblem: checked.warning.message };
  return {
    skill: {
      packName: record.name,
      packVersion: record.version,
      trusted,
      skillName: checked.skill.frontmatter.name,
      description: checked.skill.frontmatter.description,
      markdown: checked.skill.body,
    },
  };
}

/** `trusted`: the pack's use state (pack-handlers.ts trustedForUse), which frames its SKILL.md. */
export async function packDetails(root: string, catalog: DiscoveryCatalog, record: PackRecord, trusted: boolean): Promise<PackDetails> {
  const skill = await readSkill(root, record, trusted);
  const base = { name: record.name, version: record.version, ...skill };
  const served = record.status === 'active' ? catalog.diagnostics().find((row) => row.name === record.name) : undefined;
  if (served) {
    const modules = catalog.summaries().filter((m) => m.packName === record.name) as ModuleSummary[];
    return { ...base, from: 'catalog', modules, ...(served.status === 'rejected' && served.reason ? { rejected: served.reason } : {}) };
  }
  // A host-code pack declares no sandbox modules: there is nothing to examine.
  if (record.installMode === 'register') return { ...base, from: 'files', modules: [] };
  const examined = await catalog.examine(record.name);
  if (!examined.ok) return { ...base, from: 'files', modules: [], rejected: examined.message };
  const pack = examined.value;
  return {
    ...base,
    from: 'files',
    modules: (pack?.modules ?? []) as ModuleSummary[],
    ...(pack?.status === 'rejected' && pack.reason ? { rejected: pack.reason } : {}),
  };
}
