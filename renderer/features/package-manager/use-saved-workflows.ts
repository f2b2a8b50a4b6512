// Every saved workflow, loaded through the contract (one query per workflows.load), for the
// "which nodes declare this pack" lists shown before an uninstall or update acts.

import { useQueries } from '@tanstack/react-query';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { ContractFailure, useContractClient, useContractQuery } from '../../api/client-context.tsx';

export interface SavedWorkflows {
  readonly pending: boolean;
  readonly error: ContractFailure | null;
  readonly workflows: { name: string; workflow: Workflow }[];
}

export function useSavedWorkflows(): SavedWorkflows {
  const client = useContractClient();
  const names = useContractQuery('workflows.list', {});
  const loads = useQueries({
    queries: (names.data?.names ?? []).map((name) => ({
      queryKey: ['workflows.load', { name }],
      queryFn: async () => {
        const result = await client.call('workflows.load', { name });
        if (!result.ok) throw new ContractFailure(result);
        return result.value;
      },
    })),
  });
  const error = names.error ?? loads.find((q) => q.error)?.error ?? null;
  return {
    pending: names.isPending || loads.some((q) => q.isPending),
    error: error as ContractFailure | null,
    workflows: loads.flatMap((q) => (q.data ? [q.data] : [])),
  };
}
