// A Code node's validation, from the validator `sandbox-packs validate` runs (code.validate over
// the contract: shared/workflow/validate-workflow.ts against the installed catalog), so the editor
// and the CLI never disagree. Asked a moment after typing stops; the last answer stays on screen
// while the next is on its way, and a catalog change refreshes it like every other read.

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ValueOf } from '../../../shared/contract/methods.ts';
import type { CodeNode } from '../../../shared/protocol/workflow.ts';
import { ContractFailure, useContractClient } from '../../api/client-context.tsx';

const SETTLE_MS = 250;

function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function useNodeValidation(node: CodeNode) {
  const client = useContractClient();
  const settled = useSettled(node, SETTLE_MS);
  const query = useQuery<ValueOf<'code.validate'>, ContractFailure>({
    queryKey: ['code.validate', { workflow: { nodes: [settled] } }],
    queryFn: async () => {
      const result = await client.call('code.validate', { workflow: { nodes: [settled] } });
      if (!result.ok) throw new ContractFailure(result);
      return result.value;
    },
    placeholderData: keepPreviousData,
  });
  return { issues: query.data?.issues, error: query.error, current: settled === node && !query.isPlaceholderData && !query.isFetching };
}
