// Run a Code node through code.run and show what happened: the value or the failure, the logs,
// and the receipt — modules loaded with their digests, capability and WASM calls, and every
// denied import or capability with its reason, and each module that ran isolated with how often
// the node called its exports. The value is shown bounded (result-view.tsx).

import type { ValueOf } from '../../../shared/contract/methods.ts';
import { Chip } from '../../ui/chip.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';
import type { ReceiptIsolated } from '../../../shared/protocol/run.ts';
import { ResultValue } from './result-view.tsx';

type RunValue = ValueOf<'code.run'>;

/** "parse ×2, dump ×1": the calls the node made into a module that ran isolated. */
export function isolatedCalls(m: ReceiptIsolated): string {
  return m.calls.length === 0 ? 'no calls' : m.calls.map((c) => `${displayText(c.export)} ×${c.count}`).join(', ');
}

/** `nodeId` names the file "Download the whole result" saves. */
export function RunOutput({ run, nodeId = 'node' }: { run: RunValue; nodeId?: string }) {
  const { result, resolved } = run;
  const receipt = result.receipt;
  return (
    <section className="run-output" aria-label="Run result">
      {result.ok ? (
        <div>
          <h4>
            Result <Chip tone="good">ok</Chip>
          </h4>
          <ResultValue value={result.value} fileStem={nodeId} />
        </div>
      ) : (
        <div role="alert">
          <h4>
            Failed <Chip tone="bad">{result.code}</Chip>
          </h4>
          <pre className="value">{displayText(result.message, { multiline: true })}</pre>
        </div>
      )}
      <h4>Logs</h4>
      {result.logs.length === 0 ? (
        <p className="muted small">No logs.</p>
      ) : (
        <pre className="logs">{displayText(result.logs.map((l) => `[${l.level}] ${l.text}`).join('\n'), { multiline: true })}</pre>
      )}
      <h4>Receipt</h4>
      <dl className="receipt">
        <dt>Time</dt>
        <dd>{receipt.wallMs.toFixed(1)} ms</dd>
        <dt>Modules</dt>
        <dd>
          {receipt.modules.length === 0
            ? 'none'
            : receipt.modules.map((m) => (
                <div key={m.moduleId}>
                  <code>{displayText(m.displayName)}</code> <span className="digest">{m.digest.slice(0, 12)}…</span>
                </div>
              ))}
        </dd>
        <dt>Resolved packages</dt>
        <dd>
          {resolved.length === 0
            ? 'none'
            : resolved.map((r) => (
                <div key={r.specifier}>
                  <code>{displayText(r.specifier)}</code> → {displayText(r.packName)}@{displayText(r.packVersion)}
                </div>
              ))}
        </dd>
        <dt>Calls</dt>
        <dd>
          {receipt.calls.length === 0
            ? 'none'
            : receipt.calls.map((c, i) => (
                <div key={i}>
                  {c.kind} <code>{displayText(c.name)}</code>{' '}
                  {c.ok ? 'ok' : c.code === 'capability-denied' ? 'denied (see Denied)' : `failed (${c.code ?? 'unknown'})`}
                </div>
              ))}
        </dd>
        {receipt.isolated !== undefined && (
          <>
            <dt>Isolated</dt>
            <dd>
              {receipt.isolated.map((m) => (
                <div key={m.specifier}>
                  <code>{displayText(m.specifier)}</code> — isolated · {isolatedCalls(m)}
                </div>
              ))}
            </dd>
          </>
        )}
        <dt>Denied</dt>
        <dd>
          {receipt.denied.length === 0
            ? 'nothing'
            : receipt.denied.map((d, i) => (
                <div key={i} className="warn-text">
                  {d.kind} <code>{displayText(d.request)}</code> from <code>{displayText(d.from)}</code>: {displayText(d.reason)} ({d.code})
                </div>
              ))}
        </dd>
      </dl>
    </section>
  );
}
