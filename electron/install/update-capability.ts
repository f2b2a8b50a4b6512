// What a version on the registry can do outside the sandbox, read from its manifest in the
// packument (nothing is installed or run): the install mode its nodetool field implies (the same
// rule as classify() in inspect.ts), its host code entry, and its own install-time lifecycle
// scripts. The update dialog compares this with what is installed, so an update that adds host
// code or install scripts — and leaves the pack inactive until trusted — says so before it happens.

import { z } from 'zod';
import type { InstallMode } from '../../shared/protocol/ledger.ts';
import { INSTALL_LIFECYCLE_SCRIPTS, NodetoolManifestSchema } from '../../shared/protocol/manifest.ts';

export interface VersionCapability {
  readonly latestMode?: InstallMode;
  readonly latestRegister?: string;
  readonly latestScripts: { event: string; command: string }[];
}

const VersionManifestSchema = z.looseObject({
  scripts: z.record(z.string(), z.unknown()).optional(),
  hasInstallScript: z.boolean().optional(),
  nodetool: z.unknown().optional(),
});

export function versionCapability(manifest: unknown): VersionCapability {
  const parsed = VersionManifestSchema.safeParse(manifest);
  if (!parsed.success) return { latestScripts: [] };
  const scripts = parsed.data.scripts ?? {};
  const latestScripts = INSTALL_LIFECYCLE_SCRIPTS.flatMap((event) => {
    const command = scripts[event];
    return typeof command === 'string' ? [{ event, command: command.slice(0, 10_000) }] : [];
  });
  // The registry sets hasInstallScript for scripts it derived itself (a binding.gyp builds with node-gyp).
  if (latestScripts.length === 0 && parsed.data.hasInstallScript === true) latestScripts.push({ event: 'install', command: 'node-gyp rebuild' });
  const nodetool = NodetoolManifestSchema.safeParse(parsed.data.nodetool);
  if (!nodetool.success) return { latestScripts };
  const hasModules = (nodetool.data.sandboxModules?.length ?? 0) > 0;
  const register = nodetool.data.register;
  const latestMode: InstallMode | undefined = register !== undefined ? (hasModules ? 'hybrid' : 'register') : hasModules ? 'sandbox-only' : undefined;
  return { ...(latestMode ? { latestMode } : {}), ...(register !== undefined ? { latestRegister: register.slice(0, 1024) } : {}), latestScripts };
}
