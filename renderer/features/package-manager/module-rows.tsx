// The modules of one pack: specifier, kind, and ready or skipped with the reason the catalog
// gave (e.g. "export `hash` takes i64") — a skipped module is never shown without its reason.

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { Chip } from '../../ui/chip.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';

export function ModuleRows({ modules, emptyText = 'No sandbox modules (host code only).' }: { modules: readonly ModuleSummary[]; emptyText?: string }) {
  if (modules.length === 0) return <p className="muted">{emptyText}</p>;
  return (
    <ul className="modules" aria-label="Modules">
      {modules.map((m) => (
        <li key={m.specifier} className={m.status === 'ready' ? 'module' : 'module module-skipped'}>
          <code className="specifier">{displayText(m.specifier)}</code> <Chip tone="info">{m.kind}</Chip>{' '}
          {m.status === 'ready' ? (
            <Chip tone="good">ready</Chip>
          ) : (
            <>
              <Chip tone="bad">skipped</Chip> <span className="reason">{displayText(m.reason ?? m.code ?? 'no reason given')}</span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
