// Collects the install-progress events of the operation a panel started. The subscription is
// open before the call is made (the id is chosen first), so no early stage is missed.

import { useCallback, useEffect, useRef, useState } from 'react';
import { useContractClient } from '../../api/client-context.tsx';
import { EMPTY_PROGRESS, reduceProgress, type ProgressState } from './install-progress.ts';

export function useOperationProgress(): { progress: ProgressState; track: (operationId: string) => void } {
  const client = useContractClient();
  const current = useRef<string | undefined>(undefined);
  const [progress, setProgress] = useState<ProgressState>(EMPTY_PROGRESS);
  useEffect(
    () =>
      client.onEvent((event) => {
        const id = current.current;
        if (id !== undefined) setProgress((state) => reduceProgress(state, event, id));
      }),
    [client],
  );
  const track = useCallback((operationId: string) => {
    current.current = operationId;
    setProgress(EMPTY_PROGRESS);
  }, []);
  return { progress, track };
}
