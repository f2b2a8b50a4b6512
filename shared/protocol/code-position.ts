// A failure's message names where in the node's code it happened as "(line L, column C" or, for
// an error from inside a pack's module, "(in MODULE, line …; called from line L, column C)"
// (shared/sandbox/kernel/guest-errors.ts). This reads that place back for the faces that mark it
// (the editor, `check`'s SKILL.md lines) — the message is the one text every face already carries.

export interface CodePosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

const IN_NODE_CODE = /(?:\(|; called from )line (\d+), column (\d+)\)/;

/** The place in the node's own code a failure message names, or undefined when it names none. */
export function codePositionOf(message: string): CodePosition | undefined {
  const match = IN_NODE_CODE.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/** The message with that place written by `write` instead (e.g. as a SKILL.md line). */
export function replaceCodePosition(message: string, write: (at: CodePosition) => string): string {
  return message.replace(IN_NODE_CODE, (whole, line: string, column: string) => {
    const lead = whole.startsWith('(') ? '(' : '; called from ';
    return `${lead}${write({ line: Number(line), column: Number(column) })})`;
  });
}
