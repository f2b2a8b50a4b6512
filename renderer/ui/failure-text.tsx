// How a failure from main is shown: its sentence, with the code as a quiet tag for support whose
// tooltip is the code's general sentence (explain), the same text `sandbox-packs explain CODE` prints.
// A lost connection to the app's own server has no tag: its sentence says all there is to do.

import type { ContractFailure } from '../api/client-context.tsx';
import { explain } from '../../shared/protocol/codes.ts';
import { displayText } from '../../shared/protocol/display-text.ts';

/** `notice`: an outcome the user asked for (a cancelled install), shown without the failure colours. */
export function FailureText({ error, prefix, tone = 'failure' }: { error: ContractFailure | null | undefined; prefix?: string; tone?: 'failure' | 'notice' }) {
  if (!error) return null;
  return (
    <p role="alert" className={tone}>
      {prefix ? `${prefix} ` : ''}
      {displayText(error.failure.message, { multiline: true })}{' '}
      {error.failure.code !== 'service-unreachable' && (
        <code className="code-tag" title={explain(error.failure.code)}>
          {error.failure.code}
        </code>
      )}
    </p>
  );
}
