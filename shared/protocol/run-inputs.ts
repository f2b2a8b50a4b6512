// What a run's inputs must satisfy beyond "JSON under identifier names", checked where they
// enter (the contract's code.run schema for HTTP and IPC, the code runner for the CLI) so a user
// gets a sentence instead of a silent surprise or a crash:
//  - an input is bound as a global after the guest prelude has locked the capability globals, so
//    an input named after one of them (or after a non-writable builtin) would be dropped without
//    a word and the code would see the global instead;
//  - an input nested deeper than LIMITS.jsonDepth would exhaust a recursive parser's stack
//    (zod, structured clone) further on, so depth is measured first, iteratively.

import { deeperThan } from './json-depth.ts';
import { LIMITS } from './limits.ts';

/**
 * Globals the guest cannot rebind: the ones the prelude locks (non-writable, non-configurable)
 * and the engine's non-writable builtins. A kernel test checks this list against the globals
 * that are actually non-writable in a fresh guest context.
 */
export const LOCKED_GLOBALS: readonly string[] = ['console', 'fetch', 'getSecret', 'workspace', 'Function', 'undefined', 'NaN', 'Infinity'];

/** Names the host uses for its own bindings in a guest context (the WASM bridge, the host bridge). */
const RESERVED_PREFIX = '__sandbox';

export interface InputProblem {
  /** The input's name. */
  readonly name: string;
  readonly message: string;
}

/** The sentence for an input whose name the sandbox reserves, or undefined when the name is free. */
export function reservedInputName(name: string): string | undefined {
  if (LOCKED_GLOBALS.includes(name)) {
    return `the input ${JSON.stringify(name)} has the name of a sandbox global the code cannot rebind (${LOCKED_GLOBALS.join(', ')}); rename the input`;
  }
  if (name.startsWith(RESERVED_PREFIX))
    return `the input ${JSON.stringify(name)} starts with "${RESERVED_PREFIX}", which the sandbox reserves for its own bindings; rename the input`;
  return undefined;
}

/** The sentence for an input value nested too deeply, or undefined when its depth is allowed. */
export function tooDeepInput(name: string, value: unknown): string | undefined {
  return deeperThan(value, LIMITS.jsonDepth)
    ? `the input ${JSON.stringify(name)} is nested more than ${LIMITS.jsonDepth} levels deep, the most a value passed into the sandbox may have`
    : undefined;
}

/** Every problem with a run's inputs (names first, then depth), in input order. */
export function runInputProblems(inputs: Readonly<Record<string, unknown>>): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const [name, value] of Object.entries(inputs)) {
    const message = reservedInputName(name) ?? tooDeepInput(name, value);
    if (message) problems.push({ name, message });
  }
  return problems;
}
