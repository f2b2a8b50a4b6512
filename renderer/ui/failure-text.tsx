// How a failure from main is shown: its sentence, with the code as a quiet tag for support.

import type { ContractFailure } from '../api/client-context.tsx';

export function FailureText({ error, prefix }: { error: ContractFailure | null | undefined; prefix?: string }) {
  if (!error) return null;
  return (
    <p role="alert" className="failure">
      {prefix ? `${prefix} ` : ''}
      {error.failure.message} <code className="code-tag">{error.failure.code}</code>
    </p>
  );
}
