// The Code node's editor: CodeMirror 6 behind a thin React wrapper, so the page gets JavaScript
// highlighting, line numbers, bracket matching and CodeMirror's own undo history (a textarea
// whose value React rewrites on Tab loses the browser's undo stack). Tab indents; Escape, then
// Tab, leaves the editor (CodeMirror's tab-focus mode), as the hint linked to the field says.
// Ctrl/Cmd+Enter runs the node. Inside `import { … } from "…"` the catalog completes specifiers
// and export names (export-completions.ts: members after `X.` and an unfinished `import {`);
// choosing a specifier the node does not declare declares it. The node's
// validation issues arrive from outside and are shown as lint marks on their lines.
// Invariant: the view is created once per mount, so a re-render never drops its history
// (CodeEditor says how, and why it lives in a shadow root). "Larger view" lifts its height cap (editor-size.ts).

import { autocompletion, closeCompletion, completionKeymap, type Completion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useId, useRef, useState } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { editorSize, setExpanded } from './editor-size.ts';
import { exportCompletions, type ExportCatalog } from './export-completions.ts';
import { importContext, wasmSignatureText } from './import-context.ts';

export interface EditorMark {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** 1-based. */
  readonly line: number;
  readonly column?: number;
}

export interface CatalogForCompletion {
  readonly modules: readonly ModuleSummary[];
  readonly declared: ReadonlySet<string>;
  readonly declare: (specifier: string) => void;
  readonly members?: ExportCatalog['members'];
}

export interface CodeEditorProps {
  readonly label: string;
  readonly value: string;
  readonly onChange: (next: string) => void;
  readonly onRun?: () => void;
  readonly marks?: readonly EditorMark[];
  readonly catalog?: CatalogForCompletion;
}

const RELEASE_MS = 24 * 60 * 60 * 1000;

const HINT = "Tab indents; press Esc, then Tab, to leave the editor. Ctrl+Enter (⌘+Enter) runs. Use return for the node's result.";

const theme = EditorView.theme({
  // Grows with the window: at least a dozen lines, at most most of the viewport, then scrolls.
  '&': {
    minHeight: '12rem',
    maxHeight: '65vh',
    border: '1px solid var(--border)',
    borderRadius: 'var(--radius)',
    fontSize: '0.88rem',
    backgroundColor: '#fbfcfd',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': { overflow: 'auto', fontFamily: 'var(--mono)' },
  '.cm-content': { minHeight: '12rem' },
});

/** Tab types two spaces at the cursor (as the textarea did); with a selection it indents the lines. */
function typeIndent(view: EditorView): boolean {
  if (view.state.selection.ranges.some((r) => !r.empty)) return indentMore(view);
  view.dispatch(view.state.update(view.state.replaceSelection('  '), { scrollIntoView: true, userEvent: 'input.type' }));
  return true;
}

/**
 * Text typed or inserted over a selection is applied here rather than by the browser: Chromium's
 * editing, when it replaces a selection spanning lines, writes `style` attributes to keep the look
 * of the merged lines, which the CSP (style-src 'self') refuses with a console error. Typing a
 * character at a cursor stays native.
 */
function replaceAcrossLines(event: InputEvent, view: EditorView): boolean {
  const inserting = event.inputType === 'insertText' || event.inputType === 'insertReplacementText';
  const deleting = event.inputType.startsWith('delete');
  if (!inserting && !deleting) return false;
  const text = inserting ? (event.data ?? event.dataTransfer?.getData('text/plain') ?? null) : '';
  if (text === null) return false;
  // Inside a shadow root the event's target ranges are empty; the root's selection is what is replaced.
  const root = view.root as Document | (ShadowRoot & { getSelection?: () => Selection | null });
  const selection = root.getSelection?.() ?? document.getSelection();
  if (!selection || selection.anchorNode === null || selection.focusNode === null) return false;
  if (selection.isCollapsed && !text.includes('\n')) return false;
  const a = view.posAtDOM(selection.anchorNode, selection.anchorOffset);
  const b = view.posAtDOM(selection.focusNode, selection.focusOffset);
  const from = Math.min(a, b);
  const to = Math.max(a, b);
  event.preventDefault();
  view.dispatch({
    changes: { from, to, insert: text },
    selection: { anchor: from + text.length },
    userEvent: inserting ? 'input.type' : 'delete.selection',
    scrollIntoView: true,
  });
  return true;
}

let sharedHintSheet: CSSStyleSheet | undefined;
function hintSheet(): CSSStyleSheet {
  if (!sharedHintSheet) {
    sharedHintSheet = new CSSStyleSheet();
    sharedHintSheet.replaceSync('.hint { color: var(--muted); font-size: 0.85rem; margin: 0.3rem 0 0; }');
  }
  return sharedHintSheet;
}

function toDiagnostics(state: EditorState, marks: readonly EditorMark[]): Diagnostic[] {
  return marks.flatMap((mark) => {
    if (mark.line < 1 || mark.line > state.doc.lines) return [];
    const line = state.doc.line(mark.line);
    const from = Math.min(line.to, line.from + Math.max(0, (mark.column ?? 1) - 1));
    const word = /^[A-Za-z0-9_$@/."'-]+/.exec(state.doc.sliceString(from, line.to))?.[0].length ?? 0;
    return [{ from, to: word > 0 ? from + word : line.to, severity: mark.severity, message: mark.message }];
  });
}

function catalogCompletions(catalog: () => CatalogForCompletion | undefined) {
  return (context: CompletionContext): CompletionResult | null => {
    const data = catalog();
    if (!data) return null;
    const line = context.state.doc.lineAt(context.pos);
    const before = context.state.doc.sliceString(Math.max(0, line.from - 2000), context.pos);
    const after = context.state.doc.sliceString(context.pos, Math.min(context.state.doc.length, line.to + 2000));
    const where = importContext(before, after);
    if (!where) return null;
    const from = context.pos - where.typed.length;
    if (where.kind === 'specifier') {
      const options: Completion[] = data.modules
        .filter((m) => m.status === 'ready')
        .map((m) => {
          const declared = data.declared.has(m.specifier);
          return {
            label: m.specifier,
            type: 'namespace',
            detail: declared ? `${m.kind} · ${m.packName}@${m.packVersion}` : `${m.kind} · not declared: choosing it adds it to this node`,
            info: m.summary,
            boost: declared ? 1 : 0,
            apply: (view, _completion, applyFrom, applyTo) => {
              view.dispatch({ changes: { from: applyFrom, to: applyTo, insert: m.specifier }, selection: { anchor: applyFrom + m.specifier.length } });
              if (!declared) data.declare(m.specifier);
            },
          };
        });
      return { from, options, validFor: /^[^"'\n]*$/ };
    }
    const module = data.modules.find((m) => m.specifier === where.specifier);
    if (!module?.exports) return null;
    const options: Completion[] = module.exports
      .filter((name) => !where.already.includes(name) && name !== 'default')
      .map((name) => {
        // A WASM facade export shows its declared types (numbers, bytes, strings): the signature says which.
        const signature = module.signatures?.find((s) => s.as === name);
        const detail = module.kind !== 'wasm' ? `from ${module.specifier}` : signature ? wasmSignatureText(signature) : 'WASM export (async)';
        return { label: name, type: module.kind === 'wasm' ? 'function' : 'variable', detail };
      });
    return { from, options, validFor: /^[A-Za-z0-9_$]*$/ };
  };
}

/**
 * The view is created once per mount; the callbacks and catalog data live in refs so a re-render
 * never rebuilds the editor (that would drop its history). It lives in a shadow root: CodeMirror
 * styles itself at run time, and in a document it does so with a <style> element, which the
 * app's CSP (style-src 'self') blocks; in a shadow root it uses a constructed stylesheet instead.
 * The hint lives there too, so the editor's aria-describedby can reach it.
 */
export function CodeEditor({ label, value, onChange, onRun, marks = [], catalog }: CodeEditorProps) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const hintId = `${id}-hint`;
  const view = useRef<EditorView | undefined>(undefined);
  const [expanded, setExpandedState] = useState(false);
  const latest = useRef({ onChange, onRun, catalog, value });
  latest.current = { onChange, onRun, catalog, value };

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const shadow = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    shadow.replaceChildren();
    const parent = document.createElement('div');
    const hint = document.createElement('p');
    hint.id = hintId;
    hint.className = 'hint';
    hint.textContent = HINT;
    shadow.append(parent, hint);
    shadow.adoptedStyleSheets = [hintSheet()];
    const completionData = [
      { autocomplete: catalogCompletions(() => latest.current.catalog) },
      { autocomplete: exportCompletions(() => latest.current.catalog) },
    ];
    const created = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({
        doc: latest.current.value,
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          indentOnInput(),
          indentUnit.of('  '),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          javascript(),
          autocompletion({ activateOnTyping: true }),
          // One source object for the view's life: the completion state tells sources apart by identity.
          EditorState.languageData.of(() => completionData),
          lintGutter(),
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                run: (v) => {
                  closeCompletion(v);
                  latest.current.onRun?.();
                  return latest.current.onRun !== undefined;
                },
              },
            ]),
          ),
          keymap.of([...completionKeymap, { key: 'Tab', run: typeIndent, shift: indentLess }, ...defaultKeymap, ...historyKeymap]),
          EditorView.domEventHandlers({ beforeinput: replaceAcrossLines }),
          // Esc releases Tab until the next other key, as the hint says. An observer sees every Esc,
          // also the one that closes a completion (CodeMirror's own release skips that one, and
          // lapses after 2 s).
          EditorView.domEventObservers({
            keydown: (event, v) => {
              if (event.key === 'Escape') v.setTabFocusMode(RELEASE_MS);
            },
          }),
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': hintId, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const next = update.state.doc.toString();
            latest.current.value = next;
            latest.current.onChange(next);
          }),
          theme,
          editorSize(),
        ],
      }),
    });
    view.current = created;
    return () => {
      created.destroy();
      shadow.replaceChildren();
      view.current = undefined;
    };
    // The view lives for the mount (label and id are fixed for a node's editor); rebuilding it would drop its history.
  }, []);

  // A value set from outside (a draft restored, a workflow opened) replaces the text.
  useEffect(() => {
    const current = view.current;
    if (!current) return;
    const text = current.state.doc.toString();
    if (text !== value) current.dispatch({ changes: { from: 0, to: text.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const current = view.current;
    if (!current) return;
    current.dispatch(setDiagnostics(current.state, toDiagnostics(current.state, marks)));
  }, [marks]);

  return (
    <div className="code-field">
      <span className="label" aria-hidden="true">
        {label}
      </span>{' '}
      <button
        type="button"
        className="link small"
        aria-pressed={expanded}
        onClick={() => {
          if (view.current) setExpanded(view.current, !expanded);
          setExpandedState(!expanded);
        }}
      >
        {expanded ? 'Smaller view' : 'Larger view'}
      </button>
      <div ref={host} className="code-editor" />
    </div>
  );
}
