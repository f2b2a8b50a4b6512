// Where the cursor is inside an import statement, read from the text around it: in the quoted
// specifier after `from` (or after a bare `import`), or between the braces of a named import whose
// specifier follows. Pure text, so the editor's completions can be tested without a DOM; a
// statement the regexes do not recognise simply gets no catalog completions.

export type ImportContext =
  /** `from "…` — `typed` is the partial specifier, starting at `from`. */
  | { readonly kind: 'specifier'; readonly from: number; readonly typed: string }
  /** `import { a, …` — `typed` is the partial name at `from`; `specifier` is the module named after the braces. */
  | { readonly kind: 'export'; readonly from: number; readonly typed: string; readonly specifier: string; readonly already: readonly string[] };

const SPECIFIER_BEFORE = /(?:\bimport\s*|\bfrom\s*)(["'])([^"'\n]*)$/;
const NAMES_BEFORE = /\bimport\s*\{([^}]*)$/;
const SPECIFIER_AFTER = /^[^}]*\}\s*from\s*["']([^"'\n]+)["']/;

export function importContext(before: string, after: string): ImportContext | undefined {
  const spec = SPECIFIER_BEFORE.exec(before);
  if (spec) {
    const typed = spec[2] ?? '';
    return { kind: 'specifier', from: before.length - typed.length, typed };
  }
  const names = NAMES_BEFORE.exec(before);
  if (!names) return undefined;
  const target = SPECIFIER_AFTER.exec(after);
  if (!target?.[1]) return undefined;
  const inside = names[1] ?? '';
  const typed = /[A-Za-z0-9_$]*$/.exec(inside)?.[0] ?? '';
  // After `name as ` the user is naming a local binding, not choosing an export.
  if (/\bas\s+[A-Za-z0-9_$]*$/.test(inside)) return undefined;
  const already = (inside + (/^[^}]*/.exec(after)?.[0] ?? ''))
    .split(',')
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '' && name !== typed);
  return { kind: 'export', from: before.length - typed.length, typed, specifier: target[1], already };
}

export { signatureText, wasmSignatureText } from '../../../shared/packs/wasm-signature.ts';
