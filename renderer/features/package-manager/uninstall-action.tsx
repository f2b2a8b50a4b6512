// Uninstall: the dialog lists the saved Code nodes that declare the pack's modules first, and
// only then offers the button that acts.

import { useState } from 'react';
import { newOperationId, useContractMutation } from '../../api/use-contract-mutation.ts';
import { Dialog } from '../../ui/dialog.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { AffectedList } from './affected-list.tsx';
import { useUninstallNotice } from './uninstall-notice.ts';

export function UninstallAction({ name, onDone }: { name: string; onDone?: () => void }) {
  const [open, setOpen] = useState(false);
  const uninstall = useContractMutation('packs.uninstall');
  const notice = useUninstallNotice((s) => s.set);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          uninstall.reset();
          setOpen(true);
        }}
      >
        Uninstall {name}…
      </button>
      {!open && <FailureText error={uninstall.error} />}
      {open && (
        <Dialog
          title={`Uninstall ${name}?`}
          onClose={() => setOpen(false)}
          actions={
            <>
              <button type="button" onClick={() => setOpen(false)} data-autofocus>
                Cancel
              </button>
              <button
                type="button"
                className="danger"
                disabled={uninstall.isPending}
                onClick={() => {
                  notice(name);
                  uninstall.mutate({ name, operationId: newOperationId('uninstall') }, { onSettled: () => setOpen(false), onSuccess: () => onDone?.() });
                }}
              >
                {uninstall.isPending ? 'Uninstalling…' : 'Uninstall'}
              </button>
            </>
          }
        >
          <AffectedList packName={name} />
          <p>Those nodes will fail validation and refuse to run until a pack provides the modules again.</p>
        </Dialog>
      )}
    </>
  );
}
