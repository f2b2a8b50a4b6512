// While an install runs: how long it has been running and a Cancel button. A registry that is slow
// or silent no longer looks like a frozen screen; after a while the line says that the install
// gives up on its own (the installer's bounded fetch timeout, electron/install/npm-root.ts).

import { useEffect, useState } from 'react';

/** 7 s, 1 min 05 s. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** After this long, the line adds that the install gives up on its own. */
const SLOW_AFTER_MS = 15_000;

export function OperationClock(props: { startedAt: number; waitingOnRegistry: boolean; cancelling: boolean; onCancel: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const elapsed = now - props.startedAt;
  return (
    <div className="row operation-clock">
      <span className="muted" aria-label="Elapsed time">
        {elapsedText(elapsed)} elapsed
        {props.waitingOnRegistry && elapsed >= SLOW_AFTER_MS
          ? ' — the registry is slow to answer; the install gives up on its own if it does not answer within about a minute.'
          : ''}
      </span>
      <button type="button" onClick={props.onCancel} disabled={props.cancelling}>
        {props.cancelling ? 'Cancelling…' : 'Cancel'}
      </button>
    </div>
  );
}
