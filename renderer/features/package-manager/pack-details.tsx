// A pack's details: its modules and its SKILL.md (sanitized, bannered when untrusted). The panel
// may open beside the lists or below them (narrow window): either way it scrolls into view and
// takes focus on its heading, so the person lands where the content appeared.

import { useEffect, useRef } from 'react';
import { useContractQuery } from '../../api/client-context.tsx';
import { useUiStore } from '../../state/ui-store.ts';
import { SkillDoc } from '../skill-docs/skill-doc.tsx';
import { ModuleRows } from './module-rows.tsx';

export function PackDetails({ packName }: { packName: string }) {
  const openDetails = useUiStore((s) => s.openDetails);
  const summaries = useContractQuery('catalog.summaries', {});
  const modules = (summaries.data?.modules ?? []).filter((m) => m.packName === packName);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'nearest' });
    heading.current?.focus();
  }, [packName]);
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
      <ModuleRows modules={modules} />
      <h3>Documentation (SKILL.md)</h3>
      <SkillDoc packName={packName} />
    </section>
  );
}
