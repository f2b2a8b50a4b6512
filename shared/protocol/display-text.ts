// Text a pack supplies (its version, descriptions, module names, skip reasons, install script
// commands, SKILL.md, log lines of guest code) is shown to a person who decides on it, and handed
// to a model. Invisible characters let such text look like something else or carry a message no
// reader sees: bidi controls (Trojan Source: U+202E turns "exe.gnp" into what reads as "png.exe"),
// zero-width characters (two names that differ invisibly), Unicode tag characters (U+E0000–E007F
// spell ASCII that renders as nothing but a model reads: "ignore previous instructions…"), and
// C0/C1 controls that rewrite a terminal line. So every place that shows or hands on such text
// renders those characters visibly as `\uXXXX` (an astral one as its two surrogate escapes).
// Backslashes are left alone, so the function is idempotent and JSON text stays valid JSON with
// the same value (`\u202E` is a JSON escape of the very character it replaces).

/**
 * Characters rendered as escapes, by Unicode property rather than by list, so astral ones are
 * included: every control (Cc: C0, DEL, C1), every format character (Cf: soft hyphen, bidi marks,
 * embeddings, overrides and isolates, zero-width characters, invisible operators, the
 * deprecated U+206A–206F, interlinear annotation U+FFF9–FFFB, the BOM, tag characters…), every
 * default-ignorable code point (variation selectors, Hangul fillers, the Mongolian vowel
 * separator, U+E0000–E0FFF…), lone surrogates (Cs), and the line and paragraph separators.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;

export interface DisplayTextOptions {
  /**
   * Multi-line text (log text, a script command or SKILL.md shown as a block): "\n" and "\r\n"
   * stay line breaks and a tab stays a tab (visible whitespace; Markdown indents code with it).
   * A lone "\r" is still escaped: in a terminal it moves back and overwrites the line. Default false.
   */
  readonly multiline?: boolean;
}

const unit = (code: number): string => `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
/** `\uXXXX` per UTF-16 code unit: an astral character becomes its surrogate pair, as JSON escapes it. */
const escape = (char: string): string => (char.length === 1 ? unit(char.charCodeAt(0)) : unit(char.charCodeAt(0)) + unit(char.charCodeAt(1)));

/** `text` with every hidden or control character shown as `\uXXXX` (line breaks and tabs kept when multiline). */
export function displayText(text: string, options: DisplayTextOptions = {}): string {
  if (options.multiline !== true) return text.replace(HIDDEN, escape);
  return text.replace(/\r\n/g, '\n').replace(HIDDEN, (char) => (char === '\n' || char === '\t' ? char : escape(char)));
}
