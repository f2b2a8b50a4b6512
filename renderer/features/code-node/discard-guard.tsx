// Asks before unsaved work is replaced (New workflow, Open another): save it first, discard it,
// or stay. Cancel has the focus, so Enter never throws work away by accident.

import type { ReactNode } from 'react';
import { Dialog } from '../../ui/dialog.tsx';

export interface DiscardGuardProps {
  /** What will replace the draft, for the title ("open "trips"", "start a new workflow"). */
  readonly action: string;
  readonly draftName: string;
  /** Undefined when the draft cannot be saved as it is (no valid name); the reason is shown instead. */
  readonly onSave: (() => void) | undefined;
  readonly saveBlocked?: ReactNode;
  readonly onDiscard: () => void;
  readonly onCancel: () => void;
}

export function DiscardGuard({ action, draftName, onSave, saveBlocked, onDiscard, onCancel }: DiscardGuardProps) {
  return (
    <Dialog
      title="Unsaved changes"
      onClose={onCancel}
      actions={
        <>
          <button type="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" onClick={onDiscard} className="danger">
            Discard changes
          </button>
          <button type="button" className="primary" onClick={onSave} disabled={onSave === undefined}>
            Save and continue
          </button>
        </>
      }
    >
      <p>
        The workflow{draftName ? ` "${draftName}"` : ''} has changes that are not saved. Save them before you {action}, or discard them?
      </p>
      {onSave === undefined && <p className="warn-text small">{saveBlocked}</p>}
    </Dialog>
  );
}
