// A pack's details: its modules and its SKILL.md (sanitized, bannered when untrusted).

import { useContractQuery } from '../../api/client-context.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { SkillDoc } from '../skill-docs/skill-doc.tsx';
import { ModuleRows } from './module-rows.tsx';

export function PackDetails({ packName }: { packName: string }) {
  const openDetails = useUiStore((s) => s.openDetails);
  const summaries = useContractQuery('catalog.summaries', {});
  const modules = (summaries.data?.modules ?? []).filter((m) => m.packName === packName);
  return (
    <section className="panel details" aria-labelledby="details-h">
      <div className="row spread">
        <h2 id="details-h">{packName}</h2>
        <button type="button" onClick={() => openDetails(undefined)}>
          Close details
        </button>
      </div>
      <h3>Modules</h3>
      <ModuleRows modules={modules} />
      <h3>Documentation (SKILL.md)</h3>
      <SkillDoc packName={packName} />
    </section>
  );
}
