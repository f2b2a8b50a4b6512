// The sentences a skipped npm module's reason opens with. A user reading "ReferenceError: Intl is
// not defined" cannot tell whether the library, the pack or the product is at fault, so the causes
// the sandbox decides on purpose are named: code generated at run time (eval, the Function
// constructors: no code is generated inside the sandbox), Intl (quickjs-ng has none) and CommonJS
// loading at run time (require). The engine's own error is always kept after the sentence. The
// patterns follow the texts the guest and esbuild produce: the blocked constructors' TypeError in
// shared/sandbox/guest/prelude-core.js, quickjs-ng's "X is not defined", esbuild's `__require` shim's
// "Dynamic require of ... is not supported"; admission-reasons.test.ts pins each against the real probe.

import { CODE_GENERATION, FORBIDDEN_GLOBALS, type GlobalHit } from './global-scan.ts';

/** Why the sandbox lacks `name`, as a clause: "compiles code at run time (new Function), which …". */
function missingClause(name: string): string {
  if (name === 'Function') return 'compiles code at run time (new Function), which the sandbox does not allow: no code is generated inside the sandbox';
  if (name === 'eval') return 'compiles code at run time (eval), which the sandbox does not allow: no code is generated inside the sandbox';
  if (name === 'Intl') return "uses Intl (internationalisation), which the sandbox's engine does not have";
  if (name === 'require')
    return 'loads CommonJS modules at run time (require), which the sandbox does not have: only what the bundler resolves statically is included';
  return `uses ${name} (${FORBIDDEN_GLOBALS[name] ?? 'a global'}), which the sandbox does not have`;
}

/** The probe's engine error mapped to the cause it shows, if it is one the sandbox decides on purpose. */
function probeCause(engineMessage: string): string | undefined {
  if (/\b(?:Async)?(?:Generator)?Function constructor is not available in the sandbox\b/.test(engineMessage)) return 'Function';
  if (/\beval is not defined\b/.test(engineMessage)) return 'eval';
  if (/\bIntl is not defined\b/.test(engineMessage)) return 'Intl';
  if (/\brequire is not defined\b|\bDynamic require of "[^"]*" is not supported\b/.test(engineMessage)) return 'require';
  return undefined;
}

/** The reason of a module whose import failed in the admission probe. */
export function probeFailureReason(npmName: string, engineMessage: string): string {
  const cause = probeCause(engineMessage);
  if (cause === undefined) return `${npmName} failed to initialize in the sandbox: ${engineMessage}`;
  // The guest's own sentence on Intl (guest-errors.ts) says again what the clause says.
  const said = cause === 'Intl' ? engineMessage.replace(/\.? Intl is not available in the sandbox: .*$/s, '') : engineMessage;
  return `${npmName} ${missingClause(cause)}. Importing it in the sandbox failed with ${said}`;
}

/** The reason of a module the scan found using a missing global, unguarded, at import time. */
export function hardUseReason(npmName: string, hit: GlobalHit): string {
  const at = `at bundle line ${hit.line}:${hit.column}`;
  if (CODE_GENERATION.has(hit.name) || hit.name === 'Intl' || hit.name === 'require') {
    return `${npmName} ${missingClause(hit.name)}; it does so when it is imported (${at}).`;
  }
  return `${npmName} uses ${hit.name} (${FORBIDDEN_GLOBALS[hit.name]}) when it is imported, ${at}, without checking that it exists; the sandbox has no ${hit.name}.`;
}

/** One warning per missing global the bundle refers to only behind a check or inside uncalled functions. */
export function softUseWarning(npmName: string, name: string, guarded: number, deferred: number): string {
  const places = (n: number): string => `${n} place${n === 1 ? '' : 's'}`;
  if (CODE_GENERATION.has(name)) {
    const n = guarded + deferred;
    return `${npmName} ${missingClause(name)}. It does so in ${places(n)} that importing it does not reach; a call that reaches ${n === 1 ? 'it' : 'one'} throws.`;
  }
  const parts: string[] = [];
  if (guarded > 0) parts.push(`checks for it first in ${places(guarded)}`);
  if (deferred > 0) parts.push(`uses it inside functions in ${places(deferred)}, which throw if called`);
  const lacks = name === 'Intl' ? "which the sandbox's engine does not have" : 'which the sandbox does not have';
  return `${npmName} refers to ${name} (${FORBIDDEN_GLOBALS[name]}), ${lacks}: it ${parts.join(' and ')}.`;
}
