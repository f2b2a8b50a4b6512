// The code editor: a monospace textarea that types a Tab as two spaces (and Shift+Tab removes
// indentation) so code can be written, while Escape releases the key — the next Tab then moves
// focus on, as a keyboard user expects. The hint saying so is linked to the field.

import { useId, useRef, type KeyboardEvent } from 'react';

const INDENT = '  ';

export function CodeTextarea({ label, value, onChange }: { label: string; value: string; onChange: (next: string) => void }) {
  const id = useId();
  const released = useRef(false);
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      released.current = true;
      return;
    }
    if (event.key !== 'Tab' || released.current || event.ctrlKey || event.altKey || event.metaKey) {
      if (event.key !== 'Tab') released.current = false;
      return;
    }
    event.preventDefault();
    const el = event.currentTarget;
    const { selectionStart: start, selectionEnd: end } = el;
    const lineStart = value.lastIndexOf('\n', start - 1) + 1;
    if (event.shiftKey) {
      if (value.startsWith(INDENT, lineStart)) {
        const next = value.slice(0, lineStart) + value.slice(lineStart + INDENT.length);
        onChange(next);
        requestAnimationFrame(() => el.setSelectionRange(Math.max(lineStart, start - INDENT.length), Math.max(lineStart, end - INDENT.length)));
      }
      return;
    }
    const next = value.slice(0, start) + INDENT + value.slice(end);
    onChange(next);
    requestAnimationFrame(() => el.setSelectionRange(start + INDENT.length, start + INDENT.length));
  };
  return (
    <div className="code-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="code"
        value={value}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        rows={Math.min(24, Math.max(8, value.split('\n').length + 1))}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => {
          released.current = false;
        }}
        aria-describedby={`${id}-hint`}
      />
      <p id={`${id}-hint`} className="muted small">
        Tab indents; press Esc, then Tab, to leave the editor. Use <code>return</code> for the node's result.
      </p>
    </div>
  );
}
