// catalog.* over the injected catalog. Summaries and diagnostics are already path-free by the
// catalog's contract; the SKILL.md body is only ever returned here, one pack at a time, marked
// with whether the user trusted that pack so the UI can frame untrusted text as such.

import type { Handler } from '../../shared/contract/dispatcher.ts';
import type { ModuleSummary, PackStatusRow, ReconcileSummary } from '../../shared/contract/schemas.ts';
import { fail, ok } from '../../shared/protocol/result.ts';
import type { DiscoveryCatalog } from '../catalog/catalog.ts';
import { runtimeVersions } from '../platform/app-runtime.ts';

export interface CatalogHandlerDeps {
  readonly catalog: DiscoveryCatalog;
  /** Whether the user's consent covers the installed artifact of this pack. */
  readonly isTrusted: (packName: string) => Promise<boolean>;
  /** What start-up reconcile of a managed root found, with the data files repaired since; null where it did not run. Read at each call. */
  readonly reconcile: () => ReconcileSummary | null;
}

export function catalogHandlers(deps: CatalogHandlerDeps): {
  'catalog.summaries': Handler<'catalog.summaries'>;
  'catalog.diagnostics': Handler<'catalog.diagnostics'>;
  'catalog.skillDoc': Handler<'catalog.skillDoc'>;
} {
  const { catalog } = deps;
  return {
    'catalog.summaries': async () => ok({ modules: catalog.summaries() as ModuleSummary[] }),
    'catalog.diagnostics': async () => {
      const versions = runtimeVersions();
      const runtime = { npm: versions.npm ?? null, node: versions.node, electron: versions.electron ?? null };
      return ok({ packs: catalog.diagnostics() as PackStatusRow[], reconcile: deps.reconcile(), runtime });
    },
    'catalog.skillDoc': async ({ packName }) => {
      const pack = catalog.diagnostics().find((row) => row.name === packName);
      const skill = catalog.skillDoc(packName);
      if (!skill.ok) return fail(skill.code, skill.message);
      return ok({
        packName,
        packVersion: pack?.version ?? '',
        trusted: await deps.isTrusted(packName),
        skillName: skill.value.frontmatter.name,
        description: skill.value.frontmatter.description,
        markdown: skill.value.body,
      });
    },
  };
}
