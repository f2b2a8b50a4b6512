// The Code node's package picker, built for packs with dozens of modules: the selected modules as
// chips (each with its kind and version, "Docs for …" opening the pack's SKILL.md — the same file
// agents read — a "Remove …" button, and its drift warning with "Re-pin" beside it), then one
// searchable combobox (WAI-ARIA APG "combobox with listbox popup") that filters the installed
// specifiers by specifier, pack and description in a listbox of bounded height, so the module a
// user wants is a few keystrokes away, not the 61st Tab stop. Skipped modules are listed greyed
// with their reason and cannot be picked; saved specifiers no installed pack provides are chips
// marked unavailable, with a Remove. Adding a module also adds its import line to the code (onPicked).
// Each chip has an "Isolate" checkbox (`isolation: true` on its declaration); an isolated chip says
// what that means in place of the trust sentence above, which still covers every other module.

import { useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { Chip } from '../../ui/chip.tsx';
import { IMPORT_CONSENT, isolatedConsent } from '../consent/consent-text.ts';
import { SkillDoc } from '../skill-docs/skill-doc.tsx';
import { comboboxKey } from './combobox-keys.ts';
import { declarationState, driftMessage, repin, setIsolation, toggleDeclaration } from './declarations.ts';
import { signatureText } from './import-context.ts';

export interface PackagePickerProps {
  readonly nodeId: string;
  readonly modules: readonly ModuleSummary[];
  readonly byId: ReadonlyMap<string, ModuleSummary>;
  readonly packages: readonly SandboxModuleDeclaration[];
  readonly onChange: (next: SandboxModuleDeclaration[]) => void;
  /** Told of a module the user added, so the node's code can import it too. */
  readonly onPicked?: (module: ModuleSummary) => void;
}

/**
 * The disclosure line repeats the specifier and kind ("@x/y (wasm; exports a, b): …"); the option
 * already shows both, and a WASM module's exports are shown with their signatures instead.
 */
export function description(m: ModuleSummary): string {
  const head = `${m.specifier} (`;
  const close = m.summary.startsWith(head) ? m.summary.indexOf(')', head.length) : -1;
  const text = close >= 0 ? m.summary.slice(close + 1).replace(/^:\s*/, '') : m.summary;
  const exports = m.signatures && m.signatures.length > 0 ? `Exports ${m.signatures.map(signatureText).join(', ')} (async).` : '';
  // A manifest description need not end a sentence; the export list that follows starts one.
  const sentence = exports !== '' && text !== '' && !/[.!?…]$/.test(text) ? `${text}.` : text;
  return [sentence, exports].filter((t) => t !== '').join(' ') || 'No description.';
}

export function matchesQuery(m: ModuleSummary, query: string): boolean {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const haystack = `${m.specifier} ${m.packName} ${m.summary}`.toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** An id fragment safe in an id attribute (specifiers hold "@" and "/"). */
const idPart = (specifier: string) => specifier.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);

export function PackagePicker({ nodeId, modules, byId, packages, onChange, onPicked }: PackagePickerProps) {
  const [docsFor, setDocsFor] = useState<string | undefined>(undefined);
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [announce, setAnnounce] = useState('');
  const base = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const chipsRef = useRef<HTMLUListElement>(null);
  const inputId = `${base}-input`;
  const listId = `${base}-list`;
  const optionId = (m: ModuleSummary) => `${base}-opt-${idPart(m.specifier)}`;

  const selected = new Map(packages.map((d) => [d.specifier, d]));
  const unavailable = packages.filter((d) => !byId.has(d.specifier));
  const chosen = modules.filter((m) => selected.has(m.specifier));
  const matches = modules.filter((m) => !selected.has(m.specifier) && matchesQuery(m, query));
  const activeModule = open ? matches[active] : undefined;

  const moveTo = (index: number) => {
    setOpen(true);
    setActive(index);
    const m = matches[index];
    // The active option stays in view inside the listbox's bounded height.
    if (m) requestAnimationFrame(() => document.getElementById(optionId(m))?.scrollIntoView({ block: 'nearest' }));
  };

  const pick = (m: ModuleSummary) => {
    if (m.status !== 'ready') return;
    onChange(toggleDeclaration(packages, m.specifier, true, byId));
    onPicked?.(m);
    setQuery('');
    setOpen(false);
    setActive(-1);
    setAnnounce(`Added ${m.specifier} to ${nodeId}.`);
  };

  const remove = (specifier: string) => {
    // Focus goes to the next chip's Remove, or back to the combobox when it was the last one.
    const removers = [...(chipsRef.current?.querySelectorAll<HTMLButtonElement>('button[data-remove]') ?? [])];
    const at = removers.findIndex((b) => b.dataset.remove === specifier);
    const nextSpecifier = removers[at + 1]?.dataset.remove ?? removers[at - 1]?.dataset.remove;
    onChange(packages.filter((p) => p.specifier !== specifier));
    if (docsFor === specifier) setDocsFor(undefined);
    setAnnounce(`Removed ${specifier} from ${nodeId}.`);
    requestAnimationFrame(() => {
      const next = nextSpecifier ? chipsRef.current?.querySelector<HTMLButtonElement>(`button[data-remove="${CSS.escape(nextSpecifier)}"]`) : undefined;
      (next ?? inputRef.current)?.focus();
    });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const action = comboboxKey(e.key, open, active, matches.length, e.altKey);
    if (action.kind === 'none') return;
    e.preventDefault();
    if (action.kind === 'move') return moveTo(action.active);
    if (action.kind === 'close') {
      setOpen(false);
      setActive(-1);
      return;
    }
    if (action.kind === 'clear') return setQuery('');
    const m = matches[action.index];
    if (m) pick(m);
  };

  const isolate = (specifier: string, on: boolean) => {
    onChange(setIsolation(packages, specifier, on));
    setAnnounce(on ? isolatedConsent(specifier) : `${specifier} runs with ${nodeId}'s capabilities again.`);
  };

  /** The toggle, and (when on) the sentence that replaces the trust sentence for this module. */
  const isolation = (specifier: string) => {
    const on = selected.get(specifier)?.isolation === true;
    return {
      toggle: (
        <label className="pick-isolate small" title="Run this module in a sandbox context of its own">
          <input type="checkbox" checked={on} aria-label={`Isolate ${specifier}`} onChange={(e) => isolate(specifier, e.currentTarget.checked)} />
          Isolate
        </label>
      ),
      note: on ? <p className="isolated-note small">{isolatedConsent(specifier)}</p> : null,
    };
  };

  const chip = (m: ModuleSummary) => {
    const declaration = selected.get(m.specifier);
    const state = declaration ? declarationState(declaration, byId) : undefined;
    const skipped = m.status !== 'ready';
    const iso = isolation(m.specifier);
    return (
      <li key={m.specifier} className={skipped ? 'pick-chip pick-skipped' : 'pick-chip'}>
        <div className="pick-row">
          <code>{m.specifier}</code>
          <Chip tone="info">{m.kind}</Chip>
          <span className="muted small">{displayText(m.packVersion)}</span>
          {m.hasSkill && (
            <button
              type="button"
              className="link small"
              aria-expanded={docsFor === m.specifier}
              onClick={() => setDocsFor(docsFor === m.specifier ? undefined : m.specifier)}
            >
              {docsFor === m.specifier ? 'Hide docs' : 'Docs'} for {m.specifier}
            </button>
          )}
          {iso.toggle}
          <button
            type="button"
            className="chip-remove"
            data-remove={m.specifier}
            aria-label={`Remove ${m.specifier}`}
            title={`Remove ${m.specifier}`}
            onClick={() => remove(m.specifier)}
          >
            ×
          </button>
        </div>
        {iso.note}
        {skipped && <p className="reason small">Skipped: {displayText(m.reason ?? m.code ?? 'no reason given')}</p>}
        {state?.kind === 'ready' &&
          state.drift.map((d) => (
            <p key={d.kind} className="warn-text small" role="note">
              {driftMessage(m.specifier, d)}{' '}
              <button type="button" className="link" onClick={() => onChange(repin(packages, m.specifier, byId))}>
                Re-pin to installed
              </button>
            </p>
          ))}
        {docsFor === m.specifier && <SkillDoc packName={m.packName} />}
      </li>
    );
  };

  return (
    <fieldset className="picker">
      <legend>Packages for {nodeId}</legend>
      <p className="consent small">{IMPORT_CONSENT}</p>
      {modules.length === 0 && unavailable.length === 0 && <p className="muted">No sandbox modules are installed. Install a pack in Packages.</p>}
      {(chosen.length > 0 || unavailable.length > 0) && (
        <ul className="picker-chips" aria-label={`Selected for ${nodeId}`} ref={chipsRef}>
          {chosen.map(chip)}
          {unavailable.map((d) => (
            <li key={d.specifier} className="pick-chip pick-unavailable">
              <div className="pick-row">
                <code>{d.specifier}</code> <Chip tone="bad">unavailable</Chip>
                {isolation(d.specifier).toggle}
                <button
                  type="button"
                  className="chip-remove"
                  data-remove={d.specifier}
                  aria-label={`Remove ${d.specifier}`}
                  title={`Remove ${d.specifier}`}
                  onClick={() => remove(d.specifier)}
                >
                  ×
                </button>
              </div>
              <p className="reason small">
                Saved with this node{d.resolvedPackVersion ? ` (version ${displayText(d.resolvedPackVersion)})` : ''}, but no installed pack provides it.
              </p>
            </li>
          ))}
        </ul>
      )}
      {modules.length > chosen.length && (
        <div className="combobox">
          <label htmlFor={inputId} className="small">
            Add a module to {nodeId}
          </label>
          <input
            id={inputId}
            ref={inputRef}
            type="text"
            role="combobox"
            autoComplete="off"
            spellCheck={false}
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listId}
            aria-activedescendant={activeModule ? optionId(activeModule) : undefined}
            aria-describedby={`${base}-count`}
            value={query}
            placeholder="Type a specifier, pack or description"
            onChange={(e) => {
              setQuery(e.target.value);
              setOpen(true);
              setActive(-1);
            }}
            onKeyDown={onKeyDown}
            onClick={() => setOpen(true)}
            onBlur={() => {
              setOpen(false);
              setActive(-1);
            }}
          />
          <p id={`${base}-count`} className="muted small">
            {matches.length === 0 ? 'No module matches.' : `${matches.length} ${matches.length === 1 ? 'module matches' : 'modules match'}.`}
          </p>
          <ul id={listId} role="listbox" className="picker-listbox" aria-label={`Modules to add to ${nodeId}`} hidden={!open}>
            {open &&
              matches.map((m, i) => {
                const skipped = m.status !== 'ready';
                const id = optionId(m);
                return (
                  <li
                    key={m.specifier}
                    id={id}
                    role="option"
                    aria-selected={i === active}
                    aria-disabled={skipped || undefined}
                    aria-labelledby={`${id}-name`}
                    aria-describedby={`${id}-text`}
                    className={`picker-option${i === active ? ' active' : ''}${skipped ? ' pick-skipped' : ''}`}
                    // Keep focus in the combobox: the option is chosen on click without a blur first.
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={() => pick(m)}
                  >
                    <span className="pick-row">
                      <code id={`${id}-name`}>{m.specifier}</code>
                      <Chip tone="info">{m.kind}</Chip>
                      <span className="muted small">{displayText(m.packVersion)}</span>
                    </span>
                    <span id={`${id}-text`} className={skipped ? 'reason small' : 'muted small'}>
                      {skipped ? `Skipped: ${displayText(m.reason ?? m.code ?? 'no reason given')}` : displayText(description(m))}
                    </span>
                  </li>
                );
              })}
          </ul>
        </div>
      )}
      <p className="visually-hidden" aria-live="polite">
        {announce}
      </p>
    </fieldset>
  );
}
