import { describe, expect, it } from 'vitest';
import { updatesSummary } from './updates-summary.ts';

describe('the Updates summary line', () => {
  it('never says "no newer version" when the registry answered for no pack', () => {
    const down = updatesSummary([{ state: 'unavailable' }, { state: 'unavailable' }, { state: 'tarball' }]);
    expect(down.checked).toBe(false);
    expect(down.text).toBe(
      'the registry could not be reached, so it is not known whether any installed pack has a newer version. Check that the registry is reachable (Agent & settings names it), then check again.',
    );
  });

  it('counts what it found, and what it could not check', () => {
    expect(updatesSummary([{ state: 'tarball' }]).text).toBe(
      'no installed pack comes from the registry; a pack installed from a tarball (as the shipped ones are) is updated by installing a newer tarball.',
    );
    expect(updatesSummary([{ state: 'current' }, { state: 'tarball' }])).toEqual({ checked: true, text: 'no installed pack has a newer version.' });
    expect(updatesSummary([{ state: 'update' }, { state: 'unavailable' }]).text).toBe(
      '1 installed pack has a newer version; 1 pack could not be checked (see below). Check that the registry is reachable (Agent & settings names it), then check again.',
    );
  });
});
