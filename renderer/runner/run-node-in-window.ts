// "Run in this window" for one Code node, answering with the same value as the contract's
// `code.run` ({ result, resolved }) so the UI shows both runs the same way. The node's declared
// specifiers are resolved to module ids and digests from the main process's catalog
// (`catalog.summaries` over the contract): those digests are the trust anchor the browser runner
// verifies every delivered body against. Everything after that happens in this page.

import type { ContractClient } from '../../shared/contract/client.ts';
import type { RequestOf, ValueOf } from '../../shared/contract/methods.ts';
import { fail, ok, type Result } from '../../shared/protocol/result.ts';
import { isolatedSpecifiers } from '../../shared/protocol/kernel-request.ts';
import { NO_GRANTS } from '../../shared/protocol/run.ts';
import type { BrowserRunner } from './browser-runner.ts';

export type CodeRunValue = ValueOf<'code.run'>;

export async function runNodeInWindow(client: ContractClient, runner: Pick<BrowserRunner, 'run'>, node: RequestOf<'code.run'>): Promise<Result<CodeRunValue>> {
  const summaries = await client.call('catalog.summaries', {});
  if (!summaries.ok) return summaries;
  const entries: Record<string, { moduleId: string; digest: string }> = {};
  const resolved: CodeRunValue['resolved'] = [];
  const seen = new Set<string>();
  for (const declaration of node.packages) {
    if (seen.has(declaration.specifier)) return fail('declaration-invalid', `packages: "${declaration.specifier}" is declared twice.`);
    seen.add(declaration.specifier);
    const summary = summaries.value.modules.find((m) => m.specifier === declaration.specifier);
    if (!summary) return fail('unknown-specifier', `No installed pack provides "${declaration.specifier}".`);
    if (summary.status !== 'ready' || summary.moduleId === undefined || summary.digest === undefined) {
      return fail('module-skipped', `${declaration.specifier} was skipped at discovery: ${summary.reason ?? 'no reason recorded'}`);
    }
    entries[declaration.specifier] = { moduleId: summary.moduleId, digest: summary.digest };
    resolved.push({ specifier: declaration.specifier, packName: summary.packName, packVersion: summary.packVersion, digest: summary.digest });
  }
  const result = await runner.run({
    code: node.code,
    entries,
    inputs: node.inputs ?? {},
    // The kernel sees the same grants as in the main process (fetch, the workspace, secret names);
    // this window has none of their values to lend, so its handler refuses each call with a sentence.
    grants: {
      ...NO_GRANTS,
      fetch: (node.fetchHosts?.length ?? 0) > 0,
      workspace: node.nodeGrants?.workspace !== undefined,
      secrets: node.nodeGrants?.secrets ?? [],
    },
    // The same modules run isolated here as in the main process (electron/services/code-runner.ts).
    isolated: isolatedSpecifiers(node.packages),
    ...(node.timeoutMs !== undefined ? { timeoutMs: node.timeoutMs } : {}),
  });
  return ok({ result, resolved });
}
