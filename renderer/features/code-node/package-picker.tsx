// The Code node's package picker, built for packs with dozens of modules: the selected modules
// first (with their drift warning and "Re-pin" beside it, and a Remove), then a search field that
// filters the installed specifiers by specifier, pack and description, and at most a screenful of
// matches, so the module a user wants is a few keystrokes and Tabs away, not the 61st Tab stop.
// Each module keeps its checkbox (its label is its specifier), a docs toggle that renders the
// pack's SKILL.md (the same file agents read), skipped modules greyed with their reason, and saved
// specifiers no installed pack provides listed as unavailable with a Remove action.

import { useId, useState } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { Chip } from '../../ui/chip.tsx';
import { IMPORT_CONSENT } from '../consent/consent-text.ts';
import { SkillDoc } from '../skill-docs/skill-doc.tsx';
import { declarationState, driftMessage, repin, toggleDeclaration } from './declarations.ts';

export interface PackagePickerProps {
  readonly nodeId: string;
  readonly modules: readonly ModuleSummary[];
  readonly byId: ReadonlyMap<string, ModuleSummary>;
  readonly packages: readonly SandboxModuleDeclaration[];
  readonly onChange: (next: SandboxModuleDeclaration[]) => void;
}

/** Unselected matches shown at once; the rest are a refinement of the search away. */
export const PICKER_PAGE = 12;

/** The disclosure line repeats the specifier and kind ("@x/y (js): …"); the row already shows both. */
function description(m: ModuleSummary): string {
  const prefix = `${m.specifier} (${m.kind})`;
  const text = m.summary.startsWith(prefix) ? m.summary.slice(prefix.length).replace(/^:\s*/, '') : m.summary;
  return text === '' ? 'No description.' : text;
}

export function matchesQuery(m: ModuleSummary, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  const haystack = `${m.specifier} ${m.packName} ${m.summary}`.toLowerCase();
  return words.every((w) => haystack.includes(w));
}

export function PackagePicker({ nodeId, modules, byId, packages, onChange }: PackagePickerProps) {
  const [docsFor, setDocsFor] = useState<string | undefined>(undefined);
  const [query, setQuery] = useState('');
  const [showAll, setShowAll] = useState(false);
  const searchId = useId();
  const selected = new Map(packages.map((d) => [d.specifier, d]));
  const unavailable = packages.filter((d) => !byId.has(d.specifier));
  const chosen = modules.filter((m) => selected.has(m.specifier));
  const matches = modules.filter((m) => !selected.has(m.specifier) && matchesQuery(m, query));
  const shown = showAll ? matches : matches.slice(0, PICKER_PAGE);
  const hidden = matches.length - shown.length;

  const row = (m: ModuleSummary) => {
    const declaration = selected.get(m.specifier);
    const state = declaration ? declarationState(declaration, byId) : undefined;
    const skipped = m.status !== 'ready';
    const checkboxId = `${nodeId}-pkg-${m.specifier}`;
    return (
      <li key={m.specifier} className={skipped ? 'pick pick-skipped' : 'pick'}>
        <div className="pick-row">
          <input
            type="checkbox"
            id={checkboxId}
            checked={declaration !== undefined}
            disabled={skipped && declaration === undefined}
            onChange={(e) => {
              onChange(toggleDeclaration(packages, m.specifier, e.target.checked, byId));
              // The row moves between the selected and the found list: keep focus on its checkbox.
              requestAnimationFrame(() => document.getElementById(checkboxId)?.focus());
            }}
          />
          <label htmlFor={checkboxId}>
            <code>{m.specifier}</code>
          </label>
          <Chip tone="info">{m.kind}</Chip>
          <span className="muted small">{displayText(m.packVersion)}</span>
          {m.hasSkill && (
            <button
              type="button"
              className="link small"
              aria-expanded={docsFor === m.specifier}
              aria-label={`${docsFor === m.specifier ? 'Hide docs' : 'Docs'} for ${m.specifier}`}
              onClick={() => setDocsFor(docsFor === m.specifier ? undefined : m.specifier)}
            >
              {docsFor === m.specifier ? 'Hide docs' : 'Docs'}
            </button>
          )}
        </div>
        {skipped ? <p className="reason small">Skipped: {displayText(m.reason ?? m.code ?? 'no reason given')}</p> : <p className="muted small">{displayText(description(m))}</p>}
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
        <ul className="picker-list" aria-label={`Selected for ${nodeId}`}>
          {chosen.map(row)}
          {unavailable.map((d) => (
            <li key={d.specifier} className="pick pick-unavailable">
              <div className="pick-row">
                <code>{d.specifier}</code> <Chip tone="bad">unavailable</Chip>
                <button type="button" className="link" onClick={() => onChange(packages.filter((p) => p.specifier !== d.specifier))}>
                  Remove {d.specifier}
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
        <>
          <label htmlFor={searchId} className="small">
            Find a module for {nodeId}
          </label>
          <input
            id={searchId}
            type="search"
            value={query}
            placeholder="specifier, pack or description"
            onChange={(e) => {
              setQuery(e.target.value);
              setShowAll(false);
            }}
            aria-describedby={`${searchId}-count`}
          />
          <p id={`${searchId}-count`} className="muted small" aria-live="polite">
            {matches.length === 0 ? 'No module matches.' : `${matches.length} ${matches.length === 1 ? 'module matches' : 'modules match'}${hidden > 0 ? `; showing ${shown.length}` : ''}.`}
          </p>
          <ul className="picker-list" aria-label={`Modules to add to ${nodeId}`}>
            {shown.map(row)}
          </ul>
          {hidden > 0 && (
            <button type="button" className="link small" onClick={() => setShowAll(true)}>
              Show {hidden} more
            </button>
          )}
        </>
      )}
    </fieldset>
  );
}
