// The "Run in this window" button for a Code node, mounted next to the node's main-process Run
// button. It runs the same request as code.run, in this page's browser runner, and shows the
// answer with the same RunOutput, so the two results can be compared line by line. Capabilities
// (fetch) are not lent by this window: a node that uses them is refused here with a sentence.

import { useState } from 'react';
import type { RequestOf } from '../../../shared/contract/methods.ts';
import type { Failure } from '../../../shared/protocol/result.ts';
import { useContractClient } from '../../api/client-context.tsx';
import { Chip } from '../../ui/chip.tsx';
import { RunOutput } from './run-panel.tsx';
import { runNodeInWindow, type CodeRunValue } from '../../runner/run-node-in-window.ts';
import { windowRunner, windowRunnerUnavailable } from '../../runner/window-runner.ts';

export function RunInWindow({
  nodeId,
  request,
  onFinished,
}: {
  nodeId: string;
  request: RequestOf<'code.run'>;
  /** Told each finished run, so the node can mark a failure's line in its editor. */
  onFinished?: (run: { request: RequestOf<'code.run'>; outcome: { ok: true; value: CodeRunValue } | Failure }) => void;
}) {
  const client = useContractClient();
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: true; value: CodeRunValue } | Failure | undefined>(undefined);
  // What the shown result answered: once the code or packages change it is marked stale.
  const [ranWith, setRanWith] = useState<RequestOf<'code.run'> | undefined>(undefined);
  const stale = ranWith !== undefined && (ranWith.code !== request.code || JSON.stringify(ranWith.packages) !== JSON.stringify(request.packages));
  const unavailable = windowRunnerUnavailable();

  async function run(): Promise<void> {
    setPending(true);
    setRanWith(request);
    let finished: { ok: true; value: CodeRunValue } | Failure;
    try {
      finished = await runNodeInWindow(client, windowRunner(), request);
    } catch (error) {
      finished = { ok: false, code: 'internal', message: `The run in this window failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    setOutcome(finished);
    setPending(false);
    onFinished?.({ request, outcome: finished });
  }

  return (
    <section className="run-in-window" aria-label={`In this window: ${nodeId}`}>
      <div className="actions">
        <button type="button" disabled={pending || unavailable !== undefined} title={unavailable} onClick={() => void run()}>
          {pending ? 'Running in this window…' : `Run in this window (${nodeId})`}
        </button>
        {unavailable !== undefined && <span className="muted small">{unavailable}</span>}
      </div>
      {outcome && !outcome.ok && (
        <p role="alert" className="warn-text">
          The run in this window could not start: {outcome.message} ({outcome.code})
        </p>
      )}
      {outcome?.ok && (
        <>
          <p className="small">
            <Chip tone="info">ran in this window</Chip>{' '}
            {stale && (
              <span className="warn-text" role="note">
                Stale: the code or packages changed since this run. Run again to see the current result.
              </span>
            )}
          </p>
          <RunOutput run={outcome.value} nodeId={nodeId} />
        </>
      )}
    </section>
  );
}
