// The first start's seeding of the shipped packs, as main reports it (`first-run-progress`). The
// window opens before seeding ends, so this says what is happening while it runs (main repeats
// the current step, so a window that connects mid-way shows it too), says so briefly when the
// packs are ready, and keeps a failure on screen. The screens refresh themselves on the
// `catalog-changed` that precedes "ready".

import { useEffect, useState } from 'react';
import type { ContractEvent } from '../../../shared/contract/events.ts';
import { useContractClient } from '../../api/client-context.tsx';
import { useSeedingStore } from './seeding-store.ts';

type FirstRunProgress = Extract<ContractEvent, { type: 'first-run-progress' }>;

/** How long "ready" stays up. */
const DONE_VISIBLE_MS = 6_000;

export function FirstRunStatus() {
  const client = useContractClient();
  const [progress, setProgress] = useState<FirstRunProgress | undefined>(undefined);
  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type !== 'first-run-progress') return;
        useSeedingStore.getState().setRunning(event.state === 'running');
        // The repeated step is the same text: keep the state, so nothing re-renders or re-announces.
        setProgress((current) => (current && current.state === event.state && current.message === event.message ? current : event));
      }),
    [client],
  );
  useEffect(() => {
    if (progress?.state !== 'done') return;
    const timer = setTimeout(() => setProgress(undefined), DONE_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [progress]);

  if (progress === undefined) return null;
  if (progress.state === 'failed') {
    return (
      <p role="alert" className="failure first-run-status">
        {progress.message}
      </p>
    );
  }
  return (
    <p role="status" aria-live="polite" className="banner banner-info first-run-status">
      {progress.state === 'running' && <progress aria-hidden="true" />} {progress.message}
    </p>
  );
}
