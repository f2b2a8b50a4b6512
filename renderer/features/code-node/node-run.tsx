// Running a Code node in the app (code.run) from the Run button or Ctrl/Cmd+Enter: while it runs,
// the elapsed time and a Stop button that cancels it (code.cancel with the run's id; the app
// recycles the sandbox worker as for a timeout). The result is labelled with where it ran, and
// marked stale once the code or its packages change, so an old answer is never read as the
// answer to the code on screen.

import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RequestOf, ValueOf } from '../../../shared/contract/methods.ts';
import type { Failure } from '../../../shared/protocol/result.ts';
import { useContractClient } from '../../api/client-context.tsx';
import { newOperationId } from '../../api/use-contract-mutation.ts';
import { Chip } from '../../ui/chip.tsx';
import { RunOutput } from './run-panel.tsx';

type RunRequest = RequestOf<'code.run'>;

interface Running {
  readonly runId: string;
  readonly started: number;
  stopping: boolean;
}

interface Finished {
  readonly request: RunRequest;
  readonly outcome: { ok: true; value: ValueOf<'code.run'> } | Failure;
}

const sameRequest = (a: RunRequest, b: RunRequest) =>
  a.code === b.code &&
  JSON.stringify(a.packages) === JSON.stringify(b.packages) &&
  JSON.stringify(a.fetchHosts ?? []) === JSON.stringify(b.fetchHosts ?? []) &&
  JSON.stringify(a.nodeGrants ?? {}) === JSON.stringify(b.nodeGrants ?? {});

export function useNodeRun() {
  const client = useContractClient();
  const queries = useQueryClient();
  const [running, setRunning] = useState<Running | undefined>(undefined);
  const [finished, setFinished] = useState<Finished | undefined>(undefined);
  const runningRef = useRef<Running | undefined>(undefined);

  const start = (request: RunRequest) => {
    if (runningRef.current) return;
    const job: Running = { runId: newOperationId('run'), started: performance.now(), stopping: false };
    runningRef.current = job;
    setRunning(job);
    void client
      .call('code.run', { ...request, runId: job.runId })
      .then(
        (outcome) => setFinished({ request, outcome }),
        (error: unknown) => setFinished({ request, outcome: { ok: false, code: 'internal', message: error instanceof Error ? error.message : String(error) } }),
      )
      .finally(() => {
        runningRef.current = undefined;
        setRunning(undefined);
        // A run granted the workspace makes its default folder on first use: the grants editor shows that.
        if (request.nodeGrants?.workspace) void queries.invalidateQueries({ queryKey: ['workspaces.get'] });
      });
  };

  const stop = () => {
    const job = runningRef.current;
    if (!job || job.stopping) return;
    job.stopping = true;
    setRunning({ ...job });
    void client.call('code.cancel', { runId: job.runId });
  };

  return { running, finished, start, stop };
}

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(timer);
  }, []);
  return <span className="elapsed">{((now - since) / 1000).toFixed(1)} s</span>;
}

export function RunControls({ nodeId, run, current, errors }: { nodeId: string; run: ReturnType<typeof useNodeRun>; current: RunRequest; errors: number }) {
  const { running, finished } = run;
  const stale = finished !== undefined && !sameRequest(finished.request, current);
  return (
    <>
      <div className="actions">
        <button type="button" className="primary" disabled={running !== undefined} onClick={() => run.start(current)}>
          {running ? 'Running…' : `Run ${nodeId}`}
        </button>
        {running && (
          <>
            <span role="status" aria-label={`Elapsed time of ${nodeId}`}>
              Running in the app for <Elapsed since={running.started} />
            </span>
            <button type="button" onClick={run.stop} disabled={running.stopping}>
              {running.stopping ? 'Stopping…' : `Stop ${nodeId}`}
            </button>
          </>
        )}
        {!running && errors > 0 && (
          <span className="muted small">
            {errors === 1 ? 'There is 1 error; the run will likely fail.' : `There are ${errors} errors; the run will likely fail.`}
          </span>
        )}
      </div>
      {finished && (
        <div className={stale ? 'run-result stale' : 'run-result'} aria-label={`Last run of ${nodeId}`} role="group">
          <p className="small">
            <Chip tone="info">ran in the app</Chip>{' '}
            {stale && (
              <span className="warn-text" role="note">
                Stale: the code or packages changed since this run. Run again to see the current result.
              </span>
            )}
          </p>
          {finished.outcome.ok ? (
            <RunOutput run={finished.outcome.value} nodeId={nodeId} />
          ) : (
            <p role="alert" className="failure">
              The run could not start: {finished.outcome.message} ({finished.outcome.code})
            </p>
          )}
        </div>
      )}
    </>
  );
}
