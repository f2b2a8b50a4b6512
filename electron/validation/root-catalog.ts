// Opens the catalog of an install root the way the app does (ledger-filtered in a managed root,
// with the real npm compiler), for the headless faces `run` and `validate`. Also answers which
// packs the user has trusted, the default CodeAct session allowlist.

import path from 'node:path';
import type { Result } from '../../shared/protocol/result.ts';
import { trustCovers } from '../../shared/protocol/ledger.ts';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { activePackNames } from '../install/active-packs.ts';
import { readLedger } from '../install/ledger-store.ts';
import { defaultDataDir } from '../platform/data-dir.ts';

export function resolveRoot(root: string | undefined, io: { env: NodeJS.ProcessEnv; cwd: string }): string {
  return root === undefined ? defaultDataDir(io.env) : path.resolve(io.cwd, root);
}

export async function openRootCatalog(root: string): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> {
  const onlyPacks = await activePackNames(root);
  return openCatalog({ root, ...(onlyPacks ? { onlyPacks } : {}), compiler: createNpmCompiler({ root }) });
}

/** Specifiers of every ready module of a pack whose ledger trust covers its installed artifact. */
export async function trustedSpecifiers(root: string, catalog: Pick<DiscoveryCatalog, 'summaries'>): Promise<Set<string>> {
  const ledger = await readLedger(root);
  const trusted = new Set<string>();
  if (!ledger.ok || !ledger.value) return trusted;
  const packs = new Set(Object.values(ledger.value.packs).filter((r) => r.status === 'active' && trustCovers(r)).map((r) => r.name));
  for (const s of catalog.summaries()) if (s.status === 'ready' && packs.has(s.packName)) trusted.add(s.specifier);
  return trusted;
}
