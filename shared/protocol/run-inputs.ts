// What a run's inputs must satisfy beyond identifier names, checked where they enter (the
// contract's code.run schema, which every face parses with) so a user gets a sentence instead of
// a silent surprise or a crash:
//  - an input is bound as a global after the guest prelude has locked the capability globals, so
//    an input named after one of them (or after a non-writable builtin) would be dropped without
//    a word and the code would see the global instead;
//  - an input nested deeper than LIMITS.jsonDepth would exhaust a recursive parser's stack
//    (zod, structured clone) further on, so depth is measured first, iteratively;
//  - an input is a JSON value, as z.json() reads one, checked by a loop too, so that the contract's
//    schema has no reference cycle and zod compiles it (shared/protocol/compiled.ts).

import { z } from 'zod';
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

/**
 * The sentence for an input value that is not JSON, or undefined when it is. JSON is what z.json()
 * accepts: strings, finite numbers, booleans, null, arrays (no holes) and plain objects (zod's
 * isPlainObject) whose enumerable own keys are strings, `__proto__` left out as zod leaves it out.
 * Each object is looked at once, so shared references cost nothing more; a cycle is not walked
 * twice either, and is refused as too deep (tooDeepInput) before this is asked. The common answer
 * (it is JSON) comes from a walk that builds no paths; only a refusal walks again to name one.
 */
export function notJsonInput(name: string, value: unknown): string | undefined {
  if (firstNotJson(value, undefined) === undefined) return undefined;
  return `the input ${JSON.stringify(name)} is not JSON: ${firstNotJson(value, name)}`;
}

/** Undefined when `value` is JSON, else what is wrong where; paths are built only when `root` names one. */
function firstNotJson(value: unknown, root: string | undefined): string | undefined {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  const paths = root === undefined ? undefined : [root];
  while (stack.length > 0) {
    const next = stack.pop();
    const path = paths?.pop();
    const what = notJsonScalar(next);
    if (what === null) continue;
    if (what !== undefined) return `${path} is ${what}`;
    const node = next as object;
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        stack.push(node[i]);
        paths?.push(`${path}[${i}]`);
      }
      continue;
    }
    for (const symbol of Object.getOwnPropertySymbols(node)) if (Object.prototype.propertyIsEnumerable.call(node, symbol)) return `${path} has a symbol key`;
    for (const key of Object.keys(node)) {
      if (key === '__proto__') continue;
      stack.push((node as Record<string, unknown>)[key]);
      paths?.push(`${path}.${key}`);
    }
  }
  return undefined;
}

/** zod's isPlainObject (what z.json() walks), answered at once for the usual objects: no own `constructor`, one of two prototypes. */
function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  if ((prototype === Object.prototype || prototype === null) && !Object.hasOwn(value, 'constructor')) return true;
  return z.util.isPlainObject(value);
}

/** null: a JSON scalar; undefined: an array or plain object, to walk; else what the value is. */
function notJsonScalar(value: unknown): string | null | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : `${value}, a number JSON cannot hold`;
    case 'object':
      if (value === null) return null;
      return Array.isArray(value) || isPlain(value) ? undefined : 'an object that is neither an array nor a plain object';
    default:
      return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  }
}

/** Every problem with a run's inputs (names first, then depth, then JSON), in input order. */
export function runInputProblems(inputs: Readonly<Record<string, unknown>>): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const [name, value] of Object.entries(inputs)) {
    const message = reservedInputName(name) ?? tooDeepInput(name, value) ?? notJsonInput(name, value);
    if (message) problems.push({ name, message });
  }
  return problems;
}
