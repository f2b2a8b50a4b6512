import { describe, expect, it } from 'vitest';
import { runDetails, toolError, toolOk } from './render.ts';
import { emptyReceipt } from '../../shared/protocol/run.ts';

// A model is a reader too: a pack's name, reason, log line or SKILL.md can carry bidi overrides and
// zero-width characters meant to make it read as something else (Trojan Source). The text content
// shows them as \uXXXX; structuredContent keeps the exact values for programs.
describe('MCP tool text', () => {
  it('shows hidden characters of a successful answer as escapes, keeping line breaks and tabs', () => {
    const result = toolOk({ value: 'a\u202Eb' }, 'Value: "a\u202Eb"\n\tlog \u200Bline');
    expect(result.content).toEqual([{ type: 'text', text: 'Value: "a\\u202Eb"\n\tlog \\u200Bline' }]);
    expect(result.structuredContent).toEqual({ ok: true, value: 'a\u202Eb' });
  });

  it('shows hidden characters of a failure as escapes, keeping the message exact in structuredContent', () => {
    const result = toolError({ code: 'runtime-error', message: 'from @x/\u2066evil\u2069' });
    expect(result.content).toEqual([{ type: 'text', text: 'runtime-error: from @x/\\u2066evil\\u2069' }]);
    expect(result.structuredContent).toMatchObject({ ok: false, message: 'from @x/\u2066evil\u2069' });
  });
});

describe('MCP receipt line', () => {
  it('lists isolated modules with their call counts only when the run imported one', () => {
    expect(runDetails([], emptyReceipt())).toEqual(['Receipt: 0 ms; modules none; calls none; denied nothing.']);
    const receipt = {
      ...emptyReceipt(),
      isolated: [
        {
          specifier: '@x/yaml',
          displayName: '@x/yaml',
          calls: [
            { export: 'parse', count: 2 },
            { export: 'dump', count: 1 },
          ],
        },
        { specifier: '@x/idle', displayName: '@x/idle', calls: [] },
      ],
    };
    expect(runDetails(undefined, receipt)).toEqual([
      'Receipt: 0 ms; modules none; calls none; denied nothing; isolated @x/yaml (calls parse ×2, dump), @x/idle (no calls).',
    ]);
  });
});
