// Turns the install-progress events of one operation into what the install panel shows. A
// `failed` event is only a hint: the panel says "failed" when the call itself has answered with a
// failure, so a stray or early event can never show a running install as failed.

import type { ContractEvent, InstallStage } from '../../../shared/contract/events.ts';

/** The stages a running operation shows; `done` and `failed` end it. */
export type Stage = Exclude<InstallStage, 'done' | 'failed'>;

export const STAGE_LABEL: Record<Stage, string> = {
  waiting: 'Waiting for another operation on this install root',
  repairing: 'Repairing what an interrupted operation left',
  resolving: 'Resolving the package',
  fetching: 'Fetching (install scripts disabled)',
  classifying: 'Reading the installed manifest',
  compiling: 'Compiling sandbox modules',
  rebuilding: 'Running trusted install scripts',
  removing: 'Removing the package',
};

export interface ProgressState {
  /** Stages seen, in order, without repeats. */
  readonly stages: readonly Stage[];
  /** The latest message main sent for a running stage. */
  readonly message: string;
  /** Main said the operation reached `done`. */
  readonly done: boolean;
}

export const EMPTY_PROGRESS: ProgressState = { stages: [], message: '', done: false };

export function reduceProgress(state: ProgressState, event: ContractEvent, operationId: string): ProgressState {
  if (event.type !== 'install-progress' || event.operationId !== operationId) return state;
  if (event.stage === 'failed') return state;
  if (event.stage === 'done') return { ...state, done: true };
  const stages = state.stages.includes(event.stage) ? state.stages : [...state.stages, event.stage];
  return { stages, message: event.message, done: state.done };
}

export type Phase = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** One line for the live region: the call's own status decides the phase. */
export function progressLine(state: ProgressState, phase: Phase): string {
  if (phase === 'failed') return 'Failed.';
  if (phase === 'cancelled') return 'Cancelled.';
  if (phase === 'succeeded') return 'Done.';
  const current = state.stages.at(-1);
  return current === undefined ? 'Starting…' : `${STAGE_LABEL[current]}…`;
}
