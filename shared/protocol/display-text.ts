// Text a pack supplies (its version, descriptions, module names, skip reasons, install script
// commands, SKILL.md, log lines of guest code) is shown to a person who decides on it. Invisible
// and bidirectional-control characters let such text look like something else (Trojan Source:
// U+202E turns "exe.gnp" into what reads as "png.exe"; a zero-width space makes two names
// differ invisibly), and C0/C1 controls can rewrite a terminal line. So every place that shows
// such text renders those characters visibly as `\uXXXX`. Backslashes are left alone, so the
// function is idempotent and JSON text stays valid JSON with the same value (`\u202E` is a JSON
// escape of the very character it replaces).

/**
 * Characters rendered as escapes: C0 controls, DEL and C1 controls; the Arabic letter mark;
 * the Mongolian vowel separator; zero-width space/non-joiner/joiner and the LRM/RLM marks
 * (U+200B–U+200F); line and paragraph separators; the bidi embeddings and overrides
 * (U+202A–U+202E); word joiner and invisible operators (U+2060–U+2064); the bidi isolates
 * (U+2066–U+2069); the byte order mark / zero-width no-break space (U+FEFF).
 */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export interface DisplayTextOptions {
  /**
   * Multi-line text (log text, a script command or SKILL.md shown as a block): "\n" and "\r\n"
   * stay line breaks and a tab stays a tab (visible whitespace; Markdown indents code with it).
   * A lone "\r" is still escaped: in a terminal it moves back and overwrites the line. Default false.
   */
  readonly multiline?: boolean;
}

const escape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** `text` with every hidden or control character shown as `\uXXXX` (line breaks and tabs kept when multiline). */
export function displayText(text: string, options: DisplayTextOptions = {}): string {
  if (options.multiline !== true) return text.replace(HIDDEN, escape);
  return text.replace(/\r\n/g, '\n').replace(HIDDEN, (char) => (char === '\n' || char === '\t' ? char : escape(char)));
}
