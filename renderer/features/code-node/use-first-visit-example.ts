// On a first visit (this browser kept no draft) the Workflows screen opens the example workflow
// first run saved, as the README promises, instead of an empty "return 1 + 1" draft. Once per page
// load, and only while the draft is still untouched, so nothing the user typed is replaced.

import { useEffect } from 'react';
import { EXAMPLE_WORKFLOW_NAME } from '../../../shared/protocol/example-workflow.ts';
import { NO_STORED_DRAFT, useDraftStore } from '../../state/workflow-draft.ts';

let pending = NO_STORED_DRAFT;

export function useFirstVisitExample(savedNames: readonly string[] | undefined, open: (name: string) => void): void {
  useEffect(() => {
    if (!pending || savedNames === undefined) return;
    pending = false;
    const draft = useDraftStore.getState();
    if (draft.dirty || draft.name !== '' || !savedNames.includes(EXAMPLE_WORKFLOW_NAME)) return;
    open(EXAMPLE_WORKFLOW_NAME);
    // `open` is the editor's loader of the moment; the check runs once, when the names first arrive.
  }, [savedNames]);
}
