// A pack's details: its modules with what they export, and its SKILL.md (sanitized, bannered when
// untrusted), from packs.details — also for a pack that waits for trust, whose rows were read from
// its files (nothing of it ran), since that is when the user must decide. The panel may open
// beside the lists or below them (narrow window): either way it scrolls into view and takes focus
// on its heading, so the person lands where the content appeared.

import { useEffect, useRef } from 'react';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { FailureText } from '../../ui/failure-text.tsx';
import { trustState } from '../consent/consent-text.ts';
import { SEEDING_MODULES_TEXT, useSeedingStore } from '../first-run/seeding-store.ts';
import { SkillDocView } from '../skill-docs/skill-doc.tsx';
import { ModuleRows } from './module-rows.tsx';

/** Why the rows below were read from the pack's files rather than the catalog, in the user's terms. */
function filesNote(name: string, pack: InstalledPack | undefined, seeding: boolean): string {
  const state = pack ? trustState(pack) : undefined;
  const lead = `${name} is not active, so none of its code has run: the modules and exports below were read from its files`;
  if (state === 'needs-trust') return `${lead}, and load once you trust it.`;
  if (state === 'trust-failed') return `${lead}, and load once its setup succeeds.`;
  if (seeding) return `The app is still setting up ${name}, one of the packs it comes with: the modules and exports below were read from its files.`;
  return `The app has not loaded ${name} yet: the modules and exports below were read from its files.`;
}

function emptyText(pack: InstalledPack | undefined, seeding: boolean): string {
  if (pack?.installMode === 'register') return 'No sandbox modules (host code only).';
  if (seeding) return SEEDING_MODULES_TEXT;
  return 'No sandbox module could be read from its files.';
}

export function PackDetails({ packName }: { packName: string }) {
  const openDetails = useUiStore((s) => s.openDetails);
  const details = useContractQuery('packs.details', { name: packName });
  const packs = useContractQuery('packs.list', {});
  const seeding = useSeedingStore((s) => s.running);
  const pack = packs.data?.packs.find((p) => p.name === packName);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'nearest' });
    heading.current?.focus();
  }, [packName]);
  const data = details.data;
  return (
    <section className="panel details" aria-labelledby="details-h">
      <div className="row spread">
        <h2 id="details-h" ref={heading} tabIndex={-1}>
          {packName}
        </h2>
        <button type="button" onClick={() => openDetails(undefined)}>
          Close details of {packName}
        </button>
      </div>
      <h3>Modules</h3>
      {details.isPending ? (
        <p>Reading the modules of {packName}…</p>
      ) : details.isError ? (
        <FailureText error={details.error} />
      ) : data ? (
        <>
          {data.from === 'files' && data.modules.length > 0 && (
            <p className="banner banner-info" role="note">
              {displayText(filesNote(packName, pack, seeding))}
            </p>
          )}
          {data.rejected !== undefined && <p className="reason">{displayText(data.rejected)}</p>}
          <ModuleRows
            modules={data.modules}
            showExports
            notLoaded={data.from === 'files' ? (pack?.status === 'active' ? 'not loaded yet' : 'not active') : undefined}
            emptyText={emptyText(pack, seeding)}
          />
        </>
      ) : null}
      <h3>Documentation (SKILL.md)</h3>
      {data?.skill ? (
        <SkillDocView doc={data.skill} />
      ) : data ? (
        <p className="muted">No documentation to show: {displayText(data.skillProblem ?? 'the pack has no SKILL.md.')}</p>
      ) : null}
    </section>
  );
}
