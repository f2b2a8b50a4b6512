// The Code node's package picker: one checkbox per installed specifier with its kind, a docs
// toggle that renders the pack's SKILL.md (the same file agents read), skipped modules greyed
// with their reason, and saved specifiers no installed pack provides listed as unavailable with
// a Remove action. Selected modules with version or digest drift show a warning and "Re-pin".

import { useState } from 'react';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import type { SandboxModuleDeclaration } from '../../../shared/protocol/declaration.ts';
import { Chip } from '../../ui/chip.tsx';
import { IMPORT_CONSENT } from '../consent/consent-text.ts';
import { SkillDoc } from '../skill-docs/skill-doc.tsx';
import { declarationState, driftMessage, repin, toggleDeclaration } from './declarations.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';

export interface PackagePickerProps {
  readonly nodeId: string;
  readonly modules: readonly ModuleSummary[];
  readonly byId: ReadonlyMap<string, ModuleSummary>;
  readonly packages: readonly SandboxModuleDeclaration[];
  readonly onChange: (next: SandboxModuleDeclaration[]) => void;
}

export function PackagePicker({ nodeId, modules, byId, packages, onChange }: PackagePickerProps) {
  const [docsFor, setDocsFor] = useState<string | undefined>(undefined);
  const selected = new Map(packages.map((d) => [d.specifier, d]));
  const unavailable = packages.filter((d) => !byId.has(d.specifier));
  return (
    <fieldset className="picker">
      <legend>Packages for {nodeId}</legend>
      <p className="consent small">{IMPORT_CONSENT}</p>
      {modules.length === 0 && unavailable.length === 0 && <p className="muted">No sandbox modules are installed. Install a pack in Packages.</p>}
      <ul className="picker-list">
        {modules.map((m) => {
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
                  onChange={(e) => onChange(toggleDeclaration(packages, m.specifier, e.target.checked, byId))}
                />
                <label htmlFor={checkboxId}>
                  <code>{m.specifier}</code>
                </label>
                <Chip tone="info">{m.kind}</Chip>
                <span className="muted small">
                  {displayText(m.packName)}@{displayText(m.packVersion)}
                </span>
                {m.hasSkill && (
                  <button type="button" className="link small" aria-expanded={docsFor === m.specifier} onClick={() => setDocsFor(docsFor === m.specifier ? undefined : m.specifier)}>
                    {docsFor === m.specifier ? 'Hide docs' : 'Docs'}
                  </button>
                )}
              </div>
              {skipped ? <p className="reason small">Skipped: {displayText(m.reason ?? m.code ?? 'no reason given')}</p> : <p className="muted small">{displayText(m.summary)}</p>}
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
        })}
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
    </fieldset>
  );
}
