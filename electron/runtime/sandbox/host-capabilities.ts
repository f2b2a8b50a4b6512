// One run's capability handlers on the host side, built from what the node was granted. The
// kernel already refuses ungranted capabilities before asking; this side refuses them again, so
// a confused or compromised worker cannot widen a grant.
//
// The handlers are built per run, which makes them the place for per-run budgets: at most
// LIMITS.fetchConcurrency fetches in flight, and one more fails at once (hostCapabilities says
// why). Every call gets the run's abort signal: whatever is pending when the run ends is
// cancelled with it.

import { LIMITS } from '../../../shared/protocol/limits.ts';
import type { CapabilityGrants, HostCallResult } from '../../../shared/protocol/run.ts';
import { fetchCapability, type FetchGrant } from './fetch-capability.ts';
import { WorkspaceCapability, type WorkspaceGrant } from './workspace-capability.ts';

export interface HostGrants {
  readonly fetch?: FetchGrant;
  readonly workspace?: WorkspaceGrant;
  /** Granted secret names and their values (from the secret store, or the CLI's environment: services/node-grants.ts). */
  readonly secrets?: Readonly<Record<string, string | undefined>>;
}

/** What the guest-side kernel is told about these grants. */
export function kernelGrants(grants: HostGrants): CapabilityGrants {
  return { fetch: grants.fetch !== undefined, workspace: grants.workspace !== undefined, secrets: Object.keys(grants.secrets ?? {}) };
}

/** One run's capability port: the pool passes the run's abort signal with each call. */
export type CapabilityPort = (name: string, args: readonly unknown[], signal?: AbortSignal) => Promise<HostCallResult>;

/**
 * Handlers for one run; build a fresh one per run (the fetch budget counts this run's requests).
 * A fetch over LIMITS.fetchConcurrency fails at once rather than waiting, as an over-budget WASM
 * call does: a wait queue would hold each waiting request (its body included) on the host for as
 * long as the guest keeps adding to it, while a failure costs nothing and tells the guest at once;
 * six is what browsers allow per host, so ordinary fan-out written for the web fits, and 6 × 8 MB
 * of response bodies stays under one run's 64 MB heap.
 */
export function hostCapabilities(grants: HostGrants): CapabilityPort {
  const workspace = grants.workspace ? new WorkspaceCapability(grants.workspace) : undefined;
  let fetching = 0;
  return async (name, args, signal) => {
    if (name === 'fetch') {
      if (!grants.fetch) return { ok: false, code: 'capability-denied', message: 'fetch: this node was not granted the fetch capability.' };
      if (fetching >= LIMITS.fetchConcurrency) {
        return {
          ok: false,
          code: 'fetch-budget-concurrency',
          message: `fetch: this run already has ${LIMITS.fetchConcurrency} requests in flight, the most one run may have; wait for one to finish before starting another.`,
        };
      }
      fetching++;
      try {
        return await fetchCapability(grants.fetch, args, signal);
      } finally {
        fetching--;
      }
    }
    if (name.startsWith('workspace.')) {
      if (!workspace) return { ok: false, code: 'capability-denied', message: 'workspace: this node was not granted a workspace.' };
      return workspace.call(name, args, signal);
    }
    if (name === 'getSecret') {
      const [secret] = args;
      const secrets = grants.secrets ?? {};
      if (typeof secret !== 'string' || !Object.hasOwn(secrets, secret)) {
        return { ok: false, code: 'capability-denied', message: `getSecret(${JSON.stringify(String(secret))}): this node was not granted that secret.` };
      }
      const value = secrets[secret];
      if (value === undefined)
        return {
          ok: false,
          code: 'secret-not-set',
          message: `getSecret(${JSON.stringify(secret)}): the secret is granted but has no value on this machine; save one under that name on the Secrets screen.`,
        };
      return { ok: true, value };
    }
    return { ok: false, code: 'capability-denied', message: `${name}: no such capability.` };
  };
}
