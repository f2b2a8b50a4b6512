// Discovery's half of the contract's answer bounds. Every row a catalog answer carries (a module
// summary, a pack's diagnostics row, its warnings) is built from what a pack ships, and the answer
// schemas (shared/contract/schemas.ts) hold each to limits read from the same LIMITS record. So
// a pack can never carry a row past one: what names the module (its exports) skips the module
// with a reason naming the limit and the value; what only describes it (a reason, a warning) is
// shown shortened; warnings past the count are counted in the last one. Pure, like the loader.

import type { PackWarning, SandboxModuleSummary } from '../protocol/catalog.ts';
import { LIMITS, shortenText } from '../protocol/limits.ts';
import type { LoadedPack } from './pack-loader.ts';
import { printable } from './pack-path.ts';

/** Why a module with these exports cannot be listed, or undefined when they fit. */
export function exportsOverLimit(names: readonly string[]): string | undefined {
  if (names.length > LIMITS.exportsPerModule) {
    return `the module exports ${names.length} names; at most ${LIMITS.exportsPerModule} are allowed.`;
  }
  const long = names.find((name) => name.length > LIMITS.exportNameChars);
  if (long !== undefined) {
    return `the export name "${printable(long, 64)}" is ${long.length} characters long; at most ${LIMITS.exportNameChars} are allowed.`;
  }
  return undefined;
}

/** A pack's warnings within the count and length a diagnostics row holds; the ones past the count are named by the last. */
export function boundWarnings(warnings: readonly PackWarning[]): PackWarning[] {
  const fit = (w: PackWarning): PackWarning => (w.message.length > LIMITS.reasonChars ? { code: w.code, message: shortenText(w.message, LIMITS.reasonChars) } : w);
  if (warnings.length <= LIMITS.warningsPerPack) return warnings.map(fit);
  const kept = warnings.slice(0, LIMITS.warningsPerPack - 1).map(fit);
  const left = warnings.slice(LIMITS.warningsPerPack - 1);
  const first = left[0] as PackWarning;
  const message = `${left.length} more warnings are not listed; a pack lists at most ${LIMITS.warningsPerPack}. The first of them: ${first.message}`;
  return [...kept, { code: first.code, message: shortenText(message, LIMITS.reasonChars) }];
}

function boundModule(summary: SandboxModuleSummary): SandboxModuleSummary {
  if (summary.reason === undefined || summary.reason.length <= LIMITS.reasonChars) return summary;
  return { ...summary, reason: shortenText(summary.reason, LIMITS.reasonChars) };
}

/** The pack as its diagnostics and summary rows may show it. */
export function boundPack(pack: LoadedPack): LoadedPack {
  return {
    ...pack,
    ...(pack.reason !== undefined ? { reason: shortenText(pack.reason, LIMITS.reasonChars) } : {}),
    warnings: boundWarnings(pack.warnings),
    modules: pack.modules.map(boundModule),
  };
}
