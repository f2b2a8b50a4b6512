// A pack's SKILL.md for a person: the Package Manager's details and the Code node's docs toggle
// render the same file through this component. It is third-party text, so it is rendered as
// sanitized Markdown only — no raw HTML (react-markdown drops it; rehype-sanitize cleans what
// remains), links open nowhere by themselves (new tab, no opener, no referrer), images are never
// loaded (their alt text is shown instead) — and an untrusted pack's doc carries a banner.

import Markdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import { useContractQuery } from '../../api/client-context.tsx';
import { FailureText } from '../../ui/failure-text.tsx';
import { SKILL_UNTRUSTED_BANNER } from '../consent/consent-text.ts';
import { displayText } from '../../../shared/protocol/display-text.ts';
import type { SkillDoc as SkillDocData } from '../../../shared/contract/schemas.ts';

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow" title={href ? `Opens ${href} in a new window` : undefined}>
      {children}
    </a>
  ),
  img: ({ alt }) => <span className="image-placeholder">[image not loaded{alt ? `: ${displayText(alt)}` : ''}]</span>,
};

export function SkillDoc({ packName }: { packName: string }) {
  const doc = useContractQuery('catalog.skillDoc', { packName });
  if (doc.isPending) return <p>Loading documentation…</p>;
  if (doc.isError) {
    const code = doc.error.failure.code;
    const expected = code === 'not-found' || code === 'skill-missing' || code === 'skill-invalid' || code === 'skill-too-large';
    return expected ? <p className="muted">No documentation to show: {doc.error.failure.message}</p> : <FailureText error={doc.error} />;
  }
  return <SkillDocView doc={doc.data} />;
}

/** A SKILL.md already read (packs.details reads it for a pack the catalog does not serve yet). */
export function SkillDocView({ doc }: { doc: SkillDocData }) {
  return (
    <article className="skill-doc" aria-label={`Documentation of ${doc.packName}`}>
      {!doc.trusted && (
        <p className="banner banner-warn" role="note">
          {SKILL_UNTRUSTED_BANNER}
        </p>
      )}
      <p className="muted">
        {displayText(doc.skillName)} — {displayText(doc.description)}
      </p>
      <div className="markdown">
        <Markdown rehypePlugins={[rehypeSanitize]} components={components} skipHtml>
          {displayText(doc.markdown, { multiline: true })}
        </Markdown>
      </div>
    </article>
  );
}
