// What one MCP session may see and mount, asked afresh through the contract on every tool call:
// the allowlist given at start-up (`--allow`) if any, else the user's saved allowlist, else the
// default — the ready modules of trusted packs (shared/contract/session-allowlist.ts, the rule the
// Agent & settings screen shows). Asking per call means a pack the user un-trusts or removes from
// the allowlist in the app is gone for the agent at its next call, not at the next server start.

import type { Dispatcher } from '../../shared/contract/dispatcher.ts';
import type { ResponseOf } from '../../shared/contract/client.ts';
import type { MethodName, RequestOf } from '../../shared/contract/methods.ts';
import type { ModuleSummary } from '../../shared/contract/schemas.ts';
import { effectiveAllowlist } from '../../shared/contract/session-allowlist.ts';
import { fail, ok, type Failure, type Result } from '../../shared/protocol/result.ts';

export type ContractCall = <M extends MethodName>(method: M, request: RequestOf<M>) => Promise<ResponseOf<M>>;

/** The MCP face's only way into the services: the same dispatcher the IPC and HTTP faces use. */
export function contractCaller(dispatcher: Dispatcher): ContractCall {
  // The dispatcher has parsed the answer against the method's response schema before it returns.
  return (method, request) => dispatcher.handle(method, request, { face: 'mcp' }) as Promise<ResponseOf<typeof method>>;
}

export interface SessionView {
  /** Every specifier the session may mount (ready or not; a skipped one still fails to resolve). */
  readonly allowed: ReadonlySet<string>;
  /** The ready, allowed modules, sorted by specifier: what list_sandbox_modules shows. */
  readonly modules: readonly ModuleSummary[];
}

export async function sessionView(call: ContractCall, fixedAllow: readonly string[] | undefined): Promise<Result<SessionView>> {
  const summaries = await call('catalog.summaries', {});
  if (!summaries.ok) return summaries;
  const modules = summaries.value.modules;
  let specifiers: readonly string[];
  if (fixedAllow !== undefined) specifiers = fixedAllow;
  else {
    // Fail closed: when the settings or the ledger cannot be read, nothing is allowed.
    const settings = await call('settings.get', {});
    if (!settings.ok) return settings;
    const packs = await call('packs.list', {});
    if (!packs.ok) return packs;
    specifiers = effectiveAllowlist(settings.value.sessionAllowlist, packs.value.packs, modules).specifiers;
  }
  const allowed = new Set(specifiers);
  const ready = modules.filter((m) => m.status === 'ready' && allowed.has(m.specifier)).sort((a, b) => a.specifier.localeCompare(b.specifier));
  return ok({ allowed, modules: ready });
}

/** Refuse specifiers outside the session, in a sentence that says who can change that. */
export function refuseNotAllowed(specifiers: readonly string[], allowed: ReadonlySet<string>): Failure | undefined {
  const refused = [...new Set(specifiers)].filter((s) => !allowed.has(s));
  if (refused.length === 0) return undefined;
  const names = refused.map((s) => JSON.stringify(s)).join(', ');
  return fail(
    'session-not-allowed',
    `${names} ${refused.length === 1 ? 'is' : 'are'} not on this session's package allowlist. list_sandbox_modules shows what this session may import; only the user can allow more.`,
  );
}

/** Whether a pack has a module this session may see (its docs are readable then, and only then). */
export function packAllowed(view: SessionView, packName: string): boolean {
  return view.modules.some((m) => m.packName === packName);
}
