// The one-line disclosure tier: what an agent's prompt always sees about a module. It is built
// only from manifest fields (specifier, kind, WASM export names, the entry's `description`) and
// squeezed through a conservative character whitelist and a hard length cap, because this line
// lands in prompts verbatim: pack text must not be able to add lines, markup or instructions.

import { LIMITS } from '../protocol/limits.ts';
import type { ModuleKind } from '../protocol/catalog.ts';

export interface DisclosureInput {
  readonly specifier: string;
  readonly kind: ModuleKind;
  /** Guest-visible export names (WASM `as` names), when the manifest lists them. */
  readonly exports?: readonly string[];
  readonly description?: string;
}

// Letters, digits, space and plain punctuation. No backticks, angle brackets, brackets, braces,
// pipes, asterisks, hashes, backslashes or anything non-ASCII.
const NOT_ALLOWED = /[^A-Za-z0-9 .,;:!?'()+=/@_~-]/g;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_EXPORTS_SHOWN = 8;
/** Characters of the description a full line keeps before it shows fewer export names. */
const DESCRIPTION_SHARE = 40;

/** Replace every character outside the whitelist by a space, collapse spaces, cap the length. */
export function sanitizeDisclosureText(text: string, max: number = LIMITS.disclosureChars): string {
  const clean = text.normalize('NFKC').replace(NOT_ALLOWED, ' ').replace(/ {2,}/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, Math.max(0, max - 3));
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}...`;
}

/**
 * One line: `<specifier> (<kind>; exports a, b): <description>`, never longer than
 * LIMITS.disclosureLineChars (the bound of a summary row). When it would be, export names give way
 * first, down to what leaves the description a fair share, and then the description is shortened.
 */
export function disclosureLine(input: DisclosureInput): string {
  const specifier = sanitizeDisclosureText(input.specifier, LIMITS.specifierChars);
  const kind = input.kind === 'wasm' ? 'wasm' : 'js';
  const names = (input.exports ?? []).filter((name) => IDENT.test(name) && name.length <= 64);
  const head = (count: number): string => {
    const shown = names.slice(0, count).join(', ');
    const more = names.length > count ? `${count > 0 ? ', ' : ''}+${names.length - count} more` : '';
    return `${specifier} (${kind}${shown || more ? `; exports ${shown}${more}` : ''})`;
  };
  const description = input.description === undefined ? '' : sanitizeDisclosureText(input.description);
  const reserve = description ? 2 + Math.min(description.length, DESCRIPTION_SHARE) : 0;
  let count = Math.min(names.length, MAX_EXPORTS_SHOWN);
  while (count > 0 && head(count).length + reserve > LIMITS.disclosureLineChars) count--;
  const line = head(count);
  const room = LIMITS.disclosureLineChars - line.length - 2;
  return description && room >= Math.min(description.length, DESCRIPTION_SHARE) ? `${line}: ${sanitizeDisclosureText(description, room)}` : line;
}
