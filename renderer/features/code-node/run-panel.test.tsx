// The receipt as RunOutput shows it: a module that ran isolated is listed with the node's calls
// into it, and what it tried to reach is in Denied with the kernel's sentence.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { RunReceipt } from '../../../shared/protocol/run.ts';
import { isolatedCalls, RunOutput } from './run-panel.tsx';

const receipt = (extra: Partial<RunReceipt>): RunReceipt => ({ wallMs: 1.5, modules: [], calls: [], denied: [], ...extra });
const render = (r: RunReceipt) => renderToStaticMarkup(<RunOutput run={{ result: { ok: true, value: 1, logs: [], receipt: r }, resolved: [] }} />);

describe('RunOutput receipt', () => {
  it('lists each isolated module with its calls, and nothing about isolation when the run had none', () => {
    expect(render(receipt({}))).not.toContain('Isolated');
    const html = render(
      receipt({
        isolated: [
          {
            specifier: '@acme/x',
            displayName: '@acme/x',
            calls: [
              { export: 'parse', count: 2 },
              { export: 'dump', count: 1 },
            ],
          },
          { specifier: '@acme/y', displayName: '@acme/y', calls: [] },
        ],
      }),
    );
    expect(html).toContain(
      '<dt>Isolated</dt><dd><div><code>@acme/x</code> — isolated · parse ×2, dump ×1</div><div><code>@acme/y</code> — isolated · no calls</div></dd>',
    );
  });

  it("shows an isolated module's denied capability call in Denied", () => {
    const reason = "@acme/x (isolated) asked for fetch: @acme/x runs isolated and can reach none of this node's network, workspace or secrets.";
    const html = render(
      receipt({
        calls: [{ kind: 'capability', name: 'fetch', ok: false, code: 'capability-denied' }],
        denied: [{ kind: 'capability', request: 'fetch', from: '@acme/x', code: 'capability-denied', reason }],
        isolated: [{ specifier: '@acme/x', displayName: '@acme/x', calls: [{ export: 'phone', count: 1 }] }],
      }),
    );
    expect(html).toContain('capability <code>fetch</code> denied (see Denied)');
    expect(html).toContain(`capability <code>fetch</code> from <code>@acme/x</code>: ${reason.replace(/'/g, '&#x27;')} (capability-denied)`);
  });

  it('shows hidden characters in an export name as escapes', () => {
    expect(isolatedCalls({ specifier: '@a/b', displayName: '@a/b', calls: [{ export: 'p\u202Eq', count: 3 }] })).toBe('p\\u202Eq ×3');
  });
});
