// Opens the catalog of an install root the way the app does (ledger-filtered in a managed root,
// with the real npm compiler), for the CLI's face (electron/cli/cli-services.ts) and tests. Which
// packs an agent session may mount by default is shared/contract/session-allowlist.ts's rule.

import type { Result } from '../../shared/protocol/result.ts';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { activePackNames } from '../install/active-packs.ts';

export async function openRootCatalog(root: string): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> {
  const onlyPacks = await activePackNames(root);
  return openCatalog({ root, ...(onlyPacks ? { onlyPacks } : {}), compiler: createNpmCompiler({ root }) });
}
