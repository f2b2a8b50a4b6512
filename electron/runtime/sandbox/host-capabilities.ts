// One run's capability handlers on the host side, built from what the node was granted. The
// kernel already refuses ungranted capabilities before asking; this side refuses them again, so
// a confused or compromised worker cannot widen a grant.

import type { CapabilityGrants, HostCallResult } from '../../../shared/protocol/run.ts';
import { fetchCapability, type FetchGrant } from './fetch-capability.ts';
import { WorkspaceCapability, type WorkspaceGrant } from './workspace-capability.ts';

export interface HostGrants {
  readonly fetch?: FetchGrant;
  readonly workspace?: WorkspaceGrant;
  /** Granted secret names and their values (the CLI reads them from environment variables). */
  readonly secrets?: Readonly<Record<string, string | undefined>>;
}

/** What the guest-side kernel is told about these grants. */
export function kernelGrants(grants: HostGrants): CapabilityGrants {
  return { fetch: grants.fetch !== undefined, workspace: grants.workspace !== undefined, secrets: Object.keys(grants.secrets ?? {}) };
}

export function hostCapabilities(grants: HostGrants): (name: string, args: readonly unknown[]) => Promise<HostCallResult> {
  const workspace = grants.workspace ? new WorkspaceCapability(grants.workspace) : undefined;
  return async (name, args) => {
    if (name === 'fetch') {
      if (!grants.fetch) return { ok: false, code: 'capability-denied', message: 'fetch: this node was not granted the fetch capability.' };
      return fetchCapability(grants.fetch, args);
    }
    if (name.startsWith('workspace.')) {
      if (!workspace) return { ok: false, code: 'capability-denied', message: 'workspace: this node was not granted a workspace.' };
      return workspace.call(name, args);
    }
    if (name === 'getSecret') {
      const [secret] = args;
      const secrets = grants.secrets ?? {};
      if (typeof secret !== 'string' || !Object.hasOwn(secrets, secret)) {
        return { ok: false, code: 'capability-denied', message: `getSecret(${JSON.stringify(String(secret))}): this node was not granted that secret.` };
      }
      const value = secrets[secret];
      if (value === undefined) return { ok: false, code: 'secret-not-set', message: `getSecret(${JSON.stringify(secret)}): the secret is granted but has no value on this machine.` };
      return { ok: true, value };
    }
    return { ok: false, code: 'capability-denied', message: `${name}: no such capability.` };
  };
}
