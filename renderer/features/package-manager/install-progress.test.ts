import { describe, expect, it } from 'vitest';
import type { ContractEvent } from '../../../shared/contract/events.ts';
import { EMPTY_PROGRESS, progressLine, reduceProgress } from './install-progress.ts';

const ev = (stage: string, operationId = 'op-1', message = stage): ContractEvent =>
  ({ type: 'install-progress', operation: 'install', stage, message, operationId }) as ContractEvent;

describe('install progress', () => {
  it('keeps the stages of its own operation, in order, without repeats', () => {
    const events = [ev('resolving'), ev('fetching', 'other'), ev('fetching'), ev('fetching', 'op-1', 'again'), ev('classifying'), ev('done')];
    const state = events.reduce((s, e) => reduceProgress(s, e, 'op-1'), EMPTY_PROGRESS);
    expect(state).toEqual({ stages: ['resolving', 'fetching', 'classifying'], message: 'classifying', done: true });
  });

  it('never reports failed while the call is still running, whatever the events say', () => {
    const state = [ev('resolving'), ev('failed')].reduce((s, e) => reduceProgress(s, e, 'op-1'), EMPTY_PROGRESS);
    expect(progressLine(state, 'running')).toBe('Resolving the package…');
    expect(progressLine(state, 'failed')).toBe('Failed.');
    expect(progressLine(EMPTY_PROGRESS, 'running')).toBe('Starting…');
  });

  it('ignores catalog events', () => {
    const state = reduceProgress(EMPTY_PROGRESS, { type: 'catalog-changed', reason: 'install', packCount: 1, moduleCount: 1 }, 'op-1');
    expect(state).toBe(EMPTY_PROGRESS);
  });
});
