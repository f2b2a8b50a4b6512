// The editor grows with its content up to most of the window, then scrolls (code-editor.tsx's
// theme). "Larger view" lifts that cap so a long node shows every line and the page scrolls
// instead: a class on the editor, set through a compartment, so the view (and its undo history)
// stays the same one.

import { Compartment, type Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

const size = new Compartment();
const expandedClass = EditorView.editorAttributes.of({ class: 'cm-expanded' });

/** The extension that holds the size; starts at the window-bounded height. */
export function editorSize(): Extension {
  return [size.of([]), EditorView.theme({ '&.cm-expanded': { maxHeight: 'none' } })];
}

export function setExpanded(view: EditorView, expanded: boolean): void {
  view.dispatch({ effects: size.reconfigure(expanded ? expandedClass : []) });
}
