// The modules of one pack: specifier, kind, and ready or skipped with the reason the catalog
// gave (e.g. "export `hash` takes i64") — a skipped module is never shown without its reason.
// With `showExports`, what each module exports (statically known names, WASM signatures). A
// pack the catalog does not serve shows its rows with `notLoaded` ("not active"): read from its files, not loaded.

import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { Chip } from '../../ui/chip.tsx';
import { displayText } from '../../../shared/protocol/display-text.ts';

function exportsText(m: ModuleSummary): string {
  if (m.signatures && m.signatures.length > 0) return m.signatures.map((s) => `${s.as}(${s.params.join(', ')}) → ${s.results[0] ?? 'nothing'}`).join(', ');
  if (m.exports === undefined) return 'not known before it runs';
  return m.exports.length === 0 ? 'nothing' : m.exports.join(', ');
}

export function ModuleRows({
  modules,
  emptyText = 'No sandbox modules (host code only).',
  showExports = false,
  notLoaded,
}: {
  modules: readonly ModuleSummary[];
  emptyText?: string | undefined;
  showExports?: boolean;
  /** For rows read from the files of a pack the catalog does not serve: the chip saying so ("not active"). */
  notLoaded?: string | undefined;
}) {
  if (modules.length === 0) return <p className="muted">{emptyText}</p>;
  return (
    <ul className="modules" aria-label="Modules">
      {modules.map((m) => (
        <li key={m.specifier} className={m.status === 'ready' ? 'module' : 'module module-skipped'}>
          <code className="specifier">{displayText(m.specifier)}</code> <Chip tone="info">{m.kind}</Chip>{' '}
          {m.status === 'ready' ? (
            notLoaded !== undefined ? (
              <Chip tone="warn">{notLoaded}</Chip>
            ) : (
              <Chip tone="good">ready</Chip>
            )
          ) : (
            <>
              <Chip tone="bad">skipped</Chip> <span className="reason">{displayText(m.reason ?? m.code ?? 'no reason given')}</span>
            </>
          )}
          {showExports && m.status === 'ready' && ' '}
          {showExports && m.status === 'ready' && <span className="module-exports small">exports {displayText(exportsText(m))}</span>}
        </li>
      ))}
    </ul>
  );
}
