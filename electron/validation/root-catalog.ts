// Opens the catalog of an install root the way the app does (ledger-filtered in a managed root,
// with the real npm compiler), for the CLI's face (electron/cli/cli-services.ts) and tests. Which
// packs an agent session may mount by default is shared/contract/session-allowlist.ts's rule.

import type { Result } from '../../shared/protocol/result.ts';
import { openCatalog, type DiscoveryCatalog } from '../catalog/catalog.ts';
import { createNpmCompiler } from '../compiler/npm-compiler.ts';
import { activePackNames } from '../install/active-packs.ts';

export function openRootCatalog(root: string): Promise<Result<DiscoveryCatalog, 'root-unreadable'>> {
  // Read at each reload: an install, uninstall or trust changes which packs are active.
  return openCatalog({ root, onlyPacks: () => activePackNames(root), compiler: createNpmCompiler({ root }) });
}
