// Update: offered only when the configured registry has a newer version (packs.updates). Before
// acting, the version change (current → the registry's latest, or a version the user names), what
// the new manifest removes and the saved nodes that break on it, and the affected Code nodes;
// after, the digest change of every module, since a new version re-stamps nothing by itself —
// saved nodes will show drift until re-pinned. An update that adds host code or install scripts,
// or leaves the pack waiting for trust, says so first (capability-change.tsx) and offers to keep
// the installed version. A pack installed from a tarball has no registry to update from: its card
// offers "install a newer tarball" instead.

import { useId, useState } from 'react';
import type { InstalledPack, UpdateCheck } from '../../../shared/contract/pack-schemas.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { AffectedList } from './affected-list.tsx';
import { breakingNodes, capabilityChange } from './update-breakage.ts';
import { CapabilityChange } from './capability-change.tsx';
import { useSavedWorkflows } from './use-saved-workflows.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

interface DigestChange {
  readonly specifier: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
}

function digestChanges(before: readonly ModuleSummary[], after: readonly ModuleSummary[]): DigestChange[] {
  const specifiers = [...new Set([...before, ...after].map((m) => m.specifier))].sort();
  const find = (list: readonly ModuleSummary[], s: string) => list.find((m) => m.specifier === s)?.digest;
  return specifiers.map((specifier) => ({ specifier, before: find(before, specifier), after: find(after, specifier) }));
}

const short = (digest: string | undefined) => (digest === undefined ? 'not loaded' : `${digest.slice(0, 12)}…`);

/** What the newer manifest drops, and which saved nodes use it: listed before anything changes. */
function Breakage({ check }: { check: UpdateCheck }) {
  const saved = useSavedWorkflows();
  if (check.removedModules.length === 0 && check.removedExports.length === 0) {
    return (
      <p className="muted">
        {displayText(check.latest ?? 'The new version')} declares every module and WASM export this version declares (JS exports are checked when a node is
        validated).
      </p>
    );
  }
  const broken = breakingNodes(check, saved.workflows);
  return (
    <div className="failure" role="group" aria-label="Removed in the new version">
      <p>
        <strong>{displayText(check.latest ?? 'The new version')} removes:</strong>{' '}
        {[...check.removedModules.map((m) => `module ${m}`), ...check.removedExports.flatMap((e) => e.names.map((n) => `${n} from ${e.specifier}`))].map(
          (t) => (
            <code key={t}>{displayText(t)} </code>
          ),
        )}
      </p>
      {saved.pending ? (
        <p>Looking for saved nodes that use them…</p>
      ) : broken.length === 0 ? (
        <p>No saved workflow uses them.</p>
      ) : (
        <ul aria-label="Nodes this update breaks">
          {broken.map((b) => (
            <li key={`${b.workflow}/${b.nodeId}`}>
              Workflow <strong>{displayText(b.workflow)}</strong>, node <strong>{displayText(b.nodeId)}</strong> breaks:{' '}
              {b.reasons.map((r) => displayText(r)).join('; ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** For a pack installed from a tarball: there is no registry to ask, so the way forward is a newer tarball. */
export function TarballUpdateNote({ pack }: { pack: Pick<InstalledPack, 'name'> }) {
  const [shown, setShown] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setShown(true);
          document.querySelector<HTMLInputElement>('input[name="pack-spec"]')?.focus();
        }}
      >
        Install a newer tarball of {pack.name}…
      </button>
      {shown && (
        <p role="status" className="small">
          {displayText(pack.name)} came from a tarball, so no registry can offer an update: uninstall it, then install the newer tarball by its path or URL in
          Install a pack.
        </p>
      )}
    </>
  );
}

export function UpdateAction({ pack, check }: { pack: InstalledPack; check?: UpdateCheck | undefined }) {
  const latest = check?.state === 'update' ? check.latest : undefined;
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState(latest ?? '');
  const [before, setBefore] = useState<ModuleSummary[]>([]);
  const [doneAt, setDoneAt] = useState(0);
  const summaries = useContractQuery('catalog.summaries', {});
  const update = useContractMutation('packs.update');
  const targetId = useId();
  const ownModules = (summaries.data?.modules ?? []).filter((m) => m.packName === pack.name);
  // Digests after the update only from a catalog read that arrived after it finished.
  const fresh = summaries.dataUpdatedAt > doneAt;
  const changes = update.isSuccess && fresh ? digestChanges(before, ownModules) : [];
  // What the registry's latest can do outside the sandbox is known for that version only.
  const capability = check && target.trim() === latest ? capabilityChange(pack, check) : undefined;
  const changesCapability = capability !== undefined && (capability.gains.length > 0 || capability.inactiveAfter);
  return (
    <>
      {/* Mounted even without an update, so the result of one just made stays on screen. */}
      {latest !== undefined && (
        <button
          type="button"
          onClick={() => {
            update.reset();
            setTarget(latest);
            setOpen(true);
          }}
        >
          Update {pack.name} to {latest}…
        </button>
      )}
      {!open && <FailureText error={update.error} />}
      {!open && update.isSuccess && (
        <div role="status" className="result">
          <p>
            Updated {displayText(pack.name)}: {displayText(before[0]?.packVersion ?? 'previous')} → {displayText(update.data.version)} (
            {update.data.status === 'active' ? 'active' : 'needs your trust'}).
          </p>
          {!fresh && <p className="muted small">Reading the new module digests…</p>}
          {fresh && update.data.status !== 'active' && (
            <p className="muted small">The new version's modules load once you trust it, so their digests show then.</p>
          )}
          <ul aria-label="Digest changes">
            {changes.map((c) => (
              <li key={c.specifier}>
                <code>{displayText(c.specifier)}</code>: {c.before === c.after ? `unchanged (${short(c.after)})` : `${short(c.before)} → ${short(c.after)}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {open && (
        <Dialog
          title={`Update ${pack.name} to ${target.trim() || 'the latest version'}?`}
          onClose={() => setOpen(false)}
          actions={
            <>
              <button type="button" onClick={() => setOpen(false)} data-autofocus>
                {changesCapability ? `Keep ${pack.version}` : 'Cancel'}
              </button>
              <button
                type="button"
                className="primary"
                disabled={update.isPending}
                onClick={() => {
                  setBefore(ownModules);
                  const to = target.trim();
                  update.mutate(
                    { name: pack.name, operationId: newOperationId('update'), ...(to ? { to } : {}) },
                    {
                      onSettled: () => setOpen(false),
                      onSuccess: () => {
                        setDoneAt(Date.now());
                        void summaries.refetch();
                      },
                    },
                  );
                }}
              >
                {update.isPending ? 'Updating…' : changesCapability ? 'Update anyway' : 'Update'}
              </button>
            </>
          }
        >
          <p>
            Version: <strong>{displayText(pack.version)}</strong> → <strong>{displayText(target.trim() || 'latest in the registry')}</strong>
            {check?.publishedAt && target.trim() === latest ? ` (published ${displayText(check.publishedAt.slice(0, 10))})` : ''}
          </p>
          {check && capability && changesCapability && <CapabilityChange pack={pack} check={check} change={capability} />}
          {check && target.trim() === latest && <Breakage check={check} />}
          <label htmlFor={targetId}>Target version or tag (empty: latest)</label>
          <input id={targetId} value={target} onChange={(e) => setTarget(e.target.value)} placeholder="latest" />
          <p className="muted">Current module digests (the update is classified again like a fresh install; new digests are shown after it):</p>
          <ul>
            {ownModules.map((m) => (
              <li key={m.specifier}>
                <code>{displayText(m.specifier)}</code> {short(m.digest)}
              </li>
            ))}
          </ul>
          <AffectedList packName={pack.name} />
        </Dialog>
      )}
    </>
  );
}
