// The fix offered beside a node's "no installed pack provides …" issue: an Install button, in the
// app, for the version the node was saved with (its declaration records `resolvedPackVersion`;
// the registry's latest may no longer provide the module). Offered only when that pack is not
// installed at all; a pack that needs trust after its install says so, since the node still waits.

import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { FailureText } from '../../ui/failure-text.tsx';

/** The pack a specifier names: "@scope/name" or "name", before any module segment (as the validator reads it). */
export function packOfSpecifier(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The spec that reinstalls what a declaration was saved against: `name@version`, or the name alone when no version was recorded. */
export function savedSpec(declaration: Pick<SandboxModuleDeclaration, 'specifier' | 'resolvedPackVersion'>): string {
  const pack = packOfSpecifier(declaration.specifier);
  return declaration.resolvedPackVersion ? `${pack}@${declaration.resolvedPackVersion}` : pack;
}

export function InstallSavedPack({ declaration }: { declaration: SandboxModuleDeclaration }) {
  const packs = useContractQuery('packs.list', {});
  const install = useContractMutation('packs.install');
  const pack = packOfSpecifier(declaration.specifier);
  const spec = savedSpec(declaration);
  const installed = packs.data?.packs.some((p) => p.name === pack);
  if (install.isSuccess) {
    return (
      <span role="status" className="small">
        {' '}
        Installed {displayText(install.data.name)}@{displayText(install.data.version)}
        {install.data.status === 'active' ? '.' : '; it waits for your trust in Packages before this node can use it.'}
      </span>
    );
  }
  if (installed !== false) return null;
  return (
    <>
      {' '}
      <button type="button" className="small" disabled={install.isPending} onClick={() => install.mutate({ spec, operationId: newOperationId('install') })}>
        {install.isPending ? `Installing ${spec}…` : `Install ${spec}`}
      </button>
      {!declaration.resolvedPackVersion && <span className="muted small"> (this node recorded no version: the latest is installed)</span>}
      <FailureText error={install.error} prefix="The install failed:" />
    </>
  );
}
